"""Taggers beside a parser: learning them with it (``learn_tagging``), and the check that a
parser is not given input without the tags it reads (issue 46): a sentence whose tag column is
empty (every word ``_``) where the parser's features read that column, no tagger of the parser
fills it, and the training treebank never held ``_`` there, would be parsed from values training
never saw, every word of it: nonsense. It is a MaltpyError naming the column, the input and the
sentence's line instead (the command line's exit status 2).

What training held is the model's vocabulary (data/vocabulary.py: the values of each column its
features read), or a MaltParser model's (.mco) symbol tables, which keep the same
(``training_values``); a maltpy model made before vocabularies were kept is not checked. A
column the treebank left empty too, or held ``_`` in at some word (FEATS of a word without
features), is no error: an empty column is then like training's.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from ..config.groups import Tagger
from ..data.columns import INDEX
from ..data.conll import FEATS, LEMMA, UPOS, XPOS, Sentence
from ..errors import MaltpyError

if TYPE_CHECKING:
    from ..tagging import Taggers

#: The columns a tagger may predict (maltpy.tagging.TAGGED's), checked here in that order.
TAG_COLUMNS = (UPOS, XPOS, FEATS, LEMMA)
EMPTY = "_"
_COLUMN_OF = {"upos": UPOS, "xpos": XPOS, "feats": FEATS, "lemma": LEMMA}  # tagger.columns' names
NAMES = {column: name.upper() for name, column in _COLUMN_OF.items()}  # the columns in messages


def needed_columns(values: dict[int, frozenset[str]] | None, taggers: Taggers | None, tagging: str) -> list[int]:
    """The tag columns a sentence may not leave empty: read by the features (``values``: the
    training treebank's values of each column they read), never ``_`` in training, and not
    predicted (by ``taggers`` under the mode ``tagging``)."""
    if values is None:
        return []
    predicted = () if taggers is None or tagging == "never" else taggers.columns
    return [c for c in TAG_COLUMNS
            if c in values and c not in predicted and values[c] and EMPTY not in values[c]]  # fmt: skip


def training_values(tables: dict[str, Iterable[str]], read: Iterable[int]) -> dict[int, frozenset[str]]:
    """The values of the tag columns a model's features ``read`` (by number), as the symbol
    tables of a MaltParser model (.mco) keep them (``tables``: each column's symbols by the
    column's name): what a vocabulary keeps of them, for ``needed_columns``."""
    read = set(read)
    return {INDEX[name]: frozenset(symbols) for name, symbols in tables.items()
            if INDEX.get(name) in TAG_COLUMNS and INDEX[name] in read}  # fmt: skip


def check_tagged(batch: list[Sentence], values: dict[int, frozenset[str]] | None, taggers: Taggers | None,
                 tagging: str, where: str) -> None:  # fmt: skip
    """MaltpyError at the first sentence of ``batch`` (of the input ``where``) with a needed
    column (``needed_columns``) empty, saying what would fill it."""
    needed = needed_columns(values, taggers, tagging)
    for sentence in batch if needed else ():
        for column in needed:
            if all(w[column] == EMPTY for w in sentence.words):
                raise MaltpyError(f"the sentence has no {NAMES[column]} (all _): {_why(column, taggers, tagging)}",
                                  where, sentence.word_line(1))  # fmt: skip


def _why(column: int, taggers: Taggers | None, tagging: str) -> str:
    name = NAMES[column]
    if taggers is not None and column in taggers.columns:
        return f"the model's {name} tagger is off (tagging {tagging}; --tag missing fills it)"
    return (
        f"the model reads {name}, which its training treebank had, and has no tagger for it; give the "
        f"input {name} tags, or learn the model again with taggers (maltpy learn, tagger.columns)"
    )


# --- learning -------------------------------------------------------------------------------------


def learn_tagging(
    tagger: Tagger, sentences: list[Sentence], name: str, progress: Callable[[str], None] | None = None
) -> tuple[Taggers | None, list[Sentence], dict]:
    """The taggers the configuration's group ``tagger`` asks (maltpy.tagging.learn_taggers, from
    the gold ``sentences`` of ``name``; None if the treebank has no tags to learn), the sentences
    the parser learns from (with tagger.jackknife K, copies tagged by the taggers learned from the
    other K-1 folds: ``tagging.jackknife``), and the training statistics that say how."""
    from ..tagging import Taggers, jackknife, learn_taggers
    from ..tokenizing.tokenizer import learn_tokenizer

    started = time.perf_counter()
    columns = None if tagger.columns == "auto" else [_COLUMN_OF[c] for c in tagger.columns.split(",")]
    both_ways = {"auto": None, "none": ()}.get(tagger.both_ways)
    if both_ways is None and tagger.both_ways != "auto":
        both_ways = [_COLUMN_OF[c] for c in tagger.both_ways.split(",")]
    settings = {"learner": tagger.learner, "options": tagger.options, "features": tagger.features, "name": name,
                "progress": progress, "both_ways": both_ways}  # fmt: skip
    taggers = learn_taggers(sentences, columns, **settings)
    learned = time.perf_counter()
    if progress:
        progress("learning the tokenizer from the treebank's text")
    tokenizer = learn_tokenizer(sentences, name)
    tokenized = time.perf_counter()
    if taggers is None and tokenizer is None:
        return None, sentences, {"taggers": None}
    if taggers is None:
        taggers = Taggers([], "", tokenizer)
    taggers.tokenizer = tokenizer
    folds = tagger.jackknife
    if folds and taggers.columns:
        sentences = jackknife(sentences, folds, taggers.columns, **settings)
    statistics = {
        "taggers": [NAMES[c] for c in taggers.columns],
        "tagger_jackknife": folds,
        "seconds_taggers": round(learned - started, 2),
        "tokenizer": tokenizer is not None,
        **({"seconds_tokenizer": round(tokenized - learned, 2)} if tokenizer is not None else {}),
        **({"seconds_jackknife": round(time.perf_counter() - tokenized, 2)} if folds else {}),
    }
    return taggers, sentences, statistics


def taggers_summary(taggers: Taggers | None) -> str:
    """The taggers' held-out accuracies in a few words (``maltpy learn``'s summary line)."""
    if taggers is None:
        return ""
    shown = [f"{t['column']} {_percent(t.get('heldout_accuracy'))}" for t in taggers.describe()]
    tokenizer = "; a tokenizer from the treebank's text" if taggers.tokenizer is not None else ""
    return (f"; taggers' held-out accuracy: {', '.join(shown)}" if shown else "") + tokenizer


def _percent(value: object) -> str:
    return f"{100 * value:.2f}%" if isinstance(value, (int, float)) else "n/a"


def describe_tokenizer(taggers: Taggers | None) -> dict | None:
    """What ``maltpy info`` shows of the tokenizer learned with the taggers, None without."""
    tokenizer = None if taggers is None else taggers.tokenizer
    return None if tokenizer is None else dict(tokenizer.statistics)


def describe_taggers(taggers: Taggers | None) -> list[dict] | None:
    """What ``maltpy info`` shows of the taggers (``Taggers.describe``), None without."""
    return None if taggers is None else taggers.describe()
