"""Facts about dependency graphs.

A sentence of n words is a graph over the nodes 0..n, node 0 being the artificial root.
Throughout maltpy its arcs are given as ``heads``, a list of length n + 1 in which
``heads[d]`` is the head of word d and ``heads[0]`` is -1 (the root has no head).
A dependency tree is such a list in which every word reaches the root by following heads
(Nivre 2008, §2: single-head, acyclic, connected, rooted at 0).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from operator import itemgetter

ROOT_HEAD = -1


def find_cycle(heads: list[int]) -> list[int] | None:
    """Return the words of one cycle in ``heads``, in head order, or None if there is none
    (the first of ``cycles``)."""
    return next(cycles(heads), None)


def cycles(heads: list[int]) -> Iterator[list[int]]:
    """The cycles in ``heads``, each as its words in head order, in the order of their first
    word reached from words 1, 2 ... n.

    There is none if every word reaches the root within n steps up the heads. That is checked
    for all words at once by pointer doubling: ``reached[d]`` is where word d gets in ``steps``
    steps (the root staying where it is), so ``reached[reached[d]]`` is where it gets in twice
    as many. If some word does not get there, the cycles are found by visiting each word once: a
    walk up the heads from an unvisited word either reaches a word already visited by an earlier
    walk, or returns to a word of its own walk (a cycle). Cycles share no word, so a caller may
    change the heads of a cycle's words once it has it.
    """
    n = len(heads) - 1
    reached, steps = [0, *heads[1:]], 1
    while any(reached):
        if steps >= n:
            break
        reached = itemgetter(*reached)(reached)
        steps += steps
    else:
        return
    state = [0] * (n + 1)  # 0 unvisited, 1 on the current walk, 2 visited by an earlier walk
    state[0] = 2
    for start in range(1, n + 1):
        walk = []
        d = start
        while state[d] == 0:
            state[d] = 1
            walk.append(d)
            d = heads[d]
        closed = state[d] == 1
        for w in walk:
            state[w] = 2
        if closed:
            yield walk[walk.index(d) :]


def is_projective(heads: list[int]) -> bool:
    """True if every arc is projective: each word between a head and its dependent is
    dominated by the head (Nivre 2008, §2, Definition 3)."""
    return not nonprojective_arcs(heads)


def nonprojective_arcs(heads: list[int]) -> list[int]:
    """The dependents d whose arc heads[d] → d is non-projective, in word order.

    k is dominated by h exactly when k's place in a preorder walk (``preorder``) falls within
    the block of size[h] places that starts at h's own; so the arc is projective when the
    smallest and the largest place of the words between its ends fall within its head's
    block. Those are read from tables of the extremes of every stretch of 2^j places (sparse
    tables), in a time that does not grow with the arc's length."""
    place, size = preorder(heads)
    spans = [(h, d) if h < d else (d, h) for d, h in enumerate(heads)]
    extremes = Extremes(place, max((hi - lo - 1 for lo, hi in spans[1:]), default=0))
    out = []
    for d in range(1, len(heads)):
        lo, hi = spans[d]
        if hi - lo >= 2:
            low, high = extremes.of(lo + 1, hi)
            h = heads[d]
            if low < place[h] or high >= place[h] + size[h]:
                out.append(d)
    return out


class Extremes:
    """The smallest and the largest of ``values[lo:hi]`` for any stretch of at most ``longest``
    values, in two look-ups: ``low[j][i]`` and ``high[j][i]`` hold the extremes of the 2^j
    values from i, and a stretch is the union of the two such blocks that start at its ends."""

    def __init__(self, values: list[int], longest: int) -> None:
        self.low, self.high = [values], [values]
        width = 1
        while 2 * width <= longest:
            low, high = self.low[-1], self.high[-1]
            self.low.append(list(map(min, low[:-width], low[width:])))
            self.high.append(list(map(max, high[:-width], high[width:])))
            width *= 2

    def of(self, lo: int, hi: int) -> tuple[int, int]:
        """The smallest and the largest of values[lo:hi] (lo < hi)."""
        j = (hi - lo).bit_length() - 1
        low, high, other = self.low[j], self.high[j], hi - (1 << j)
        return min(low[lo], low[other]), max(high[lo], high[other])


def preorder(heads: list[int]) -> tuple[list[int], list[int]]:
    """Each node's place in a preorder walk of the tree from the root, and its subtree's size."""
    n = len(heads) - 1
    children: list[list[int]] = [[] for _ in range(n + 1)]
    for d in range(1, n + 1):
        children[heads[d]].append(d)
    order, stack = [], [0]
    while stack:
        node = stack.pop()
        order.append(node)
        stack.extend(children[node])
    place = [0] * (n + 1)
    for i, node in enumerate(order):
        place[node] = i
    size = [1] * (n + 1)
    for node in reversed(order[1:]):
        size[heads[node]] += size[node]
    return place, size


def depths(heads: list[int]) -> list[int]:
    """Each node's depth: the number of arcs from the root to it (the root's is 0)."""
    depth = [-1] * len(heads)
    depth[0] = 0
    for start in range(1, len(heads)):
        path = []
        d = start
        while depth[d] == -1:
            path.append(d)
            d = heads[d]
        for node in reversed(path):
            depth[node] = depth[heads[node]] + 1
    return depth


def arc_degree(heads: list[int], head: int, dependent: int, limit: int | None = None) -> int:
    """The degree of non-projectivity of the arc head → dependent (Nivre 2006, Definition 3.1,
    as used in Nivre 2007, §2): the number of connected components of the graph restricted to
    the words strictly between the two that are not dominated by ``head`` within the span.

    A component's root is a word whose head is outside the open interval; it is dominated from
    within the span exactly when that head is ``head`` or ``dependent`` (whose head ``head``
    is). So the degree counts the words between whose head lies outside the span, or who have
    no head yet in a partial graph. Counting stops once it passes ``limit``.
    """
    lo, hi = (head, dependent) if head < dependent else (dependent, head)
    count = 0
    for k in range(lo + 1, hi):
        h = heads[k]
        if h == -1 or h < lo or h > hi:
            count += 1
            if limit is not None and count > limit:
                break
    return count


def degree(heads: list[int]) -> int:
    """The degree of non-projectivity of a tree: the largest degree of any of its arcs."""
    return max((arc_degree(heads, heads[d], d) for d in range(1, len(heads))), default=0)


def single_root(heads: list[int], labels: list[str], roots: RootLabels, leftover_label: str,
                tags: list[str]) -> tuple[list[int], list[str]]:  # fmt: skip
    """The tree with one word on the root, as Universal Dependencies requires: of the words on
    the root, the one kept is one a transition attached there (not left over with
    ``leftover_label``) if any, then the one heading the most words, then the first; it takes
    the label the training treebank gives root dependents. Each other word on the root goes
    below the kept one with the label the training treebank most often gives a dependent of its
    tag (``tags``, indexed from 1) under the root word. A tree with one root keeps its arcs and
    has that word's label set. A word below another that carries the root label (the classifier
    may give it) or ``leftover_label`` (the end phase's default move gives it) takes the label
    of its tag under the root word instead: UD keeps ``root`` for the root's dependent."""
    on_root = [d for d in range(1, len(heads)) if heads[d] == 0]
    if not on_root:
        return heads, labels
    _, size = preorder(heads)
    kept = max(on_root, key=lambda d: (labels[d] != leftover_label, size[d], -d))
    heads, labels = list(heads), list(labels)
    for d in range(1, len(heads)):
        if d == kept:
            labels[d] = roots.root
        elif heads[d] == 0 or labels[d] in (roots.root, leftover_label):
            if heads[d] == 0:
                heads[d] = kept
            labels[d] = roots.under.get(tags[d], roots.under_default)
    return heads, labels


@dataclass(frozen=True, slots=True)
class RootLabels:
    """What a training treebank says of its root words: the label of a word on the root, and the
    most frequent label of a dependent of the root word, by the dependent's tag."""

    root: str
    under: Mapping[str, str]
    under_default: str

    def as_json(self) -> dict:
        """The form a model's manifest keeps (and ``maltpy info --json`` shows)."""
        return {"root": self.root, "under": dict(self.under), "default": self.under_default}

    @classmethod
    def count(cls, trees: Iterable[tuple[list[int], list[str], list[str]]]) -> RootLabels:
        """From (heads, labels, tags) of each training tree."""
        counts = RootCounts()
        for heads, labels, tags in trees:
            counts.add(heads, labels, tags)
        return counts.labels()


@dataclass(slots=True)
class RootCounts:
    """The labels of root words and of their dependents (by tag), counted a tree at a time."""

    on_root: Counter = field(default_factory=Counter)
    under: dict[str, Counter] = field(default_factory=dict)
    every: Counter = field(default_factory=Counter)

    def add(self, heads: list[int], labels: list[str], tags: list[str]) -> None:
        """Count one tree; ``tags`` is indexed from 1, as ``heads`` and ``labels`` are."""
        for d in range(1, len(heads)):
            if heads[d] == 0:
                self.on_root[labels[d]] += 1
            elif heads[heads[d]] == 0:
                self.under.setdefault(tags[d], Counter())[labels[d]] += 1
                self.every[labels[d]] += 1

    def labels(self) -> RootLabels:
        """The most frequent label of each count (UD's root and dep where there is none)."""
        return RootLabels(_most_common(self.on_root, "root"),
                          {tag: _most_common(c, "dep") for tag, c in self.under.items()},
                          _most_common(self.every, "dep"))  # fmt: skip


#: The root labels of a model whose archive keeps none (made before maltpy kept a treebank's own): UD's.
UD_ROOT_LABELS = RootLabels("root", {"PUNCT": "punct"}, "parataxis")


def _most_common(counter: Counter, default: str) -> str:
    return counter.most_common(1)[0][0] if counter else default
