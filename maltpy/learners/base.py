"""The interface every learner's classifier has, so that the parser and the archive treat them alike.

A classifier is trained with ``fit(X, y, n_classes, options, shared)``: X holds the training instances in
the learner's encoding (``symbolic``: one symbol code per feature, for k-NN; otherwise binarized
columns, see ``encoding``), y their classes 0..n_classes-1, and ``shared`` is what the classifiers of
one learning run share (``new_shared()``; LIBLINEAR's random generator). ``classify(X)`` answers a batch: a
score per class (higher is better; the parser ranks the classes by it when the best transition
is not allowed) and the class the learner picks. It is saved as one archive member
(``to_bytes``, ``suffix``) and read back with ``from_archive``.

Each learner's class also carries its facts, which the configuration, the default feature models,
the .mco reader and the command line read from the registry (``learners.LEARNERS``): its name
(``kind``), its options (``options``, ``ignored_when``: MaltParser's ``-lo``), the folder of its
default feature models (``feature_models``) and its name in MaltParser's model files
(``maltparser_file``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np


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


class Classifier:
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

    @classmethod
    def new_shared(cls) -> object:
        """The state shared by the classifiers of one learning run, passed to each ``fit``."""
        return None

    def scores(self, X) -> np.ndarray:
        raise NotImplementedError

    def scores_binary(self, indptr, indices) -> np.ndarray:
        """``scores`` of binarized instances given as the CSR arrays of X (every value 1, each
        row's columns ascending; int64 and int32 buffers: NumPy arrays or ``array.array``),
        without the cost of making a sparse matrix: a long sentence's configurations are
        classified one at a time. The binarized learners only."""
        raise NotImplementedError

    def classify(self, X) -> tuple[np.ndarray, np.ndarray]:
        """The scores, and the first class with the highest score (where MaltParser's ranking starts)."""
        scores = self.scores(X)
        return scores, scores.argmax(axis=1)

    def classify_binary(self, indptr, indices) -> tuple[np.ndarray, np.ndarray]:
        """``classify`` of binarized instances as ``scores_binary`` takes them."""
        scores = self.scores_binary(indptr, indices)
        return scores, scores.argmax(axis=1)

    def to_bytes(self) -> bytes:
        raise NotImplementedError

    def describe_size(self) -> str:
        """What ``maltpy info`` shows of the classifier's size."""
        raise NotImplementedError
