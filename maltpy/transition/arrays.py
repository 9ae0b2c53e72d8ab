"""What the arrays forms of the transition systems share: a batch's partial trees, its gold trees,
and the table of the systems that have an arrays form.

A batch of configurations keeps its sentences' nodes in flat arrays, one stretch per sentence
from ``offset[b]`` (its nodes 0..n and one place past the end): ``heads``, ``labels`` (class
numbers, -1 for none), ``ldep`` and ``rdep`` (the leftmost left and rightmost right dependent) per
node (``Configurations``). Each system's arrays form (``nivre_arrays``, ``covington_arrays``) adds
the fields of its own configurations (``start``) and moves them by its rules; ``batch.py`` parses
and learns with them, and ``features.arrays`` reads them.

An arrays form has, beside its system's rules for a batch of ``rows``: ``moves`` (the transitions
by number), ``addresses`` (the base addresses its configurations have in arrays), ``covers(system)``
(whether its options are all in the arrays form), ``start(c)``, ``unfinished``, ``deterministic``,
``allowed``, ``apply``, ``default`` (the move when no ranked one is allowed) and ``configuration``
(one row as the per-sentence system holds it); and where learning replays the oracle in arrays
(``learns``), ``oracle``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np

from .base import Arcs


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


@functools.cache
def forms() -> dict[type, type]:
    """The systems with an arrays form, and that form."""
    from .covington import CovingtonNonProjective, CovingtonProjective
    from .covington_arrays import CovingtonNonProjectiveArrays, CovingtonProjectiveArrays
    from .nivre import NivreEager, NivreStandard
    from .nivre_arrays import NivreEagerArrays, NivreStandardArrays

    return {NivreEager: NivreEagerArrays, NivreStandard: NivreStandardArrays,
            CovingtonNonProjective: CovingtonNonProjectiveArrays,
            CovingtonProjective: CovingtonProjectiveArrays}  # fmt: skip


def covers(system, learning: bool = False) -> bool:
    """Whether ``system``, with its options, has an arrays form (for ``learning``: one that
    replays the oracle)."""
    form = forms().get(type(system))
    return form is not None and form.covers(system) and (form.learns or not learning)


def arrays_form(system):
    """The arrays form of ``system``, with its options."""
    return forms()[type(system)](system)
