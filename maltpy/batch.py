"""Parsing a batch of sentences in arrays: Nivre's systems, their features and the ranked choice.

The per-sentence definitions (``transition.nivre``, ``features.functions``) are the reference;
this module computes the same thing for a whole batch at once, so that a configuration costs a
few array operations instead of a Python dictionary look-up per feature:

- A token's column values are turned into symbol numbers once, when its sentence enters the
  batch (one dictionary look-up per token and column read by the model).
- The configurations of the batch keep their stacks, buffers and partial trees in flat arrays,
  and move by the arrays form of their system (``transition.nivre_arrays``).
- An address is a gather over those arrays; a feature value is a symbol; a classifier's column
  is a gather over a table from symbols to columns (a Merge's through the sorted codes of its
  parts' symbol tuples).
- Each classifier answers one sparse matrix per step; the best class is applied where allowed,
  and the rare rows whose best class is not allowed take MaltParser's ranked fallback one by one.

The batch form covers the nivre family (arc-eager, arc-standard) with the feature functions
InputColumn (text columns), OutputColumn and Merge/Merge3 of them over the addresses Stack,
Input, head, ldep, rdep, pred and succ, for the binarized learners (LIBLINEAR, LIBSVM), with or
without a data split on a text column: MaltParser's default models and the papers'.
``BatchParser.supports`` says whether a model is covered; others take the per-sentence path.
Tests check the batch form against the per-sentence definitions on real treebanks.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb

import numpy as np

from .features.functions import NULL_SYMBOLS
from .features.spec import COLUMNS, Address, Feature
from .transition import SYSTEMS
from .transition.base import LA, RA, SH
from .transition.nivre import NivreConfiguration
from .transition.nivre_arrays import ARRAYS_FORMS, MOVES, SHIFT, NivreConfigurations, NivreGold, arrays_form

_ADDRESSES = ("head", "ldep", "rdep", "pred", "succ")
UNKNOWN = 0  # the symbol of a value no table knows
MAX_MERGE_SPLITS = 1 << 22  # cuts of a model's Merge keys into parts (real models: one per key)


def _address_ok(a: Address) -> bool:
    if a.inner is None:
        return a.name in ("Stack", "Input")
    return a.name in _ADDRESSES and _address_ok(a.inner)


def _part_ok(f: Feature) -> bool:
    if f.name == "InputColumn":
        return f.args[0] not in ("ID", "HEAD", "PHEAD") and _address_ok(f.args[1])
    return f.name == "OutputColumn" and _address_ok(f.args[1])


def _feature_ok(f: Feature) -> bool:
    if f.name in ("Merge", "Merge3"):
        return all(_part_ok(p) for p in f.args)
    return _part_ok(f)


def _source(f: Feature) -> str:
    """The symbol table a part reads: a column of the input, or the arc labels (OUT)."""
    return "OUT" if f.name == "OutputColumn" else f"IN{COLUMNS[f.args[0]]}"


class _Symbols:
    """One symbol table per source: value text -> number (0 for values no table has)."""

    def __init__(self, null_value: str) -> None:
        self.no_node, self.root_node, self.no_value = NULL_SYMBOLS[null_value]
        self.tables: dict[str, dict[str, int]] = {}

    def table(self, source: str) -> dict[str, int]:
        t = self.tables.get(source)
        if t is None:
            t = self.tables[source] = {}
            for value in (self.no_node, self.root_node, self.no_value):
                self.add(source, value)
        return t

    def add(self, source: str, value: str) -> int:
        t = self.table(source)
        code = t.get(value)
        if code is None:
            code = t[value] = len(t) + 1
        return code

    def size(self, source: str) -> int:
        return len(self.table(source)) + 1

    def null_codes(self, source: str) -> tuple[int, int, int]:
        """The symbols of no node, the root node and no value in a source."""
        t = self.table(source)
        return t[self.no_node], t[self.root_node], t[self.no_value]

    def nulls(self, source: str) -> np.ndarray:
        """A mask over the source's symbols: which are null values."""
        mask = np.zeros(self.size(source), dtype=bool)
        mask[list(self.null_codes(source))] = True
        return mask


class _Column:
    """How one classifier finds the column of one feature: a table from the feature's symbol
    (single features) or from the code of its parts' symbols (Merge) to a column, -1 for none."""

    def __init__(self, feature: Feature, table: dict, skip: frozenset, symbols: _Symbols) -> None:
        if feature.name not in ("Merge", "Merge3"):
            source = _source(feature)
            self.parts = [feature]
            self.map = {symbols.add(source, v): c for v, c in table.items() if v not in skip}
            return
        # A Merge's value is its parts' values joined by "~": a table key may split into parts in
        # several ways when values hold "~"; every split is registered, so that any parts whose
        # joined text is a key find its column, as the text would.
        self.parts = list(feature.args)
        sources = [_source(p) for p in self.parts]
        pieces: dict[tuple[int, ...], int] = {}
        for key, column in table.items():
            for split in _splits(key, len(sources)):
                codes = tuple(symbols.add(s, v) for s, v in zip(sources, split))
                pieces.setdefault(codes, column)
        self.map = pieces

    def freeze(self, symbols: _Symbols) -> None:
        """Turn the map into arrays once every symbol table is complete."""
        if len(self.parts) == 1:
            source = _source(self.parts[0])
            lookup = np.full(symbols.size(source), -1, dtype=np.int64)
            for code, column in self.map.items():
                lookup[code] = column
            self.lookup = lookup
            return
        self.radix = [symbols.size(_source(p)) for p in self.parts]
        if len(self.map):
            keys = np.array(list(self.map), dtype=np.int64)
            codes = self._code([keys[:, k] for k in range(len(self.parts))])
        else:
            codes = np.zeros(0, dtype=np.int64)
        order = np.argsort(codes)
        self.sorted_codes = codes[order]
        self.columns = np.fromiter(self.map.values(), dtype=np.int64, count=len(self.map))[order]
        self.null_masks = [symbols.nulls(_source(p)) for p in self.parts]

    def _code(self, parts: list[np.ndarray]) -> np.ndarray:
        code = parts[0].astype(np.int64)
        for radix, part in zip(self.radix[1:], parts[1:]):
            code = code * radix + part
        return code

    def columns_of(self, values: list[np.ndarray]) -> np.ndarray:
        """Each row's column (-1: none) given the symbols of the parts."""
        if len(self.parts) == 1:
            return self.lookup[values[0]]
        code = self._code(values)
        where = np.searchsorted(self.sorted_codes, code)
        where[where == len(self.sorted_codes)] = 0
        found = self.sorted_codes[where] == code if len(self.sorted_codes) else np.zeros(len(code), dtype=bool)
        all_null = np.ones(len(code), dtype=bool)
        for mask, part in zip(self.null_masks, values):
            all_null &= mask[part]
        return np.where(found & ~all_null, self.columns[where] if len(self.columns) else -1, -1)


def _splits(text: str, n: int) -> list[tuple[str, ...]]:
    """Every way to cut ``text`` at n - 1 of its "~" into n parts."""
    if n == 1:
        return [(text,)]
    out = []
    start = 0
    while (k := text.find("~", start)) >= 0:
        out.extend((text[:k], *rest) for rest in _splits(text[k + 1 :], n - 1))
        start = k + 1
    return out


class _Classifier:
    """A classifier with its columns, its classes as moves and labels, and its row selection."""

    def __init__(self, model, features: list[Feature], symbols: _Symbols, classes) -> None:
        self.model = model
        fmap = model.featuremap
        self.columns = [_Column(features[p], t, fmap.skip, symbols) for p, t in zip(fmap.positions, fmap.tables)]
        moves = [classes.items[label] for label in model.labels]
        self.move = np.array([MOVES.index(name) for name, _ in moves], dtype=np.int64)
        self.label = np.array(model.labels, dtype=np.int64)
        #: each class as (move, class number), what the ranked fallback tries
        self.transitions = [(name, number) for (name, _), number in zip(moves, model.labels)]


class _Arrays(NivreConfigurations):
    """A batch of Nivre configurations in arrays, with the addresses and values of features."""

    def __init__(self, config) -> None:
        self.symbols = _Symbols(config.singlemalt.null_value)
        self.address_numbers, self.addresses = {}, []
        self.value_numbers, self.value_plan = {}, []
        self.input_columns: list[int] = []
        self.label_symbol = np.zeros(0, dtype=np.int64)  # arc label code -> the symbol of its DEPREL

    def _start(self, sentences: list, grow: bool = False) -> None:
        """The initial configurations of the sentences; their tokens' values as symbols (new
        values get new symbols if ``grow``, else the unknown one)."""
        self.start(np.array([len(s) for s in sentences], dtype=np.int64))
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

    # --- addresses and values --------------------------------------------------------------------

    def _plan(self, parts: list[Feature]) -> list[int]:
        """Number the parts' values and the addresses they read (each once, inner addresses
        first), so that a step computes each of them once; the parts' value numbers."""
        for p in parts:
            column = COLUMNS[p.args[0]]
            if p.name == "InputColumn" and column not in self.input_columns:
                self.input_columns.append(column)
        return [self._plan_value(p) for p in parts]

    def _plan_address(self, a: Address) -> int:
        number = self.address_numbers.get(a)
        if number is None:
            inner = None if a.inner is None else self._plan_address(a.inner)
            number = self.address_numbers[a] = len(self.addresses)
            self.addresses.append((a, inner))
        return number

    def _plan_value(self, f: Feature) -> int:
        number = self.value_numbers.get(f)
        if number is None:
            address = self._plan_address(f.args[1])
            number = self.value_numbers[f] = len(self.value_plan)
            self.value_plan.append((f, address))
        return number

    def _values(self, rows: np.ndarray, needs: list[int]) -> dict[int, np.ndarray]:
        """The symbols of the values numbered ``needs`` for each row (with the nodes they read)."""
        nodes: dict[int, np.ndarray] = {}
        for k in sorted({self.value_plan[v][1] for v in needs}):
            self._node(k, rows, nodes)
        return {v: self._value(v, rows, nodes) for v in needs}

    def _node(self, k: int, rows: np.ndarray, nodes: dict) -> np.ndarray:
        """The node at address ``k`` of each row's configuration, -1 for none (functions.py's
        definitions)."""
        got = nodes.get(k)
        if got is not None:
            return got
        a, inner = self.addresses[k]
        if inner is None:
            i = a.index
            if a.name == "Stack":
                place = self.depth[rows] - 1 - i
                node = np.where(place >= 0, self.stack[self.offset[rows] + np.maximum(place, 0)], -1)
            else:  # Input: the front, then the rest
                front, n = self.front[rows], self.n[rows]
                node = front if i == 0 else self.rest[rows] + (i - 1)
                node = np.where((front <= n) & (node <= n), node, -1)
        else:
            x = self._node(inner, rows, nodes)
            flat = self.offset[rows] + np.maximum(x, 0)
            if a.name == "head":
                node = np.where(x > 0, self.heads[flat], -1)
            elif a.name == "ldep":
                node = np.where(x >= 0, self.ldep[flat], -1)
            elif a.name == "rdep":
                node = np.where(x >= 0, self.rdep[flat], -1)
            elif a.name == "pred":
                node = np.where(x > 1, x - 1, -1)
            else:  # succ
                node = np.where((x > 0) & (x < self.n[rows]), x + 1, -1)
        nodes[k] = node
        return node

    def _value(self, v: int, rows: np.ndarray, nodes: dict) -> np.ndarray:
        """The symbol of an InputColumn or OutputColumn value for each row."""
        f, k = self.value_plan[v]
        x = nodes[k]
        flat = self.offset[rows] + np.maximum(x, 0)
        if f.name == "InputColumn":
            column = COLUMNS[f.args[0]]
            no_node, root, _ = self.symbols.null_codes(f"IN{column}")
            return np.where(x > 0, self.values[column][flat], np.where(x < 0, no_node, root))
        no_node, root, no_value = self.symbols.null_codes("OUT")
        label = self.labels[flat]
        own = np.where(label >= 0, self.label_symbol[np.maximum(label, 0)], no_value)
        return np.where(x > 0, own, np.where(x < 0, no_node, root))


class BatchParser(_Arrays):
    """The arrays form of ``Model._parse_batch`` for the models ``supports`` accepts."""

    @staticmethod
    def supports(model) -> bool:
        """Whether the model is covered, and its Merge keys can be cut into their parts (see
        ``_Column``) within MAX_MERGE_SPLITS: a model is untrusted, and a key of many "~" has a
        quadratic number of cuts. A model beyond that takes the per-sentence path."""
        models = model.guide.all_models()
        if any(m.classifier.symbolic for m in models) or not covered(model.config, model.feature_model):
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
        super().__init__(config)
        self.model = model
        #: the arrays form of the model's transition system, without and with the single-root
        #: constraint (``Model.system``, ``Model.rooted_system``); ``parse`` picks one
        self.forms = (arrays_form(model.system), arrays_form(model.rooted_system))
        symbols = self.symbols
        features = [s.feature for s in model.feature_model.specs]
        guide = model.guide
        self.classifiers = [_Classifier(m, features, symbols, model.classes) for m in guide.all_models()]
        self.split = split_feature(config)
        if self.split is not None:
            source = _source(self.split)
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
            self.split_owner = np.full(symbols.size(_source(self.split)), master, dtype=np.int64)
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
              narrow: int = 0) -> list[tuple[list[int], list] | NivreConfiguration]:  # fmt: skip
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
            trees[b] = self.configuration(b, texts)
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
        """Apply each row's best class where allowed; the others go through the ranked fallback."""
        move = classifier.move[best]
        allowed = self.system.allowed(self, rows)[np.arange(len(rows)), move]
        if len(classifier.move) < 2:
            allowed[:] = False
        self.system.apply(self, rows[allowed], move[allowed], classifier.label[best[allowed]])
        for k in np.flatnonzero(~allowed).tolist():
            self._fallback(int(rows[k]), classifier, scores[k])

    def _fallback(self, b: int, classifier: _Classifier | None, row: np.ndarray | None) -> None:
        """MaltParser's ranked choice for one configuration (see ``Model._apply_ranked``): the
        best-ranked allowed class, or without a classifier the model's first class if allowed;
        else the nivre systems' default move, SHIFT."""
        ok = self.system.allowed(self, np.array([b]))[0]
        allowed = [MOVES[k] for k in range(4) if ok[k]]
        if classifier is None:
            candidates = [(self.model.classes.items[0][0], 0)]
        else:
            candidates = ranked(row, classifier.transitions)
        default = (RA, self.default_label) if self.end[b] else (SH, -1)  # nivre.py's default
        name, number = next(((n, k) for n, k in candidates if n in allowed), default)
        label = number if name in (LA, RA) else -1
        self.system.apply(self, np.array([b]), np.array([MOVES.index(name)]), np.array([label]))


@dataclass
class Replay:
    """The transitions of a chunk of sentences in order (sentence by sentence, each in its
    order): ``moves`` (0..3 for SH, RE, RA, LA; the asked ones are instances, the deterministic
    ones None in ``asked``), ``labels`` (the arc label's text or None); for the instances, each
    feature's values (``values[p]``: a number per instance and the text, or None, of each
    number) and the split values."""

    moves: list[int]
    labels: list[str | None]
    asked: list[bool]
    values: list[tuple[np.ndarray, list]]
    split_values: list[str] | None


class BatchLearner(_Arrays):
    """The oracle replayed over a chunk of gold trees in lock step (learning's form of
    ``BatchParser``): each step's configurations give their feature values by the same array
    definitions, and the instances are put back in sentence order. ``system``: the per-sentence
    system learning replays (``system_for(config, learning=True)``), whose arrays form this takes."""

    def __init__(self, config, feature_model, system) -> None:
        super().__init__(config)
        self.system = arrays_form(system)
        self.features = [s.feature for s in feature_model.specs]
        self.deprel_of = feature_model.deprel_of
        self.value_numbers_of = [self._plan(list(f.args) if f.name in ("Merge", "Merge3") else [f])
                                 for f in self.features]  # fmt: skip
        self.split = split_feature(config)
        self.split_value = self._plan([self.split])[0] if self.split is not None else None
        # every value a step reads: the features' parts and the split feature
        self.needs = sorted({v for numbers in self.value_numbers_of for v in numbers} |
                            ({self.split_value} if self.split is not None else set()))  # fmt: skip
        self.label_codes: dict[str, int] = {}
        self.label_texts: list[str] = []

    def replay(self, golds: list[tuple[list[int], list[str]]], sentences: list) -> Replay:
        """Replay the oracle over gold trees (heads and labels, index 0 the root's) of ``sentences``:
        ``transition.base.replay_oracle`` in arrays for Nivre's systems, the same transitions and
        instances in the same order (tests/test_batch.py compares the two)."""
        self._start(sentences, grow=True)
        gold = NivreGold(self, golds, self._label_code)
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
            table = inverse[_source(self.split)]
            split_values = [table[k] for k in symbols[self.split_value].tolist()]
        return Replay(moves[order].tolist(), label_list, asked[order].tolist(), values, split_values)

    def _inverse_tables(self) -> dict[str, list[str | None]]:
        out = {}
        for source, table in self.symbols.tables.items():
            texts: list[str | None] = [None] * (len(table) + 1)
            for text, code in table.items():
                texts[code] = text
            out[source] = texts
        return out

    def _texts(self, f: Feature, parts: list[np.ndarray], inverse: dict) -> tuple[np.ndarray, list]:
        """The feature's values: a number per instance, and the text of each number (a Merge's
        parts' texts joined by "~", None when all are null, as ``functions.compile_feature``)."""
        if len(parts) == 1:
            return parts[0], inverse[_source(f)]
        sources = [_source(p) for p in f.args]
        # number the distinct tuples of parts, one part at a time (a product of the tables'
        # sizes could overflow)
        numbers = np.zeros(len(parts[0]), dtype=np.int64)
        for part, source in zip(parts, sources):
            unique, numbers = np.unique(numbers * self.symbols.size(source) + part, return_inverse=True)
            numbers = numbers.ravel()
        first = np.full(len(unique), -1, dtype=np.int64)
        first[numbers[::-1]] = np.arange(len(numbers) - 1, -1, -1)  # an instance of each number
        tables = [inverse[s] for s in sources]
        nulls = [set(self.symbols.null_codes(s)) for s in sources]
        texts: list[str | None] = []
        for i in first.tolist():
            symbols = [int(part[i]) for part in parts]
            null = all(k in null_set for null_set, k in zip(nulls, symbols))
            texts.append(None if null else "~".join(t[k] for t, k in zip(tables, symbols)))
        return numbers, texts


def covered(config, feature_model) -> bool:
    """Does the arrays form cover this configuration and feature model?"""
    if SYSTEMS[config.singlemalt.parsing_algorithm] not in ARRAYS_FORMS or not feature_model.plain:
        return False
    if config.guide.data_split_column is not None:
        column, structure = config.guide.data_split_column, config.guide.data_split_structure
        if column in ("ID", "HEAD", "PHEAD") or not _address_ok(_parse_address(structure)):
            return False
    return all(_feature_ok(s.feature) for s in feature_model.specs)


def split_feature(config) -> Feature | None:
    """The data split's feature, InputColumn(column, structure), or None without a split."""
    if config.guide.data_split_column is None:
        return None
    return Feature("InputColumn", (config.guide.data_split_column, _parse_address(config.guide.data_split_structure)))


def ranked(row: np.ndarray, transitions: list[tuple]):
    """The transitions in MaltParser's ranking order: an in-place selection sort by score (not
    stable, ties to the earlier place), every class but the last-ranked one."""
    values = row.tolist()
    order = list(range(len(transitions)))
    for step in range(len(transitions) - 1):
        top = step
        for j in range(step + 1, len(transitions)):
            if values[j] > values[top]:
                top = j
        values[step], values[top] = values[top], values[step]
        order[step], order[top] = order[top], order[step]
        yield transitions[order[step]]


def _parse_address(text: str) -> Address:
    from .features.spec import parse_feature

    return parse_feature(f"InputColumn(FORM,{text})").args[1]
