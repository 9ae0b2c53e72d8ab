/* The search behind maltpy's k-NN learner (maltpy/learners/knn.py), in C for speed.

   knn.py defines what TiMBL's IB1 computes: the distance between a test instance and a stored
   one, sum over features of w_f * delta_f (Overlap, or MVDM for values seen at least L times),
   its k nearest distances, the class vote and its ties. Finding those neighbours is a search
   over every stored instance, the one part too slow in NumPy; this file does only that search.

   Index(...).search(queries): for each query, every stored instance whose distance lies within
   the query's k+1 smallest distinct distances (give or take rounding), found by branch and bound
   over the instance base kept as a trie. Its levels are features, in the order knn.py chooses
   (the one that prunes soonest); a node of level l stands for the instances sharing their values
   up to level l, and its children, sorted by value, are contiguous in level l+1. A node with a
   single instance below it is finished on that instance's row, without descending. A child is not
   entered when the distance so far, plus the weights of the remaining levels whose query value is
   unknown (always a mismatch), exceeds the current (k+1)-th smallest distance. The child with the
   query's value goes first: it tends to hold the nearest instances, which brings the bound down
   early. When every other child is a full mismatch (Overlap, or a query value unknown or, under
   MVDM, seen fewer than L times), they are all passed over at once if one of them would be. A
   query's MVDM values are remembered while it is searched. The Index is checked once, when
   built, so that the search never reads outside its arrays. knn.py recomputes the exact
   distances of what this returns in TiMBL's own order, so the order of additions here does not
   matter.

   vd(): the Modified Value Difference of value pairs of one feature, TiMBL's vd_distance:
   half the sum over classes of |P(c|v1) - P(c|v2)|, added in class order (the only order that
   gives TiMBL's bits). */

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The class distributions of values: CSR over global value ids (a level's values are
   numbered from its offset), classes ascending within a value. */
typedef struct {
    const int64_t *start;
    const int32_t *cls;
    const double *prob;
} Distributions;

static double vd(const Distributions *d, int64_t x, int64_t y)
{
    int64_t i = d->start[x], i_end = d->start[x + 1];
    int64_t j = d->start[y], j_end = d->start[y + 1];
    double sum = 0.0;
    while (i < i_end && j < j_end) {
        if (d->cls[j] < d->cls[i])
            sum += d->prob[j++];
        else if (d->cls[i] == d->cls[j])
            sum += fabs(d->prob[i++] - d->prob[j++]);
        else
            sum += d->prob[i++];
    }
    while (i < i_end)
        sum += d->prob[i++];
    while (j < j_end)
        sum += d->prob[j++];
    return sum / 2.0;
}

/* A node of the trie: its value at its level; its children, nodes of the next level (or, at
   the last level, rows of the instance base) first..end-1; the one row below it, or -1 (a node
   with one row has no children below the last level: the search finishes on the row). */
typedef struct {
    int32_t value, first, end, only;
} Node;

typedef struct {
    int n_rows, n_levels, limit, kplus;
    const int64_t *loff;   /* per level (+1): index of its first node */
    const Node *node;
    const int32_t *row;    /* row[r * n_levels + l]: row r's value at level l */
    const double *weight;  /* per level */
    const uint8_t *mvdm;   /* per level: MVDM (1) or Overlap (0) */
    const int64_t *voff;   /* per level (+1): global id of its value 0 */
    const int32_t *vfreq;  /* per global value id: training frequency */
    const int32_t *slot;   /* per global value id: its row in the level's table, or -1 */
    const int64_t *toff;   /* per level: offset of its table */
    const int32_t *tsize;  /* per level: the table's side */
    const double *table;   /* the levels' MVDM tables of their most frequent values */
    Distributions dist;
} Base;

/* delta_l(a, v): 0 for the same value; Overlap's 1 for different values, for an unknown query
   value (a < 0) and, under MVDM, when either value was seen fewer than L times; else MVDM. */
static double delta(const Base *b, int l, int32_t a, int32_t v)
{
    if (a == v)
        return 0.0;
    if (a < 0 || !b->mvdm[l])
        return 1.0;
    int64_t ga = b->voff[l] + a, gv = b->voff[l] + v;
    if (b->vfreq[ga] < b->limit || b->vfreq[gv] < b->limit)
        return 1.0;
    int32_t sa = b->slot[ga], sv = b->slot[gv];
    if (sa >= 0 && sv >= 0)
        return b->table[b->toff[l] + (int64_t)sa * b->tsize[l] + sv];
    return vd(&b->dist, ga, gv);
}

/* Whether delta_l(a, v) is 1 for every v other than a. */
static int all_mismatch(const Base *b, int l, int32_t a)
{
    return a < 0 || !b->mvdm[l] || b->vfreq[b->voff[l] + a] < b->limit;
}

typedef struct {
    const int32_t *q;      /* the query's values, per level */
    double *rest;          /* rest[l]: weights of the levels after l whose query value is unknown */
    int nbest;
    double *best;          /* the nbest smallest distinct distances so far, ascending */
    double bound;          /* prune above this */
    int32_t *rows;         /* rows found, with their distances */
    double *dist;
    int64_t n, cap;
    int failed;            /* out of memory */
    double *known;         /* known[g]: delta between the query's value and global value g, */
    int32_t *stamp;        /* if stamp[g] == now (the query's number) */
    int32_t now;
} Search;

static const double TOLERANCE = 1e-9;  /* relative: covers rounding, far below real differences */

static void keep_best(const Base *b, Search *s, double d)
{
    int i = 0;
    while (i < s->nbest && s->best[i] < d - TOLERANCE * (1.0 + fabs(d)))
        i++;
    if (i < s->nbest && fabs(s->best[i] - d) <= TOLERANCE * (1.0 + fabs(d)))
        return;  /* a distance already counted */
    if (i >= b->kplus)
        return;
    int last = s->nbest < b->kplus ? s->nbest : b->kplus - 1;
    memmove(s->best + i + 1, s->best + i, (size_t)(last - i) * sizeof(double));
    s->best[i] = d;
    if (s->nbest < b->kplus)
        s->nbest++;
    if (s->nbest == b->kplus)
        s->bound = s->best[b->kplus - 1] + 2 * TOLERANCE * (1.0 + fabs(s->best[b->kplus - 1]));
}

static void found(const Base *b, Search *s, int32_t lo, int32_t hi, double d)
{
    if (s->n + (hi - lo) > s->cap) {
        int64_t cap = 2 * (s->cap + (hi - lo));
        int32_t *rows = realloc(s->rows, (size_t)cap * sizeof(int32_t));
        if (rows)
            s->rows = rows;
        double *dist = realloc(s->dist, (size_t)cap * sizeof(double));
        if (dist)
            s->dist = dist;
        if (!rows || !dist) {
            s->failed = 1;
            return;
        }
        s->cap = cap;
    }
    for (int32_t r = lo; r < hi; r++) {
        s->rows[s->n] = r;
        s->dist[s->n++] = d;
    }
    keep_best(b, s, d);
}

/* delta_l(query's value, v) for a v other than the query's, remembered for the query. */
static double delta_of(const Base *b, Search *s, int l, int32_t v)
{
    int64_t g = b->voff[l] + v;
    if (s->stamp[g] != s->now) {  /* a value met again (under another node) costs nothing */
        s->known[g] = delta(b, l, s->q[l], v);
        s->stamp[g] = s->now;
    }
    return s->known[g];
}

/* The levels from l on of the one row r below a node reached with distance d. */
static void complete(const Base *b, Search *s, int l, int32_t r, double d)
{
    const int32_t *values = b->row + (int64_t)r * b->n_levels;
    for (; l < b->n_levels; l++) {
        int32_t a = s->q[l], v = values[l];
        if (a != v)
            d += b->weight[l] * (all_mismatch(b, l, a) ? 1.0 : delta_of(b, s, l, v));
        if (d + s->rest[l] > s->bound)
            return;
    }
    found(b, s, r, r + 1, d);
}

static void visit(const Base *b, Search *s, int l, int32_t lo, int32_t hi, double partial);

/* A node of level l, reached with distance `d` (its level included). */
static void enter(const Base *b, Search *s, int l, const Node *node, double d)
{
    if (l == b->n_levels - 1)
        found(b, s, node->first, node->end, d);
    else if (node->only >= 0)
        complete(b, s, l + 1, node->only, d);
    else
        visit(b, s, l + 1, node->first, node->end, d);
}

/* The children [lo, hi) at level l of a node reached with distance `partial`. */
static void visit(const Base *b, Search *s, int l, int32_t lo, int32_t hi, double partial)
{
    const Node *node = b->node;
    int32_t a = s->q[l], first = lo, step = hi - lo;
    double w = b->weight[l], rest = s->rest[l];
    while (step > 0) {  /* the first child whose value is >= a: they are sorted by value */
        int32_t half = step / 2;
        if (node[first + half].value < a) {
            first += half + 1;
            step -= half + 1;
        } else
            step = half;
    }
    int32_t match = (first < hi && node[first].value == a) ? first : -1;
    if (match >= 0 && partial + rest <= s->bound)
        enter(b, s, l, node + match, partial);
    if (all_mismatch(b, l, a)) {
        double d = partial + w;
        for (int32_t c = lo; c < hi && d + rest <= s->bound && !s->failed; c++)
            if (c != match)
                enter(b, s, l, node + c, d);
        return;
    }
    for (int32_t c = lo; c < hi && partial + rest <= s->bound && !s->failed; c++) {
        if (c == match)
            continue;
        double d = partial + w * delta_of(b, s, l, node[c].value);
        if (d + rest <= s->bound)
            enter(b, s, l, node + c, d);
    }
}

/* --- Python ------------------------------------------------------------------------------------ */

typedef struct {
    Py_buffer buf;
    Py_ssize_t n;
} Array;

static int array(PyObject *obj, Array *a, Py_ssize_t itemsize, const char *name, int writable)
{
    if (PyObject_GetBuffer(obj, &a->buf, PyBUF_C_CONTIGUOUS | (writable ? PyBUF_WRITABLE : 0)) < 0)
        return -1;
    if (a->buf.len % itemsize) {
        PyBuffer_Release(&a->buf);
        PyErr_Format(PyExc_ValueError, "%s: not an array of %zd-byte items", name, itemsize);
        return -1;
    }
    a->n = a->buf.len / itemsize;
    return 0;
}

static int expect(const Array *a, Py_ssize_t n, const char *name)
{
    if (a->n != n) {
        PyErr_Format(PyExc_ValueError, "%s: %zd items, expected %zd", name, a->n, n);
        return -1;
    }
    return 0;
}

/* Checks a CSR array of class distributions, so that vd() reads within it. */
static const char *bad_distributions(const Array *start, const Array *cls, const Array *prob)
{
    const int64_t *st = start->buf.buf;
    Py_ssize_t n = start->n - 1;
    if (n < 0 || st[0] != 0 || st[n] != cls->n || cls->n != prob->n)
        return "start, cls, prob: not a CSR array";
    for (Py_ssize_t v = 0; v < n; v++)
        if (st[v] > st[v + 1])
            return "start: not ascending";
    return NULL;
}

PyDoc_STRVAR(vd_doc,
    "vd(start, cls, prob, x, y, out): out[i] = the MVDM of values x[i] and y[i] (TiMBL's vd_distance).\n"
    "start (int64), cls (int32), prob (float64): the values' class distributions as CSR;\n"
    "x, y (int32): value ids; out (float64): written.");

static PyObject *py_vd(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *o[6];
    Array a[6] = {{{0}}};
    static const Py_ssize_t size[6] = {8, 4, 8, 4, 4, 8};
    static const char *name[6] = {"start", "cls", "prob", "x", "y", "out"};
    if (!PyArg_ParseTuple(args, "OOOOOO", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5]))
        return NULL;
    int got = 0;
    PyObject *result = NULL;
    for (; got < 6; got++)
        if (array(o[got], &a[got], size[got], name[got], got == 5) < 0)
            goto done;
    const int32_t *x = a[3].buf.buf, *y = a[4].buf.buf;
    Py_ssize_t n_values = a[0].n - 1, n = a[3].n;
    const char *bad = bad_distributions(&a[0], &a[1], &a[2]);
    for (Py_ssize_t i = 0; i < n && !bad; i++)
        if (x[i] < 0 || x[i] >= n_values || y[i] < 0 || y[i] >= n_values)
            bad = "x, y: a value id out of range";
    if (bad) {
        PyErr_SetString(PyExc_ValueError, bad);
        goto done;
    }
    if (expect(&a[4], n, "y") < 0 || expect(&a[5], n, "out") < 0)
        goto done;
    Distributions d = {a[0].buf.buf, a[1].buf.buf, a[2].buf.buf};
    double *out = a[5].buf.buf;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++)
        out[i] = vd(&d, x[i], y[i]);
    Py_END_ALLOW_THREADS
    result = Py_None;
    Py_INCREF(result);
done:
    for (int i = 0; i < got; i++)
        PyBuffer_Release(&a[i].buf);
    return result;
}

enum { LOFF, NODES, ROW, WEIGHT, MVDM, VOFF, VFREQ, SLOT, TOFF, TSIZE, TABLE, DSTART, DCLASS, DPROB, N_ARRAYS };

typedef struct {
    PyObject_HEAD
    Base b;
    Array a[N_ARRAYS];
    int got;    /* arrays held */
    int ready;  /* checked */
} Index;

/* Everything the search will index is checked here, once, so that no array is read out of bounds. */
static const char *bad_index(const Base *b, const Array *a)
{
    int64_t n_nodes = b->loff[b->n_levels];
    if (b->loff[0] != 0 || b->loff[1] < 1 || b->loff[1] > n_nodes)
        return "loff: level 0 has no nodes";
    for (int l = 0; l < b->n_levels; l++) {
        int64_t values = b->voff[l + 1] - b->voff[l];
        /* the children of a node of level l: nodes of level l+1, or rows for the last level */
        int64_t lo = l + 1 < b->n_levels ? b->loff[l + 1] : 0, hi = l + 1 < b->n_levels ? b->loff[l + 2] : b->n_rows;
        if (values < 0 || b->loff[l + 1] < b->loff[l])
            return "voff, loff: not ascending";
        if (b->tsize[l] < 0 || b->toff[l] < 0 || b->toff[l] + (int64_t)b->tsize[l] * b->tsize[l] > a[TABLE].n)
            return "toff, tsize: a table outside `table`";
        for (int64_t g = b->voff[l]; g < b->voff[l + 1]; g++)
            if (b->slot[g] >= b->tsize[l])
                return "slot: outside its table";
        for (int64_t i = b->loff[l]; i < b->loff[l + 1]; i++) {
            const Node *node = b->node + i;
            if (node->value < 0 || node->value >= values)
                return "nodes: a value out of range";
            if (node->only < -1 || node->only >= b->n_rows)
                return "nodes: `only` out of range";
            if ((node->only < 0 || l + 1 == b->n_levels)  /* below one row, children are not read */
                && (node->first < lo || node->end <= node->first || node->end > hi))
                return "nodes: a node without children or with children of another level";
        }
        for (int64_t r = 0; r < b->n_rows; r++)
            if (b->row[r * b->n_levels + l] < 0 || b->row[r * b->n_levels + l] >= values)
                return "row: a value out of range";
    }
    return bad_distributions(&a[DSTART], &a[DCLASS], &a[DPROB]);
}

static int Index_init(Index *self, PyObject *args, PyObject *kwds)
{
    (void)kwds;
    static const Py_ssize_t size[N_ARRAYS] = {8, 16, 4, 8, 1, 8, 4, 4, 8, 4, 8, 8, 4, 8};
    static const char *name[N_ARRAYS] = {"loff", "nodes", "row", "weight", "mvdm", "voff", "vfreq", "slot",
                                         "toff", "tsize", "table", "dstart", "dclass", "dprob"};
    PyObject *o[N_ARRAYS];
    Base *b = &self->b;
    if (self->got) {
        PyErr_SetString(PyExc_TypeError, "Index is already initialised");
        return -1;
    }
    if (!PyArg_ParseTuple(args, "iiiiOOOOOOOOOOOOOO", &b->n_rows, &b->n_levels, &b->limit, &b->kplus, &o[0], &o[1],
                          &o[2], &o[3], &o[4], &o[5], &o[6], &o[7], &o[8], &o[9], &o[10], &o[11], &o[12], &o[13]))
        return -1;
    for (; self->got < N_ARRAYS; self->got++)
        if (array(o[self->got], &self->a[self->got], size[self->got], name[self->got], 0) < 0)
            return -1;
    Array *a = self->a;
    if (b->n_rows < 1 || b->n_levels < 1 || b->kplus < 1 || b->limit < 0) {
        PyErr_SetString(PyExc_ValueError, "n_rows, n_levels and kplus must be positive, limit not negative");
        return -1;
    }
    if (expect(&a[LOFF], b->n_levels + 1, "loff") < 0 || expect(&a[WEIGHT], b->n_levels, "weight") < 0
        || expect(&a[MVDM], b->n_levels, "mvdm") < 0 || expect(&a[VOFF], b->n_levels + 1, "voff") < 0
        || expect(&a[TOFF], b->n_levels, "toff") < 0 || expect(&a[TSIZE], b->n_levels, "tsize") < 0
        || expect(&a[ROW], (Py_ssize_t)b->n_rows * b->n_levels, "row") < 0)
        return -1;
    b->loff = a[LOFF].buf.buf;
    b->voff = a[VOFF].buf.buf;
    if (expect(&a[NODES], b->loff[b->n_levels], "nodes") < 0 || expect(&a[VFREQ], b->voff[b->n_levels], "vfreq") < 0
        || expect(&a[SLOT], b->voff[b->n_levels], "slot") < 0
        || expect(&a[DSTART], b->voff[b->n_levels] + 1, "dstart") < 0)
        return -1;
    b->node = a[NODES].buf.buf;
    b->row = a[ROW].buf.buf;
    b->weight = a[WEIGHT].buf.buf;
    b->mvdm = a[MVDM].buf.buf;
    b->vfreq = a[VFREQ].buf.buf;
    b->slot = a[SLOT].buf.buf;
    b->toff = a[TOFF].buf.buf;
    b->tsize = a[TSIZE].buf.buf;
    b->table = a[TABLE].buf.buf;
    b->dist = (Distributions){a[DSTART].buf.buf, a[DCLASS].buf.buf, a[DPROB].buf.buf};
    const char *bad = bad_index(b, a);
    if (bad) {
        PyErr_SetString(PyExc_ValueError, bad);
        return -1;
    }
    self->ready = 1;
    return 0;
}

static void Index_dealloc(Index *self)
{
    for (int i = 0; i < self->got; i++)
        PyBuffer_Release(&self->a[i].buf);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

PyDoc_STRVAR(search_doc,
    "search(queries) -> (counts, rows): for each query (a row of `queries`, int32, a value per level,\n"
    "-1 for unknown), the rows within its kplus smallest distinct distances: counts (int32 per query)\n"
    "and rows (int32, query after query), as bytes.");

static PyObject *Index_search(Index *self, PyObject *args)
{
    const Base *b = &self->b;
    PyObject *obj, *result = NULL;
    Array queries;
    if (!self->ready)
        return PyErr_Format(PyExc_TypeError, "Index is not initialised");
    if (!PyArg_ParseTuple(args, "O", &obj))
        return NULL;
    if (array(obj, &queries, 4, "queries", 0) < 0)
        return NULL;
    const int32_t *q = queries.buf.buf;
    Py_ssize_t n_queries = queries.n / b->n_levels;
    int64_t n_values = b->voff[b->n_levels], n_out = 0, out_cap = 1024;
    Search s = {0};
    int32_t *counts = NULL, *out = NULL;
    if (queries.n % b->n_levels) {
        PyErr_SetString(PyExc_ValueError, "queries: not a value per level");
        goto done;
    }
    for (Py_ssize_t i = 0; i < queries.n; i++) {
        int l = (int)(i % b->n_levels);
        if (q[i] < -1 || q[i] >= b->voff[l + 1] - b->voff[l]) {
            PyErr_SetString(PyExc_ValueError, "queries: a value out of range");
            goto done;
        }
    }
    counts = malloc((size_t)(n_queries ? n_queries : 1) * sizeof(int32_t));
    out = malloc((size_t)out_cap * sizeof(int32_t));
    s.rest = malloc((size_t)b->n_levels * sizeof(double));
    s.best = malloc((size_t)b->kplus * sizeof(double));
    s.known = malloc((size_t)(n_values ? n_values : 1) * sizeof(double));
    s.stamp = calloc((size_t)(n_values ? n_values : 1), sizeof(int32_t));
    if (!counts || !out || !s.rest || !s.best || !s.known || !s.stamp) {
        PyErr_NoMemory();
        goto done;
    }
    int failed = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n_queries && !failed; i++) {
        s.q = q + i * b->n_levels;
        s.now = (int32_t)(i % 2000000000) + 1;
        double unknown = 0.0;
        for (int l = b->n_levels - 1; l >= 0; l--) {
            s.rest[l] = unknown;
            if (s.q[l] < 0)
                unknown += b->weight[l];
        }
        s.nbest = 0;
        s.n = 0;
        s.bound = HUGE_VAL;
        visit(b, &s, 0, 0, (int32_t)b->loff[1], 0.0);
        if (s.failed) {
            failed = 1;
            break;
        }
        int32_t kept = 0;
        for (int64_t j = 0; j < s.n; j++)  /* what was found before the bound came down */
            if (s.dist[j] <= s.bound) {
                if (n_out == out_cap) {
                    int32_t *grown = realloc(out, (size_t)(2 * out_cap) * sizeof(int32_t));
                    if (!grown) {
                        failed = 1;
                        break;
                    }
                    out = grown;
                    out_cap *= 2;
                }
                out[n_out++] = s.rows[j];
                kept++;
            }
        counts[i] = kept;
    }
    Py_END_ALLOW_THREADS
    if (failed) {
        PyErr_NoMemory();
        goto done;
    }
    result = Py_BuildValue("y#y#", (const char *)counts, (Py_ssize_t)(n_queries * sizeof(int32_t)), (const char *)out,
                           (Py_ssize_t)(n_out * sizeof(int32_t)));
done:
    PyBuffer_Release(&queries.buf);
    free(counts);
    free(out);
    free(s.rest);
    free(s.best);
    free(s.rows);
    free(s.dist);
    free(s.known);
    free(s.stamp);
    return result;
}

static PyMethodDef Index_methods[] = {
    {"search", (PyCFunction)Index_search, METH_VARARGS, search_doc},
    {NULL, NULL, 0, NULL},
};

PyDoc_STRVAR(Index_doc,
    "Index(n_rows, n_levels, limit, kplus, loff, nodes, row, weight, mvdm, voff, vfreq, slot, toff, tsize,\n"
    "      table, dstart, dclass, dprob): the instance base as the search reads it (see _knn.c),\n"
    "checked once; it keeps the arrays.");

static PyTypeObject IndexType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "maltpy.learners._knn.Index",
    .tp_basicsize = sizeof(Index),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = Index_doc,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Index_init,
    .tp_dealloc = (destructor)Index_dealloc,
    .tp_methods = Index_methods,
};

static PyMethodDef methods[] = {
    {"vd", py_vd, METH_VARARGS, vd_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_knn", "The search of maltpy's k-NN learner.", -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__knn(void)
{
    if (PyType_Ready(&IndexType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m)
        return NULL;
    Py_INCREF(&IndexType);
    if (PyModule_AddObject(m, "Index", (PyObject *)&IndexType) < 0) {
        Py_DECREF(&IndexType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
