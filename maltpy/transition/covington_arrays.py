"""Covington's systems in arrays (``covington.CovingtonNonProjective``'s and
``CovingtonProjective``'s ``arrays``), for ``models.batch``: the layout and the search are in
``covington``'s docstring, each rule written there once for one configuration and for rows of
them. Apart from the rules so that the systems' facts and rules load no NumPy:
``transition.arrays.form_of`` loads this module when a batch first needs it."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .arrays import Configurations
from .base import LA, RA
from .covington import (
    ARCS,
    HEAD,
    LEFT_ARC,
    MOVES,
    NEXT_J,
    RIGHT_ARC,
    SEEK,
    CovingtonConfiguration,
    CovingtonNonProjective,
)


class CovingtonArrays:
    """``CovingtonNonProjective`` or ``CovingtonProjective`` in arrays, with its options, for
    ``models.batch`` (the module's docstring). Each method takes the configurations and ``rows``,
    the sentences of the batch it applies to, and computes for each what the per-configuration
    method its docstring names computes, by the same rules."""

    moves = MOVES
    addresses = frozenset({"Left", "Right", "LeftContext", "RightContext"})
    learns = False

    def __init__(self, system: CovingtonNonProjective) -> None:
        self.system = system
        self.leftstop = 0 if system.allow_root else 1
        self._next = np.array([system.next_i[name] for name in MOVES], dtype=np.int64)

    @staticmethod
    def covers(system: CovingtonNonProjective) -> bool:
        return system.max_degree is None

    def start(self, c: Configurations) -> None:
        """The initial configurations (``initial``): i the first word it may be, j the next."""
        B = len(c.n)
        c.left = np.full(B, self.leftstop, dtype=np.int64)
        c.right = c.left + 1
        c.component = np.arange(len(c.heads), dtype=np.int64) - np.repeat(c.offset, c.n + 2)

    def configuration(self, c: Configurations, b: int, texts: list) -> CovingtonConfiguration:
        """Row b's configuration as ``CovingtonConfiguration`` holds it (labels: the texts of the
        class numbers, ``texts``); its union-find forest has each node's parent its component's
        number, which is a node of the component and its own parent."""
        o, n = int(c.offset[b]), int(c.n[b])
        parent = c.component[o : o + n + 1].tolist()
        return CovingtonConfiguration(n, int(c.left[b]), int(c.right[b]), self.leftstop, c.arcs(b, texts), parent)

    def default(self, c: Configurations, b: int, end_label: int) -> tuple[int, int]:
        """The move when no ranked one is allowed (``default``)."""
        return MOVES.index(self.system.default_move), -1

    def unfinished(self, c: Configurations, rows: np.ndarray) -> np.ndarray:
        """The rows not terminal (``is_terminal``): j is a word."""
        return rows[c.right[rows] <= c.n[rows]]

    def deterministic(self, c: Configurations, rows: np.ndarray,
                      record: Callable[[np.ndarray], None] | None = None) -> None:  # fmt: skip
        """None: Covington's systems ask the classifier at every step (``deterministic``)."""

    def allowed(self, c: Configurations, rows: np.ndarray) -> np.ndarray:
        """Which of ``MOVES`` each row allows (``_preconditions``)."""
        o = c.offset[rows]
        i, j = c.left[rows], c.right[rows]
        apart = c.component[o + i] != c.component[o + j]
        ok = np.empty((len(rows), len(MOVES)), dtype=bool)
        for k, allowed in enumerate(self.system._preconditions(apart, i, c.heads[o + i], c.heads[o + j])):
            ok[:, k] = allowed
        return ok

    def apply(self, c: Configurations, rows: np.ndarray, move: np.ndarray, label: np.ndarray) -> None:
        """Apply one move to each row (``apply``): its arc (``ARCS``), which joins the two
        components, and i's next place (``next_i``)."""
        if not len(rows):
            return
        o = c.offset[rows]
        ends = (c.left[rows], c.right[rows])
        la, ra = move == LEFT_ARC, move == RIGHT_ARC
        arc = la | ra
        if arc.any():
            (la_head, la_dependent), (ra_head, ra_dependent) = ARCS[LA], ARCS[RA]
            head = np.where(la, ends[la_head], ends[ra_head])[arc]
            dependent = np.where(la, ends[la_dependent], ends[ra_dependent])[arc]
            c.add(o[arc], head, dependent, label[arc])
            self._join(c, rows[arc], head, dependent)
        after = self._next[move]
        self._next_right(c, rows[after == NEXT_J])
        to_head = rows[after == HEAD]
        if len(to_head):
            head = c.heads[c.offset[to_head] + c.left[to_head]]
            has = head >= self.leftstop  # a head of -1, or the root where i stops at 1: the next j
            c.left[to_head[has]] = head[has]
            self._next_right(c, to_head[~has])
        seek = rows[after == SEEK]
        self._seek(c, seek, c.left[seek] - 1)

    @staticmethod
    def _join(c: Configurations, rows: np.ndarray, head: np.ndarray, dependent: np.ndarray) -> None:
        """The dependent's component joins the head's (``base.join``): every node of the
        dependent's takes the number of the head's."""
        o = c.offset[rows]
        into, old = c.component[o + head], c.component[o + dependent]
        owner, node = c.stretches(rows, c.n[rows], c.n[rows] + 1)
        place = o[owner] + node
        moved = c.component[place] == old[owner]
        c.component[place[moved]] = into[owner[moved]]

    @staticmethod
    def _next_right(c: Configurations, rows: np.ndarray) -> None:
        c.right[rows] += 1
        c.left[rows] = c.right[rows] - 1

    def _linkable(self, c: Configurations, rows: np.ndarray, owner: np.ndarray, node: np.ndarray) -> np.ndarray:
        """Whether each node (of the row ``rows[owner]``) could still be linked to the row's j
        (``_linkable``)."""
        o = c.offset[rows]
        j = o + c.right[rows]
        place = o[owner] + node
        apart = c.component[place] != c.component[j][owner]
        return self.system._linkable(apart, c.heads[place], c.heads[j][owner])

    def _seek(self, c: Configurations, rows: np.ndarray, first: np.ndarray) -> None:
        """i becomes the nearest word from ``first`` down to the left stop that can still be
        linked to j (``_linkable``); rows without one move to the next j."""
        if not len(rows):
            return
        count = np.maximum(first - self.leftstop + 1, 0)
        # the first word settles most rows
        near = count > 0
        near[near] = self._linkable(c, rows[near], np.arange(int(near.sum())), first[near])
        c.left[rows[near]] = first[near]
        far = ~near & (count > 1)
        found = np.full(len(rows), -1, dtype=np.int64)
        if far.any():
            far_rows = rows[far]
            owner, node = c.stretches(far_rows, first[far] - 1, count[far] - 1)
            ok = self._linkable(c, far_rows, owner, node)
            best = np.full(len(far_rows), -1, dtype=np.int64)
            np.maximum.at(best, owner[ok], node[ok])  # nodes run down: the nearest is the largest
            found[far] = best
        c.left[rows[found >= 0]] = found[found >= 0]
        self._next_right(c, rows[~near & (found < 0)])
