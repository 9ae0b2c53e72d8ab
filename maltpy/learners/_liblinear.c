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
     a * b + c into a fused multiply-add, which Java never does.

   train(indptr, indices, data, y, n_classes, n_features, C, eps, max_iter, seed)
     -> (weights, seed): weights is a float64 buffer of n_features * n_classes, row major by
   feature. The arrays are copied, then checked, before training; the GIL is released while
   training, and Ctrl-C is noticed once per sweep.

   Weights(w_indptr, w_indices, w_data, dense_of, dense, k).scores(indptr, indices, data, out)
   scores instances with trained weights, copied and checked once when the Weights is made. */

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
#error "MaltParser's LIBLINEAR weights need IEEE arithmetic: build without -ffast-math"
#endif

/* java.util.Random: a 48-bit linear congruential generator. */
#define JR_MULTIPLIER 0x5DEECE66DLL
#define JR_ADDEND 0xBLL
#define JR_MASK ((1LL << 48) - 1)

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

typedef struct {
    const int64_t *indptr;
    const int32_t *indices;
    const double *data;
    const int32_t *y;
    int64_t l;
    int k;
    double C;
} Problem;

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

static int get_buffer(PyObject *obj, Py_buffer *view, const char *format, Py_ssize_t itemsize, const char *name)
{
    if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0)
        return -1;
    const char *f = view->format;
    if (*f == '@' || *f == '=' || *f == '<')
        f++;
    if (view->itemsize != itemsize || view->ndim != 1 || strlen(f) != 1 || !strchr(format, *f)) {
        PyErr_Format(PyExc_TypeError, "%s: expected a 1-d buffer of %zd-byte items of format '%s'", name, itemsize, format);
        PyBuffer_Release(view);
        view->obj = NULL;
        return -1;
    }
    return 0;
}

PyDoc_STRVAR(train_doc,
    "train(indptr, indices, data, y, n_classes, n_features, C, eps, max_iter, seed) -> (weights, seed)\n\n"
    "Crammer-Singer training as MaltParser's LIBLINEAR 1.8 does it. indptr: int64 (l + 1),\n"
    "indices: int32, data: float64 (CSR rows, columns ascending within a row), y: int32 classes\n"
    "0..n_classes-1, grouped by class in order; seed: java.util.Random's 48-bit state.\n"
    "weights: bytes of n_features * n_classes float64, by feature then class.");

/* A private copy of a buffer's bytes: what is checked is what is used, whatever the caller
   does to its arrays while the GIL is released. */
static void *copy_of(const Py_buffer *b)
{
    void *copy = malloc((size_t)b->len + 1);
    if (copy)
        memcpy(copy, b->buf, (size_t)b->len);
    return copy;
}

static PyObject *py_train(PyObject *Py_UNUSED(self), PyObject *args)
{
    PyObject *o_indptr, *o_indices, *o_data, *o_y;
    int k;
    long long n_features, max_iter, seed;
    double C, eps;
    if (!PyArg_ParseTuple(args, "OOOOiLddLL", &o_indptr, &o_indices, &o_data, &o_y, &k, &n_features, &C, &eps,
                          &max_iter, &seed))
        return NULL;
    Py_buffer b_indptr = {0}, b_indices = {0}, b_data = {0}, b_y = {0};
    PyObject *result = NULL, *weights = NULL;
    int64_t *indptr = NULL;
    int32_t *indices = NULL, *y = NULL;
    double *data = NULL;
    if (get_buffer(o_indptr, &b_indptr, "ql", 8, "indptr") < 0 || get_buffer(o_indices, &b_indices, "il", 4, "indices") < 0 ||
        get_buffer(o_data, &b_data, "d", 8, "data") < 0 || get_buffer(o_y, &b_y, "il", 4, "y") < 0)
        goto out;
    indptr = copy_of(&b_indptr);
    indices = copy_of(&b_indices);
    data = copy_of(&b_data);
    y = copy_of(&b_y);
    if (!indptr || !indices || !data || !y) {
        PyErr_NoMemory();
        goto out;
    }

    /* Everything the solver will index is checked here, once, on the copies. */
    int64_t l = (int64_t)(b_y.len / 4);
    int64_t nnz = (int64_t)(b_indices.len / 4);
    if (k < 1 || n_features < 0 || n_features > INT32_MAX || b_indptr.len / 8 != l + 1 || b_data.len / 8 != nnz ||
        indptr[0] != 0 || indptr[l] != nnz || !(C > 0) || !(eps > 0) || max_iter < 0 || l > INT32_MAX ||
        (double)l * k * 8 > (double)PY_SSIZE_T_MAX / 2 || (double)n_features * k * 8 > (double)PY_SSIZE_T_MAX / 2) {
        PyErr_SetString(PyExc_ValueError, "train: inconsistent problem");
        goto out;
    }
    for (int64_t i = 0; i < l; i++) {
        if (indptr[i + 1] < indptr[i] || indptr[i + 1] > nnz || y[i] < 0 || y[i] >= k || (i > 0 && y[i] < y[i - 1])) {
            PyErr_SetString(PyExc_ValueError, "train: rows or classes out of order");
            goto out;
        }
    }
    for (int64_t i = 0; i < l; i++) {
        for (int64_t t = indptr[i]; t < indptr[i + 1]; t++) {
            if (indices[t] < 0 || indices[t] >= n_features || (t > indptr[i] && indices[t] <= indices[t - 1])) {
                PyErr_SetString(PyExc_ValueError, "train: columns out of range or not ascending");
                goto out;
            }
        }
    }
    for (int64_t t = 0; t < nnz; t++) {
        if (!(fabs(data[t]) <= 1e100)) { /* NaN fails too */
            PyErr_SetString(PyExc_ValueError, "train: a feature value is not a finite number below 1e100");
            goto out;
        }
    }
    weights = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(n_features * k * 8));
    if (!weights)
        goto out;
    Problem p = {indptr, indices, data, y, l, k, C};
    int64_t state = (int64_t)((uint64_t)seed & (uint64_t)JR_MASK);
    PyThreadState *released = PyEval_SaveThread();
    int status = solve(&p, eps, max_iter, &state, (double *)PyBytes_AS_STRING(weights), n_features, &released);
    PyEval_RestoreThread(released);
    if (status < 0) {
        PyErr_NoMemory();
        goto out;
    }
    if (status > 0)
        goto out;
    result = Py_BuildValue("OL", weights, (long long)state);
out:
    Py_XDECREF(weights);
    free(indptr);
    free(indices);
    free(data);
    free(y);
    if (b_indptr.obj)
        PyBuffer_Release(&b_indptr);
    if (b_indices.obj)
        PyBuffer_Release(&b_indices);
    if (b_data.obj)
        PyBuffer_Release(&b_data);
    if (b_y.obj)
        PyBuffer_Release(&b_y);
    return result;
}

/* The weights of a trained classifier, for scoring: a private copy, checked once when it is made,
   so that a call scores its rows without looking at the whole model again (a long sentence is
   scored one configuration at a time). */
typedef struct {
    PyObject_HEAD
    int64_t features, k, n_dense;
    int64_t *w_indptr;
    int32_t *w_indices, *dense_of;
    double *w_data, *dense;
} Weights;

static void Weights_dealloc(Weights *self)
{
    free(self->w_indptr);
    free(self->w_indices);
    free(self->dense_of);
    free(self->w_data);
    free(self->dense);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int Weights_init(Weights *self, PyObject *args, PyObject *kwds)
{
    (void)kwds;
    PyObject *o[5];
    long long k;
    static const char *formats[5] = {"ql", "il", "d", "il", "d"};
    static const Py_ssize_t sizes[5] = {8, 4, 8, 4, 8};
    static const char *names[5] = {"w_indptr", "w_indices", "w_data", "dense_of", "dense"};
    Py_buffer b[5] = {{0}};
    void *copies[5] = {NULL};
    int status = -1;
    if (self->w_indptr) {
        PyErr_SetString(PyExc_TypeError, "Weights is already initialised");
        return -1;
    }
    if (!PyArg_ParseTuple(args, "OOOOOL", &o[0], &o[1], &o[2], &o[3], &o[4], &k))
        return -1;
    for (int n = 0; n < 5; n++)
        if (get_buffer(o[n], &b[n], formats[n], sizes[n], names[n]) < 0)
            goto done;
    int64_t features = b[0].len / 8 - 1, w_nnz = b[1].len / 4;
    if (features < 0 || k < 0 || b[2].len / 8 != w_nnz || b[3].len / 4 != features || (k > 0 && b[4].len / 8 % k != 0)) {
        PyErr_SetString(PyExc_ValueError, "Weights: inconsistent arrays");
        goto done;
    }
    const int64_t *w_indptr = b[0].buf;
    const int32_t *w_indices = b[1].buf, *dense_of = b[3].buf;
    int64_t n_dense = k > 0 ? (int64_t)(b[4].len / 8) / k : 0;
    const char *bad = w_indptr[0] != 0 || w_indptr[features] != w_nnz ? "Weights: inconsistent arrays" : NULL;
    for (int64_t j = 0; j < features && !bad; j++)
        if (w_indptr[j + 1] < w_indptr[j])
            bad = "Weights: weight pointers out of order";
        else if (dense_of[j] < -1 || dense_of[j] >= n_dense)
            bad = "Weights: a dense row out of range";
    for (int64_t t = 0; t < w_nnz && !bad; t++)
        if (w_indices[t] < 0 || w_indices[t] >= k)
            bad = "Weights: a class out of range";
    if (bad) {
        PyErr_SetString(PyExc_ValueError, bad);
        goto done;
    }
    for (int n = 0; n < 5; n++)
        if (!(copies[n] = copy_of(&b[n]))) {
            PyErr_NoMemory();
            goto done;
        }
    self->features = features;
    self->k = k;
    self->n_dense = n_dense;
    self->w_indptr = copies[0];
    self->w_indices = copies[1];
    self->w_data = copies[2];
    self->dense_of = copies[3];
    self->dense = copies[4];
    for (int n = 0; n < 5; n++)
        copies[n] = NULL;
    status = 0;
done:
    for (int n = 0; n < 5; n++) {
        free(copies[n]);
        if (b[n].obj)
            PyBuffer_Release(&b[n]);
    }
    return status;
}

PyDoc_STRVAR(Weights_scores_doc,
    "scores(indptr, indices, data, out) -> None\n\n"
    "out[i, m] += x_i . w_m for the CSR rows x (indptr int64, indices int32, data float64); out is a\n"
    "C-contiguous float64 rows x classes (k) array. Each class's sum is taken over the row's entries\n"
    "in their stored order, as a product with the dense weights takes it (the zero weights the\n"
    "sparse rows skip add nothing).");

static PyObject *Weights_scores(Weights *self, PyObject *args)
{
    PyObject *o[3], *o_out;
    if (!self->w_indptr)
        return PyErr_Format(PyExc_TypeError, "Weights is not initialised");
    if (!PyArg_ParseTuple(args, "OOOO", &o[0], &o[1], &o[2], &o_out))
        return NULL;
    static const char *formats[3] = {"ql", "il", "d"};
    static const Py_ssize_t sizes[3] = {8, 4, 8};
    static const char *names[3] = {"indptr", "indices", "data"};
    Py_buffer b[3] = {{0}}, out = {0};
    PyObject *result = NULL;
    for (int n = 0; n < 3; n++)
        if (get_buffer(o[n], &b[n], formats[n], sizes[n], names[n]) < 0)
            goto done;
    if (PyObject_GetBuffer(o_out, &out, PyBUF_C_CONTIGUOUS | PyBUF_WRITABLE | PyBUF_FORMAT) < 0)
        goto done;
    const int64_t *indptr = b[0].buf, *w_indptr = self->w_indptr;
    const int32_t *indices = b[1].buf, *w_indices = self->w_indices, *dense_of = self->dense_of;
    const double *data = b[2].buf, *w_data = self->w_data, *dense = self->dense;
    double *y = out.buf;
    int64_t rows = b[0].len / 8 - 1, nnz = b[1].len / 4, features = self->features, k = self->k;
    const char *f = out.format;
    if (*f == '@' || *f == '=' || *f == '<')
        f++;
    if (rows < 0 || out.ndim != 2 || out.shape[1] != k || strcmp(f, "d") != 0 || out.shape[0] != rows ||
        b[2].len / 8 != nnz || indptr[0] != 0 || indptr[rows] != nnz) {
        PyErr_SetString(PyExc_ValueError, "scores: inconsistent arrays");
        goto done;
    }
    for (int64_t i = 0; i < rows; i++)
        if (indptr[i + 1] < indptr[i]) {
            PyErr_SetString(PyExc_ValueError, "scores: row pointers out of order");
            goto done;
        }
    for (int64_t t = 0; t < nnz; t++)
        if (indices[t] < 0 || indices[t] >= features) {
            PyErr_SetString(PyExc_ValueError, "scores: a column out of range");
            goto done;
        }
    /* the GIL is held: the rows checked are the rows used */
    for (int64_t i = 0; i < rows; i++) {
        double *yi = y + i * k;
        for (int64_t t = indptr[i]; t < indptr[i + 1]; t++) {
            const double x = data[t];
            const int32_t j = indices[t];
            if (dense_of[j] >= 0) {
                const double *row = dense + (int64_t)dense_of[j] * k;
                for (int64_t m = 0; m < k; m++)
                    yi[m] += x * row[m];
            } else {
                for (int64_t u = w_indptr[j]; u < w_indptr[j + 1]; u++)
                    yi[w_indices[u]] += x * w_data[u];
            }
        }
    }
    result = Py_None;
    Py_INCREF(result);
done:
    for (int n = 0; n < 3; n++)
        if (b[n].obj)
            PyBuffer_Release(&b[n]);
    if (out.obj)
        PyBuffer_Release(&out);
    return result;
}

static PyMethodDef Weights_methods[] = {
    {"scores", (PyCFunction)Weights_scores, METH_VARARGS, Weights_scores_doc},
    {NULL, NULL, 0, NULL},
};

PyDoc_STRVAR(Weights_doc,
    "Weights(w_indptr, w_indices, w_data, dense_of, dense, k): a linear model's weights, copied and\n"
    "checked: CSR rows, one per feature (w_indptr int64, w_indices int32 classes 0..k-1, w_data\n"
    "float64), where a feature j with dense_of[j] = d >= 0 (int32) has its weights in\n"
    "dense[d * k : (d + 1) * k] (float64) instead.");

static PyTypeObject WeightsType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "maltpy.learners._liblinear.Weights",
    .tp_basicsize = sizeof(Weights),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = Weights_doc,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Weights_init,
    .tp_dealloc = (destructor)Weights_dealloc,
    .tp_methods = Weights_methods,
};

static PyMethodDef methods[] = {
    {"train", py_train, METH_VARARGS, train_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_liblinear",
                                    "MaltParser's LIBLINEAR training (Crammer-Singer).", -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__liblinear(void)
{
    if (PyType_Ready(&WeightsType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m)
        return NULL;
    Py_INCREF(&WeightsType);
    if (PyModule_AddObject(m, "Weights", (PyObject *)&WeightsType) < 0) {
        Py_DECREF(&WeightsType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
