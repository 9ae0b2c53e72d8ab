"""One point of the search (a setting) and its trial: learn on a training part, score LAS on the
held-out part (the dev file, K folds, or a seeded holdout)."""

from __future__ import annotations

import hashlib
import io
import json
import os
import random
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..config import config_from_dict
from ..data.conll import ConllReader, Sentence, format_sentence
from ..errors import MaltpyError
from ..evaluation.scores import attachment_scores
from ..files import read_conll

HOLDOUT = 0.2  # the share held out of the training file by default


@dataclass(frozen=True)
class Setting:
    """One point of the search: the configuration's groups (YAML's, as ``config_from_dict``
    takes them, the feature file aside) and the feature model's lines."""

    options: str  # JSON, keys sorted: hashable and the same text for the same settings
    features: tuple[str, ...]

    @classmethod
    def make(cls, options: dict, features: Iterable[str]) -> Setting:
        return cls(json.dumps(options, sort_keys=True), tuple(features))

    @property
    def groups(self) -> dict[str, dict[str, Any]]:
        return json.loads(self.options)

    @property
    def algorithm(self) -> str:
        return self.groups["singlemalt"]["parsing_algorithm"]

    def key(self) -> str:
        text = json.dumps([self.options, list(self.features)])
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:20]

    def changed(self, **groups: dict[str, Any]) -> Setting:
        """A copy with these groups' keys set."""
        options = self.groups
        for group, values in groups.items():
            options.setdefault(group, {}).update(values)
        return Setting.make(options, self.features)

    def with_features(self, features: Iterable[str]) -> Setting:
        return Setting(self.options, tuple(features))


@dataclass
class Result:
    setting: Setting
    las: float | None  # None: the trial failed (see error) or was not run
    seconds: float = 0.0
    error: str | None = None


@dataclass(frozen=True)
class Data:
    """Where a trial's sentences come from: the files and how they are split (small and
    picklable, so that a Dask worker can rebuild the same splits)."""

    train: str
    train_sha256: str
    dev: str | None
    dev_sha256: str | None
    folds: int  # 1 with dev or holdout
    seed: int
    data_format: str
    tags: str = "gold"  # the held-out part's: its own (gold), or those of taggers learned on the training part (own)
    jackknife: int = 0  # with tags "own": the training part's tags predicted in K folds (tag_splits)


class _Split:
    def __init__(self, train: list[Sentence], dev: list[Sentence], data_format: str) -> None:
        self.train = train
        self.dev = dev
        self.dev_text = "".join(format_sentence(s, data_format) for s in dev).encode("utf-8")


def splits_of(sentences: list[Sentence], dev: list[Sentence] | None, folds: int, seed: int,
              data_format: str) -> list[_Split]:  # fmt: skip
    """Training and held-out parts: the dev file; or K folds of a seeded shuffle; or, with
    folds == 1, a seeded HOLDOUT share of the training sentences held out."""
    if dev is not None:
        return [_Split(sentences, dev, data_format)]
    order = list(range(len(sentences)))
    random.Random(seed).shuffle(order)
    if folds == 1:
        held = set(order[: max(1, round(HOLDOUT * len(order)))])
        parts = [held]
    else:
        parts = [set(order[k::folds]) for k in range(folds)]
    return [
        _Split([s for i, s in enumerate(sentences) if i not in part], [sentences[i] for i in sorted(part)], data_format)
        for part in parts
    ]


def read_sentences(path: str, data_format: str = "auto") -> tuple[list[Sentence], str]:
    with read_conll(path, data_format) as reader:
        sentences = list(reader)
        fmt = reader.format
    for s in sentences:
        if s.heads is None:
            raise MaltpyError("optimizing needs gold trees, but HEAD is _", path, s.line)
    if not sentences:
        raise MaltpyError("no sentences to optimize on", path)
    return sentences, fmt


_worker_data: dict[Data, list[_Split]] = {}


def _splits(data: Data) -> list[_Split]:
    """The data's splits, read once per worker process; the files must be those the search began
    with (a file edited meanwhile, or another copy on a cluster's worker, would mix two searches)."""
    if data not in _worker_data:
        for path, digest in ((data.train, data.train_sha256), (data.dev, data.dev_sha256)):
            if path is not None and file_digest(path) != digest:
                raise MaltpyError("changed since the search began (or differs on this worker)", path)
        train, _ = read_sentences(data.train, data.data_format)
        dev = read_sentences(data.dev, data.data_format)[0] if data.dev else None
        _worker_data.clear()
        splits = splits_of(train, dev, data.folds, data.seed, data.data_format)
        if data.tags == "own":
            tag_splits(splits, data)
        _worker_data[data] = splits
    return _worker_data[data]


def tag_splits(splits: list[_Split], data: Data) -> None:
    """Give each split the tags its parser will meet (``optimize --tags own``): the held-out part
    to parse tagged by taggers learned on the training part (its gold sentences stay for scoring),
    and with ``data.jackknife`` K the training part's tags those of taggers learned on the other
    K-1 of its K folds (as ``maltpy learn -tj K`` learns). The taggers are maltpy learn's defaults."""
    from ..tagging.learn import copies, jackknife, learn_taggers

    for split in splits:
        taggers = learn_taggers(split.train, name=data.train, heldout=False)
        if taggers is None:  # no tag column to learn: the parser meets the treebank's own
            continue
        predicted = copies(split.dev)
        taggers.tag(predicted, "always")
        split.dev_text = "".join(format_sentence(s, data.data_format) for s in predicted).encode("utf-8")
        if data.jackknife:
            split.train = jackknife(split.train, data.jackknife, taggers.columns, name=data.train)


def run_trial(data: Data, part: int, options: str, features: tuple[str, ...]) -> tuple[int, int, float]:
    """Learn on one split's training part, parse its held-out part: (correct, words, seconds).
    Runs in a worker process (or a Dask worker)."""
    from ..models.learn import learn

    started = time.perf_counter()
    split = _splits(data)[part]
    groups = json.loads(options)
    # the parser alone: the held-out part comes with the tags it is to parse (tag_splits)
    groups["tagger"] = {"columns": "none"}
    with tempfile.TemporaryDirectory(prefix="maltpy-optimize-") as folder:
        if features:  # an MST setting has none
            groups.setdefault("guide", {})["features"] = path = os.path.join(folder, "features.txt")
            with open(path, "w", encoding="utf-8") as f:
                f.write("".join(line + "\n" for line in features))
        config = config_from_dict(groups, "maltpy optimize")
        model = learn(config, split.train, data.data_format, data.train)
    reader = ConllReader(io.BytesIO(split.dev_text), "held-out part", data.data_format, blind=True)
    # no warning of unseen values: a trial is one of hundreds, and its held-out part the treebank's
    scores = attachment_scores(split.dev, model.parse(reader, watch=None), "held-out part", "its parse")
    return scores.right_both, scores.tokens, time.perf_counter() - started


def file_digest(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()
