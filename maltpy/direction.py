"""Parsing direction: a model learned and used with each sentence read right to left.

Hall et al. (2007, "Single Malt or Blended?", the blended parser) learn each of arc-eager,
arc-standard and Covington's algorithm left-to-right and right-to-left, and blend the six.

Here a right-to-left parser is the same parser run over the reversed sentence, word i of n taken
as word n + 1 - i: the transition system, its oracle, the features and the classifiers see only
the reversed sentence (``reversed_sentence``), and the tree they build is mirrored back
(``mirrored``) before anything else sees it: deprojectivization, the single-root rule, the
output. Projectivity, planarity and 2-planarity do not change under the mirror, so a system
rebuilds the same trees either way.
"""

from __future__ import annotations

from .conll import HEAD, ID, Sentence

LEFT_TO_RIGHT = "left-to-right"
RIGHT_TO_LEFT = "right-to-left"
#: singlemalt.parsing_direction's values, the default first
DIRECTIONS = (LEFT_TO_RIGHT, RIGHT_TO_LEFT)


def mirrored(heads: list[int], labels: list[str]) -> tuple[list[int], list[str]]:
    """The tree with word i of n as word n + 1 - i (index 0 the root's place, the root 0 staying
    0); its own inverse, so it both reverses a gold tree and maps a parse back."""
    n = len(heads) - 1
    return ([heads[0]] + [h if h == 0 else n + 1 - h for h in reversed(heads[1:])],
            [labels[0]] + labels[:0:-1])  # fmt: skip


def reversed_sentence(sentence: Sentence) -> Sentence:
    """The sentence as a right-to-left parser reads it: its words in reverse order, their ID and
    HEAD renumbered as ``mirrored`` does (a HEAD that is no word number, as ``_``, kept), every
    other column as it was. Its first line is the sentence's; its comments, multiword tokens and
    empty nodes, which the parser never reads, are left out, so it is no sentence to write or to
    name a word's line with (``Sentence.word_line``): those stay the original's."""
    n = len(sentence.words)
    words = []
    for number, word in enumerate(reversed(sentence.words), 1):
        word = list(word)
        word[ID] = str(number)
        head = word[HEAD]
        if head.isascii() and head.isdigit() and 0 < int(head) <= n:
            word[HEAD] = str(n + 1 - int(head))
        words.append(word)
    return Sentence(words, sentence.format, sentence.line)
