/* The Python module maltpy.learners._liblinear: LIBLINEAR's multi-class SVM of Crammer and Singer
   (``-s 4``, MaltParser's default learner) as MaltParser 1.9.2 trains it, the solver in
   _liblinear_solve.c.

   train(indptr, indices, data, y, n_classes, n_features, C, eps, max_iter, seed)
     -> (weights, seed): weights is a float64 buffer of n_features * n_classes, row major by
   feature. The arrays are copied, then checked, before training; the GIL is released while
   training, and Ctrl-C is noticed once per sweep.

   Weights(w_indptr, w_indices, w_data, dense_of, dense, k).scores(indptr, indices, data, out)
   scores instances with trained weights, copied and checked once when the Weights is made. */

#include "_liblinear.h"

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
    int status = liblinear_solve(&p, eps, max_iter, &state, (double *)PyBytes_AS_STRING(weights), n_features,
                                 &released);
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
