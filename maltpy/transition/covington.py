"""Covington's list-based systems, projective and non-projective (Nivre 2008, §5; Covington
2001), with the bound on the degree of non-projectivity of Nivre (2007), §3.

The parser compares each new word j (``right``) with the words before it, nearest first; the
current one is i (``left``). LEFT-ARC adds j → i, RIGHT-ARC adds i → j, NO-ARC adds nothing;
after any of them the next word to the left that could still be linked to j becomes i, and
when there is none, j + 1 becomes the new j (SHIFT does that at once). MaltParser skips, as
here, the words that cannot be linked to j: in the non-projective system those in j's
connected component (a link would close a cycle) and those where both i and j already have
heads; in the projective system NO-ARC jumps from i to i's head, since a link to anything
between would cross an arc.

Acyclicity (Nivre 2008, §6.1; Nivre 2007, §3) is checked with union-find over the connected
components of the partial graph: linking two nodes of one component would close a cycle,
given that every node has at most one head.

Options, as MaltParser's ``covington`` group: ``allow_root`` (-cr) lets the root be i (and so
get dependents by RIGHT-ARC); ``allow_shift`` (-cs) allows SHIFT before every i has been
seen. maltpy adds ``max_degree`` for covnonproj: LEFT-ARC and RIGHT-ARC only for arcs whose
degree of non-projectivity in the partial graph is at most d (``tree.arc_degree``); the oracle
takes NO-ARC where its arc is out of bounds. As in Nivre (2007, §5) the bound applies while
parsing, and in training only with ``bound_in_training`` (the paper's d = 0 baseline; see
``CovingtonNonProjective.from_config``). The bound is on the arcs transitions build: words
left without a head go to the root afterwards, which keeps a d = 0 tree projective but may
exceed a larger d.

Each rule is written once, for one configuration and for a batch of them in arrays alike: the
preconditions (``_preconditions``), the arc each move adds (``ARCS``), where i goes after each
move (``next_i``) and which words it may stop at (``_linkable``) are the same functions and tables
for the per-configuration form (``CovingtonNonProjective``, ``CovingtonProjective``) and the arrays
form (``CovingtonArrays``), which carry them out each on its own data; tests/test_batch.py checks
the two on real treebanks.

In arrays, a batch of ``CovingtonConfiguration`` is the partial trees of ``arrays.Configurations``
with, per sentence, its current left word i (``left``) and right word j (``right``), and per node
the connected component of the partial graph it belongs to (``component``: the number of one of
its nodes, the same for all of them). Where the per-sentence system keeps a union-find forest, the
arrays keep each component's number on every node, and a new arc gives its dependent's component
the number of its head's: that costs a row the length of its sentence, and whether i and j are
connected is one gather. The skip to the next i (``_seek``) is a search over the words left of i,
every row's at once (``Configurations.stretches``); the first word left of i settles most rows,
and only the others search further. The arrays form covers the systems' options -cr and -cs;
covnonproj with a bound on the degree of non-projectivity (-cd) takes the per-sentence path.
Learning replays the oracle configuration by configuration (``learns`` is false): in arrays it
took as long, Covington's many instances a word held in memory a chunk at a time (en_lines: 7.3 s
against 6.8 s of feature extraction, 1.66 GB against 1.28 GB at the peak).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..data.tree import arc_degree
from .arrays import Configurations
from .base import LA, NA, RA, SH, Arcs, Config, Gold, Transition, TransitionSystem, find, join


@dataclass(slots=True)
class CovingtonConfiguration:
    """Nodes 0..n in word order; ``left`` is i and ``right`` is j; i ranges down to
    ``leftstop`` (0 with allow_root, else 1); ``parent`` is the union-find forest."""

    n: int
    left: int
    right: int
    leftstop: int
    arcs: Arcs
    parent: list[int]


# One tuple for the label-less moves, not a new one per step: a long sentence takes O(n²) of them.
_NO_ARC, _SHIFT = (NA, None), (SH, None)

MOVES = (SH, NA, RA, LA)  # the transitions by their number in arrays
SHIFT, NO_ARC, RIGHT_ARC, LEFT_ARC = range(4)
#: The arc each move adds, as (head, dependent), i being LEFT and j RIGHT: LEFT-ARC j → i, RIGHT-ARC i → j.
LEFT, RIGHT = 0, 1
ARCS = {LA: (RIGHT, LEFT), RA: (LEFT, RIGHT)}
#: Where i goes after a move: NEXT_J, j + 1 becomes j and i the word before it; SEEK, i becomes the
#: nearest word left of i that can still be linked to j (``_linkable``), or NEXT_J if none; HEAD,
#: i's head becomes i, or NEXT_J if it has none.
NEXT_J, SEEK, HEAD = range(3)


def _next_right(c: CovingtonConfiguration) -> None:
    c.right += 1
    c.left = c.right - 1


class CovingtonArrays:
    """``CovingtonNonProjective`` or ``CovingtonProjective`` in arrays, with its options, for
    ``models.batch`` (the module's docstring). Each method takes the configurations and ``rows``,
    the sentences of the batch it applies to, and computes for each what the per-configuration
    method its docstring names computes, by the same rules."""

    moves = MOVES
    addresses = frozenset({"Left", "Right", "LeftContext", "RightContext"})
    learns = False

    def __init__(self, system: CovingtonNonProjective) -> None:
        self.system = system
        self.leftstop = 0 if system.allow_root else 1
        self._next = np.array([system.next_i[name] for name in MOVES], dtype=np.int64)

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
        """The move when no ranked one is allowed (``default``)."""
        return MOVES.index(self.system.default_move), -1

    def unfinished(self, c: Configurations, rows: np.ndarray) -> np.ndarray:
        """The rows not terminal (``is_terminal``): j is a word."""
        return rows[c.right[rows] <= c.n[rows]]

    def deterministic(self, c: Configurations, rows: np.ndarray,
                      record: Callable[[np.ndarray], None] | None = None) -> None:  # fmt: skip
        """None: Covington's systems ask the classifier at every step (``deterministic``)."""

    def allowed(self, c: Configurations, rows: np.ndarray) -> np.ndarray:
        """Which of ``MOVES`` each row allows (``_preconditions``)."""
        o = c.offset[rows]
        i, j = c.left[rows], c.right[rows]
        apart = c.component[o + i] != c.component[o + j]
        ok = np.empty((len(rows), len(MOVES)), dtype=bool)
        for k, allowed in enumerate(self.system._preconditions(apart, i, c.heads[o + i], c.heads[o + j])):
            ok[:, k] = allowed
        return ok

    def apply(self, c: Configurations, rows: np.ndarray, move: np.ndarray, label: np.ndarray) -> None:
        """Apply one move to each row (``apply``): its arc (``ARCS``), which joins the two
        components, and i's next place (``next_i``)."""
        if not len(rows):
            return
        o = c.offset[rows]
        ends = (c.left[rows], c.right[rows])
        la, ra = move == LEFT_ARC, move == RIGHT_ARC
        arc = la | ra
        if arc.any():
            (la_head, la_dependent), (ra_head, ra_dependent) = ARCS[LA], ARCS[RA]
            head = np.where(la, ends[la_head], ends[ra_head])[arc]
            dependent = np.where(la, ends[la_dependent], ends[ra_dependent])[arc]
            c.add(o[arc], head, dependent, label[arc])
            self._join(c, rows[arc], head, dependent)
        after = self._next[move]
        self._next_right(c, rows[after == NEXT_J])
        to_head = rows[after == HEAD]
        if len(to_head):
            head = c.heads[c.offset[to_head] + c.left[to_head]]
            has = head >= self.leftstop  # a head of -1, or the root where i stops at 1: the next j
            c.left[to_head[has]] = head[has]
            self._next_right(c, to_head[~has])
        seek = rows[after == SEEK]
        self._seek(c, seek, c.left[seek] - 1)

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
        """Whether each node (of the row ``rows[owner]``) could still be linked to the row's j
        (``_linkable``)."""
        o = c.offset[rows]
        j = o + c.right[rows]
        place = o[owner] + node
        apart = c.component[place] != c.component[j][owner]
        return self.system._linkable(apart, c.heads[place], c.heads[j][owner])

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


class CovingtonNonProjective(TransitionSystem):
    """The non-projective list-based system (Nivre 2008, §5.2, Fig. 8):

    LEFT-ARC_l   i ≠ 0, i has no head, no path i →* j     adds (j, l, i)
    RIGHT-ARC_l  j has no head, no path j →* i            adds (i, l, j)

    (the arc added must not close a cycle: j → i with a path i →* j would)
    NO-ARC                                                moves i left
    SHIFT        (allow_shift only)                       j + 1 becomes j

    MaltParser moves i after each move but SHIFT to the next word left of it that can still be
    linked to j (``next_i``, ``_linkable``).
    """

    name = "covnonproj"
    family = "covington"
    transitions = (SH, NA, RA, LA)
    first_class = NA
    feature_model = "covnonproj"
    projective = False
    maltparser_class = "covington.CovingtonNonProjFactory"
    trial_rank = 6
    #: over en_lines' test file in one process, nivreeager and nivrestandard take 0.13 to 0.25 s,
    #: covnonproj 0.54 to 0.87 s; as the default blend of en_lines learned, over the held-out
    #: folds, 0.59 to 1.10 s and 2.71 to 3.10 s (shares by those measured seconds came out no
    #: more even on en_lines)
    parse_cost = 4.0
    base_addresses = ("Left", "Right", "LeftContext", "RightContext")
    focus = ("Left[0]", "Right[0]")
    context = ("Left[1]", "Right[1]", "Right[2]", "Left[2]", "LeftContext[0]", "RightContext[0]")
    further = ("Right[3]", "Left[3]")
    split_address = "Right[0]"
    options = (("covington", "allow_root"), ("covington", "allow_shift"), ("covington", "max_degree"),
               ("covington", "bound_in_training"))
    root_options = (("-cr false", {"covington": {"allow_root": False}}),
                    ("-cs true", {"covington": {"allow_shift": True}}))  # fmt: skip
    arrays = CovingtonArrays
    #: where i goes after each move
    next_i = {SH: NEXT_J, NA: SEEK, RA: SEEK, LA: SEEK}
    #: MaltParser's move when no ranked transition is allowed
    default_move = NA

    def __init__(self, allow_root: bool = True, allow_shift: bool = False, max_degree: int | None = None) -> None:
        self.allow_root = allow_root
        self.allow_shift = allow_shift
        self.max_degree = max_degree
        base = (SH, NA) if allow_shift else (NA,)
        self._moves = {ra: {la: base + ((RA,) if ra else ()) + ((LA,) if la else ()) for la in (False, True)}
                       for ra in (False, True)}  # fmt: skip

    @classmethod
    def from_config(cls, config: Config, learning: bool = False, one_root: bool = False) -> CovingtonNonProjective:
        """-cr, -cs and the bound -cd: while parsing, and in learning only with
        ``bound_in_training`` (Nivre 2007, §5: the parsers are trained on the arcs of the
        treebank, unbounded, and bounded at parse time; the d = 0 baseline is bounded in both)."""
        covington = config.covington
        bounded = not learning or covington.bound_in_training
        return cls(covington.allow_root, covington.allow_shift, covington.max_degree if bounded else None)

    # --- the rules, for one configuration and for rows of them alike ---

    def _preconditions(self, apart, i, head_i, head_j) -> tuple:
        """Whether each of ``MOVES`` is allowed, for i and j in different components (``apart``)
        with their heads: SHIFT with ``allow_shift``, NO-ARC always, RIGHT-ARC for a headless j,
        LEFT-ARC for a headless i but the root (and, per configuration, within the degree bound)."""
        return self.allow_shift, True, apart & (head_j == -1), apart & (i != 0) & (head_i == -1)

    @staticmethod
    def _linkable(apart, head_k, head_j):
        """Whether a word k left of i could still be linked to j: k is outside j's component
        (``apart``), and not both k and j already have a head."""
        return apart & ((head_k == -1) | (head_j == -1))

    # --- the per-configuration form ---

    def initial(self, n: int) -> CovingtonConfiguration:
        leftstop = 0 if self.allow_root else 1
        return CovingtonConfiguration(n, leftstop, leftstop + 1, leftstop, Arcs.empty(n), list(range(n + 1)))

    def is_terminal(self, c: CovingtonConfiguration) -> bool:
        return c.right > c.n

    def deterministic(self, c: CovingtonConfiguration) -> str | None:
        return None  # MaltParser's NO-ARC for i = 0 without allow_root never arises: i stops at 1

    def default(self, c: CovingtonConfiguration, root_label: str) -> Transition:
        """MaltParser's move when no ranked transition is allowed (``default_move``)."""
        return self.default_move, None

    def allowed(self, c: CovingtonConfiguration) -> tuple[str, ...]:
        i, j = c.left, c.right
        heads, parent = c.arcs.heads, c.parent
        _, _, right_arc, left_arc = self._preconditions(find(parent, i) != find(parent, j), i, heads[i], heads[j])
        if self.max_degree is not None:
            right_arc = right_arc and self._within_degree(c, i, j)
            left_arc = left_arc and self._within_degree(c, j, i)
        return self._moves[right_arc][left_arc]

    def _within_degree(self, c: CovingtonConfiguration, head: int, dependent: int) -> bool:
        return arc_degree(c.arcs.heads, head, dependent, self.max_degree) <= self.max_degree

    def apply(self, c: CovingtonConfiguration, name: str, label: str | None = None) -> None:
        after = self.next_i.get(name)
        if after is None:
            raise ValueError(f"{self.name} has no transition {name}")
        arc = ARCS.get(name)
        if arc is not None:
            ends = (c.left, c.right)
            head, dependent = ends[arc[0]], ends[arc[1]]
            c.arcs.add(head, dependent, label)
            join(c.parent, head, dependent)
        if after == SEEK:
            self._seek(c, c.left - 1)
        elif after == NEXT_J:
            _next_right(c)
        else:
            i = c.arcs.heads[c.left]
            if i >= c.leftstop:  # a head of -1, or the root where i stops at 1: the next j
                c.left = i
            else:
                _next_right(c)

    def _seek(self, c: CovingtonConfiguration, first: int) -> None:
        """i becomes the nearest word from ``first`` down that can still be linked to j
        (``_linkable``), or j + 1 becomes j if there is none."""
        heads, j = c.arcs.heads, c.right
        parent, head_j = c.parent, heads[j]
        component = find(parent, j)
        linkable = self._linkable
        i = first
        while i >= c.leftstop and not linkable(find(parent, i) != component, heads[i], head_j):
            i -= 1
        if i < c.leftstop:
            _next_right(c)
        else:
            c.left = i

    def oracle(self, c: CovingtonConfiguration, gold: Gold) -> Transition:
        """MaltParser's: LEFT-ARC or RIGHT-ARC for a gold arc between i and j (when allowed);
        with allow_shift, SHIFT when j has no gold arc with i or any word left of i;
        NO-ARC otherwise."""
        i, j = c.left, c.right
        if i != 0 and gold.heads[i] == j:
            if LA in self.allowed(c):
                return LA, gold.labels[i]
        elif gold.heads[j] == i:
            if RA in self.allowed(c):
                return RA, gold.labels[j]
        elif self.allow_shift:
            left_dependent = -1 < gold.arcs.leftmost(j) < i
            head_further_left = gold.heads[j] < i and (gold.heads[j] != 0 or c.leftstop == 0)
            if not left_dependent and not head_further_left:
                return _SHIFT
        return _NO_ARC


class CovingtonProjective(CovingtonNonProjective):
    """The projective list-based system (Nivre 2008, §5.1, Fig. 7), as MaltParser moves i:
    after RIGHT-ARC or SHIFT the next j; after LEFT-ARC the next word left of i outside j's
    component; after NO-ARC i's head (a word between would give a crossing arc), or the next j
    if i has no head."""

    name = "covproj"
    feature_model = "covproj"
    projective = True
    maltparser_class = "covington.CovingtonProjFactory"
    trial_rank = 3
    options = (("covington", "allow_root"), ("covington", "allow_shift"))
    next_i = {SH: NEXT_J, NA: HEAD, RA: NEXT_J, LA: SEEK}

    def __init__(self, allow_root: bool = True, allow_shift: bool = False) -> None:
        super().__init__(allow_root, allow_shift)

    @classmethod
    def from_config(cls, config: Config, learning: bool = False, one_root: bool = False) -> CovingtonProjective:
        """-cr and -cs."""
        return cls(config.covington.allow_root, config.covington.allow_shift)

    @staticmethod
    def _linkable(apart, head_k, head_j):
        """Any word outside j's component (a link to it would cross no arc)."""
        return apart
