"""Parsing a batch of sentences in arrays: the transition systems, their features and the choice of transition.

The per-sentence definitions (``transition.nivre``, ``features.functions``) are the reference;
this module computes the same thing for a whole batch at once, so that a configuration costs a
few array operations instead of a Python dictionary look-up per feature:

- A token's column values are turned into symbol numbers once, when its sentence enters the
  batch (one dictionary look-up per token and column read by the model).
- The configurations of the batch keep their partial trees and their systems' own state (stacks
  and buffers, Covington's i and j) in flat arrays, and move by the arrays form of their system
  (``transition.arrays``, ``nivre``, ``covington``).
- An address is a gather over those arrays (``features.arrays``, beside the definitions); a
  feature value is a symbol; a classifier's column is a gather over a table from symbols to
  columns (a Merge's through the sorted codes of its parts' symbol tuples).
- Each classifier answers one sparse matrix per step; the best class is applied where allowed,
  and the rare rows whose best class is not allowed take MaltParser's ranked choice one by one
  (``choice.ranked_choice``, the rule the per-configuration path follows too).

The batch form covers the nivre family (arc-eager, arc-standard) and Covington's systems
(covproj, covnonproj without a bound on the degree of non-projectivity) with the feature functions
InputColumn (text columns), OutputColumn and Merge/Merge3 of them over their systems' base
addresses (Stack and Input; Left, Right, LeftContext and RightContext) and head, ldep, rdep, pred
and succ, for the binarized learners (LIBLINEAR, LIBSVM), with or without a data split on a text
column: MaltParser's default models and the papers'.
``BatchParser.supports`` says whether a model is covered; others take the per-sentence path.
Tests check the batch form against the per-sentence definitions on real treebanks.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb

import numpy as np

from ..features.arrays import (
    MAX_MERGE_SPLITS,
    UNKNOWN,
    Column,
    FeatureArrays,
    Symbols,
    covered,
    split_feature,
    symbol_source,
)
from ..features.spec import Feature
from ..transition.arrays import Configurations, Gold, arrays_form
from ..transition.base import LA, RA
from ..transition.nivre import SHIFT
from .choice import ranked_choice


class _Classifier:
    """A classifier with its columns, its classes as moves and labels, and its row selection."""

    def __init__(self, model, features: list[Feature], symbols: Symbols, classes, moves: tuple[str, ...]) -> None:
        self.model = model
        fmap = model.featuremap
        self.columns = [Column(features[p], t, fmap.skip, symbols) for p, t in zip(fmap.positions, fmap.tables)]
        classes_of = [classes.items[label] for label in model.labels]
        self.move = np.array([moves.index(name) for name, _ in classes_of], dtype=np.int64)
        self.label = np.array(model.labels, dtype=np.int64)
        #: each class as (move, class number), what the ranked fallback tries
        self.transitions = [(name, number) for (name, _), number in zip(classes_of, model.labels)]


class _Arrays(FeatureArrays, Configurations):
    """A batch of configurations in arrays (of the arrays form ``system``), with the addresses
    and values of features."""

    def __init__(self, null_value: str) -> None:
        self._init_features(null_value)

    def _start(self, sentences: list, grow: bool = False) -> None:
        """The initial configurations of the sentences; their tokens' values as symbols (new
        values get new symbols if ``grow``, else the unknown one)."""
        self.start(np.array([len(s) for s in sentences], dtype=np.int64))
        self.system.start(self)
        self.values = {}
        for column in self.input_columns:
            source = f"IN{column}"
            table = self.symbols.table(source)
            get = table.get
            codes: list[int] = []
            for s in sentences:
                codes.append(UNKNOWN)  # the root's place
                if grow:
                    add = self.symbols.add
                    codes.extend([get(w[column]) or add(source, w[column]) for w in s.words])
                else:
                    codes.extend([get(w[column], UNKNOWN) for w in s.words])
                codes.append(UNKNOWN)
            self.values[column] = np.array(codes, dtype=np.int64)


class BatchParser(_Arrays):
    """The arrays form of ``Model._parse_batch`` for the models ``supports`` accepts."""

    @staticmethod
    def supports(model) -> bool:
        """Whether the model is covered, and its Merge keys can be cut into their parts (see
        ``_Column``) within MAX_MERGE_SPLITS: a model is untrusted, and a key of many "~" has a
        quadratic number of cuts. A model beyond that takes the per-sentence path."""
        models = model.guide.all_models()
        if any(m.classifier.symbolic for m in models) or not covered(model.system, model.feature_model,
                                                                     split_feature(model.config)):
            return False
        features = [s.feature for s in model.feature_model.specs]
        cuts = 0
        for m in models:
            for p, table in zip(m.featuremap.positions, m.featuremap.tables):
                if features[p].name in ("Merge", "Merge3"):
                    cuts += sum(comb(key.count("~"), len(features[p].args) - 1) for key in table)
        return cuts <= MAX_MERGE_SPLITS

    def __init__(self, model) -> None:
        config = model.config
        super().__init__(config.singlemalt.null_value)
        self.model = model
        #: the arrays form of the model's transition system, without and with the single-root
        #: constraint (``Model.system``, ``Model.rooted_system``); ``parse`` picks one
        self.forms = (arrays_form(model.system), arrays_form(model.rooted_system))
        symbols = self.symbols
        features = [s.feature for s in model.feature_model.specs]
        guide = model.guide
        moves = self.forms[0].moves
        self.classifiers = [_Classifier(m, features, symbols, model.classes, moves) for m in guide.all_models()]
        self.split = split_feature(config)
        if self.split is not None:
            source = symbol_source(self.split)
            owner = {id(m): k for k, m in enumerate(guide.all_models())}
            master = owner[id(guide.master)] if guide.master is not None else -1
            by_value = {symbols.add(source, v): owner[id(m)] for v, m in guide.models.items()}
        # the arc labels are class numbers
        deprel_of = model.feature_model.deprel_of
        self.label_symbol = np.zeros(len(model.classes.items), dtype=np.int64)
        for number, (_, label) in enumerate(model.classes.items):
            if label is not None:
                self.label_symbol[number] = symbols.add("OUT", label if deprel_of is None else deprel_of[label])
        # past the classes: the root's (none), then the root label of the end phase's default move
        root_label = model.config.graph.root_label
        self.default_label = len(model.classes.items) + 1
        root_symbol = symbols.add("OUT", root_label if deprel_of is None else deprel_of[root_label])
        self.label_symbol = np.append(self.label_symbol, [0, root_symbol])
        for c in self.classifiers:
            for column in c.columns:
                column.freeze(symbols)
        if self.split is not None:
            self.split_owner = np.full(symbols.size(symbol_source(self.split)), master, dtype=np.int64)
            for code, k in by_value.items():
                self.split_owner[code] = k
        # the values and addresses each classifier reads, numbered
        for c in self.classifiers:
            for col in c.columns:
                col.values = self._plan(col.parts)
            c.needs = sorted({v for col in c.columns for v in col.values})
        if self.split is not None:
            self.split_value = self._plan([self.split])[0]

    def parse(self, sentences: list, label_texts: list, root_label: str, one_root: bool = False,
              narrow: int = 0) -> list[tuple[list[int], list] | object]:  # fmt: skip
        """Each sentence's tree, as ``transition.base.finish`` gives it: heads and labels (the
        texts of the classes' labels, ``label_texts``), index 0 the root's; words left without a
        head go to the root with ``root_label``. ``one_root``: the single-root constraint of Nivre's
        systems (``transition.nivre``). Once fewer than ``narrow`` sentences are unfinished, they
        are left as their configurations (``configuration``), for the caller to finish one by
        one: a step in arrays costs about as much for one sentence as for a thousand, so a long
        sentence left alone would pay it for each of its transitions."""
        self.system = system = self.forms[one_root]
        self._start(sentences)
        active = np.arange(len(sentences))
        texts = [*label_texts, None, root_label]  # None for the root, root_label: -1, default_label
        while len(active) >= max(narrow, 1):
            system.deterministic(self, active)
            active = system.unfinished(self, active)
            if not len(active):
                break
            self._step(active)
            active = system.unfinished(self, active)
        heads = np.where(self.heads < 0, 0, self.heads)
        heads[self.offset] = -1
        labels = self.labels.copy()
        labels[self.offset] = len(label_texts)
        heads, labels = heads.tolist(), [texts[k] for k in labels.tolist()]
        places = zip(self.offset.tolist(), self.n.tolist())
        trees: list = [(heads[o : o + n + 1], labels[o : o + n + 1]) for o, n in places]
        for b in active.tolist():
            trees[b] = system.configuration(self, b, texts)
        return trees

    def _step(self, rows: np.ndarray) -> None:
        if self.split is None:
            self._classify(self.classifiers[0], rows)
            return
        owner = self.split_owner[self._values(rows, [self.split_value])[self.split_value]]
        for k in np.unique(owner).tolist():
            sub = rows[owner == k]
            if k >= 0:
                self._classify(self.classifiers[k], sub)
                continue
            for b in sub.tolist():  # no classifier for this split value: the first class, or the default
                self._fallback(b, None, None)

    def _classify(self, classifier: _Classifier, rows: np.ndarray) -> None:
        values = self._values(rows, classifier.needs)
        columns = np.stack([col.columns_of([values[v] for v in col.values]) for col in classifier.columns], axis=1)
        columns.sort(axis=1)  # each row's columns ascending, as the classifiers sum them
        present = columns >= 0
        indptr = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum(present.sum(axis=1), out=indptr[1:])
        scores, best = classifier.model.classifier.classify_binary(indptr, columns[present].astype(np.int32))
        self._choose(classifier, rows, scores, np.asarray(best))

    def _choose(self, classifier: _Classifier, rows: np.ndarray, scores: np.ndarray, best: np.ndarray) -> None:
        """Apply each row's best class where allowed, ``ranked_choice``'s first case in arrays (the
        classifier's best class, allowed, of more than one); the other rows take ``ranked_choice``
        one by one (``_fallback``)."""
        move = classifier.move[best]
        allowed = self.system.allowed(self, rows)[np.arange(len(rows)), move]
        if len(classifier.move) < 2:
            allowed[:] = False
        self.system.apply(self, rows[allowed], move[allowed], classifier.label[best[allowed]])
        for k in np.flatnonzero(~allowed).tolist():
            self._fallback(int(rows[k]), classifier, scores[k], int(best[k]))

    def _fallback(self, b: int, classifier: _Classifier | None, row: np.ndarray | None, best: int = 0) -> None:
        """Make ``ranked_choice``'s transition (choice.py) in configuration ``b``: of the
        classifier's classes, ``row`` its scores and ``best`` its choice; without a classifier,
        the model's first class; or the system's default move."""
        system = self.system
        ok = system.allowed(self, np.array([b]))[0]
        allowed = [name for name, k in zip(system.moves, ok) if k]
        if classifier is None:
            choice = ranked_choice([(self.model.classes.items[0][0], 0)], allowed)
        else:
            choice = ranked_choice(classifier.transitions, allowed, row, best)
        if choice is None:
            move, number = system.default(self, b, self.default_label)
        else:
            move, number = system.moves.index(choice[0]), choice[1]
        label = number if system.moves[move] in (LA, RA) else -1
        system.apply(self, np.array([b]), np.array([move]), np.array([label]))


@dataclass
class Replay:
    """The transitions of a chunk of sentences in order (sentence by sentence, each in its
    order): ``moves`` (their names; the asked ones are instances, the deterministic ones, SHIFT,
    not in ``asked``), ``labels`` (the arc label's text or None); for the instances, each
    feature's values (``values[p]``: a number per instance and the text, or None, of each
    number) and the split values."""

    moves: list[str]
    labels: list[str | None]
    asked: list[bool]
    values: list[tuple[np.ndarray, list]]
    split_values: list[str] | None


class BatchLearner(_Arrays):
    """The oracle replayed over a chunk of gold trees in lock step (learning's form of
    ``BatchParser``): each step's configurations give their feature values by the same array
    definitions, and the instances are put back in sentence order. ``system``: the per-sentence
    system learning replays (``system_for(config, learning=True)``), whose arrays form this takes;
    ``split``: the data split's feature (``spec.split_feature``), None without a split."""

    def __init__(self, feature_model, system, split: Feature | None) -> None:
        super().__init__(feature_model.null_value)
        self.system = arrays_form(system)
        self.features = [s.feature for s in feature_model.specs]
        self.deprel_of = feature_model.deprel_of
        self.value_numbers_of = [self._plan(list(f.args) if f.name in ("Merge", "Merge3") else [f])
                                 for f in self.features]  # fmt: skip
        self.split = split
        self.split_value = self._plan([self.split])[0] if self.split is not None else None
        # every value a step reads: the features' parts and the split feature
        self.needs = sorted({v for numbers in self.value_numbers_of for v in numbers} |
                            ({self.split_value} if self.split is not None else set()))  # fmt: skip
        self.label_codes: dict[str, int] = {}
        self.label_texts: list[str] = []

    def replay(self, golds: list[tuple[list[int], list[str]]], sentences: list) -> Replay:
        """Replay the oracle over gold trees (heads and labels, index 0 the root's) of ``sentences``:
        ``transition.base.replay_oracle`` in arrays, the same transitions and
        instances in the same order (tests/test_batch.py compares the two)."""
        self._start(sentences, grow=True)
        gold = Gold(self, golds, self._label_code)
        steps: list[tuple] = []  # (rows, step, moves, labels, values; None for deterministic moves)
        step = 0
        active = np.arange(len(sentences))
        system = self.system

        def deterministic(rows):
            steps.append((rows, np.full(len(rows), step), np.full(len(rows), SHIFT), np.full(len(rows), -1), None))

        while len(active):
            system.deterministic(self, active, deterministic)
            step += 1
            active = system.unfinished(self, active)
            if not len(active):
                break
            values = self._values(active, self.needs)
            move, label = system.oracle(self, gold, active)
            steps.append((active, np.full(len(active), step), move, label, values))
            system.apply(self, active, move, label)
            step += 1
            active = system.unfinished(self, active)
        return self._in_order(steps)

    def _label_code(self, text: str) -> int:
        code = self.label_codes.get(text)
        if code is None:
            code = self.label_codes[text] = len(self.label_texts)
            self.label_texts.append(text)
            symbol = self.symbols.add("OUT", text if self.deprel_of is None else self.deprel_of[text])
            self.label_symbol = np.append(self.label_symbol, symbol)
        return code

    def _in_order(self, steps: list[tuple]) -> Replay:
        rows = np.concatenate([s[0] for s in steps])
        step = np.concatenate([s[1] for s in steps])
        moves = np.concatenate([s[2] for s in steps])
        labels = np.concatenate([s[3] for s in steps])
        asked = np.concatenate([np.full(len(s[0]), s[4] is not None) for s in steps])
        order = np.lexsort((step, rows))
        texts = self.label_texts
        label_list = [texts[k] if k >= 0 else None for k in labels[order].tolist()]
        # the instances' values, in order: per feature, a number per instance and their texts
        asked_order = order[asked[order]]
        place = (np.cumsum(asked) - 1)[asked_order]  # each instance's row in the steps' values
        inverse = self._inverse_tables()
        symbols = {v: np.concatenate([s[4][v] for s in steps if s[4] is not None])[place] for v in self.needs}
        values = [self._texts(f, [symbols[v] for v in numbers], inverse)
                  for f, numbers in zip(self.features, self.value_numbers_of)]  # fmt: skip
        split_values = None
        if self.split is not None:
            table = inverse[symbol_source(self.split)]
            split_values = [table[k] for k in symbols[self.split_value].tolist()]
        names = self.system.moves
        chosen = [names[k] for k in moves[order].tolist()]
        return Replay(chosen, label_list, asked[order].tolist(), values, split_values)
