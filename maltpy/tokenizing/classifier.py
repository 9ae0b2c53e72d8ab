"""A classifier of instances written as feature strings: the tokenizer's three (token ends,
sentence ends, multiword tokens), each LIBLINEAR over binary features (``learners.liblinear``).

The features seen in training are numbered in order of first use; a feature that training never
saw is left out when classifying. In an archive: the feature strings and classes (JSON, checked)
and the learner's weights (its own member, checked by the learner).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from itertools import chain

import numpy as np

from ..errors import require
from ..learners.base import Sized

LEARNER = "liblinear"
#: LIBLINEAR's Crammer-Singer multi-class SVM, as the taggers learn (``tagging.learn``). C 0.1, 0.3
#: and 1 measured on the test text of en_lines, en_partut, la_perseus, sv_talbanken and da_ddt:
#: the same tokens; sentence ends within 0.3 F1 of each other (0.1 best on en_lines, 0.3 on da_ddt).
OPTIONS = "-s 4 -c 0.3 -e 0.1 -B -1"
MAX_FEATURES = 5_000_000  # feature strings of one classifier in an archive
MAX_FEATURE_TEXT = 1_000  # characters of one
MAX_CLASSES = 10_000


class StringClassifier:
    """``classify(rows)``: the class index of each row (a list of feature strings)."""

    def __init__(self, features: dict[str, int], classes: list, model) -> None:
        self.features = features  # feature string -> column
        self.classes = classes  # JSON values (the caller's meaning), the most frequent first
        self.model = model  # a learners.liblinear.LibLinear

    @classmethod
    def fit(cls, rows: Sequence[Sequence[str]], labels: Sequence, shared=None) -> StringClassifier:
        """Learned from ``rows`` with ``labels`` (JSON values: str, or lists of them and numbers)."""
        from ..learners import LEARNERS
        from ..learners.options import parse_learner_options

        hashable = [tuple(label) if isinstance(label, list) else label for label in labels]
        counts: dict = {}
        for label in hashable:
            counts[label] = counts.get(label, 0) + 1
        texts = {label: json.dumps(list(label) if isinstance(label, tuple) else label) for label in counts}
        order = sorted(counts, key=lambda label: (-counts[label], texts[label]))
        number = {label: i for i, label in enumerate(order)}
        y = np.fromiter((number[label] for label in hashable), dtype=np.int64, count=len(labels))
        keys = [texts[label] for label in order]
        features: dict[str, int] = {}
        for row in rows:
            for f in row:
                if f not in features:
                    features[f] = len(features)
        kind = LEARNERS[LEARNER].classifier()
        X = _matrix(rows, features)
        model = kind.fit(X, y, len(keys), parse_learner_options(OPTIONS, LEARNER), shared or kind.new_shared())
        return cls(features, [json.loads(k) for k in keys], model)

    def scores(self, rows: Iterable[Sequence[str]]) -> np.ndarray:
        X = _matrix(rows, self.features)
        if not X.shape[0]:
            return np.zeros((0, len(self.classes)))
        return self.model.scores(X)

    def classify(self, rows: Iterable[Sequence[str]]) -> list[int]:
        """The class index (into ``classes``) of each row."""
        scores = self.scores(rows)
        return scores.argmax(axis=1).tolist() if len(scores) else []

    # --- archive ----------------------------------------------------------------------------------

    def to_archive(self, name: str) -> tuple[dict, dict[str, bytes]]:
        """The entry (member names) and members ``name.json`` and the weights' of this classifier."""
        data = json.dumps({"features": list(self.features), "classes": self.classes}, ensure_ascii=False,
                          separators=(",", ":")).encode("utf-8")  # fmt: skip
        weights = f"{name}.{self.model.suffix}"
        return {"data": f"{name}.json", "weights": weights}, {f"{name}.json": data, weights: self.model.to_bytes()}

    @classmethod
    def from_archive(cls, archive, entry: object, valid_class) -> StringClassifier:
        """The classifier of the entry, every part checked (``valid_class`` of each class)."""
        from ..learners import LEARNERS
        from ..learners.options import parse_learner_options

        require(isinstance(entry, dict) and all(isinstance(entry.get(k), str) for k in ("data", "weights")),
                "a classifier without its members")  # fmt: skip
        data = json.loads(archive.text(entry["data"]))
        require(isinstance(data, dict), "classifier data that is not a mapping")
        texts, classes = data.get("features"), data.get("classes")
        require(isinstance(texts, list) and len(texts) <= MAX_FEATURES, "bad feature strings")
        require(all(isinstance(t, str) and len(t) <= MAX_FEATURE_TEXT for t in texts), "bad feature strings")
        features = {t: i for i, t in enumerate(texts)}
        require(len(features) == len(texts), "a feature string twice")
        require(isinstance(classes, list) and 0 < len(classes) <= MAX_CLASSES and all(map(valid_class, classes)),
                "bad classes")  # fmt: skip
        require(len({json.dumps(c) for c in classes}) == len(classes), "a class twice")
        kind = LEARNERS[LEARNER].classifier()
        options = parse_learner_options(OPTIONS, LEARNER)
        model = kind.from_archive(archive, entry["weights"], Sized(len(features)), len(classes), options)
        return cls(features, classes, model)


def _matrix(rows: Iterable[Sequence[str]], features: dict[str, int]):
    """The rows' known features as a binary CSR matrix, each row's columns ascending (a row's
    feature strings are distinct)."""
    import scipy.sparse as sp

    get = features.get
    columns = [[c for c in map(get, row) if c is not None] for row in rows]
    indptr = np.zeros(len(columns) + 1, dtype=np.int64)
    np.cumsum(np.fromiter(map(len, columns), dtype=np.int64, count=len(columns)), out=indptr[1:])
    indices = np.fromiter(chain.from_iterable(columns), dtype=np.int32, count=int(indptr[-1]))
    X = sp.csr_matrix((np.ones(len(indices)), indices, indptr), shape=(len(columns), len(features)))
    X.sort_indices()
    return X
