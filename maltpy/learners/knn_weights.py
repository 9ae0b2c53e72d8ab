"""TiMBL's feature weights (its Feature::Statistics, computed in its order of additions, so that
the same sums round the same way): information gain, gain ratio, chi-square and shared
variance of each feature, and the order IB1 adds the features' distances in (Nivre et al. 2007,
§4.1: the features are weighted by gain ratio; see knn.py for the classifier that uses them).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

EPSILON = float(np.finfo(float).eps)  # TiMBL's Common::Epsilon


def _log2(x: np.ndarray) -> np.ndarray:
    """TiMBL's Log2: the C library's log2 (NumPy's own may differ in the last bit), 0 below epsilon."""
    unique, inverse = np.unique(x, return_inverse=True)
    logs = np.array([math.log2(u) if abs(u) >= EPSILON else 0.0 for u in unique.tolist()])
    return logs[inverse.ravel()].reshape(x.shape)


def _added_up(terms: np.ndarray, start: float = 0.0) -> float:
    """``start`` and the terms added one after the other, as a C loop does (NumPy's sum pairs
    them up, which rounds differently)."""
    return float(np.cumsum(np.r_[start, terms])[-1])


@dataclass
class FeatureStatistics:
    """How much a feature tells about the class (TiMBL's per-feature statistics)."""

    info_gain: float
    gain_ratio: float
    chi_square: float
    shared_variance: float


def class_entropy(class_frequency: np.ndarray) -> float:
    """H(C) of the training instances, in bits (TiMBL's DBEntropy)."""
    p = class_frequency[class_frequency > 0] / float(class_frequency.sum())
    return abs(-_added_up(p * _log2(p)))


_CELLS = 1 << 21  # values x classes held at once


def feature_statistics(value_classes: sp.csr_matrix, class_frequency: np.ndarray, db_entropy: float,
                       full: bool) -> FeatureStatistics:  # fmt: skip
    """Information gain, gain ratio and (``full``) chi-square and shared variance of a feature
    whose value x class counts are ``value_classes`` (values in order of first appearance,
    classes likewise), computed as TiMBL does: sums over values of sums over classes, each
    added in that order. The values are taken a slice at a time, to bound the memory."""
    m = value_classes.tocsr()
    m.sort_indices()
    n_values, n_classes = m.shape
    frequency = np.asarray(m.sum(axis=1), dtype=np.float64).ravel()
    total = float(frequency.sum())
    row_of = np.repeat(np.arange(n_values), np.diff(m.indptr))
    p = m.data / frequency[row_of]
    p_log_p = p * _log2(p)
    expected_per_value = class_frequency.astype(np.float64)[None, :]
    entropy = chi_square = 0.0
    step = max(1, _CELLS // max(n_classes, 1))
    for lo in range(0, n_values, step):
        hi = min(lo + step, n_values)
        entries = slice(m.indptr[lo], m.indptr[hi])
        rows, cols = row_of[entries] - lo, m.indices[entries]
        cell = np.zeros((hi - lo, n_classes))
        cell[rows, cols] = p_log_p[entries]
        value_entropy = np.cumsum(cell, axis=1)[:, -1]  # per value, its classes in order
        entropy = _added_up(-value_entropy * frequency[lo:hi] / total, entropy)
        if full:  # each cell: (E - O)^2 / E where the value has the class, E where it has not
            expected = (expected_per_value * frequency[lo:hi, None]) / total
            observed = m.data[entries].astype(np.float64)
            e = expected[rows, cols]
            terms = expected
            terms[rows, cols] = np.where(np.abs(e) > EPSILON, (e - observed) * (e - observed) / e, 0.0)
            chi_square = _added_up(terms.ravel(), chi_square)
    entropy = abs(entropy)
    info_gain = max(db_entropy - entropy, 0.0)
    share = frequency / total
    split_info = -_added_up(share * _log2(share))
    gain_ratio = 0.0 if abs(split_info) < EPSILON else info_gain / split_info
    shared_variance = 0.0
    if full:
        k = min(int((class_frequency > 0).sum()), int((frequency > 0).sum())) - 1
        shared_variance = 0.0 if k == 0 else chi_square / float(int(total) * k)
    return FeatureStatistics(info_gain, gain_ratio, chi_square, shared_variance)


def timbl_order(statistics: list[FeatureStatistics], n_values: np.ndarray) -> list[int]:
    """The order TiMBL's IB1 adds the features' distances in: gain ratio over the number of
    values, highest first, ties to the earlier feature (TiMBL's GRoverFeature permutation, which
    picks the largest left, the first of equals, until none is left: a stable sort)."""
    order = [s.gain_ratio / v for s, v in zip(statistics, n_values.tolist())]
    return sorted(range(len(order)), key=lambda f: -order[f])


def feature_weight(s: FeatureStatistics, weighting: int) -> float:
    """The weight w_f of TiMBL's -w: 1 (0), gain ratio (1), information gain (2), chi-square (3),
    shared variance (4)."""
    return (1.0, s.gain_ratio, s.info_gain, s.chi_square, s.shared_variance)[weighting]
