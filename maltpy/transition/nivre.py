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
"""

from __future__ import annotations

from dataclasses import dataclass

from .base import LA, RA, RE, SH, Arcs, Config, Gold, Transition, TransitionSystem, arc_standard_oracle


@dataclass(slots=True)
class NivreConfiguration:
    """σ as a list with its top last; β as a list with its first node last."""

    stack: list[int]
    buffer: list[int]
    arcs: Arcs
    end: bool = False  # the end phase: the buffer has been emptied


USH = "USH"  # the end phase's UNSHIFT, MaltParser's name; never a class (always deterministic)


class _Nivre(TransitionSystem):
    """What the two systems share: the start, the end phase, root handling and the default move."""

    family = "nivre"
    projective = True
    base_addresses = ("Stack", "Input")
    focus = ("Stack[0]", "Input[0]")
    context = ("Stack[1]", "Input[1]", "Input[2]", "Stack[2]", "Input[3]")
    further = ("Input[4]", "Stack[3]")
    root_options: tuple[tuple[str, dict[str, dict]], ...] = (("-nr false", {"nivre": {"allow_root": False}}),)

    def __init__(self, allow_root: bool = True, end_phase: bool = False) -> None:
        self.allow_root = allow_root
        #: enforce_tree's or one_root's end phase: once the buffer has been emptied, SHIFT is no
        #: longer allowed, and with the buffer empty a top with a head is reduced and one
        #: without (in arc-standard, every one) is UNSHIFTed; terminal: the root alone is left
        self.end_phase = end_phase

    def initial(self, n: int) -> NivreConfiguration:
        return NivreConfiguration([0], list(range(n, 0, -1)), Arcs.empty(n))

    def is_terminal(self, c: NivreConfiguration) -> bool:
        return not c.buffer and (not self.end_phase or len(c.stack) == 1)

    def deterministic(self, c: NivreConfiguration) -> str | None:
        if not self.allow_root and c.stack[-1] == 0 and not c.end:
            return SH
        if self.end_phase and not c.buffer:
            return RE if c.arcs.heads[c.stack[-1]] != -1 else USH
        return None

    def apply(self, c: NivreConfiguration, name: str, label: str | None = None) -> None:
        if name == USH and self.end_phase:
            c.buffer.append(c.stack.pop())
            return
        self._move(c, name, label)
        if self.end_phase and not c.buffer and name in (SH, RA):
            c.end = True

    def default(self, c: NivreConfiguration, root_label: str) -> Transition:
        """MaltParser's move when no ranked transition is allowed: SHIFT; in the end phase, where
        SHIFT is not allowed, RIGHT-ARC with the root label (always allowed there: the stack
        systems' default at the end). MaltParser 1.9.2 shifts there too, which UNSHIFT undoes,
        forever: a model whose classes are all ruled out (no RIGHT-ARC class, or a data split
        value without a classifier) hangs it."""
        return (RA, root_label) if c.end else (SH, None)


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

    def allowed(self, c: NivreConfiguration) -> list[str]:
        top = c.stack[-1]
        rooted = self.one_root and bool(c.arcs.right[0])  # the root has its one dependent
        if top == 0:
            moves = [SH, RA] if (self.allow_root or c.end) and not rooted else [SH]
        else:
            moves = [SH, RA]
            if c.arcs.heads[top] == -1:
                moves.append(LA)
            if (c.arcs.heads[top] != -1 or self.allow_reduce) and not (rooted and c.stack[-2] == 0 and c.buffer):
                moves.append(RE)
        return moves[1:] if c.end else moves

    def _move(self, c: NivreConfiguration, name: str, label: str | None) -> None:
        if name == SH:
            c.stack.append(c.buffer.pop())
        elif name == RA:
            j = c.buffer.pop()
            c.arcs.add(c.stack[-1], j, label)
            c.stack.append(j)
        elif name == LA:
            c.arcs.add(c.buffer[-1], c.stack.pop(), label)
        elif name == RE:
            c.stack.pop()
        else:
            raise ValueError(f"{self.name} has no transition {name}")

    def oracle(self, c: NivreConfiguration, gold: Gold) -> Transition:
        """LEFT-ARC or RIGHT-ARC for a gold arc between i and j; REDUCE once i has no gold arc
        left with j or any word after it (some word k < i is j's head or left dependent);
        SHIFT otherwise, and always for a headless i unless allow_reduce (MaltParser's order)."""
        i, j = c.stack[-1], c.buffer[-1]
        if i != 0 and gold.heads[i] == j:
            return LA, gold.labels[i]
        if gold.heads[j] == i:
            return RA, gold.labels[j]
        if not self.allow_reduce and c.arcs.heads[i] == -1:
            return SH, None
        if -1 < gold.arcs.leftmost(j) < i:
            return RE, None
        if gold.heads[j] < i and (gold.heads[j] != 0 or self.allow_root):
            return RE, None
        return SH, None


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

    def __init__(self, allow_root: bool = True, one_root: bool = False) -> None:
        super().__init__(allow_root, one_root)
        self.one_root = one_root

    @classmethod
    def from_config(cls, config: Config, learning: bool = False, one_root: bool = False) -> NivreStandard:
        """-nr, and one_root while parsing only."""
        return cls(config.nivre.allow_root, one_root and not learning)

    def allowed(self, c: NivreConfiguration) -> list[str]:
        if c.stack[-1] == 0:
            root_arc = (self.allow_root or c.end) and (not self.one_root or len(c.buffer) == 1)
            moves = [SH, RA] if root_arc else [SH]
        else:
            moves = [SH, RA, LA]
        return moves[1:] if c.end else moves

    def _move(self, c: NivreConfiguration, name: str, label: str | None) -> None:
        if name == SH:
            c.stack.append(c.buffer.pop())
        elif name == RA:
            c.arcs.add(c.stack[-1], c.buffer.pop(), label)
            if c.stack[-1] != 0:
                c.buffer.append(c.stack.pop())
        elif name == LA:
            c.arcs.add(c.buffer[-1], c.stack.pop(), label)
        else:
            raise ValueError(f"{self.name} has no transition {name}")

    def oracle(self, c: NivreConfiguration, gold: Gold) -> Transition:
        """The arc-standard oracle on the top of the stack and the first of the buffer."""
        return arc_standard_oracle(c.stack[-1], c.buffer[-1], gold, c.arcs)
