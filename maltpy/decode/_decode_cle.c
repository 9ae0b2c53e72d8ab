/* Chu-Liu-Edmonds, for maltpy.decode._decode (see _decode.h).

   decode_mst(): Chu-Liu-Edmonds (McDonald et al. 2007, §3.2, Fig. 9) in Tarjan's (1977) O(n^2) form for
   dense graphs. Every word first takes its best incoming arc. A cycle C among those is contracted
   into one node c that takes the matrix slot of C's lowest slot: the arc x -> c scores
   max over v in C of s(x, v) - s(a(v), v) (a(v) v's head on the cycle; the constant s(C) that
   Fig. 9 adds is left out, as every tree has one arc into c), the arc c -> y scores
   max over v in C of s(v, y); the original arc behind each arc of the contracted graph is kept
   beside its score. Only c needs a new incoming arc (a word whose best head was in C now has c,
   with the same score), and only a cycle through c can be new: so each contraction costs
   O(n |C|), and the whole O(n^2). A contracted node's arcs are expanded from the last contracted
   to the first: the member that the node's incoming arc enters takes that arc, the other members
   keep their cycle arcs.

   With one root, an arc from the root is worse than any other arc into the same node, whatever
   the scores (an infinite penalty on the root's arcs, see decode.py): a node takes the root only
   when no other node is left, so the contractions go on until one node remains, which then takes
   its best arc from the root.

   decode_mst_mstparser(): the same tree with MSTParser 0.5's ties (below). */

#include "_decode.h"

/* --- Chu-Liu-Edmonds ---------------------------------------------------------------------------- */

/* The scores S into the contracted graph's matrix (divided by 2^shift), each arc its own original. */
static void load(Work *k, const double *S, Py_ssize_t N, int shift)
{
    for (Py_ssize_t h = 0; h < N; h++)
        for (Py_ssize_t d = 0; d < N; d++) {
            Py_ssize_t a = h * N + d;
            k->w[a] = shift ? ldexp(S[a], -shift) : S[a];
            k->from[a] = (idx)h;
            k->to[a] = (idx)d;
        }
}

/* The expansion, once every node left has its arc (fu, fv): each contracted node, the last first,
   gives its arc to the member it enters (the one above the arc's original dependent), the other
   members keeping their cycle arcs; the words' arcs are the tree. */
static void expand(Work *k, Py_ssize_t N, idx next_id, int64_t *heads)
{
    for (idx c = next_id - 1; c >= (idx)N; c--) {
        idx w = k->fv[c];
        while (k->parent[w] != c)
            w = k->parent[w];
        k->fu[w] = k->fu[c];
        k->fv[w] = k->fv[c];
    }
    heads[0] = -1;
    for (idx d = 1; d < (idx)N; d++)
        heads[d] = k->fu[d];
}

/* Gives slot y its best incoming arc among the live slots (and the root, last resort with one root). */
static void choose(Work *k, Py_ssize_t N, idx n_live, idx y, int one_root)
{
    const double *W = k->w;
    idx b = -1;
    double v = 0.0;
    if (!one_root) {
        b = 0;
        v = W[y];
    }
    for (idx i = 0; i < n_live; i++) {
        idx x = k->live[i];
        if (x != y && (b < 0 || W[(Py_ssize_t)x * N + y] > v)) {
            b = x;
            v = W[(Py_ssize_t)x * N + y];
        }
    }
    if (b < 0) {
        b = 0;
        v = W[y];
    }
    k->best[y] = b;
    k->in[y] = v;
}

/* Contracts the cycle through slot s into a new node; returns its slot. */
static idx contract(Work *k, Py_ssize_t N, idx *n_live, idx s, idx *next_id, idx mark)
{
    double *W = k->w;
    idx *from = k->from, *to = k->to, *cyc = k->cycle;
    idx len = 0, v = s;
    do {
        cyc[len++] = v;
        v = k->best[v];
    } while (v != s);
    for (idx i = 1; i < len; i++) /* ascending (cycles are short: insertion sort) */
        for (idx j = i; j > 0 && cyc[j - 1] > cyc[j]; j--) {
            idx t = cyc[j];
            cyc[j] = cyc[j - 1];
            cyc[j - 1] = t;
        }
    idx c = (*next_id)++, cs = cyc[0];
    k->parent[c] = -1;
    for (idx i = 0; i < len; i++) {
        idx m = cyc[i], node = k->id[m];
        Py_ssize_t arc = (Py_ssize_t)k->best[m] * N + m;
        k->fu[node] = from[arc];
        k->fv[node] = to[arc];
        k->parent[node] = c;
        k->stamp[m] = mark;
    }
    /* the arcs into c: the root's, then the other live slots' */
    for (idx i = -1; i < *n_live; i++) {
        idx x = i < 0 ? 0 : k->live[i];
        if (k->stamp[x] == mark && x != 0)
            continue;
        const double *row = W + (Py_ssize_t)x * N;
        idx bv = cs;
        double b = row[cs] - k->in[cs];
        for (idx j = 1; j < len; j++) {
            double t = row[cyc[j]] - k->in[cyc[j]];
            if (t > b) {
                b = t;
                bv = cyc[j];
            }
        }
        Py_ssize_t into = (Py_ssize_t)x * N;
        W[into + cs] = b;
        from[into + cs] = from[into + bv];
        to[into + cs] = to[into + bv];
    }
    /* the arcs out of c: row cs already holds cs's own */
    Py_ssize_t out = (Py_ssize_t)cs * N;
    for (idx j = 1; j < len; j++) {
        Py_ssize_t other = (Py_ssize_t)cyc[j] * N;
        for (idx i = 0; i < *n_live; i++) {
            idx y = k->live[i];
            if (k->stamp[y] != mark && W[other + y] > W[out + y]) {
                W[out + y] = W[other + y];
                from[out + y] = from[other + y];
                to[out + y] = to[other + y];
            }
        }
    }
    idx kept = 0;
    for (idx i = 0; i < *n_live; i++) {
        idx y = k->live[i];
        if (k->stamp[y] != mark || y == cs)
            k->live[kept++] = y;
        if (k->stamp[y] != mark && k->stamp[k->best[y]] == mark) /* its head was in the cycle */
            k->best[y] = cs;
    }
    *n_live = kept;
    k->id[cs] = c;
    return cs;
}

void decode_mst(Work *k, const double *S, Py_ssize_t N, int shift, int one_root, int64_t *heads)
{
    double *W = k->w;
    idx *from = k->from, *to = k->to;
    load(k, S, N, shift);
    idx n = (idx)(N - 1), n_live = n;
    for (idx y = 1; y <= n; y++) {
        k->live[y - 1] = y;
        k->id[y] = y;
        k->parent[y] = -1;
        k->stamp[y] = 0;
        /* the first candidate head, the lowest: the root, or with one root the lowest other word */
        idx b = !one_root || n == 1 ? 0 : (y == 1 ? 2 : 1);
        k->best[y] = b;
        k->in[y] = W[(Py_ssize_t)b * N + y];
    }
    k->stamp[0] = 0;
    /* each word's best head, row by row (the first best on ties) */
    for (idx x = 1; x <= n; x++) {
        const double *row = W + (Py_ssize_t)x * N;
        for (idx y = 1; y <= n; y++)
            if (x != y && row[y] > k->in[y]) {
                k->in[y] = row[y];
                k->best[y] = x;
            }
    }
    /* the cycles among the chosen arcs: walks up from each word (stamp 1 on this walk, 2 done) */
    idx n_pending = 0;
    for (idx start = 1; start <= n; start++) {
        idx v = start;
        while (v != 0 && k->stamp[v] == 0) {
            k->stamp[v] = 1;
            v = k->best[v];
        }
        if (v != 0 && k->stamp[v] == 1)
            k->pending[n_pending++] = v;
        for (v = start; v != 0 && k->stamp[v] == 1; v = k->best[v])
            k->stamp[v] = 2;
    }
    idx next_id = (idx)N, mark = 2;
    while (n_pending) {
        idx cs = contract(k, N, &n_live, k->pending[--n_pending], &next_id, ++mark);
        choose(k, N, n_live, cs, one_root);
        /* a new cycle can only pass through cs */
        ++mark;
        idx v = k->best[cs];
        while (v != 0 && v != cs && k->stamp[v] != mark) {
            k->stamp[v] = mark;
            v = k->best[v];
        }
        if (v == cs)
            k->pending[n_pending++] = cs;
    }
    /* expansion: the top nodes' arcs, then each contracted node's arc to the member it enters */
    for (idx i = 0; i < n_live; i++) {
        idx y = k->live[i];
        Py_ssize_t arc = (Py_ssize_t)k->best[y] * N + y;
        k->fu[k->id[y]] = from[arc];
        k->fv[k->id[y]] = to[arc];
    }
    expand(k, N, next_id, heads);
}

/* --- Chu-Liu-Edmonds as MSTParser 0.5 breaks its ties ---------------------------------------------- */

/* The capacities a Trove 1.1 int hash map (GNU Trove 1.1b5, the jar MSTParser 0.5 ships) goes
   through as it grows, read from the map itself: it starts at 23 slots and moves to the next
   when it holds more than half of them. A cycle of more than 3,292,489 words would need a score
   matrix of over 10^13 doubles, so the list is long enough. */
static const idx trove_capacities[] = {23, 47, 97, 197, 397, 797, 1597, 3203, 6421, 12853, 25717, 51437, 102877,
                                       205759, 411527, 823117, 1646237, 3292489, 6584983};

/* The slot of v in the open-addressed table (-1 for empty) of cap slots: its own, or the first empty
   or holding v on the double-hashing probe (Trove's: steps of 1 + v mod (cap - 2), downward). */
static idx trove_slot(const idx *table, idx cap, idx v)
{
    idx i = v % cap;
    if (table[i] < 0 || table[i] == v)
        return i;
    idx probe = 1 + v % (cap - 2);
    do {
        i -= probe;
        if (i < 0)
            i += cap;
    } while (table[i] >= 0 && table[i] != v);
    return i;
}

/* Writes into out the len distinct nodes of seq (>= 0) in the order in which a Trove int hash map
   into which they were put in seq's order gives its keys: from its last slot to its first.
   table holds 4 len + 64 items at least (each capacity is at most twice the last + 63), spill len. */
static void trove_order(const idx *seq, idx len, idx *out, idx *table, idx *spill)
{
    int c = 0;
    idx cap = trove_capacities[0], size = 0;
    for (idx i = 0; i < cap; i++)
        table[i] = -1;
    for (idx j = 0; j < len; j++) {
        idx at = trove_slot(table, cap, seq[j]);
        if (table[at] == seq[j])
            continue;
        table[at] = seq[j];
        if (++size > cap / 2) { /* rehashed into the next capacity, from the last slot down */
            idx n = 0;
            for (idx i = cap; i-- > 0;)
                if (table[i] >= 0)
                    spill[n++] = table[i];
            cap = trove_capacities[++c];
            for (idx i = 0; i < cap; i++)
                table[i] = -1;
            for (idx i = 0; i < n; i++)
                table[trove_slot(table, cap, spill[i])] = spill[i];
        }
    }
    idx n = 0;
    for (idx i = cap; i-- > 0;)
        if (table[i] >= 0)
            out[n++] = table[i];
}

/* mst()'s tree, with ties broken as MSTParser 0.5's DependencyDecoder.chuLiuEdmonds breaks them
   (McDonald's recursive form of the algorithm; see decode.py). Each round gives every live slot
   its best head afresh (the first best from slot 0 up), walks from each slot upward to find
   one cycle, lists its slots in the order of a Trove map built along it, and contracts it into
   the first of them: the arc x -> c enters the first member v with the best
   (s(C) + s(x, v)) - s(a(v), v), the arc c -> y leaves the first with the best s(v, y). The
   expansion is mst()'s. Without one root; O(n^2) a round, n rounds at most. */
void decode_mst_mstparser(Work *k, const double *S, Py_ssize_t N, int shift, int64_t *heads)
{
    double *W = k->w;
    idx *from = k->from, *to = k->to, *best = k->best, *live = k->live, *added = k->stamp,
        *walk = k->pending, *seq = k->cycle, *cyc = k->trove, *table = k->trove + N, *spill = k->trove + 5 * N + 64;
    load(k, S, N, shift);
    for (idx y = 0; y < (idx)N; y++) {
        live[y] = 1; /* live[slot]: still in the graph */
        k->id[y] = y;
        k->parent[y] = -1;
        walk[y] = -1;
    }
    idx next_id = (idx)N, walks = 0;
    for (;;) {
        best[0] = -1;
        for (idx i = 1; i < (idx)N; i++) {
            if (!live[i])
                continue;
            double v = W[i];
            best[i] = 0;
            for (idx j = 1; j < (idx)N; j++)
                if (j != i && live[j] && W[(Py_ssize_t)j * N + i] > v) {
                    v = W[(Py_ssize_t)j * N + i];
                    best[i] = j;
                }
        }
        /* one cycle: walking up from each slot not yet walked through, the first that closes */
        idx first = -1;
        for (idx i = 0; i < (idx)N; i++)
            added[i] = 0;
        for (idx i = 0; i < (idx)N && first < 0; i++) {
            if (added[i] || !live[i])
                continue;
            added[i] = 1;
            walk[i] = ++walks;
            for (idx l = i;;) {
                if (best[l] < 0)
                    break;
                if (walk[best[l]] == walks) {
                    first = best[l];
                    break;
                }
                l = best[l];
                if (added[l] && walk[l] != walks)
                    break;
                added[l] = 1;
                walk[l] = walks;
            }
        }
        if (first < 0)
            break;
        idx len = 0, v = first;
        do {
            seq[len++] = v;
            v = best[v];
        } while (v != first);
        trove_order(seq, len, cyc, table, spill);
        idx rep = cyc[0], c = next_id++;
        ++walks; /* marks the cycle's slots */
        double weight = 0.0;
        for (idx j = 0; j < len; j++) {
            idx m = cyc[j], node = k->id[m];
            Py_ssize_t arc = (Py_ssize_t)best[m] * N + m;
            weight += W[arc];
            k->fu[node] = from[arc];
            k->fv[node] = to[arc];
            k->parent[node] = c;
            walk[m] = walks;
        }
        k->parent[c] = -1;
        for (idx i = 0; i < (idx)N; i++) {
            if (!live[i] || walk[i] == walks)
                continue;
            Py_ssize_t into = (Py_ssize_t)i * N, out = (Py_ssize_t)rep * N;
            idx in_at = -1, out_at = -1;
            double in = -INFINITY, outward = -INFINITY;
            for (idx j = 0; j < len; j++) {
                idx m = cyc[j];
                double t = weight + W[into + m] - W[(Py_ssize_t)best[m] * N + m];
                if (in_at < 0 || t > in) {
                    in = t;
                    in_at = m;
                }
                if (i && (out_at < 0 || W[(Py_ssize_t)m * N + i] > outward)) { /* no arc into the root */
                    outward = W[(Py_ssize_t)m * N + i];
                    out_at = m;
                }
            }
            if (i) {
                W[out + i] = outward;
                from[out + i] = from[(Py_ssize_t)out_at * N + i];
                to[out + i] = to[(Py_ssize_t)out_at * N + i];
            }
            W[into + rep] = in;
            from[into + rep] = from[into + in_at];
            to[into + rep] = to[into + in_at];
        }
        for (idx j = 1; j < len; j++)
            live[cyc[j]] = 0;
        k->id[rep] = c;
    }
    for (idx y = 1; y < (idx)N; y++)
        if (live[y]) {
            Py_ssize_t arc = (Py_ssize_t)best[y] * N + y;
            k->fu[k->id[y]] = from[arc];
            k->fv[k->id[y]] = to[arc];
        }
    expand(k, N, next_id, heads);
}

