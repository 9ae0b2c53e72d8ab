/* The Python module maltpy.features._gather: the fast form of maltpy's per-configuration feature
   extractor (functions.compile_plan), the Plan type; _gather_run.c finds a Plan's nodes and
   values in a configuration. */

#include "_gather.h"

static PyObject *Plan_values(Plan *p, PyObject *args)
{
    PyObject *c, *cols;
    Values v;
    if (!PyArg_ParseTuple(args, "OO", &c, &cols) || gather_run(p, c, cols, &v) < 0)
        return NULL;
    PyObject *result = PyTuple_New(p->n_outputs);
    for (Py_ssize_t k = 0; result != NULL && k < p->n_outputs; k++) {
        PyObject *value = v.values[p->outputs[k]];
        Py_INCREF(value);
        PyTuple_SET_ITEM(result, k, value);
    }
    gather_release(p, &v);
    return result;
}

/* The columns of the instance, ascending: for each table in ``tables`` (a list of dicts), the column its
   feature's value maps to (``picks[k]`` the feature's place among the model's, or None for
   place k); values that are None or in no table have none. The tables and picks are checked as
   they are read, after the configuration's values (reading them may have run Python code). */
static PyObject *Plan_columns(Plan *p, PyObject *args)
{
    PyObject *c, *cols, *tables, *picks;
    Values v;
    if (!PyArg_ParseTuple(args, "OOO!O", &c, &cols, &PyList_Type, &tables, &picks))
        return NULL;
    if (picks != Py_None && !PyList_Check(picks)) {
        PyErr_SetString(PyExc_TypeError, "picks is not a list or None");
        return NULL;
    }
    if (gather_run(p, c, cols, &v) < 0)
        return NULL;
    PyObject *result = PyList_New(0);
    for (Py_ssize_t k = 0; result != NULL && k < PyList_GET_SIZE(tables); k++) {
        if (picks != Py_None && PyList_GET_SIZE(picks) != PyList_GET_SIZE(tables)) {
            PyErr_SetString(PyExc_ValueError, "picks is not a list of one place per table");
            Py_CLEAR(result);
            break;
        }
        Py_ssize_t place = picks == Py_None ? k : PyLong_AsSsize_t(PyList_GET_ITEM(picks, k));
        PyObject *table = PyList_GET_ITEM(tables, k), *value, *column;
        if (!PyDict_Check(table) || place < 0 || place >= p->n_outputs) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "a table is not a dict of a feature of the plan");
            Py_CLEAR(result);
            break;
        }
        value = v.values[p->outputs[place]];
        if (value == Py_None)
            continue;
        column = PyDict_GetItemWithError(table, value);
        if (column == NULL ? PyErr_Occurred() != NULL : PyList_Append(result, column) < 0)
            Py_CLEAR(result);
    }
    gather_release(p, &v);
    if (result != NULL && PyList_Sort(result) < 0) /* ascending, as a CSR row (FeatureMap.columns_of) */
        Py_CLEAR(result);
    return result;
}

/* 1 if k is a slot of the Plan (or, with optional, -1 for none). */
static int is_slot(Py_ssize_t k, Py_ssize_t n_slots, int optional)
{
    return (k >= 0 && k < n_slots) || (optional && k == -1);
}

/* steps: a list of tuples of 1 to 5 ints (op, a, b, c, d); each place a step reads must come
   before it (``node_limit``: the number of nodes a value reads; a node step reads earlier
   nodes), each slot it reads must be one of the ``n_slots``. */
static Step *read_steps(PyObject *list, Py_ssize_t *n, Py_ssize_t node_limit, Py_ssize_t n_slots, int are_values)
{
    if (!PyList_Check(list)) {
        PyErr_SetString(PyExc_TypeError, "steps are not a list");
        return NULL;
    }
    *n = PyList_GET_SIZE(list);
    Step *steps = PyMem_New(Step, *n ? *n : 1);
    if (steps == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    for (Py_ssize_t i = 0; i < *n; i++) {
        Step *s = &steps[i];
        s->a = s->b = s->c = s->d = 0;
        PyObject *t = PyList_GET_ITEM(list, i);
        if (!PyTuple_Check(t)) {
            PyErr_Format(PyExc_TypeError, "step %zd of a plan is not a tuple", i);
            goto bad;
        }
        if (!PyArg_ParseTuple(t, "i|nnnn", &s->op, &s->a, &s->b, &s->c, &s->d))
            goto bad;
        int ok;
        if (!are_values)
            ok = (s->op == FROM_END && s->a >= 0 && is_slot(s->b, n_slots, 0) && is_slot(s->c, n_slots, 1) &&
                  is_slot(s->d, n_slots, 1)) ||
                 (s->op == SHIFT && s->a >= 0 && is_slot(s->b, n_slots, 0) && (s->c == 1 || s->c == -1) &&
                  is_slot(s->d, n_slots, 1)) ||
                 (s->op == CONTEXT && s->a >= 0 && is_slot(s->b, n_slots, 0) && is_slot(s->c, n_slots, 0)) ||
                 (s->op == GRAPH && s->a >= HEAD && s->a <= AFTER && s->b >= 0 && s->b < i);
        else if (s->op == INPUT_COLUMN)
            ok = s->a >= 0 && s->b >= 0 && s->b < node_limit;
        else if (s->op == OUTPUT_COLUMN)
            ok = s->b >= 0 && s->b < node_limit;
        else if (s->op == OUTPUT_ARC)
            ok = s->b >= 0 && s->b < node_limit && s->c >= 0 && s->c < node_limit;
        else if (s->op == MERGE || s->op == MERGE3)
            ok = s->a >= 0 && s->a < i && s->b >= 0 && s->b < i && (s->op == MERGE || (s->c >= 0 && s->c < i));
        else
            ok = 0;
        if (!ok) {
            PyErr_Format(PyExc_ValueError, "step %zd of a plan is not one", i);
            goto bad;
        }
    }
    return steps;
bad:
    PyMem_Free(steps);
    return NULL;
}

static int Plan_init(Plan *p, PyObject *args, PyObject *kwds)
{
    PyObject *nodes, *values, *outputs, *no_node, *root_node, *no_value, *deprel_of, *slots;
    if (p->nodes != NULL) {
        PyErr_SetString(PyExc_TypeError, "a Plan is made once");
        return -1;
    }
    if (!PyArg_ParseTuple(args, "OOO!(UUU)OO!", &nodes, &values, &PyList_Type, &outputs, &no_node, &root_node,
                          &no_value, &deprel_of, &PyTuple_Type, &slots))
        return -1;
    if (PyTuple_GET_SIZE(slots) > MAX_SLOTS) {
        PyErr_SetString(PyExc_ValueError, "a Plan reads too many attributes");
        return -1;
    }
    for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(slots); k++)
        if (!PyUnicode_Check(PyTuple_GET_ITEM(slots, k))) {
            PyErr_SetString(PyExc_TypeError, "a slot is not an attribute name");
            return -1;
        }
    Py_INCREF(no_node);
    Py_INCREF(root_node);
    Py_INCREF(no_value);
    Py_INCREF(deprel_of);
    p->no_node = no_node;
    p->root_node = root_node;
    p->no_value = no_value;
    p->deprel_of = deprel_of;
    Py_INCREF(slots);
    p->slots = slots;
    if ((p->nodes = read_steps(nodes, &p->n_nodes, 0, PyTuple_GET_SIZE(slots), 0)) == NULL)
        return -1;
    if ((p->values = read_steps(values, &p->n_values, p->n_nodes, 0, 1)) == NULL)
        return -1;
    p->n_outputs = PyList_GET_SIZE(outputs);
    if ((p->outputs = PyMem_New(Py_ssize_t, p->n_outputs ? p->n_outputs : 1)) == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t k = 0; k < p->n_outputs; k++) {
        p->outputs[k] = PyLong_AsSsize_t(PyList_GET_ITEM(outputs, k));
        if (p->outputs[k] < 0 || p->outputs[k] >= p->n_values) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "an output is not a value of the plan");
            return -1;
        }
    }
    return 0;
}

static void Plan_dealloc(Plan *p)
{
    PyMem_Free(p->nodes);
    PyMem_Free(p->values);
    PyMem_Free(p->outputs);
    Py_XDECREF(p->no_node);
    Py_XDECREF(p->root_node);
    Py_XDECREF(p->no_value);
    Py_XDECREF(p->deprel_of);
    Py_XDECREF(p->slots);
    Py_TYPE(p)->tp_free((PyObject *)p);
}

static PyMethodDef Plan_methods[] = {
    {"values", (PyCFunction)Plan_values, METH_VARARGS, "values(configuration, columns) -> the features' values"},
    {"columns", (PyCFunction)Plan_columns, METH_VARARGS,
     "columns(configuration, columns, tables, picks) -> the instance's columns, ascending"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject PlanType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "maltpy.features._gather.Plan",
    .tp_basicsize = sizeof(Plan),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Plan(nodes, values, outputs, (no_node, root_node, no_value), deprel_of, slots)",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Plan_init,
    .tp_dealloc = (destructor)Plan_dealloc,
    .tp_methods = Plan_methods,
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "_gather",
    .m_doc = "The fast form of the per-configuration feature extractor.",
    .m_size = -1,
};

PyMODINIT_FUNC PyInit__gather(void)
{
    if (PyType_Ready(&PlanType) < 0)
        return NULL;
    if (gather_intern_texts() < 0)
        return NULL;
    PyObject *m = PyModule_Create(&module);
    if (m == NULL)
        return NULL;
    Py_INCREF(&PlanType);
    if (PyModule_AddObject(m, "Plan", (PyObject *)&PlanType) < 0)
        return NULL;
    static const struct {
        const char *name;
        int op;
    } ops[] = {{"FROM_END", FROM_END}, {"SHIFT", SHIFT}, {"CONTEXT", CONTEXT}, {"GRAPH", GRAPH},
               {"HEAD", HEAD}, {"LEFTMOST", LEFTMOST}, {"RIGHTMOST", RIGHTMOST}, {"BEFORE", BEFORE},
               {"AFTER", AFTER}, {"INPUT_COLUMN", INPUT_COLUMN}, {"OUTPUT_COLUMN", OUTPUT_COLUMN},
               {"OUTPUT_ARC", OUTPUT_ARC}, {"MERGE", MERGE}, {"MERGE3", MERGE3}};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (PyModule_AddIntConstant(m, ops[i].name, ops[i].op) < 0)
            return NULL;
    return m;
}
