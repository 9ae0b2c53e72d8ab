"""Taggers learned from the treebank: UPOS, XPOS, FEATS and LEMMA, predicted for text whose
columns are empty, with maltpy's own learners and MaltParser's feature language.

    taggers = learn_taggers(sentences)          # the columns with values, from their gold values
    taggers.tag(batch, "missing")               # fill the columns a sentence has not
    entry, members = taggers.to_archive()       # manifest entry "taggers", members "taggers/..."
    Taggers.from_archive(archive, entry)        # every part checked
    jackknife(sentences, 10)                    # copies tagged by taggers of the other folds

Each column has its tagger, run in ``TAGGED`` order (UPOS, XPOS, FEATS, LEMMA); a tagger reads
FORM and the columns tagged before it at any word, and its own column at the words to its left
(tags it has predicted): greedy left-to-right classification of each word (``tagger``), with
LIBLINEAR (the default: Crammer and Singer's multi-class SVM, ``-s 4``) or LIBSVM. LEMMA's classes
are edit scripts (Chrupała 2008, ``lemmas``), with a lexicon of the forms seen in training.

Feature models (``features``): a tagger's features are written as a parser's, in MaltParser's
feature language read as a parse that only shifts (``Input[0]`` the word tagged, ``Input[i]``
the i-th word after it, ``Stack[j]`` the (j+1)-th word before it), with two functions of
maltpy's own, ``Lower(f)`` and ``Shape(f)``. A file of them has one section per column, a line
``[UPOS]`` (``[XPOS]``, ``[FEATS]``, ``[LEMMA]``; any name of the column) followed by one feature a
line, ``#`` starting a comment; a column without a section takes the default's
(``default.txt`` in this package, which is such a file).

Held-out accuracy: the taggers learned on 9 sentences in 10 tag the 10th (every tenth
sentence), and the taggers kept are learned on all; ``describe()`` says so.

Only ``columns`` (TAGGED, MODES) is loaded with this package; the rest loads NumPy when first
used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .columns import MODES, TAGGED

if TYPE_CHECKING:
    from .learn import jackknife, learn_taggers
    from .taggers import Taggers

__all__ = ["MODES", "TAGGED", "Taggers", "jackknife", "learn_taggers"]


def __getattr__(name: str):
    if name in ("learn_taggers", "jackknife"):
        from . import learn

        return getattr(learn, name)
    if name == "Taggers":
        from .taggers import Taggers

        return Taggers
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
