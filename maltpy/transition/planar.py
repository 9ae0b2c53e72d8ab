"""Planar and 2-planar arc-eager parsing (Gómez-Rodríguez & Nivre 2010, "A Transition-Based Parser
for 2-Planar Dependency Structures", ACL: its planar and 2-planar transition systems, and its test
of 2-planarity, a crossings graph that is bipartite), as MaltParser 1.9.2 has them
(org.maltparser.parser.algorithm.planar and .twoplanar, by Carlos Gómez-Rodríguez).

A dependency graph is planar when no two of its arcs cross drawn above the words; 2-planar when
its arcs can be split into two planar sets. The planar system is arc-eager whose arc transitions
leave the stack and the buffer as they are, so that a word can take a head and dependents on both
sides, with crossing arcs kept out by the stack discipline:

    SHIFT        (σ, j|β, A)   ⇒ (σ|j, β, A)
    REDUCE       (σ|i, β, A)   ⇒ (σ, β, A)
    LEFT-ARC_l   (σ|i, j|β, A) ⇒ (σ|i, j|β, A ∪ {(j, l, i)})   i ≠ 0, i has no head, no cycle
    RIGHT-ARC_l  (σ|i, j|β, A) ⇒ (σ|i, j|β, A ∪ {(i, l, j)})   j has no head, no cycle

The 2-planar system keeps two stacks, one per plane; the active one is used as the planar
system's stack, and an arc goes on its plane. SHIFT pushes the word on both stacks, SWITCH makes
the other stack active (never twice in a row), REDUCE pops the active one. MaltParser's
REDUCE-BOTH is in its transition table but never permissible: here it is a class (RB, the first
MaltParser registers) that is never allowed.

The preconditions are MaltParser's ``permissible`` (the single-head constraint always holds; the
"no arc both ways" test it also makes is implied by it). Options, as MaltParser's groups:
- ``multiplanar.planar_root_handling`` (-prh): ``normal``: the root is a node like any other, and
  RIGHT-ARC attaches root dependents; ``relaxed``: nothing is done but SHIFT while the root is on
  top of the (active) stack, and root dependents are attached after parsing.
- ``planar.acyclicity`` (-pacy): no arc between two nodes already connected (default on). Off,
  the parser may close a cycle; MaltParser writes it, maltpy breaks it (``base.finish``) so that
  its output stays a tree.
- ``planar.no_covered_roots`` (-pcov): no REDUCE of a word without a head (so that no headless
  word is covered by an arc: projective structures only).
- ``planar.connectedness`` (-pcon, planar only): ``reduceonly``: REDUCE only a word connected
  to the first of the buffer or to the word below it on the stack; ``full``: also SHIFT the last
  word only once it is connected to the first word.
- ``2planar.reduceonswitch`` (-2pr): SWITCH also pops the stack it makes active.

The oracles are MaltParser's (PlanarArcEagerOracle, TwoPlanarArcEagerOracle): the planar one
rebuilds every planar tree, the 2-planar one every 2-planar tree, choosing a plane for each arc
as it is built and propagating the choice to the arcs that cross it.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right, insort
from dataclasses import dataclass, field

from .base import LA, RA, RE, SH, Arcs, Config, Gold, Transition, TransitionSystem, find, join

SW_ = "SW"  # 2-planar SWITCH: MaltParser's name, the same as Nivre's swap (the systems never meet)
RB = "RB"  # 2-planar REDUCE-BOTH: in MaltParser's table, never permissible
ROOT_HANDLING = ("normal", "relaxed")
CONNECTEDNESS = ("none", "reduceonly", "full")


def connected(c, a: int, b: int) -> bool:
    """Are nodes a and b in one connected part of the partial graph? MaltParser's test compares
    their ``findComponent``, the head-less node their heads lead to (with the acyclicity
    constraint off, the smallest node of the cycle they lead to instead); each part of a graph
    whose nodes have one head at most holds one such node or one such cycle, so the test is
    whether the two are connected, which union-find answers without walking up the heads."""
    return find(c.parent, a) == find(c.parent, b)


@dataclass(slots=True)
class PlanarConfiguration:
    """σ as a list with its top last; β as a list with its first node last; ``parent``: the
    union-find forest of the partial graph's connected parts (``base.find``)."""

    stack: list[int]
    buffer: list[int]
    arcs: Arcs
    parent: list[int]


class _Constraints(TransitionSystem):
    """The options the two systems share, and their tests of a LEFT-ARC or RIGHT-ARC."""

    projective = False
    planar = True

    def __init__(self, root_handling: str = "normal", acyclicity: bool = True, no_covered_roots: bool = False) -> None:
        if root_handling not in ROOT_HANDLING:
            raise ValueError(f"unknown planar root handling {root_handling!r}")
        self.relaxed_root = root_handling == "relaxed"
        self.acyclicity = acyclicity
        self.no_covered_roots = no_covered_roots

    @staticmethod
    def _shared(config: Config) -> tuple[str, bool, bool]:
        """The options of both systems: -prh, -pacy and -pcov."""
        return config.multiplanar.planar_root_handling, config.planar.acyclicity, config.planar.no_covered_roots

    def is_terminal(self, c) -> bool:
        return not c.buffer

    def deterministic(self, c) -> str | None:
        return SH if self.relaxed_root and c.stack[-1] == 0 else None

    def default(self, c, root_label: str) -> Transition:
        """MaltParser's move when no ranked transition is allowed."""
        return SH, None

    def _arcs_allowed(self, c, top: int, first: int) -> list[str]:
        """LEFT-ARC and RIGHT-ARC between the top of the (active) stack and the first of β."""
        arcs = c.arcs
        if self.acyclicity and connected(c, top, first):
            return []
        moves = []
        if arcs.heads[first] == -1:
            moves.append(RA)
        if top != 0 and arcs.heads[top] == -1:
            moves.append(LA)
        return moves

    def _apply_on_top(self, c, name: str, label: str | None) -> None:
        """REDUCE, RIGHT-ARC or LEFT-ARC on the top of the (active) stack and the first of β."""
        if name == RE:
            c.stack.pop()
        elif name == RA:
            c.arcs.add(c.stack[-1], c.buffer[-1], label)
            join(c.parent, c.stack[-1], c.buffer[-1])
        elif name == LA:
            c.arcs.add(c.buffer[-1], c.stack[-1], label)
            join(c.parent, c.buffer[-1], c.stack[-1])
        else:
            raise ValueError(f"{self.name} has no transition {name}")

    def _may_reduce(self, arcs: Arcs, top: int) -> bool:
        return top != 0 and not (self.no_covered_roots and arcs.heads[top] == -1)


class Planar(_Constraints):
    """The planar system, MaltParser's ``planar``."""

    name = "planar"
    family = "planar"
    transitions = (SH, RE, RA, LA)
    first_class = RE
    feature_model = "planar"
    tree_class = "planar"
    maltparser_class = "planar.NivrePlanarArcEagerFactory"
    trial_rank = 8
    base_addresses = ("Stack", "Input")
    focus = ("Stack[0]", "Input[0]")
    context = ("Stack[1]", "Input[1]", "Input[2]", "Stack[2]", "Input[3]")
    further = ("Input[4]", "Stack[3]")
    options = (("multiplanar", "planar_root_handling"), ("planar", "acyclicity"), ("planar", "no_covered_roots"),
               ("planar", "connectedness"))
    root_options = (("-prh relaxed", {"multiplanar": {"planar_root_handling": "relaxed"}}),)

    def __init__(self, root_handling: str = "normal", acyclicity: bool = True, no_covered_roots: bool = False,
                 connectedness: str = "none") -> None:  # fmt: skip
        super().__init__(root_handling, acyclicity, no_covered_roots)
        if connectedness not in CONNECTEDNESS:
            raise ValueError(f"unknown planar connectedness {connectedness!r}")
        self.connectedness = connectedness

    @staticmethod
    def in_tree_class(heads: list[int]) -> bool:
        return is_planar(heads)

    @classmethod
    def from_config(cls, config: Config, learning: bool = False, one_root: bool = False) -> Planar:
        """-prh, -pacy, -pcov and -pcon."""
        return cls(*cls._shared(config), config.planar.connectedness)

    def initial(self, n: int) -> PlanarConfiguration:
        return PlanarConfiguration([0], list(range(n, 0, -1)), Arcs.empty(n), list(range(n + 1)))

    def allowed(self, c: PlanarConfiguration) -> list[str]:
        top, first, arcs = c.stack[-1], c.buffer[-1], c.arcs
        moves = [SH] if self._may_shift(c) else []
        if self._may_reduce(arcs, top) and self._connected_on_reduce(c):
            moves.append(RE)
        return moves + self._arcs_allowed(c, top, first)

    def _may_shift(self, c: PlanarConfiguration) -> bool:
        """With full connectedness, the last word is shifted only once it is connected to word 1."""
        if self.connectedness != "full" or len(c.buffer) != 1:
            return True
        return connected(c, 1, c.buffer[-1])

    def _connected_on_reduce(self, c: PlanarConfiguration) -> bool:
        """With connectedness, the top is reduced only if connected to the first of β or to the
        node below it on the stack."""
        if self.connectedness == "none":
            return True
        top = c.stack[-1]
        return connected(c, top, c.buffer[-1]) or (len(c.stack) > 1 and connected(c, top, c.stack[-2]))

    def apply(self, c: PlanarConfiguration, name: str, label: str | None = None) -> None:
        if name == SH:
            c.stack.append(c.buffer.pop())
        else:
            self._apply_on_top(c, name, label)

    def oracle(self, c: PlanarConfiguration, gold: Gold) -> Transition:
        """MaltParser's: LEFT-ARC or RIGHT-ARC for a gold arc between i and j not yet built;
        REDUCE when j has a gold left dependent before i, or a gold head before i (not the root,
        unless the root's arcs are built by RIGHT-ARC); SHIFT otherwise."""
        i, j = c.stack[-1], c.buffer[-1]
        if i != 0 and gold.heads[i] == j and c.arcs.heads[i] != j:
            return LA, gold.labels[i]
        if gold.heads[j] == i and c.arcs.heads[j] != i:
            return RA, gold.labels[j]
        if -1 < gold.arcs.leftmost(j) < i:
            return RE, None
        if gold.heads[j] < i and (gold.heads[j] != 0 or not self.relaxed_root):
            return RE, None
        return SH, None


@dataclass(slots=True)
class TwoPlanarConfiguration:
    """The two stacks, each with its top last, ``active`` the index of the active one; β with its
    first node last; the union-find forest of the partial graph's connected parts; the last
    transition (no SWITCH after a SWITCH); the oracle's plane for each gold arc it has decided,
    and the gold arcs crossing each, by dependent."""

    stacks: tuple[list[int], list[int]]
    active: int
    buffer: list[int]
    arcs: Arcs
    parent: list[int]
    last: str | None = None
    planes: dict[int, int] = field(default_factory=dict)
    crossings: list[list[int]] | None = None

    @property
    def stack(self) -> list[int]:
        """The active stack."""
        return self.stacks[self.active]

    @property
    def inactive(self) -> list[int]:
        return self.stacks[1 - self.active]


ANY, FIRST, SECOND, NONE = 0, 1, 2, 3  # the oracle's plane for a gold arc


class TwoPlanar(_Constraints):
    """The 2-planar system, MaltParser's ``2planar``."""

    name = "2planar"
    family = "twoplanar"
    transitions = (SH, SW_, RA, LA, RE, RB)
    first_class = RB
    feature_model = "2planar"
    tree_class = "2-planar"
    maltparser_class = "twoplanar.TwoPlanarArcEagerFactory"
    trial_rank = 7
    base_addresses = ("ActiveStack", "InactiveStack", "Input")
    focus = ("ActiveStack[0]", "Input[0]")
    context = ("ActiveStack[1]", "Input[1]", "Input[2]", "InactiveStack[0]", "Input[3]")
    further = ("Input[4]", "ActiveStack[2]", "InactiveStack[1]")
    options = (("multiplanar", "planar_root_handling"), ("planar", "acyclicity"), ("planar", "no_covered_roots"),
               ("2planar", "reduceonswitch"))
    root_options = (*Planar.root_options, ("-2pr true", {"2planar": {"reduceonswitch": True}}))

    def __init__(self, root_handling: str = "normal", acyclicity: bool = True, no_covered_roots: bool = False,
                 reduce_on_switch: bool = False) -> None:  # fmt: skip
        super().__init__(root_handling, acyclicity, no_covered_roots)
        self.reduce_on_switch = reduce_on_switch

    @staticmethod
    def in_tree_class(heads: list[int]) -> bool:
        return is_planar(heads) or is_two_planar(heads)

    @classmethod
    def from_config(cls, config: Config, learning: bool = False, one_root: bool = False) -> TwoPlanar:
        """-prh, -pacy, -pcov and -2pr."""
        return cls(*cls._shared(config), config.twoplanar.reduceonswitch)

    def initial(self, n: int) -> TwoPlanarConfiguration:
        return TwoPlanarConfiguration(([0], [0]), 0, list(range(n, 0, -1)), Arcs.empty(n), list(range(n + 1)))

    def allowed(self, c: TwoPlanarConfiguration) -> list[str]:
        top, arcs = c.stack[-1], c.arcs
        moves = [SH]
        if self.reduce_on_switch:
            if self._may_reduce(arcs, c.inactive[-1]):
                moves.append(SW_)
        elif c.last != SW_:
            moves.append(SW_)
        if self._may_reduce(arcs, top):
            moves.append(RE)
        return moves + self._arcs_allowed(c, top, c.buffer[-1])

    def apply(self, c: TwoPlanarConfiguration, name: str, label: str | None = None) -> None:
        if name == SH:
            j = c.buffer.pop()
            c.stacks[0].append(j)
            c.stacks[1].append(j)
        elif name == SW_:
            c.active = 1 - c.active
            if self.reduce_on_switch:
                c.stack.pop()
        else:
            self._apply_on_top(c, name, label)
        c.last = name

    def oracle(self, c: TwoPlanarConfiguration, gold: Gold) -> Transition:
        """MaltParser's: an arc between the active top i and j not yet built, on the active
        plane (the choice propagated to the gold arcs crossing it); SWITCH for such an arc with the
        inactive top; REDUCE while j has a pending arc, on the active plane, with a node before i;
        SWITCH while it has one on the inactive plane before the inactive top; SHIFT otherwise."""
        i, k, j = c.stack[-1], c.inactive[-1], c.buffer[-1]
        plane = FIRST + c.active  # the active stack's
        if c.crossings is None:
            c.crossings = crossings(gold.heads)
        if i != 0 and gold.heads[i] == j and c.arcs.heads[i] != j:
            _propagate(c.planes, c.crossings, i, plane)
            return LA, gold.labels[i]
        if gold.heads[j] == i and c.arcs.heads[j] != i:
            _propagate(c.planes, c.crossings, j, plane)
            return RA, gold.labels[j]
        if k != 0 and gold.heads[k] == j and c.arcs.heads[k] != j:
            return SW_, None
        if gold.heads[j] == k and c.arcs.heads[j] != k:
            return SW_, None
        if self._pending(c, gold, plane, i) is not None:
            return RE, None
        if self._pending(c, gold, FIRST + SECOND - plane, k) is not None:
            return SW_, None
        return SH, None

    def _pending(self, c: TwoPlanarConfiguration, gold: Gold, plane: int, limit: int) -> int | None:
        """The dependent of the gold arc between j and a node before ``limit`` whose decided plane
        is ``plane``: the one whose other end is nearest ``limit`` (MaltParser's
        getFirstPendingLinkOnPlane; an undecided arc goes on the active plane)."""
        j = c.buffer[-1]
        active = FIRST + c.active
        best, found = (-1 if not self.relaxed_root else 0), None
        for d in gold.arcs.left[j]:
            if best < d < limit and _decision(c.planes, d, active) == plane:
                best, found = d, d
        h = gold.heads[j]
        if h < limit and h > best and _decision(c.planes, j, active) == plane:
            found = j
        return found


def _decision(planes: dict[int, int], dependent: int, active: int) -> int:
    """The plane the arc to ``dependent`` goes on: the one decided, else the active one."""
    plane = planes.get(dependent, ANY)
    return active if plane == ANY else plane


def _propagate(planes: dict[int, int], crossing: list[list[int]], dependent: int, plane: int) -> None:
    """Put the gold arc to ``dependent`` on ``plane``, and the arcs crossing it, depth first, on
    the other (or on none, if already on the same one): MaltParser's propagatePlaneConstraint."""
    planes[dependent] = plane
    if plane not in (FIRST, SECOND):
        return
    for other in crossing[dependent]:
        constraint = planes.get(other, ANY)
        if constraint == ANY:
            _propagate(planes, crossing, other, FIRST + SECOND - plane)
        elif constraint == plane:
            _propagate(planes, crossing, other, NONE)


def crossings(heads: list[int]) -> list[list[int]]:
    """The arcs each arc of the tree crosses, by dependent, in the order MaltParser's
    initCrossingsGraph lists them. It visits the pairs of arcs (by dependent, each way) and, for a
    pair whose first arc has the smaller head, appends each to the other's list; so arc e's list
    holds the crossing arcs with a smaller head and a smaller dependent, then those with a greater
    head, then those with a smaller head and a greater dependent, each by dependent."""
    partners: list[list[int]] = [[] for _ in heads]
    for a, b in _crossing_pairs(heads):
        partners[a].append(b)
        partners[b].append(a)
    lists: list[list[int]] = []
    for e, found in enumerate(partners):
        found.sort()
        below = [x for x in found if heads[x] < heads[e]]
        above = [y for y in found if heads[y] > heads[e]]
        lists.append([x for x in below if x < e] + above + [x for x in below if x > e])
    return lists


def _crossing_pairs(heads: list[int]) -> list[tuple[int, int]]:
    """Every pair of crossing arcs (by dependent), in time proportional to their number (plus a
    sort): arcs as spans swept from left to right; when a span (a, b) ends, the spans begun
    inside it that end after b are the ones crossing it. An ended span is taken out of the
    open ones by bisection (not by going over them all: a word with a dependent in every
    stretch of a long sentence keeps hundreds open)."""
    n = len(heads) - 1
    ending: list[list[int]] = [[] for _ in range(n + 1)]
    starting: list[list[int]] = [[] for _ in range(n + 1)]
    for d in range(1, n + 1):
        starting[min(d, heads[d])].append(d)
        ending[max(d, heads[d])].append(d)
    begun: list[tuple[int, int]] = []  # (start, dependent) of the spans begun and not ended, by start
    pairs = []
    for position in range(n + 1):
        for d in ending[position]:
            after = bisect_right(begun, (min(d, heads[d]), n + 1))
            pairs.extend((d, other) for _, other in begun[after:] if max(other, heads[other]) > position)
        for d in ending[position]:
            del begun[bisect_left(begun, (min(d, heads[d]), d))]
        for d in starting[position]:
            insort(begun, (position, d))
    return pairs


def is_planar(heads: list[int]) -> bool:
    """No two arcs of the tree cross (the root's arcs counted, drawn from node 0)."""
    return not _crossing_pairs(heads)


def is_two_planar(heads: list[int]) -> bool:
    """The arcs of the tree split into two planar sets: their crossing graph is bipartite."""
    lists = crossings(heads)
    side = [-1] * len(heads)
    for start in range(1, len(heads)):
        if side[start] != -1:
            continue
        side[start] = 0
        todo = [start]
        while todo:
            a = todo.pop()
            for b in lists[a]:
                if side[b] == -1:
                    side[b] = 1 - side[a]
                    todo.append(b)
                elif side[b] == side[a]:
                    return False
    return True
