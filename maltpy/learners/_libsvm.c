/* The Python module maltpy.learners._libsvm: LIBSVM's one-vs-one prediction (svm_predict_values
   in LIBSVM 3.x's svm.cpp) for a batch of instances, in C for speed; _libsvm_votes.c computes
   the votes, with LIBSVM's floating-point operations in LIBSVM's order.

   Svm(...) copies a model's arrays and checks them once; votes(...) checks and copies its
   instances, then counts the votes with the GIL released. read_support_vectors(...) reads the
   support vectors of LIBSVM's model text into those arrays (NumPy took longer to read its
   numbers than the votes take). */

#include "_libsvm.h"

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
                    m->term_pair[t] = (int32_t)(r < c ? libsvm_pair_of(k, r, c) : libsvm_pair_of(k, c, r + 1));
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
    work = libsvm_aligned(sizeof(Work));
    if (work) {
        *work = (Work){.ptr = ptr, .ind = ind, .val = val, .table_finite = 1};
        work->table = table = malloc((size_t)n_table * sizeof(double));
        work->slot = blocks ? calloc((size_t)self->n_features + 1, 1) : NULL;
        work->counts = blocks ? NULL : malloc((size_t)(n_sv + 1) * sizeof(int32_t));
        work->sums = blocks ? libsvm_aligned((size_t)self->n_pairs * sizeof(Lanes)) : NULL;
        work->votes = libsvm_aligned((size_t)k * QUADS * sizeof(Wins));
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
        work->table_finite &= isfinite(table[v] = libsvm_kernel_of(self, (double)v)) != 0;
    for (int64_t r0 = 0; r0 < n && blocks;)
        r0 += libsvm_vote_block(self, work, r0, n, out.buf);
    for (int64_t r = 0; r < n && !blocks; r++) {
        if (work->table_finite && ptr[r + 1] - ptr[r] <= 255 && libsvm_how_found(self, work, r) == COUNTED)
            libsvm_kernel_column_counted(self, work, r, work->counts, work->column);
        else
            libsvm_kernel_column(self, ptr, ind, val, r, work->column);
        memset(work->full, 0, (size_t)k * sizeof(double));
        libsvm_votes_one(self, work->column, work->pair_sums, work->full);
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
