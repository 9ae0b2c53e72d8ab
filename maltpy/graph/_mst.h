/* What the units of maltpy.graph._mst share: MSTParser 0.5's feature templates, in C for speed
   (maltpy/graph/features.py says what they are). _mst_templates.c enumerates the templates as keys
   into a sink; _mst.c is the Python module. */

#ifndef MALTPY_MST_H
#define MALTPY_MST_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t u64;

/* A sentence's atoms. */
typedef struct {
    Py_ssize_t N;
    const u64 *form, *lemma, *cpos, *pos;
    const int64_t *fptr;
    const u64 *fval;
    u64 STR, END, MID, STPOS, STWRD;
} Sent;

/* Where the keys go: collected as keys, looked up and collected as feature numbers, or looked up
   and summed into acc with the weights w. */
enum { KEYS, NUMBERS, SCORE };
#define WAITING 64

typedef struct {
    int mode;
    const u64 *table; /* slot i: key at 2i (0: empty), its feature number at 2i + 1 */
    u64 mask;
    const double *w;
    double acc;
    u64 *keys;
    int32_t *nums;
    Py_ssize_t len, cap;
    int oom;
    u64 wait[WAITING]; /* keys emitted, not yet looked up (flush) */
    int waiting;
} Sink;

/* The parts of a tree that mst_tree enumerates. */
enum { FIRST = 1, SIBLINGS = 2 };

/* Shared across the units, not exported from the module. */
#include "../_hidden.h"

/* _mst_templates.c */
MALTPY_HIDDEN void mst_flush(Sink *k);
MALTPY_HIDDEN void mst_arc(Sink *k, const Sent *s, Py_ssize_t h, Py_ssize_t c);
MALTPY_HIDDEN void mst_label_side(Sink *k, const Sent *s, Py_ssize_t word, u64 type, int attR, int child);
MALTPY_HIDDEN void mst_trip(Sink *k, const Sent *s, Py_ssize_t par, Py_ssize_t ch1, Py_ssize_t ch2);
MALTPY_HIDDEN void mst_sib(Sink *k, const Sent *s, Py_ssize_t ch1, Py_ssize_t ch2, int first);
MALTPY_HIDDEN void mst_sibling_part(Sink *k, const Sent *s, Py_ssize_t h, Py_ssize_t prev, Py_ssize_t c);
MALTPY_HIDDEN void mst_tree(Sink *k, const Sent *s, const int64_t *heads, const u64 *labels, int parts);

#endif
