/* What the units of maltpy.features._gather share: the fast form of maltpy's per-configuration
   feature extractor (functions.compile_plan). _gather_run.c finds a Plan's nodes and values in a
   configuration (and says how); _gather.c is the Python module, the Plan type. */

#ifndef MALTPY_GATHER_H
#define MALTPY_GATHER_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

/* A slot (a configuration attribute the Plan reads) is a number below MAX_SLOTS, -1 for none. */
#define MAX_SLOTS 8

enum {
    /* base addresses (addresses.FromEnd, Beside, Context): (op, i, a, b, c) */
    FROM_END = 1, /* the i-th node from the end of list slot a, after the first (slot b) nodes,
                     among the first (slot c) */
    SHIFT,        /* the number in slot a plus b * i, from 0 up to the number in slot c */
    CONTEXT,      /* the i-th word between the words in slots a and b whose head is outside them,
                     from the left (c) or from the right */
    /* graph addresses (addresses.Neighbour): (GRAPH, read, inner place, low, below_last) */
    GRAPH = 20,
    /* values: (op, a, b, c, d) */
    INPUT_COLUMN = 40, /* column a of node b */
    OUTPUT_COLUMN,     /* the label of node b's arc */
    OUTPUT_ARC,        /* LEFT, RIGHT or #null#: the arc between nodes b and c */
    MERGE,             /* values a, b joined by ~; d: nested (a Merge of nulls is a's null) */
    MERGE3,            /* values a, b, c joined by ~ */
};

/* What a graph address reads of its node x. */
enum { HEAD, LEFTMOST, RIGHTMOST, BEFORE, AFTER };

typedef struct {
    int op;
    Py_ssize_t a, b, c, d;
} Step;

typedef struct {
    PyObject_HEAD
    Step *nodes;
    Py_ssize_t n_nodes;
    Step *values;
    Py_ssize_t n_values;
    Py_ssize_t *outputs;
    Py_ssize_t n_outputs;
    PyObject *no_node, *root_node, *no_value, *deprel_of; /* deprel_of: a mapping or Py_None */
    PyObject *slots;                                      /* the attribute names, a tuple of str */
} Plan;

#define SMALL 128

/* A configuration's values: in ``small`` when they fit, else on the heap. */
typedef struct {
    PyObject *small[SMALL], **values;
} Values;

/* Shared across the units, not exported from the module. */
#include "../_hidden.h"

/* _gather_run.c */
MALTPY_HIDDEN int gather_intern_texts(void);
MALTPY_HIDDEN int gather_run(Plan *p, PyObject *c, PyObject *cols, Values *v);
MALTPY_HIDDEN void gather_release(Plan *p, Values *v);

#endif
