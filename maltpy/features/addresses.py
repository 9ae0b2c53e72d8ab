"""Address functions: one table from each name to its definition, from which its fast forms come.

An address function maps a configuration to a node: a word 1..n, the root 0, or -1 for no node
(Nivre et al. 2007, §3.3; MaltParser's user guide, "Feature model", address functions):

- Base addresses (Nivre 2008, §6.1; Nivre et al. 2007, §3.3): Stack[i] and Input[i] count from
  the top of the stack and the front of the buffer. In the stack systems Input[i] names only
  the nodes SWAP has put back in the buffer and Lookahead[i] the buffer after them. Covington's
  Left[i] and Right[i] are the words i places left of the current left word (down to the root,
  whatever allow_root says) and right of the current right word; LeftContext[i] and
  RightContext[i] count, from the left and from the right, the words between the two whose head
  (if any) is outside them.
- Graph addresses on the partial graph: head; ldep and rdep, the leftmost left and rightmost
  right dependent; lsib and rsib, the nearest sibling on the same side of the head; pred and
  succ, the neighbouring words (never the root); anc, the topmost ancestor (the node itself if it
  has no head), panc the same but none without a head; ldesc and rdesc, the leftmost and
  rightmost node of the subtree, pldesc and prdesc of the proper subtree (none for the root).

``ADDRESS_FUNCTIONS`` maps each name (``spec``'s grammar) to its definition: to add an address
function is to add one entry here and its name to the ``base_addresses`` of the transition systems
that have it (``transition.base.TransitionSystem``) or to ``spec.GRAPH_ADDRESSES``.

Most definitions are a *form* with its fields, a rule over what every configuration holds (its
lists and numbers, and its partial graph ``Arcs``): ``FromEnd`` (the i-th node from the end of a
list: Stack, Input, Lookahead), ``Beside`` (the word i places left or right of a word: Left,
Right), ``Context`` (LeftContext, RightContext) and ``Neighbour`` (a node's head, its outermost
dependents, the words before and after it). From the same fields a form gives the function's
definition in Python, its step in the per-configuration fast form (``features._gather``, which
``functions.compile_plan`` compiles) and its arrays form (a batch's nodes at once, for
``features.arrays``): what a function means is written once, in its entry, and the fast forms
know only how their configurations keep a list, a number or a dependent. The graph addresses no
fast form covers (the siblings, ancestors and descendants) are plain functions. Tests check the
forms against the definitions on every configuration of real treebanks (tests/test_features.py,
tests/test_batch.py).

A base address's definition gives a function ``(configuration) -> node``; a graph address's
definition is a function ``(configuration, x) -> node`` of the node ``x`` its inner address
found, so that ``compile_nodes`` finds each distinct address of a feature model once per
configuration, an inner one before those that read it, with one call each.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from operator import attrgetter
from typing import NamedTuple

import numpy as np

from ._gather import AFTER, BEFORE, CONTEXT, FROM_END, GRAPH, HEAD, LEFTMOST, RIGHTMOST, SHIFT
from .spec import BUFFER_INPUT, Address

BaseFn = Callable[[object], int]
GraphFn = Callable[[object, int], int]
#: A step of the fast form (``features._gather``): ``(operation, a, b, c, d)``.
Step = tuple[int, ...]


class Slots:
    """The configuration attributes a fast form reads, numbered as its steps first name them
    (-1 for none)."""

    def __init__(self) -> None:
        self.names: list[str] = []

    def __call__(self, name: str | None) -> int:
        if name is None:
            return -1
        if name not in self.names:
            self.names.append(name)
        return self.names.index(name)


# --- the forms of base addresses ---------------------------------------------------------------


class FromEnd(NamedTuple):
    """The i-th node from the end of the list ``c.<seq>`` (a stack keeps its top last, a buffer
    its front), counted after the first ``c.<skip>`` nodes, and with ``within`` among the first
    ``c.<within>`` only; -1 past them. Its arrays form reads the list as the batch keeps it
    (``FeatureArrays.from_end``); the stack systems' (``skip``, ``within``) have none."""

    seq: str
    skip: str | None = None
    within: str | None = None

    def definition(self, i: int) -> BaseFn:
        seq = attrgetter(self.seq)
        if self.skip is None and self.within is None:

            def from_end(c):
                s = seq(c)
                return s[-1 - i] if i < len(s) else -1

            return from_end
        skip = attrgetter(self.skip) if self.skip is not None else lambda c: 0
        within = attrgetter(self.within) if self.within is not None else lambda c: i + 1

        def from_end_counted(c):
            s, k = seq(c), skip(c) + i
            return s[-1 - k] if k < len(s) and i < within(c) else -1

        return from_end_counted

    def step(self, i: int, slots: Slots) -> Step:
        return (FROM_END, i, slots(self.seq), slots(self.skip), slots(self.within))

    @property
    def arrays(self) -> Callable[..., np.ndarray] | None:
        if self.skip is not None or self.within is not None:
            return None
        seq = self.seq
        return lambda b, rows, i: b.from_end(seq, rows, i)


class Beside(NamedTuple):
    """The word i places after the word ``c.<word>`` (``direction`` 1) or before it (-1): none
    before the root, 0, nor after the word ``c.<last>``."""

    word: str
    direction: int
    last: str | None = None

    def definition(self, i: int) -> BaseFn:
        word, shift = attrgetter(self.word), self.direction * i
        if self.last is None:

            def beside(c):
                k = word(c) + shift
                return k if k >= 0 else -1

            return beside
        last = attrgetter(self.last)

        def beside_up_to(c):
            k = word(c) + shift
            return k if 0 <= k <= last(c) else -1

        return beside_up_to

    def step(self, i: int, slots: Slots) -> Step:
        return (SHIFT, i, slots(self.word), self.direction, slots(self.last))

    def arrays(self, b, rows: np.ndarray, i: int) -> np.ndarray:
        k = getattr(b, self.word)[rows] + self.direction * i
        ok = k >= 0 if self.last is None else (k >= 0) & (k <= getattr(b, self.last)[rows])
        return np.where(ok, k, -1)


class Context(NamedTuple):
    """LeftContext[i] (``ascending``) and RightContext[i]: the i-th word between Covington's
    left and right words (``c.left``, ``c.right``), from the left or from the right, whose head
    (if any) is outside them. (A search, not a read: its fast forms spell it out, C's ``context``
    and ``arrays`` here.)"""

    ascending: bool

    def definition(self, i: int) -> BaseFn:
        ascending = self.ascending

        def context(c):
            lo, hi = c.left, c.right
            heads = c.arcs.heads
            seen = 0
            for k in range(lo + 1, hi) if ascending else range(hi - 1, lo, -1):
                h = heads[k]
                if h == -1 or h < lo or h > hi:
                    if seen == i:
                        return k
                    seen += 1
            return -1

        return context

    def step(self, i: int, slots: Slots) -> Step:
        return (CONTEXT, i, slots("left"), slots("right"), self.ascending)

    def arrays(self, b, rows: np.ndarray, i: int) -> np.ndarray:
        """The words between each row's left and right word one after another
        (``Configurations.stretches``), and the i-th of those outside them."""
        lo, hi = b.left[rows], b.right[rows]
        count = np.maximum(hi - lo - 1, 0)
        owner, node = b.stretches(rows, hi - 1, count)  # from the right word down
        if self.ascending:
            node = lo[owner] + hi[owner] - node  # the same words from the left word up
        h = b.heads[b.offset[rows][owner] + node]
        outside = (h == -1) | (h < lo[owner]) | (h > hi[owner])
        seen = np.zeros(len(owner) + 1, dtype=np.int64)
        np.cumsum(outside, out=seen[1:])  # outside words before each place, of all rows
        before = seen[np.cumsum(count) - count]  # ... before each row's first
        found = np.full(len(rows), -1, dtype=np.int64)
        pick = outside & (seen[1:] - before[owner] == i + 1)
        found[owner[pick]] = node[pick]
        return found


class ByFamily(NamedTuple):
    """A base address whose form depends on the algorithm's family: ``buffer_input`` in the
    families of ``spec.BUFFER_INPUT`` (and so in the arrays form's, nivre's), ``other`` in the
    rest."""

    buffer_input: FromEnd
    other: FromEnd

    def of(self, family: str) -> FromEnd:
        return self.buffer_input if family in BUFFER_INPUT else self.other

    @property
    def arrays(self) -> Callable[..., np.ndarray] | None:
        return self.buffer_input.arrays


BaseForm = FromEnd | Beside | Context


def base_form(name: str, family: str) -> BaseForm:
    """The form of base address ``name`` in the algorithm family ``family``."""
    entry = ADDRESS_FUNCTIONS[name]
    return entry.of(family) if isinstance(entry, ByFamily) else entry


# --- the form of graph addresses ---------------------------------------------------------------


def _head(c, x: int) -> int:
    return c.arcs.heads[x]


def _leftmost(c, x: int) -> int:
    deps = c.arcs.left[x]
    return deps[0] if deps else -1


def _rightmost(c, x: int) -> int:
    deps = c.arcs.right[x]
    return deps[-1] if deps else -1


#: What ``Neighbour`` reads of node x in a configuration, and in a batch's arrays at x's places
#: ``flat`` (``transition.arrays.Configurations``).
_READS: dict[int, tuple[GraphFn, Callable[..., np.ndarray]]] = {
    HEAD: (_head, lambda b, x, flat: b.heads[flat]),
    LEFTMOST: (_leftmost, lambda b, x, flat: b.ldep[flat]),
    RIGHTMOST: (_rightmost, lambda b, x, flat: b.rdep[flat]),
    BEFORE: (lambda c, x: x - 1, lambda b, x, flat: x - 1),
    AFTER: (lambda c, x: x + 1, lambda b, x, flat: x + 1),
}


class Neighbour(NamedTuple):
    """What ``read`` finds from node x in the partial graph, for x from ``low`` up (and, with
    ``below_last``, before the last word), else no node: x's ``HEAD`` (-1 until it has one),
    its ``LEFTMOST`` left and ``RIGHTMOST`` right dependent (-1 for none), the word ``BEFORE``
    or ``AFTER`` it."""

    read: int
    low: int
    below_last: bool = False

    def definition(self) -> GraphFn:
        read, low = _READS[self.read][0], self.low
        if self.below_last:
            return lambda c, x: read(c, x) if low <= x < len(c.arcs.heads) - 1 else -1  # nodes 0..n
        return lambda c, x: read(c, x) if x >= low else -1

    def step(self, inner: int) -> Step:
        return (GRAPH, self.read, inner, self.low, self.below_last)

    def arrays(self, b, rows: np.ndarray, x: np.ndarray, flat: np.ndarray) -> np.ndarray:
        ok = x >= self.low
        if self.below_last:
            ok &= x < b.n[rows]
        return np.where(ok, _READS[self.read][1](b, x, flat), -1)


# --- the graph addresses no fast form covers ---------------------------------------------------


def _sibling(leftward: bool) -> GraphFn:
    """lsib(a) (``leftward``) and rsib(a): the nearest sibling of a on the same side of its head."""

    def sibling(c, x: int) -> int:
        if x <= 0:
            return -1
        h = c.arcs.heads[x]
        if h == -1:
            return -1
        same_side = c.arcs.left[h] if x < h else c.arcs.right[h]
        k = same_side.index(x)
        if leftward:
            return same_side[k - 1] if k > 0 else -1
        return same_side[k + 1] if k + 1 < len(same_side) else -1

    return sibling


def _ancestor(proper: bool) -> GraphFn:
    """anc(a): a's topmost ancestor, a itself if it has no head; panc(a) (``proper``) the same
    but none for the root or a word without a head."""

    def ancestor(c, x: int) -> int:
        if x < 0:
            return -1
        heads = c.arcs.heads
        if proper and (x == 0 or heads[x] == -1):
            return -1
        while x > 0 and heads[x] != -1:
            x = heads[x]
        return x

    return ancestor


def _descendant(leftmost: bool, proper: bool) -> GraphFn:
    """ldesc(a) and rdesc(a): the leftmost or rightmost node of a's subtree; pldesc and prdesc
    (``proper``) of its proper subtree (none for a word without dependents, and for the root)."""

    def descendant(c, x: int) -> int:
        if x <= 0:
            return -1
        arcs = c.arcs
        best = -1 if proper else x
        todo = arcs.left[x] + arcs.right[x]
        while todo:
            d = todo.pop()
            if best == -1 or (d < best if leftmost else d > best):
                best = d
            todo.extend(arcs.left[d])
            todo.extend(arcs.right[d])
        return best

    return descendant


#: Each address function's definition, by its name in the feature language (spec.py's grammar).
ADDRESS_FUNCTIONS: dict[str, BaseForm | ByFamily | Neighbour | GraphFn] = {
    # Stack[i] (2planar's ActiveStack[i]): the i-th node from the top of the stack
    "Stack": FromEnd("stack"),
    "ActiveStack": FromEnd("stack"),
    # InactiveStack[i]: the i-th node from the top of 2planar's other stack
    "InactiveStack": FromEnd("inactive"),
    # Input[i]: the i-th node of the buffer; in the stack family, of the swapped nodes only
    "Input": ByFamily(FromEnd("buffer"), FromEnd("buffer", within="swapped")),
    # Lookahead[i]: the i-th node of the stack systems' buffer after the swapped ones
    "Lookahead": FromEnd("buffer", skip="swapped"),
    # Left[i] and Right[i]: Covington's word i places left of the current left word (down to the
    # root) and right of the current right word (up to the last word)
    "Left": Beside("left", -1),
    "Right": Beside("right", 1, last="n"),
    "LeftContext": Context(ascending=True),
    "RightContext": Context(ascending=False),
    # head(a): the head of a, if it has one yet (none for the root)
    "head": Neighbour(HEAD, low=1),
    # ldep(a) and rdep(a): the leftmost left and the rightmost right dependent of a; rdep2 the
    # same as rdep but none for the root
    "ldep": Neighbour(LEFTMOST, low=0),
    "rdep": Neighbour(RIGHTMOST, low=0),
    "rdep2": Neighbour(RIGHTMOST, low=1),
    # pred(a) and succ(a): the word before and after a (never the root)
    "pred": Neighbour(BEFORE, low=2),
    "succ": Neighbour(AFTER, low=1, below_last=True),
    "lsib": _sibling(leftward=True),
    "rsib": _sibling(leftward=False),
    "anc": _ancestor(proper=False),
    "panc": _ancestor(proper=True),
    "ldesc": _descendant(leftmost=True, proper=False),
    "pldesc": _descendant(leftmost=True, proper=True),
    "rdesc": _descendant(leftmost=False, proper=False),
    "prdesc": _descendant(leftmost=False, proper=True),
}


def graph_definition(name: str) -> GraphFn:
    """Graph address ``name``'s definition, a function ``(configuration, x) -> node``."""
    entry = ADDRESS_FUNCTIONS[name]
    return entry.definition() if isinstance(entry, Neighbour) else entry


def arrays_form(name: str) -> Callable[..., np.ndarray] | None:
    """Address ``name``'s arrays form (``features.arrays``), None if it has none: a base
    address's ``(batch, rows, i)``, a graph address's ``(batch, rows, x, flat)`` with ``x`` the
    inner nodes and ``flat`` their places in the batch's node arrays."""
    return getattr(ADDRESS_FUNCTIONS[name], "arrays", None)


class NodeLayout(NamedTuple):
    """Where a feature model's addresses are found: each distinct one once, the base addresses
    first, then the graph addresses, an inner one before those that read it; ``places[a]`` is
    address a's place in that order."""

    bases: list[Address]
    graphs: list[Address]
    places: dict[Address, int]

    @classmethod
    def of(cls, addresses: Iterable[Address]) -> NodeLayout:
        bases: list[Address] = []
        graphs: list[Address] = []
        seen: set[Address] = set()

        def add(a: Address) -> None:
            if a in seen:
                return
            seen.add(a)
            if a.inner is None:
                bases.append(a)
            else:
                add(a.inner)
                graphs.append(a)

        for a in addresses:
            add(a)
        return cls(bases, graphs, {a: k for k, a in enumerate([*bases, *graphs])})


def compile_nodes(layout: NodeLayout, family: str) -> Callable[[object], list[int]]:
    """A function ``(configuration) -> nodes`` that finds the layout's addresses in its order:
    the base addresses, one call each, then the graph addresses, each one call on its inner
    address's node."""
    found = [base_form(a.name, family).definition(a.index) for a in layout.bases]
    steps = [(graph_definition(a.name), layout.places[a.inner]) for a in layout.graphs]

    def find(c) -> list[int]:
        nodes = []
        for base in found:
            nodes.append(base(c))
        for graph, inner in steps:
            nodes.append(graph(c, nodes[inner]))
        return nodes

    return find


def compile_steps(layout: NodeLayout, family: str, slots: Slots) -> list[Step] | None:
    """The fast form's steps (``features._gather``) that find the layout's addresses in its
    order, reading the configuration attributes numbered in ``slots``; None if an address has no
    fast form."""
    steps = [base_form(a.name, family).step(a.index, slots) for a in layout.bases]
    for a in layout.graphs:
        entry = ADDRESS_FUNCTIONS[a.name]
        if not isinstance(entry, Neighbour):
            return None
        steps.append(entry.step(layout.places[a.inner]))
    return steps
