/* MALTPY_HIDDEN: a function one unit of a C extension defines and another calls, kept out of the
   extension's exported symbols (each shared object exports its PyInit_* alone), so that units of
   different extensions cannot clash and a call inside its own unit can still be inlined. */
#ifndef MALTPY_HIDDEN_H
#define MALTPY_HIDDEN_H
#if defined(__GNUC__)
#define MALTPY_HIDDEN __attribute__((visibility("hidden")))
#else
#define MALTPY_HIDDEN
#endif
#endif
