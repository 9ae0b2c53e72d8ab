"""Memory-based learning (Nivre et al. 2007, §2.4 and §4.1): TiMBL's IB1, the k-nearest-neighbour
classifier with the Modified Value Difference Metric, giving the answers of TiMBL 6.5.

The paper's settings are the defaults: k = 5 nearest distances, MVDM for values seen at least
l = 3 times with Overlap below, class votes weighted by inverse distance, and features weighted
by gain ratio, TiMBL's own default. What TiMBL computes (its reference guide, and timbl 6.5
itself where the guide leaves a detail open):

- distance(x, y) = sum over features f of w_f * delta_f(x_f, y_f), added up in TiMBL's feature
  order (gain ratio divided by the number of values, highest first): the order settles the
  rounding, and so which distances are equal.
- delta_f is 0 for equal values and 1 for different ones (Overlap). Under MVDM two values each
  seen at least L times are 1/2 * sum over classes c of |P(c|v1) - P(c|v2)| apart instead. A
  value never seen in training mismatches everything, but for one thing of timbl's: under MVDM
  it is at distance 0 from the value of a feature that has a single value in training (see
  Knn.compared).
- w_f: 1 (-w 0), gain ratio (-w 1), information gain (2), chi-square (3), shared variance (4).
- The neighbours: every stored instance at one of the k smallest distances; identical instances
  are one, with their class counts. Distances less than machine epsilon apart are one distance,
  as timbl's search meets them (its BestArray::addResult): an instance joins a distance less
  than epsilon from its own, the first one met at it, else its distance is a new one. Where
  distinct distances lie that close, the order matters; timbl's is its instance tree's, walked
  depth first in the feature order below, at each level the query's value first and then the
  others in the order their strings first appear in the training file (``Knn.meeting_order``).
- The vote of a class: its count at each of those distances d_1 < ... < d_k, times the weight of
  the distance: 1 (-d Z), 1 / (d_j + epsilon) (ID), (d_k - d_j) / (d_k - d_1) with 1 for the
  nearest (IL), exp(-a * d_j ** b) (ED:a:b).
- The answer: the class with the largest vote. Votes less than epsilon apart tie; a tie goes to
  the class seen more often in training, unless the k+1 nearest distances give a single winner,
  which then stands. With k = 1 an instance identical to the query is its only neighbour at
  distance 0. (timbl also carries one thing from a test instance to the next: see TimblRun.)

Finding the neighbours among all stored instances is the costly part: ``_knn.c`` does it, as a
branch-and-bound search that returns every instance within a query's k+1 nearest distances,
give or take rounding. This module computes the exact distances, the votes and the answer from
what it returns, so every definition above lives here.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..models.archive import npz_bytes
from ._knn import Index
from ._knn import vd as value_difference
from .base import Classifier
from .kinds import KnnLearner
from .knn_weights import EPSILON, class_entropy, feature_statistics, feature_weight, timbl_order

FAR = sys.float_info.max  # TiMBL's distance of a place among the nearest that nothing fills
TABLE_SIDE = 256  # MVDM is tabled for each feature's most frequent values, computed when met otherwise
CELLS = 1 << 23  # class counts (queries x k+1 distances x classes) held at once: 64 MB


@dataclass(slots=True)
class TimblRun:
    """What timbl 6.5 carries from one test instance to the next within a run. Its first tie
    makes its array of nearest distances one place longer (k+1, for the second try), and the
    array never shrinks: every later neighbour set has that extra place, empty, at distance
    DBL_MAX. Only inverse-linear votes feel it: the furthest distance is then that place's, and
    every real neighbour weighs 1. ``maltpy knn`` keeps this state, to give timbl's answers on a
    file; parsing does not (its order of queries is the batch's, and the rule above holds)."""

    tied: bool = False


@dataclass(frozen=True, slots=True)
class Settings:
    """TiMBL's options: -k, -m (M or O), -L, -d (Z, ID, IL or ED:a:b) and -w."""

    k: int = 5
    metric: str = "M"
    limit: int = 3
    decay: str = "ID"
    alpha: float = 1.0
    beta: float = 1.0
    weighting: int = 1

    @classmethod
    def from_options(cls, options: Mapping) -> Settings:
        """From the learner options as the configuration checks them (flags k, m, L, d, w)."""
        decay, _, parameters = str(options["d"]).partition(":")
        a, _, b = parameters.partition(":")
        return cls(int(options["k"]), str(options["m"]), int(options["L"]), decay, float(a or 1), float(b or 1),
                   int(options["w"]))  # fmt: skip

    def describe(self) -> str:
        decay = self.decay if self.decay != "ED" else f"ED:{self.alpha:g}:{self.beta:g}"
        limit = f" -L {self.limit}" if self.metric == "M" else ""
        return f"-k {self.k} -m {self.metric}{limit} -d {decay} -w {self.weighting}"


# --- the classifier -------------------------------------------------------------------------------


class Knn(KnnLearner, Classifier):
    """The instance base: the distinct training instances with their class counts, and what
    classifying needs of it (feature weights, value statistics, the search index)."""

    def __init__(self, instances: np.ndarray, counts: sp.csr_matrix, n_values: np.ndarray,
                 settings: Settings) -> None:  # fmt: skip
        """``instances``: the distinct instances (rows), symbols 0..n_values[f]-1 per feature f;
        ``counts``: their class counts (rows x classes)."""
        self.settings = settings
        self.n_values = np.asarray(n_values, dtype=np.int64)
        self.class_frequency = np.asarray(counts.sum(axis=0), dtype=np.int64).ravel()
        db_entropy = class_entropy(self.class_frequency)
        self.value_classes = [_value_classes(instances[:, f], counts, int(v)) for f, v in enumerate(self.n_values)]
        self.frequency = [np.asarray(m.sum(axis=1), dtype=np.int64).ravel() for m in self.value_classes]
        #: whether each value is frequent enough for MVDM (-L), and False past the last, for -1
        self.frequent = [np.append(freq >= settings.limit, False) for freq in self.frequency]
        full = settings.weighting >= 3
        self.statistics = [feature_statistics(m, self.class_frequency, db_entropy, full) for m in self.value_classes]
        self.weights = np.array([feature_weight(s, settings.weighting) for s in self.statistics])
        self.order = timbl_order(self.statistics, self.n_values)
        # P(c|v) of every value, for MVDM (TiMBL: count / (double) frequency)
        self.distributions = []
        for m, freq in zip(self.value_classes, self.frequency):
            m = m.tocsr()
            m.sort_indices()
            rows = np.repeat(np.arange(m.shape[0]), np.diff(m.indptr))
            self.distributions.append((m.indptr.astype(np.int64), m.indices.astype(np.int32),
                                       m.data.astype(np.float64) / freq[rows].astype(np.float64)))  # fmt: skip
        # under MVDM, the features whose values never seen in training are as their one value (see compared)
        single = [f for f, freq in enumerate(self.frequency) if settings.metric == "M" and (freq > 0).sum() == 1]
        self.single_valued = [(f, int(np.flatnonzero(self.frequency[f])[0])) for f in single]
        self.index = _SearchIndex(self, instances)
        self.instances = instances[self.index.rows]
        self.counts = counts[self.index.rows]
        self._row_of: dict[bytes, int] | None = None  # instance -> row, for k = 1
        # per feature, each value's place in the order timbl keeps a node's children in: the order
        # of their strings in timbl's string table, where experiment() knows it; else their own
        self.meeting_order = [np.arange(v) for v in self.n_values.tolist()]

    @classmethod
    def fit(cls, X: np.ndarray, y: np.ndarray, n_classes: int, options: Mapping, shared: None = None) -> Knn:
        """Store the instances X (symbols, every one of 0..max used) with their classes y."""
        rows, inverse = np.unique(X, axis=0, return_inverse=True)
        counts = sp.csr_matrix((np.ones(len(y), dtype=np.int64), (inverse.ravel(), y)), shape=(len(rows), n_classes))
        counts.sum_duplicates()
        return cls(rows.astype(np.int32), counts, X.max(axis=0) + 1, Settings.from_options(options))

    # --- classifying ------------------------------------------------------------------------

    def classify(self, X: np.ndarray, run: TimblRun | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The class votes (the distribution TiMBL decided on) and TiMBL's answer for each row;
        with ``run``, as timbl answers the rows one after the other in a run (see TimblRun)."""
        X = np.ascontiguousarray(X, dtype=np.int32)
        scores = np.zeros((len(X), len(self.class_frequency)))
        best = np.zeros(len(X), dtype=np.int64)
        step = max(1, min(1024, CELLS // ((self.settings.k + 1) * len(self.class_frequency))))
        for start in range(0, len(X), step):
            batch = X[start : start + step]
            scores[start : start + step], best[start : start + step] = self._classify(batch, run)
        return scores, best

    def scores(self, X: np.ndarray) -> np.ndarray:
        return self.classify(X)[0]

    def compared(self, X: np.ndarray) -> np.ndarray:
        """The queries X as timbl 6.5 compares them with the stored instances. Under MVDM timbl
        reads the distance of two values from a table it makes at training, when both were seen
        at least rint(10 ln V) times, V the number of values of the feature (MBLClass.cxx,
        CLIP_FACTOR 10; Instance.cxx, Feature::fvDistance); the table has no entry for a value
        never seen, and a missing entry reads as 0 (Matrices.h, SparseSymetricMatrix::Extract).
        With V = 1 that threshold is 0 occurrences: a value never seen, which every other
        feature mismatches, is at distance 0 from the one value of such a feature. Only the
        distances see this: timbl's exact match (k = 1) still wants the values themselves."""
        if not self.single_valued or not (X < 0).any():
            return X
        X = X.copy()
        for f, value in self.single_valued:
            X[X[:, f] < 0, f] = value
        return X

    def _classify(self, X: np.ndarray, run: TimblRun | None) -> tuple[np.ndarray, np.ndarray]:
        k = self.settings.k
        if self.index.levels:
            compared = self.compared(X)
            query, rows = self.index.candidates(compared)
            distance = self.distances(compared[query], self.instances[rows])
            place, counts = self.neighbours(query, rows, distance, compared)
        else:  # every feature weighs 0: every instance is at distance 0
            place = np.full((len(X), k + 1), FAR)
            place[:, 0] = 0.0
            counts = np.zeros((len(X), k + 1, len(self.class_frequency)))
            counts[:, 0] = self.class_frequency
        if k == 1:
            self._exact_match_alone(X, place, counts)
        votes, present = self.votes(place, counts, k)
        best, tie = self.best_class(votes, present)
        if run is not None and (run.tied or tie.any()):
            after = 0 if run.tied else int(np.argmax(tie)) + 1  # the rows after timbl's first tie
            run.tied = True
            empty_place = np.c_[place[after:, :k], np.full(len(X) - after, FAR)]
            no_counts = np.concatenate([counts[after:, :k], np.zeros_like(counts[after:, :1])], axis=1)
            votes[after:], present[after:] = self.votes(empty_place, no_counts, k + 1)
            best[after:], tie[after:] = self.best_class(votes[after:], present[after:])
        if tie.any():  # TiMBL tries k+1 distances: a single winner there stands
            wider, present = self.votes(place[tie], counts[tie], k + 1)
            best_wider, tie_wider = self.best_class(wider, present)
            settled = np.flatnonzero(tie)[~tie_wider]
            best[settled] = best_wider[~tie_wider]
            votes[settled] = wider[~tie_wider]
        return votes, best

    def distances(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """distance(a[i], b[i]) for rows of symbols (-1: unknown in a), added in TiMBL's order."""
        total = np.zeros(len(a))
        for f in self.order:
            total += self.weights[f] * self.delta(f, a[:, f], b[:, f])
        return total

    def delta(self, f: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """delta_f between the values a[i] and b[i] of feature f (b known; a may be -1, unknown)."""
        unequal = a != b
        d = unequal.astype(np.float64)
        if self.settings.metric == "M":
            frequent = self.frequent[f]  # its last place, where an unknown value (-1) looks, is False
            mvdm = np.flatnonzero(unequal & frequent[a] & frequent[b])
            d[mvdm] = self.vd(f, a[mvdm], b[mvdm])
        return d

    def vd(self, f: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """The MVDM of value pairs of feature f (computed in _knn.c, in TiMBL's order)."""
        out = np.empty(len(a))
        value_difference(*self.distributions[f], a.astype(np.int32, copy=False), b.astype(np.int32, copy=False), out)
        return out

    def neighbours(self, query: np.ndarray, rows: np.ndarray, distance: np.ndarray, X: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
        """The k+1 nearest distances of the queries X (FAR where there are fewer) and the class
        counts at each, (queries x k+1), (queries x k+1 x classes), from the stored instances
        ``rows`` at ``distance`` from the queries ``query``. Distances that differ are at
        least epsilon apart for most queries, and taken in order; the others' are met as timbl
        meets them (see timbl_places)."""
        n_queries, places = len(X), self.settings.k + 1
        n_classes = len(self.class_frequency)
        order = np.lexsort((distance, query))
        query, rows, distance = query[order], rows[order], distance[order]
        first_of_query = np.r_[True, query[1:] != query[:-1]]
        step = np.r_[EPSILON, np.diff(distance)]
        new = first_of_query | (step >= EPSILON)
        group = np.cumsum(new) - 1
        rank = group - (group[first_of_query])[np.cumsum(first_of_query) - 1]
        near = rank < places
        place = np.full((n_queries, places), FAR)
        starts = new & near
        place[query[starts], rank[starts]] = distance[starts]
        # the class counts of the instances at each place
        at, stored, rank = query[near], rows[near], rank[near]
        indptr, classes, found = self.counts.indptr, self.counts.indices, self.counts.data
        lengths = indptr[stored + 1] - indptr[stored]
        pair = np.repeat(np.arange(len(stored)), lengths)
        entry = indptr[stored][pair] + np.arange(len(pair)) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        cell = (at[pair] * places + rank[pair]) * n_classes + classes[entry]
        counts = np.bincount(cell, weights=found[entry], minlength=n_queries * places * n_classes)
        counts = counts.reshape(n_queries, places, n_classes)
        for q in np.unique(query[~first_of_query & (step > 0) & (step < EPSILON)]).tolist():
            mine = slice(np.searchsorted(query, q), np.searchsorted(query, q, side="right"))
            place[q], counts[q] = self.timbl_places(X[q], rows[mine], distance[mine])
        return place, counts

    def timbl_places(self, x: np.ndarray, rows: np.ndarray, distance: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The k+1 nearest distances of the query x and the class counts at each, from the
        stored instances ``rows`` at ``distance``, as timbl's BestArray::addResult makes them
        (TiMBL 6.5, BestArray.cxx): each instance, in the order timbl meets them, joins the
        first distance less than epsilon from its own, or else becomes a new distance before the
        first larger one, the furthest of the k+1 falling off. A distance is the one met first."""
        places = self.settings.k + 1
        values = self.instances[rows]
        levels = [np.where(values[:, f] == x[f], -1, self.meeting_order[f][values[:, f]]) for f in self.order]
        met: list[tuple[float, list[int]]] = []
        for i in np.lexsort(levels[::-1]).tolist():
            d, row = float(distance[i]), int(rows[i])
            for j, (at, members) in enumerate(met):
                if abs(d - at) < EPSILON:
                    members.append(row)
                    break
                if d < at:
                    met.insert(j, (d, [row]))
                    del met[places:]
                    break
            else:
                if len(met) < places:
                    met.append((d, [row]))
        place = np.full(places, FAR)
        counts = np.zeros((places, len(self.class_frequency)))
        for j, (at, members) in enumerate(met):
            place[j] = at
            counts[j] = np.asarray(self.counts[members].sum(axis=0)).ravel()
        return place, counts

    def _exact_match_alone(self, X: np.ndarray, place: np.ndarray, counts: np.ndarray) -> None:
        """With k = 1 TiMBL takes an instance identical to the query as its nearest neighbour,
        alone: other instances at distance 0 do not join it (they are left out of both places)."""
        if self._row_of is None:
            self._row_of = {row.tobytes(): r for r, row in enumerate(self.instances)}
        found = [(q, self._row_of.get(row.tobytes())) for q, row in enumerate(X)]
        found = [(q, r) for q, r in found if r is not None]
        if found:
            q, r = map(np.array, zip(*found))
            counts[q, 0] = self.counts[r].toarray()
            place[q, 0] = 0.0

    def votes(self, place: np.ndarray, counts: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
        """Each class's vote from the n nearest distances, added place by place as TiMBL does,
        and which classes are among the neighbours at all."""
        weight = self.distance_weights(place[:, :n])
        votes = np.cumsum(counts[:, :n] * weight[:, :, None], axis=1)[:, -1]  # cumsum: added place by place
        return votes, counts[:, :n].sum(axis=1) > 0

    def distance_weights(self, place: np.ndarray) -> np.ndarray:
        """The weight of the votes at each of the nearest distances (TiMBL's -d)."""
        s = self.settings
        if s.decay == "Z":
            return np.ones_like(place)
        if s.decay == "ID":
            return 1.0 / (place + EPSILON)
        if s.decay == "IL":
            weight = np.ones_like(place)
            if place.shape[1] > 1:
                nearest, furthest = place[:, :1], place[:, -1:]
                weight[:, 1:] = (furthest - place[:, 1:]) / (furthest - nearest)
            return weight
        weight = [_exponential_decay(d, s.alpha, s.beta) for d in place.ravel().tolist()]
        return np.array(weight).reshape(place.shape)

    def best_class(self, votes: np.ndarray, present: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """TiMBL's choice among the classes present, in class order: a larger vote wins; a vote
        within epsilon of the leader is a tie, won by the class more frequent in training."""
        n = len(votes)
        best = np.full(n, -1)
        top = np.zeros(n)
        tie = np.zeros(n, dtype=bool)
        for c in np.flatnonzero(present.any(axis=0)).tolist():  # a class no row has changes nothing
            here = present[:, c]
            vote = votes[:, c]
            leads = here & ((best < 0) | (vote > top))
            near = here & ~leads & (np.abs(vote - top) < EPSILON)
            best[leads], top[leads], tie[leads] = c, vote[leads], False
            tie[near] = True
            best[near & (self.class_frequency[c] > self.class_frequency[np.maximum(best, 0)])] = c
        return best, tie

    # --- the archive ----------------------------------------------------------------------------

    def to_bytes(self) -> bytes:
        c = self.counts
        return npz_bytes(instances=self.instances, indptr=c.indptr.astype(np.int64), classes=c.indices.astype(np.int32),
                         counts=c.data.astype(np.int64))  # fmt: skip

    @classmethod
    def from_archive(cls, archive, name: str, featuremap, n_classes: int, options: Mapping) -> Knn:
        """Read and check the instance base (ValueError if it is not a consistent one)."""
        a = archive.arrays(name, ("instances", "indptr", "classes", "counts"))
        n_values = np.array([len(t) for t in featuremap.tables], dtype=np.int64)
        instances = _integers(a, "instances", 0, 2**31 - 1)
        indptr, classes = _integers(a, "indptr", 0, 2**62), _integers(a, "classes", 0, n_classes - 1)
        counts = _integers(a, "counts", 1, 2**31 - 1)
        if instances.ndim != 2 or instances.shape[1] != len(n_values) or len(instances) == 0:
            raise ValueError("instance base: not a table of instances, one symbol per feature")
        if (instances >= n_values).any():
            raise ValueError("instance base: a symbol out of range")
        n = len(instances)
        if indptr.shape != (n + 1,) or indptr[0] != 0 or (np.diff(indptr) < 1).any() or indptr[-1] != len(classes):
            raise ValueError("instance base: class counts are not one nonempty list per instance")
        if classes.shape != counts.shape or counts.sum() >= 2**53:
            raise ValueError("instance base: the class counts do not match their classes, or are too many")
        matrix = sp.csr_matrix((counts, classes.astype(np.int32), indptr), shape=(n, n_classes))
        matrix.sum_duplicates()
        return cls(instances.astype(np.int32), matrix, n_values, Settings.from_options(options))

    def describe_size(self) -> str:
        return f"{len(self.instances)} distinct instances ({self.settings.describe()})"


def _integers(arrays: dict[str, np.ndarray], name: str, low: int, high: int) -> np.ndarray:
    """The archive's array ``name`` as int64, if it holds integers from low to high (compared as
    Python integers, so that no unsigned or narrow type wraps around). ValueError otherwise."""
    x = arrays[name]
    if x.dtype.kind not in "iu":
        raise ValueError(f"instance base: {name} is not an array of integers")
    if x.size and (int(x.min()) < low or int(x.max()) > high):
        raise ValueError(f"instance base: {name} holds a number outside {low}..{high}")
    return x.astype(np.int64)


def _value_classes(values: np.ndarray, counts: sp.csr_matrix, n_values: int) -> sp.csr_matrix:
    """value x class counts of one feature, from the instances' values and class counts."""
    which = sp.csr_matrix((np.ones(len(values)), (values, np.arange(len(values)))), shape=(n_values, len(values)))
    return (which @ counts.astype(np.float64)).tocsr()


def _exponential_decay(d: float, alpha: float, beta: float) -> float:
    """exp(-a * d ** b) with the C library, as TiMBL: a weight of 0 becomes epsilon."""
    try:
        weight = math.exp(-alpha * math.pow(d, beta))
    except OverflowError:
        weight = 0.0
    return weight if weight != 0 else EPSILON


class _SearchIndex:
    """The instance base as _knn.c searches it: a trie over the features of nonzero weight, in
    the order that prunes soonest, with the MVDM of each feature's most frequent values tabled.
    ``rows`` is the order of the instances in it."""

    def __init__(self, knn: Knn, instances: np.ndarray) -> None:
        weights = knn.weights
        # Features that cost much to mismatch, tell the classes apart and branch little go first
        # (measured on Latin: 1.5 to 3 times fewer nodes than by weight or in TiMBL's order).
        worth = [w * s.gain_ratio / math.log2(1 + v) for w, s, v in zip(weights, knn.statistics, knn.n_values)]
        self.levels = [f for f in sorted(range(len(weights)), key=lambda f: (-worth[f], -weights[f], f))
                       if weights[f] > 0]  # fmt: skip
        metric_is_mvdm = knn.settings.metric == "M"
        limit = knn.settings.limit if metric_is_mvdm else 0
        n = len(instances)
        if not self.levels:  # every instance is at distance 0 of every query
            self.rows = np.arange(n)
            return
        columns = instances[:, self.levels]
        self.rows = np.lexsort(columns.T[::-1])
        columns = columns[self.rows]
        # The nodes of each level: runs of rows sharing their values up to that level. Below a node
        # with a single row none are kept (the search finishes on the row itself).
        new = np.zeros(n, dtype=bool)
        new[0] = True
        kept: list[tuple[np.ndarray, np.ndarray]] = []  # each level's nodes: first rows, numbers of rows
        starts, sizes = np.zeros(1, dtype=np.int64), np.array([n])  # the root
        for level in range(len(self.levels)):
            above, above_sizes = starts, sizes
            new[1:] |= columns[1:, level] != columns[:-1, level]
            starts = np.flatnonzero(new)
            sizes = np.diff(np.r_[starts, n])
            keep = (above_sizes[np.searchsorted(above, starts, side="right") - 1] >= 2) | (level == 0)
            kept.append((starts[keep], sizes[keep]))
        loff = np.r_[0, np.cumsum([len(x) for x, _ in kept])].astype(np.int64)
        if loff[-1] >= 2**31:
            raise ValueError("instance base too large for the search (2**31 nodes)")
        nodes = np.empty((loff[-1], 4), dtype=np.int32)  # value, first child, end of children, the only row
        for level, (x, sizes) in enumerate(kept):
            at = slice(loff[level], loff[level + 1])
            nodes[at, 0] = columns[x, level]
            nodes[at, 3] = np.where(sizes == 1, x, -1)
            if level + 1 < len(kept):  # children: the next level's nodes within the run (none below one row)
                below = kept[level + 1][0]
                nodes[at, 1] = np.searchsorted(below, x) + loff[level + 1]
                nodes[at, 2] = np.searchsorted(below, x + sizes) + loff[level + 1]
            else:  # at the last level, rows
                nodes[at, 1], nodes[at, 2] = x, x + sizes
        row = np.ascontiguousarray(columns, dtype=np.int32)
        weight = weights[self.levels].astype(np.float64)
        mvdm = np.full(len(self.levels), metric_is_mvdm, dtype=np.uint8)
        sizes = knn.n_values[self.levels]
        voff = np.r_[0, np.cumsum(sizes)].astype(np.int64)
        vfreq = np.concatenate([knn.frequency[f] for f in self.levels]).astype(np.int32)
        starts, classes, probs, slots, tables, toff, tsize = [], [], [], [], [], [], []
        nnz = table_size = 0
        for f in self.levels:
            indptr, cls, prob = knn.distributions[f]
            starts.append(indptr[:-1] + nnz)
            classes.append(cls)
            probs.append(prob)
            nnz += len(cls)
            slot = np.full(len(indptr) - 1, -1, dtype=np.int32)
            tabled = np.zeros(0, dtype=np.int32)
            if metric_is_mvdm:
                by_frequency = np.argsort(-knn.frequency[f], kind="stable")
                tabled = by_frequency[knn.frequency[f][by_frequency] >= limit][:TABLE_SIDE].astype(np.int32)
                slot[tabled] = np.arange(len(tabled), dtype=np.int32)
            side = len(tabled)
            tables.append(knn.vd(f, np.repeat(tabled, side), np.tile(tabled, side)))
            slots.append(slot)
            toff.append(table_size)
            tsize.append(side)
            table_size += side * side
        self.index = Index(
            n, len(self.levels), limit, knn.settings.k + 1, loff, nodes, row,
            weight, mvdm, voff, vfreq, np.concatenate(slots), np.array(toff, dtype=np.int64),
            np.array(tsize, dtype=np.int32), np.concatenate(tables).astype(np.float64),
            np.concatenate([*starts, [nnz]]).astype(np.int64), np.concatenate(classes).astype(np.int32),
            np.concatenate(probs).astype(np.float64),
        )  # fmt: skip

    def candidates(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(query, row) pairs: for each query, every instance (row in ``rows`` order) within its
        k+1 nearest distances, and perhaps a few more."""
        if not self.levels:
            n = len(self.rows)
            return np.repeat(np.arange(len(X)), n), np.tile(np.arange(n), len(X))
        queries = np.ascontiguousarray(X[:, self.levels], dtype=np.int32)
        counts, rows = self.index.search(queries)
        counts = np.frombuffer(counts, dtype=np.int32)
        return np.repeat(np.arange(len(X)), counts), np.frombuffer(rows, dtype=np.int32).astype(np.int64)


def experiment(train: list[list[str]], test: list[list[str]], options: Mapping) -> list[str]:
    """What ``timbl -f TRAIN -t TEST`` answers: the class of each test instance, learned from the
    training instances (rows of symbols, the class last; symbols and classes are numbered in
    order of first appearance, as TiMBL numbers them)."""
    tables: list[dict[str, int]] = [{} for _ in range(len(train[0]) - 1)]
    classes: dict[str, int] = {}
    X = np.array([[t.setdefault(v, len(t)) for t, v in zip(tables, row)] for row in train], dtype=np.int32)
    y = np.array([classes.setdefault(row[-1], len(classes)) for row in train], dtype=np.int64)
    Q = np.array([[t.get(v, -1) for t, v in zip(tables, row)] for row in test], dtype=np.int32)
    knn = Knn.fit(X, y, len(classes), options)
    strings: dict[str, int] = {}  # timbl's one table of the features' strings, in order of first appearance
    for row in train:
        for value in row[:-1]:
            strings.setdefault(value, len(strings))
    knn.meeting_order = [np.array([strings[v] for v in t]) for t in tables]
    names = list(classes)
    _, best = knn.classify(Q.reshape(len(test), len(tables)), TimblRun())
    return [names[c] for c in best.tolist()]
