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
the i-th word after it, ``Stack[j]`` the (j+1)-th word before it), with three functions of
maltpy's own, ``Lower(f)``, ``Shape(f)`` and ``Tags(f)`` (a form's ambiguity class). A file of
them has one section per column, a line ``[UPOS]`` (``[XPOS]``, ``[FEATS]``, ``[LEMMA]``; any
name of the column) followed by one feature a line, ``#`` starting a comment; a column without a
section takes the default's (``default.txt`` in this package, which is such a file).

Held-out accuracy: the taggers learned on 9 sentences in 10 tag the 10th (every tenth
sentence), and the taggers kept are learned on all; ``describe()`` says so.

Both ways (``tagger.ColumnTagger.backward``, ``learn_taggers(both_ways=)``, by default UPOS):
a second tagger of the column learned on the sentences read right to left, its scores added to
the first's.

Measured (gold tokenization, the test file's four columns blanked, the CoNLL 2018 script's
definitions: UFeats the universal features, a gold LEMMA ``_`` right; UPOS both ways), UDPipe 1.4
in brackets:

    en_lines train->test   UPOS 96.29 (95.42)  XPOS 95.54 (94.73)  UFeats 95.72 (94.74)  Lemmas 97.96 (95.90)
    la_perseus train->test UPOS 87.32 (83.52)  XPOS 70.73 (67.61)  UFeats 74.55 (71.78)  Lemmas 79.05 (74.04)
    da_ddt dev->test       UPOS 92.74 (89.99)  XPOS 100 (99.95)    UFeats 91.16 (88.33)  Lemmas 92.82 (89.75)
    sv_talbanken dev->test UPOS 92.06 (89.79)  XPOS 88.35 (85.28)  UFeats 88.65 (85.83)  Lemmas 93.24 (89.55)

UPOS's three Tags features (each word's and the next two words' ambiguity classes) raised UPOS by
0.15 to 0.74 (en_lines 95.72, la_perseus 86.84, da_ddt 91.56, sv_talbanken 90.72, en_partut
95.51 without them), and the parser's LAS from raw text by 0.36 to 1.15 except on la_perseus
(-0.53; README, the raw-text table). Measured no better: the classes taken from the whole
training set (the word's own class known: 93.57 on en_lines), of forms as written, of the
words' own tag at more places or merged with other features, and a second UPOS pass reading the
first's tags to the right (+0.03 to +0.22, at five times the learning; the tagger both ways gains
more, 0.3 to 0.6, at twice the learning, without a jackknife). Further features for UPOS (a form
with the next word's class, classes of the words beside merged, shapes merged, longer suffixes)
and other learners (LIBLINEAR -s 1, -s 0, other C) each moved it within 0.15 either way.

FEATS is learned as whole values: per feature (a classifier per feature name, its value or none)
measured the same within noise (en_lines UFeats 95.27 against 95.33, la_perseus 73.90 against
73.85) and tags slower. LEMMA's lexicon (form and UPOS, then form) measured better with the
predicted tags it is given (la_perseus 79.19 against 78.91 without it). Every edit script seen
is a class: leaving out of the classifier's training the words whose script was seen once (711
classes to 379 on la_perseus) learned 8% faster and lemmatized worse (79.08 against 79.16).

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
