"""The columns maltpy's taggers predict, in the order they are tagged, and the tagging modes:
facts the configuration and the command line read without loading the taggers."""

from __future__ import annotations

from ..data.columns import FEATS, LEMMA, UPOS, XPOS, shown

#: The tagged columns, in tagging order: a tagger reads the columns before its own.
TAGGED: tuple[int, ...] = (UPOS, XPOS, FEATS, LEMMA)
#: missing: predict the columns a sentence has not (all ``_``); always: predict every column the
#: taggers have; never: predict nothing.
MODES = ("missing", "always", "never")


def column_name(column: int) -> str:
    """The column's CoNLL-U name (UPOS, not UPOS/CPOSTAG), as the taggers' messages and archive name it."""
    return shown(column).split("/")[0]
