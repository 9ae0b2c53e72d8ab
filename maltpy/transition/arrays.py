"""What the arrays forms of the transition systems share: a batch's partial trees, its gold trees,
and the view of them the systems' rules read.

A batch of configurations keeps its sentences' nodes in flat arrays, one stretch per sentence
from ``offset[b]`` (its nodes 0..n and one place past the end): ``heads``, ``labels`` (class
numbers, -1 for none), ``ldep`` and ``rdep`` (the leftmost left and rightmost right dependent) per
node (``Configurations``). A system's arrays form (its class's ``arrays``: ``nivre``'s and
``covington``'s, beside their rules) adds the fields of its own configurations (``start``) and
moves them by the system's rules, the same functions the per-configuration form runs, given the
batch's facts (``Rows``) instead of one configuration's (``base.One``); ``batch.py`` parses and
learns with them, and ``features.arrays`` reads them.

An arrays form has, beside its system's rules for a batch of ``rows``: ``moves`` (the transitions
by number), ``addresses`` (the base addresses its configurations have in arrays), ``covers(system)``
(whether its options are all in the arrays form), ``start(c)``, ``unfinished``, ``deterministic``,
``allowed``, ``apply``, ``default`` (the move when no ranked one is allowed) and ``configuration``
(one row as the per-sentence system holds it); and where learning replays the oracle in arrays
(``learns``), ``oracle``.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module

import numpy as np

from .base import Arcs, One


class Configurations:
    """The partial trees of a batch of configurations in flat arrays (see the module's docstring)."""

    def start(self, lengths: np.ndarray) -> None:
        """No arc yet in sentences of ``lengths`` words."""
        B = len(lengths)
        self.offset = np.zeros(B, dtype=np.int64)
        np.cumsum(lengths[:-1] + 2, out=self.offset[1:])
        size = int(lengths.sum()) + 2 * B
        self.n = lengths
        self.heads = np.full(size, -1, dtype=np.int64)
        self.labels = np.full(size, -1, dtype=np.int64)
        self.ldep = np.full(size, -1, dtype=np.int64)
        self.rdep = np.full(size, -1, dtype=np.int64)

    def add(self, offset: np.ndarray, head: np.ndarray, dependent: np.ndarray, label: np.ndarray) -> None:
        """The arcs head → dependent, one a row of the sentences at ``offset`` (``Arcs.add``)."""
        self.heads[offset + dependent] = head
        self.labels[offset + dependent] = label
        left = dependent < head
        hl, dl = (offset + head)[left], dependent[left]
        old = self.ldep[hl]
        self.ldep[hl] = np.where((old < 0) | (dl < old), dl, old)
        hr, dr = (offset + head)[~left], dependent[~left]
        old = self.rdep[hr]
        self.rdep[hr] = np.where(dr > old, dr, old)

    def arcs(self, b: int, texts: list) -> Arcs:
        """Row b's partial tree as ``Arcs`` holds it (labels: the texts of the class numbers)."""
        o, n = int(self.offset[b]), int(self.n[b])
        heads = self.heads[o : o + n + 1].tolist()
        labels = [texts[k] if k >= 0 else None for k in self.labels[o : o + n + 1].tolist()]
        arcs = Arcs(heads, labels, [[] for _ in heads], [[] for _ in heads])
        for d, h in enumerate(heads):  # dependents in word order, as Arcs.add keeps them
            if h >= 0:
                (arcs.left[h] if d < h else arcs.right[h]).append(d)
        return arcs

    def stretches(self, rows: np.ndarray, first: np.ndarray, count: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For each row, ``count`` nodes from ``first`` down (``first``, ``first - 1``, ...), all
        rows' one after another: each one's row (its place in ``rows``) and node number."""
        owner = np.repeat(np.arange(len(rows)), count)
        starts = np.cumsum(count) - count
        node = first[owner] - (np.arange(len(owner)) - starts[owner])
        return owner, node


class Gold:
    """The gold trees of a batch in arrays (``base.Gold``): per node place, its gold head and
    label (a number), and its leftmost left and rightmost right gold dependent (-1: none)."""

    def __init__(self, c: Configurations, golds: list[tuple[list[int], list[str]]],
                 label_number: Callable[[str], int]) -> None:  # fmt: skip
        size = len(c.heads)
        self.heads = np.full(size, -1, dtype=np.int64)
        self.labels = np.full(size, -1, dtype=np.int64)
        for o, (heads, labels) in zip(c.offset.tolist(), golds):
            self.heads[o : o + len(heads)] = heads
            self.labels[o + 1 : o + len(heads)] = [label_number(t) for t in labels[1:]]
        self.heads[c.offset] = -1
        dependent = np.flatnonzero(self.heads >= 0)
        owner = np.repeat(c.offset, c.n + 2)[dependent]
        head, position = self.heads[dependent], dependent - owner
        left = position < head
        self.ldep = np.full(size, size, dtype=np.int64)
        np.minimum.at(self.ldep, (owner + head)[left], position[left])
        self.ldep[self.ldep == size] = -1
        self.rdep = np.full(size, -1, dtype=np.int64)
        np.maximum.at(self.rdep, (owner + head)[~left], position[~left])


class Rows(One):
    """The facts of the configurations of a batch's ``rows`` as the rules read them (``base.One``):
    a node is an array of node numbers, one a row, and each fact an array, one a row. ``number``
    gives the moves' numbers in the arrays form (None: -1, no move)."""

    def __init__(self, c: Configurations, rows: np.ndarray, number: dict, gold: Gold | None = None) -> None:
        self.c, self.rows, self.number, self.gold = c, rows, number, gold
        self.offset = c.offset[rows]

    def head(self, node: np.ndarray) -> np.ndarray:
        return self.c.heads[self.offset + node]

    def rightmost(self, node: np.ndarray) -> np.ndarray:
        return self.c.rdep[self.offset + node]

    def gold_head(self, node: np.ndarray) -> np.ndarray:
        return self.gold.heads[self.offset + node]

    def gold_leftmost(self, node: np.ndarray) -> np.ndarray:
        return self.gold.ldep[self.offset + node]

    def gold_rightmost(self, node: np.ndarray) -> np.ndarray:
        return self.gold.rdep[self.offset + node]

    def first(self, cases, default) -> np.ndarray:
        """Each row's move number: of the first of the (condition, move) ``cases`` that holds
        in the row, else of ``default``."""
        number, size = self.number, len(self.rows)
        if not cases:
            return np.full(size, number[default], dtype=np.int64)
        conditions = [np.broadcast_to(condition, size) for condition, _ in cases]
        return np.select(conditions, [number[move] for _, move in cases], number[default])


def form_of(system_class: type) -> type | None:
    """The arrays form of a transition system class: the class its ``arrays`` names, in the module
    beside the system's (``nivre_arrays`` beside ``nivre``), loaded here when a batch first asks
    for it, so that the systems' facts and rules load no NumPy; None for a system without one."""
    if system_class.arrays is None:
        return None
    return getattr(import_module(f"{system_class.__module__}_arrays"), system_class.arrays)


def covers(system, learning: bool = False) -> bool:
    """Whether ``system``, with its options, has an arrays form (for ``learning``: one that
    replays the oracle)."""
    form = form_of(type(system))
    return form is not None and form.covers(system) and (form.learns or not learning)


def arrays_form(system):
    """The arrays form of ``system``, with its options."""
    return form_of(type(system))(system)
