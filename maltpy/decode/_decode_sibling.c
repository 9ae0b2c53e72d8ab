/* Second order, for maltpy.decode._decode (see _decode.h).

   sibling_eisner(): the second-order Eisner algorithm (McDonald et al. 2007, §4.1, Figs. 10 and 11)
   over the same spans as Eisner's with a fourth table, the sibling item Sb(s, t), which is B(s, t)
   of _decode_eisner.c; the incomplete items are no longer B plus an arc but gather a head's
   dependents from the closest outward (the recurrences above IR_SUMS). climb(): the search of §4.2,
   Fig. 12, from sibling_eisner's tree. Sibling scores are read multiplied by the power of two that
   keeps sums finite (no copy of the n^3 array). decode_run2(): the checks of the scores, then
   either or both. */

#include "_decode.h"

/* --- Second order: the sibling Eisner algorithm and the search beyond projective trees ------------- */

/* The sibling scores T[(h * N + s) * N + c] (decode.py's sibs[h, s, c]) are read only for c
   after s among h's dependents on one side: s = h (c the closest) or s strictly between h and c.
   A tree's part of them, and its arcs', is what decode_tree_score2 sums. */
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
double decode_tree_score2(const double *A, const double *T, Py_ssize_t N, double scale, const int64_t *heads,
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
int decode_run2(const double *A, const double *L, const double *T, const double *P, int64_t *heads,
                Py_ssize_t N, int decode, int search, int one_root, Py_ssize_t *bad)
{
    double largest = 0.0;
    if ((*bad = decode_check_arcs(A, N, &largest)) >= 0)
        return 1;
    if ((*bad = check_sibs(T, N, one_root, &largest)) >= 0)
        return 2;
    if (L && (*bad = decode_check_arcs(L, N, &largest)) >= 0)
        return 3;
    if (P && (*bad = check_pairs(P, N, &largest)) >= 0)
        return 4;
    double scale = ldexp(1.0, -decode_shift_for(L || P ? 4.0 * largest : largest, N)); /* parts: longer sums */
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

