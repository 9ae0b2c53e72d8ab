"""A classifier of instances written as feature strings: the tokenizer's three (token ends,
sentence ends, multiword tokens), each LIBLINEAR over binary features (``learners.liblinear``).

The features seen in training are numbered in order of first use; a feature that training never
saw is left out when classifying. In an archive: the feature strings and classes (JSON, checked)
and the learner's weights (its own member, checked by the learner).
"""

from __future__ import annotations

import json
from array import array
from collections.abc import Iterable, Sequence

import numpy as np

from ..errors import require

LEARNER = "liblinear"
#: LIBLINEAR's Crammer-Singer multi-class SVM, as the taggers learn (``tagging.learn``); C measured
#: on en_lines and la_perseus (0.1 to 1: token F1 within 0.02, sentences F1 best at 0.3).
OPTIONS = "-s 4 -c 0.3 -e 0.1 -B -1"
MAX_FEATURES = 5_000_000  # feature strings of one classifier in an archive
MAX_FEATURE_TEXT = 1_000  # characters of one
MAX_CLASSES = 10_000


class _Size:
    """What a learner's from_archive reads of a feature map: its size."""

    def __init__(self, size: int) -> None:
        self.size = size


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

        counts: dict[str, int] = {}
        for label in labels:
            key = json.dumps(label)
            counts[key] = counts.get(key, 0) + 1
        keys = sorted(counts, key=lambda k: (-counts[k], k))
        number = {k: i for i, k in enumerate(keys)}
        y = np.fromiter((number[json.dumps(label)] for label in labels), dtype=np.int64, count=len(labels))
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
        indptr, indices = _csr(rows, self.features)
        if len(indptr) == 1:
            return np.zeros((0, len(self.classes)))
        return self.model.scores_binary(indptr, indices)

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
        model = kind.from_archive(archive, entry["weights"], _Size(len(features)), len(classes), options)
        return cls(features, classes, model)


def _csr(rows: Iterable[Sequence[str]], features: dict[str, int]) -> tuple[array, array]:
    """The CSR arrays of the rows' known features, each row's columns ascending."""
    indptr, indices = array("q", [0]), array("i")
    get = features.get
    for row in rows:
        columns = sorted({c for c in map(get, row) if c is not None})
        indices.extend(columns)
        indptr.append(len(indices))
    return indptr, indices


def _matrix(rows: Sequence[Sequence[str]], features: dict[str, int]):
    import scipy.sparse as sp

    indptr, indices = _csr(rows, features)
    data = np.ones(len(indices))
    return sp.csr_matrix((data, np.frombuffer(indices, dtype=np.int32), np.frombuffer(indptr, dtype=np.int64)),
                         shape=(len(indptr) - 1, len(features)))  # fmt: skip
