"""The parsing algorithms: one transition system per MaltParser name, each with its oracle."""

from __future__ import annotations

from ..config import Config
from .base import SW, Gold, Transition, finish, run_oracle
from .covington import CovingtonNonProjective, CovingtonProjective
from .nivre import NivreEager, NivreStandard
from .planar import Planar, TwoPlanar
from .stack import StackEager, StackLazy, StackProjective

SYSTEMS = {
    "nivreeager": NivreEager,
    "nivrestandard": NivreStandard,
    "covproj": CovingtonProjective,
    "covnonproj": CovingtonNonProjective,
    "stackproj": StackProjective,
    "stackeager": StackEager,
    "stacklazy": StackLazy,
    "planar": Planar,
    "2planar": TwoPlanar,
}


def system_for(config: Config, learning: bool = False, one_root: bool = False):
    """The transition system the configuration names, with its options. Covington's bound on
    the degree of non-projectivity applies while parsing; in learning only with
    ``bound_in_training`` (Nivre 2007, §5: the parsers are trained on the arcs of the treebank,
    unbounded, and bounded at parse time; the d = 0 baseline is bounded in both). ``one_root``:
    the single-root constraint of Nivre's systems (see ``nivre``), for parsing; the other
    systems have none and take ``tree.single_root``'s final step alone."""
    name = config.singlemalt.parsing_algorithm
    if name == "nivreeager":  # enforce_tree while parsing only, as MaltParser's NivreFactory
        nivre = config.nivre
        parsing = not learning
        return NivreEager(nivre.allow_root, nivre.allow_reduce, nivre.enforce_tree and parsing, one_root and parsing)
    if name == "nivrestandard":
        return NivreStandard(config.nivre.allow_root, one_root and not learning)
    if name == "covnonproj":
        bounded = not learning or config.covington.bound_in_training
        return CovingtonNonProjective(
            config.covington.allow_root, config.covington.allow_shift, config.covington.max_degree if bounded else None
        )
    if name == "covproj":
        return CovingtonProjective(config.covington.allow_root, config.covington.allow_shift)
    if name in ("planar", "2planar"):
        p = config.planar
        shared = (config.multiplanar.planar_root_handling, p.acyclicity, p.no_covered_roots)
        if name == "planar":
            return Planar(*shared, p.connectedness)
        return TwoPlanar(*shared, config.twoplanar.reduceonswitch)
    return SYSTEMS[name]()


def rebuild(
    system, heads: list[int], labels: list[str], root_label: str
) -> tuple[list[Transition], list[int], list[str]]:
    """Run the system's oracle over a gold tree: the transitions and the tree they build."""
    transitions, c = run_oracle(system, Gold(heads, labels))
    return (transitions, *finish(c.arcs, root_label))


def count_swaps(transitions: list[Transition]) -> int:
    return sum(name == SW for name, _ in transitions)
