"""The combination of the members' trees of a sentence into one tree (``combine``), and
``maltpy combine``'s of parsed files (``combine_files``).

Each member parses the sentence on its own. Every arc h -> d that a member proposes gets a vote
worth that member's weight for d's tag; the combined tree is the maximum spanning tree over the
votes (``decode.spanning_tree``: Chu-Liu-Edmonds, or Eisner's algorithm for a projective tree),
with one word on the root where the single-root rule applies. Each word takes the label with the
most weight among the members that proposed its chosen arc (ties: the label of the member listed
first); an arc no member proposed, which the tree may need, takes the weighted vote of all the
members' labels of that word, or, on the root, of the labels the members gave their root words.
With learned weights, a label scorer chooses among the labels instead (weights.py), but on an arc
to the root that no member proposed.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from ..data.conll import CPOSTAG, FEATS, Sentence
from ..decode import spanning_tree
from ..errors import MaltpyError
from ..models.base import one_root_for
from .features import Tree
from .weights import Weights


def combine(trees: Sequence[Tree], tags: Sequence[str], weights: Weights, projective: bool, one_root: bool,
            feats: Sequence[str] | None = None) -> Tree:  # fmt: skip
    """The tree the members' ``trees`` of one sentence vote for, and its labels (see the module's
    docstring); ``tags[d - 1]`` is word d's coarse tag, ``feats[d - 1]`` its FEATS (for the
    learned scorer; none given: "_" for every word)."""
    n = len(tags)
    votes = weights.votes(tags)
    scores = weights.arc_scores(trees, tags, votes, feats)
    best = spanning_tree(scores, projective=projective, one_root=one_root).tolist()
    labels = [""]
    labeler = weights.labeler
    for d in range(1, n + 1):
        if labeler is not None and (best[d] != 0 or any(heads[d] == 0 for heads, _ in trees)):
            labels.append(labeler.choose(trees, best[d], d, tags, feats))
            continue
        tally: dict[str, float] = {}
        for m, (member_heads, member_labels) in enumerate(trees):
            if member_heads[d] == best[d]:
                tally[member_labels[d]] = tally.get(member_labels[d], 0.0) + votes[m, d - 1]
        if not tally:  # an arc no member proposed
            for m, (member_heads, member_labels) in enumerate(trees):
                if best[d] == 0:
                    for r in range(1, n + 1):
                        if member_heads[r] == 0:
                            tally[member_labels[r]] = tally.get(member_labels[r], 0.0) + votes[m, r - 1]
                else:
                    tally[member_labels[d]] = tally.get(member_labels[d], 0.0) + votes[m, d - 1]
        labels.append(max(tally, key=tally.__getitem__))  # the first of the best: the earliest member's
    return best, labels


# --- combining parses made before (maltpy combine) -------------------------------------------------


def aligned(readers: Sequence) -> Iterator[list[Sentence]]:
    """The sentences of the parsed files ``readers`` (ConllReaders), one of each at a time; a
    MaltpyError where one holds other words than the first, or ends before it, or is unparsed."""
    from itertools import zip_longest

    from ..evaluation.scores import misalignment

    first_name = readers[0].name
    for number, row in enumerate(zip_longest(*readers), 1):
        for sentence, reader in zip(row[1:], readers[1:]):
            problem = misalignment(number, row[0], sentence, first_name, reader.name)
            if problem:
                raise problem
        if row[0].heads is None:  # one file alone
            raise MaltpyError("sentence is not parsed (HEAD is _)", first_name, row[0].line)
        yield list(row)


def combine_files(readers: Sequence, weights: Weights, projective: bool, single_root: str, out) -> None:
    """Write to ``out`` each sentence of the first of ``readers`` with the tree the files' parses
    of it vote for (``combine``); one word on the root if ``single_root`` is true, or auto and
    the sentence is CoNLL-U."""
    from ..data.conll import format_sentence

    if len(weights) != len(readers):
        raise ValueError("one weight per file")
    for row in aligned(readers):
        first = row[0]
        one_root = one_root_for(single_root, first.format)
        heads, labels = combine([(s.heads, s.labels) for s in row], first.column(CPOSTAG), weights, projective,
                                one_root, first.column(FEATS))  # fmt: skip
        first.set_arcs(heads, labels)
        out.write(format_sentence(first).encode("utf-8"))
