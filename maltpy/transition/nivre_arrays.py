"""Nivre's systems in arrays: nivre.py's rules for a batch of configurations at once (Nivre 2008,
§4.1 and §4.2), which ``batch.py`` parses and learns with.

``NivreConfigurations`` is the arrays form of ``nivre.NivreConfiguration``: the configurations of
a batch keep their stacks, buffers and partial trees in flat arrays, one stretch per sentence from
``offset[b]`` (its nodes 0..n and one place past the end; the stack's places are the same). The
buffer is its front ``front[b]`` followed by the words ``rest[b]..n[b]`` (in arc-eager ``front + 1``;
arc-standard's RIGHT-ARC puts the head back in front, and the end phase's UNSHIFT puts the top back
in front of an empty buffer, ``rest`` past ``n``); ``heads``, ``labels`` (class numbers, -1 for
none), ``ldep`` and ``rdep`` (the leftmost left and rightmost right dependent) per node.

``NivreEagerArrays`` and ``NivreStandardArrays`` are the arrays forms of ``NivreEager`` and
``NivreStandard``, made from one of them with its options (``arrays_form``). Each method takes the
configurations and ``rows``, the sentences of the batch it applies to, and computes for each what
the per-configuration method its docstring names computes; tests/test_batch.py checks the two
forms against each other on real treebanks. A move is a number: ``MOVES[k]``, or ``UNSHIFT``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .base import LA, RA, RE, SH, Arcs
from .nivre import NivreConfiguration, NivreEager, NivreStandard

MOVES = (SH, RE, RA, LA)  # the transitions by their number in arrays
SHIFT, REDUCE, RIGHT_ARC, LEFT_ARC, UNSHIFT = range(5)  # UNSHIFT: nivre.USH, never a class


class NivreConfigurations:
    """A batch of ``NivreConfiguration`` in flat arrays (see the module's docstring)."""

    def start(self, lengths: np.ndarray) -> None:
        """The initial configurations of sentences of ``lengths`` words (``_Nivre.initial``): the
        root on the stack, every word in the buffer, no arc."""
        B = len(lengths)
        self.offset = np.zeros(B, dtype=np.int64)
        np.cumsum(lengths[:-1] + 2, out=self.offset[1:])
        size = int(lengths.sum()) + 2 * B
        self.n = lengths
        self.stack = np.zeros(size, dtype=np.int64)
        self.depth = np.ones(B, dtype=np.int64)
        self.end = np.zeros(B, dtype=bool)  # the end phase: the buffer has been emptied
        self.front = np.ones(B, dtype=np.int64)
        self.rest = np.full(B, 2, dtype=np.int64)
        self.heads = np.full(size, -1, dtype=np.int64)
        self.labels = np.full(size, -1, dtype=np.int64)
        self.ldep = np.full(size, -1, dtype=np.int64)
        self.rdep = np.full(size, -1, dtype=np.int64)

    def top(self, rows: np.ndarray) -> np.ndarray:
        """The node on top of each row's stack (``c.stack[-1]``)."""
        return self.stack[self.offset[rows] + self.depth[rows] - 1]

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

    def configuration(self, b: int, texts: list) -> NivreConfiguration:
        """Row b's configuration as ``NivreConfiguration`` holds it (labels: the texts of the
        class numbers, ``texts``)."""
        o, n = int(self.offset[b]), int(self.n[b])
        heads = self.heads[o : o + n + 1].tolist()
        labels = [texts[k] if k >= 0 else None for k in self.labels[o : o + n + 1].tolist()]
        arcs = Arcs(heads, labels, [[] for _ in heads], [[] for _ in heads])
        for d, h in enumerate(heads):  # dependents in word order, as Arcs.add keeps them
            if h >= 0:
                (arcs.left[h] if d < h else arcs.right[h]).append(d)
        front, rest = int(self.front[b]), int(self.rest[b])
        buffer = list(range(n, rest - 1, -1)) + ([front] if front <= n else [])
        stack = self.stack[o : o + int(self.depth[b])].tolist()
        return NivreConfiguration(stack, buffer, arcs, bool(self.end[b]))


class NivreGold:
    """The gold trees of a batch in arrays (``base.Gold``): per node place, its gold head and
    label (a number), and its leftmost left and rightmost right gold dependent (-1: none)."""

    def __init__(self, c: NivreConfigurations, golds: list[tuple[list[int], list[str]]],
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


class _NivreArrays:
    """What the two systems share (``_Nivre``): the end, the deterministic moves, the arcs."""

    def __init__(self, system: NivreEager | NivreStandard) -> None:
        self.allow_root = system.allow_root
        self.end_phase = system.end_phase
        self.one_root = system.one_root

    def unfinished(self, c: NivreConfigurations, rows: np.ndarray) -> np.ndarray:
        """The rows not terminal (``_Nivre.is_terminal``): the buffer holds a word (or, in the
        end phase, the stack holds more than the root)."""
        if self.end_phase:
            return rows[(c.front[rows] <= c.n[rows]) | (c.depth[rows] > 1)]
        return rows[c.front[rows] <= c.n[rows]]

    def deterministic(self, c: NivreConfigurations, rows: np.ndarray,
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
                move[(c.top(now) == 0) & ~c.end[now]] = SHIFT
            if self.end_phase:  # only the rows whose buffer is empty, few
                emptied = np.flatnonzero(c.front[now] > c.n[now])
                rows_emptied = now[emptied]
                headless = c.heads[c.offset[rows_emptied] + c.top(rows_emptied)] == -1
                move[emptied] = np.where(headless, UNSHIFT, REDUCE)
            chosen = move >= 0
            now, move = now[chosen], move[chosen]
            if not len(now):
                return
            if record is not None:
                record(now)
            self.apply(c, now, move, np.full(len(now), -1))

    def _end_phase(self, c: NivreConfigurations, rows: np.ndarray, ok: np.ndarray) -> None:
        """In the end phase SHIFT is no longer allowed, and RIGHT-ARC is, from the root too
        (``allowed``'s ``moves[1:] if c.end``)."""
        end = c.end[rows]
        ok[:, SHIFT] = ~end
        ok[:, RIGHT_ARC] |= end

    def _arcs(self, c: NivreConfigurations, offset: np.ndarray, top: np.ndarray, front: np.ndarray,
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

    def allowed(self, c: NivreConfigurations, rows: np.ndarray) -> np.ndarray:
        """Which of ``MOVES`` each row allows (``NivreEager.allowed``)."""
        top = c.top(rows)
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

    def apply(self, c: NivreConfigurations, rows: np.ndarray, move: np.ndarray, label: np.ndarray) -> None:
        """Apply one move to each row (``NivreEager._move``, and ``_Nivre.apply``'s UNSHIFT and
        end phase): SHIFT and RIGHT-ARC push the front, LEFT-ARC and REDUCE pop."""
        if not len(rows):
            return
        offset, depth, top = c.offset[rows], c.depth[rows], c.top(rows)
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

    def oracle(self, c: NivreConfigurations, gold: NivreGold, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The static oracle's move and label number for each row (``NivreEager.oracle``)."""
        o = c.offset[rows]
        i, j = c.top(rows), c.front[rows]
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

    def allowed(self, c: NivreConfigurations, rows: np.ndarray) -> np.ndarray:
        """Which of ``MOVES`` each row allows (``NivreStandard.allowed``; REDUCE never)."""
        at_root = c.top(rows) == 0
        ok = np.zeros((len(rows), 4), dtype=bool)
        ok[:, SHIFT] = True
        ok[:, RIGHT_ARC] = ~at_root | self.allow_root
        ok[:, LEFT_ARC] = ~at_root
        if self.end_phase:
            self._end_phase(c, rows, ok)
        if self.one_root:  # the root's dependent is the buffer's last word
            ok[:, RIGHT_ARC] &= ~at_root | (c.rest[rows] > c.n[rows])
        return ok

    def apply(self, c: NivreConfigurations, rows: np.ndarray, move: np.ndarray, label: np.ndarray) -> None:
        """Apply one move to each row (``NivreStandard._move``, and ``_Nivre.apply``'s UNSHIFT and
        end phase): SHIFT pushes the front; RIGHT-ARC moves the top back to the front (the root
        stays, and the buffer moves on); LEFT-ARC pops."""
        if not len(rows):
            return
        offset, depth, top = c.offset[rows], c.depth[rows], c.top(rows)
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

    def oracle(self, c: NivreConfigurations, gold: NivreGold, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The static oracle's move and label number for each row (``NivreStandard.oracle``:
        ``base.arc_standard_oracle``)."""
        o = c.offset[rows]
        i, j = c.top(rows), c.front[rows]
        move = np.full(len(rows), SHIFT)
        label = np.full(len(rows), -1)
        la = (i != 0) & (gold.heads[o + i] == j)
        ra = ~la & (gold.heads[o + j] == i) & (gold.rdep[o + j] == c.rdep[o + j])
        move[la], label[la] = LEFT_ARC, gold.labels[(o + i)[la]]
        move[ra], label[ra] = RIGHT_ARC, gold.labels[(o + j)[ra]]
        return move, label


#: The systems with an arrays form, and that form.
ARRAYS_FORMS: dict[type, type[_NivreArrays]] = {NivreEager: NivreEagerArrays, NivreStandard: NivreStandardArrays}


def arrays_form(system: NivreEager | NivreStandard) -> NivreEagerArrays | NivreStandardArrays:
    """The arrays form of ``system``, with its options."""
    return ARRAYS_FORMS[type(system)](system)
