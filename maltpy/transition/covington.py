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


class CovingtonNonProjective(TransitionSystem):
    """The non-projective list-based system (Nivre 2008, §5.2, Fig. 8):

    LEFT-ARC_l   i ≠ 0, i has no head, no path i →* j     adds (j, l, i)
    RIGHT-ARC_l  j has no head, no path j →* i            adds (i, l, j)

    (the arc added must not close a cycle: j → i with a path i →* j would)
    NO-ARC                                                moves i left
    SHIFT        (allow_shift only)                       j + 1 becomes j
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

    def initial(self, n: int) -> CovingtonConfiguration:
        leftstop = 0 if self.allow_root else 1
        return CovingtonConfiguration(n, leftstop, leftstop + 1, leftstop, Arcs.empty(n), list(range(n + 1)))

    def is_terminal(self, c: CovingtonConfiguration) -> bool:
        return c.right > c.n

    def deterministic(self, c: CovingtonConfiguration) -> str | None:
        return None  # MaltParser's NO-ARC for i = 0 without allow_root never arises: i stops at 1

    def default(self, c: CovingtonConfiguration, root_label: str) -> Transition:
        """MaltParser's move when no ranked transition is allowed."""
        return NA, None

    def allowed(self, c: CovingtonConfiguration) -> tuple[str, ...]:
        i, j = c.left, c.right
        if find(c.parent, i) == find(c.parent, j):
            return self._moves[False][False]
        heads = c.arcs.heads
        right_arc = heads[j] == -1 and self._within_degree(c, i, j)
        left_arc = i != 0 and heads[i] == -1 and self._within_degree(c, j, i)
        return self._moves[right_arc][left_arc]

    def _within_degree(self, c: CovingtonConfiguration, head: int, dependent: int) -> bool:
        return self.max_degree is None or arc_degree(c.arcs.heads, head, dependent, self.max_degree) <= self.max_degree

    def apply(self, c: CovingtonConfiguration, name: str, label: str | None = None) -> None:
        if name == LA:
            self._link(c, c.right, c.left, label)
        elif name == RA:
            self._link(c, c.left, c.right, label)
        elif name not in (NA, SH):
            raise ValueError(f"{self.name} has no transition {name}")
        if name == SH:
            self._next_right(c)
        else:
            self._next_left(c, name)

    @staticmethod
    def _link(c: CovingtonConfiguration, head: int, dependent: int, label: str | None) -> None:
        c.arcs.add(head, dependent, label)
        join(c.parent, head, dependent)

    @staticmethod
    def _next_right(c: CovingtonConfiguration) -> None:
        c.right += 1
        c.left = c.right - 1

    def _next_left(self, c: CovingtonConfiguration, name: str) -> None:
        """Move i to the next word left of it that can still be linked to j."""
        heads, j = c.arcs.heads, c.right
        component = find(c.parent, j)
        i = c.left - 1
        while i >= c.leftstop and (find(c.parent, i) == component or (heads[i] != -1 and heads[j] != -1)):
            i -= 1
        if i < c.leftstop:
            self._next_right(c)
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

    def __init__(self, allow_root: bool = True, allow_shift: bool = False) -> None:
        super().__init__(allow_root, allow_shift)

    @classmethod
    def from_config(cls, config: Config, learning: bool = False, one_root: bool = False) -> CovingtonProjective:
        """-cr and -cs."""
        return cls(config.covington.allow_root, config.covington.allow_shift)

    def _next_left(self, c: CovingtonConfiguration, name: str) -> None:
        if name == RA:
            self._next_right(c)
            return
        if name == NA:
            i = c.arcs.heads[c.left] if c.arcs.heads[c.left] != -1 else c.leftstop - 1
        else:
            component = find(c.parent, c.right)
            i = c.left - 1
            while i >= c.leftstop and find(c.parent, i) == component:
                i -= 1
        if i < c.leftstop:
            self._next_right(c)
        else:
            c.left = i
