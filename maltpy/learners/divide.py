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

import numpy as np

from . import LEARNERS, AtomicModel, FeatureMap


class Guide:
    """The classifiers of a parser and how an instance finds its classifier."""

    def __init__(self, models: dict[str, AtomicModel], master: AtomicModel | None, split=None) -> None:
        self.models = models  # split value -> classifier (the only one is under "")
        self.master = master
        self.split = split  # compiled split feature, or None

    def model_for(self, c, columns) -> AtomicModel | None:
        if self.split is None:
            return self.master
        return self.models.get(self.split(c, columns), self.master)

    def all_models(self) -> list[AtomicModel]:
        return list(self.models.values()) + ([self.master] if self.master is not None else [])


def train_guide(
    rows: list[list],
    classes: list[int],
    split_values: list[str] | None,
    value_order: dict[str, int],
    n_features: int,
    split_position: int | None,
    threshold: int,
    learner: str,
    options: dict,
    skip: frozenset,
    progress=None,
) -> dict[str, AtomicModel]:
    """Train the classifiers, by name: "main" without a split; "split:<value>" and "master"
    with one. ``rows[i]`` holds instance i's feature values, ``classes[i]`` its class."""
    everything = list(range(n_features))
    if split_values is None:
        groups = {"main": (everything, list(range(len(rows))))}
    else:
        by_value: dict[str, list[int]] = {}
        for i, value in enumerate(split_values):
            by_value.setdefault(value, []).append(i)
        reduced = [p for p in everything if p != split_position]
        groups = {}
        master: list[int] = []
        for value in sorted(by_value, key=lambda v: value_order.get(v, len(value_order))):
            members = by_value[value]
            if len(members) > threshold:
                groups[f"split:{value}"] = (reduced, members)
            else:
                master.extend(members)
        if master:
            groups["master"] = (everything, master)
    models = {}
    for n, (name, (positions, members)) in enumerate(groups.items(), 1):
        if progress:
            progress(f"training {learner} classifier {n}/{len(groups)} ({name}, {len(members)} instances)")
        models[name] = train_atomic(
            name, [rows[i] for i in members], [classes[i] for i in members], positions, learner, options, skip
        )
    return models


def train_atomic(
    name: str, rows: list[list], classes: list[int], positions: list[int], learner: str, options: dict, skip: frozenset
) -> AtomicModel:
    """One classifier on rows in oracle order; its classes are numbered by first appearance."""
    featuremap = FeatureMap(positions, skip)
    X = featuremap.fit(rows)
    labels: list[int] = []
    local: dict[int, int] = {}
    y = np.empty(len(classes), dtype=np.int64)
    for i, c in enumerate(classes):
        if c not in local:
            local[c] = len(labels)
            labels.append(c)
        y[i] = local[c]
    classifier = LEARNERS[learner].fit(X, y, len(labels), options)
    return AtomicModel(name, featuremap, labels, classifier, len(rows))
