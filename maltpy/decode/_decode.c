/* The Python module maltpy.decode._decode: the maximum spanning tree decoders of
   maltpy/decode/__init__.py, in C for speed; _decode.h says which unit holds which. */

#include "_decode.h"

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
Py_ssize_t decode_check_arcs(const double *S, Py_ssize_t N, double *largest)
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
int decode_shift_for(double largest, Py_ssize_t N)
{
    double limit = DBL_MAX / (4.0 * (double)N);
    int shift = 0;
    if (largest > limit)
        frexp(largest / limit, &shift);
    return shift;
}


/* --- Python ------------------------------------------------------------------------------------- */

/* Decodes one matrix, without the GIL; 0, -1 when out of memory, or 1 with *bad_arc (h * N + d)
   the first score read that is not finite. */
static int run(const double *scores, int64_t *heads, Py_ssize_t N, int projective, int one_root, int mstparser,
               Py_ssize_t *bad_arc)
{
    Work k;
    int status;
    double largest = 0.0;
    *bad_arc = decode_check_arcs(scores, N, &largest);
    if (*bad_arc >= 0)
        return 1;
    int shift = decode_shift_for(largest, N);
    if (reserve(&k, N, projective) < 0)
        return -1;
    status = 0;
    if (projective)
        status = decode_eisner(&k, scores, N, shift, one_root, heads);
    else if (mstparser && !one_root)
        decode_mst_mstparser(&k, scores, N, shift, heads);
    else
        decode_mst(&k, scores, N, shift, one_root, heads);
    release(&k);
    return status;
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
    status = decode_run2(v[0].buf, NULL, v[1].buf, NULL, v[2].buf, N, 1, !projective, one_root, &bad);
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
    status = decode_run2(v[0].buf, v[1].buf, v[2].buf, P, v[4].buf, N, 0, 1, one_root, &bad);
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
    result = PyFloat_FromDouble(decode_tree_score2(v[0].buf, v[1].buf, N, 1.0, heads, last));
    free(last);
done:
    release_buffers(v, 3);
    return result;
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
    found = decode_kbest(S, N, K, views[1].buf);
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
