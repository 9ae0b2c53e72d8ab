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
   build for x86-64 has none), and exp and tanh are the C library's, as LIBSVM's are. */

#include "_libsvm.h"

/* n bytes aligned for the widest vector instructions (the AVX clone below assumes more than
   _Alignof(Lanes) says), or NULL. */
void *libsvm_aligned(size_t n)
{
#ifdef __GNUC__
    return aligned_alloc(64, (n + 64) / 64 * 64);
#else
    return malloc(n + 1);
#endif
}

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
double libsvm_kernel_of(const Svm *m, double v)
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
        LANE(*kv, b) = libsvm_kernel_of(m, COUNT(*count, b));
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
        return libsvm_kernel_of(m, sum);
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
    return libsvm_kernel_of(m, sum);
}

/* The number of pair (i, j), i < j, in LIBSVM's order. */
int64_t libsvm_pair_of(int64_t k, int64_t i, int64_t j)
{
    return i * k - i * (i + 1) / 2 + j - i - 1;
}

/* The votes of one instance, added to votes[c] for LIBSVM's class c, from its kernel values K;
   sums: n_pairs doubles of work space. The same sums as in decisions() below, one lane; a
   support vector whose kernel value is not finite adds its zero coefficients too (0 * inf is
   NaN), to each pair of its class, as LIBSVM's loop does. */
void libsvm_votes_one(const Svm *m, const double *K, double *sums, double *votes)
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
                    int64_t p = other < c ? libsvm_pair_of(k, other, c) : libsvm_pair_of(k, c, other);
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
void libsvm_kernel_column(const Svm *m, const int64_t *ptr, const int32_t *ind, const double *val, int64_t r,
                          double *K)
{
    for (int64_t s = 0; s < m->n_sv; s++)
        K[s] = k_function(m, ind + ptr[r], val + ptr[r], ptr[r + 1] - ptr[r], s);
}

/* Row r is counted if it is binary (every value 1, indices strictly ascending) and the model is
   binary too. */
int libsvm_how_found(const Svm *m, const Work *x, int64_t r)
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
void libsvm_kernel_column_counted(const Svm *m, const Work *x, int64_t r, int32_t *counts, double *K)
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
int libsvm_vote_block(const Svm *m, Work *x, int64_t r0, int64_t n_rows, double *out)
{
    int how[LANES], finite[LANES], n = 0;
    int64_t n_features = 0, k = m->k;
    for (; n < LANES && r0 + n < n_rows; n++) {
        int64_t r = r0 + n, fresh = 0;
        how[n] = libsvm_how_found(m, x, r);
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
            libsvm_kernel_column(m, x->ptr, x->ind, x->val, r0 + b, x->column);
            memset(x->full, 0, (size_t)k * sizeof(double));
            libsvm_votes_one(m, x->column, x->pair_sums, x->full);
            for (int64_t c = 0; c < k; c++)
                ELEM(votes[c * QUADS + b / 4], b % 4) = (int64_t)x->full[c];
        }
        for (int64_t c = 0; c < k; c++)
            out[(r0 + b) * k + m->label[c]] += (double)ELEM(votes[c * QUADS + b / 4], b % 4);
    }
    return n;
}
