"""The parse loop's choice of a transition: MaltParser's ranked choice (``DeterministicParser.predict``
over its ``SingleDecision``'s ranking), written once for both ways a model parses, a configuration at a
time (``parser.Model``) and a batch in arrays (``batch.BatchParser``, whose rows take it where the
classifier's best class is not allowed).

A classifier scores every class it knows, each a transition with its label. Its best class is
made when the configuration allows it and the classifier knows more than one class; otherwise the
classes are tried in MaltParser's ranking (``ranked``) and the first allowed is made, the
last-ranked class never tried; when none is allowed, the transition system's default move
(``TransitionSystem.default``). A configuration no classifier answers (a data split's value no
classifier was learned for) takes the model's first class if allowed, else the default move.
"""

from __future__ import annotations

from collections.abc import Container, Iterator, Sequence
from typing import Any

import numpy as np


def ranked_choice(transitions: Sequence[tuple[str, Any]], allowed: Container[str], row: np.ndarray | None = None,
                  best: int = 0) -> tuple[str, Any] | None:  # fmt: skip
    """The transition to make (one of ``transitions``: a name and its label, in the classifier's
    order), or None for the system's default move. ``allowed``: the names of the transitions
    the configuration allows; ``row``: the classifier's scores of ``transitions``, ``best`` its
    choice (the row's first maximum, where MaltParser's ranking starts; k-NN's choice settles ties
    its own way). Without a classifier (``row`` None), ``transitions[0]`` is the model's first class."""
    if row is None:
        first = transitions[0]
        return first if first[0] in allowed else None
    if len(transitions) > 1 and transitions[best][0] in allowed:
        return transitions[best]
    for transition in ranked(row, transitions):
        if transition[0] in allowed:
            return transition
    return None


def ranked(row: np.ndarray, transitions: Sequence[tuple]) -> Iterator[tuple]:
    """The transitions in MaltParser's ranking order: an in-place selection sort by score (not
    stable, ties to the earlier place), every class but the last-ranked one."""
    values = row.tolist()
    order = list(range(len(transitions)))
    for step in range(len(transitions) - 1):
        top = step
        for j in range(step + 1, len(transitions)):
            if values[j] > values[top]:
                top = j
        values[step], values[top] = values[top], values[step]
        order[step], order[top] = order[top], order[step]
        yield transitions[order[step]]
