"""The learned weights' scorers (weights.py, "learned"): the probability that an arc some member
proposes is right (``ArcScorer``), and that a label some member gives an arc is the word's
(``LabelScorer``), each a logistic regression over features (features.py) fitted to the members'
parses of held-out text."""

from __future__ import annotations

import collections
import dataclasses
import functools
import itertools
import math
from collections.abc import Mapping, Sequence

import numpy as np

from ..errors import require
from .features import Tree, arc_feature_groups, label_candidates, label_features

MAX_FEATURES = 1_000_000  # features of a learned arc scorer, in an archive
MAX_FEATURE_NAME = 400
MAX_SUMS = 1 << 18  # feature groups whose weights a scorer keeps summed
#: the learned scorer's regularization: LogisticRegression's C (inverse strength); 0.03 to 1 score
#: within 0.1 LAS of each other on en_lines, da_ddt and la_perseus (scripts/bench_blend.py)
SCORER_C = 0.1
FLOOR = 1e-6  # the least probability a proposed arc scores (its log: about -13.8) ...
LOG_FLOOR = math.log(FLOOR)
UNPROPOSED = -30.0  # ... above what an arc no member proposed scores


@dataclasses.dataclass(frozen=True)
class ArcScorer:
    """The probability that an arc some member proposes is right: logistic regression over its
    ``arc_features``, fitted to the members' parses of held-out text (``fit``). A tree's score is
    the sum of its arcs' log-probabilities."""

    index: Mapping[str, int]
    coef: np.ndarray
    intercept: float

    def scores(self, trees: Sequence[Tree], tags: Sequence[str], feats: Sequence[str] | None = None) -> np.ndarray:
        """The (n+1) x (n+1) matrix of arc scores: log P(right) of each proposed arc, UNPROPOSED
        for the others (``feats``: the words' FEATS, as ``arc_feature_groups`` takes them)."""
        n = len(tags)
        scores = np.full((n + 1, n + 1), UNPROPOSED)
        weight, nothing, sums = self.weights.get, itertools.repeat(0.0), self._sums
        for h, d, groups in arc_feature_groups(trees, tags, feats):
            z = self.intercept
            for group in groups:
                total = sums.get(group)
                if total is None:
                    total = sums[group] = sum(map(weight, group, nothing))
                    if len(sums) > MAX_SUMS:
                        sums.clear()
                z += total
            scores[h, d] = max(-math.log1p(math.exp(-z)) if z > -700 else z, LOG_FLOOR)
        return scores

    @functools.cached_property
    def _sums(self) -> dict[tuple[str, ...], float]:
        """The weight of each feature group met so far (``arc_feature_groups``)."""
        return {}

    @functools.cached_property
    def weights(self) -> dict[str, float]:
        """Each feature's weight (a feature training never saw weighs nothing)."""
        return dict(zip(self.index, self.coef.tolist()))

    @classmethod
    def fit(cls, rows: list[tuple[list[str], bool]]) -> ArcScorer:
        """The scorer fitted to ``rows``: each proposed arc's features, and whether it is right."""
        from scipy.sparse import csr_matrix
        from sklearn.linear_model import LogisticRegression

        # what an archive keeps (from_json): names of at most MAX_FEATURE_NAME characters (a longer
        # one, from a long tag or FEATS, weighs nothing), and the MAX_FEATURES most frequent
        counts = collections.Counter(f for names, _ in rows for f in names)
        kept = {f: k for f, k in counts.items() if len(f) <= MAX_FEATURE_NAME}
        if len(kept) > MAX_FEATURES:
            kept = dict(collections.Counter(kept).most_common(MAX_FEATURES))
        if len(kept) < len(counts):
            rows = [([f for f in names if f in kept], right) for names, right in rows]
        index: dict[str, int] = {}
        columns = [index.setdefault(f, len(index)) for names, _ in rows for f in names]
        pointers = np.cumsum([0] + [len(names) for names, _ in rows])
        x = csr_matrix((np.ones(len(columns)), columns, pointers), shape=(len(rows), len(index)))
        y = np.array([right for _, right in rows])
        if y.all() or not y.any():  # one class only: every arc right, or none
            return cls(index, np.zeros(len(index)), 30.0 if y.all() else -30.0)
        model = LogisticRegression(C=SCORER_C, max_iter=1000).fit(x, y)
        return cls(index, model.coef_[0].copy(), float(model.intercept_[0]))

    def as_json(self) -> dict:
        return {"features": list(self.index), "coef": self.coef.tolist(), "intercept": self.intercept}

    @classmethod
    def from_json(cls, stored: object) -> ArcScorer:
        """The scorer an archive holds (ValueError if it is not one)."""
        require(isinstance(stored, dict), "a learned arc scorer that is not a mapping")
        features, coef, intercept = stored.get("features"), stored.get("coef"), stored.get("intercept")
        require(isinstance(features, list) and isinstance(coef, list) and len(features) == len(coef) <= MAX_FEATURES,
                "a learned arc scorer without one weight per feature")  # fmt: skip
        require(all(isinstance(f, str) and len(f) <= MAX_FEATURE_NAME for f in features)
                and len(set(features)) == len(features), "a learned arc scorer's features are not names")  # fmt: skip
        require(all(finite(w) for w in coef) and finite(intercept), "a learned arc scorer's weight is not a number")
        return cls({f: k for k, f in enumerate(features)}, np.array(coef, dtype=float), float(intercept))


class LabelScorer(ArcScorer):
    """The probability that a label some member gives an arc is the word's: logistic regression
    over its ``label_features``, fitted to the members' labels of the held-out words whose gold
    head they propose, where they give more than one (``ArcScorer.fit``, with other rows)."""

    def choose(self, trees: Sequence[Tree], h: int, d: int, tags: Sequence[str],
               feats: Sequence[str] | None = None) -> str:  # fmt: skip
        """Word d's label on the arc h -> d: of the labels the members proposing it give it (all
        members' labels, if none does), the one of highest score (ties: the earliest member's)."""
        proposing, labels = label_candidates(trees, h, d)
        if len(labels) == 1:
            return labels[0]
        weight = self.weights.get
        scores = [sum(weight(f, 0.0) for f in label_features(label, proposing, trees, h, d, tags, feats))
                  for label in labels]  # fmt: skip
        return labels[scores.index(max(scores))]


def finite(value: object) -> bool:
    """Whether ``value``, as an archive's JSON gives it, is a finite number (not a bool, NaN or infinity)."""
    return type(value) in (int, float) and math.isfinite(value)
