/* The maximum spanning tree decoders of maltpy/decode/__init__.py, in C for speed.

   decode.py says what they compute, with the papers; this file holds the algorithms over a
   dense score matrix of N = n + 1 nodes, S[h * N + d] the score of the arc h -> d, node 0 the
   root. Column 0 and the diagonal are never read.

   mst(): Chu-Liu-Edmonds (McDonald et al. 2007, §3.2, Fig. 9) in Tarjan's (1977) O(n^2) form for
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

   eisner(): Eisner's (1996) O(n^3) dynamic program (McDonald et al. 2007, §3.1, Figs. 7 and 8)
   over spans s..t: Cr(s, t) the best complete span headed by s, Cl(s, t) headed by t, and
   B(s, t) = max over r of Cr(s, r) + Cl(r + 1, t), which the incomplete spans share (with s
   heading t add s(s, t), with t heading s add s(t, s)). Each table keeps span (s, t) both at
   [s][t] and at [t][s], so that every split is read along a row. The split points are not kept:
   the backtrace finds each again by the same sums in the same order. The root never heads a
   span from the right (it is no word's dependent); with one root it heads one word r, whose
   complete spans 1..r and r..n the table holds (0 takes no span of its own).

   sibling_eisner(): the second-order Eisner algorithm (McDonald et al. 2007, §4.1, Figs. 10 and
   11) over the same spans with a fourth table, the sibling item Sb(s, t), which is B(s, t) above;
   the incomplete items are no longer B plus an arc but gather a head's dependents from the
   closest outward (the recurrences above IR_SUMS). climb(): the search of §4.2, Fig. 12, from
   sibling_eisner's tree. Sibling scores are read multiplied by the power of two that keeps sums
   finite (no copy of the n^3 array).

   Ties: the first best in the order of the loops (the lowest head slot for a word's incoming arc,
   the lowest member of a cycle, the first split point, the lowest word and then head of a change),
   so the same scores always give the same tree. */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

typedef int32_t idx;

/* The decoders' arrays, cut from two blocks: one of doubles, one of indices. */
typedef struct {
    double *doubles;
    idx *indices;
    double *w;           /* N * N: the contracted graph's scores */
    idx *from, *to;      /* N * N: the original arc behind each of its arcs */
    double *in;          /* N: the score of each slot's chosen incoming arc */
    idx *best;           /* N: the slot it comes from */
    idx *id;             /* N: the node at each slot (a word, or a contracted cycle N, N + 1...) */
    idx *live;           /* N: the non-root slots still in the graph, ascending */
    idx *stamp;          /* N */
    idx *cycle;          /* N: the slots of the cycle being contracted */
    idx *pending;        /* N: one slot of each cycle not contracted yet */
    idx *parent;         /* 2N: the node each node was contracted into, or -1 */
    idx *fu, *fv;        /* 2N: each node's arc in the tree (its cycle arc until expanded) */
    idx *trove;          /* 6N + 64: mst_mstparser's cycle in Trove's order, its table and spill */
    double *cr, *cl, *b; /* N * N: Eisner's tables */
    idx *stack;          /* 12N: Eisner's backtrace, 3 per item */
} Work;

/* 0, or -1 when out of memory */
static int reserve(Work *k, Py_ssize_t N, int projective)
{
    size_t nn = (size_t)N * (size_t)N, n = (size_t)N;
    memset(k, 0, sizeof *k);
    k->doubles = malloc((projective ? 3 * nn : nn + n) * sizeof(double));
    k->indices = malloc((projective ? 12 * n : 2 * nn + 18 * n + 64) * sizeof(idx));
    if (!k->doubles || !k->indices) {
        free(k->doubles);
        free(k->indices);
        return -1;
    }
    double *d = k->doubles;
    idx *i = k->indices;
    if (projective) {
        k->cr = d, k->cl = d + nn, k->b = d + 2 * nn;
        k->stack = i;
        return 0;
    }
    k->w = d, k->in = d + nn;
    idx **each[] = {&k->from, &k->to, &k->best, &k->id, &k->live, &k->stamp, &k->cycle, &k->pending, &k->parent,
                    &k->fu, &k->fv, &k->trove};
    const size_t size[] = {nn, nn, n, n, n, n, n, n, 2 * n, 2 * n, 2 * n, 6 * n + 64};
    for (size_t j = 0; j < sizeof size / sizeof *size; j++) {
        *each[j] = i;
        i += size[j];
    }
    return 0;
}

static void release(Work *k)
{
    free(k->doubles);
    free(k->indices);
}

/* Checks that every arc score read is finite; raises *largest to the largest magnitude among them.
   Returns the first bad arc as h * N + d, or -1. */
static Py_ssize_t check_arcs(const double *S, Py_ssize_t N, double *largest)
{
    double m = *largest;
    int finite = 1;
    for (Py_ssize_t h = 0; h < N; h++) {
        const double *row = S + h * N;
        for (Py_ssize_t d = 1; d < N; d++) {
            double a = fabs(row[d]);
            int read = d != h;
            finite &= a <= DBL_MAX || !read; /* false for NaN and inf */
            m = read && a > m ? a : m;
        }
    }
    if (!finite)
        for (Py_ssize_t a = 0; a < N * N; a++)
            if (a % N && a % N != a / N && !isfinite(S[a]))
                return a;
    *largest = m;
    return -1;
}

/* The power of two by which to divide the scores so that no sum the decoders form (of at most 4N
   scores, added or subtracted) overflows: 0 unless the largest magnitude exceeds DBL_MAX / 4N. */
static int shift_for(double largest, Py_ssize_t N)
{
    double limit = DBL_MAX / (4.0 * (double)N);
    int shift = 0;
    if (largest > limit)
        frexp(largest / limit, &shift);
    return shift;
}

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

static void mst(Work *k, const double *S, Py_ssize_t N, int shift, int one_root, int64_t *heads)
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
static void mst_mstparser(Work *k, const double *S, Py_ssize_t N, int shift, int64_t *heads)
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

/* --- Eisner ------------------------------------------------------------------------------------- */

/* The fill needs the best sum over a span's split points, the backtrace the first split point
   that reaches it: the first is taken two pairs at a time where SSE2 is there, the second in
   order. Both form the same sums (in the same association), and a maximum is the same in any
   order. */

/* max over i < len of (a[i] + b[i]) + c[i] (c NULL: a[i] + b[i]) */
static inline double best_sum(const double *a, const double *b, const double *c, Py_ssize_t len)
{
#define SUM(i) (c ? (a[i] + b[i]) + c[i] : a[i] + b[i])
    double m = SUM(0);
    Py_ssize_t i = 1;
#ifdef __SSE2__
#define PAIR(i) (c ? _mm_add_pd(_mm_add_pd(_mm_loadu_pd(a + (i)), _mm_loadu_pd(b + (i))), _mm_loadu_pd(c + (i))) \
                   : _mm_add_pd(_mm_loadu_pd(a + (i)), _mm_loadu_pd(b + (i))))
    __m128d m0 = _mm_set1_pd(m), m1 = m0;
    for (; i + 4 <= len; i += 4) {
        m0 = _mm_max_pd(PAIR(i), m0);
        m1 = _mm_max_pd(PAIR(i + 2), m1);
    }
#undef PAIR
    double lanes[2];
    _mm_storeu_pd(lanes, _mm_max_pd(m0, m1));
    m = lanes[0] > lanes[1] ? lanes[0] : lanes[1];
#endif
    for (; i < len; i++) {
        double v = SUM(i);
        m = v > m ? v : m;
    }
    return m;
}

/* the first i < len that reaches best_sum(a, b, c, len) */
static inline Py_ssize_t best_at(const double *a, const double *b, const double *c, Py_ssize_t len)
{
    double m = SUM(0);
    Py_ssize_t arg = 0;
    for (Py_ssize_t i = 1; i < len; i++) {
        double v = SUM(i);
        if (v > m) {
            m = v;
            arg = i;
        }
    }
    return arg;
#undef SUM
}

enum { CR, CL, IR, IL };

/* The fill computes a span once all its sub-spans are done: for a block of BLOCK ends t at a
   time, s from right to left, and t left to right. A block shares the rows of its starts s,
   which stay in the cache (one t at a time, 1,000 words take twice as long). */
enum { BLOCK = 32 };

/* The three recurrences' sums, as arguments of best_sum and best_at: B(s, t) over r = s..t-1,
   Cr(s, t) over r = s+1..t, Cl(s, t) over r = s..t-1. */
#define B_SUMS(s, t) Cr + (s) * N + (s), Cl + (t) * N + (s) + 1, NULL, (t) - (s)
#define CR_SUMS(s, t) B + (s) * N + (s) + 1, S + (s) * N + (s) + 1, Cr + (t) * N + (s) + 1, (t) - (s)
#define CL_SUMS(s, t) Cl + (s) * N + (s), B + (t) * N + (s), S + (t) * N + (s), (t) - (s)

/* Returns -1 if the scaled copy of the scores could not be allocated. */
static int eisner(Work *k, const double *S, Py_ssize_t N, int shift, int one_root, int64_t *heads)
{
    double *Cr = k->cr, *Cl = k->cl, *B = k->b, *scaled = NULL;
    if (shift) {
        scaled = malloc((size_t)N * (size_t)N * sizeof(double));
        if (!scaled)
            return -1;
        for (Py_ssize_t a = 0; a < N * N; a++)
            scaled[a] = ldexp(S[a], -shift);
        S = scaled;
    }
    Py_ssize_t first = one_root ? 1 : 0, n = N - 1;
    for (Py_ssize_t s = first; s < N; s++)
        Cr[s * N + s] = Cl[s * N + s] = 0.0;
    for (Py_ssize_t t0 = first + 1; t0 <= n; t0 += BLOCK) {
        Py_ssize_t t1 = t0 + BLOCK - 1 < n ? t0 + BLOCK - 1 : n;
        for (Py_ssize_t s = t1 - 1; s >= first; s--)
            for (Py_ssize_t t = s + 1 > t0 ? s + 1 : t0; t <= t1; t++) {
                B[s * N + t] = B[t * N + s] = best_sum(B_SUMS(s, t));
                Cr[s * N + t] = Cr[t * N + s] = best_sum(CR_SUMS(s, t));
                if (s > 0)
                    Cl[s * N + t] = Cl[t * N + s] = best_sum(CL_SUMS(s, t));
            }
    }
    idx *stack = k->stack;
    Py_ssize_t top = 0;
    heads[0] = -1;
    if (n == 0) {
        free(scaled);
        return 0;
    }
    if (one_root) {
        Py_ssize_t r = 1;
        double m = (Cl[1 * N + 1] + Cr[1 * N + n]) + S[1];
        for (Py_ssize_t q = 2; q <= n; q++) {
            double v = (Cl[1 * N + q] + Cr[q * N + n]) + S[q];
            if (v > m) {
                m = v;
                r = q;
            }
        }
        heads[r] = 0;
        stack[top++] = CL, stack[top++] = 1, stack[top++] = (idx)r;
        stack[top++] = CR, stack[top++] = (idx)r, stack[top++] = (idx)n;
    } else {
        stack[top++] = CR, stack[top++] = 0, stack[top++] = (idx)n;
    }
    while (top) {
        Py_ssize_t t = stack[--top], s = stack[--top];
        idx kind = stack[--top];
        if (s == t)
            continue;
        if (kind == CR) {
            Py_ssize_t r = s + 1 + best_at(CR_SUMS(s, t));
            stack[top++] = IR, stack[top++] = (idx)s, stack[top++] = (idx)r;
            stack[top++] = CR, stack[top++] = (idx)r, stack[top++] = (idx)t;
        } else if (kind == CL) {
            Py_ssize_t r = s + best_at(CL_SUMS(s, t));
            stack[top++] = CL, stack[top++] = (idx)s, stack[top++] = (idx)r;
            stack[top++] = IL, stack[top++] = (idx)r, stack[top++] = (idx)t;
        } else {
            if (kind == IR)
                heads[t] = s;
            else
                heads[s] = t;
            Py_ssize_t r = s + best_at(B_SUMS(s, t));
            stack[top++] = CR, stack[top++] = (idx)s, stack[top++] = (idx)r;
            stack[top++] = CL, stack[top++] = (idx)(r + 1), stack[top++] = (idx)t;
        }
    }
    free(scaled);
    return 0;
}

/* --- Second order: the sibling Eisner algorithm and the search beyond projective trees ------------- */

/* The sibling scores T[(h * N + s) * N + c] (decode.py's sibs[h, s, c]) are read only for c
   after s among h's dependents on one side: s = h (c the closest) or s strictly between h and c.
   A tree's part of them, and its arcs', is what tree_score2 sums. */
#define ARC(h, d) (A[(Py_ssize_t)(h) * N + (d)] * scale)
#define SIB(h, s, c) (T[((Py_ssize_t)(h) * N + (s)) * N + (c)] * scale)

/* The ranges lo..hi - 1 of the dependents c whose sibling score after s is read, in row (h, s):
   s = h (two ranges, either side of h), s beyond h on either side (c beyond s), or none; 0 to 2. */
static int sibling_ranges(Py_ssize_t h, Py_ssize_t s, Py_ssize_t N, int one_root, Py_ssize_t lo[2], Py_ssize_t hi[2])
{
    if (s == h) {
        lo[0] = 1, hi[0] = h, lo[1] = h + 1, hi[1] = N;
        return 2;
    }
    if (s > h && !(one_root && h == 0)) {
        lo[0] = s + 1, hi[0] = N;
        return 1;
    }
    if (s < h && s > 0) {
        lo[0] = 1, hi[0] = s;
        return 1;
    }
    return 0;
}

/* Checks that every sibling score read is finite (with one root, the root's only for its first
   dependent); raises *largest to the largest magnitude among them. Returns the first bad one as
   (h * N + s) * N + c, or -1. */
static Py_ssize_t check_sibs(const double *T, Py_ssize_t N, int one_root, double *largest)
{
    double m = *largest;
    int finite = 1;
    Py_ssize_t lo[2], hi[2];
    for (Py_ssize_t h = 0; h < N; h++)
        for (Py_ssize_t s = 0; s < N; s++)
            for (int k = sibling_ranges(h, s, N, one_root, lo, hi) - 1; k >= 0; k--) {
                const double *row = T + (h * N + s) * N;
                for (Py_ssize_t c = lo[k]; c < hi[k]; c++) {
                    double a = fabs(row[c]);
                    finite &= a <= DBL_MAX; /* false for NaN and inf */
                    m = a > m ? a : m;
                }
            }
    if (!finite)
        for (Py_ssize_t h = 0; h < N; h++)
            for (Py_ssize_t s = 0; s < N; s++) {
                int ranges = sibling_ranges(h, s, N, one_root, lo, hi);
                for (int k = 0; k < ranges; k++)
                    for (Py_ssize_t c = lo[k]; c < hi[k]; c++)
                        if (!isfinite(T[(h * N + s) * N + c]))
                            return (h * N + s) * N + c;
            }
    *largest = m;
    return -1;
}

/* The score of the tree heads (any head for each word, 0..N - 1, not itself): its arcs and, for
   each head and side, the sibling score of each dependent after the one before it, from the
   closest outward. last: N scratch indices. */
static double tree_score2(const double *A, const double *T, Py_ssize_t N, double scale, const int64_t *heads,
                          idx *last)
{
    double total = 0.0;
    for (Py_ssize_t h = 0; h < N; h++)
        last[h] = (idx)h;
    for (Py_ssize_t d = 1; d < N; d++) { /* the arcs, and the right dependents from the closest */
        Py_ssize_t h = heads[d];
        total += ARC(h, d);
        if (d > h) {
            total += SIB(h, last[h], d);
            last[h] = (idx)d;
        }
    }
    for (Py_ssize_t h = 0; h < N; h++)
        last[h] = (idx)h;
    for (Py_ssize_t d = N - 1; d >= 1; d--) { /* the left dependents from the closest */
        Py_ssize_t h = heads[d];
        if (d < h) {
            total += SIB(h, last[h], d);
            last[h] = (idx)d;
        }
    }
    return total;
}

/* The second-order decoders' arrays, cut from two blocks. */
typedef struct {
    double *doubles;
    idx *indices;
    double *cr, *cl, *sb, *in; /* N * N: complete, sibling and incomplete items (in: Ir above the
                                  diagonal, Il below) */
    idx *stack;                /* 3N: the backtrace, 3 per item */
    double *gain;              /* N: the search's tables, see climb() */
    idx *first, *kids, *enter, *leave, *near, *far, *prev, *next, *last, *trail;
} Work2;

/* 0, or -1 when out of memory */
static int reserve2(Work2 *k, Py_ssize_t N)
{
    size_t nn = (size_t)N * (size_t)N, n = (size_t)N;
    memset(k, 0, sizeof *k);
    k->doubles = malloc((4 * nn + n) * sizeof(double));
    k->indices = malloc((13 * n + 1) * sizeof(idx));
    if (!k->doubles || !k->indices) {
        free(k->doubles);
        free(k->indices);
        return -1;
    }
    k->cr = k->doubles, k->cl = k->cr + nn, k->sb = k->cl + nn, k->in = k->sb + nn, k->gain = k->in + nn;
    idx **each[] = {&k->stack, &k->first, &k->kids, &k->enter, &k->leave, &k->near, &k->far, &k->prev, &k->next,
                    &k->last, &k->trail};
    const size_t size[] = {3 * n, n + 1, n, n, n, n, n, n, n, n, n};
    idx *i = k->indices;
    for (size_t j = 0; j < sizeof size / sizeof *size; j++) {
        *each[j] = i;
        i += size[j];
    }
    return 0;
}

static void release2(Work2 *k)
{
    free(k->doubles);
    free(k->indices);
}

/* An incomplete item's best over its previous siblings r: max over i < len of
   (a[i] + b[i]) + c[i * stride] * scale and m. The backtrace's form, best_sib_at, gives the first
   i that beats m (strictly) and the running best after it, or -1; both form the same sums. */
static inline double best_sib(const double *a, const double *b, const double *c, Py_ssize_t stride, double scale,
                              Py_ssize_t len, double m)
{
    for (Py_ssize_t i = 0; i < len; i++) {
        double v = (a[i] + b[i]) + c[i * stride] * scale;
        m = v > m ? v : m;
    }
    return m;
}

static inline Py_ssize_t best_sib_at(const double *a, const double *b, const double *c, Py_ssize_t stride,
                                     double scale, Py_ssize_t len, double *m)
{
    Py_ssize_t arg = -1;
    for (Py_ssize_t i = 0; i < len; i++) {
        double v = (a[i] + b[i]) + c[i * stride] * scale;
        if (v > *m) {
            *m = v;
            arg = i;
        }
    }
    return arg;
}

enum { SB = IL + 1 };

/* The recurrences' sums over their split points, arc(h, d) and sib(h, s, c) the scores as read
   (each table holds span (s, t) at [s][t] and [t][s], but Ir only at [s][t] and Il only at
   [t][s], in one table):
   Sb(s, t) = max over u = s..t-1 of Cr(s, u) + Cl(u + 1, t)                             (B_SUMS)
   Ir(s, t) = arc(s, t) + max of Cl(s + 1, t) + sib(s, s, t) [t is s's closest right dependent]
              and, over r = s+1..t-1, (Ir(s, r) + Sb(r, t)) + sib(s, r, t) [r the one before t]
   Il(s, t) = arc(t, s) + max over r = s+1..t-1 of (Sb(s, r) + Il(r, t)) + sib(t, r, s), and
              Cr(s, t - 1) + sib(t, t, s) [s is t's closest left dependent]
   Cr(s, t) = max over r = s+1..t of Ir(s, r) + Cr(r, t)
   Cl(s, t) = max over r = s..t-1 of Cl(s, r) + Il(r, t) */
#define IR_SUMS(s, t) In + (s) * N + (s) + 1, Sb + (t) * N + (s) + 1, T + ((s) * N + (s) + 1) * N + (t), N, scale, \
                      (t) - (s) - 1
#define IL_SUMS(s, t) Sb + (s) * N + (s) + 1, In + (t) * N + (s) + 1, T + ((t) * N + (s) + 1) * N + (s), N, scale, \
                      (t) - (s) - 1
#define IR_FIRST(s, t) (Cl[(t) * N + (s) + 1] + SIB(s, s, t))
#define IL_FIRST(s, t) (Cr[(s) * N + (t) - 1] + SIB(t, t, s))
#define CR2_SUMS(s, t) In + (s) * N + (s) + 1, Cr + (t) * N + (s) + 1, NULL, (t) - (s)
#define CL2_SUMS(s, t) Cl + (s) * N + (s), In + (t) * N + (s), NULL, (t) - (s)

/* The second-order Eisner algorithm (McDonald et al. 2007, §4.1, Figs. 10 and 11, after Eisner
   1996): the best projective tree under arcs A and sibling scores T, each multiplied by scale. */
static void sibling_eisner(Work2 *k, const double *A, const double *T, Py_ssize_t N, double scale, int one_root,
                           int64_t *heads)
{
    double *Cr = k->cr, *Cl = k->cl, *Sb = k->sb, *In = k->in;
    Py_ssize_t first = one_root ? 1 : 0, n = N - 1;
    for (Py_ssize_t s = first; s < N; s++)
        Cr[s * N + s] = Cl[s * N + s] = 0.0;
    for (Py_ssize_t t0 = first + 1; t0 <= n; t0 += BLOCK) {
        Py_ssize_t t1 = t0 + BLOCK - 1 < n ? t0 + BLOCK - 1 : n;
        for (Py_ssize_t s = t1 - 1; s >= first; s--)
            for (Py_ssize_t t = s + 1 > t0 ? s + 1 : t0; t <= t1; t++) {
                if (s > 0) /* the root is no word's dependent, nor anyone's sibling */
                    Sb[s * N + t] = Sb[t * N + s] = best_sum(B_SUMS(s, t));
                In[s * N + t] = best_sib(IR_SUMS(s, t), IR_FIRST(s, t)) + ARC(s, t);
                if (s > 0)
                    In[t * N + s] = best_sib(IL_SUMS(s, t), IL_FIRST(s, t)) + ARC(t, s);
                Cr[s * N + t] = Cr[t * N + s] = best_sum(CR2_SUMS(s, t));
                if (s > 0)
                    Cl[s * N + t] = Cl[t * N + s] = best_sum(CL2_SUMS(s, t));
            }
    }
    heads[0] = -1;
    if (n == 0)
        return;
    idx *stack = k->stack;
    Py_ssize_t top = 0;
#define PUSH(kind, s, t)                                                      \
    if ((s) < (t))                                                            \
        stack[top++] = kind, stack[top++] = (idx)(s), stack[top++] = (idx)(t)
    if (one_root) {
        Py_ssize_t r = 1;
        double m = (Cl[1 * N + 1] + Cr[1 * N + n]) + (ARC(0, 1) + SIB(0, 0, 1));
        for (Py_ssize_t q = 2; q <= n; q++) {
            double v = (Cl[q * N + 1] + Cr[q * N + n]) + (ARC(0, q) + SIB(0, 0, q));
            if (v > m) {
                m = v;
                r = q;
            }
        }
        heads[r] = 0;
        PUSH(CL, 1, r);
        PUSH(CR, r, n);
    } else {
        PUSH(CR, 0, n);
    }
    while (top) {
        Py_ssize_t t = stack[--top], s = stack[--top];
        idx kind = stack[--top];
        if (kind == CR) {
            Py_ssize_t r = s + 1 + best_at(CR2_SUMS(s, t));
            PUSH(IR, s, r);
            PUSH(CR, r, t);
        } else if (kind == CL) {
            Py_ssize_t r = s + best_at(CL2_SUMS(s, t));
            PUSH(CL, s, r);
            PUSH(IL, r, t);
        } else if (kind == SB) {
            Py_ssize_t u = s + best_at(B_SUMS(s, t));
            PUSH(CR, s, u);
            PUSH(CL, u + 1, t);
        } else if (kind == IR) { /* the closest dependent first, then the nearest r to s */
            heads[t] = s;
            double m = IR_FIRST(s, t);
            Py_ssize_t at = best_sib_at(IR_SUMS(s, t), &m);
            if (at < 0) {
                PUSH(CL, s + 1, t);
            } else {
                PUSH(IR, s, s + 1 + at);
                PUSH(SB, s + 1 + at, t);
            }
        } else { /* IL: the farthest r from t first, the closest dependent last */
            heads[s] = t;
            double m = -INFINITY;
            Py_ssize_t at = best_sib_at(IL_SUMS(s, t), &m);
            if (at < 0 || IL_FIRST(s, t) > m) {
                PUSH(CR, s, t - 1);
            } else {
                PUSH(SB, s, s + 1 + at);
                PUSH(IL, s + 1 + at, t);
            }
        }
    }
#undef PUSH
}

/* MSTParser's parts beside A and T, for the search (decode.sibling_search): the label's score of
   each arc, L[h * N + c], and the sibling pairs', P[(s * N + c) * 2 + k] (k = 0: s is c's head, c
   its closest dependent on its side; 1: s a sibling before c), each added to the arc's and to T's
   where it is read; NULL when there are none. */
typedef struct {
    const double *L, *P;
} Parts;

#define LAB(h, d) (parts->L ? parts->L[(Py_ssize_t)(h) * N + (d)] * scale : 0.0)
#define PAIR(s, c, k) (parts->P ? parts->P[((Py_ssize_t)(s) * N + (c)) * 2 + (k)] * scale : 0.0)

/* What moving word c away from head h takes from the tree's score (a: c's inner neighbour among
   h's dependents on its side, h if none; b: its outer one, -1 if none), and what putting it under
   h adds, each summed in the order and grouping in which MSTParser 0.5's rearrange sums it, so
   that a change whose gain is zero up to rounding falls the same way. */
static inline double removal(const double *A, const double *T, const Parts *parts, Py_ssize_t N, double scale,
                             Py_ssize_t h, Py_ssize_t c, Py_ssize_t a, Py_ssize_t b)
{
    int ka = a != h;
    return 0.0 - ARC(h, c) - SIB(h, a, c) - PAIR(a, c, ka) - (b >= 0 ? SIB(h, c, b) + PAIR(c, b, 1) : 0.0) -
           LAB(h, c) + (b >= 0 ? SIB(h, a, b) + PAIR(a, b, ka) : 0.0);
}

static inline double addition(const double *A, const double *T, const Parts *parts, Py_ssize_t N, double scale,
                              Py_ssize_t h, Py_ssize_t c, Py_ssize_t a, Py_ssize_t b)
{
    int ka = a != h;
    return 0.0 + ARC(h, c) + SIB(h, a, c) + PAIR(a, c, ka) + (b >= 0 ? SIB(h, c, b) + PAIR(c, b, 1) : 0.0) +
           LAB(h, c) - (b >= 0 ? SIB(h, a, b) + PAIR(a, b, ka) : 0.0);
}

/* McDonald et al. (2007), §4.2, Fig. 12 (McDonald & Pereira 2006): from the tree heads, changes the
   head of one word at a time, the change that raises the score most among those that leave a tree
   (and with one root, keep one word on the root), while one raises it. Each pass is O(n^2): what
   each word j takes away where it is (gain[j]) and adds where a head i would put it (after
   near[j], before far[j] among i's dependents on j's side), i not in j's subtree (the tour's enter
   and leave times). Ties go to the lowest word j, then the lowest head i (Fig. 12's loops). The
   gains are MSTParser's sums (removal, addition), so that it makes MSTParser's changes, those
   whose gain is rounding too; as rounding could then lead round a cycle, which MSTParser would
   follow for ever, the search stops after N^2 changes. */
static void climb(Work2 *k, const double *A, const double *T, const Parts *parts, Py_ssize_t N, double scale,
                  int one_root, int64_t *heads)
{
    Py_ssize_t n = N - 1;
    idx *first = k->first, *kids = k->kids, *enter = k->enter, *leave = k->leave, *near = k->near, *far = k->far,
        *prev = k->prev, *next = k->next, *last = k->last, *trail = k->trail;
    double *gain = k->gain;
    for (Py_ssize_t moves = 0; moves < N * N; moves++) {
        /* each node's dependents, ascending */
        memset(first, 0, (size_t)(N + 1) * sizeof *first);
        for (Py_ssize_t d = 1; d <= n; d++)
            first[heads[d] + 1]++;
        for (Py_ssize_t h = 0; h < N; h++)
            first[h + 1] += first[h];
        memcpy(last, first, (size_t)N * sizeof *last);
        for (Py_ssize_t d = 1; d <= n; d++)
            kids[last[heads[d]]++] = (idx)d;
        /* the tour: i is in j's subtree iff enter[j] <= enter[i] < leave[j] */
        idx time = 0, depth = 0;
        memcpy(last, first, (size_t)N * sizeof *last);
        trail[depth++] = 0;
        enter[0] = time++;
        while (depth) {
            idx v = trail[depth - 1];
            if (last[v] < first[v + 1]) {
                idx c = kids[last[v]++];
                enter[c] = time++;
                trail[depth++] = c;
            } else {
                leave[v] = time;
                depth--;
            }
        }
        /* each word's neighbours on its side of its head, and what it adds there */
        for (Py_ssize_t h = 0; h < N; h++) {
            idx lo = first[h], hi = first[h + 1], mid = lo;
            while (mid < hi && kids[mid] < h)
                mid++;
            for (idx q = mid; q < hi; q++) {
                prev[kids[q]] = q == mid ? (idx)h : kids[q - 1];
                next[kids[q]] = q + 1 < hi ? kids[q + 1] : -1;
            }
            for (idx q = mid - 1; q >= lo; q--) {
                prev[kids[q]] = q == mid - 1 ? (idx)h : kids[q + 1];
                next[kids[q]] = q > lo ? kids[q - 1] : -1;
            }
        }
        for (Py_ssize_t d = 1; d <= n; d++)
            gain[d] = removal(A, T, parts, N, scale, heads[d], d, prev[d], next[d]);
        double best = 0.0;
        Py_ssize_t bi = -1, bj = -1;
        for (Py_ssize_t i = one_root ? 1 : 0; i <= n; i++) {
            idx cur = (idx)i; /* where j would go among i's dependents */
            for (Py_ssize_t j = i + 1; j <= n; j++) {
                near[j] = cur;
                cur = heads[j] == i ? (idx)j : cur;
            }
            cur = (idx)i;
            for (Py_ssize_t j = i - 1; j >= 1; j--) {
                near[j] = cur;
                cur = heads[j] == i ? (idx)j : cur;
            }
            cur = -1;
            for (Py_ssize_t j = n; j > i; j--) {
                far[j] = cur;
                cur = heads[j] == i ? (idx)j : cur;
            }
            cur = -1;
            for (Py_ssize_t j = 1; j < i; j++) {
                far[j] = cur;
                cur = heads[j] == i ? (idx)j : cur;
            }
            for (Py_ssize_t j = 1; j <= n; j++) {
                if (j == i || heads[j] == i || (enter[j] <= enter[i] && enter[i] < leave[j]))
                    continue;
                double delta = gain[j] + addition(A, T, parts, N, scale, i, j, near[j], far[j]);
                if (delta > best || (delta == best && j < bj)) {
                    best = delta;
                    bi = i;
                    bj = j;
                }
            }
        }
        if (bj < 0)
            return;
        heads[bj] = bi;
    }
}

#undef LAB
#undef PAIR
#undef ARC
#undef SIB

/* --- Python ------------------------------------------------------------------------------------- */

/* Decodes one matrix, without the GIL; 0, -1 when out of memory, or 1 with *bad_arc (h * N + d)
   the first score read that is not finite. */
static int run(const double *scores, int64_t *heads, Py_ssize_t N, int projective, int one_root, int mstparser,
               Py_ssize_t *bad_arc)
{
    Work k;
    int status;
    double largest = 0.0;
    *bad_arc = check_arcs(scores, N, &largest);
    if (*bad_arc >= 0)
        return 1;
    int shift = shift_for(largest, N);
    if (reserve(&k, N, projective) < 0)
        return -1;
    status = 0;
    if (projective)
        status = eisner(&k, scores, N, shift, one_root, heads);
    else if (mstparser && !one_root)
        mst_mstparser(&k, scores, N, shift, heads);
    else
        mst(&k, scores, N, shift, one_root, heads);
    release(&k);
    return status;
}

/* The first pair score read (P[(s * N + c) * 2 + k], c >= 1, s != c) that is not finite, or -1;
   raises *largest to their largest magnitude. */
static Py_ssize_t check_pairs(const double *P, Py_ssize_t N, double *largest)
{
    for (Py_ssize_t i = 0; i < N * N * 2; i++) {
        Py_ssize_t s = i / 2 / N, c = i / 2 % N;
        if (c == 0 || s == c)
            continue;
        if (!isfinite(P[i]))
            return i;
        *largest = fabs(P[i]) > *largest ? fabs(P[i]) : *largest;
    }
    return -1;
}

/* At second order, without the GIL: the best projective tree into heads if decode, then the search
   from heads if search, with MSTParser's parts L and P if not NULL. 0, -1 when out of memory, or
   with *bad the first score read that is not finite: 1 an arc's (h * N + d), 2 a sibling's, 3 a
   label's, 4 a pair's. */
static int run2(const double *A, const double *L, const double *T, const double *P, int64_t *heads,
                Py_ssize_t N, int decode, int search, int one_root, Py_ssize_t *bad)
{
    double largest = 0.0;
    if ((*bad = check_arcs(A, N, &largest)) >= 0)
        return 1;
    if ((*bad = check_sibs(T, N, one_root, &largest)) >= 0)
        return 2;
    if (L && (*bad = check_arcs(L, N, &largest)) >= 0)
        return 3;
    if (P && (*bad = check_pairs(P, N, &largest)) >= 0)
        return 4;
    double scale = ldexp(1.0, -shift_for(L || P ? 4.0 * largest : largest, N)); /* parts: longer sums */
    Work2 k;
    if (reserve2(&k, N) < 0)
        return -1;
    if (decode)
        sibling_eisner(&k, A, T, N, scale, one_root, heads);
    const Parts parts = {L, P};
    if (search)
        climb(&k, A, T, &parts, N, scale, one_root, heads);
    release2(&k);
    return 0;
}

PyDoc_STRVAR(decode_doc,
    "decode(scores, heads, projective, one_root, mstparser): writes into heads (int64, N items) the best\n"
    "tree of scores (float64, C-contiguous, N x N), as maltpy.decode.spanning_tree says (mstparser: its\n"
    "ties=\"mstparser\"); a score read that is not finite (any but column 0 and the diagonal) is a ValueError.");

/* Gets the C-contiguous buffers of count objects, the last one writable if asked; -1 with an error
   set and none held. */
static int get_buffers(PyObject *const *objects, Py_buffer *views, int count, int writable)
{
    for (int i = 0; i < count; i++)
        if (PyObject_GetBuffer(objects[i], views + i,
                               PyBUF_C_CONTIGUOUS | (writable && i == count - 1 ? PyBUF_WRITABLE : 0)) < 0) {
            while (i--)
                PyBuffer_Release(views + i);
            return -1;
        }
    return 0;
}

static void release_buffers(Py_buffer *views, int count)
{
    for (int i = 0; i < count; i++)
        PyBuffer_Release(views + i);
}

/* The number of nodes N of heads (int64), if scores hold N^order doubles; else -1 with an error set. */
static Py_ssize_t nodes(const Py_buffer *heads, const Py_buffer *scores, int order, const char *what)
{
    Py_ssize_t N = heads->len / 8, size = N;
    int fits = N >= 1 && heads->len == N * 8 && N <= INT32_MAX / 2;
    for (int i = 1; i < order && fits; i++) {
        fits = size <= PY_SSIZE_T_MAX / 8 / N;
        size *= fits ? N : 1;
    }
    if (!fits || scores->len != size * 8) {
        PyErr_Format(PyExc_ValueError, "%s of %zd bytes for heads of %zd bytes", what, scores->len, heads->len);
        return -1;
    }
    return N;
}

/* The ValueError for the score at index bad of scores (N nodes), an arc's (order 2) or a sibling's (3). */
static void bad_score(const double *scores, Py_ssize_t bad, Py_ssize_t N, int order)
{
    PyObject *value = PyFloat_FromDouble(scores[bad]);
    if (!value)
        return;
    if (order == 2)
        PyErr_Format(PyExc_ValueError, "the score of the arc %zd -> %zd is %R", bad / N, bad % N, value);
    else
        PyErr_Format(PyExc_ValueError, "the sibling score sibs[%zd, %zd, %zd] is %R", bad / N / N, bad / N % N,
                     bad % N, value);
    Py_DECREF(value);
}

static PyObject *py_decode(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *objects[2];
    int projective, one_root, mstparser;
    if (!PyArg_ParseTuple(args, "OOppp", &objects[0], &objects[1], &projective, &one_root, &mstparser))
        return NULL;
    Py_buffer v[2];
    if (get_buffers(objects, v, 2, 1) < 0)
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t N = nodes(&v[1], &v[0], 2, "scores"), bad = -1;
    if (N < 0)
        goto done;
    int status;
    Py_BEGIN_ALLOW_THREADS
    status = run(v[0].buf, v[1].buf, N, projective, one_root, mstparser, &bad);
    Py_END_ALLOW_THREADS
    if (status < 0) {
        PyErr_NoMemory();
    } else if (status > 0) {
        bad_score(v[0].buf, bad, N, 2);
    } else {
        result = Py_None;
        Py_INCREF(result);
    }
done:
    release_buffers(v, 2);
    return result;
}

PyDoc_STRVAR(sibling_decode_doc,
    "sibling_decode(arcs, sibs, heads, projective, one_root): writes into heads (int64, N items) the best\n"
    "tree (projective), or the search's tree, under arcs (float64, C-contiguous, N x N) and sibs (N x N x N),\n"
    "as maltpy.decode.sibling_tree says; a score read that is not finite is a ValueError.");

static PyObject *py_sibling_decode(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *objects[3];
    int projective, one_root;
    if (!PyArg_ParseTuple(args, "OOOpp", &objects[0], &objects[1], &objects[2], &projective, &one_root))
        return NULL;
    Py_buffer v[3];
    if (get_buffers(objects, v, 3, 1) < 0)
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t N, bad = -1;
    if ((N = nodes(&v[2], &v[0], 2, "arcs")) < 0 || (N = nodes(&v[2], &v[1], 3, "sibs")) < 0)
        goto done;
    int status;
    Py_BEGIN_ALLOW_THREADS
    status = run2(v[0].buf, NULL, v[1].buf, NULL, v[2].buf, N, 1, !projective, one_root, &bad);
    Py_END_ALLOW_THREADS
    if (status < 0) {
        PyErr_NoMemory();
    } else if (status > 0) {
        bad_score(v[status - 1].buf, bad, N, status + 1);
    } else {
        result = Py_None;
        Py_INCREF(result);
    }
done:
    release_buffers(v, 3);
    return result;
}

PyDoc_STRVAR(sibling_search_doc,
    "sibling_search(arcs, labels, sibs, pairs, heads, one_root): the search of sibling_decode from the tree\n"
    "heads (int64, N items, changed in place), with the parts labels (N x N) and pairs (N x N x 2), as\n"
    "maltpy.decode.sibling_search says; a score read that is not finite is a ValueError.");

static PyObject *py_sibling_search(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *objects[5];
    int one_root;
    if (!PyArg_ParseTuple(args, "OOOOOp", &objects[0], &objects[1], &objects[2], &objects[3], &objects[4],
                          &one_root))
        return NULL;
    Py_buffer v[5];
    if (get_buffers(objects, v, 5, 1) < 0)
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t N, bad = -1;
    if ((N = nodes(&v[4], &v[0], 2, "arcs")) < 0 || (N = nodes(&v[4], &v[1], 2, "labels")) < 0 ||
        (N = nodes(&v[4], &v[2], 3, "sibs")) < 0)
        goto done;
    if (v[3].len != N * N * 2 * 8) {
        PyErr_Format(PyExc_ValueError, "pairs of %zd bytes for heads of %zd bytes", v[3].len, v[4].len);
        goto done;
    }
    const double *P = v[3].buf;
    int status;
    Py_BEGIN_ALLOW_THREADS
    status = run2(v[0].buf, v[1].buf, v[2].buf, P, v[4].buf, N, 0, 1, one_root, &bad);
    Py_END_ALLOW_THREADS
    if (status < 0) {
        PyErr_NoMemory();
    } else if (status == 1 || status == 3) {
        bad_score(v[status - 1].buf, bad, N, 2);
    } else if (status == 2) {
        bad_score(v[2].buf, bad, N, 3);
    } else if (status == 4) {
        PyObject *value = PyFloat_FromDouble(P[bad]);
        if (value) {
            PyErr_Format(PyExc_ValueError, "the pair score pairs[%zd, %zd, %zd] is %R", bad / 2 / N, bad / 2 % N,
                         bad % 2, value);
            Py_DECREF(value);
        }
    } else {
        result = Py_None;
        Py_INCREF(result);
    }
done:
    release_buffers(v, 5);
    return result;
}

PyDoc_STRVAR(sibling_score_doc,
    "sibling_score(arcs, sibs, heads): the score of the tree heads (int64, N items, heads[d] in 0..N - 1\n"
    "and not d for d >= 1) under arcs and sibs, as maltpy.decode.sibling_score says; a head out of range\n"
    "is a ValueError.");

static PyObject *py_sibling_score(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *objects[3];
    if (!PyArg_ParseTuple(args, "OOO", &objects[0], &objects[1], &objects[2]))
        return NULL;
    Py_buffer v[3];
    if (get_buffers(objects, v, 3, 0) < 0)
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t N;
    if ((N = nodes(&v[2], &v[0], 2, "arcs")) < 0 || (N = nodes(&v[2], &v[1], 3, "sibs")) < 0)
        goto done;
    const int64_t *heads = v[2].buf;
    for (Py_ssize_t d = 1; d < N; d++)
        if (heads[d] < 0 || heads[d] >= N || heads[d] == d) {
            PyErr_Format(PyExc_ValueError, "the head of word %zd is %lld, not another node of 0..%zd", d,
                         (long long)heads[d], N - 1);
            goto done;
        }
    idx *last = malloc((size_t)N * sizeof *last);
    if (!last) {
        PyErr_NoMemory();
        goto done;
    }
    result = PyFloat_FromDouble(tree_score2(v[0].buf, v[1].buf, N, 1.0, heads, last));
    free(last);
done:
    release_buffers(v, 3);
    return result;
}

/* --- the k best projective trees ------------------------------------------------------------------- */

/* kbest(): Eisner's algorithm keeping the k best items of each span instead of the best one
   (McDonald et al. 2007, §3.1 and §2.2: MIRA's k best trees), as MSTParser's KBestParseForest
   does: each cell holds up to k items, best first, and a candidate enters only ahead of items
   that score strictly less (so earlier candidates stay ahead of equal later ones: splits from the
   left, and for each split the sub-items' ranks in order). Four kinds of cell per span s..t:
   complete headed by s (K_CR) or by t (K_CL), incomplete with the arc s -> t (K_IR) or t -> s (K_IL).
   The root heads nothing from the right and is nobody's dependent. */

typedef struct {
    double score;
    int32_t r, i, j; /* split point and the two sub-items' ranks; r = -1: a one-word span */
} Item;

enum { K_CR, K_CL, K_IR, K_IL };

typedef struct {
    Item *items;  /* 4 * N * N * K */
    int32_t *len; /* 4 * N * N: items in each cell */
    Py_ssize_t N, K;
} Chart;

static inline Py_ssize_t cell(const Chart *c, int kind, Py_ssize_t s, Py_ssize_t t)
{
    return ((Py_ssize_t)kind * c->N + s) * c->N + t;
}

/* add a candidate to a cell (sorted, best first, at most K); 0 when it did not enter */
static int insert(Chart *c, Py_ssize_t at, double score, int32_t r, int32_t i, int32_t j)
{
    Item *items = c->items + at * c->K;
    int32_t n = c->len[at];
    if (n == c->K && !(score > items[n - 1].score))
        return 0;
    int32_t p = n < c->K ? n : n - 1;
    while (p > 0 && score > items[p - 1].score) {
        items[p] = items[p - 1];
        p--;
    }
    items[p] = (Item){score, r, i, j};
    if (n < c->K)
        c->len[at] = n + 1;
    return 1;
}

/* every pair of items of cells a and b (ranks in order), plus extra, into cell at; a pair that
   does not enter ends its row (the rest of the row scores no more) */
static void combine(Chart *c, Py_ssize_t at, Py_ssize_t a, Py_ssize_t b, double extra, int32_t r)
{
    const Item *A = c->items + a * c->K, *B = c->items + b * c->K;
    for (int32_t i = 0; i < c->len[a]; i++)
        for (int32_t j = 0; j < c->len[b]; j++)
            if (!insert(c, at, A[i].score + B[j].score + extra, r, i, j))
                break;
}

/* the k best projective trees of S (N x N) into heads (K x N, -1 for node 0); their number */
static Py_ssize_t kbest(const double *S, Py_ssize_t N, Py_ssize_t K, int64_t *heads)
{
    Chart c = {malloc(sizeof(Item) * 4 * N * N * K), calloc(4 * N * N, sizeof(int32_t)), N, K};
    int64_t *stack = malloc(sizeof(int64_t) * 4 * (4 * N + 4));
    if (!c.items || !c.len || !stack) {
        free(c.items);
        free(c.len);
        free(stack);
        return -1;
    }
    for (Py_ssize_t s = 0; s < N; s++) {
        insert(&c, cell(&c, K_CR, s, s), 0, -1, 0, 0);
        insert(&c, cell(&c, K_CL, s, s), 0, -1, 0, 0);
    }
    for (Py_ssize_t w = 1; w < N; w++)
        for (Py_ssize_t s = 0; s + w < N; s++) {
            Py_ssize_t t = s + w;
            for (Py_ssize_t r = s; r < t; r++) {
                combine(&c, cell(&c, K_IR, s, t), cell(&c, K_CR, s, r), cell(&c, K_CL, r + 1, t), S[s * N + t], (int32_t)r);
                if (s > 0)
                    combine(&c, cell(&c, K_IL, s, t), cell(&c, K_CR, s, r), cell(&c, K_CL, r + 1, t), S[t * N + s],
                            (int32_t)r);
            }
            for (Py_ssize_t r = s + 1; r <= t; r++)
                combine(&c, cell(&c, K_CR, s, t), cell(&c, K_IR, s, r), cell(&c, K_CR, r, t), 0, (int32_t)r);
            if (s > 0)
                for (Py_ssize_t r = s; r < t; r++)
                    combine(&c, cell(&c, K_CL, s, t), cell(&c, K_CL, s, r), cell(&c, K_IL, r, t), 0, (int32_t)r);
        }
    Py_ssize_t top = cell(&c, K_CR, 0, N - 1), found = N > 1 ? c.len[top] : 1;
    for (Py_ssize_t k = 0; k < found; k++) {
        int64_t *h = heads + k * N;
        h[0] = -1;
        Py_ssize_t sp = 0;
        stack[sp++] = K_CR, stack[sp++] = 0, stack[sp++] = N - 1, stack[sp++] = k;
        while (sp && N > 1) {
            int64_t rank = stack[--sp], t = stack[--sp], s = stack[--sp], kind = stack[--sp];
            const Item *it = c.items + cell(&c, (int)kind, s, t) * K + rank;
            if (it->r < 0)
                continue;
            int64_t r = it->r;
            int64_t parts[2][4];
            if (kind == K_CR) {
                int64_t a[4] = {K_IR, s, r, it->i}, b[4] = {K_CR, r, t, it->j};
                memcpy(parts[0], a, sizeof a), memcpy(parts[1], b, sizeof b);
            } else if (kind == K_CL) {
                int64_t a[4] = {K_CL, s, r, it->i}, b[4] = {K_IL, r, t, it->j};
                memcpy(parts[0], a, sizeof a), memcpy(parts[1], b, sizeof b);
            } else {
                if (kind == K_IR)
                    h[t] = s;
                else
                    h[s] = t;
                int64_t a[4] = {K_CR, s, r, it->i}, b[4] = {K_CL, r + 1, t, it->j};
                memcpy(parts[0], a, sizeof a), memcpy(parts[1], b, sizeof b);
            }
            for (int p = 0; p < 2; p++)
                for (int q = 0; q < 4; q++)
                    stack[sp++] = parts[p][q];
        }
    }
    free(c.items);
    free(c.len);
    free(stack);
    return found;
}

PyDoc_STRVAR(kbest_doc,
    "kbest(scores, heads) -> count: the k best projective trees of scores (float64 N x N, finite where\n"
    "read) into heads (int64 k x N), best first; count of them (fewer when the sentence has fewer).");

static PyObject *py_kbest(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *objects[2];
    if (!PyArg_ParseTuple(args, "OO", &objects[0], &objects[1]))
        return NULL;
    Py_buffer views[2];
    if (get_buffers(objects, views, 1, 0) < 0)
        return NULL;
    if (get_buffers(objects + 1, views + 1, 1, 1) < 0) {
        release_buffers(views, 1);
        return NULL;
    }
    PyObject *result = NULL;
    Py_ssize_t N = 1;
    while (N * N * 8 < views[0].len)
        N++;
    Py_ssize_t K = N * 8 ? views[1].len / (N * 8) : 0;
    if (N * N * 8 != views[0].len || K < 1 || K * N * 8 != views[1].len || N > 100000) {
        PyErr_SetString(PyExc_ValueError, "scores and heads that do not fit together");
        goto done;
    }
    const double *S = views[0].buf;
    for (Py_ssize_t h = 0; h < N; h++)
        for (Py_ssize_t d = 1; d < N; d++)
            if (h != d && !isfinite(S[h * N + d])) {
                PyErr_Format(PyExc_ValueError, "the score of the arc %zd -> %zd is not finite", h, d);
                goto done;
            }
    Py_ssize_t found;
    Py_BEGIN_ALLOW_THREADS
    found = kbest(S, N, K, views[1].buf);
    Py_END_ALLOW_THREADS
    if (found < 0)
        PyErr_NoMemory();
    else
        result = PyLong_FromSsize_t(found);
done:
    release_buffers(views, 2);
    return result;
}

static PyMethodDef methods[] = {
    {"decode", py_decode, METH_VARARGS, decode_doc},
    {"sibling_decode", py_sibling_decode, METH_VARARGS, sibling_decode_doc},
    {"sibling_score", py_sibling_score, METH_VARARGS, sibling_score_doc},
    {"sibling_search", py_sibling_search, METH_VARARGS, sibling_search_doc},
    {"kbest", py_kbest, METH_VARARGS, kbest_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_decode",
                                    "The maximum spanning tree decoders of maltpy.decode.", -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__decode(void)
{
    return PyModule_Create(&module);
}
