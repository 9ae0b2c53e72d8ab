"""Nivre's systems in arrays (``nivre.NivreEager``'s and ``NivreStandard``'s ``arrays``): a batch
of configurations, one a row, stepped by the systems' own rules (``nivre``: each rule is written
there once, for one configuration and for rows of them), for ``models.batch``. Apart from the
rules so that the systems' facts and rules load no NumPy: ``transition.arrays.form_of`` loads
this module when a batch first needs it."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .arrays import Configurations, Rows
from .arrays import Gold as GoldArrays
from .base import no
from .nivre import (
    BACK,
    MOVES,
    NUMBER,
    POP,
    PUSH,
    RIGHT_ARC,
    TOP_FRONT,
    UNPUSH,
    USH,
    NivreConfiguration,
    NivreEager,
    NivreStandard,
)


class _Rows(Rows):
    """The same facts of a batch's rows (``arrays.Rows``)."""

    def __init__(self, c: Configurations, rows: np.ndarray, gold: GoldArrays | None = None) -> None:
        super().__init__(c, rows, NUMBER, gold)
        self.depth = c.depth[rows]
        self.top = c.stack[self.offset + self.depth - 1]
        self.front = c.front[rows]
        n = c.n[rows]
        self.empty = self.front > n
        self.last = c.rest[rows] > n
        self.end = c.end[rows]


class NivreArrays:
    """``NivreEager`` or ``NivreStandard`` in arrays, with its options, for ``models.batch``.

    A batch of ``NivreConfiguration`` in arrays is the partial trees of ``arrays.Configurations``
    and a stack per sentence in the same places as its nodes (``stack``, ``depth``). The buffer is
    its front ``front[b]`` followed by the words ``rest[b]..n[b]`` (in arc-eager ``front + 1``;
    arc-standard's RIGHT-ARC puts the head back in front, and the end phase's UNSHIFT puts the top
    back in front of an empty buffer, ``rest`` past ``n``); ``end`` marks the end phase. Each
    method takes the configurations and ``rows``, the sentences of the batch it applies to, and
    runs the system's rule its docstring names on their facts (``_Rows``). A move is a number:
    ``MOVES[k]``, or ``UNSHIFT``."""

    moves = MOVES
    addresses = frozenset({"Stack", "Input"})
    learns = True

    def __init__(self, system: NivreEager | NivreStandard) -> None:
        self.system = system
        self.end_phase = system.end_phase
        effect = [system.effects.get(name, (None, -1)) for name in (*MOVES, USH)]
        self._arc = np.array([arc or 0 for arc, _ in effect], dtype=np.int64)
        self._step = np.array([step for _, step in effect], dtype=np.int64)

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
        """The move (and label number) when no ranked one is allowed (``_Nivre._default``), with
        the root label ``end_label`` for RIGHT-ARC."""
        move = NUMBER[self.system._default(bool(c.end[b]))]
        return move, end_label if move == RIGHT_ARC else -1

    def unfinished(self, c: Configurations, rows: np.ndarray) -> np.ndarray:
        """The rows not terminal (``_Nivre._terminal``)."""
        return rows[no(self.system._terminal(c.front[rows] > c.n[rows], c.depth[rows]))]

    def deterministic(self, c: Configurations, rows: np.ndarray,
                      record: Callable[[np.ndarray], None] | None = None) -> None:  # fmt: skip
        """Make the moves MaltParser makes without the classifier (``_Nivre._forced``), as long
        as there are any. ``record`` is told the rows of each round of them."""
        system = self.system
        if system.allow_root and not system.end_phase:
            return
        while True:
            now = self.unfinished(c, rows)
            move = system._forced(_Rows(c, now))
            chosen = move >= 0
            now, move = now[chosen], move[chosen]
            if not len(now):
                return
            if record is not None:
                record(now)
            self.apply(c, now, move, np.full(len(now), -1))

    def allowed(self, c: Configurations, rows: np.ndarray) -> np.ndarray:
        """Which of ``MOVES`` each row allows (``_preconditions``)."""
        ok = np.empty((len(rows), len(MOVES)), dtype=bool)
        for k, allowed in enumerate(self.system._preconditions(_Rows(c, rows))):
            ok[:, k] = allowed
        return ok

    def apply(self, c: Configurations, rows: np.ndarray, move: np.ndarray, label: np.ndarray) -> None:
        """Apply one move to each row (``_Nivre.apply``): its arc and its step (``_Nivre.effects``)."""
        if not len(rows):
            return
        offset, depth, n = c.offset[rows], c.depth[rows], c.n[rows]
        top = c.stack[offset + depth - 1]
        front, rest = c.front[rows], c.rest[rows]
        arc = self._arc[move]
        added = arc > 0
        if added.any():
            right = arc == TOP_FRONT
            head, dependent = np.where(right, top, front), np.where(right, front, top)
            c.add(offset[added], head[added], dependent[added], label[added])
        step = self._step[move]
        push, pop, unpush = step == PUSH, step == POP, step == UNPUSH
        back = (step == BACK) & (top != 0)  # the top back in the front's place
        advance = push | ((step == BACK) & (top == 0))  # the buffer moves on
        c.stack[(offset + depth)[push]] = front[push]
        c.depth[rows] = depth + push - pop - back - unpush
        c.front[rows[back | unpush]] = top[back | unpush]
        c.rest[rows[unpush]] = n[unpush] + 1
        c.front[rows[advance]] = rest[advance]
        c.rest[rows[advance]] = rest[advance] + 1
        if self.end_phase:
            c.end[rows[advance & (rest > n)]] = True

    def oracle(self, c: Configurations, gold: GoldArrays, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The static oracle's move and label number for each row (``_oracle``): the label of
        the gold arc's dependent."""
        v = _Rows(c, rows, gold)
        move = self.system._oracle(v)
        arc = self._arc[move]
        dependent = np.where(arc == TOP_FRONT, v.front, v.top)
        label = np.where(arc > 0, gold.labels[v.offset + dependent], -1)
        return move, label
