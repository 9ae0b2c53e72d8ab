"""How many threads the numeric libraries use, set before they are loaded.

OpenBLAS (NumPy's products) and LIBSVM's OpenMP start a thread per core and, by default, spin
while they wait. Parsing gains about 5% from a second BLAS thread on an idle machine and loses
several times that beside another busy process, whose cores the spinning threads take: parsing
uses one thread, and parallelism comes from processes. Learning with LIBSVM gains from its
OpenMP threads, so it keeps them, with the passive wait policy (no spinning on busy cores).

The variables are read once, when the libraries load, so this runs before NumPy is imported
(the command line imports it lazily). A variable the user set is left alone, unless
``--threads`` asks otherwise.
"""

from __future__ import annotations

import os

THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def set_threads(threads: int | None, learning: bool = False) -> None:
    """``threads`` for every library (``--threads``); None: one for parsing, the libraries'
    own choice (the cores) for learning. OpenMP threads wait passively either way."""
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    if threads is not None:
        for name in THREAD_VARIABLES:
            os.environ[name] = str(threads)
    elif learning:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # learning's products are small
    else:
        for name in THREAD_VARIABLES:
            os.environ.setdefault(name, "1")
