"""Feature values as a classifier's input: binarized columns for the SVMs, symbols for k-NN.

Binarized (Nivre 2008, §6.1): every (feature, value) pair is a column of a sparse matrix, 1 where
the instance has the value, numbered in order of first appearance in the training instances as
MaltParser's FeatureMap numbers them; a Split value gives several columns, a number (an ID
feature) one column holding the number itself (so X is not 0/1 then), a null left out nothing.
Symbolic (the k-NN learner, as TiMBL reads instances): each feature's value, whole, is one
symbol, numbered per feature in order of first appearance; a value never seen in training is
-1 at parse time.
"""

from __future__ import annotations

import itertools
from array import array
from collections.abc import Callable
from operator import itemgetter

import numpy as np
import scipy.sparse as sp

NUMBER = "#number#"  # the one column of a numeric feature, whose value is the number


class FeatureMap:
    """(feature position, value) -> column of X, for one classifier.

    ``positions`` are the positions in the feature model the classifier reads (a data split's
    sub-models leave out the split feature). Values: a string is one binary feature, a tuple
    several, a number one feature with that value, None (or a null left out) nothing.
    """

    def __init__(self, positions: list[int], skip: frozenset = frozenset()) -> None:
        self.positions = positions
        self.skip = skip
        self.tables: list[dict[object, int]] = [{} for _ in positions]
        self.size = 0
        self._pick: Callable[[tuple], tuple] | None = None
        #: the classifier reads the model's first features in their order (no data split left one
        #: out), so ``columns_of`` needs no pick: its map stops at the last table
        self._in_order = list(positions) == list(range(len(positions)))

    def keys(self) -> list[list]:
        """[position, value, ...] of every column, in column order (for the model archive): the
        values of the column, one but in a MaltParser model's map (``mco``), where values maltpy
        tells apart can be one of MaltParser's."""
        out: list[list] = [[]] * self.size
        for p, table in zip(self.positions, self.tables):
            for value, column in table.items():
                if out[column]:
                    out[column].append(value)
                else:
                    out[column] = [p, value]
        return out

    @classmethod
    def from_keys(cls, positions: list[int], keys: list, skip: frozenset = frozenset()) -> FeatureMap:
        """The map kept by ``keys`` ([position, value, ...] per column). ValueError if it is not one."""
        fmap = cls(positions, skip)
        slot = {p: i for i, p in enumerate(positions)}
        if not isinstance(keys, list):
            raise ValueError("a feature map is not a list")
        # a model's load is mostly this: the values of each table gathered in one pass, the tables
        # filled at once; anything amiss is looked for again, column by column, to name it
        values: list[list] = [[] for _ in positions]
        columns: list[list[int]] = [[] for _ in positions]
        for column, key in enumerate(keys):
            if not (isinstance(key, (list, tuple)) and len(key) >= 2 and key[0] in slot):
                raise ValueError(f"feature map column {column} is not a (feature, value) pair of the classifier")
            i = slot[key[0]]
            if len(key) == 2:
                values[i].append(key[1])
                columns[i].append(column)
            else:
                values[i].extend(itertools.islice(key, 1, None))
                columns[i].extend(itertools.repeat(column, len(key) - 1))
        for table, v, c in zip(fmap.tables, values, columns):
            if not all(map(isinstance, v, itertools.repeat(str))):
                _refuse(keys, slot)
            table.update(zip(v, c))
            if len(table) != len(v):
                _refuse(keys, slot)
        fmap.size = len(keys)
        return fmap

    def columns_of(self, values: tuple) -> list[int]:
        """The columns of one instance's values, ascending (a CSR row), when they are all plain
        strings or None (a model without Split or ID features): ``transform``'s columns, one
        look-up per feature (the per-sentence parse's hot path). Nulls to skip have no column:
        learning left them out."""
        picked = values if self._in_order else self.pick(values)
        return sorted(x for x in map(dict.get, self.tables, picked) if x is not None)

    @property
    def picks(self) -> list[int] | None:
        """The places of the classifier's values among an instance's (``positions``), None when
        they are its first ones in order (the fast form's Plan.columns reads them so, ``functions.compile_plan``)."""
        return None if self._in_order else list(self.positions)

    @property
    def pick(self) -> Callable[[tuple], tuple]:
        """The classifier's values (at ``positions``) of an instance's."""
        if self._pick is None:
            get = itemgetter(*self.positions) if self.positions else (lambda values: ())
            self._pick = get if len(self.positions) != 1 else (lambda values: (get(values),))
        return self._pick

    def transform(self, rows: list[tuple]) -> sp.csr_matrix:
        """X for rows of feature values; values never seen in training are left out."""
        indptr = [0]
        indices: list[int] = []
        data: list[float] = []
        slots = list(zip(self.positions, self.tables))
        skip = self.skip
        for row in rows:
            for p, table in slots:
                value = row[p]
                if type(value) is str:  # the common case, first
                    column = table.get(value)
                    if column is not None and value not in skip:
                        indices.append(column)
                        data.append(1.0)
                elif isinstance(value, tuple):
                    for item in value:
                        column = table.get(item)
                        if column is not None and item not in skip:
                            indices.append(column)
                            data.append(1.0)
                elif value is not None:
                    column = table.get(NUMBER)
                    if column is not None:
                        indices.append(column)
                        data.append(float(value))
            indptr.append(len(indices))
        X = sp.csr_matrix(
            (np.array(data), np.array(indices, dtype=np.int32), np.array(indptr)), shape=(len(rows), self.size)
        )
        X.sort_indices()
        return X


class SymbolMap:
    """(feature position, value) -> symbol, for one k-NN classifier: ``tables[k]`` numbers the
    values of feature ``positions[k]`` (any value: a string, a tuple, a number, None)."""

    def __init__(self, positions: list[int], tables: list[dict[object, int]]) -> None:
        self.positions = positions
        self.tables = tables
        self.size = sum(len(t) for t in tables)

    def keys(self) -> list[list]:
        """Each feature's values in symbol order (for the model archive)."""
        return [list(table) for table in self.tables]

    @classmethod
    def from_keys(cls, positions: list[int], keys: list, skip: frozenset = frozenset()) -> SymbolMap:
        """The map kept by ``keys``; JSON holds a tuple as a list. ValueError if it is not one.
        (``skip`` is FeatureMap's: for k-NN a null is a symbol like any other value.)"""
        if not isinstance(keys, list) or len(keys) != len(positions):
            raise ValueError("a symbol table per feature expected")
        tables = []
        for values in keys:
            if not isinstance(values, list):
                raise ValueError("a symbol table is not a list")
            table = {tuple(v) if isinstance(v, list) else v: code for code, v in enumerate(values)}
            if len(table) != len(values):
                raise ValueError("a symbol table holds a value twice")
            tables.append(table)
        return cls(positions, tables)

    def transform(self, rows: list[tuple]) -> np.ndarray:
        """The symbols of rows of feature values, -1 for a value never seen in training."""
        slots = list(zip(self.positions, self.tables))
        codes = [table.get(row[p], -1) for row in rows for p, table in slots]
        return np.array(codes, dtype=np.int32).reshape(len(rows), len(slots))


class Instances:
    """The training instances, encoded as they come (they can be many: a compact buffer).

    Binarized: every (position, value) gets a code by first appearance; an instance is its
    codes; ``matrix`` numbers a classifier's own columns by first appearance in its instances.
    Symbolic: every value gets a symbol per position by first appearance; ``symbols`` renumbers
    them per classifier the same way. Each instance has its class and, with a data split, its
    split value.
    """

    def __init__(self, n_positions: int, skip: frozenset = frozenset(), binary: bool = True,
                 symbolic: bool = False) -> None:  # fmt: skip
        self.tables: list[dict[object, int]] = [{None: -1} for _ in range(n_positions)]  # None: no value
        self.keys: list[tuple[int, object]] = []
        self.skip = skip
        self.binary = binary
        self.codes = array("i")
        self.weights: dict[int, float] = {}  # entry -> value, for numeric features only
        self.ends = array("q")
        self.symbol_tables: list[dict[object, int]] | None = [{} for _ in range(n_positions)] if symbolic else None
        self.symbols_of = array("i")  # n_positions symbols per instance
        self.classes = array("i")
        self.split_values: list[str] = []

    def __len__(self) -> int:
        return len(self.classes)

    def add(self, values: tuple, cls: int) -> None:
        if self.binary:
            # Known string values, the usual case, are looked up at C speed; the rest one by one.
            row = list(map(dict.get, self.tables, values))
            if None in row:
                row = self._encode(values, row)
            elif -1 in row:
                row = [code for code in row if code >= 0]
            self.codes.extend(row)
            self.ends.append(len(self.codes))
        if self.symbol_tables is not None:
            self.symbols_of.extend([table.setdefault(v, len(table)) for table, v in zip(self.symbol_tables, values)])
        self.classes.append(cls)

    def add_numbered(self, values: list[tuple[np.ndarray, list]], classes: list[int]) -> None:
        """Instances given feature by feature, as ``batch.Replay`` holds them: ``values[p]`` is a
        number per instance and the text (or None) of each number; binarized only. The same
        instances as ``add`` one by one gives."""
        columns = []
        for p, (numbers, texts) in enumerate(values):
            code_of = np.full(len(texts), -1, dtype=np.int32)
            for k in np.unique(numbers).tolist():
                text = texts[k]
                if text is not None and text not in self.skip:
                    code_of[k] = self._code(p, text)
            columns.append(code_of[numbers])
        codes = np.stack(columns, axis=1) if columns else np.zeros((len(classes), 0), dtype=np.int32)
        present = codes >= 0
        ends = len(self.codes) + np.cumsum(present.sum(axis=1))
        self.codes.frombytes(codes[present].astype(np.int32).tobytes())
        self.ends.frombytes(ends.astype(np.int64).tobytes())
        self.classes.frombytes(np.asarray(classes, dtype=np.int32).tobytes())

    def symbols(self, members: np.ndarray, positions: list[int]) -> tuple[np.ndarray, SymbolMap]:
        """The symbols of the instances ``members`` (in that order) at ``positions``, renumbered by
        first appearance among them, and their map."""
        everything = np.frombuffer(self.symbols_of, dtype=np.int32).reshape(len(self), len(self.symbol_tables))
        X = np.empty((len(members), len(positions)), dtype=np.int32)
        tables = []
        for k, p in enumerate(positions):
            unique, first, inverse = np.unique(everything[members, p], return_index=True, return_inverse=True)
            order = np.argsort(first, kind="stable")
            renumbered = np.empty(len(unique), dtype=np.int32)
            renumbered[order] = np.arange(len(unique), dtype=np.int32)
            X[:, k] = renumbered[inverse.ravel()]
            values = list(self.symbol_tables[p])
            tables.append({values[unique[o]]: code for code, o in enumerate(order.tolist())})
        return X, SymbolMap(positions, tables)

    def values_of(self, members: np.ndarray, positions: list[int]) -> list[list]:
        """The values themselves of the instances ``members`` at ``positions`` (symbolic only)."""
        everything = np.frombuffer(self.symbols_of, dtype=np.int32).reshape(len(self), len(self.symbol_tables))
        values = [list(self.symbol_tables[p]) for p in positions]
        return [[values[k][code] for k, code in enumerate(row)] for row in everything[members][:, positions].tolist()]

    def _encode(self, values: tuple, known: list) -> list[int]:
        row: list[int] = []
        for p, (value, code) in enumerate(zip(values, known)):
            if code is not None:
                if code >= 0:
                    row.append(code)
                continue
            if type(value) is str:
                items = (value,)
            elif isinstance(value, tuple):
                items = value
            else:
                self.weights[len(self.codes) + len(row)] = float(value)
                items = (NUMBER,)
            for item in items:
                if item not in self.skip:
                    row.append(self._code(p, item))
        return row

    def _code(self, p: int, item: object) -> int:
        """The code of value ``item`` of feature ``p``, a new one the first time it is seen."""
        table = self.tables[p]
        code = table.get(item)
        if code is None:
            code = table[item] = len(self.keys)
            self.keys.append((p, item))
        return code

    def matrix(self, members: np.ndarray, positions: list[int]) -> tuple[sp.csr_matrix, FeatureMap]:
        """X for the instances ``members`` (in that order), reading only ``positions``."""
        ends = np.frombuffer(self.ends, dtype=np.int64)
        starts = np.concatenate([[0], ends[:-1]])
        lengths = ends[members] - starts[members]
        first_entry = np.repeat(starts[members] - np.concatenate([[0], np.cumsum(lengths)[:-1]]), lengths)
        entries = np.arange(int(lengths.sum())) + first_entry
        codes = np.frombuffer(self.codes, dtype=np.int32)[entries]
        weights = np.ones(len(codes))
        if self.weights:
            # entries are ascending within each member, not across them (a data split's master
            # takes its members value by value): look them up in sorted order
            order = np.argsort(entries, kind="stable")
            ordered = entries[order]
            numeric = np.array(sorted(self.weights))
            where = np.searchsorted(ordered, numeric)
            found = (where < len(ordered)) & (ordered[np.minimum(where, len(ordered) - 1)] == numeric)
            weights[order[where[found]]] = [self.weights[e] for e in numeric[found]]
        rows = np.repeat(np.arange(len(members)), lengths)
        if len(positions) < len(self.tables):
            position_of = np.array([p for p, _ in self.keys], dtype=np.int32)
            keep = np.isin(position_of[codes], positions)
            codes, weights, rows = codes[keep], weights[keep], rows[keep]
        unique, first = np.unique(codes, return_index=True)
        in_order = unique[np.argsort(first, kind="stable")]  # first appearance, as MaltParser's FeatureMap
        column = np.zeros(len(self.keys), dtype=np.int32)
        column[in_order] = np.arange(len(in_order), dtype=np.int32)
        indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=len(members)))])
        X = sp.csr_matrix((weights, column[codes], indptr), shape=(len(members), len(in_order)))
        X.sort_indices()
        fmap = FeatureMap.from_keys(positions, [self.keys[c] for c in in_order], self.skip)
        return X, fmap


def _refuse(keys: list, slot: dict[int, int]) -> None:
    """The ValueError of the first column of ``keys`` whose value is not text or repeats one."""
    tables: list[set] = [set() for _ in slot]
    for column, key in enumerate(keys):
        table = tables[slot[key[0]]]
        for value in itertools.islice(key, 1, None):
            if not isinstance(value, str):
                raise ValueError(f"feature map column {column} is not a (feature, value) pair of the classifier")
            if value in table:
                raise ValueError(f"feature map column {column} repeats a value")
            table.add(value)
    raise ValueError("a feature map that is not one")
