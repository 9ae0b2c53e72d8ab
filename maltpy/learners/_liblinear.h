/* What the units of maltpy.learners._liblinear share: LIBLINEAR's multi-class SVM of Crammer and
   Singer as MaltParser 1.9.2 trains it. _liblinear_solve.c is the solver (and says what makes its
   weights MaltParser's); _liblinear.c is the Python module. Every unit is compiled without
   contraction of a * b + c into a fused multiply-add, which Java never does. */

#ifndef MALTPY_LIBLINEAR_H
#define MALTPY_LIBLINEAR_H

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

typedef struct {
    const int64_t *indptr;
    const int32_t *indices;
    const double *data;
    const int32_t *y;
    int64_t l;
    int k;
    double C;
} Problem;

/* Shared across the units, not exported from the module. */
#include "../_hidden.h"

/* _liblinear_solve.c */
MALTPY_HIDDEN int liblinear_solve(const Problem *p, double eps, int64_t max_iter, int64_t *seed, double *w,
                                  int64_t n_features, PyThreadState **released);

#endif
