/* What the units of maltpy.decode._decode share: the maximum spanning tree decoders of
   maltpy/decode/__init__.py, in C for speed.

   decode.py says what they compute, with the papers; the units hold the algorithms over a
   dense score matrix of N = n + 1 nodes, S[h * N + d] the score of the arc h -> d, node 0 the
   root. Column 0 and the diagonal are never read. _decode_cle.c: Chu-Liu-Edmonds, also with
   MSTParser 0.5's ties; _decode_eisner.c: Eisner's algorithm and its k best trees;
   _decode_sibling.c: the second-order Eisner algorithm and the search beyond projective trees;
   _decode.c: the Python module.

   Ties: the first best in the order of the loops (the lowest head slot for a word's incoming arc,
   the lowest member of a cycle, the first split point, the lowest word and then head of a change),
   so the same scores always give the same tree. */

#ifndef MALTPY_DECODE_H
#define MALTPY_DECODE_H

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

/* --- Eisner's spans, shared by first and second order (_decode_eisner.c, _decode_sibling.c) ------- */

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

/* B(s, t) (Sb(s, t) at second order) over r = s..t-1, as arguments of best_sum and best_at. */
#define B_SUMS(s, t) Cr + (s) * N + (s), Cl + (t) * N + (s) + 1, NULL, (t) - (s)

/* Shared across the units, not exported from the module. */
#include "../_hidden.h"

/* _decode.c */
MALTPY_HIDDEN Py_ssize_t decode_check_arcs(const double *S, Py_ssize_t N, double *largest);
MALTPY_HIDDEN int decode_shift_for(double largest, Py_ssize_t N);

/* _decode_cle.c */
MALTPY_HIDDEN void decode_mst(Work *k, const double *S, Py_ssize_t N, int shift, int one_root, int64_t *heads);
MALTPY_HIDDEN void decode_mst_mstparser(Work *k, const double *S, Py_ssize_t N, int shift, int64_t *heads);

/* _decode_eisner.c */
MALTPY_HIDDEN int decode_eisner(Work *k, const double *S, Py_ssize_t N, int shift, int one_root, int64_t *heads);
MALTPY_HIDDEN Py_ssize_t decode_kbest(const double *S, Py_ssize_t N, Py_ssize_t K, int64_t *heads);

/* _decode_sibling.c */
MALTPY_HIDDEN double decode_tree_score2(const double *A, const double *T, Py_ssize_t N, double scale,
                                        const int64_t *heads, idx *last);
MALTPY_HIDDEN int decode_run2(const double *A, const double *L, const double *T, const double *P, int64_t *heads,
                              Py_ssize_t N, int decode, int search, int one_root, Py_ssize_t *bad);

#endif
