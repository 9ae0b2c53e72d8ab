"""Attachment scores, as the CoNLL shared tasks and Nivre (2008, §6.2) report them.

Over the scored words: LAS, the share with the right head and the right label; UAS, the right
head; LA, the right label. EM is the share of sentences whose scored words are all right in
head and label. With punctuation excluded, a word is not scored if its gold UPOS/CPOSTAG is
PUNCT or its gold form consists of Unicode punctuation characters only (as the CoNLL-X
eval.pl). Per label, precision and recall count words with the right head and that label.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import chain, zip_longest

from .conll import CPOSTAG, DEPREL, FORM, HEAD, Sentence
from .errors import MaltpyError


def is_punctuation(word: list[str]) -> bool:
    """Tag PUNCT, or a form made of Unicode punctuation (categories P*) only."""
    return word[CPOSTAG] == "PUNCT" or all(unicodedata.category(c).startswith("P") for c in word[FORM])


@dataclass(slots=True)
class LabelCounts:
    gold: int = 0
    system: int = 0
    correct: int = 0  # right head and this label in both

    def as_dict(self) -> dict[str, float | int | None]:
        f1 = None
        if self.gold and self.system:
            f1 = round(200.0 * self.correct / (self.gold + self.system), 2)
        return {
            "gold": self.gold,
            "system": self.system,
            "correct": self.correct,
            "precision": _percent(self.correct, self.system),
            "recall": _percent(self.correct, self.gold),
            "f1": f1,
        }


@dataclass(slots=True)
class Scores:
    tokens: int = 0
    sentences: int = 0
    right_head: int = 0
    right_label: int = 0
    right_both: int = 0
    exact: int = 0
    per_label: dict[str, LabelCounts] = field(default_factory=dict)

    @property
    def las(self) -> float | None:
        return _percent(self.right_both, self.tokens)

    @property
    def uas(self) -> float | None:
        return _percent(self.right_head, self.tokens)

    @property
    def la(self) -> float | None:
        return _percent(self.right_label, self.tokens)

    @property
    def em(self) -> float | None:
        return _percent(self.exact, self.sentences)

    def as_dict(self, per_label: bool = False) -> dict:
        out = {
            "LAS": self.las,
            "UAS": self.uas,
            "LA": self.la,
            "EM": self.em,
            "tokens": self.tokens,
            "sentences": self.sentences,
        }
        if per_label:
            out["labels"] = {label: c.as_dict() for label, c in sorted(self.per_label.items())}
        return out


def _percent(part: int, whole: int) -> float | None:
    return round(100.0 * part / whole, 2) if whole else None


def attachment_scores(
    gold: Iterable[Sentence],
    system: Iterable[Sentence],
    gold_name: str,
    system_name: str,
    exclude_punct: bool = False,
) -> Scores:
    """Score ``system`` against ``gold``, sentence by sentence, streaming.

    The two must hold the same sentences with the same word forms; the first sentence where
    they differ is a MaltpyError naming it in both files, unless a line further on in either
    file is malformed: that is reported instead, as the more basic fault. Both must be parsed.
    """
    scores = Scores()
    gold, system = iter(gold), iter(system)
    for number, (g, s) in enumerate(zip_longest(gold, system), 1):
        problem = _misalignment(number, g, s, gold_name, system_name)
        if problem:
            for _ in chain(gold, system):  # reading on raises the first malformed line, if any
                pass
            raise problem
        scores.sentences += 1
        exact = True
        for gw, sw in zip(g.words, s.words):
            if exclude_punct and is_punctuation(gw):
                continue
            head = gw[HEAD] == sw[HEAD]
            label = gw[DEPREL] == sw[DEPREL]
            scores.tokens += 1
            scores.right_head += head
            scores.right_label += label
            scores.right_both += head and label
            exact = exact and head and label
            g_counts = scores.per_label.setdefault(gw[DEPREL], LabelCounts())
            g_counts.gold += 1
            scores.per_label.setdefault(sw[DEPREL], LabelCounts()).system += 1
            g_counts.correct += head and label
        scores.exact += exact
    return scores


def _misalignment(
    number: int, g: Sentence | None, s: Sentence | None, gold_name: str, system_name: str
) -> MaltpyError | None:
    """Why sentence ``number`` of the two files cannot be scored, if it cannot."""
    if g is None:
        return MaltpyError(
            f"sentence {number} has no counterpart: {gold_name} ends after {number - 1} sentences",
            system_name,
            s.line,
        )
    if s is None:
        return MaltpyError(
            f"{system_name} ends after {number - 1} sentences; sentence {number} has no counterpart there",
            gold_name,
            g.line,
        )
    where = f"sentence {number} does not line up with {gold_name}:{g.line}"
    if len(g) != len(s):
        return MaltpyError(f"{where}: {len(s)} words here, {len(g)} there", system_name, s.line)
    for i, (gw, sw) in enumerate(zip(g.words, s.words), 1):
        if gw[FORM] != sw[FORM]:
            return MaltpyError(f"{where}: word {i} is {sw[FORM]!r} here, {gw[FORM]!r} there", system_name, s.line)
    for sentence, name in ((g, gold_name), (s, system_name)):
        if sentence.heads is None:
            return MaltpyError("sentence is not parsed (HEAD is _); cannot score it", name, sentence.line)
    return None
