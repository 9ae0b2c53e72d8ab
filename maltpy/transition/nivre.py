"""Nivre's stack-based systems: arc-standard and arc-eager (Nivre 2008, §4.1 and §4.2).

A configuration is a stack σ, a buffer β and a set of arcs A. Both systems start with the root
on the stack and every word in the buffer, and stop when the buffer is empty (MaltParser's
terminal condition: words left on the stack without a head are attached to the root with the
root label afterwards).

Options, as MaltParser's ``nivre`` group:
- ``allow_root`` (-nr): the root is a node like any other, so RIGHT-ARC can attach root
  dependents. If false, nothing is done while the root is on top but SHIFT, and root
  dependents are attached only after parsing.
- ``allow_reduce`` (-ne, arc-eager): REDUCE is allowed for a word without a head, which then
  goes to the root after parsing.
- ``enforce_tree`` (-nt, arc-eager, parsing only), as MaltParser 1.9.2's ArcEager and NivreConfig
  have it: once the buffer has been emptied (by SHIFT or RIGHT-ARC), SHIFT is no longer allowed;
  with the buffer empty, a top with a head is reduced and a top without one is UNSHIFTed back
  to the buffer (both without asking the classifier), so that every word takes its head from a
  transition and parsing ends with the root alone on the stack. A root that cannot take
  dependents (allow_root false) then can, by RIGHT-ARC.
- ``one_root`` (graph.single_root, arc-eager, parsing only): the tree constraint above, and the
  root takes one dependent by a transition. Once it has one, RIGHT-ARC from the root is no
  longer allowed (the words after wait on the stack for a head: in the end phase they take
  one by a transition, as enforce_tree gives), and neither is REDUCE of the word just above
  the root while the buffer holds a word (it is the root's dependent, the only head the
  rest of the sentence can still reach, or its descendant: without it the root would be on
  top with a word to attach and no move left). Nivre & Fernández-González (2014, "Arc-eager
  parsing with the tree constraint", Computational Linguistics 40(2)) give the end phase;
  the one-dependent root is the single-root constraint Ballesteros & Nivre (2013, "Going to
  the roots of dependency parsing", Computational Linguistics 39(1)) treat as a parameter.
- ``one_root`` (graph.single_root, arc-standard, parsing only): RIGHT-ARC from the root only
  when the buffer holds one word, the last one the sentence leaves (so with a gold tree of one
  root the oracle attaches the root's dependent: the words after it are its descendants and
  have been attached by then); and once the buffer has been emptied, SHIFT is no longer
  allowed and the top of the stack (never with a head in arc-standard) is UNSHIFTed back to
  the buffer without asking the classifier, so that the words left on the stack take their
  heads by LEFT-ARC and RIGHT-ARC, and the last of them from the root. This is maltpy's own
  end phase, arc-eager's (Nivre & Fernández-González 2014) carried over to arc-standard.

Each rule is written once, for one configuration and for a batch of them in arrays alike: the
preconditions (``_preconditions``), the oracle (``_oracle``), the moves made without the
classifier (``_forced``), the end (``_terminal``) and the default move are functions of the
facts of a view (``_One``, ``_Rows``), and each move's effect is a line of ``EAGER`` or
``STANDARD``: the arc it adds and its step on the stack and buffer. To change arc-eager's REDUCE
is to change its line there, or its case in ``NivreEager._preconditions`` or ``_oracle``: both
forms follow. The per-configuration form (``NivreEager``,
``NivreStandard``: lists, which the feature functions read) and the arrays form
(``nivre_arrays.NivreArrays``: one configuration a row, which ``models.batch`` parses and learns with) carry
out the steps each on its own data; tests/test_batch.py checks the two on real treebanks.
"""

from __future__ import annotations

from dataclasses import dataclass

from .base import LA, RA, RE, SH, Arcs, Config, Gold, One, Transition, TransitionSystem, arc_standard, no


@dataclass(slots=True)
class NivreConfiguration:
    """σ as a list with its top last; β as a list with its first node last."""

    stack: list[int]
    buffer: list[int]
    arcs: Arcs
    end: bool = False  # the end phase: the buffer has been emptied


USH = "USH"  # the end phase's UNSHIFT, MaltParser's name; never a class (always deterministic)
MOVES = (SH, RE, RA, LA)  # the transitions by their number in arrays, then UNSHIFT
SHIFT, REDUCE, RIGHT_ARC, LEFT_ARC, UNSHIFT = range(5)
NUMBER = {name: k for k, name in enumerate((*MOVES, USH))} | {None: -1}

# An arc joins the top of the stack i and the front of the buffer j: RIGHT-ARC's i → j, LEFT-ARC's j → i.
TOP_FRONT, FRONT_TOP = 1, 2
# The steps on the stack and the buffer: PUSH the front onto the stack; POP the top; BACK: the
# front is taken and the top, unless the root, goes back in its place (arc-standard's RIGHT-ARC
# as MaltParser has it); UNPUSH the top back to the (empty) buffer (the end phase's UNSHIFT).
PUSH, POP, BACK, UNPUSH = range(4)
#: Each move's effect, (arc, step), in arc-eager (Nivre 2008, Fig. 5) and arc-standard (Fig. 3)
EAGER = {SH: (None, PUSH), RE: (None, POP), RA: (TOP_FRONT, PUSH), LA: (FRONT_TOP, POP), USH: (None, UNPUSH)}
STANDARD = {SH: (None, PUSH), RA: (TOP_FRONT, BACK), LA: (FRONT_TOP, POP), USH: (None, UNPUSH)}


class _One(One):
    """One configuration's facts (``base.One``): the top of the stack and the front of the buffer
    (-1 when empty), the depth of the stack, whether the buffer is empty and holds at most one
    word, and the end phase."""

    __slots__ = ("c", "top", "front")

    def __init__(self, c: NivreConfiguration, gold: Gold | None = None) -> None:
        self.c, self.arcs, self.gold = c, c.arcs, gold
        self.top = c.stack[-1]
        self.front = c.buffer[-1] if c.buffer else -1

    @property
    def depth(self) -> int:
        return len(self.c.stack)

    @property
    def empty(self) -> bool:
        return not self.c.buffer

    @property
    def last(self) -> bool:
        return len(self.c.buffer) == 1

    @property
    def end(self) -> bool:
        return self.c.end


class _Nivre(TransitionSystem):
    """What the two systems share: the start, the end phase, root handling and the default move."""

    family = "nivre"
    projective = True
    base_addresses = ("Stack", "Input")
    focus = ("Stack[0]", "Input[0]")
    context = ("Stack[1]", "Input[1]", "Input[2]", "Stack[2]", "Input[3]")
    further = ("Input[4]", "Stack[3]")
    root_options: tuple[tuple[str, dict[str, dict]], ...] = (("-nr false", {"nivre": {"allow_root": False}}),)
    effects: dict[str, tuple[int | None, int]]
    arrays = "NivreArrays"

    def __init__(self, allow_root: bool = True, end_phase: bool = False) -> None:
        self.allow_root = allow_root
        #: enforce_tree's or one_root's end phase: once the buffer has been emptied, SHIFT is no
        #: longer allowed, and with the buffer empty a top with a head is reduced and one
        #: without (in arc-standard, every one) is UNSHIFTed; terminal: the root alone is left
        self.end_phase = end_phase

    # --- the rules, for one configuration (_One) and for rows of them (_Rows) alike ---

    def _terminal(self, empty, depth):
        """The buffer is empty (in the end phase, and only the root is left on the stack)."""
        return empty & (depth == 1) if self.end_phase else empty

    def _forced(self, v):
        """The move MaltParser makes without asking the classifier, or None: SHIFT while the root
        is on top without ``allow_root`` (outside the end phase); in the end phase, with the
        buffer empty, REDUCE of a top with a head and UNSHIFT of one without."""
        cases = []
        if not self.allow_root:
            cases.append(((v.top == 0) & no(v.end), SH))
        if self.end_phase:
            headless = v.head(v.top) == -1
            cases += [(v.empty & no(headless), RE), (v.empty & headless, USH)]
        return v.first(cases, None)

    @staticmethod
    def _default(end) -> str:
        """MaltParser's move when no ranked transition is allowed: SHIFT; in the end phase, where
        SHIFT is not allowed, RIGHT-ARC with the root label (always allowed there: the stack
        systems' default at the end). MaltParser 1.9.2 shifts there too, which UNSHIFT undoes,
        forever: a model whose classes are all ruled out (no RIGHT-ARC class, or a data split
        value without a classifier) hangs it."""
        return RA if end else SH

    def _end_phase(self, v, shift, right_arc):
        """In the end phase SHIFT is no longer allowed, and RIGHT-ARC is, from the root too."""
        if self.end_phase:
            return no(v.end), right_arc | v.end
        return shift, right_arc

    # --- the per-configuration form ---

    def initial(self, n: int) -> NivreConfiguration:
        return NivreConfiguration([0], list(range(n, 0, -1)), Arcs.empty(n))

    def is_terminal(self, c: NivreConfiguration) -> bool:
        return self._terminal(not c.buffer, len(c.stack))

    def deterministic(self, c: NivreConfiguration) -> str | None:
        if self.allow_root and not self.end_phase:
            return None
        return self._forced(_One(c))

    def allowed(self, c: NivreConfiguration) -> list[str]:
        return [name for name, ok in zip(MOVES, self._preconditions(_One(c))) if ok]

    def apply(self, c: NivreConfiguration, name: str, label: str | None = None) -> None:
        effect = self.effects.get(name)
        if effect is None or (name == USH and not self.end_phase):
            raise ValueError(f"{self.name} has no transition {name}")
        arc, step = effect
        stack, buffer = c.stack, c.buffer
        if arc == TOP_FRONT:
            c.arcs.add(stack[-1], buffer[-1], label)
        elif arc == FRONT_TOP:
            c.arcs.add(buffer[-1], stack[-1], label)
        if step == PUSH:
            stack.append(buffer.pop())
        elif step == POP:
            stack.pop()
        elif step == BACK:
            buffer.pop()
            if stack[-1] != 0:
                buffer.append(stack.pop())
        else:
            buffer.append(stack.pop())
        if self.end_phase and not buffer and step in (PUSH, BACK):
            c.end = True

    def oracle(self, c: NivreConfiguration, gold: Gold) -> Transition:
        name = self._oracle(_One(c, gold))
        return name, None if self.effects[name][0] is None else gold.labels[self.arc_of(c, name)[1]]

    def arc_of(self, c: NivreConfiguration, name: str) -> tuple[int, int]:
        """The (head, dependent) of the arc transition ``name`` makes in ``c``."""
        top, front = c.stack[-1], c.buffer[-1]
        return (top, front) if self.effects[name][0] == TOP_FRONT else (front, top)

    def default(self, c: NivreConfiguration, root_label: str) -> Transition:
        """``_default``: RIGHT-ARC with the root label in the end phase, else SHIFT."""
        name = self._default(c.end)
        return name, root_label if name == RA else None


class NivreEager(_Nivre):
    """Arc-eager (Nivre 2008, §4.2, Fig. 5):

    LEFT-ARC_l   (σ|i, j|β) ⇒ (σ, j|β),    A ∪ {(j, l, i)}   i ≠ 0, i has no head
    RIGHT-ARC_l  (σ|i, j|β) ⇒ (σ|i|j, β),  A ∪ {(i, l, j)}
    REDUCE       (σ|i, β)   ⇒ (σ, β)                          i ≠ 0, i has a head
    SHIFT        (σ, j|β)   ⇒ (σ|j, β)
    """

    name = "nivreeager"
    transitions = (SH, RE, RA, LA)
    first_class = RE
    feature_model = "nivreeager"
    maltparser_class = "nivre.NivreArcEagerFactory"
    trial_rank = 0
    options = (("nivre", "allow_root"), ("nivre", "allow_reduce"), ("nivre", "enforce_tree"))
    root_options = (*_Nivre.root_options, ("-ne true", {"nivre": {"allow_reduce": True}}))
    effects = EAGER

    def __init__(self, allow_root: bool = True, allow_reduce: bool = False, enforce_tree: bool = False,
                 one_root: bool = False) -> None:  # fmt: skip
        super().__init__(allow_root, enforce_tree or one_root)
        self.allow_reduce = allow_reduce
        self.one_root = one_root

    @classmethod
    def from_config(cls, config: Config, learning: bool = False, one_root: bool = False) -> NivreEager:
        """-nr, -ne, and -nt and one_root while parsing only (enforce_tree as MaltParser's NivreFactory)."""
        nivre, parsing = config.nivre, not learning
        return cls(nivre.allow_root, nivre.allow_reduce, nivre.enforce_tree and parsing, one_root and parsing)

    def _preconditions(self, v) -> tuple:
        """Whether each of ``MOVES`` is allowed: LEFT-ARC for a top other than the root without a
        head, REDUCE for one with a head (or any with ``allow_reduce``), RIGHT-ARC from the root
        with ``allow_root`` only, SHIFT always; the end phase's (``_end_phase``); with one_root,
        once the root has its dependent, no RIGHT-ARC from the root and no REDUCE of the word
        just above it while the buffer holds a word."""
        inner, headless = v.top != 0, v.head(v.top) == -1
        reduce = inner & (no(headless) | self.allow_reduce)
        shift, right_arc = self._end_phase(v, True, inner | self.allow_root)
        if self.one_root:
            rooted = v.rightmost(0) != -1
            right_arc = right_arc & (inner | no(rooted))
            reduce = reduce & no(rooted & (v.depth == 2) & no(v.empty))
        return shift, reduce, right_arc, inner & headless

    def _oracle(self, v):
        """LEFT-ARC or RIGHT-ARC for a gold arc between i and j; REDUCE once i has no gold arc
        left with j or any word after it (some word k < i is j's head or left dependent);
        SHIFT otherwise, and always for a headless i unless allow_reduce (MaltParser's order)."""
        i, j = v.top, v.front
        head_j, leftmost_j = v.gold_head(j), v.gold_leftmost(j)
        return v.first((((i != 0) & (v.gold_head(i) == j), LA),
                        (head_j == i, RA),
                        ((not self.allow_reduce) & (v.head(i) == -1), SH),
                        ((-1 < leftmost_j) & (leftmost_j < i), RE),
                        ((head_j < i) & ((head_j != 0) | self.allow_root), RE)), SH)  # fmt: skip

    def costs(self, c: NivreConfiguration, gold: Gold) -> dict[str, int]:
        """The dynamic oracle's cost of each allowed transition (Goldberg & Nivre 2012, "A Dynamic
        Oracle for Arc-Eager Dependency Parsing", §3 and Fig. 2; 2013, §4): the gold arcs it makes
        unreachable, so that a transition of cost 0 keeps the best tree still reachable. Arc-eager
        is arc-decomposable for a projective gold tree (their Theorem 1): a gold arc is reachable
        unless one of its words has a head other than its gold one, or left the stack without
        its dependent's arc, or both sit on the stack (two stack words are never joined). Here the
        root stays on the stack and the buffer's end is the parse's (MaltParser's), so a word whose
        gold head is the root keeps its arc while it has no head: the end attaches it there. A
        gold-headed arc's label is its gold one (``models.explore.best_of_cost_zero`` asks it of an
        arc to the word's gold head; the costs here are of the arcs' heads)."""
        v = _One(c, gold)
        i, j = v.top, v.front
        heads, g = c.arcs.heads, gold.heads
        on_stack = set(c.stack)

        def in_buffer(k):  # the buffer is the words from the front on
            return k >= j > 0

        def lost_right(k):  # k's gold dependents in the buffer, which it leaves the stack without
            return sum(1 for d in gold.arcs.right[k] if in_buffer(d))

        def lost_left(k):  # k's gold dependents left on the stack without a head, which k passes
            return sum(1 for d in gold.arcs.left[k] if d in on_stack and heads[d] == -1)

        def reachable(k):  # k has no head yet: can it still take its gold one?
            h = g[k]
            return h == 0 or in_buffer(h) or (h in on_stack and in_buffer(k))

        costs = {}
        for name in self.allowed(c):
            if name == LA:
                cost = lost_right(i) + (g[i] != j and reachable(i))
            elif name == RA:
                cost = lost_left(j) + (g[j] != i and reachable(j))
            elif name == RE:
                cost = lost_right(i) + (heads[i] == -1 and g[i] != 0 and reachable(i))
            else:
                cost = lost_left(j) + (g[j] != 0 and g[j] in on_stack)
            costs[name] = cost
        return costs


class NivreStandard(_Nivre):
    """Arc-standard (Nivre 2008, §4.1, Fig. 3), with MaltParser's RIGHT-ARC that keeps the
    root on the stack:

    LEFT-ARC_l   (σ|i, j|β) ⇒ (σ, j|β),   A ∪ {(j, l, i)}   i ≠ 0
    RIGHT-ARC_l  (σ|i, j|β) ⇒ (σ, i|β),   A ∪ {(i, l, j)}   (i = 0: (σ|0, β))
    SHIFT        (σ, j|β)   ⇒ (σ|j, β)
    """

    name = "nivrestandard"
    transitions = (SH, RA, LA)
    first_class = SH
    feature_model = "nivrestandard"
    maltparser_class = "nivre.NivreArcStandardFactory"
    trial_rank = 1
    options = (("nivre", "allow_root"),)
    effects = STANDARD

    def __init__(self, allow_root: bool = True, one_root: bool = False) -> None:
        super().__init__(allow_root, one_root)
        self.one_root = one_root

    @classmethod
    def from_config(cls, config: Config, learning: bool = False, one_root: bool = False) -> NivreStandard:
        """-nr, and one_root while parsing only."""
        return cls(config.nivre.allow_root, one_root and not learning)

    def _preconditions(self, v) -> tuple:
        """Whether each of ``MOVES`` is allowed: LEFT-ARC for a top other than the root,
        RIGHT-ARC from the root with ``allow_root`` only (with one_root, when the buffer holds
        one word), SHIFT always, REDUCE never; and the end phase's (``_end_phase``)."""
        inner = v.top != 0
        shift, root_arc = self._end_phase(v, True, self.allow_root)
        if self.one_root:
            root_arc = root_arc & v.last
        return shift, False, inner | root_arc, inner

    def _oracle(self, v):
        """The arc-standard oracle on the top of the stack and the first of the buffer."""
        return arc_standard(v, v.top, v.front)

