"""The data split (MaltParser's -d/-s/-T; Nivre 2008, §6.1): one classifier per value of a split
feature, such as the part of speech of the next input word, to cut training time.

As in MaltParser 1.9.2: the split feature is ``InputColumn(d, s)``. After all instances are
collected, each value seen more than T times gets its own classifier, trained without the split
feature (it is constant there); the instances of the other values go, value by value in the
order the values first appear in the training data (null values first), to one master
classifier that keeps the split feature. At parse time a value with its own classifier uses it;
any other value, seen or not, uses the master.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..data.conll import Sentence
from ..errors import counted
from ..features import FeatureModel
from ..features.functions import NULL_SYMBOLS
from ..features.spec import COLUMNS, Feature, split_feature
from . import AtomicModel
from .base import Classifier
from .encoding import Instances
from .kinds import CLASS_WEIGHTS


class Guide:
    """The classifiers of a parser and how an instance finds its classifier."""

    def __init__(self, models: dict[str, AtomicModel], master: AtomicModel | None, split=None) -> None:
        self.models = models  # split value -> its own classifier (none without a split)
        self.master = master  # the classifier for every other value (the only one without a split)
        self.split = split  # compiled split feature, or None

    def model_for(self, c, columns) -> AtomicModel | None:
        if self.split is None:
            return self.master
        return self.models.get(self.split(c, columns), self.master)

    def all_models(self) -> list[AtomicModel]:
        return list(self.models.values()) + ([self.master] if self.master is not None else [])


@dataclass(slots=True)
class DataSplit:
    """A model's data split (-d, -s, -T): the split feature ``InputColumn(d, s)`` compiled, its
    position in the feature model (None if the model lacks it), the number of the column d it
    reads, the threshold T, and the values of that column in the order they first appear in the
    training data, null values first. Without a data split, no feature and no column."""

    feature: Callable | None = None
    position: int | None = None
    column: int | None = None
    threshold: int = 0
    value_order: dict[str, int] = field(default_factory=dict)
    #: the split feature as the feature language writes it (``features.spec``)
    written: Feature | None = None

    def count(self, sentence: Sentence) -> None:
        """Note the values of ``sentence`` (a gold tree learned from) in the split column."""
        if self.column is not None:
            for word in sentence.words:
                self.value_order.setdefault(word[self.column], len(self.value_order))


def data_split(fm: FeatureModel, column: str | None, structure: str | None, threshold: int) -> DataSplit:
    """The data split on ``column`` at the address ``structure`` (-d, -s) of the feature model
    ``fm``, with the threshold ``threshold`` (-T); no split without a column."""
    if column is None:
        return DataSplit()
    written = split_feature(column, structure)
    feature, position = fm.split_feature(written)
    nulls = dict.fromkeys(NULL_SYMBOLS[fm.null_value])
    return DataSplit(feature, position, COLUMNS[column], threshold, {v: i for i, v in enumerate(nulls)}, written)


def classifier_groups(instances: Instances, split: DataSplit) -> dict[str, tuple[list[int], np.ndarray]]:
    """Which instances each classifier learns from, and which feature positions it reads, by
    name: "main" without a split; "split:<value>" and "master" with one
    (``instances.split_values`` holds each instance's split value)."""
    everything = list(range(len(instances.tables)))
    if not instances.split_values:
        return {"main": (everything, np.arange(len(instances)))}
    by_value: dict[str, list[int]] = {}
    for i, value in enumerate(instances.split_values):
        by_value.setdefault(value, []).append(i)
    reduced = [p for p in everything if p != split.position]
    groups = {}
    master: list[int] = []
    order = split.value_order
    for value in sorted(by_value, key=lambda v: order.get(v, len(order))):
        members = by_value[value]
        if len(members) > split.threshold:
            groups[f"split:{value}"] = (reduced, np.array(members))
        else:
            master.extend(members)
    if master:
        groups["master"] = (everything, np.array(master))
    return groups


def guide_of(models: dict[str, AtomicModel], split: DataSplit) -> Guide:
    """The guide of the classifiers named as ``classifier_groups(instances, split)`` names them."""
    if "main" in models:
        return Guide({}, models["main"])
    by_value = {name.partition(":")[2]: m for name, m in models.items() if name.startswith("split:")}
    return Guide(by_value, models.get("master"), split.feature)


def train_guide(instances: Instances, groups: dict[str, tuple[list[int], np.ndarray]], learner: type[Classifier],
                options: dict, progress=None) -> dict[str, AtomicModel]:  # fmt: skip
    """Train the classifiers of ``groups`` (see classifier_groups), by name, with ``learner``
    (a class of ``learners.LEARNERS``) and its ``options``."""
    classes = np.frombuffer(instances.classes, dtype=np.int32)
    symbolic = learner.symbolic
    shared = learner.new_shared()  # one for all the classifiers, in MaltParser's order
    models = {}
    for n, (name, (positions, members)) in enumerate(groups.items(), 1):
        if progress:
            instances_of = counted(len(members), "instance")
            progress(f"training {learner.kind} classifier {n}/{len(groups)} ({name}, {instances_of})")
        if symbolic:
            X, featuremap = instances.symbols(members, positions)
        else:
            X, featuremap = instances.matrix(members, positions)
        models[name] = train_atomic(name, X, featuremap, classes[members], learner, options, shared)
    return models


def interruptibly(function, *args):
    """``function(*args)`` in a worker thread, the main thread waiting. LIBSVM and scikit-learn
    train in C without returning to Python (LIBSVM only through its print callback, where an
    exception is lost), so a signal handled there would wait for the end of training or be
    swallowed; waiting here, the main thread handles SIGINT, SIGTERM and SIGHUP at once and
    unwinds (the worker is a daemon: it ends with the process)."""
    outcome: dict = {}

    def work() -> None:
        try:
            outcome["value"] = function(*args)
        except BaseException as e:  # handed to the main thread
            outcome["error"] = e

    worker = threading.Thread(target=work, name="maltpy-training", daemon=True)
    worker.start()
    while worker.is_alive():
        worker.join(0.1)
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def train_atomic(name: str, X, featuremap, classes: np.ndarray, learner: type[Classifier], options: dict,
                 shared=None) -> AtomicModel:  # fmt: skip
    """One classifier; its classes are numbered by first appearance in its instances (LIBSVM's
    class weights, ``options["w"]``, by class number, are renumbered with them)."""
    unique, first = np.unique(classes, return_index=True)
    labels = unique[np.argsort(first, kind="stable")]
    local = np.zeros(int(classes.max()) + 1, dtype=np.int64)
    local[labels] = np.arange(len(labels))
    weights = options.get(CLASS_WEIGHTS)
    if isinstance(weights, dict):
        options = {**options, CLASS_WEIGHTS: {i: weights[c] for i, c in enumerate(labels.tolist()) if c in weights}}
    classifier = interruptibly(learner.fit, X, local[classes], len(labels), options, shared)
    return AtomicModel(name, featuremap, [int(c) for c in labels], classifier, len(classes))
