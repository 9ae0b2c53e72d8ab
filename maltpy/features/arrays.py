"""The arrays form of the feature functions: a batch of configurations' feature values at once.

``batch`` keeps a batch of Nivre configurations in flat arrays (its module docstring gives the
layout); this module computes their features there, by the arrays forms that the forms of
``addresses.ADDRESS_FUNCTIONS`` give and that ``functions.FEATURE_FUNCTIONS`` keeps beside the
definitions:

- A token's column values are turned into symbol numbers once, when its sentence enters the
  batch (``Symbols``: one table per column read, and one for the arc labels).
- An address is a gather over the batch's arrays (``FeatureArrays.from_end`` reads a stack or a
  buffer as the batch keeps it); a value (InputColumn, OutputColumn) a symbol;
  a classifier's column a gather over a table from symbols to columns (``Column``; a Merge's
  through the sorted codes of its parts' symbol tuples).

Covered (``covered``): InputColumn of text columns, OutputColumn, and Merge/Merge3 of them, over
the addresses that have an arrays form (the system's base addresses: Stack and Input, or Left,
Right, LeftContext and RightContext; head, ldep, rdep, rdep2, pred and succ): MaltParser's
default models for Nivre's and Covington's systems and the papers'. Tests check the arrays form against the
definitions on real treebanks (tests/test_batch.py).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from ..transition.arrays import covers, form_of
from . import spec
from .addresses import arrays_form
from .functions import FEATURE_FUNCTIONS, NULL_SYMBOLS
from .spec import COLUMNS, INTEGER_COLUMNS, Address, Feature

UNKNOWN = 0  # the symbol of a value no table knows
MAX_MERGE_SPLITS = 1 << 22  # cuts of a model's Merge keys into parts (real models: one per key)
#: a Merge whose parts' symbols make at most this many codes finds its columns in a table indexed
#: by code (4 bytes a code), others by a binary search of its keys' codes: tags and labels make
#: tens of thousands, word forms millions
DENSE_CODES = 1 << 18


def _address_ok(a: Address, bases: frozenset[str]) -> bool:
    """Whether the address and the addresses inside it have arrays forms (a base address: one of
    ``bases``, those the system's configurations have in arrays)."""
    if a.inner is None:
        return a.name in bases and arrays_form(a.name) is not None
    return arrays_form(a.name) is not None and _address_ok(a.inner, bases)


def _part_ok(f: Feature, bases: frozenset[str]) -> bool:
    """Whether the feature is a value with an arrays form (a text column, or the arc label) at
    an address with one."""
    if FEATURE_FUNCTIONS[f.name].arrays is None or f.args[0] in INTEGER_COLUMNS:
        return False
    return _address_ok(f.args[1], bases)


def _feature_ok(f: Feature, bases: frozenset[str]) -> bool:
    """Whether the feature is covered: a value with an arrays form, or a Merge of such values
    (whose arrays form is Column's, over its parts' symbols)."""
    if f.name in ("Merge", "Merge3"):
        return all(_part_ok(p, bases) for p in f.args)
    return _part_ok(f, bases)


def symbol_source(f: Feature) -> str:
    """The symbol table a part reads: a column of the input, or the arc labels (OUT)."""
    return "OUT" if f.name == "OutputColumn" else f"IN{COLUMNS[f.args[0]]}"


class Symbols:
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
        """The value's symbol: a new one, the next number, for a value the source has not had."""
        t = self.table(source)
        return t.setdefault(value, len(t) + 1)

    def numbers(self, source: str, values: Iterable[str]) -> list[int]:
        """Each value's symbol, as ``add`` gives it, in one pass."""
        t = self.table(source)
        return [t.setdefault(v, len(t) + 1) for v in values]

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


class Column:
    """How one classifier finds the column of one feature: a table from the feature's symbol
    (single features) or from the code of its parts' symbols (Merge) to a column, -1 for none.
    Until ``freeze`` it holds each key's part symbols (``keys``, one array per part) and column
    (``targets``), in the order of the classifier's table."""

    def __init__(self, feature: Feature, table: dict, skip: frozenset, symbols: Symbols) -> None:
        if feature.name not in ("Merge", "Merge3"):
            self.parts = [feature]
            keys = [v for v in table if v not in skip]
            self.keys = [np.array(symbols.numbers(symbol_source(feature), keys), dtype=np.int64)]
            self.targets = np.fromiter(map(table.__getitem__, keys), dtype=np.int64, count=len(keys))
            return
        # A Merge's value is its parts' values joined by "~": a table key may split into parts in
        # several ways when values hold "~"; every split is registered, so that any parts whose
        # joined text is a key find its column, as the text would (the first split of a code wins).
        self.parts = list(feature.args)
        n = len(self.parts)
        pieces: list[list[str]] = []
        targets: list[int] = []
        for key, column in table.items():
            cut = key.split("~")
            if len(cut) == n:  # nearly every key: one way
                pieces.append(cut)
                targets.append(column)
            elif len(cut) > n:
                for split in splits(key, n):
                    pieces.append(list(split))
                    targets.append(column)
        self.keys = [np.array(symbols.numbers(symbol_source(p), [cut[k] for cut in pieces]), dtype=np.int64)
                     for k, p in enumerate(self.parts)]  # fmt: skip
        self.targets = np.array(targets, dtype=np.int64)

    def freeze(self, symbols: Symbols) -> None:
        """Turn the keys into look-up arrays once every symbol table is complete."""
        if len(self.parts) == 1:
            source = symbol_source(self.parts[0])
            lookup = np.full(symbols.size(source), -1, dtype=np.int64)
            lookup[self.keys[0]] = self.targets
            self.lookup = lookup
            del self.keys, self.targets
            return
        self.radix = [symbols.size(symbol_source(p)) for p in self.parts]
        codes = self._code(self.keys) if len(self.targets) else np.zeros(0, dtype=np.int64)
        codes, first = np.unique(codes, return_index=True)  # sorted; each code's first key
        self.sorted_codes = codes
        self.columns = self.targets[first]
        self.null_masks = [symbols.nulls(symbol_source(p)) for p in self.parts]
        self.dense = None
        if math.prod(self.radix) <= DENSE_CODES:
            dense = np.full(math.prod(self.radix), -1, dtype=np.int32)
            dense[self.sorted_codes] = self.columns
            nulls = [np.flatnonzero(mask) for mask in self.null_masks]
            dense[self._code([a.ravel() for a in np.meshgrid(*nulls, indexing="ij")])] = -1  # all null: none
            self.dense = dense
        del self.keys, self.targets

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
        if self.dense is not None:
            return self.dense[code]
        where = np.searchsorted(self.sorted_codes, code)
        where[where == len(self.sorted_codes)] = 0
        found = self.sorted_codes[where] == code if len(self.sorted_codes) else np.zeros(len(code), dtype=bool)
        all_null = np.ones(len(code), dtype=bool)
        for mask, part in zip(self.null_masks, values):
            all_null &= mask[part]
        return np.where(found & ~all_null, self.columns[where] if len(self.columns) else -1, -1)


def splits(text: str, n: int) -> list[tuple[str, ...]]:
    """Every way to cut ``text`` at n - 1 of its "~" into n parts."""
    if n == 1:
        return [(text,)]
    cuts = text.count("~")
    if cuts <= n - 1:  # none, or the one (nearly every key of a model: loading is quicker)
        return [tuple(text.split("~"))] if cuts == n - 1 else []
    out = []
    start = 0
    while (k := text.find("~", start)) >= 0:
        out.extend((text[:k], *rest) for rest in splits(text[k + 1 :], n - 1))
        start = k + 1
    return out


class FeatureArrays:
    """The features of a batch of configurations held in arrays (``batch._Arrays`` is one):
    ``_plan`` numbers the values and addresses a classifier reads, ``_values`` computes them for
    some rows, ``_texts`` turns a feature's symbols back into its values' texts."""

    def _init_features(self, null_value: str) -> None:
        self.symbols = Symbols(null_value)
        self.address_numbers, self.addresses = {}, []
        self.value_numbers, self.value_plan = {}, []
        self.input_columns: list[int] = []
        self.label_symbol = np.zeros(0, dtype=np.int64)  # arc label code -> the symbol of its DEPREL

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

    def from_end(self, seq: str, rows: np.ndarray, i: int) -> np.ndarray:
        """The i-th node from the end of each row's list ``seq`` (``addresses.FromEnd``), -1 past
        it: the stack is kept from ``offset`` up, ``depth`` nodes; the buffer as its front, then
        the words rest..n (see ``transition.nivre_arrays``)."""
        if seq == "stack":
            place = self.depth[rows] - 1 - i
            return np.where(place >= 0, self.stack[self.offset[rows] + np.maximum(place, 0)], -1)
        front, n = self.front[rows], self.n[rows]
        node = front if i == 0 else self.rest[rows] + (i - 1)
        return np.where((front <= n) & (node <= n), node, -1)

    def _node(self, k: int, rows: np.ndarray, nodes: dict) -> np.ndarray:
        """The node at address ``k`` of each row's configuration, -1 for none (the arrays form
        of its definition in ``addresses.ADDRESS_FUNCTIONS``)."""
        got = nodes.get(k)
        if got is not None:
            return got
        a, inner = self.addresses[k]
        arrays = arrays_form(a.name)
        if inner is None:
            node = arrays(self, rows, a.index)
        else:
            x = self._node(inner, rows, nodes)
            node = arrays(self, rows, x, self.offset[rows] + np.maximum(x, 0))
        nodes[k] = node
        return node

    def _value(self, v: int, rows: np.ndarray, nodes: dict) -> np.ndarray:
        """The symbol of an InputColumn or OutputColumn value for each row (the arrays form of
        its definition in ``functions.FEATURE_FUNCTIONS``)."""
        f, k = self.value_plan[v]
        x = nodes[k]
        nulls = self.symbols.null_codes(symbol_source(f))
        return FEATURE_FUNCTIONS[f.name].arrays(self, f, x, self.offset[rows] + np.maximum(x, 0), nulls)

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
            return parts[0], inverse[symbol_source(f)]
        sources = [symbol_source(p) for p in f.args]
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


def covered(system, feature_model, split: Feature | None, learning: bool = False) -> bool:
    """Does the arrays form cover this transition system, feature model and data split feature
    (``spec.split_feature``, None without a split), for parsing or for ``learning``?"""
    if not covers(system, learning) or not feature_model.plain:
        return False
    bases = form_of(type(system)).addresses
    if split is not None and (split.args[0] in INTEGER_COLUMNS or not _address_ok(split.args[1], bases)):
        return False
    return all(_feature_ok(s.feature, bases) for s in feature_model.specs)


def split_feature(config) -> Feature | None:
    """The data split's feature, InputColumn(column, structure), or None without a split."""
    if config.guide.data_split_column is None:
        return None
    return spec.split_feature(config.guide.data_split_column, config.guide.data_split_structure)
