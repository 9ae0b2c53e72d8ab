"""Nivre's systems in arrays: nivre.py's rules for a batch of configurations at once (Nivre 2008,
§4.1 and §4.2), which ``batch.py`` parses and learns with.

A batch of ``nivre.NivreConfiguration`` in arrays is the partial trees of ``arrays.Configurations``
and a stack per sentence in the same places as its nodes (``stack``, ``depth``). The
buffer is its front ``front[b]`` followed by the words ``rest[b]..n[b]`` (in arc-eager ``front + 1``;
arc-standard's RIGHT-ARC puts the head back in front, and the end phase's UNSHIFT puts the top back
in front of an empty buffer, ``rest`` past ``n``); ``end`` marks the end phase.

``NivreEagerArrays`` and ``NivreStandardArrays`` are the arrays forms of ``NivreEager`` and
``NivreStandard``, made from one of them with its options (``arrays_form``). Each method takes the
configurations and ``rows``, the sentences of the batch it applies to, and computes for each what
the per-configuration method its docstring names computes; tests/test_batch.py checks the two
forms against each other on real treebanks. A move is a number: ``MOVES[k]``, or ``UNSHIFT``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .arrays import Configurations, Gold
from .base import LA, RA, RE, SH
from .nivre import NivreConfiguration, NivreEager, NivreStandard

MOVES = (SH, RE, RA, LA)  # the transitions by their number in arrays
SHIFT, REDUCE, RIGHT_ARC, LEFT_ARC, UNSHIFT = range(5)  # UNSHIFT: nivre.USH, never a class


def stack_top(c, rows: np.ndarray) -> np.ndarray:
    """The node on top of each row's stack (``c.stack[-1]``)."""
    return c.stack[c.offset[rows] + c.depth[rows] - 1]


class _NivreArrays:
    """What the two systems share (``_Nivre``): the end, the deterministic moves, the arcs."""

    moves = MOVES
    addresses = frozenset({"Stack", "Input"})
    learns = True

    def __init__(self, system: NivreEager | NivreStandard) -> None:
        self.allow_root = system.allow_root
        self.end_phase = system.end_phase
        self.one_root = system.one_root

    @staticmethod
    def covers(system: NivreEager | NivreStandard) -> bool:
        return True

    def start(self, c: Configurations) -> None:
        """The initial configurations (``_Nivre.initial``): the root on the stack, every word in
        the buffer."""
        B = len(c.n)
        c.stack = np.zeros(len(c.heads), dtype=np.int64)
        c.depth = np.ones(B, dtype=np.int64)
        c.end = np.zeros(B, dtype=bool)  # the end phase: the buffer has been emptied
        c.front = np.ones(B, dtype=np.int64)
        c.rest = np.full(B, 2, dtype=np.int64)

    def configuration(self, c: Configurations, b: int, texts: list) -> NivreConfiguration:
        """Row b's configuration as ``NivreConfiguration`` holds it (labels: the texts of the
        class numbers, ``texts``)."""
        o, n = int(c.offset[b]), int(c.n[b])
        front, rest = int(c.front[b]), int(c.rest[b])
        buffer = list(range(n, rest - 1, -1)) + ([front] if front <= n else [])
        stack = c.stack[o : o + int(c.depth[b])].tolist()
        return NivreConfiguration(stack, buffer, c.arcs(b, texts), bool(c.end[b]))

    def default(self, c: Configurations, b: int, end_label: int) -> tuple[int, int]:
        """The move (and label number) when no ranked one is allowed (``_Nivre.default``):
        RIGHT-ARC with the root label (``end_label``) in the end phase, else SHIFT."""
        return (RIGHT_ARC, end_label) if c.end[b] else (SHIFT, -1)

    def unfinished(self, c: Configurations, rows: np.ndarray) -> np.ndarray:
        """The rows not terminal (``_Nivre.is_terminal``): the buffer holds a word (or, in the
        end phase, the stack holds more than the root)."""
        if self.end_phase:
            return rows[(c.front[rows] <= c.n[rows]) | (c.depth[rows] > 1)]
        return rows[c.front[rows] <= c.n[rows]]

    def deterministic(self, c: Configurations, rows: np.ndarray,
                      record: Callable[[np.ndarray], None] | None = None) -> None:  # fmt: skip
        """Make the moves MaltParser makes without the classifier, as long as there are any
        (``_Nivre.deterministic``): SHIFT while the root is on top and ``allow_root`` is off
        (outside the end phase); in the end phase, with the buffer empty, REDUCE of a top with a
        head and UNSHIFT of one without. ``record`` is told the rows of each round of them."""
        if self.allow_root and not self.end_phase:
            return
        while True:
            now = self.unfinished(c, rows)
            move = np.full(len(now), -1)
            if not self.allow_root:
                move[(stack_top(c, now) == 0) & ~c.end[now]] = SHIFT
            if self.end_phase:  # only the rows whose buffer is empty, few
                emptied = np.flatnonzero(c.front[now] > c.n[now])
                rows_emptied = now[emptied]
                headless = c.heads[c.offset[rows_emptied] + stack_top(c, rows_emptied)] == -1
                move[emptied] = np.where(headless, UNSHIFT, REDUCE)
            chosen = move >= 0
            now, move = now[chosen], move[chosen]
            if not len(now):
                return
            if record is not None:
                record(now)
            self.apply(c, now, move, np.full(len(now), -1))

    def _end_phase(self, c: Configurations, rows: np.ndarray, ok: np.ndarray) -> None:
        """In the end phase SHIFT is no longer allowed, and RIGHT-ARC is, from the root too
        (``allowed``'s ``moves[1:] if c.end``)."""
        end = c.end[rows]
        ok[:, SHIFT] = ~end
        ok[:, RIGHT_ARC] |= end

    def _arcs(self, c: Configurations, offset: np.ndarray, top: np.ndarray, front: np.ndarray,
              move: np.ndarray, label: np.ndarray) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
        """The arcs of both systems: LEFT-ARC front → top, RIGHT-ARC top → front (``_move``'s
        ``arcs.add``); the rows' LEFT-ARC and RIGHT-ARC masks."""
        la, ra = move == LEFT_ARC, move == RIGHT_ARC
        arc = la | ra
        if arc.any():
            head = np.where(la, front, top)
            dependent = np.where(la, top, front)
            c.add(offset[arc], head[arc], dependent[arc], label[arc])
        return la, ra


class NivreEagerArrays(_NivreArrays):
    """``NivreEager`` in arrays (Nivre 2008, §4.2, Fig. 5)."""

    def __init__(self, system: NivreEager) -> None:
        super().__init__(system)
        self.allow_reduce = system.allow_reduce

    def allowed(self, c: Configurations, rows: np.ndarray) -> np.ndarray:
        """Which of ``MOVES`` each row allows (``NivreEager.allowed``)."""
        top = stack_top(c, rows)
        at_root = top == 0
        headless = c.heads[c.offset[rows] + top] == -1
        ok = np.zeros((len(rows), 4), dtype=bool)
        ok[:, SHIFT] = True
        ok[:, RIGHT_ARC] = ~at_root | self.allow_root
        ok[:, LEFT_ARC] = ~at_root & headless
        ok[:, REDUCE] = ~at_root & (~headless | self.allow_reduce)
        if self.end_phase:
            self._end_phase(c, rows, ok)
        if self.one_root:  # the root has its one dependent
            rooted = c.rdep[c.offset[rows]] >= 0
            ok[:, RIGHT_ARC] &= ~(at_root & rooted)
            buffer = c.front[rows] <= c.n[rows]
            ok[:, REDUCE] &= ~(rooted & (c.depth[rows] == 2) & buffer)
        return ok

    def apply(self, c: Configurations, rows: np.ndarray, move: np.ndarray, label: np.ndarray) -> None:
        """Apply one move to each row (``NivreEager._move``, and ``_Nivre.apply``'s UNSHIFT and
        end phase): SHIFT and RIGHT-ARC push the front, LEFT-ARC and REDUCE pop."""
        if not len(rows):
            return
        offset, depth, top = c.offset[rows], c.depth[rows], stack_top(c, rows)
        front, rest = c.front[rows], c.rest[rows]
        la, ra = self._arcs(c, offset, top, front, move, label)
        push = (move == SHIFT) | ra
        pop = la | (move == REDUCE)
        unshift = move == UNSHIFT  # the top back to the (empty) buffer: front top, no rest
        c.stack[(offset + depth)[push]] = front[push]
        c.depth[rows] = depth + push - pop - unshift
        c.front[rows[push]] = rest[push]
        c.rest[rows[push]] = rest[push] + 1
        if unshift.any():
            c.front[rows[unshift]] = top[unshift]
            c.rest[rows[unshift]] = c.n[rows[unshift]] + 1
        if self.end_phase:
            c.end[rows[push & (rest > c.n[rows])]] = True

    def oracle(self, c: Configurations, gold: Gold, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The static oracle's move and label number for each row (``NivreEager.oracle``)."""
        o = c.offset[rows]
        i, j = stack_top(c, rows), c.front[rows]
        head_i, head_j = gold.heads[o + i], gold.heads[o + j]
        move = np.full(len(rows), SHIFT)
        label = np.full(len(rows), -1)
        la = (i != 0) & (head_i == j)
        ra = ~la & (head_j == i)
        undecided = ~la & ~ra
        if not self.allow_reduce:
            undecided &= c.heads[o + i] != -1
        leftmost = gold.ldep[o + j]
        reduce = undecided & (leftmost > -1) & (leftmost < i)
        reduce |= undecided & (head_j < i) & ((head_j != 0) | self.allow_root)
        move[reduce] = REDUCE
        move[la], label[la] = LEFT_ARC, gold.labels[(o + i)[la]]
        move[ra], label[ra] = RIGHT_ARC, gold.labels[(o + j)[ra]]
        return move, label


class NivreStandardArrays(_NivreArrays):
    """``NivreStandard`` in arrays (Nivre 2008, §4.1, Fig. 3, with MaltParser's RIGHT-ARC)."""

    def allowed(self, c: Configurations, rows: np.ndarray) -> np.ndarray:
        """Which of ``MOVES`` each row allows (``NivreStandard.allowed``; REDUCE never)."""
        at_root = stack_top(c, rows) == 0
        ok = np.zeros((len(rows), 4), dtype=bool)
        ok[:, SHIFT] = True
        ok[:, RIGHT_ARC] = ~at_root | self.allow_root
        ok[:, LEFT_ARC] = ~at_root
        if self.end_phase:
            self._end_phase(c, rows, ok)
        if self.one_root:  # the root's dependent is the buffer's last word
            ok[:, RIGHT_ARC] &= ~at_root | (c.rest[rows] > c.n[rows])
        return ok

    def apply(self, c: Configurations, rows: np.ndarray, move: np.ndarray, label: np.ndarray) -> None:
        """Apply one move to each row (``NivreStandard._move``, and ``_Nivre.apply``'s UNSHIFT and
        end phase): SHIFT pushes the front; RIGHT-ARC moves the top back to the front (the root
        stays, and the buffer moves on); LEFT-ARC pops."""
        if not len(rows):
            return
        offset, depth, top = c.offset[rows], c.depth[rows], stack_top(c, rows)
        front, rest = c.front[rows], c.rest[rows]
        la, ra = self._arcs(c, offset, top, front, move, label)
        shift = move == SHIFT
        back = ra & (top != 0)
        advance = shift | (ra & (top == 0))
        unshift = move == UNSHIFT  # the top back to the (empty) buffer, as RIGHT-ARC's back move
        c.stack[(offset + depth)[shift]] = front[shift]
        c.depth[rows] = depth + shift - la - back - unshift
        c.front[rows[back | unshift]] = top[back | unshift]
        c.rest[rows[unshift]] = c.n[rows[unshift]] + 1
        c.front[rows[advance]] = rest[advance]
        c.rest[rows[advance]] = rest[advance] + 1
        if self.end_phase:
            c.end[rows[advance & (rest > c.n[rows])]] = True

    def oracle(self, c: Configurations, gold: Gold, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The static oracle's move and label number for each row (``NivreStandard.oracle``:
        ``base.arc_standard_oracle``)."""
        o = c.offset[rows]
        i, j = stack_top(c, rows), c.front[rows]
        move = np.full(len(rows), SHIFT)
        label = np.full(len(rows), -1)
        la = (i != 0) & (gold.heads[o + i] == j)
        ra = ~la & (gold.heads[o + j] == i) & (gold.rdep[o + j] == c.rdep[o + j])
        move[la], label[la] = LEFT_ARC, gold.labels[(o + i)[la]]
        move[ra], label[ra] = RIGHT_ARC, gold.labels[(o + j)[ra]]
        return move, label
