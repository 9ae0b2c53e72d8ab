"""Learners behind one small interface (``base.Classifier``), and a classifier with its encoding.

``liblinear`` and ``libsvm`` read binarized instances, ``knn`` symbolic ones (see ``encoding``).
``LEARNERS`` is the one list of them: a learner is its class there, which carries its facts (its
name, options, default feature models, MaltParser's name for it); adding one is its module and
one entry.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from itertools import accumulate, chain
from typing import TYPE_CHECKING

from .kinds import KnnLearner, Learner, LibLinearLearner, LibSvmLearner

if TYPE_CHECKING:
    import numpy as np

    from .base import Classifier
    from .encoding import FeatureMap, SymbolMap

#: The learners by name (``guide.learner``, MaltParser's -l), the default first.
LEARNERS: dict[str, type[Learner]] = {
    learner.kind: learner for learner in (LibLinearLearner, LibSvmLearner, KnnLearner)
}


def map_class(learner: str) -> type[FeatureMap] | type[SymbolMap]:
    """How the learner's instances are encoded."""
    from .encoding import FeatureMap, SymbolMap

    return SymbolMap if LEARNERS[learner].symbolic else FeatureMap


@dataclass
class AtomicModel:
    """One classifier with its feature map; ``labels[i]`` is the class (an index into the
    parser's class list) of the classifier's class i, in order of first appearance in its
    training instances (the order LIBSVM and LIBLINEAR number classes in, which settles ties,
    and TiMBL too)."""

    name: str
    featuremap: FeatureMap | SymbolMap
    labels: list[int]
    classifier: Classifier
    instances: int
    transitions: list = None  # the (transition, label) of each class, set by the parser

    def classify(self, rows: list[tuple]) -> tuple[np.ndarray, np.ndarray]:
        """Scores and best class of each row of feature values."""
        return self.classifier.classify(self.featuremap.transform(rows))

    def classify_columns(self, rows: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
        """The same for instances given as their lists of binarized columns, each ascending (see
        FeatureMap.columns_of)."""
        indptr = array("q", accumulate(map(len, rows), initial=0))
        indices = array("i", rows[0] if len(rows) == 1 else chain.from_iterable(rows))
        return self.classifier.classify_binary(indptr, indices)
