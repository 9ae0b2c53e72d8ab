/* The fast form of maltpy's per-configuration feature extractor (functions.compile_plan): a Plan's
   nodes and values found in a configuration, for maltpy.features._gather (see _gather.h).

   The definitions of the address and feature functions are Python's (features/addresses.py and
   features/functions.py). An address is found by the steps its entry's form gives
   (addresses.FromEnd, Beside, Context, Neighbour): this file knows how a configuration keeps a
   list, a number and its partial graph, the entry says which of them an address reads and where
   it stops; a covered feature function's entry names its operation here (its ``fast`` form).
   ``compile_plan`` turns a feature model whose functions are all covered into a Plan: the nodes
   to find, each distinct address once (a base address from the configuration, a graph address
   from the node of its inner address), then the values, each a column of a node, an arc label
   or a Merge of earlier values, and the places of the model's features among them. A Plan gives
   the values of one configuration (``values``) or, for a classifier's tables of value -> column,
   the instance's columns (``columns``): one call where the definitions take one a function and a
   loop. tests/test_features.py checks the two on every configuration of real treebanks.

   A node is a word 1..n, the root 0 or -1 for none, as in the definitions. The configuration is
   read through the attributes the Plan names (its ``slots``: lists of nodes and numbers) and its
   arcs' heads, labels and left and right dependents. */

#include "_gather.h"

static PyObject *TILDE, *NULL_TEXT, *LEFT_TEXT, *RIGHT_TEXT;
static PyObject *S_LEFT, *S_RIGHT, *S_ARCS, *S_HEADS, *S_LABELS;

/* What one call has read of the configuration (new references, or NULL until needed): the
   attributes in the Plan's slots, and its arcs. */
typedef struct {
    PyObject *c, *slots, *slot[MAX_SLOTS], *arcs, *heads, *labels, *left, *right;
} Reads;

static void reads_clear(Reads *r)
{
    for (int i = 0; i < MAX_SLOTS; i++)
        Py_XDECREF(r->slot[i]);
    Py_XDECREF(r->arcs);
    Py_XDECREF(r->heads);
    Py_XDECREF(r->labels);
    Py_XDECREF(r->left);
    Py_XDECREF(r->right);
}

static PyObject *attr(PyObject **slot, PyObject *owner, PyObject *name)
{
    if (*slot == NULL)
        *slot = PyObject_GetAttr(owner, name);
    return *slot;
}

static PyObject *arcs_attr(Reads *r, PyObject **slot, PyObject *name)
{
    PyObject *arcs = attr(&r->arcs, r->c, S_ARCS);
    return arcs == NULL ? NULL : attr(slot, arcs, name);
}

/* The configuration's attribute in slot k. */
static PyObject *slot(Reads *r, Py_ssize_t k)
{
    return attr(&r->slot[k], r->c, PyTuple_GET_ITEM(r->slots, k));
}

/* The number in slot k into *out: 0, or -1 with an exception. */
static int number(Reads *r, Py_ssize_t k, Py_ssize_t *out)
{
    PyObject *v = slot(r, k);
    if (v == NULL)
        return -1;
    *out = PyLong_AsSsize_t(v);
    return (*out == -1 && PyErr_Occurred()) ? -1 : 0;
}

/* len(seq), or -1 with an exception. */
static Py_ssize_t length(PyObject *seq)
{
    if (seq == NULL)
        return -1;
    return PyList_Check(seq) ? PyList_GET_SIZE(seq) : PySequence_Size(seq);
}

/* seq[i] as a borrowed reference (lists) or a new one (*owned set), for 0 <= i < len(seq). */
static PyObject *item(PyObject *seq, Py_ssize_t i, int *owned)
{
    if (PyList_Check(seq) && i >= 0 && i < PyList_GET_SIZE(seq)) {
        *owned = 0;
        return PyList_GET_ITEM(seq, i);
    }
    *owned = 1;
    return PySequence_GetItem(seq, i);
}

/* The node at seq[i], or -2 with an exception. */
static Py_ssize_t node_at(PyObject *seq, Py_ssize_t i)
{
    int owned;
    PyObject *v = item(seq, i, &owned);
    if (v == NULL)
        return -2;
    Py_ssize_t x = PyLong_AsSsize_t(v);
    if (owned)
        Py_DECREF(v);
    if (x == -1 && PyErr_Occurred())
        return -2;
    return x;
}

/* The i-th node from the end of a list (a stack's top, a buffer's front), -1 past its start. */
static Py_ssize_t from_end(PyObject *seq, Py_ssize_t i)
{
    Py_ssize_t len = length(seq);
    if (len < 0)
        return -2;
    return i < len ? node_at(seq, len - 1 - i) : -1;
}

/* Covington's LeftContext[i] (ascending) and RightContext[i] (addresses.Context). */
static Py_ssize_t context(Reads *r, const Step *s)
{
    Py_ssize_t i = s->a, lo, hi, seen = 0;
    int ascending = (int)s->d;
    PyObject *heads = arcs_attr(r, &r->heads, S_HEADS);
    if (heads == NULL || number(r, s->b, &lo) < 0 || number(r, s->c, &hi) < 0)
        return -2;
    for (Py_ssize_t k = ascending ? lo + 1 : hi - 1; ascending ? k < hi : k > lo; k += ascending ? 1 : -1) {
        Py_ssize_t h = node_at(heads, k);
        if (h == -2)
            return -2;
        if (h == -1 || h < lo || h > hi) {
            if (seen == i)
                return k;
            seen++;
        }
    }
    return -1;
}

static Py_ssize_t base_node(Reads *r, const Step *s)
{
    Py_ssize_t i = s->a, k = 0, bound;
    switch (s->op) {
    case FROM_END:
        if (s->c >= 0 && number(r, s->c, &k) < 0)
            return -2;
        if (s->d >= 0) {
            if (number(r, s->d, &bound) < 0)
                return -2;
            if (i >= bound)
                return -1;
        }
        return from_end(slot(r, s->b), k + i);
    case SHIFT:
        if (number(r, s->b, &k) < 0 || (s->d >= 0 && number(r, s->d, &bound) < 0))
            return -2;
        k += s->c * i;
        return k >= 0 && (s->d < 0 || k <= bound) ? k : -1;
    case CONTEXT:
        return context(r, s);
    }
    PyErr_SetString(PyExc_SystemError, "a Plan holds an unknown address");
    return -2;
}

/* The first or last dependent in deps[x], -1 if none. */
static Py_ssize_t dependent(PyObject *deps, Py_ssize_t x, int last)
{
    if (deps == NULL)
        return -2;
    int owned;
    PyObject *own = item(deps, x, &owned);
    if (own == NULL)
        return -2;
    Py_ssize_t len = length(own), d = len < 0 ? -2 : len == 0 ? -1 : node_at(own, last ? len - 1 : 0);
    if (owned)
        Py_DECREF(own);
    return d;
}

/* A graph address (addresses.Neighbour): what s->a reads from node x, for x from s->c up and,
   with s->d, before the last word. */
static Py_ssize_t graph_node(Reads *r, const Step *s, Py_ssize_t x)
{
    if (x < s->c)
        return -1;
    if (s->d) {
        Py_ssize_t len = length(arcs_attr(r, &r->heads, S_HEADS)); /* the nodes 0..n */
        if (len < 0)
            return -2;
        if (x >= len - 1)
            return -1;
    }
    switch (s->a) {
    case HEAD:
        return node_at(arcs_attr(r, &r->heads, S_HEADS), x);
    case LEFTMOST:
        return dependent(arcs_attr(r, &r->left, S_LEFT), x, 0);
    case RIGHTMOST:
        return dependent(arcs_attr(r, &r->right, S_RIGHT), x, 1);
    case BEFORE:
        return x - 1;
    case AFTER:
        return x + 1;
    }
    PyErr_SetString(PyExc_SystemError, "a Plan holds an unknown address");
    return -2;
}

/* The null symbol of no node (x < 0) or of the root (x == 0), a new reference. */
static PyObject *null_of(Plan *p, Py_ssize_t x)
{
    PyObject *v = x < 0 ? p->no_node : p->root_node;
    Py_INCREF(v);
    return v;
}

static PyObject *input_column(Reads *r, PyObject *cols, Plan *p, Py_ssize_t k, Py_ssize_t x)
{
    if (x <= 0)
        return null_of(p, x);
    int owned_col, owned;
    PyObject *col = item(cols, k, &owned_col);
    if (col == NULL)
        return NULL;
    PyObject *v = item(col, x, &owned);
    if (v != NULL && !owned)
        Py_INCREF(v);
    if (owned_col)
        Py_DECREF(col);
    return v;
}

static PyObject *output_column(Reads *r, Plan *p, Py_ssize_t x)
{
    if (x <= 0)
        return null_of(p, x);
    PyObject *labels = arcs_attr(r, &r->labels, S_LABELS);
    if (labels == NULL)
        return NULL;
    int owned;
    PyObject *label = item(labels, x, &owned);
    if (label == NULL)
        return NULL;
    PyObject *v;
    if (label == Py_None) {
        v = p->no_value;
        Py_INCREF(v);
    } else if (p->deprel_of == Py_None) {
        v = label;
        Py_INCREF(v);
    } else {
        v = PyObject_GetItem(p->deprel_of, label);
    }
    if (owned)
        Py_DECREF(label);
    return v;
}

static PyObject *output_arc(Reads *r, Py_ssize_t x, Py_ssize_t y)
{
    PyObject *result = NULL_TEXT;
    if (x >= 0 && y >= 0) {
        PyObject *heads = arcs_attr(r, &r->heads, S_HEADS);
        if (heads == NULL)
            return NULL;
        Py_ssize_t hx = node_at(heads, x), hy = node_at(heads, y);
        if (hx == -2 || hy == -2)
            return NULL;
        if (x != 0 && hx == y)
            result = LEFT_TEXT;
        else if (y != 0 && hy == x)
            result = RIGHT_TEXT;
    }
    Py_INCREF(result);
    return result;
}

/* 1 if v is one of the null symbols, 0 if not, -1 with an exception. */
static int is_null(Plan *p, PyObject *v)
{
    PyObject *nulls[3] = {p->no_node, p->root_node, p->no_value};
    for (int i = 0; i < 3; i++) {
        if (v == nulls[i])
            return 1;
        int eq = PyObject_RichCompareBool(v, nulls[i], Py_EQ);
        if (eq != 0)
            return eq;
    }
    return 0;
}

static PyObject *merge(Plan *p, PyObject **values, const Step *s)
{
    Py_ssize_t n = s->op == MERGE3 ? 3 : 2, places[3] = {s->a, s->b, s->c};
    int all_null = 1;
    for (Py_ssize_t i = 0; i < n && all_null; i++) {
        int null = is_null(p, values[places[i]]);
        if (null < 0)
            return NULL;
        all_null = null;
    }
    if (all_null) {
        PyObject *v = s->d ? values[places[0]] : Py_None;
        Py_INCREF(v);
        return v;
    }
    PyObject *parts = PyTuple_New(n);
    if (parts == NULL)
        return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *v = values[places[i]];
        if (PyUnicode_Check(v))
            Py_INCREF(v);
        else if ((v = PyObject_Str(v)) == NULL) { /* as the definition's f-string writes it */
            Py_DECREF(parts);
            return NULL;
        }
        PyTuple_SET_ITEM(parts, i, v);
    }
    PyObject *joined = PyUnicode_Join(TILDE, parts);
    Py_DECREF(parts);
    return joined;
}

static PyObject *value(Plan *p, Reads *r, PyObject *cols, const Py_ssize_t *nodes, PyObject **values,
                       const Step *s)
{
    switch (s->op) {
    case INPUT_COLUMN:
        return input_column(r, cols, p, s->a, nodes[s->b]);
    case OUTPUT_COLUMN:
        return output_column(r, p, nodes[s->b]);
    case OUTPUT_ARC:
        return output_arc(r, nodes[s->b], nodes[s->c]);
    case MERGE:
    case MERGE3:
        return merge(p, values, s);
    }
    PyErr_SetString(PyExc_SystemError, "a Plan holds an unknown feature function");
    return NULL;
}

/* Fill v->values[0..n_values) for configuration c (new references); 0, or -1 with an exception
   and nothing left to release. */
int gather_run(Plan *p, PyObject *c, PyObject *cols, Values *v)
{
    PyObject **values = v->values = p->n_values <= SMALL ? v->small : PyMem_New(PyObject *, p->n_values);
    Py_ssize_t small[SMALL], *nodes = p->n_nodes <= SMALL ? small : PyMem_New(Py_ssize_t, p->n_nodes);
    Reads r = {.c = c, .slots = p->slots};
    Py_ssize_t done = 0;
    int status = -1;
    if (nodes == NULL || values == NULL) {
        PyErr_NoMemory();
        goto out;
    }
    for (Py_ssize_t i = 0; i < p->n_nodes; i++) {
        const Step *s = &p->nodes[i];
        nodes[i] = s->op < GRAPH ? base_node(&r, s) : graph_node(&r, s, nodes[s->b]);
        if (nodes[i] == -2)
            goto out;
    }
    for (; done < p->n_values; done++) {
        values[done] = value(p, &r, cols, nodes, values, &p->values[done]);
        if (values[done] == NULL)
            goto out;
    }
    status = 0;
out:
    if (status < 0) {
        for (Py_ssize_t i = 0; i < done; i++)
            Py_DECREF(values[i]);
        if (values != v->small)
            PyMem_Free(values);
    }
    reads_clear(&r);
    if (nodes != small)
        PyMem_Free(nodes);
    return status;
}

/* Release what gather_run() filled. */
void gather_release(Plan *p, Values *v)
{
    for (Py_ssize_t i = 0; i < p->n_values; i++)
        Py_DECREF(v->values[i]);
    if (v->values != v->small)
        PyMem_Free(v->values);
}


static int intern(PyObject **slot, const char *text)
{
    *slot = PyUnicode_InternFromString(text);
    return *slot == NULL ? -1 : 0;
}

/* The texts the steps compare and build, and the attribute names they read, interned once. */
int gather_intern_texts(void)
{
    if (intern(&TILDE, "~") < 0 || intern(&NULL_TEXT, "#null#") < 0 || intern(&LEFT_TEXT, "LEFT") < 0 ||
        intern(&RIGHT_TEXT, "RIGHT") < 0 || intern(&S_LEFT, "left") < 0 || intern(&S_RIGHT, "right") < 0 ||
        intern(&S_ARCS, "arcs") < 0 || intern(&S_HEADS, "heads") < 0 || intern(&S_LABELS, "labels") < 0)
        return -1;
    return 0;
}
