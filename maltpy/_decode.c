/* The maximum spanning tree decoders of maltpy/decode.py, in C for speed.

   decode.py says what they compute, with the papers; this file holds the two algorithms over a
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

   Ties: the first best in the order of the loops (the lowest head slot for a word's incoming arc,
   the lowest member of a cycle, the first split point), so a matrix always gives the same tree. */

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
    double *cr, *cl, *b; /* N * N: Eisner's tables */
    idx *stack;          /* 12N: Eisner's backtrace, 3 per item */
} Work;

/* 0, or -1 when out of memory */
static int reserve(Work *k, Py_ssize_t N, int projective)
{
    size_t nn = (size_t)N * (size_t)N, n = (size_t)N;
    memset(k, 0, sizeof *k);
    k->doubles = malloc((projective ? 3 * nn : nn + n) * sizeof(double));
    k->indices = malloc((projective ? 12 * n : 2 * nn + 12 * n) * sizeof(idx));
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
                    &k->fu, &k->fv};
    const size_t size[] = {nn, nn, n, n, n, n, n, n, 2 * n, 2 * n, 2 * n};
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

/* Checks that every score read is finite; sets *shift to the power of two by which to divide the
   scores so that no sum the decoders form (of at most 2N scores, added or subtracted) overflows:
   0 unless the largest magnitude exceeds DBL_MAX / 4N. Returns the first bad arc as h * N + d,
   or -1. */
static Py_ssize_t check(const double *S, Py_ssize_t N, int *shift)
{
    double m = 0.0;
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
    double limit = DBL_MAX / (4.0 * (double)N);
    *shift = 0;
    if (m > limit)
        frexp(m / limit, shift);
    return -1;
}

/* --- Chu-Liu-Edmonds ---------------------------------------------------------------------------- */

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
    for (Py_ssize_t h = 0; h < N; h++)
        for (Py_ssize_t d = 0; d < N; d++) {
            Py_ssize_t a = h * N + d;
            W[a] = shift ? ldexp(S[a], -shift) : S[a];
            from[a] = (idx)h;
            to[a] = (idx)d;
        }
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
    for (idx c = next_id - 1; c >= (idx)N; c--) {
        idx w = k->fv[c];
        while (k->parent[w] != c)
            w = k->parent[w];
        k->fu[w] = k->fu[c];
        k->fv[w] = k->fv[c];
    }
    heads[0] = -1;
    for (idx d = 1; d <= n; d++)
        heads[d] = k->fu[d];
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

/* --- Python ------------------------------------------------------------------------------------- */

/* Decodes one matrix, without the GIL; 0, -1 when out of memory, or 1 with *bad_arc (h * N + d)
   the first score read that is not finite. */
static int run(const double *scores, int64_t *heads, Py_ssize_t N, int projective, int one_root,
               Py_ssize_t *bad_arc)
{
    Work k;
    int shift, status;
    *bad_arc = check(scores, N, &shift);
    if (*bad_arc >= 0)
        return 1;
    if (reserve(&k, N, projective) < 0)
        return -1;
    status = 0;
    if (projective)
        status = eisner(&k, scores, N, shift, one_root, heads);
    else
        mst(&k, scores, N, shift, one_root, heads);
    release(&k);
    return status;
}

PyDoc_STRVAR(decode_doc,
    "decode(scores, heads, projective, one_root): writes into heads (int64, N items) the best tree of\n"
    "scores (float64, C-contiguous, N x N), as maltpy.decode.spanning_tree says; a score read that is\n"
    "not finite (any but column 0 and the diagonal) is a ValueError.");

static PyObject *py_decode(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *score_object, *head_object;
    int projective, one_root;
    if (!PyArg_ParseTuple(args, "OOpp", &score_object, &head_object, &projective, &one_root))
        return NULL;
    Py_buffer s, h;
    if (PyObject_GetBuffer(score_object, &s, PyBUF_C_CONTIGUOUS) < 0)
        return NULL;
    if (PyObject_GetBuffer(head_object, &h, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE) < 0) {
        PyBuffer_Release(&s);
        return NULL;
    }
    PyObject *result = NULL;
    Py_ssize_t N = h.len / 8, bad_arc = -1;
    if (N < 1 || h.len != N * 8 || s.len / 8 / N != N || s.len != N * N * 8 || N > INT32_MAX / 2) {
        PyErr_Format(PyExc_ValueError, "scores of %zd bytes for heads of %zd bytes", s.len, h.len);
        goto done;
    }
    int status;
    Py_BEGIN_ALLOW_THREADS
    status = run(s.buf, h.buf, N, projective, one_root, &bad_arc);
    Py_END_ALLOW_THREADS
    if (status < 0) {
        PyErr_NoMemory();
    } else if (status > 0) {
        PyObject *value = PyFloat_FromDouble(((const double *)s.buf)[bad_arc]);
        if (value) {
            PyErr_Format(PyExc_ValueError, "the score of the arc %zd -> %zd is %R", bad_arc / N, bad_arc % N, value);
            Py_DECREF(value);
        }
    } else {
        result = Py_None;
        Py_INCREF(result);
    }
done:
    PyBuffer_Release(&s);
    PyBuffer_Release(&h);
    return result;
}

static PyMethodDef methods[] = {
    {"decode", py_decode, METH_VARARGS, decode_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_decode",
                                    "The maximum spanning tree decoders of maltpy.decode.", -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__decode(void)
{
    return PyModule_Create(&module);
}
