"""The parsing algorithms: one transition system per MaltParser name, each with its oracle.

``SYSTEMS`` is the one list of them: each class carries its own facts (``base.TransitionSystem``)
and reads its own options (``from_config``). A new algorithm is a module with its class, and a
line here.
"""

from __future__ import annotations

from .base import SW, Config, Gold, Transition, TransitionSystem, finish, run_oracle
from .covington import CovingtonNonProjective, CovingtonProjective
from .nivre import NivreEager, NivreStandard
from .planar import Planar, TwoPlanar
from .stack import StackEager, StackLazy, StackProjective

#: Each algorithm by its MaltParser name, in the order of MaltParser's user guide.
SYSTEMS: dict[str, type[TransitionSystem]] = {
    system.name: system
    for system in (
        NivreEager, NivreStandard, CovingtonProjective, CovingtonNonProjective,
        StackProjective, StackEager, StackLazy, Planar, TwoPlanar,
    )
}  # fmt: skip


def system_for(config: Config, learning: bool = False, one_root: bool = False) -> TransitionSystem:
    """The transition system the configuration names, with its options, for learning or for
    parsing, with the single-root constraint if ``one_root`` (see ``TransitionSystem.from_config``)."""
    return SYSTEMS[config.singlemalt.parsing_algorithm].from_config(config, learning, one_root)


def rebuild(
    system, heads: list[int], labels: list[str], root_label: str
) -> tuple[list[Transition], list[int], list[str]]:
    """Run the system's oracle over a gold tree: the transitions and the tree they build."""
    transitions, c = run_oracle(system, Gold(heads, labels))
    return (transitions, *finish(c.arcs, root_label))


def count_swaps(transitions: list[Transition]) -> int:
    return sum(name == SW for name, _ in transitions)
