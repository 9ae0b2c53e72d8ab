"""Tagging accuracy as the CoNLL 2018 shared task scores it (Zeman et al. 2018;
conll18_ud_eval.py, run with -v): UPOS, XPOS, UFeats, AllTags and Lemmas.

Over every word (the lines whose ID is a number: not multiword-token lines, not empty nodes;
punctuation too), the share whose column is the gold's:
- UPOS, XPOS: the column as written; ``_`` is a value like any other (a system's ``_`` where the
  gold has a tag is wrong; ``_`` in both is right).
- UFeats: the universal features only (``UNIVERSAL_FEATURES``), in any order: the gold's
  ``Number=Sing|Foo=1`` and the system's ``Foo=2|Number=Sing`` agree. ``_``, and a value with no
  universal feature, both mean none.
- AllTags: UPOS, XPOS and UFeats all right.
- Lemmas: the lemma as written, and every word whose gold lemma is ``_`` (the treebank has none
  to compare).
The script aligns the words of two files by their text; files tokenized alike (``evaluate``
checks it) align word i with word i, multiword tokens or not, so each accuracy is its F1 there.
maltpy's reader takes no empty field (it asks for ``_``), so ``_`` is the only "no value".
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..data.conll import CPOSTAG, FEATS, LEMMA, POSTAG, Sentence

#: UD's universal features (v2): the ones UFeats and the shared task's MLAS compare; the others
#: are language-specific.
UNIVERSAL_FEATURES = frozenset((
    "PronType", "NumType", "Poss", "Reflex", "Foreign", "Abbr", "Gender", "Animacy", "Number", "Case", "Definite",
    "Degree", "VerbForm", "Mood", "Tense", "Aspect", "Voice", "Evident", "Polarity", "Person", "Polite",
))  # fmt: skip
TAG_METRICS = ("UPOS", "XPOS", "UFeats", "AllTags", "Lemmas")
#: The columns that, written differently in a system's file than in the gold's, make ``eval``
#: report the tag metrics: LEMMA, UPOS, XPOS and FEATS, next to each other in a word's line.
TAG_COLUMNS = slice(LEMMA, FEATS + 1)


def universal_features(feats: str) -> str:
    """A FEATS value's universal features in one form whatever their order: sorted, joined by
    ``|``; ``""`` for none (``_`` included)."""
    return "|".join(sorted(f for f in feats.split("|") if f.split("=", 1)[0] in UNIVERSAL_FEATURES))


@dataclass(slots=True)
class TagCounts:
    """The words scored and, for each of ``TAG_METRICS``, those right; ``differ``: some word of
    the system's has a tag column (``TAG_COLUMNS``) written otherwise than the gold's."""

    words: int = 0
    right: dict[str, int] = field(default_factory=lambda: dict.fromkeys(TAG_METRICS, 0))
    differ: bool = False

    def add(self, gold: Sentence, system: Sentence) -> None:
        """Count one sentence of files tokenized alike."""
        right = self.right
        for gw, sw in zip(gold.words, system.words):
            upos = gw[CPOSTAG] == sw[CPOSTAG]
            xpos = gw[POSTAG] == sw[POSTAG]
            feats = gw[FEATS] == sw[FEATS] or universal_features(gw[FEATS]) == universal_features(sw[FEATS])
            right["UPOS"] += upos
            right["XPOS"] += xpos
            right["UFeats"] += feats
            right["AllTags"] += upos and xpos and feats
            right["Lemmas"] += gw[LEMMA] == "_" or gw[LEMMA] == sw[LEMMA]
            if not self.differ:
                self.differ = gw[TAG_COLUMNS] != sw[TAG_COLUMNS]
        self.words += len(gold)

    def as_dict(self) -> dict[str, float | None]:
        """Each metric in percent, rounded as the script prints it (``{:.2f}`` of 100 * the
        share, so that a tie such as 14.375 goes its way); None over no words."""
        return {m: float(f"{100 * (n / self.words):.2f}") if self.words else None for m, n in self.right.items()}

    def json(self) -> dict:
        """What ``eval --json`` gives under "tags": the figures, the words and the words right."""
        return {**self.as_dict(), "words": self.words, "correct": dict(self.right)}
