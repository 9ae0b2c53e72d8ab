"""The stack-based systems of Nivre (2009): the projective system Sp and Su = Sp + SWAP,
with the eager oracle of Nivre (2009), Fig. 4, and the lazy oracle of Nivre, Kuhlmann and
Hall (2009), as MaltParser implements them (stackproj, stackeager, stacklazy).

Configurations (σ, β, A) start as ([0], [1..n], ∅) and end as ([0], [], A) (Nivre 2009,
§2): arcs join the two top nodes of the stack, so every word ends with a head.

    LEFT-ARC_l   ([σ|i, j], B) ⇒ ([σ|j], B),  A ∪ {(j, l, i)}   i ≠ 0
    RIGHT-ARC_l  ([σ|i, j], B) ⇒ ([σ|i], B),  A ∪ {(i, l, j)}
    SHIFT        (σ, [i|B])    ⇒ ([σ|i], B)
    SWAP         ([σ|i, j], B) ⇒ ([σ|j], [i|B])                0 < i < j

MaltParser counts the words SWAP has put back at the front of the buffer (``lookahead``):
its feature address Input[k] names those, Lookahead[k] the buffer after them.
"""

from __future__ import annotations

from dataclasses import dataclass

from .base import LA, RA, SH, SW, Arcs, Gold, Transition, TransitionSystem, arc_standard_oracle


@dataclass(slots=True)
class StackConfiguration:
    """σ with its top last; β with its first node last; ``swapped``: MaltParser's lookahead."""

    stack: list[int]
    buffer: list[int]
    arcs: Arcs
    swapped: int = 0


class StackProjective(TransitionSystem):
    """Sp (Nivre 2009, §3.1), with the arc-standard oracle, as MaltParser's stackproj. On a tree
    Sp cannot build, the oracle may SHIFT with an empty buffer: as in MaltParser, that pops j,
    which ends without a head (and goes to the root after parsing)."""

    name = "stackproj"
    family = "stack"
    transitions = (SH, RA, LA)
    first_class = SH
    feature_model = "stackproj"
    projective = True
    maltparser_class = "stack.StackProjFactory"
    trial_rank = 2
    base_addresses = ("Stack", "Input", "Lookahead")
    buffer_input = False
    focus = ("Stack[0]", "Stack[1]")
    context = ("Lookahead[0]", "Stack[2]", "Lookahead[1]", "Input[0]", "Lookahead[2]")
    further = ("Lookahead[3]", "Stack[3]")
    split_address = "Lookahead[0]"

    def initial(self, n: int) -> StackConfiguration:
        return StackConfiguration([0], list(range(n, 0, -1)), Arcs.empty(n))

    def is_terminal(self, c: StackConfiguration) -> bool:
        return not c.buffer and len(c.stack) == 1

    def deterministic(self, c: StackConfiguration) -> str | None:
        return None

    def default(self, c: StackConfiguration, root_label: str) -> Transition:
        """MaltParser's move when no ranked transition is allowed: attach to the root label at
        the end of the buffer, shift before."""
        return (SH, None) if c.buffer else (RA, root_label)

    def allowed(self, c: StackConfiguration) -> list[str]:
        moves = [SH] if c.buffer else []
        if len(c.stack) >= 2:
            moves.append(RA)
            if c.stack[-2] != 0:
                moves.append(LA)
        return moves

    def apply(self, c: StackConfiguration, name: str, label: str | None = None) -> None:
        stack = c.stack
        if name == SH:
            if c.buffer:
                stack.append(c.buffer.pop())
                if c.swapped:
                    c.swapped -= 1
            else:
                stack.pop()  # only the oracle, on a tree the system cannot build
        elif name == LA:
            j = stack.pop()
            c.arcs.add(j, stack.pop(), label)
            stack.append(j)
        elif name == RA:
            j = stack.pop()
            c.arcs.add(stack[-1], j, label)
        else:
            raise ValueError(f"{self.name} has no transition {name}")

    def oracle(self, c: StackConfiguration, gold: Gold) -> Transition:
        """The arc-standard oracle on the two top nodes of the stack (SHIFT while there are fewer)."""
        if len(c.stack) < 2:
            return SH, None
        return arc_standard_oracle(c.stack[-2], c.stack[-1], gold, c.arcs)


class StackEager(StackProjective):
    """Su with the oracle of Nivre (2009), Fig. 4: SWAP as soon as the two top nodes are out
    of projective order (j <_G i); LEFT-ARC or RIGHT-ARC when the two are joined by a gold arc
    whose dependent has all its dependents; SHIFT otherwise."""

    name = "stackeager"
    transitions = (SH, SW, RA, LA)
    feature_model = "stackswap"
    projective = False
    maltparser_class = "stack.StackSwapEagerFactory"
    trial_rank = 5

    def allowed(self, c: StackConfiguration) -> list[str]:
        moves = super().allowed(c)
        if len(c.stack) >= 2 and 0 < c.stack[-2] < c.stack[-1]:
            moves.append(SW)
        return moves

    def apply(self, c: StackConfiguration, name: str, label: str | None = None) -> None:
        if name != SW:
            super().apply(c, name, label)
            return
        j = c.stack.pop()
        c.buffer.append(c.stack.pop())
        c.stack.append(j)
        c.swapped += 1

    def oracle(self, c: StackConfiguration, gold: Gold) -> Transition:
        if len(c.stack) < 2:
            return SH, None
        i, j = c.stack[-2], c.stack[-1]
        order = gold.projective_order()
        if order[i] > order[j] and self._swap_now(c, gold):
            return SW, None
        if i != 0 and gold.heads[i] == j and gold.complete(c.arcs, i):
            return LA, gold.labels[i]
        if gold.heads[j] == i and gold.complete(c.arcs, j):
            return RA, gold.labels[j]
        return SH, None

    def _swap_now(self, c: StackConfiguration, gold: Gold) -> bool:
        return True


class StackLazy(StackEager):
    """Su with the lazy oracle of Nivre, Kuhlmann and Hall (2009): SWAP only when the nodes
    out of projective order must be swapped now, delaying it while the stack top can still
    be completed with the nodes that follow it in the buffer (they are one maximal projective
    component). The test is MaltParser's (``_swap_now``)."""

    name = "stacklazy"
    maltparser_class = "stack.StackSwapLazyFactory"
    trial_rank = 4

    def _swap_now(self, c: StackConfiguration, gold: Gold) -> bool:
        """False while the stack top j and the buffer's first nodes b1, b2 ... form, one after
        the other, contiguous stretches of the projective order (apart from the subtrees built
        under them), up to the point where j gets its gold head among them with its left
        dependents complete, or a gold dependent of j among them ends its subtree there."""
        j = c.stack[-1]
        buffer = c.buffer
        if not buffer:
            return True
        left, k = j, len(buffer) - 1
        right = buffer[k]
        stop = -1
        while self._adjacent(c, gold, left, right):
            if right == stop:
                return False
            if gold.heads[j] == right:
                return gold.arcs.leftmost(j) != c.arcs.leftmost(j)
            if gold.heads[right] == j:
                if not gold.arcs.right[right]:
                    return False
                stop = gold.rightmost_descendant(right)
            if k == 0:
                break
            left, k = right, k - 1
            right = buffer[k]
        return True

    @staticmethod
    def _adjacent(c: StackConfiguration, gold: Gold, left: int, right: int) -> bool:
        """Does ``left`` come before ``right`` in projective order with nothing between them but
        nodes of the partial trees under the two?"""
        order = gold.projective_order()
        lo, hi = order[left], order[right]
        if lo > hi:
            return False
        by_order = gold.nodes_in_projective_order()
        heads = c.arcs.heads
        for position in range(lo + 1, hi):
            node = by_order[position]
            while heads[node] != -1:
                node = heads[node]
            if node != left and node != right:
                return False
        return True
