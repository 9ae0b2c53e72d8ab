"""Address functions: one table from each name to its definition (and its arrays form).

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

``ADDRESS_FUNCTIONS`` maps each name (``spec``'s grammar) to its definition, and to its arrays
form where the batched path (``features.arrays``) covers it: to add an address function is to
add one entry here and its name to the ``base_addresses`` of the transition systems that have it
(``transition.base.TransitionSystem``) or to ``spec.GRAPH_ADDRESSES``.

A base address's definition gives a function ``(configuration) -> node``; a graph address's
definition is a function ``(configuration, x) -> node`` of the node ``x`` its inner address
found, so that ``compile_nodes`` finds each distinct address of a feature model once per
configuration, an inner one before those that read it, with one call each.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import NamedTuple

import numpy as np

from . import _gather as fast
from .spec import BUFFER_INPUT, Address

BaseFn = Callable[[object], int]
GraphFn = Callable[[object, int], int]
#: A fast form's step (``features._gather``): a base address's ``(op, index, 0, flag)``, a graph
#: address's ``(op, 0, inner node's place)``.
Step = tuple[int, ...]


class AddressFunction(NamedTuple):
    """An address function's definition, and its arrays form (``features.arrays``) or None.

    A base address's ``definition(index, family) -> (configuration) -> node`` and
    ``arrays(batch, rows, index)``; a graph address's ``definition(configuration, x) -> node``
    and ``arrays(batch, rows, x, flat)``, with ``x`` the inner nodes and ``flat`` their places
    in the batch's node arrays. And its fast form (``functions.compile_plan``) or None: a base
    address's ``fast(index, family) -> step``, a graph address's operation in ``_gather``.
    """

    definition: Callable[..., BaseFn] | GraphFn
    arrays: Callable[..., np.ndarray] | None = None
    fast: Callable[[int, str], Step] | int | None = None


def _base(op: int) -> Callable[[int, str], Step]:
    """The fast form of a base address that reads the configuration alike in every family."""
    return lambda i, family: (op, i)


# --- base addresses ----------------------------------------------------------------------------


def _stack(i: int, family: str) -> BaseFn:
    """Stack[i] (2planar's ActiveStack[i]): the i-th node from the top of the stack."""

    def stack(c):
        s = c.stack
        return s[-1 - i] if i < len(s) else -1

    return stack


def _stack_arrays(b, rows: np.ndarray, i: int) -> np.ndarray:
    place = b.depth[rows] - 1 - i
    return np.where(place >= 0, b.stack[b.offset[rows] + np.maximum(place, 0)], -1)


def _inactive_stack(i: int, family: str) -> BaseFn:
    """InactiveStack[i]: the i-th node from the top of 2planar's other stack."""

    def inactive_stack(c):
        s = c.inactive
        return s[-1 - i] if i < len(s) else -1

    return inactive_stack


def _input(i: int, family: str) -> BaseFn:
    """Input[i]: the i-th node of the buffer; in the stack family, of the swapped nodes only."""
    if family in BUFFER_INPUT:

        def buffer_input(c):
            b = c.buffer
            return b[-1 - i] if i < len(b) else -1

        return buffer_input

    def swapped_input(c):
        b = c.buffer
        return b[-1 - i] if i < c.swapped and i < len(b) else -1

    return swapped_input


def _input_fast(i: int, family: str) -> Step:
    return (fast.INPUT, i, 0, 0, family not in BUFFER_INPUT)


def _input_arrays(b, rows: np.ndarray, i: int) -> np.ndarray:
    """The buffer is its front, then the words rest..n (see ``batch``)."""
    front, n = b.front[rows], b.n[rows]
    node = front if i == 0 else b.rest[rows] + (i - 1)
    return np.where((front <= n) & (node <= n), node, -1)


def _lookahead(i: int, family: str) -> BaseFn:
    """Lookahead[i]: the i-th node of the stack systems' buffer after the swapped ones."""

    def lookahead(c):
        b = c.buffer
        k = c.swapped + i
        return b[-1 - k] if k < len(b) else -1

    return lookahead


def _left(i: int, family: str) -> BaseFn:
    """Left[i]: Covington's word i places left of the current left word."""

    def left(c):
        k = c.left - i
        return k if k >= 0 else -1

    return left


def _left_arrays(b, rows: np.ndarray, i: int) -> np.ndarray:
    k = b.left[rows] - i
    return np.where(k >= 0, k, -1)


def _right(i: int, family: str) -> BaseFn:
    """Right[i]: Covington's word i places right of the current right word."""

    def right(c):
        k = c.right + i
        return k if k <= c.n else -1

    return right


def _right_arrays(b, rows: np.ndarray, i: int) -> np.ndarray:
    k = b.right[rows] + i
    return np.where(k <= b.n[rows], k, -1)


def _context(ascending: bool) -> Callable[[int, str], BaseFn]:
    """LeftContext[i] (``ascending``) and RightContext[i]: the i-th word between Covington's
    left and right words, from the left or from the right, whose head (if any) is outside them."""

    def compile_context(i: int, family: str) -> BaseFn:
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

    return compile_context


def _context_arrays(ascending: bool) -> Callable[..., np.ndarray]:
    """LeftContext[i] and RightContext[i] of each row: the words between its left and right word
    one after another (``Configurations.stretches``), and the i-th of those outside them."""

    def context(b, rows: np.ndarray, i: int) -> np.ndarray:
        lo, hi = b.left[rows], b.right[rows]
        count = np.maximum(hi - lo - 1, 0)
        owner, node = b.stretches(rows, hi - 1, count)  # from the right word down
        if ascending:
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

    return context


# --- graph addresses ---------------------------------------------------------------------------


def _head(c, x: int) -> int:
    """head(a): the head of a, if it has one yet (none for the root)."""
    return c.arcs.heads[x] if x > 0 else -1


def _head_arrays(b, rows: np.ndarray, x: np.ndarray, flat: np.ndarray) -> np.ndarray:
    return np.where(x > 0, b.heads[flat], -1)


def _ldep(c, x: int) -> int:
    """ldep(a): the leftmost left dependent of a."""
    if x < 0:
        return -1
    deps = c.arcs.left[x]
    return deps[0] if deps else -1


def _ldep_arrays(b, rows: np.ndarray, x: np.ndarray, flat: np.ndarray) -> np.ndarray:
    return np.where(x >= 0, b.ldep[flat], -1)


def _rdep(skip_root: bool) -> GraphFn:
    """rdep(a): the rightmost right dependent of a; rdep2 the same but none for the root."""

    def rdep(c, x: int) -> int:
        if x < 0 or (skip_root and x == 0):
            return -1
        deps = c.arcs.right[x]
        return deps[-1] if deps else -1

    return rdep


def _rdep_arrays(b, rows: np.ndarray, x: np.ndarray, flat: np.ndarray) -> np.ndarray:
    return np.where(x >= 0, b.rdep[flat], -1)


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


def _pred(c, x: int) -> int:
    """pred(a): the word before a (never the root)."""
    return x - 1 if x > 1 else -1


def _pred_arrays(b, rows: np.ndarray, x: np.ndarray, flat: np.ndarray) -> np.ndarray:
    return np.where(x > 1, x - 1, -1)


def _succ(c, x: int) -> int:
    """succ(a): the word after a (the arcs have a place for each of the nodes 0..n)."""
    return x + 1 if 0 < x < len(c.arcs.heads) - 1 else -1


def _succ_arrays(b, rows: np.ndarray, x: np.ndarray, flat: np.ndarray) -> np.ndarray:
    return np.where((x > 0) & (x < b.n[rows]), x + 1, -1)


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
ADDRESS_FUNCTIONS: dict[str, AddressFunction] = {
    "Stack": AddressFunction(_stack, _stack_arrays, _base(fast.STACK)),
    "ActiveStack": AddressFunction(_stack, fast=_base(fast.STACK)),
    "InactiveStack": AddressFunction(_inactive_stack, fast=_base(fast.INACTIVE)),
    "Input": AddressFunction(_input, _input_arrays, _input_fast),
    "Lookahead": AddressFunction(_lookahead, fast=_base(fast.LOOKAHEAD)),
    "Left": AddressFunction(_left, _left_arrays, _base(fast.LEFT)),
    "Right": AddressFunction(_right, _right_arrays, _base(fast.RIGHT)),
    "LeftContext": AddressFunction(_context(ascending=True), _context_arrays(ascending=True), _base(fast.LEFT_CONTEXT)),
    "RightContext": AddressFunction(_context(ascending=False), _context_arrays(ascending=False),
                                    _base(fast.RIGHT_CONTEXT)),
    "head": AddressFunction(_head, _head_arrays, fast.HEAD),
    "ldep": AddressFunction(_ldep, _ldep_arrays, fast.LDEP),
    "rdep": AddressFunction(_rdep(skip_root=False), _rdep_arrays, fast.RDEP),
    "rdep2": AddressFunction(_rdep(skip_root=True), fast=fast.RDEP2),
    "lsib": AddressFunction(_sibling(leftward=True)),
    "rsib": AddressFunction(_sibling(leftward=False)),
    "pred": AddressFunction(_pred, _pred_arrays, fast.PRED),
    "succ": AddressFunction(_succ, _succ_arrays, fast.SUCC),
    "anc": AddressFunction(_ancestor(proper=False)),
    "panc": AddressFunction(_ancestor(proper=True)),
    "ldesc": AddressFunction(_descendant(leftmost=True, proper=False)),
    "pldesc": AddressFunction(_descendant(leftmost=True, proper=True)),
    "rdesc": AddressFunction(_descendant(leftmost=False, proper=False)),
    "prdesc": AddressFunction(_descendant(leftmost=False, proper=True)),
}


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
    found = [ADDRESS_FUNCTIONS[a.name].definition(a.index, family) for a in layout.bases]
    steps = [(ADDRESS_FUNCTIONS[a.name].definition, layout.places[a.inner]) for a in layout.graphs]

    def find(c) -> list[int]:
        nodes = []
        for base in found:
            nodes.append(base(c))
        for graph, inner in steps:
            nodes.append(graph(c, nodes[inner]))
        return nodes

    return find
