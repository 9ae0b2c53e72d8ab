"""Covington's systems in arrays: covington.py's rules for a batch of configurations at once
(Nivre 2008, §5.1 and §5.2), which ``batch.py`` parses with.

A batch of ``covington.CovingtonConfiguration`` in arrays is the partial trees of
``arrays.Configurations`` with, per sentence, its current left word i (``left``) and right word j
(``right``), and per node the connected component of the partial graph it belongs to
(``component``: the number of one of its nodes, the same for all of them). Where the per-sentence
system keeps a union-find forest, the arrays keep each component's number on every node, and a
new arc gives its dependent's component the number of its head's: that costs a row the length of
its sentence, and whether i and j are connected is one gather.

The skip to the next i that can still be linked to j (``_next_left``) is a search over the words
left of i, every row's at once (``Configurations.stretches``); the first word left of i settles
most rows, and only the others search further.

``covers``: the systems' options -cr and -cs; covnonproj with a bound on the degree of
non-projectivity (-cd) takes the per-sentence path. Learning replays the oracle configuration by
configuration (``learns`` is false): in arrays it took as long, Covington's many instances a word
held in memory a chunk at a time (en_lines: 7.3 s against 6.8 s of feature extraction, 1.66 GB
against 1.28 GB at the peak).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .arrays import Configurations
from .base import LA, NA, RA, SH
from .covington import CovingtonConfiguration, CovingtonNonProjective, CovingtonProjective

MOVES = (SH, NA, RA, LA)  # the transitions by their number in arrays
SHIFT, NO_ARC, RIGHT_ARC, LEFT_ARC = range(4)


class CovingtonNonProjectiveArrays:
    """``CovingtonNonProjective`` in arrays (Nivre 2008, §5.2, Fig. 8)."""

    moves = MOVES
    addresses = frozenset({"Left", "Right", "LeftContext", "RightContext"})
    learns = False

    def __init__(self, system: CovingtonNonProjective) -> None:
        self.allow_shift = system.allow_shift
        self.leftstop = 0 if system.allow_root else 1

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
        """The move when no ranked one is allowed (``default``): NO-ARC."""
        return NO_ARC, -1

    def unfinished(self, c: Configurations, rows: np.ndarray) -> np.ndarray:
        """The rows not terminal (``is_terminal``): j is a word."""
        return rows[c.right[rows] <= c.n[rows]]

    def deterministic(self, c: Configurations, rows: np.ndarray,
                      record: Callable[[np.ndarray], None] | None = None) -> None:  # fmt: skip
        """None: Covington's systems ask the classifier at every step (``deterministic``)."""

    def allowed(self, c: Configurations, rows: np.ndarray) -> np.ndarray:
        """Which of ``MOVES`` each row allows (``allowed``)."""
        o = c.offset[rows]
        i, j = c.left[rows], c.right[rows]
        apart = c.component[o + i] != c.component[o + j]
        ok = np.zeros((len(rows), 4), dtype=bool)
        ok[:, SHIFT] = self.allow_shift
        ok[:, NO_ARC] = True
        ok[:, RIGHT_ARC] = apart & (c.heads[o + j] == -1)
        ok[:, LEFT_ARC] = apart & (i != 0) & (c.heads[o + i] == -1)
        return ok

    def apply(self, c: Configurations, rows: np.ndarray, move: np.ndarray, label: np.ndarray) -> None:
        """Apply one move to each row (``apply``): LEFT-ARC adds j → i, RIGHT-ARC i → j, and both
        join the two components; SHIFT moves to the next j, the others to the next i."""
        if not len(rows):
            return
        o = c.offset[rows]
        i, j = c.left[rows], c.right[rows]
        la, ra = move == LEFT_ARC, move == RIGHT_ARC
        arc = la | ra
        if arc.any():
            head, dependent = np.where(la, j, i)[arc], np.where(la, i, j)[arc]
            c.add(o[arc], head, dependent, label[arc])
            self._join(c, rows[arc], head, dependent)
        shift = move == SHIFT
        self._next_right(c, rows[shift])
        self._next_left(c, rows[~shift], move[~shift])

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
        """Whether each node (of the row ``rows[owner]``) could still be linked to the row's j:
        outside j's component, and not where both already have a head."""
        o = c.offset[rows]
        j = o + c.right[rows]
        place = o[owner] + node
        return (c.component[place] != c.component[j][owner]) & ((c.heads[place] == -1) | (c.heads[j][owner] == -1))

    def _next_left(self, c: Configurations, rows: np.ndarray, move: np.ndarray) -> None:
        """Move i to the next word left of it that can still be linked to j, or to the next j
        when there is none (``_next_left``)."""
        self._seek(c, rows, c.left[rows] - 1)

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


class CovingtonProjectiveArrays(CovingtonNonProjectiveArrays):
    """``CovingtonProjective`` in arrays (Nivre 2008, §5.1, Fig. 7), i moved as MaltParser moves
    it: after RIGHT-ARC the next j; after LEFT-ARC the next word left of i outside j's component;
    after NO-ARC i's head, or the next j if i has none."""

    @staticmethod
    def covers(system: CovingtonProjective) -> bool:
        return True

    def _linkable(self, c: Configurations, rows: np.ndarray, owner: np.ndarray, node: np.ndarray) -> np.ndarray:
        o = c.offset[rows]
        return c.component[o[owner] + node] != c.component[o + c.right[rows]][owner]

    def _next_left(self, c: Configurations, rows: np.ndarray, move: np.ndarray) -> None:
        ra, na = move == RIGHT_ARC, move == NO_ARC
        self._next_right(c, rows[ra])
        to_head = rows[na]
        head = c.heads[c.offset[to_head] + c.left[to_head]]
        has = head >= self.leftstop  # a head of -1, or the root where i stops at 1: the next j
        c.left[to_head[has]] = head[has]
        self._next_right(c, to_head[~has])
        la = move == LEFT_ARC
        self._seek(c, rows[la], c.left[rows[la]] - 1)
