/* LIBSVM's one-vs-one prediction (svm_predict_values in LIBSVM 3.x's svm.cpp) for a batch of
   instances, in C for speed, with LIBSVM's floating-point operations in LIBSVM's order, so that
   every decision value, and so every vote, is the one LIBSVM computes: no error bound is needed.

   LIBSVM, for an instance x: kvalue[s] = k_function(x, SV[s]) for every support vector s; then
   for each pair of classes i < j, in order,
       sum = 0; sum += sv_coef[j-1][s] * kvalue[s] for s in class i, in order;
                sum += sv_coef[i][s] * kvalue[s] for s in class j, in order;
       sum -= rho[p];  a vote for i if sum > 0, else for j (a NaN too).
   This file computes the same sums, with the same roundings, and differs only in what no vote
   can tell:
   - Terms whose coefficient is zero are left out. Most are: a support vector of class i is one
     in only a few of the k - 1 binary problems of i (la_perseus: 7% of the coefficients are not
     zero). When kvalue is finite, 0 * kvalue is +0 or -0, and adding a zero to a sum changes at
     most the sign of a zero, which no later addition and no "sum - rho > 0" can tell. A support
     vector whose kvalue is not finite (an overflowing kernel: 0 * inf is NaN) adds its zero
     coefficients too, as LIBSVM does.
   - The support vectors are taken in order, each adding its terms to the sums of its pairs. A
     pair's sum sees only its own terms, class i's before class j's (start[i] < start[j]), each
     class in order: LIBSVM's sequence of additions, interleaved with other pairs' sums.
   - LANES instances are summed side by side, each in its own lane of the same operations.
   - The kernel values of binary instances (every value 1, indices strictly ascending) against
     binary support vectors are computed from the number c of features they share: LIBSVM's dot
     product is then c, and its squared distance (RBF) |x| + |sv| - 2c, integers, exact in
     double; k_function's last step on them is taken by the same expression (polynomial: powi,
     a quad of lanes at a time; RBF and sigmoid: from a table of exp and tanh of 0, 1, 2, ...).
     Other instances and models go through k_function itself, merge and all.
   The file is compiled without contraction of a * b + c into a fused multiply-add (LIBSVM's
   build for x86-64 has none), and exp and tanh are the C library's, as LIBSVM's are.

   Svm(...) copies a model's arrays and checks them once; votes(...) checks and copies its
   instances, then counts the votes with the GIL released. read_support_vectors(...) reads the
   support vectors of LIBSVM's model text into those arrays (NumPy took longer to read its
   numbers than the votes take). */

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

/* n bytes aligned for the widest vector instructions (the AVX clone below assumes more than
   _Alignof(Lanes) says), or NULL. */
static void *aligned(size_t n)
{
#ifdef __GNUC__
    return aligned_alloc(64, (n + 64) / 64 * 64);
#else
    return malloc(n + 1);
#endif
}

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

/* LIBSVM's powi: base^times by repeated squaring. */
static double powi(double base, int times)
{
    double tmp = base, ret = 1.0;
    for (int t = times; t > 0; t /= 2) {
        if (t % 2 == 1)
            ret *= tmp;
        tmp = tmp * tmp;
    }
    return ret;
}

/* k_function's last step: the kernel of a dot product, or (RBF) of a squared distance. */
static double kernel_of(const Svm *m, double v)
{
    switch (m->kernel) {
    case LINEAR:
        return v;
    case POLY:
        return powi(m->gamma * v + m->coef0, m->degree);
    case RBF:
        return exp(-m->gamma * v);
    default:
        return tanh(m->gamma * v + m->coef0);
    }
}

/* kernel_of of each lane's count, for the kernels of a dot product (linear, polynomial): the
   same operations, a quad of lanes at a time. */
static inline void kernel_of_counts(const Svm *m, const Counts *count, Lanes *kv)
{
#ifdef __GNUC__
    int poly = m->kernel == POLY;
    Lanes base;
    for (int q = 0; q < QUADS; q++) {
        base.quad[q] = QUAD_OF_COUNTS(count->words[q % WORDS], q / WORDS);
        if (poly)
            base.quad[q] = m->gamma * base.quad[q] + m->coef0;
        kv->quad[q] = poly ? (Quad){1.0, 1.0, 1.0, 1.0} : base.quad[q];
    }
    for (int t = poly ? m->degree : 0; t > 0; t /= 2) { /* powi */
        if (t % 2 == 1)
            for (int q = 0; q < QUADS; q++)
                kv->quad[q] *= base.quad[q];
        if (t > 1) /* (powi squares once more, for nothing) */
            for (int q = 0; q < QUADS; q++)
                base.quad[q] *= base.quad[q];
    }
#else
    for (int b = 0; b < LANES; b++)
        LANE(*kv, b) = kernel_of(m, COUNT(*count, b));
#endif
}

/* LIBSVM's k_function(x, SV[s]): its dot product, or its squared distance, merged over the nodes. */
static double k_function(const Svm *m, const int32_t *xi, const double *xv, int64_t xn, int64_t s)
{
    const int32_t *yi = m->sv_ind + m->sv_ptr[s];
    const double *yv = m->sv_val + m->sv_ptr[s];
    int64_t yn = m->sv_ptr[s + 1] - m->sv_ptr[s], a = 0, b = 0;
    double sum = 0;
    if (m->kernel != RBF) {
        while (a < xn && b < yn) {
            if (xi[a] == yi[b])
                sum += xv[a++] * yv[b++];
            else if (xi[a] > yi[b])
                b++;
            else
                a++;
        }
        return kernel_of(m, sum);
    }
    while (a < xn && b < yn) {
        if (xi[a] == yi[b]) {
            double d = xv[a++] - yv[b++];
            sum += d * d;
        } else if (xi[a] > yi[b]) {
            sum += yv[b] * yv[b];
            b++;
        } else {
            sum += xv[a] * xv[a];
            a++;
        }
    }
    for (; a < xn; a++)
        sum += xv[a] * xv[a];
    for (; b < yn; b++)
        sum += yv[b] * yv[b];
    return kernel_of(m, sum);
}

/* The number of pair (i, j), i < j, in LIBSVM's order. */
static int64_t pair_of(int64_t k, int64_t i, int64_t j)
{
    return i * k - i * (i + 1) / 2 + j - i - 1;
}

/* The votes of one instance, added to votes[c] for LIBSVM's class c, from its kernel values K;
   sums: n_pairs doubles of work space. The same sums as in decisions() below, one lane; a
   support vector whose kernel value is not finite adds its zero coefficients too (0 * inf is
   NaN), to each pair of its class, as LIBSVM's loop does. */
static void votes_one(const Svm *m, const double *K, double *sums, double *votes)
{
    int64_t k = m->k;
    memset(sums, 0, (size_t)m->n_pairs * sizeof(double));
    for (int64_t c = 0; c < k; c++)
        for (int64_t s = m->start[c]; s < m->start[c + 1]; s++) {
            int64_t t = m->term_ptr[s], end = m->term_ptr[s + 1];
            if (isfinite(K[s]))
                for (; t < end; t++)
                    sums[m->term_pair[t]] += m->term_coef[t] * K[s];
            else
                for (int64_t other = 0; other < k; other++) {
                    if (other == c)
                        continue;
                    int64_t p = other < c ? pair_of(k, other, c) : pair_of(k, c, other);
                    double coef = t < end && m->term_pair[t] == p ? m->term_coef[t++] : 0.0;
                    sums[p] += coef * K[s];
                }
        }
    int64_t p = 0;
    for (int64_t i = 0; i < k; i++)
        for (int64_t j = i + 1; j < k; j++, p++)
            votes[sums[p] - m->rho[p] > 0 ? i : j] += 1.0;
}

/* Instance r's kernel values, by k_function. */
static void kernel_column(const Svm *m, const int64_t *ptr, const int32_t *ind, const double *val, int64_t r,
                          double *K)
{
    for (int64_t s = 0; s < m->n_sv; s++)
        K[s] = k_function(m, ind + ptr[r], val + ptr[r], ptr[r + 1] - ptr[r], s);
}

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

/* Row r is counted if it is binary (every value 1, indices strictly ascending) and the model is
   binary too. */
static int how_found(const Svm *m, const Work *x, int64_t r)
{
    if (!m->binary)
        return MERGED;
    for (int64_t a = x->ptr[r]; a < x->ptr[r + 1]; a++)
        if (x->val[a] != 1.0 || (a > x->ptr[r] && x->ind[a] <= x->ind[a - 1]))
            return MERGED;
    return COUNTED;
}

/* Counted instance r's kernel values (at most 255 features, a finite table), one instance at a
   time: the number of features it shares with each support vector, counted over the support
   vectors that hold each of its features (counts: n_sv work space), gives the value as a
   block's lane finds it (decisions()). A block costs as much for one instance as for LANES, and
   a long sentence's instances come one at a time. */
static void kernel_column_counted(const Svm *m, const Work *x, int64_t r, int32_t *counts, double *K)
{
    int64_t length = x->ptr[r + 1] - x->ptr[r];
    memset(counts, 0, (size_t)m->n_sv * sizeof(int32_t));
    for (int64_t a = x->ptr[r]; a < x->ptr[r + 1]; a++)
        for (int64_t h = m->holder_ptr[x->ind[a]]; h < m->holder_ptr[x->ind[a] + 1]; h++)
            counts[m->holder[h]]++;
    for (int64_t s = 0; s < m->n_sv; s++)
        K[s] = x->table[m->kernel == RBF ? length + m->sv_len[s] - 2 * counts[s] : counts[s]];
}

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define WIDE __attribute__((target_clones("avx2", "default"))) /* four lanes an instruction, not two */
#else
#define WIDE
#endif

/* The decision values of a block: for each support vector s in order, its kernel values in
   every lane, then its terms added to the sums of their pairs; so a pair (i, j), i < j, gets
   class i's terms, then class j's, each class in order, as in LIBSVM's loop. A counted lane
   finds the number of features it shares with s by adding, over s's features, the block's
   masks (at most 255 features in a block: a count fits its byte). finite[b]: lane b's kernel
   values are all finite. Then the votes of the decision values, into x->votes. */
WIDE static void decisions(const Svm *m, const Work *x, int64_t r0, const int *how, int *finite)
{
    Lanes *restrict sums = x->sums;
    int64_t length[LANES];
    int check = !x->table_finite, counted = 0, merged = 0, rbf = m->kernel == RBF;
    for (int b = 0; b < LANES; b++) {
        length[b] = how[b] == COUNTED ? x->ptr[r0 + b + 1] - x->ptr[r0 + b] : 0;
        finite[b] = 1;
        counted |= how[b] == COUNTED;
        merged |= how[b] == MERGED;
    }
    check |= merged;
    memset(sums, 0, (size_t)m->n_pairs * sizeof(Lanes));
    for (int64_t s = 0; s < m->n_sv; s++) {
        Lanes kv;
        if (!counted)
            memset(&kv, 0, sizeof kv);
        else {
            Counts count = {0};
            for (int64_t q = m->sv_ptr[s]; q < m->sv_ptr[s + 1]; q++)
                for (int w = 0; w < WORDS; w++)
                    ADD(count.words[w], x->mask[x->slot[m->sv_ind[q]]].words[w]);
            if (m->kernel == LINEAR || m->kernel == POLY)
                kernel_of_counts(m, &count, &kv);
            else
                for (int b = 0; b < LANES; b++)
                    LANE(kv, b) = x->table[rbf ? length[b] + m->sv_len[s] - 2 * COUNT(count, b) : COUNT(count, b)];
        }
        if (merged)
            for (int b = 0; b < LANES; b++)
                if (how[b] == MERGED) {
                    int64_t r = r0 + b;
                    LANE(kv, b) = k_function(m, x->ind + x->ptr[r], x->val + x->ptr[r], x->ptr[r + 1] - x->ptr[r], s);
                }
        if (check)
            for (int b = 0; b < LANES; b++)
                finite[b] &= how[b] == UNUSED || isfinite(LANE(kv, b));
        for (int64_t t = m->term_ptr[s]; t < m->term_ptr[s + 1]; t++) {
            Lanes *sum = sums + m->term_pair[t];
            for (int q = 0; q < QUADS; q++)
                ADD_TERM(sum->quad[q], m->term_coef[t], kv.quad[q]);
        }
    }
    int64_t k = m->k;
    Wins *votes = x->votes;
    memset(votes, 0, (size_t)k * QUADS * sizeof(Wins));
    int64_t p = 0;
    for (int64_t i = 0; i < k; i++) {
        Wins first[QUADS]; /* class i's votes, kept apart while its pairs are counted */
        memcpy(first, votes + i * QUADS, sizeof first);
        for (int64_t j = i + 1; j < k; j++, p++)
            for (int q = 0; q < QUADS; q++)
                TALLY(first[q], votes[j * QUADS + q], x->sums[p].quad[q], m->rho[p]);
        memcpy(votes + i * QUADS, first, sizeof first);
    }
}

/* Adds to out (k a row) the votes of the rows from r0 on that make a block: at most LANES rows,
   whose counted rows have at most 255 features between them. Returns the number of rows. */
static int vote_block(const Svm *m, Work *x, int64_t r0, int64_t n_rows, double *out)
{
    int how[LANES], finite[LANES], n = 0;
    int64_t n_features = 0, k = m->k;
    for (; n < LANES && r0 + n < n_rows; n++) {
        int64_t r = r0 + n, fresh = 0;
        how[n] = how_found(m, x, r);
        if (how[n] != COUNTED)
            continue;
        for (int64_t a = x->ptr[r]; a < x->ptr[r + 1]; a++)
            fresh += !x->slot[x->ind[a]];
        if (n_features + fresh > 255) {
            if (n > 0)
                break;
            how[n] = MERGED; /* alone, and still too many */
            continue;
        }
        for (int64_t a = x->ptr[r]; a < x->ptr[r + 1]; a++) {
            int32_t f = x->ind[a];
            if (!x->slot[f]) {
                x->slot[f] = (uint8_t)++n_features;
                memset(&x->mask[n_features], 0, sizeof(Counts));
            }
            COUNT_WORD(x->mask[x->slot[f]], n) |= (uint32_t)1 << COUNT_SHIFT(n);
        }
    }
    for (int b = n; b < LANES; b++)
        how[b] = UNUSED;
    decisions(m, x, r0, how, finite);
    for (int b = 0; b < n; b++)
        if (how[b] == COUNTED)
            for (int64_t a = x->ptr[r0 + b]; a < x->ptr[r0 + b + 1]; a++)
                x->slot[x->ind[a]] = 0;
    Wins *votes = x->votes;
    for (int b = 0; b < n; b++) {
        if (!finite[b]) {
            kernel_column(m, x->ptr, x->ind, x->val, r0 + b, x->column);
            memset(x->full, 0, (size_t)k * sizeof(double));
            votes_one(m, x->column, x->pair_sums, x->full);
            for (int64_t c = 0; c < k; c++)
                ELEM(votes[c * QUADS + b / 4], b % 4) = (int64_t)x->full[c];
        }
        for (int64_t c = 0; c < k; c++)
            out[(r0 + b) * k + m->label[c]] += (double)ELEM(votes[c * QUADS + b / 4], b % 4);
    }
    return n;
}

/* --- the Python interface --------------------------------------------------------------------- */

/* A private copy of a 1-d buffer of n items of `itemsize` bytes and format `format` (n < 0: any). */
static void *copy_array(PyObject *obj, Py_ssize_t itemsize, const char *format, int64_t n, const char *name,
                        int64_t *got)
{
    Py_buffer view;
    if (PyObject_GetBuffer(obj, &view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return NULL;
    const char *f = view.format;
    if (*f == '@' || *f == '=' || *f == '<')
        f++;
    void *copy = NULL;
    if (view.itemsize != itemsize || view.ndim != 1 || strlen(f) != 1 || !strchr(format, *f))
        PyErr_Format(PyExc_TypeError, "%s: expected a 1-d buffer of %zd-byte items of format '%s'", name, itemsize,
                     format);
    else if (n >= 0 && view.len / itemsize != n)
        PyErr_Format(PyExc_ValueError, "%s: expected %lld items", name, (long long)n);
    else if (!(copy = malloc((size_t)view.len + 1)))
        PyErr_NoMemory();
    else {
        memcpy(copy, view.buf, (size_t)view.len);
        if (got)
            *got = view.len / itemsize;
    }
    PyBuffer_Release(&view);
    return copy;
}

/* NULL if ptr[0..n] runs from 0 to end without going back, else what is wrong. */
static const char *bad_offsets(const int64_t *ptr, int64_t n, int64_t end)
{
    if (ptr[0] != 0 || ptr[n] != end)
        return "offsets that do not span their array";
    for (int64_t i = 0; i < n; i++)
        if (ptr[i + 1] < ptr[i])
            return "offsets that go back";
    return NULL;
}

static int all_finite(const double *v, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        if (!isfinite(v[i]))
            return 0;
    return 1;
}

/* Checks the copied model and builds its terms and (binary models) its columns. */
static const char *build(Svm *m, const double *coef)
{
    int64_t k = m->k, n_sv = m->n_sv, n_nodes = m->sv_ptr[n_sv];
    const char *bad;
    if ((bad = bad_offsets(m->start, k, n_sv)))
        return bad;
    for (int64_t i = 0; i < n_nodes; i++)
        if (m->sv_ind[i] < 0 || m->sv_ind[i] >= m->n_features)
            return "a support vector's feature out of range";
    if (!all_finite(m->sv_val, n_nodes) || !all_finite(coef, n_sv * (k - 1)) || !all_finite(m->rho, m->n_pairs))
        return "a number that is not finite";
    char *seen = calloc((size_t)k, 1);
    if (!seen)
        return "out of memory";
    for (int64_t i = 0; i < k; i++) {
        if (m->label[i] < 0 || m->label[i] >= k || seen[m->label[i]]) {
            free(seen);
            return "labels that are not a permutation of the classes";
        }
        seen[m->label[i]] = 1;
    }
    free(seen);
    /* sv_coef[r][s], r < k - 1, is coef[s * (k - 1) + r]; of the pairs of s's class c, it is
       the one of (r, c) if r < c, else of (c, r + 1). Pair (i, j), i < j, is number
       i * k - i * (i + 1) / 2 + j - i - 1, LIBSVM's order. */
    int64_t n_terms = 0;
    for (int64_t i = 0; i < n_sv * (k - 1); i++)
        n_terms += coef[i] != 0.0;
    m->term_ptr = malloc((size_t)(n_sv + 1) * sizeof(int64_t));
    m->term_pair = malloc((size_t)(n_terms + 1) * sizeof(int32_t));
    m->term_coef = malloc((size_t)(n_terms + 1) * sizeof(double));
    if (!m->term_ptr || !m->term_pair || !m->term_coef)
        return "out of memory";
    int64_t t = 0;
    m->term_ptr[0] = 0;
    for (int64_t c = 0; c < k; c++)
        for (int64_t s = m->start[c]; s < m->start[c + 1]; s++) {
            for (int64_t r = 0; r < k - 1; r++)
                if (coef[s * (k - 1) + r] != 0.0) {
                    m->term_pair[t] = (int32_t)(r < c ? pair_of(k, r, c) : pair_of(k, c, r + 1));
                    m->term_coef[t++] = coef[s * (k - 1) + r];
                }
            m->term_ptr[s + 1] = t;
        }
    m->binary = 1;
    m->max_len = 0;
    if (!(m->sv_len = malloc((size_t)(n_sv + 1) * sizeof(int32_t))))
        return "out of memory";
    for (int64_t s = 0; s < n_sv; s++) {
        int64_t len = m->sv_ptr[s + 1] - m->sv_ptr[s];
        m->sv_len[s] = (int32_t)len;
        m->max_len = len > m->max_len ? len : m->max_len;
        for (int64_t q = m->sv_ptr[s]; q < m->sv_ptr[s + 1]; q++)
            m->binary &= m->sv_val[q] == 1.0 && (q == m->sv_ptr[s] || m->sv_ind[q] > m->sv_ind[q - 1]);
    }
    if (!(m->holder_ptr = calloc((size_t)m->n_features + 2, sizeof(int64_t)))
        || !(m->holder = malloc((size_t)(n_nodes + 1) * sizeof(int32_t))))
        return "out of memory";
    for (int64_t q = 0; q < n_nodes; q++)
        m->holder_ptr[m->sv_ind[q] + 2]++;
    for (int64_t f = 0; f < m->n_features; f++)
        m->holder_ptr[f + 2] += m->holder_ptr[f + 1];
    for (int64_t s = 0; s < n_sv; s++) /* holder_ptr[f + 1]: where f's next holder goes */
        for (int64_t q = m->sv_ptr[s]; q < m->sv_ptr[s + 1]; q++)
            m->holder[m->holder_ptr[m->sv_ind[q] + 1]++] = (int32_t)s;
    return NULL;
}

static int Svm_init(Svm *self, PyObject *args, PyObject *kwds)
{
    (void)kwds;
    PyObject *o[7];
    long long n_features, k;
    double *coef = NULL;
    if (self->ready || self->sv_ptr) {
        PyErr_SetString(PyExc_TypeError, "Svm is already initialised");
        return -1;
    }
    if (!PyArg_ParseTuple(args, "iiddLLOOOOOOO", &self->kernel, &self->degree, &self->gamma, &self->coef0,
                          &n_features, &k, &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &o[6]))
        return -1;
    if (self->kernel < LINEAR || self->kernel > SIGMOID || self->degree < 0 || self->degree > 1000
        || !isfinite(self->gamma) || !isfinite(self->coef0) || k < 2 || k > 65535 || n_features < 0
        || n_features > INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "kernel, degree, gamma, coef0, n_features or k out of range");
        return -1;
    }
    self->n_features = n_features;
    self->k = k;
    self->n_pairs = k * (k - 1) / 2;
    int64_t n_sv_plus_1, n_nodes;
    const char *bad = NULL;
    if (!(self->sv_ptr = copy_array(o[0], 8, "qlL", -1, "sv_ptr", &n_sv_plus_1)))
        return -1;
    self->n_sv = n_sv_plus_1 - 1;
    if (self->n_sv < 0 || self->n_sv > INT32_MAX)
        bad = "sv_ptr: no offsets, or too many";
    else if (!(self->sv_ind = copy_array(o[1], 4, "i", -1, "sv_ind", &n_nodes))
             || !(self->sv_val = copy_array(o[2], 8, "d", n_nodes, "sv_val", NULL))
             || !(coef = copy_array(o[3], 8, "d", self->n_sv * (k - 1), "coef", NULL))
             || !(self->start = copy_array(o[4], 8, "qlL", k + 1, "start", NULL))
             || !(self->rho = copy_array(o[5], 8, "d", self->n_pairs, "rho", NULL))
             || !(self->label = copy_array(o[6], 8, "qlL", k, "label", NULL)))
        goto fail;
    else if (!(bad = bad_offsets(self->sv_ptr, self->n_sv, n_nodes)))
        bad = build(self, coef);
    free(coef);
    if (bad) {
        PyErr_SetString(PyExc_ValueError, bad);
        return -1;
    }
    self->ready = 1;
    return 0;
fail:
    free(coef);
    return -1;
}

static void Svm_dealloc(Svm *self)
{
    free(self->sv_ptr);
    free(self->sv_ind);
    free(self->sv_val);
    free(self->start);
    free(self->label);
    free(self->rho);
    free(self->term_ptr);
    free(self->term_pair);
    free(self->term_coef);
    free(self->sv_len);
    free(self->holder_ptr);
    free(self->holder);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

PyDoc_STRVAR(votes_doc,
    "votes(indptr, indices, data, out): adds to out (float64, a row of k per instance, writable) the\n"
    "votes LIBSVM's svm_predict_values gives the instances: CSR rows, indptr int64, indices int32\n"
    "(0-based features, ascending within a row), data float64.");

static PyObject *Svm_votes(Svm *self, PyObject *args)
{
    PyObject *o[4];
    Py_buffer out = {0};
    int64_t n_rows_plus_1, n_nodes;
    int64_t *ptr = NULL;
    int32_t *ind = NULL;
    double *val = NULL, *table = NULL;
    Work *work = NULL;
    PyObject *result = NULL;
    if (!self->ready)
        return PyErr_Format(PyExc_TypeError, "Svm is not initialised");
    if (!PyArg_ParseTuple(args, "OOOO", &o[0], &o[1], &o[2], &o[3]))
        return NULL;
    if (!(ptr = copy_array(o[0], 8, "qlL", -1, "indptr", &n_rows_plus_1))
        || !(ind = copy_array(o[1], 4, "i", -1, "indices", &n_nodes))
        || !(val = copy_array(o[2], 8, "d", n_nodes, "data", NULL)))
        goto done;
    int64_t n = n_rows_plus_1 - 1, k = self->k, longest = 0;
    const char *bad = n < 0 ? "indptr: no offsets" : bad_offsets(ptr, n, n_nodes);
    for (int64_t i = 0; i < n_nodes && !bad; i++)
        if (ind[i] < 0 || ind[i] >= self->n_features)
            bad = "indices: a feature out of range";
    for (int64_t r = 0; r < n && !bad; r++) {
        longest = ptr[r + 1] - ptr[r] > longest ? ptr[r + 1] - ptr[r] : longest;
        for (int64_t q = ptr[r] + 1; q < ptr[r + 1] && !bad; q++)
            if (ind[q] < ind[q - 1])
                bad = "indices: not ascending within a row";
    }
    if (bad) {
        PyErr_SetString(PyExc_ValueError, bad);
        goto done;
    }
    if (PyObject_GetBuffer(o[3], &out, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | PyBUF_WRITABLE) < 0)
        goto done;
    const char *f = out.format;
    if (*f == '@' || *f == '=' || *f == '<')
        f++;
    if (out.itemsize != 8 || strcmp(f, "d") != 0 || out.len / 8 != n * k) {
        PyErr_SetString(PyExc_ValueError, "out: expected a float64 buffer of a row of k per instance");
        goto done;
    }
    int64_t n_table = (longest < 255 ? longest : 255) + self->max_len + 1, n_sv = self->n_sv;
    int blocks = self->n_pairs <= MAX_BLOCK_PAIRS && n >= FEW_ROWS;
    work = aligned(sizeof(Work));
    if (work) {
        *work = (Work){.ptr = ptr, .ind = ind, .val = val, .table_finite = 1};
        work->table = table = malloc((size_t)n_table * sizeof(double));
        work->slot = blocks ? calloc((size_t)self->n_features + 1, 1) : NULL;
        work->counts = blocks ? NULL : malloc((size_t)(n_sv + 1) * sizeof(int32_t));
        work->sums = blocks ? aligned((size_t)self->n_pairs * sizeof(Lanes)) : NULL;
        work->votes = aligned((size_t)k * QUADS * sizeof(Wins));
        work->full = malloc((size_t)k * sizeof(double));
        work->pair_sums = malloc((size_t)self->n_pairs * sizeof(double));
        work->column = malloc((size_t)(n_sv + 1) * sizeof(double));
    }
    if (!work || !table || (blocks ? !work->slot || !work->sums : !work->counts) || !work->votes || !work->full
        || !work->pair_sums || !work->column) {
        PyErr_NoMemory();
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    for (int64_t v = 0; v < n_table; v++)
        work->table_finite &= isfinite(table[v] = kernel_of(self, (double)v)) != 0;
    for (int64_t r0 = 0; r0 < n && blocks;)
        r0 += vote_block(self, work, r0, n, out.buf);
    for (int64_t r = 0; r < n && !blocks; r++) {
        if (work->table_finite && ptr[r + 1] - ptr[r] <= 255 && how_found(self, work, r) == COUNTED)
            kernel_column_counted(self, work, r, work->counts, work->column);
        else
            kernel_column(self, ptr, ind, val, r, work->column);
        memset(work->full, 0, (size_t)k * sizeof(double));
        votes_one(self, work->column, work->pair_sums, work->full);
        for (int64_t c = 0; c < k; c++)
            ((double *)out.buf)[r * k + self->label[c]] += work->full[c];
    }
    Py_END_ALLOW_THREADS
    result = Py_None;
    Py_INCREF(result);
done:
    if (out.obj)
        PyBuffer_Release(&out);
    free(ptr);
    free(ind);
    free(val);
    free(table);
    if (work) {
        free(work->slot);
        free(work->counts);
        free(work->sums);
        free(work->votes);
        free(work->full);
        free(work->pair_sums);
        free(work->column);
        free(work);
    }
    return result;
}

/* --- the support vectors of LIBSVM's model text ------------------------------------------------ */

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* A space, a tab, or the \r of a \r\n. */
static int is_blank(const char *c)
{
    return *c == ' ' || *c == '\t' || (*c == '\r' && c[1] == '\n');
}

/* The length of the decimal number at s, [+-]d[.d][(e|E)[+-]d] (d: digits, on one side of the
   point at least), or 0. */
static size_t number_length(const char *s)
{
    const char *p = s + (*s == '+' || *s == '-');
    size_t digits = 0;
    for (; is_digit(*p); p++)
        digits++;
    if (*p == '.')
        for (p++; is_digit(*p); p++)
            digits++;
    if (!digits)
        return 0;
    if (*p == 'e' || *p == 'E') {
        const char *e = p + 1 + (p[1] == '+' || p[1] == '-');
        if (!is_digit(*e))
            return 0;
        for (p = e; is_digit(*p); p++)
            ;
    }
    return (size_t)(p - s);
}

/* The number at *s, as Python's float() reads it (correctly rounded), *s moved past it; NAN if
   there is none, if it is beyond +-1e100, or if no blank or end of line follows it. */
static double read_number(const char **s)
{
    size_t n = number_length(*s);
    const char *after = *s + n;
    if (!n || !(is_blank(after) || *after == '\n' || *after == '\0'))
        return NAN;
    const char *digits = *s + (**s == '+' || **s == '-');
    double v = 0;
    if (after - digits <= 15 && strspn(digits, "0123456789") == (size_t)(after - digits)) {
        for (const char *d = digits; d < after; d++) /* an integer: exact, as the C library reads it */
            v = 10 * v + (*d - '0');
        v = **s == '-' ? -v : v;
    } else {
        char *end;
        v = PyOS_string_to_double(*s, &end, NULL);
        if ((v == -1.0 && PyErr_Occurred()) || end != after) {
            PyErr_Clear();
            return NAN;
        }
    }
    *s = after;
    return fabs(v) <= 1e100 ? v : NAN;
}

PyDoc_STRVAR(read_doc,
    "read_support_vectors(text, n_lines, n_coef, width) -> (coef, sv_ptr, sv_ind, sv_val): the\n"
    "support vectors of a LIBSVM model text after its SV line, as bytes of the arrays Svm takes:\n"
    "each of n_lines lines holds n_coef numbers, then index:value pairs (index 1..width, given as\n"
    "0..width-1), every number within +-1e100. ValueError if the text is not that.");

static PyObject *read_support_vectors(PyObject *module, PyObject *args)
{
    (void)module;
    const char *text, *bad = NULL;
    Py_ssize_t length;
    long long n_lines, n_coef, width;
    if (!PyArg_ParseTuple(args, "s#LLL", &text, &length, &n_lines, &n_coef, &width))
        return NULL;
    int64_t newlines = 0, colons = 0;
    for (Py_ssize_t i = 0; i < length; i++) {
        newlines += text[i] == '\n';
        colons += text[i] == ':';
    }
    if (n_lines < 0 || n_coef < 0 || width < 0 || width > INT32_MAX || n_lines > newlines + 1
        || (n_coef && n_lines > (length + 1) / (2 * n_coef)))
        return PyErr_Format(PyExc_ValueError, "support vector counts that do not match the SV lines");
    PyObject *coef = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(n_lines * n_coef * sizeof(double)));
    PyObject *ptr = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)((n_lines + 1) * sizeof(int64_t)));
    PyObject *ind = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(colons * sizeof(int32_t)));
    PyObject *val = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(colons * sizeof(double)));
    if (!coef || !ptr || !ind || !val)
        goto fail;
    double *c = (double *)PyBytes_AS_STRING(coef), *v = (double *)PyBytes_AS_STRING(val);
    int64_t *sv_ptr = (int64_t *)PyBytes_AS_STRING(ptr), nodes = 0;
    int32_t *sv_ind = (int32_t *)PyBytes_AS_STRING(ind);
    const char *at = text;
    sv_ptr[0] = 0;
    for (int64_t line = 0; line < n_lines && !bad; line++) {
        for (int64_t i = 0; i < n_coef && !bad; i++) {
            while (is_blank(at))
                at++;
            if (isnan(c[line * n_coef + i] = read_number(&at)))
                bad = "a coefficient that is not a number within +-1e100";
        }
        for (;;) {
            while (is_blank(at))
                at++;
            if (bad || *at == '\n' || *at == '\0')
                break;
            int64_t index = 0;
            const char *digits = at;
            for (; is_digit(*at) && at - digits < 10; at++)
                index = 10 * index + (*at - '0');
            if (at == digits || *at++ != ':' || index < 1 || index > width)
                bad = "a feature index out of range";
            else if (isnan(v[nodes] = read_number(&at)))
                bad = "a feature value that is not a number within +-1e100";
            else
                sv_ind[nodes++] = (int32_t)(index - 1);
        }
        if (!bad && *at == '\n')
            at++;
        else if (!bad && line + 1 < n_lines)
            bad = "support vector counts that do not match the SV lines";
        sv_ptr[line + 1] = nodes;
    }
    if (!bad && at != text + length)
        bad = "support vector counts that do not match the SV lines";
    if (bad) {
        PyErr_SetString(PyExc_ValueError, bad);
        goto fail;
    }
    if (_PyBytes_Resize(&ind, (Py_ssize_t)(nodes * sizeof(int32_t))) < 0
        || _PyBytes_Resize(&val, (Py_ssize_t)(nodes * sizeof(double))) < 0)
        goto fail;
    return Py_BuildValue("NNNN", coef, ptr, ind, val);
fail:
    Py_XDECREF(coef);
    Py_XDECREF(ptr);
    Py_XDECREF(ind);
    Py_XDECREF(val);
    return NULL;
}

static PyMethodDef methods[] = {
    {"read_support_vectors", read_support_vectors, METH_VARARGS, read_doc},
    {NULL, NULL, 0, NULL},
};

static PyMethodDef Svm_methods[] = {
    {"votes", (PyCFunction)Svm_votes, METH_VARARGS, votes_doc},
    {NULL, NULL, 0, NULL},
};

PyDoc_STRVAR(Svm_doc,
    "Svm(kernel, degree, gamma, coef0, n_features, k, sv_ptr, sv_ind, sv_val, coef, start, rho, label):\n"
    "a C-SVC model as LIBSVM holds it, copied and checked. kernel: 0 linear, 1 polynomial, 2 RBF,\n"
    "3 sigmoid; support vector s's nodes are sv_ind (int32, 0-based features) and sv_val (float64)\n"
    "at sv_ptr[s]..sv_ptr[s+1]-1 (int64); coef: float64, sv_coef[r][s] at s * (k - 1) + r; start:\n"
    "int64, class i's support vectors from start[i]; rho: float64 per pair; label: int64, maltpy's\n"
    "class of LIBSVM's class i.");

static PyTypeObject SvmType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "maltpy.learners._libsvm.Svm",
    .tp_basicsize = sizeof(Svm),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = Svm_doc,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Svm_init,
    .tp_dealloc = (destructor)Svm_dealloc,
    .tp_methods = Svm_methods,
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_libsvm", "LIBSVM's one-vs-one votes.", -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__libsvm(void)
{
    if (PyType_Ready(&SvmType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m)
        return NULL;
    Py_INCREF(&SvmType);
    if (PyModule_AddObject(m, "Svm", (PyObject *)&SvmType) < 0) {
        Py_DECREF(&SvmType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
