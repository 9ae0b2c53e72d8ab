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
form (``covington_arrays.CovingtonArrays``), which carry them out each on its own data; tests/test_batch.py checks
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

from dataclasses import dataclass

from ..data.tree import arc_degree
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
    arrays = "CovingtonArrays"
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
