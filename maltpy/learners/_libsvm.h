/* What the units of maltpy.learners._libsvm share: LIBSVM's one-vs-one prediction for a batch of
   instances, in C for speed. _libsvm_votes.c computes the votes (and says how they are LIBSVM's);
   _libsvm.c is the Python module. Every unit is compiled without contraction of a * b + c into a
   fused multiply-add (LIBSVM's build for x86-64 has none). */

#ifndef MALTPY_LIBSVM_H
#define MALTPY_LIBSVM_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#ifdef __clang__
#pragma clang fp contract(off)
#endif
#ifdef __FAST_MATH__
#error "LIBSVM's decision values need IEEE arithmetic: build without -ffast-math"
#endif

#define LANES 32                  /* instances summed side by side (16 and 64 are slower) */
#define QUADS (LANES / 4)         /* of four lanes: a vector of doubles where the compiler has one */
#define WORDS (LANES / 16)        /* of four count words, each holding four lanes' counts, a byte each */
#define MAX_BLOCK_PAIRS (1 << 17) /* pairs of classes (32 MB of sums); a model of more: an instance at a time */
#define FEW_ROWS 3                /* fewer instances go one at a time: a block costs as much for one as for LANES */

/* Lane b is element b % 4 of quad b / 4 of Lanes. Its count (of the features it shares with a
   support vector) is byte q / WORDS of element b % 4 of words q % WORDS of Counts, q = b / 4:
   so the counts of a quad are one shift and one conversion away from its lanes. */
#ifdef __GNUC__
typedef double Quad __attribute__((vector_size(4 * sizeof(double))));
typedef uint32_t Words __attribute__((vector_size(4 * sizeof(uint32_t))));
typedef int32_t Ints __attribute__((vector_size(4 * sizeof(int32_t))));
#define ELEM(x, i) (x)[i]
#define ADD(to, v) ((to) += (v))
#define ADD_TERM(to, c, v) ((to) += (c) * (v))
#define QUAD_OF_COUNTS(w, byte) __builtin_convertvector((Ints)((w) >> (8 * (byte)) & 255), Quad)
typedef int64_t Wins __attribute__((vector_size(4 * sizeof(int64_t))));
/* LIBSVM: a decision value sum - rho > 0 is a vote for i, any other for j (a comparison is -1 where true) */
#define TALLY(vi, vj, sum, rho)           \
    do {                                  \
        Wins won_ = (sum) - (rho) > 0;    \
        (vi) -= won_;                     \
        (vj) += won_ + 1;                 \
    } while (0)
#else
typedef struct {
    double v[4];
} Quad;
typedef struct {
    uint32_t v[4];
} Words;
#define ELEM(x, i) (x).v[i]
#define ADD(to, w) for (int i_ = 0; i_ < 4; i_++) (to).v[i_] += (w).v[i_]
#define ADD_TERM(to, c, w) for (int i_ = 0; i_ < 4; i_++) (to).v[i_] += (c) * (w).v[i_]
typedef struct {
    int64_t v[4];
} Wins;
#define TALLY(vi, vj, sum, rho)                     \
    for (int i_ = 0; i_ < 4; i_++) {                \
        int won_ = (sum).v[i_] - (rho) > 0;         \
        (vi).v[i_] += won_;                         \
        (vj).v[i_] += 1 - won_;                     \
    }
static Quad QUAD_OF_COUNTS(Words w, int byte)
{
    Quad v;
    for (int i = 0; i < 4; i++)
        v.v[i] = w.v[i] >> (8 * byte) & 255;
    return v;
}
#endif
typedef struct {
    Quad quad[QUADS];
} Lanes;
typedef struct {
    Words words[WORDS];
} Counts;
#define LANE(v, b) ELEM((v).quad[(b) / 4], (b) % 4)
#define COUNT_WORD(c, b) ELEM((c).words[(b) / 4 % WORDS], (b) % 4)
#define COUNT_SHIFT(b) (8 * ((b) / 4 / WORDS))
#define COUNT(c, b) (COUNT_WORD(c, b) >> COUNT_SHIFT(b) & 255)

enum { LINEAR, POLY, RBF, SIGMOID };

typedef struct {
    PyObject_HEAD
    int ready;
    int kernel, degree;
    double gamma, coef0;
    int64_t n_sv, n_features, k, n_pairs;
    /* the support vectors as LIBSVM holds them: s's nodes sv_ind/sv_val[sv_ptr[s]..sv_ptr[s+1]) */
    int64_t *sv_ptr;
    int32_t *sv_ind;
    double *sv_val;
    int64_t *start; /* class i's support vectors: start[i]..start[i+1]-1 */
    int64_t *label; /* LIBSVM's class i is maltpy's class label[i] */
    double *rho;    /* per pair */
    /* support vector s's nonzero coefficients and their pairs: term_pair/term_coef[term_ptr[s]..term_ptr[s+1]) */
    int64_t *term_ptr;
    int32_t *term_pair;
    double *term_coef;
    int binary;      /* every value 1, every support vector's features strictly ascending */
    int32_t *sv_len; /* each support vector's number of features */
    int64_t max_len; /* the most of them */
    /* the support vectors that have feature f, in order: holder[holder_ptr[f]..holder_ptr[f+1]) */
    int64_t *holder_ptr;
    int32_t *holder;
} Svm;

/* The instances of a call (CSR rows) and the work space of its blocks of instances. */
typedef struct {
    const int64_t *ptr;
    const int32_t *ind;
    const double *val;
    const double *table; /* table[v]: the kernel of v shared features (RBF: of squared distance v) */
    int table_finite;    /* every entry finite, so every counted lane's kernel value */
    uint8_t *slot;       /* slot[f]: u if f is the block's feature u (from 1), else 0 */
    Counts mask[256];    /* mask[u]: 1 in the byte of each lane that has feature u; mask[0] is 0 */
    Lanes *sums;         /* per pair: each lane's decision value so far */
    Wins *votes;         /* votes[c * QUADS + b / 4], element b % 4: lane b's votes for LIBSVM's class c */
    double *full;        /* one instance's votes, counted alone */
    double *pair_sums;   /* its sums */
    double *column;      /* one instance's kernel values */
    int32_t *counts;     /* one instance's features shared with each support vector */
} Work;

/* How a lane's kernel values are found: counted (from the features shared), merged (k_function). */
enum { UNUSED, COUNTED, MERGED };

/* Shared across the units, not exported from the module. */
#include "../_hidden.h"

/* _libsvm_votes.c */
MALTPY_HIDDEN void *libsvm_aligned(size_t n);
MALTPY_HIDDEN double libsvm_kernel_of(const Svm *m, double v);
MALTPY_HIDDEN int64_t libsvm_pair_of(int64_t k, int64_t i, int64_t j);
MALTPY_HIDDEN void libsvm_votes_one(const Svm *m, const double *K, double *sums, double *votes);
MALTPY_HIDDEN void libsvm_kernel_column(const Svm *m, const int64_t *ptr, const int32_t *ind, const double *val,
                                        int64_t r, double *K);
MALTPY_HIDDEN int libsvm_how_found(const Svm *m, const Work *x, int64_t r);
MALTPY_HIDDEN void libsvm_kernel_column_counted(const Svm *m, const Work *x, int64_t r, int32_t *counts, double *K);
MALTPY_HIDDEN int libsvm_vote_block(const Svm *m, Work *x, int64_t r0, int64_t n_rows, double *out);

#endif
