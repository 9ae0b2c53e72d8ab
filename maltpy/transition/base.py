"""What every transition system shares: transition names, the partial graph, the gold tree.

A transition is a pair (name, label): ``("SH", None)``, ``("LA", "nsubj")``. The names are
MaltParser's: SH shift, RE reduce, LA left-arc, RA right-arc, NA no-arc, SW swap. A system
(nivre.py, covington.py, stack.py, planar.py) offers the same small interface, after Parsito's shape:

    system.initial(n)               -> configuration for a sentence of n words
    system.is_terminal(c)           -> bool
    system.deterministic(c)         -> name of the only possible move, or None (MaltParser
                                       applies such moves without asking the classifier)
    system.allowed(c)               -> the names of the transitions whose preconditions hold
    system.apply(c, name, label)
    system.oracle(c, gold)          -> (name, label): the static oracle's transition
    system.default(c, root_label)   -> (name, label): MaltParser's move when no ranked class
                                       is allowed

and ``finish(c.arcs, root_label)`` turns a terminal configuration into a tree. Each system class
derives from ``TransitionSystem``, which names the facts it carries for the rest of maltpy.
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..data.tree import cycles

SH, RE, LA, RA, NA, SW = "SH", "RE", "LA", "RA", "NA", "SW"
ARC_NAMES = (LA, RA)

Transition = tuple[str, "str | None"]
#: The run configuration, ``config.Config``, whose options a system reads (``from_config``): that
#: module checks -a against ``SYSTEMS`` and so imports this package, which imports nothing back.
Config = Any


class TransitionSystem:
    """A transition system's facts, which the rest of maltpy reads from its class (``SYSTEMS``
    in transition/__init__.py maps each name to its class), and the reading of its options.

    - ``name``: MaltParser's name for it, the value of -a (singlemalt.parsing_algorithm).
    - ``family``: whose feature addresses it has (``base_addresses`` below): nivre, stack,
      covington, planar or twoplanar; ``maltpy optimize`` proposes features by family.
    - ``transitions``: the names of its transitions, the classes a model may hold.
    - ``first_class``: the transition MaltParser registers first (its default), a model's class 0.
    - ``feature_model``: its default feature model, ``feature_models/<learner>/<format>/<name>.txt``.
    - ``projective``: it builds projective trees only (Nivre 2008, §3.5); ``maltpy optimize``
      tries the others only on a treebank with non-projective arcs.
    - ``planar``: its name is a class of trees (planar, 2planar) whose every tree its oracle
      rebuilds (Gómez-Rodríguez & Nivre 2010); ``maltpy oracle`` counts them, under the name
      ``tree_class``, by ``in_tree_class(heads)``.
    - ``one_root``: it keeps the single-root constraint (graph.single_root) itself, while parsing;
      the other systems take ``tree.single_root``'s final step alone.
    - ``acyclicity``: it never closes a cycle (``finish`` breaks those of a system that may).
    - ``options``: the options of its own that ``from_config`` reads, as config.OPTIONS keys
      (group, name); the configuration refuses one of them set for another algorithm, which
      would ignore it (config.USED_BY), and so does ``maltpy parse`` for -nt and -cd (a bound
      on the degree of non-projectivity, Nivre 2007, the system takes if it reads
      covington.max_degree).
    - ``root_options``: the options MaltOptimizer tries once it has chosen the algorithm
      (Ballesteros & Nivre 2012, phase 2: the root's handling, REDUCE and SHIFT), each its flag
      and the change to the configuration's groups (``maltpy optimize``).
    - ``maltparser_class``: MaltParser's factory class of it, below org.maltparser.parser.algorithm,
      which its model files name in savedoptions.sop (``mco.text``); None for one MaltParser lacks.
    - ``trial_rank``: where MaltOptimizer's phase 2 tries it among the algorithms of its kind
      (projective or not; ``optimize.analysis``); an unranked one comes after the ranked.
    - ``parse_cost``: what its parse of a sentence costs against one of Nivre's systems (1), which
      a blend's shares of members among workers even out (``blend.shares``).
    - ``costs``: its dynamic oracle, ``costs(c, gold)``: each allowed transition's cost, the gold
      arcs it makes unreachable; a method of the systems that have one, else None. Learning
      with ``-go dynamic`` (``models.explore``) takes the systems that have one.
    - ``arrays``: the name of its arrays form, a class in the module ``<its module>_arrays``
      (``transition.arrays.form_of`` loads it), which ``models.batch`` parses and learns with; or
      None: it parses and learns configuration by configuration only.

    And its family's facts, the same for each system of the family:

    - ``base_addresses``: the base address functions of its configurations (``features.spec``).
    - ``buffer_input``: its Input[i] is the i-th node of the buffer (the stack family's is the
      i-th swapped one).
    - ``focus``, ``context``, ``further``: the two words a transition relates, then the words
      around them, nearest first, then those beyond, as addresses: the windows of the features
      ``maltpy optimize`` proposes (the focus words are MaltOptimizer's "top items").
    - ``split_address``: the address of MaltParser's data split for it, the next input word.
    """

    name: str
    family: str
    transitions: tuple[str, ...]
    first_class: str
    feature_model: str
    projective: bool
    planar = False
    tree_class = ""
    one_root = False
    acyclicity = True
    options: tuple[tuple[str, str], ...] = ()
    root_options: tuple[tuple[str, dict[str, dict]], ...] = ()
    maltparser_class: str | None = None
    trial_rank: float = float("inf")
    parse_cost = 1.0
    arrays: str | None = None
    costs = None
    base_addresses: tuple[str, ...]
    buffer_input = True
    focus: tuple[str, str]
    context: tuple[str, ...]
    further: tuple[str, ...]
    split_address = "Input[0]"

    @classmethod
    def from_config(cls, config: Config, learning: bool = False, one_root: bool = False) -> TransitionSystem:
        """The system with its options from ``config``, for learning or for parsing, with the
        single-root constraint if ``one_root`` and the system has one. This one has no options."""
        return cls()

    @staticmethod
    def in_tree_class(heads: list[int]) -> bool:
        """Whether the tree is of the class of trees a ``planar`` system is named after."""
        raise NotImplementedError


@dataclass(slots=True)
class Arcs:
    """The partial dependency graph of a configuration over nodes 0..n.

    ``heads[d]`` is -1 until d has a head; ``left[h]`` and ``right[h]`` hold h's dependents
    before and after it, each in word order (MaltParser's left and right dependents).
    """

    heads: list[int]
    labels: list[str | None]
    left: list[list[int]]
    right: list[list[int]]

    @classmethod
    def empty(cls, n: int) -> Arcs:
        return cls([-1] * (n + 1), [None] * (n + 1), [[] for _ in range(n + 1)], [[] for _ in range(n + 1)])

    def add(self, head: int, dependent: int, label: str | None) -> None:
        self.heads[dependent] = head
        self.labels[dependent] = label
        insort(self.left[head] if dependent < head else self.right[head], dependent)

    def leftmost(self, node: int) -> int:
        """The leftmost left dependent of node, or -1."""
        deps = self.left[node]
        return deps[0] if deps else -1

    def rightmost(self, node: int) -> int:
        """The rightmost right dependent of node, or -1."""
        deps = self.right[node]
        return deps[-1] if deps else -1


def find(parent: list[int], node: int) -> int:
    """The representative of node's connected component of the partial graph, in the union-find
    forest ``parent`` (path halving): the systems that must not close a cycle (Covington's,
    the planar ones) ask whether two nodes are connected at every step, and walking up the
    heads instead would cost the depth of the partial tree each time."""
    while parent[node] != node:
        parent[node] = parent[parent[node]]
        node = parent[node]
    return node


def join(parent: list[int], head: int, dependent: int) -> None:
    """Merge the components of the two ends of a new arc in the union-find forest ``parent``."""
    parent[find(parent, dependent)] = find(parent, head)


class Gold:
    """The target tree of the oracle, with its dependents in word order."""

    __slots__ = ("heads", "labels", "arcs", "_order", "_by_order")

    def __init__(self, heads: list[int], labels: list[str]) -> None:
        self.heads = heads
        self.labels = labels
        self.arcs = Arcs.empty(len(heads) - 1)
        for d in range(1, len(heads)):
            self.arcs.add(heads[d], d, labels[d])
        self._order: list[int] | None = None
        self._by_order: list[int] | None = None

    def projective_order(self) -> list[int]:
        """``order[i]`` is the position of node i in the projective order <_G of Nivre (2009), §3.2:
        the order of an in-order traversal (left dependents, the node, right dependents)."""
        if self._order is None:
            order = [0] * len(self.heads)
            position = 0
            stack: list[tuple[int, bool]] = [(0, False)]
            while stack:
                node, visited = stack.pop()
                if visited:
                    order[node] = position
                    position += 1
                    continue
                for d in reversed(self.arcs.right[node]):
                    stack.append((d, False))
                stack.append((node, True))
                for d in reversed(self.arcs.left[node]):
                    stack.append((d, False))
            self._order = order
        return self._order

    def nodes_in_projective_order(self) -> list[int]:
        """The inverse of ``projective_order``: the node at each position."""
        if self._by_order is None:
            by_order = [0] * len(self.heads)
            for node, position in enumerate(self.projective_order()):
                by_order[position] = node
            self._by_order = by_order
        return self._by_order

    def complete(self, arcs: Arcs, node: int) -> bool:
        """Has node collected its dependents in ``arcs``? MaltParser's test of Nivre (2009)'s
        "A_i ⊆ A_c": its leftmost and its rightmost gold dependents are attached (dependents are
        attached from the inside out, so the outermost ones come last)."""
        gold = self.arcs
        return gold.leftmost(node) == arcs.leftmost(node) and gold.rightmost(node) == arcs.rightmost(node)

    def rightmost_descendant(self, node: int) -> int:
        """The largest word index among node's proper descendants, or -1."""
        best = -1
        todo = list(self.arcs.left[node]) + list(self.arcs.right[node])
        while todo:
            d = todo.pop()
            best = max(best, d)
            todo.extend(self.arcs.left[d])
            todo.extend(self.arcs.right[d])
        return best


def no(fact):
    """Not ``fact``: a truth value (``bool``) of one configuration or a row of them (numpy's bool
    arrays), for the rules written once for both (``One``, ``arrays.Rows``), which combine facts
    with ``&`` and ``|``."""
    return fact ^ True


class One:
    """One configuration's partial tree and gold tree as the rules of a transition system read
    them, node by node: each system writes a rule (its preconditions, its oracle, its forced
    moves) once, as a function of such a view, and gives it this one (the configuration's facts
    are numbers and truth values) or ``arrays.Rows`` (the same facts of a batch of
    configurations, a number per row). A rule combines facts with ``&``, ``|`` and ``no`` and
    chooses with ``first``."""

    __slots__ = ("arcs", "gold")

    def __init__(self, arcs: Arcs, gold: Gold | None = None) -> None:
        self.arcs = arcs
        self.gold = gold

    def head(self, node: int) -> int:
        return self.arcs.heads[node]

    def rightmost(self, node: int) -> int:
        return self.arcs.rightmost(node)

    def gold_head(self, node: int) -> int:
        return self.gold.heads[node]

    def gold_leftmost(self, node: int) -> int:
        deps = self.gold.arcs.left[node]
        return deps[0] if deps else -1

    def gold_rightmost(self, node: int) -> int:
        deps = self.gold.arcs.right[node]
        return deps[-1] if deps else -1

    @staticmethod
    def first(cases, default):
        """The move of the first of the (condition, move) ``cases`` that holds, else ``default``."""
        for condition, move in cases:
            if condition:
                return move
        return default


def arc_standard(v: One, i, j):
    """The static oracle of arc-standard parsing for two adjacent nodes i < j (Nivre 2008, §4.1;
    the same for Sp, Nivre 2009, §3.1): LEFT-ARC for a gold arc j → i; RIGHT-ARC for i → j once j
    has all its right dependents (its gold rightmost one is attached); SHIFT otherwise."""
    return v.first((((i != 0) & (v.gold_head(i) == j), LA),
                    ((v.gold_head(j) == i) & (v.gold_rightmost(j) == v.rightmost(j)), RA)), SH)  # fmt: skip


def arc_standard_oracle(i: int, j: int, gold: Gold, arcs: Arcs) -> Transition:
    """``arc_standard`` for one configuration, with the arc's gold label."""
    name = arc_standard(One(arcs, gold), i, j)
    return name, gold.labels[i] if name == LA else gold.labels[j] if name == RA else None


def finish(arcs: Arcs, root_label: str, acyclic: bool = True) -> tuple[list[int], list[str]]:
    """The tree of a terminal configuration: words without a head attach to the root with
    ``root_label``, as MaltParser does after parsing (Nivre 2008, §6.1). A system that may
    build a cycle (``acyclic`` false: the planar systems without their acyclicity constraint)
    has each cycle broken at its first word, which attaches to the root the same way; MaltParser
    writes the cycle, which is not a tree."""
    heads = list(arcs.heads)
    labels = list(arcs.labels)
    for d in range(1, len(heads)):
        if heads[d] == -1:
            heads[d] = 0
            labels[d] = root_label
    for cycle in [] if acyclic else cycles(heads):
        first = min(cycle)
        heads[first], labels[first] = 0, root_label
    return heads, labels


def replay_oracle(system, gold: Gold, c) -> Iterator[tuple[str, str | None, bool]]:
    """The static oracle's run from ``c`` to a terminal configuration, moving ``c``: each
    transition (name, label) is yielded before it is applied, with whether the oracle chose it
    (True) or it was the only possible move (False: ``system.deterministic``, which MaltParser
    applies without asking the classifier). Learning reads ``c``'s features at each chosen one
    (Nivre 2008, §6.1: the oracle's configurations and transitions are the training instances);
    ``batch.BatchLearner.replay`` is the same replay in arrays for Nivre's systems."""
    while not system.is_terminal(c):
        name = system.deterministic(c)
        if name is not None:
            yield name, None, False
            system.apply(c, name)
        else:
            name, label = system.oracle(c, gold)
            yield name, label, True
            system.apply(c, name, label)


def count_oracle(system, gold: Gold) -> tuple[int, int, object]:
    """The oracle from the initial configuration: the number of transitions and of swaps, and
    the terminal configuration. None is kept (Covington's systems take O(n²) of them)."""
    c = system.initial(len(gold.heads) - 1)
    transitions = swaps = 0
    for name, _, _ in replay_oracle(system, gold, c):
        transitions += 1
        swaps += name == SW
    return transitions, swaps, c


def run_oracle(system, gold: Gold) -> tuple[list[Transition], object]:
    """The oracle from the initial configuration to a terminal one: its transitions and the
    terminal configuration."""
    c = system.initial(len(gold.heads) - 1)
    return [(name, label) for name, label, _ in replay_oracle(system, gold, c)], c
