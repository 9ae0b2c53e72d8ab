"""The interface every learner's classifier has, so that the parser and the archive treat them alike.

A classifier is trained with ``fit(X, y, n_classes, options, shared)``: X holds the training instances in
the learner's encoding (``symbolic``: one symbol code per feature, for k-NN; otherwise binarized
columns, see ``encoding``), y their classes 0..n_classes-1, and ``shared`` is what the classifiers of
one learning run share (``new_shared()``; LIBLINEAR's random generator). ``classify(X)`` answers a batch: a
score per class (higher is better; the parser ranks the classes by it when the best transition
is not allowed) and the class the learner picks. It is saved as one archive member
(``to_bytes``, ``suffix``) and read back with ``from_archive``.

Each learner's classifier class derives from its ``kinds.Learner`` too, so it carries the
learner's facts (name, options, default feature models) that the registry (``learners.LEARNERS``)
lists without loading NumPy.
"""

from __future__ import annotations

import numpy as np


class Sized:
    """What a learner's ``from_archive`` reads of a feature map, for a classifier whose features
    are numbered elsewhere (the taggers', the tokenizer's): its size."""

    def __init__(self, size: int) -> None:
        self.size = size


class Classifier:
    """A trained classifier (a learner's facts are its ``kinds.Learner``)."""

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
