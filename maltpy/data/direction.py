"""Parsing direction: a model learned and used with each sentence read right to left.

Hall et al. (2007, "Single Malt or Blended?", the blended parser) learn each of arc-eager,
arc-standard and Covington's algorithm left-to-right and right-to-left, and blend the six.

Here a right-to-left parser is the same parser run over the reversed sentence, word i of n taken
as word n + 1 - i: the transition system, its oracle, the features and the classifiers see only
the reversed sentence (``reversed_sentence``), and the tree they build is mirrored back
(``mirrored``) before anything else sees it: deprojectivization, the single-root rule, the
output. Projectivity, planarity and 2-planarity do not change under the mirror, so a system
rebuilds the same trees either way.

Where the root stands (``singlemalt.root_position``) is a second choice: at the sentence's start,
before word 1, as in MaltParser, or at its end, after word n. A parser reads the words in its
direction and meets the root first or last. Left to right with the root at the start (MaltParser's
parser) and right to left with the root at the end meet it first: the root is node 0, at the
bottom of the stack, as the transition systems define it. The other two meet it last: a word that
stands for the root (``ROOT_WORD`` from FORM to FEATS) is read after the last
word, heads the root's words and is node 0's one dependent (``Reading``). Right to left with the
root at the start, the default, thus keeps the sentence's geometry: each arc, the root's too,
spans as many words as it does left to right, where a root read first would stand beside the
sentence's last word, far from the words it heads in most sentences. It parses better (the README
has the figures: 0.2 to 1.9 LAS on en_lines, da_ddt and la_perseus). Ballesteros & Nivre (2013,
"Going to the Roots of Dependency Parsing", Computational Linguistics 39(1)) study the root at the
end for left-to-right parsing.
"""

from __future__ import annotations

import dataclasses

from .conll import DEPREL, HEAD, ID, PHEAD, Sentence

LEFT_TO_RIGHT = "left-to-right"
RIGHT_TO_LEFT = "right-to-left"
#: singlemalt.parsing_direction's values, the default first
DIRECTIONS = (LEFT_TO_RIGHT, RIGHT_TO_LEFT)
START, END = "start", "end"
#: singlemalt.root_position's values, the default (MaltParser's place for the root) first
ROOT_POSITIONS = (START, END)
#: the columns FORM to FEATS of the word that stands for a root read last (PHEAD and PDEPREL, or
#: DEPS and MISC, are _)
ROOT_WORD = "#ROOT#"


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


@dataclasses.dataclass(frozen=True)
class Reading:
    """How a parser reads a sentence: ``backward`` (right to left) and ``root_last`` (a word that
    stands for the root read after the last word, see the module's docstring). ``sentence`` and
    ``tree`` give what the transitions, oracle and features see, ``back`` maps a tree they build
    back to the sentence; with neither, all three are the identity."""

    backward: bool = False
    root_last: bool = False

    @classmethod
    def of(cls, direction: str, root_position: str) -> Reading:
        """How a parser reads with the settings singlemalt.parsing_direction and .root_position."""
        backward = direction == RIGHT_TO_LEFT
        return cls(backward, backward == (root_position == START))

    def sentence(self, sentence: Sentence, root_label: str) -> Sentence:
        """The sentence in reading order (``reversed_sentence`` if backward) and, if root_last,
        with the word that stands for the root after the last, headed by the root with
        ``root_label`` and heading the words whose HEAD is 0 (as ``tree`` maps the tree)."""
        read = reversed_sentence(sentence) if self.backward else sentence
        if not self.root_last:
            return read
        last = str(len(sentence) + 1)
        words = [[*w[:HEAD], last, *w[HEAD + 1 :]] if w[HEAD] == "0" else w for w in read.words]
        root = [ROOT_WORD] * PHEAD + ["_", "_"]
        root[ID], root[HEAD], root[DEPREL] = last, "0", root_label
        return Sentence([*words, root], read.format, read.line)

    def tree(self, heads: list[int], labels: list[str], root_label: str) -> tuple[list[int], list[str]]:
        """A tree of the sentence (heads indexed from 1, 0 the root) as it is read: mirrored if
        backward; with root_last, the root's words headed by the word after the last, n + 1,
        which the root heads with ``root_label``."""
        if self.backward:
            heads, labels = mirrored(heads, labels)
        if self.root_last:
            n = len(heads) - 1
            heads = [heads[0]] + [n + 1 if h == 0 else h for h in heads[1:]] + [0]
            labels = [*labels, root_label]
        return heads, labels

    def back(self, heads: list[int], labels: list[str]) -> tuple[list[int], list[str]]:
        """A tree built over the sentence as read, in the sentence's order: with root_last, the
        root's word dropped and its dependents the root's (as any word the root heads itself);
        mirrored back if backward."""
        if self.root_last:
            n = len(heads) - 2
            heads = [heads[0]] + [0 if h == n + 1 else h for h in heads[1 : n + 1]]
            labels = labels[: n + 1]
        return mirrored(heads, labels) if self.backward else (heads, labels)
