"""What the training treebank's input columns held, so that parsing can tell input that does not
look like it: the tag column that carries the model's tags, and values training never saw.

A model knows the values of the columns its features read (FORM, LEMMA, CPOSTAG/UPOS,
POSTAG/XPOS, FEATS, ...) only as its training treebank wrote them. Two ways of being given
other values are common, and neither is an error of the input's form, so the CoNLL reader cannot
catch them:

- **The tags in the other tag column.** CoNLL-X files made from Universal Dependencies often
  hold UPOS in both CPOSTAG and POSTAG (``../shared/data/conllx`` is made so); a model learned
  from one reads POSTAG, whose CoNLL-U alias XPOS holds the treebank's own tags (en_lines:
  ``PERS-P2``, ``SG-NOM``), never seen in training: nearly every feature is unknown and the parse
  is nonsense. The reverse happens to a model learned where both columns held the fine tags. So
  a model whose training treebank held the same value in CPOSTAG and POSTAG in every word (it
  could not learn which column its tags belong to) reads, in each sentence whose two tag columns
  differ, the one whose values it knows better (fewer values it never saw; a tie keeps the
  columns as they are), as both columns: ``Vocabulary.view``. A model that learned two
  different tag columns reads each as it is.
- **Another tagset, language or tokenization.** A UPOS model given Penn Treebank tags (as
  ``nltk.pos_tag`` gives them) attaches every word to the final period. Parsing counts, in each
  column its features read, the words whose value training never saw (``Tally``); when that share
  is far above what held-out text of the training treebank shows, one warning names the column,
  the share and a few of the values (``Watch``).

What held-out text shows is estimated from the training treebank alone, as the Good-Turing
estimate of the probability of an unseen value (Good 1953; Gale & Sampson 1995): the share of
training words whose value occurs in training once. On the shared treebanks it is close to the
share measured on their test files (FORM: en_lines 7.6% against 9.2%, da_ddt 27.5% against
27.5%; tags 0.0% against at most 0.6%). A share is "far above" when it exceeds the estimate by
MARGIN plus three standard deviations of a sample of its size, over at least MIN_WORDS words. A
treebank of fewer than MIN_TRAINING_WORDS words (NLTK's demo learns from eight) says too little of
what held-out text holds: its model warns of nothing.
"""

from __future__ import annotations

import math
import sys
import warnings
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from ..errors import MaltpyWarning, cut, require
from .columns import COLUMNS, shown
from .conll import CPOSTAG, POSTAG, Sentence

#: Each input column's name in messages, CoNLL-U's first where the formats differ: the places a
#: feature reads as input, which hold neither word numbers in every format nor the parser's labels.
NAMES = {index: shown(index) for index in sorted({column.index for column in COLUMNS})
         if not all(c.integer or c.output for c in COLUMNS if c.index == index)}  # fmt: skip
MARGIN = 0.25  # how far above the held-out estimate a share of unseen values must be to warn ...
MIN_WORDS = 5  # ... over at least this many words
MIN_TRAINING_WORDS = 100  # a smaller treebank has no estimate
EXAMPLES = 5  # unseen values a warning quotes
MAX_VALUES = 10_000_000  # values of one column in a stored vocabulary (a treebank of 100M words has fewer)


@dataclass(slots=True)
class Column:
    """One input column as training saw it: its values and the held-out share of unseen values."""

    values: frozenset[str]
    unseen: float | None  # the Good-Turing estimate: the share of training words whose value occurs once


@dataclass(slots=True)
class Vocabulary:
    """The training treebank's values of the columns a model reads (see the module's note)."""

    columns: dict[int, Column]
    same_tags: bool  # every training word had the same value in CPOSTAG and POSTAG

    @property
    def _tags(self) -> frozenset[str] | None:
        """The tag values a sentence's two tag columns are judged by, if the model reads a tag
        column and training could not tell the two apart."""
        if not self.same_tags:
            return None
        column = self.columns.get(POSTAG) or self.columns.get(CPOSTAG)
        return None if column is None else column.values

    def view(self, sentence: Sentence) -> Sentence:
        """The sentence as the model reads it: itself, or, where training held the same tags in
        CPOSTAG and POSTAG and the sentence's differ, a copy whose two tag columns both hold the
        column with fewer values training never saw (a tie: the sentence itself)."""
        seen = self._tags
        words = sentence.words
        if seen is None or all(w[CPOSTAG] == w[POSTAG] for w in words):
            return sentence
        coarse = sum(w[CPOSTAG] not in seen for w in words)
        fine = sum(w[POSTAG] not in seen for w in words)
        if coarse == fine:
            return sentence
        keep = CPOSTAG if coarse < fine else POSTAG
        copied = [list(w) for w in words]
        for w in copied:
            w[CPOSTAG] = w[POSTAG] = w[keep]
        return Sentence(copied, sentence.format, sentence.line, sentence.extra)

    def tally(self, sentences: Iterable[Sentence]) -> Tally:
        """How many words of ``sentences`` (as the model reads them: ``view``) hold, in each column
        the model reads, a value training never saw, with a few of those values."""
        tally = Tally()
        for column, known in self.columns.items():
            values = [w[column] for s in sentences for w in s.words]
            unseen = [v for v in values if v not in known.values]
            tally.add(column, len(values), len(unseen), list(dict.fromkeys(unseen[: 50 * EXAMPLES]))[:EXAMPLES])
        return tally

    def expected(self) -> dict[int, float]:
        """Each column's held-out share of unseen values (what a Watch judges by)."""
        return {column: known.unseen for column, known in self.columns.items() if known.unseen is not None}

    def describe(self) -> dict:
        """What ``maltpy info`` shows: each column's number of values and held-out share of
        unseen ones, and whether the tag columns were the same."""
        return {
            "same_tags": self.same_tags,
            "columns": {NAMES[c]: {"values": len(known.values), "unseen": known.unseen}
                        for c, known in sorted(self.columns.items())},  # fmt: skip
        }

    def as_json(self) -> dict:
        return {
            "same_tags": self.same_tags,
            "columns": [
                {"column": c, "unseen": known.unseen, "values": sorted(known.values)}
                for c, known in sorted(self.columns.items())
            ],
        }

    @classmethod
    def from_json(cls, data: object) -> Vocabulary:
        """A vocabulary stored in a model archive; ValueError if it is not one."""
        require(isinstance(data, dict) and set(data) == {"same_tags", "columns"}, "a vocabulary that is not one")
        require(type(data["same_tags"]) is bool and isinstance(data["columns"], list), "a vocabulary that is not one")
        columns: dict[int, Column] = {}
        for entry in data["columns"]:
            require(isinstance(entry, dict) and set(entry) == {"column", "unseen", "values"},
                    "a vocabulary column that is not one")  # fmt: skip
            column, unseen, values = entry["column"], entry["unseen"], entry["values"]
            require(type(column) is int and column in NAMES and column not in columns, "a vocabulary of no column")
            require(unseen is None or (type(unseen) in (int, float) and 0 <= unseen <= 1),
                    "a vocabulary share that is no share")  # fmt: skip
            require(isinstance(values, list) and len(values) <= MAX_VALUES
                    and all(isinstance(v, str) for v in values), "vocabulary values that are not text")  # fmt: skip
            columns[column] = Column(frozenset(values), None if unseen is None else float(unseen))
        return cls(columns, data["same_tags"])


class VocabularyCounter:
    """Learning's side: counts the values of the columns a model reads, word by word."""

    def __init__(self, columns: list[int]) -> None:
        self.counts = {column: Counter() for column in columns}
        self.same_tags = True

    def add(self, sentence: Sentence) -> None:
        words = sentence.words
        for column, counts in self.counts.items():
            counts.update(w[column] for w in words)
        if self.same_tags:
            self.same_tags = all(w[CPOSTAG] == w[POSTAG] for w in words)

    def vocabulary(self) -> Vocabulary:
        columns = {}
        for column, counts in self.counts.items():
            words = sum(counts.values())
            once = sum(1 for n in counts.values() if n == 1)
            columns[column] = Column(frozenset(counts), round(once / words, 6) if words >= MIN_TRAINING_WORDS else None)
        return Vocabulary(columns, self.same_tags)


@dataclass(slots=True)
class Tally:
    """Per column: the words counted, those whose value training never saw, a few such values."""

    counts: dict[int, list] = field(default_factory=dict)  # column -> [words, unseen, examples]

    def add(self, column: int, words: int, unseen: int, examples: list[str]) -> None:
        entry = self.counts.setdefault(column, [0, 0, []])
        entry[0] += words
        entry[1] += unseen
        for value in examples:
            if len(entry[2]) < EXAMPLES and value not in entry[2]:
                entry[2].append(value)

    def merge(self, other: Tally) -> None:
        for column, (words, unseen, examples) in other.counts.items():
            self.add(column, words, unseen, examples)

    def as_json(self) -> list:
        return [[column, *entry] for column, entry in self.counts.items()]

    @classmethod
    def from_json(cls, data: list) -> Tally:
        """A tally a parsing worker sent (see jobs.py)."""
        tally = cls()
        for column, words, unseen, examples in data:
            tally.add(column, words, unseen, examples)
        return tally


class Watch:
    """Parsing's side: the tallies of one input added up, and a warning for each column whose
    share of unseen values goes far above the held-out estimate (once a column, through ``warn``)."""

    def __init__(self, expected: dict[int, float], warn: Callable[[str], None]) -> None:
        self.expected = expected
        self.warn = warn
        self.total = Tally()
        self.warned: set[int] = set()

    def add(self, tally: Tally) -> None:
        self.total.merge(tally)
        for column, (words, unseen, examples) in self.total.counts.items():
            expected = self.expected.get(column)
            if column in self.warned or expected is None or not far_above(unseen, words, expected):
                continue
            self.warned.add(column)
            quoted = ", ".join(repr(cut(v, 40)) for v in examples)
            self.warn(f"{NAMES[column]}: {unseen / words:.1%} of {words:,} words have values the model never saw "
                      f"({quoted}), where held-out text of its training treebank has about {expected:.1%}: the "
                      f"input may not hold in {NAMES[column]} what the treebank did (another tagset, language "
                      f"or format?), and the parse may be poor")  # fmt: skip


def python_warning(name: str | None) -> Callable[[str], None]:
    """A ``warn`` that gives its message as a MaltpyWarning of Python's ``warnings`` (the command
    line shows it as one line), after the input's ``name`` if given, located at the first caller
    outside maltpy."""

    def warn(message: str) -> None:
        frame, level = sys._getframe(1), 2
        while frame is not None and frame.f_globals.get("__name__", "").startswith("maltpy."):
            frame, level = frame.f_back, level + 1
        warnings.warn(message if name is None else f"{name}: {message}", MaltpyWarning, stacklevel=level)

    return warn


def far_above(unseen: int, words: int, expected: float) -> bool:
    """Whether ``unseen`` of ``words`` is far above a share ``expected`` (see the module's note)."""
    if words < MIN_WORDS:
        return False
    spread = 3 * math.sqrt(expected * (1 - expected) / words)
    return unseen / words > expected + MARGIN + spread

