/* LIBLINEAR's multi-class SVM of Crammer and Singer (``-s 4``, MaltParser's default learner), as
   MaltParser 1.9.2 trains it: with the Java port of LIBLINEAR 1.8 that it bundles.

   The solver is the coordinate descent of Keerthi et al. (2008) in the appendix of the LIBLINEAR
   paper (Fan et al. 2008, JMLR 9): for each instance in turn, the sub-problem over its alphas
   (one per class) is solved exactly, and the weights are updated by the change; instances and
   classes whose alphas sit at their bounds are shrunk out, and the whole set is tried again
   before stopping. What makes the weights MaltParser's to the last bit, and not only to the
   solver's tolerance:
   - the instances come grouped by class (classes in order of first appearance, instances in
     their order within a class) and each instance's features by ascending column, as
     liblinear.py arranges them;
   - the order of instances in a sweep is drawn with java.util.Random, seeded with 0 once per
     Java process, so that the classifiers of one learning run share one stream (the seed goes
     in and comes out);
   - every sum is taken in the same order, and this file is compiled without contraction of
     a * b + c into a fused multiply-add, which Java never does. */

#include "_liblinear.h"

/* java.util.Random (JR_ in _liblinear.h): a 48-bit linear congruential generator. */
static int32_t jr_next31(int64_t *seed)
{
    uint64_t next = ((uint64_t)*seed * (uint64_t)JR_MULTIPLIER + (uint64_t)JR_ADDEND) & (uint64_t)JR_MASK;
    *seed = (int64_t)next;
    return (int32_t)(next >> 17);
}

/* Random.nextInt(bound), bound > 0: the same draws, and the same rejections, as Java's. */
static int32_t jr_next_int(int64_t *seed, int32_t bound)
{
    if ((bound & -bound) == bound)
        return (int32_t)(((int64_t)bound * (int64_t)jr_next31(seed)) >> 31);
    for (;;) {
        int32_t bits = jr_next31(seed);
        int32_t val = bits % bound;
        if ((int64_t)bits - val + (bound - 1) <= INT32_MAX)
            return val;
    }
}

/* Java's Math.min for doubles, signed zeros included. */
static double java_min(double a, double b)
{
    if (a != a)
        return a;
    if (a == 0.0 && b == 0.0 && signbit(b))
        return b;
    return a <= b ? a : b;
}

/* Java's Math.max for doubles: a NaN wins. */
static double java_max(double a, double b)
{
    if (a != a)
        return a;
    if (a == 0.0 && b == 0.0 && signbit(a))
        return b;
    return a >= b ? a : b;
}

static int compare_descending(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

/* The sub-problem of one instance over its `active` classes (Fan et al. 2008, appendix, the
   closed form of Crammer and Singer): B holds G - A * alpha per class, yi the place of the
   instance's own class among them (active if it is not among them). D is scratch. */
static void solve_sub_problem(double A, int yi, double C, int active, const double *B, double *D,
                              double *alpha_new)
{
    memcpy(D, B, sizeof(double) * (size_t)active);
    if (yi < active)
        D[yi] += A * C;
    qsort(D, (size_t)active, sizeof(double), compare_descending);
    double beta = D[0] - A * C;
    int r;
    for (r = 1; r < active && beta < (double)r * D[r]; r++)
        beta += D[r];
    beta /= r;
    for (r = 0; r < active; r++) {
        alpha_new[r] = java_min(r == yi ? C : 0.0, (beta - B[r]) / A);
    }
}

/* An alpha at its bound whose gradient is below minG leaves the active set. */
static int be_shrunk(int m, int yi, double alpha, double minG, double C, const double *G)
{
    double bound = m == yi ? C : 0.0;
    return alpha == bound && G[m] < minG;
}

static void swap_int(int *a, int64_t i, int64_t j)
{
    int t = a[i];
    a[i] = a[j];
    a[j] = t;
}

static void swap_i64(int64_t *a, int64_t i, int64_t j)
{
    int64_t t = a[i];
    a[i] = a[j];
    a[j] = t;
}

static void swap_double(double *a, int64_t i, int64_t j)
{
    double t = a[i];
    a[i] = a[j];
    a[j] = t;
}

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define WIDE __attribute__((target_clones("avx2", "default"))) /* four lanes an instruction, not two */
#else
#define WIDE
#endif

/* Returns 0 when done, -1 when out of memory, 1 when interrupted (a Python error is set). The
   AVX2 clone computes the same values: each sum keeps its order, and no multiply-add is fused
   (-ffp-contract=off). */
WIDE static int solve(const Problem *p, double eps, int64_t max_iter, int64_t *seed, double *w, int64_t n_features,
                 PyThreadState **released)
{
    const int64_t l = p->l;
    const int k = p->k;
    int64_t i, s, iter = 0, active_size = l;
    int m;
    int status = 0;
    double *alpha = calloc((size_t)(l * k) + 1, sizeof(double));
    int *alpha_index = malloc(sizeof(int) * ((size_t)(l * k) + 1));
    int64_t *index = malloc(sizeof(int64_t) * ((size_t)l + 1));
    double *QD = malloc(sizeof(double) * ((size_t)l + 1));
    int *y_index = malloc(sizeof(int) * ((size_t)l + 1));
    int *active_size_i = malloc(sizeof(int) * ((size_t)l + 1));
    double *G = malloc(sizeof(double) * (size_t)k);
    double *B = malloc(sizeof(double) * (size_t)k);
    double *D = malloc(sizeof(double) * (size_t)k);
    double *alpha_new = malloc(sizeof(double) * (size_t)k);
    int *d_ind = malloc(sizeof(int) * (size_t)k);
    double *d_val = malloc(sizeof(double) * (size_t)k);
    if (!alpha || !alpha_index || !index || !QD || !y_index || !active_size_i || !G || !B || !D || !alpha_new ||
        !d_ind || !d_val) {
        status = -1;
        goto done;
    }
    double eps_shrink = 10.0 * eps > 1.0 ? 10.0 * eps : 1.0;
    int start_from_all = 1;
    memset(w, 0, sizeof(double) * (size_t)(n_features * k));
    for (i = 0; i < l; i++) {
        for (m = 0; m < k; m++)
            alpha_index[i * k + m] = m;
        double q = 0;
        for (int64_t t = p->indptr[i]; t < p->indptr[i + 1]; t++)
            q += p->data[t] * p->data[t];
        QD[i] = q;
        active_size_i[i] = k;
        y_index[i] = p->y[i];
        index[i] = i;
    }

    while (iter < max_iter) {
        double stopping = -INFINITY;
        for (i = 0; i < active_size; i++) {
            int64_t j = i + jr_next_int(seed, (int32_t)(active_size - i));
            swap_i64(index, i, j);
        }
        for (s = 0; s < active_size; s++) {
            i = index[s];
            const double Ai = QD[i];
            double *alpha_i = alpha + i * k;
            int *alpha_index_i = alpha_index + i * k;
            const int yi = p->y[i];
            if (!(Ai > 0))
                continue;
            int active = active_size_i[i];
            for (m = 0; m < active; m++)
                G[m] = 1;
            if (y_index[i] < active)
                G[y_index[i]] = 0;
            for (int64_t t = p->indptr[i]; t < p->indptr[i + 1]; t++) {
                const double *w_f = w + (int64_t)p->indices[t] * k;
                const double v = p->data[t];
                for (m = 0; m < active; m++)
                    G[m] += w_f[alpha_index_i[m]] * v;
            }
            double minG = INFINITY, maxG = -INFINITY;
            for (m = 0; m < active; m++) {
                if (alpha_i[alpha_index_i[m]] < 0 && G[m] < minG)
                    minG = G[m];
                if (G[m] > maxG)
                    maxG = G[m];
            }
            if (y_index[i] < active && alpha_i[yi] < p->C && G[y_index[i]] < minG)
                minG = G[y_index[i]];

            for (m = 0; m < active_size_i[i]; m++) {
                if (!be_shrunk(m, y_index[i], alpha_i[alpha_index_i[m]], minG, p->C, G))
                    continue;
                active_size_i[i]--;
                while (active_size_i[i] > m) {
                    int last = active_size_i[i];
                    if (!be_shrunk(last, y_index[i], alpha_i[alpha_index_i[last]], minG, p->C, G)) {
                        swap_int(alpha_index_i, m, last);
                        swap_double(G, m, last);
                        if (y_index[i] == last)
                            y_index[i] = m;
                        else if (y_index[i] == m)
                            y_index[i] = last;
                        break;
                    }
                    active_size_i[i]--;
                }
            }
            active = active_size_i[i];
            if (active <= 1) {
                active_size--;
                swap_i64(index, s, active_size);
                s--;
                continue;
            }
            if (maxG - minG <= 1e-12)
                continue;
            stopping = java_max(maxG - minG, stopping);

            for (m = 0; m < active; m++)
                B[m] = G[m] - Ai * alpha_i[alpha_index_i[m]];
            solve_sub_problem(Ai, y_index[i], p->C, active, B, D, alpha_new);
            int nz_d = 0;
            for (m = 0; m < active; m++) {
                double d = alpha_new[m] - alpha_i[alpha_index_i[m]];
                alpha_i[alpha_index_i[m]] = alpha_new[m];
                if (fabs(d) >= 1e-12) {
                    d_ind[nz_d] = alpha_index_i[m];
                    d_val[nz_d] = d;
                    nz_d++;
                }
            }
            for (int64_t t = p->indptr[i]; t < p->indptr[i + 1]; t++) {
                double *w_f = w + (int64_t)p->indices[t] * k;
                const double v = p->data[t];
                for (m = 0; m < nz_d; m++)
                    w_f[d_ind[m]] += d_val[m] * v;
            }
        }
        iter++;

        PyEval_RestoreThread(*released);
        int interrupted = PyErr_CheckSignals() != 0;
        *released = PyEval_SaveThread();
        if (interrupted) {
            status = 1;
            goto done;
        }

        if (stopping < eps_shrink) {
            if (stopping < eps && start_from_all)
                break;
            active_size = l;
            for (i = 0; i < l; i++)
                active_size_i[i] = k;
            eps_shrink = eps_shrink / 2 > eps ? eps_shrink / 2 : eps;
            start_from_all = 1;
        } else {
            start_from_all = 0;
        }
    }
done:
    free(alpha);
    free(alpha_index);
    free(index);
    free(QD);
    free(y_index);
    free(active_size_i);
    free(G);
    free(B);
    free(D);
    free(alpha_new);
    free(d_ind);
    free(d_val);
    return status;
}

/* solve() for the Python module: a plain function, so that the AVX2 clone's resolver stays local. */
int liblinear_solve(const Problem *p, double eps, int64_t max_iter, int64_t *seed, double *w, int64_t n_features,
                    PyThreadState **released)
{
    return solve(p, eps, max_iter, seed, w, n_features, released);
}
