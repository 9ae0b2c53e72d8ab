/* The Python module maltpy.graph._mst: MSTParser 0.5's feature templates, in C for speed
   (maltpy/graph/features.py says what they are; _mst_templates.c enumerates them).

   Four things come out: the keys of a tree's parts (learning builds the alphabet from the gold
   trees'), the feature numbers of a tree's parts (MIRA's feature vectors), the feature numbers of
   every arc and every label of a sentence as compressed rows (learning keeps them across its
   passes), and the scores of every sibling part (second order, computed from the weights each
   time; there are n^3 of them). */

#include "_mst.h"

/* --- Python ------------------------------------------------------------------------------------------- */

typedef struct {
    Py_buffer b[10];
    int n;
} Buffers;

static void release(Buffers *bs)
{
    for (int i = 0; i < bs->n; i++)
        PyBuffer_Release(&bs->b[i]);
    bs->n = 0;
}

static void *get(Buffers *bs, PyObject *o, Py_ssize_t item, Py_ssize_t *count, int writable)
{
    Py_buffer *b = &bs->b[bs->n];
    if (PyObject_GetBuffer(o, b, PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0)) < 0)
        return NULL;
    bs->n++;
    if (b->len % item) {
        PyErr_SetString(PyExc_ValueError, "an array of the wrong item size");
        return NULL;
    }
    *count = b->len / item;
    return b->buf;
}

/* sentence = (atoms: uint64 N x 4 [form, lemma, cpos, pos], fptr: int64 N + 1, fval: uint64,
   specials: uint64 5 [STR, END, MID, STPOS, STWRD]) */
static int sentence(Buffers *bs, PyObject *o, Sent *s)
{
    PyObject *atoms, *fptr, *fval, *specials;
    if (!PyArg_ParseTuple(o, "OOOO", &atoms, &fptr, &fval, &specials))
        return -1;
    Py_ssize_t na, np, nv, ns;
    const u64 *a = get(bs, atoms, 8, &na, 0);
    if (!a)
        return -1;
    s->fptr = get(bs, fptr, 8, &np, 0);
    if (!s->fptr)
        return -1;
    s->fval = get(bs, fval, 8, &nv, 0);
    if (!s->fval)
        return -1;
    const u64 *sp = get(bs, specials, 8, &ns, 0);
    if (!sp)
        return -1;
    Py_ssize_t N = na / 4;
    if (N < 1 || na != 4 * N || np != N + 1 || ns != 5 || s->fptr[0] != 0 || s->fptr[N] != nv) {
        PyErr_SetString(PyExc_ValueError, "a sentence's arrays do not fit together");
        return -1;
    }
    for (Py_ssize_t i = 0; i < N; i++)
        if (s->fptr[i + 1] < s->fptr[i]) {
            PyErr_SetString(PyExc_ValueError, "a sentence's FEATS offsets go down");
            return -1;
        }
    s->N = N;
    s->form = a;
    s->lemma = a + N;
    s->cpos = a + 2 * N;
    s->pos = a + 3 * N;
    s->STR = sp[0];
    s->END = sp[1];
    s->MID = sp[2];
    s->STPOS = sp[3];
    s->STWRD = sp[4];
    return 0;
}

static int table(Buffers *bs, PyObject *to, Sink *k)
{
    Py_ssize_t n;
    k->table = get(bs, to, 16, &n, 0);
    if (!k->table)
        return -1;
    if (n < 2 || (n & (n - 1))) {
        PyErr_SetString(PyExc_ValueError, "a feature table's size is not a power of two");
        return -1;
    }
    k->mask = (u64)n - 1;
    return 0;
}

static int tree_args(Buffers *bs, PyObject *ho, PyObject *lo, const Sent *s, const int64_t **heads,
                     const u64 **labels)
{
    Py_ssize_t nh, nl;
    *heads = get(bs, ho, 8, &nh, 0);
    if (!*heads)
        return -1;
    *labels = get(bs, lo, 8, &nl, 0);
    if (!*labels)
        return -1;
    if (nh != s->N || nl != s->N) {
        PyErr_SetString(PyExc_ValueError, "heads or labels of another length than the sentence");
        return -1;
    }
    for (Py_ssize_t c = 1; c < s->N; c++)
        if ((*heads)[c] < 0 || (*heads)[c] >= s->N || (*heads)[c] == c) {
            PyErr_SetString(PyExc_ValueError, "a head out of the sentence");
            return -1;
        }
    return 0;
}

static PyObject *array_of(Sink *k)
{
    Py_ssize_t size = k->mode == KEYS ? 8 : 4;
    PyObject *out = PyBytes_FromStringAndSize(k->mode == KEYS ? (char *)k->keys : (char *)k->nums, k->len * size);
    free(k->keys);
    free(k->nums);
    return out;
}

PyDoc_STRVAR(tree_parts_doc,
    "tree_parts(sentence, heads, labels, parts, table) -> bytes: the features of the tree's parts (1: its arcs\n"
    "and labels, 2: its sibling parts, 3: both), once each time one fires: with table None their keys\n"
    "(uint64), else their feature numbers in the table (int32; MIRA's feature vector).");

static PyObject *py_tree_parts(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *so, *ho, *lo, *to;
    int parts;
    if (!PyArg_ParseTuple(args, "OOOiO", &so, &ho, &lo, &parts, &to))
        return NULL;
    Buffers bs = {.n = 0};
    Sent s;
    const int64_t *heads;
    const u64 *labels;
    PyObject *out = NULL;
    Sink k = {.mode = to == Py_None ? KEYS : NUMBERS};
    if (sentence(&bs, so, &s) < 0 || tree_args(&bs, ho, lo, &s, &heads, &labels) < 0 ||
        (to != Py_None && table(&bs, to, &k) < 0))
        goto done;
    Py_BEGIN_ALLOW_THREADS
    mst_tree(&k, &s, heads, labels, parts);
    mst_flush(&k);
    Py_END_ALLOW_THREADS
    if (k.oom) {
        free(k.keys);
        free(k.nums);
        PyErr_NoMemory();
        goto done;
    }
    out = array_of(&k);
done:
    release(&bs);
    return out;
}

PyDoc_STRVAR(rows_doc,
    "rows(sentence, label_atoms, table) -> (arc_ptr, label_ptr, numbers): the feature numbers of\n"
    "every arc h -> c (row h * N + c; empty for c = 0 or h = c) and of every label side (row\n"
    "((w * L + t) * 2 + head_left) * 2 + is_child, head_left 1 when the arc's head is left of its\n"
    "child), as int64 row offsets (N * N + 1, then N * L * 4 + 1, the second continuing the first)\n"
    "into one int32 array of numbers.");

static PyObject *py_rows(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *so, *lo, *to;
    if (!PyArg_ParseTuple(args, "OOO", &so, &lo, &to))
        return NULL;
    Buffers bs = {.n = 0};
    Sent s;
    Py_ssize_t L;
    PyObject *out = NULL, *arc_ptr = NULL, *label_ptr = NULL, *numbers = NULL;
    Sink k = {.mode = NUMBERS};
    if (sentence(&bs, so, &s) < 0 || table(&bs, to, &k) < 0)
        goto done;
    const u64 *label_atoms = get(&bs, lo, 8, &L, 0);
    if (!label_atoms)
        goto done;
    Py_ssize_t N = s.N, arcs = N * N, sides = N * L * 4;
    arc_ptr = PyBytes_FromStringAndSize(NULL, (arcs + 1) * 8);
    label_ptr = PyBytes_FromStringAndSize(NULL, (sides + 1) * 8);
    if (!arc_ptr || !label_ptr)
        goto done;
    int64_t *ap = (int64_t *)PyBytes_AS_STRING(arc_ptr), *lp = (int64_t *)PyBytes_AS_STRING(label_ptr);
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t h = 0; h < N; h++)
        for (Py_ssize_t c = 0; c < N; c++) {
            mst_flush(&k);
            ap[h * N + c] = k.len;
            if (c > 0 && h != c)
                mst_arc(&k, &s, h, c);
        }
    mst_flush(&k);
    ap[arcs] = k.len;
    for (Py_ssize_t w = 0; w < N; w++)
        for (Py_ssize_t t = 0; t < L; t++)
            for (int left = 0; left < 2; left++)
                for (int child = 0; child < 2; child++) {
                    mst_flush(&k);
                    lp[((w * L + t) * 2 + left) * 2 + child] = k.len;
                    mst_label_side(&k, &s, w, label_atoms[t], left, child);
                }
    mst_flush(&k);
    lp[sides] = k.len;
    Py_END_ALLOW_THREADS
    if (k.oom) {
        free(k.nums);
        PyErr_NoMemory();
        goto done;
    }
    numbers = array_of(&k);
    if (numbers)
        out = PyTuple_Pack(3, arc_ptr, label_ptr, numbers);
done:
    Py_XDECREF(arc_ptr);
    Py_XDECREF(label_ptr);
    Py_XDECREF(numbers);
    release(&bs);
    return out;
}

PyDoc_STRVAR(scores_doc,
    "scores(sentence, label_atoms, table, weights, arcs, sides): the sums rows() and sums() give, without\n"
    "keeping the feature numbers: arcs (float64 N * N) and sides (float64 N * L * 4), laid out as rows'.");

static PyObject *py_scores(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *so, *lo, *to, *wo, *ao, *sdo;
    if (!PyArg_ParseTuple(args, "OOOOOO", &so, &lo, &to, &wo, &ao, &sdo))
        return NULL;
    Buffers bs = {.n = 0};
    Sent s;
    Py_ssize_t L, nw, na, nsd;
    PyObject *out = NULL;
    Sink k = {.mode = SCORE};
    if (sentence(&bs, so, &s) < 0 || table(&bs, to, &k) < 0)
        goto done;
    const u64 *label_atoms = get(&bs, lo, 8, &L, 0);
    k.w = label_atoms ? get(&bs, wo, 8, &nw, 0) : NULL;
    double *arcs = k.w ? get(&bs, ao, 8, &na, 1) : NULL;
    double *sides = arcs ? get(&bs, sdo, 8, &nsd, 1) : NULL;
    if (!sides)
        goto done;
    Py_ssize_t N = s.N;
    if (na != N * N || nsd != N * L * 4) {
        PyErr_SetString(PyExc_ValueError, "scores of another size than the sentence's");
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t h = 0; h < N; h++)
        for (Py_ssize_t c = 0; c < N; c++) {
            k.acc = 0;
            if (c > 0 && h != c) {
                mst_arc(&k, &s, h, c);
                mst_flush(&k);
            }
            arcs[h * N + c] = k.acc;
        }
    for (Py_ssize_t w = 0; w < N; w++)
        for (Py_ssize_t t = 0; t < L; t++)
            for (int left = 0; left < 2; left++)
                for (int child = 0; child < 2; child++) {
                    k.acc = 0;
                    mst_label_side(&k, &s, w, label_atoms[t], left, child);
                    mst_flush(&k);
                    sides[((w * L + t) * 2 + left) * 2 + child] = k.acc;
                }
    Py_END_ALLOW_THREADS
    out = Py_None;
    Py_INCREF(out);
done:
    release(&bs);
    return out;
}

PyDoc_STRVAR(sums_doc,
    "sums(ptr, numbers, weights, out): out[r] = the sum of weights[numbers[i]] for ptr[r] <= i < ptr[r + 1]\n"
    "(ptr int64, numbers int32, weights and out float64; numbers are not checked: the caller's).");

static PyObject *py_sums(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *po, *no, *wo, *oo;
    if (!PyArg_ParseTuple(args, "OOOO", &po, &no, &wo, &oo))
        return NULL;
    Buffers bs = {.n = 0};
    Py_ssize_t np, nn, nw, no_;
    PyObject *out = NULL;
    const int64_t *ptr = get(&bs, po, 8, &np, 0);
    const int32_t *nums = ptr ? get(&bs, no, 4, &nn, 0) : NULL;
    const double *w = nums ? get(&bs, wo, 8, &nw, 0) : NULL;
    double *o = w ? get(&bs, oo, 8, &no_, 1) : NULL;
    if (!o)
        goto done;
    if (np != no_ + 1 || ptr[0] < 0 || ptr[no_] > nn) {
        PyErr_SetString(PyExc_ValueError, "rows that do not fit their numbers");
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t r = 0; r < no_; r++) {
        double acc = 0;
        for (int64_t i = ptr[r]; i < ptr[r + 1]; i++)
            acc += w[nums[i]];
        o[r] = acc;
    }
    Py_END_ALLOW_THREADS
    out = Py_None;
    Py_INCREF(out);
done:
    release(&bs);
    return out;
}

PyDoc_STRVAR(sibling_scores_doc,
    "sibling_scores(sentence, table, weights, out, pairs): out (float64 N x N x N) [h, s, c] = the score of\n"
    "c as h's next child after s on the same side (s == h: its first), for s between h and c or s == h;\n"
    "other entries are left as they are. With pairs (N x N x 2, not None), MSTParser's two parts apart:\n"
    "out the trip features' score, pairs [s, c, k] the sibling pair's, k = 0 for c the closest dependent\n"
    "of its head s, 1 for c after its sibling s (for every s != c, c >= 1).");

static PyObject *py_sibling_scores(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *so, *to, *wo, *oo, *po;
    if (!PyArg_ParseTuple(args, "OOOOO", &so, &to, &wo, &oo, &po))
        return NULL;
    Buffers bs = {.n = 0};
    Sent s;
    Sink k = {.mode = SCORE};
    Py_ssize_t nw, no_, np_ = 0;
    PyObject *out = NULL;
    if (sentence(&bs, so, &s) < 0 || table(&bs, to, &k) < 0)
        goto done;
    k.w = get(&bs, wo, 8, &nw, 0);
    double *o = k.w ? get(&bs, oo, 8, &no_, 1) : NULL;
    double *pairs = o && po != Py_None ? get(&bs, po, 8, &np_, 1) : NULL;
    if (!o || (po != Py_None && !pairs))
        goto done;
    Py_ssize_t N = s.N;
    if (no_ != N * N * N || (pairs && np_ != N * N * 2)) {
        PyErr_SetString(PyExc_ValueError, "sibling scores of another size than the sentence's");
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t h = 0; h < N; h++)
        for (Py_ssize_t c = 1; c < N; c++) {
            if (c == h)
                continue;
            Py_ssize_t lo = h < c ? h : c + 1, hi = h < c ? c - 1 : h;
            for (Py_ssize_t p = lo; p <= hi; p++) {
                k.acc = 0;
                if (pairs)
                    mst_trip(&k, &s, h, p, c);
                else
                    mst_sibling_part(&k, &s, h, p, c);
                mst_flush(&k);
                o[(h * N + p) * N + c] = k.acc;
            }
            for (int first = 0; pairs && first < 2; first++) { /* [h, c, 0]: c first under h; 1: c after h */
                k.acc = 0;
                mst_sib(&k, &s, h, c, !first);
                mst_flush(&k);
                pairs[(h * N + c) * 2 + first] = k.acc;
            }
        }
    Py_END_ALLOW_THREADS
    out = Py_None;
    Py_INCREF(out);
done:
    release(&bs);
    return out;
}

PyDoc_STRVAR(build_table_doc,
    "build_table(keys, table): fill the hash table (uint64, 2 x a power of two at least twice the keys,\n"
    "zero) with keys[i] -> i; keys distinct and nonzero.");

static PyObject *py_build_table(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *ko, *to;
    if (!PyArg_ParseTuple(args, "OO", &ko, &to))
        return NULL;
    Buffers bs = {.n = 0};
    Py_ssize_t nk, nt;
    PyObject *out = NULL;
    const u64 *keys = get(&bs, ko, 8, &nk, 0);
    u64 *t = keys ? get(&bs, to, 16, &nt, 1) : NULL;
    if (!t)
        goto done;
    if (nt < 2 * nk || (nt & (nt - 1)) || nk > INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "a feature table too small or not a power of two");
        goto done;
    }
    u64 mask = (u64)nt - 1;
    for (Py_ssize_t i = 0; i < nk; i++) {
        u64 key = keys[i];
        if (key == 0) {
            PyErr_SetString(PyExc_ValueError, "a feature key of 0");
            goto done;
        }
        u64 j = (key * 0xD6E8FEB86659FD93ULL) >> 7 & mask;
        while (t[2 * j] != 0 && t[2 * j] != key)
            j = (j + 1) & mask;
        if (t[2 * j] == key) {
            PyErr_SetString(PyExc_ValueError, "a feature key twice");
            goto done;
        }
        t[2 * j] = key;
        t[2 * j + 1] = (u64)i;
    }
    out = Py_None;
    Py_INCREF(out);
done:
    release(&bs);
    return out;
}

PyDoc_STRVAR(gather_doc,
    "gather(arc_ptr, label_ptr, numbers, heads, labels, label_count) -> bytes of int32: the feature numbers\n"
    "of the tree's arcs and label sides (tree_numbers' first-order parts, in its order) read from a\n"
    "sentence's rows (heads, labels: int64 N, labels as label numbers).");

static PyObject *py_gather(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *ao, *lo, *no, *ho, *bo;
    Py_ssize_t L;
    if (!PyArg_ParseTuple(args, "OOOOOn", &ao, &lo, &no, &ho, &bo, &L))
        return NULL;
    Buffers bs = {.n = 0};
    Py_ssize_t na, nl, nn, nh, nb;
    PyObject *out = NULL;
    const int64_t *ap = get(&bs, ao, 8, &na, 0);
    const int64_t *lp = ap ? get(&bs, lo, 8, &nl, 0) : NULL;
    const int32_t *nums = lp ? get(&bs, no, 4, &nn, 0) : NULL;
    const int64_t *heads = nums ? get(&bs, ho, 8, &nh, 0) : NULL;
    const int64_t *labels = heads ? get(&bs, bo, 8, &nb, 0) : NULL;
    if (!labels)
        goto done;
    Py_ssize_t N = nh;
    if (nb != N || na != N * N + 1 || L < 1 || nl != N * L * 4 + 1 || ap[N * N] > nn || lp[N * L * 4] > nn) {
        PyErr_SetString(PyExc_ValueError, "a tree that does not fit its rows");
        goto done;
    }
    for (Py_ssize_t c = 1; c < N; c++)
        if (heads[c] < 0 || heads[c] >= N || heads[c] == c || labels[c] < 0 || labels[c] >= L) {
            PyErr_SetString(PyExc_ValueError, "a head or label out of range");
            goto done;
        }
    Py_ssize_t len = 0;
    int64_t spans[3][2];
    for (int pass = 0; pass < 2; pass++) {
        int32_t *o = pass ? (int32_t *)PyBytes_AS_STRING(out) : NULL;
        for (Py_ssize_t c = 1, at = 0; c < N; c++) {
            Py_ssize_t h = heads[c], t = labels[c], left = h < c;
            spans[0][0] = ap[h * N + c];
            spans[0][1] = ap[h * N + c + 1];
            spans[1][0] = lp[((c * L + t) * 2 + left) * 2 + 1];
            spans[1][1] = lp[((c * L + t) * 2 + left) * 2 + 2];
            spans[2][0] = lp[((h * L + t) * 2 + left) * 2];
            spans[2][1] = lp[((h * L + t) * 2 + left) * 2 + 1];
            for (int i = 0; i < 3; i++) {
                if (o)
                    memcpy(o + at, nums + spans[i][0], (spans[i][1] - spans[i][0]) * 4);
                at += spans[i][1] - spans[i][0];
            }
            len = at;
        }
        if (!pass && !(out = PyBytes_FromStringAndSize(NULL, len * 4)))
            goto done;
    }
done:
    release(&bs);
    return out;
}

PyDoc_STRVAR(difference_doc,
    "difference(gold, other, scratch) -> (numbers, values): gold's feature vector minus other's (int32\n"
    "feature numbers, each once per firing) merged, features of value 0 left out, in the order of\n"
    "their first firing (gold's, then other's); scratch: float64, one per feature, zero, left zero.");

static PyObject *py_difference(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *go, *oo, *so;
    if (!PyArg_ParseTuple(args, "OOO", &go, &oo, &so))
        return NULL;
    Buffers bs = {.n = 0};
    Py_ssize_t ng, no_, ns;
    PyObject *out = NULL, *numbers = NULL, *values = NULL;
    const int32_t *g = get(&bs, go, 4, &ng, 0);
    const int32_t *o = g ? get(&bs, oo, 4, &no_, 0) : NULL;
    double *scratch = o ? get(&bs, so, 8, &ns, 1) : NULL;
    if (!scratch)
        goto done;
    for (Py_ssize_t i = 0; i < ng; i++)
        if (g[i] < 0 || g[i] >= ns)
            goto range;
    for (Py_ssize_t i = 0; i < no_; i++)
        if (o[i] < 0 || o[i] >= ns)
            goto range;
    numbers = PyBytes_FromStringAndSize(NULL, (ng + no_) * 4);
    values = PyBytes_FromStringAndSize(NULL, (ng + no_) * 8);
    if (!numbers || !values)
        goto done;
    int32_t *nums = (int32_t *)PyBytes_AS_STRING(numbers);
    double *vals = (double *)PyBytes_AS_STRING(values);
    Py_ssize_t len = 0;
    for (Py_ssize_t i = 0; i < ng; i++)
        scratch[g[i]] += 1;
    for (Py_ssize_t i = 0; i < no_; i++)
        scratch[o[i]] -= 1;
    for (Py_ssize_t i = 0; i < ng + no_; i++) {
        int32_t f = i < ng ? g[i] : o[i - ng];
        if (scratch[f] != 0) {
            nums[len] = f;
            vals[len++] = scratch[f];
            scratch[f] = 0;
        }
    }
    if (_PyBytes_Resize(&numbers, len * 4) < 0 || _PyBytes_Resize(&values, len * 8) < 0)
        goto done;
    out = PyTuple_Pack(2, numbers, values);
    goto done;
range:
    PyErr_SetString(PyExc_ValueError, "a feature number out of range");
done:
    Py_XDECREF(numbers);
    Py_XDECREF(values);
    release(&bs);
    return out;
}

static PyMethodDef methods[] = {
    {"tree_parts", py_tree_parts, METH_VARARGS, tree_parts_doc},
    {"rows", py_rows, METH_VARARGS, rows_doc},
    {"sums", py_sums, METH_VARARGS, sums_doc},
    {"scores", py_scores, METH_VARARGS, scores_doc},
    {"sibling_scores", py_sibling_scores, METH_VARARGS, sibling_scores_doc},
    {"build_table", py_build_table, METH_VARARGS, build_table_doc},
    {"gather", py_gather, METH_VARARGS, gather_doc},
    {"difference", py_difference, METH_VARARGS, difference_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_mst", "MSTParser 0.5's feature templates.", -1,
                                    methods, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__mst(void) { return PyModule_Create(&module); }
