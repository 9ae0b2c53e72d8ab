"""What a transition system's static oracle rebuilds of a treebank (``maltpy oracle``).

The oracle is replayed over each gold tree as learning replays it (``transition.base.replay_oracle``;
with pseudo-projective parsing, over the projectivized tree, Nivre & Nilsson 2005), and the
tree it builds is compared with the gold tree. A projective system rebuilds what it can of a
non-projective tree; the planar systems rebuild the planar and 2-planar trees (Gómez-Rodríguez
& Nivre 2010), which are counted beside. The oracle replays the tree as the parser reads it, mirrored
right to left, with a word for the root if it reads the root last, and the tree it builds is mapped
back (``direction.Reading``), as in learning.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable

from ..config import Config
from ..data.conll import Sentence
from ..data.direction import Reading
from ..data.pseudoproj import deprojectivize, projectivize
from ..data.tree import is_projective
from ..errors import MaltpyError
from . import SYSTEMS, system_for
from .base import Gold, count_oracle, finish

#: The systems named after a class of trees, which the statistics count (``TransitionSystem.planar``).
NAMED_CLASSES = [system for system in SYSTEMS.values() if system.planar]


def oracle_statistics(config: Config, sentences: Iterable[Sentence], name: str,
                      rebuilt_tree: Callable[[Sentence], None] | None = None) -> dict:  # fmt: skip
    """Sentences, tokens, non-projective, planar and 2-planar sentences (the root's arcs counted),
    sentences rebuilt exactly (heads and labels; with pseudo-projective parsing, once
    deprojectivized), transitions, transitions per token and swaps of the oracle of ``config``'s
    system over the gold trees in ``sentences`` (read from ``name``). ``rebuilt_tree`` is given
    each sentence with the rebuilt tree set as its arcs."""
    if config.nivre.enforce_tree:  # a parsing option (MaltParser's too): the oracle replays learning
        config = dataclasses.replace(config, nivre=dataclasses.replace(config.nivre, enforce_tree=False))
    system = system_for(config)  # bounded by -cd: what the bounded system can build
    pproj = config.pproj
    reading = Reading.of(config.singlemalt.parsing_direction, config.singlemalt.root_position)
    root_label = config.graph.root_label
    stats = {
        "algorithm": system.name,
        "parsing_direction": config.singlemalt.parsing_direction,
        "root_position": config.singlemalt.root_position,
        "sentences": 0,
        "tokens": 0,
        "nonprojective": 0,
        **{named.name: 0 for named in NAMED_CLASSES},
        **({"lifted_sentences": 0, "lifted_arcs": 0} if pproj.active else {}),
        "rebuilt": 0,
        **({f"rebuilt_{system.name}": 0} if system.planar else {}),
        "transitions": 0,
        "swaps": 0,
    }
    for sentence in sentences:
        heads = sentence.heads
        if heads is None:
            raise MaltpyError("the oracle needs gold trees, but HEAD is _", name, sentence.line)
        labels = sentence.labels
        taught_heads, taught_labels = heads, labels  # what the oracle is shown, as in learning
        if pproj.active:
            lifted = projectivize(heads, labels, pproj)
            stats["lifted_sentences"] += lifted.lifted > 0
            stats["lifted_arcs"] += lifted.lifted
            taught_heads, taught_labels = lifted.heads, lifted.labels
        taught_heads, taught_labels = reading.tree(taught_heads, taught_labels, root_label)
        transitions, swaps, c = count_oracle(system, Gold(taught_heads, taught_labels))
        rebuilt_heads, rebuilt_labels = finish(c.arcs, root_label)
        rebuilt_heads, rebuilt_labels = reading.back(rebuilt_heads, rebuilt_labels)
        if pproj.active:
            rebuilt_heads, rebuilt_labels = deprojectivize(rebuilt_heads, rebuilt_labels, pproj)
        stats["sentences"] += 1
        stats["tokens"] += len(sentence)
        stats["nonprojective"] += not is_projective(heads)
        rebuilt = rebuilt_heads == heads and rebuilt_labels[1:] == labels[1:]
        for named in NAMED_CLASSES:
            member = named.in_tree_class(heads)
            stats[named.name] += member
            if named.name == system.name:
                stats[f"rebuilt_{named.name}"] += member and rebuilt
        stats["rebuilt"] += rebuilt
        stats["transitions"] += transitions
        stats["swaps"] += swaps
        if rebuilt_tree is not None:
            sentence.set_arcs(rebuilt_heads, rebuilt_labels)
            rebuilt_tree(sentence)
    stats["transitions_per_token"] = round(stats["transitions"] / stats["tokens"], 3) if stats["tokens"] else None
    return stats


def oracle_table(stats: dict) -> str:
    """The statistics of ``oracle_statistics`` as the table ``maltpy oracle`` prints."""

    def share(key: str) -> str:
        return f"  ({100 * stats[key] / stats['sentences']:.2f}%)" if stats["sentences"] else ""

    return (
        f"algorithm              {stats['algorithm']}\n"
        f"direction              {stats['parsing_direction']}\n"
        f"root                   {stats['root_position']}\n"
        f"sentences              {stats['sentences']}\n"
        f"tokens                 {stats['tokens']}\n"
        f"non-projective         {stats['nonprojective']}{share('nonprojective')}\n"
        + "".join(f"{named.tree_class:<23}{stats[named.name]}{share(named.name)}\n" for named in NAMED_CLASSES)
        + (
            f"lifted                 {stats['lifted_sentences']}{share('lifted_sentences')}, "
            f"{stats['lifted_arcs']} arcs\n"
            if "lifted_arcs" in stats
            else ""
        )
        + f"rebuilt exactly        {stats['rebuilt']}{share('rebuilt')}\n"
        + (
            f"rebuilt, {name:<14}{stats[f'rebuilt_{name}']} of {stats[name]}\n"
            if SYSTEMS[name := stats["algorithm"]].planar
            else ""
        )
        + f"transitions            {stats['transitions']}\n"
        f"transitions per token  {stats['transitions_per_token']}\n"
        f"swaps                  {stats['swaps']}"
    )
