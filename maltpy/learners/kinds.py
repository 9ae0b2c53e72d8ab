"""The learners maltpy has and what each is: its name (``kind``), its options (MaltParser's ``-lo``,
``lib.options``: flags with types, bounds and defaults, and ``ignored_when``), the folder of its
default feature models, its name in MaltParser's model files, whether ``maltpy optimize`` tunes it,
and its classifier (``classifier()``: the class in its own module, loaded when first asked for).

Nothing here loads NumPy: the configuration, the command line's help and a parse's main process
read these facts, and only the processes that learn or classify load a learner's arithmetic.
``learners.LEARNERS`` lists them, and nothing else does.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from importlib import import_module
from typing import Any


@dataclass(frozen=True, slots=True)
class LibOption:
    """One learner option: its type (int, float or str), default, bounds (None: open) and, for a
    string, the values it takes (a regular expression, matched whole, case ignored)."""

    kind: type  # int, float, str, or dict: LIBSVM's class weights (see CLASS_WEIGHTS)
    default: int | float | str | Mapping
    low: float | None = None
    high: float | None = None
    pattern: str | None = None
    shown: str = ""  # the values of a string option, as the error message names them
    above: bool = False  # the value must be greater than ``low``, not equal to it


#: LIBSVM's -wi, given as ``-w<class> <weight>``: the cost C of the instances of a class is
#: C * weight (svm.cpp, svm_train: weighted_C). LIBSVM names a class by its number in the training
#: file; maltpy's numbers are its own, so the class is named as ``maltpy info`` lists the classes:
#: ``-wRE 2``, ``-wLA~nsubj 0.5``, or a transition alone, ``-wLA 2``, for all its classes (a class
#: named in full takes its own weight). MaltParser 1.9.2 has no -w (LibSvm's allowed flags are
#: "stdgrnmcepb" and Lib.parseParameters rejects any other); 1.7 passed it to LIBSVM by number.
CLASS_WEIGHTS = "w"


#: An option the learner's other options leave unread: when (a test of the options) and why.
Ignored = tuple[Callable[[Mapping[str, Any]], bool], str]


class Learner:
    kind: str  # the learner's name, as in the configuration
    suffix: str  # the archive member's extension
    symbolic = False  # instances as symbols (True) or as binarized columns
    #: The learner's options by flag (MaltParser's ``-lo``, ``lib.options``), with their defaults.
    options: dict[str, LibOption]
    #: The options that the learner's other options leave unread (``options.ignored_learner_option``).
    ignored_when: dict[str, Ignored] = {}
    #: The folder of the learner's default feature models (feature_models/<folder>/<format>/).
    feature_models: str
    #: The learner's name in MaltParser's model files (``odm0.<name>.moo``); None for one
    #: MaltParser 1.9.2 has not.
    maltparser_file: str | None = None
    #: Whether ``maltpy optimize`` tunes it (as MaltOptimizer, LIBLINEAR and LIBSVM).
    tuned = False

    #: The learner's classifier class (a ``base.Classifier`` and this class), in the module named
    #: after the learner.
    classifier_name: str

    @classmethod
    def classifier(cls) -> type:
        """The learner's classifier class, ``learners.<kind>.<classifier_name>``, its module loaded
        here when first asked for: it derives from this class, and loads NumPy."""
        return getattr(import_module(f"{__package__}.{cls.kind}"), cls.classifier_name)


class LibLinearLearner(Learner):
    """LIBLINEAR (Fan et al. 2008), as MaltParser 1.9.2 runs it: ``liblinear.LibLinear``."""


    kind = "liblinear"
    suffix = "npz"
    maltparser_file = "liblinear"
    feature_models = "liblinear"
    tuned = True
    #: MaltParser 1.9.2's defaults (LibLinear.getDefaultLibOptions).
    options = {
        "s": LibOption(int, 4, 0, 7),  # solver: Crammer-Singer multi-class SVM
        "c": LibOption(float, 0.1, 0, above=True),  # cost C
        "e": LibOption(float, 0.1, 0, above=True),  # stopping tolerance
        "B": LibOption(float, -1.0, None, 1e6),  # bias feature's value; 0 or negative = no bias term
    }
    classifier_name = "LibLinear"


class LibSvmLearner(Learner):
    """LIBSVM (Chang & Lin 2011), as MaltParser 1.9.2 runs it: ``libsvm.LibSvm``."""


    kind = "libsvm"
    suffix = "libsvm"
    maltparser_file = "libsvm"
    feature_models = "libsvm"
    tuned = True
    #: MaltParser 1.9.2's defaults (LibSvm.getDefaultLibOptions).
    options = {
        "s": LibOption(int, 0, 0, 1),  # svm type: C-SVC (1: nu-SVC); the others are not classifiers
        "t": LibOption(int, 1, 0, 3),  # kernel: polynomial (gamma*u'v + coef0)^degree
        "d": LibOption(int, 2, 1, 20),  # degree
        "g": LibOption(float, 0.2, 0),  # gamma (0: LIBSVM's 1 / number of features)
        "r": LibOption(float, 0.0),  # coef0
        "c": LibOption(float, 1.0, 0, above=True),  # cost C
        "n": LibOption(float, 0.5, 0, 1, above=True),  # nu
        "p": LibOption(float, 0.1, 0),  # epsilon of the epsilon-SVR loss
        "m": LibOption(float, 100.0, 0, above=True),  # cache size in MB
        "e": LibOption(float, 1.0, 0, above=True),  # stopping tolerance
        "h": LibOption(int, 1, 0, 1),  # shrinking heuristics
        "b": LibOption(int, 0, 0, 1),  # probability estimates
        "w": LibOption(dict, {}, 0, 1e6, above=True),  # -w<class> <weight>: C of that class's instances, times weight
    }
    #: LIBSVM's parameters of a kernel or an SVM type other than the one chosen (svm.h, svm.cpp:
    #: kernel_function reads degree, gamma and coef0 by kernel type; svm_train reads C and the class
    #: weights for C-SVC, nu for nu-SVC, p for the regressions only), and its probability model,
    #: which maltpy's prediction never reads (it votes on the decision values).
    ignored_when = {
        "d": (lambda o: o["t"] != 1, "the degree is the polynomial kernel's (-t 1)"),
        "g": (lambda o: o["t"] == 0, "the linear kernel (-t 0) has no gamma"),
        "r": (lambda o: o["t"] not in (1, 3), "coef0 is the polynomial and sigmoid kernels' (-t 1, -t 3)"),
        "c": (lambda o: o["s"] == 1, "nu-SVC (-s 1) is bounded by nu (-n), not by C"),
        "w": (lambda o: o["s"] == 1, "class weights scale C, which nu-SVC (-s 1) does not use"),
        "n": (lambda o: o["s"] != 1, "nu is nu-SVC's (-s 1)"),
        "p": (lambda o: True, "epsilon is the regressions' (epsilon-SVR), and maltpy's LIBSVM classifies"),
        "b": (lambda o: True, "maltpy votes on the decision values and never reads the probability model"),
    }
    classifier_name = "LibSvm"


class KnnLearner(Learner):
    """Memory-based learning with TiMBL's IB1 and MVDM (Daelemans et al. 2004): ``knn.Knn``."""


    kind = "knn"
    suffix = "npz"
    symbolic = True
    #: k-NN takes the LIBSVM models: their arc-eager model is the standard model of the memory-based
    #: experiments (Nivre et al. 2007, §3.2), and none of them has the conjunctions (Merge) that
    #: only a linear classifier needs.
    feature_models = "libsvm"
    #: TiMBL's letters, with the settings of Nivre et al. (2007), §4.1, as defaults.
    options = {
        "k": LibOption(int, 5, 1, 100_000),  # the k nearest distances
        "m": LibOption(str, "M", pattern="M|O", shown="M or O"),  # metric: MVDM or Overlap
        "L": LibOption(int, 3, 1, 100_000),  # MVDM for values seen at least L times, Overlap below
        "d": LibOption(
            str,
            "ID",
            pattern=r"Z|ID|IL|ED:[0-9]{1,15}(\.[0-9]{0,15})?(:[0-9]{1,15}(\.[0-9]{0,15})?)?",
            shown="Z, ID, IL or ED:a[:b]",
        ),  # class votes weighted by distance: equally, inverse distance, inverse linear, exponential decay
        "w": LibOption(int, 1, 0, 4),  # weighting: none, gain ratio, information gain, chi-square, shared variance
    }
    #: TiMBL's MVDM threshold with the Overlap metric.
    ignored_when = {
        "L": (lambda o: o["m"] == "O", "the threshold is MVDM's (-m M), and the Overlap metric (-m O) has none"),
    }
    classifier_name = "Knn"
