"""Learning with a dynamic oracle: training that explores the parser's own errors (``-go dynamic``).

The static oracle teaches the classifier the configurations of one derivation of each gold tree,
and a greedy parser that errs once meets configurations it never learned from. Goldberg & Nivre
(2012, "A Dynamic Oracle for Arc-Eager Dependency Parsing", §4; 2013, "Training Deterministic
Parsers with Non-Deterministic Oracles", §3 and Algorithm 3) train on the configurations the
parser itself reaches, each labelled with a transition that keeps the best tree still reachable
(cost 0: the system's ``costs``). They train online, a perceptron updated as the parser goes; a
batch learner (LIBLINEAR) learns the same way in a round, as imitation learning does (Ross,
Gordon & Bagnell 2011, DAgger): a model learned from the static oracle's instances of one fold
of the treebank parses the other, choosing its own transitions, and each configuration it asks
its classifier about becomes an instance whose class is the best-scored transition of cost 0;
the final model learns from the static oracle's instances and these.

The costs are exact for projective trees, those arc-eager can build (Goldberg & Nivre's
arc-decomposition needs it); a non-projective tree (without pseudo-projective lifting) is taught
by the static oracle only.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from ..data.conll import Sentence
from ..data.tree import is_projective
from ..learners.encoding import Instances
from ..transition import TransitionSystem
from ..transition.base import LA, RA, Gold
from .choice import ranked_choice
from .parser import Model, asking_by_classifier, columns_of
from .parts import Classes

#: the folds of the treebank, the sentences of each explored by a model learned on the others
#: (two and four scored alike on en_lines; README, "The dynamic oracle")
EXPLORE_FOLDS = 2
#: sentences parsed side by side in a round: the classifier answers their configurations in one call
EXPLORE_BATCH = 256


def explore_folds(learn_static: Callable[[list[Sentence]], Model], system: TransitionSystem,
                  sentences: list[Sentence], taught: list[tuple[Sentence, list[int], list[str]]],
                  instances: Instances, classes: Classes, split: Callable | None,
                  progress: Callable[[str], None] | None = None) -> dict:  # fmt: skip
    """Explore the treebank's ``sentences`` (``taught``: each as the parser reads it, with the tree
    the oracle is shown) fold by fold, each with the model ``learn_static`` learns from the other
    folds (with the static oracle), and add the instances to ``instances``. A model explores
    sentences it did not learn from: one learned on the whole treebank parses its own training
    sentences nearly without error, and meets few of the configurations its errors lead to
    elsewhere. The statistics of exploration: the instances added and the seconds it took."""
    started, added = time.perf_counter(), 0
    for fold in range(EXPLORE_FOLDS):
        others = [s for k, s in enumerate(sentences) if k % EXPLORE_FOLDS != fold]
        explored = taught[fold::EXPLORE_FOLDS]
        if not others or not explored:
            continue
        if progress:
            progress(f"exploring: fold {fold + 1} of {EXPLORE_FOLDS}")
        added += explore(learn_static(others), system, explored, instances, classes, split)
    return {"explored_instances": added, "seconds_exploring": round(time.perf_counter() - started, 2)}


def explore(model: Model, system: TransitionSystem, taught: list[tuple[Sentence, list[int], list[str]]],
            instances: Instances, classes: Classes, split: Callable | None) -> int:  # fmt: skip
    """Parse the ``taught`` sentences (each as the parser reads it, with the tree the oracle is
    shown) with ``model``, the learning ``system`` making the transitions the model chooses, and
    add to ``instances`` each configuration the model's classifiers are asked about, with the
    best-scored class of cost 0 (new classes are registered in ``classes``). The number added."""
    buildable = [t for t in taught if is_projective(t[1])]
    added = 0
    for start in range(0, len(buildable), EXPLORE_BATCH):
        added += _explore_batch(model, system, buildable[start : start + EXPLORE_BATCH], instances, classes, split)
    return added


def _explore_batch(model: Model, system: TransitionSystem, batch: list, instances: Instances, classes: Classes,
                   split: Callable | None) -> int:  # fmt: skip
    """``explore`` of one batch of sentences, in lock step as ``Model._parse_one_by_one`` parses."""
    extract, guide, root_label = model.feature_model.extract, model.guide, model.root_label
    golds = [Gold(heads, labels) for _, heads, labels in batch]
    columns = [columns_of(sentence) for sentence, _, _ in batch]
    configs = [system.initial(len(sentence)) for sentence, _, _ in batch]
    active, added = list(range(len(batch))), 0
    while active:
        for classifier, *asking in asking_by_classifier(system, guide, configs, columns, active).values():
            members = [(i, extract(configs[i], columns[i])) for i in asking]
            rows = best = None
            if classifier is not None:
                rows, best = classifier.classify([values for _, values in members])
            transitions = classifier.transitions if classifier is not None else model.classes.items
            for k, (i, values) in enumerate(members):
                c, gold = configs[i], golds[i]
                row = None if rows is None else rows[k]
                costs = system.costs(c, gold)  # a cost for each transition allowed
                instances.add(values, classes.add(*best_of_cost_zero(system, c, gold, costs, transitions, row)))
                if split is not None:
                    instances.split_values.append(split(c, columns[i]))
                added += 1
                choice = ranked_choice(transitions, costs, row, 0 if best is None else int(best[k]))
                system.apply(c, *(choice if choice is not None else system.default(c, root_label)))
        active = [i for i in active if not system.is_terminal(configs[i])]
    return added


def best_of_cost_zero(system: TransitionSystem, c, gold: Gold, costs: dict[str, int], transitions: list,
                      row) -> tuple[str, str | None]:  # fmt: skip
    """The class to teach in ``c``: of the classifier's ``transitions`` (scored by ``row``; None:
    in their order), the best-scored that the configuration allows at cost 0 (``costs``, the
    system's ``costs`` in ``c``) with its label right, or, if none is, the first transition of cost
    0 with its gold label. An arc to a word's gold head must carry the word's gold label; any other
    arc of cost 0 may carry any label (the word's arc is lost already), and the classifier's choice
    is taught."""
    free = [name for name, cost in costs.items() if cost == 0]
    order = range(len(transitions)) if row is None else sorted(range(len(transitions)), key=lambda k: -row[k])
    for k in order:
        name, label = transitions[k]
        if name in free and label == _gold_label(system, c, gold, name, label):
            return name, label
    name = free[0]
    return name, _gold_label(system, c, gold, name, None)


def _gold_label(system: TransitionSystem, c, gold: Gold, name: str, label: str | None) -> str | None:
    """The label transition ``name`` must carry in ``c`` to cost nothing more: the dependent's gold
    label for an arc to its gold head, ``label`` (whatever it is) otherwise."""
    if name not in (LA, RA):
        return None
    head, dependent = system.arc_of(c, name)
    return gold.labels[dependent] if gold.heads[dependent] == head or label is None else label
