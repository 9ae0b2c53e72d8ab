"""Learners behind one small interface, and the binarization of feature values.

A classifier is trained with ``fit(X, y, n_classes, options)`` and answers a batch with
``scores(X)``: one row per instance, one column per class, higher is better (LIBLINEAR's
decision values, LIBSVM's votes). X is a sparse 0/1 matrix: symbolic features are binarized,
one column per (feature, value) pair (Nivre 2008, §6.1), numbered in order of first appearance
in the training instances as MaltParser's FeatureMap numbers them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .liblinear import LibLinear
from .libsvm import LibSvm

LEARNERS = {"liblinear": LibLinear, "libsvm": LibSvm}
NUMBER = "#number#"  # the one column of a numeric feature, whose value is the number


class FeatureMap:
    """(feature position, value) -> column of X, numbered by first appearance.

    ``positions`` are the positions in the feature model this map reads (a data split's
    sub-models leave out the split feature). Values: a string is one binary feature, a tuple
    several, a number one feature with that value, None (or a null left out) nothing.
    """

    def __init__(self, positions: list[int], skip: frozenset = frozenset()) -> None:
        self.positions = positions
        self.skip = skip
        self.columns: list[dict[object, int]] = [{} for _ in positions]
        self.size = 0

    def keys(self) -> list[list]:
        """[position, value] of every column, in column order (for the model archive)."""
        out: list[list] = [[]] * self.size
        for p, table in zip(self.positions, self.columns):
            for value, column in table.items():
                out[column] = [p, value]
        return out

    @classmethod
    def from_keys(cls, positions: list[int], keys: list[list], skip: frozenset = frozenset()) -> FeatureMap:
        fmap = cls(positions, skip)
        slot = {p: i for i, p in enumerate(positions)}
        for column, (p, value) in enumerate(keys):
            fmap.columns[slot[p]][value] = column
        fmap.size = len(keys)
        return fmap

    def fit(self, rows: list[list]) -> sp.csr_matrix:
        """X for the training rows, numbering every new (position, value) as it comes."""
        return self._matrix(rows, grow=True)

    def transform(self, rows: list[list]) -> sp.csr_matrix:
        """X for new rows; values never seen in training are left out."""
        return self._matrix(rows, grow=False)

    def _matrix(self, rows: list[list], grow: bool) -> sp.csr_matrix:
        indptr = [0]
        indices: list[int] = []
        data: list[float] = []
        skip = self.skip
        slots = list(zip(self.positions, self.columns))
        for row in rows:
            for p, table in slots:
                value = row[p]
                if value is None or value in skip:
                    continue
                if isinstance(value, str):
                    items, weight = (value,), 1.0
                elif isinstance(value, tuple):
                    items, weight = value, 1.0
                else:
                    items, weight = (NUMBER,), float(value)
                for item in items:
                    column = table.get(item)
                    if column is None:
                        if not grow:
                            continue
                        column = table[item] = self.size
                        self.size += 1
                    indices.append(column)
                    data.append(weight)
            indptr.append(len(indices))
        X = sp.csr_matrix(
            (np.array(data), np.array(indices, dtype=np.int32), np.array(indptr)), shape=(len(rows), self.size)
        )
        X.sort_indices()
        return X


@dataclass
class AtomicModel:
    """One classifier with its feature map; ``labels[i]`` is the class (an index into the
    parser's class list) of the classifier's class i, in order of first appearance in its
    training instances (the order LIBSVM and LIBLINEAR number classes in, which settles ties)."""

    name: str
    featuremap: FeatureMap
    labels: list[int]
    classifier: LibLinear | LibSvm
    instances: int

    def scores(self, rows: list[list]) -> np.ndarray:
        X = self.featuremap.transform(rows)
        return self.classifier.scores(X)
