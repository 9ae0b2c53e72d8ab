"""The columns of a word's line in CoNLL-X and CoNLL-U: the one table every reader of columns
derives from (the CoNLL reader and writer, the feature language, the configuration's data split,
the vocabulary, MaltParser's data formats in .mco files, maltpy.dask's DataFrames).

CoNLL-X (Buchholz and Marsi 2006, §3) has ten columns, ID FORM LEMMA CPOSTAG POSTAG FEATS HEAD
DEPREL PHEAD PDEPREL; CoNLL-U (Universal Dependencies v2) keeps the ten places as ID FORM LEMMA
UPOS XPOS FEATS HEAD DEPREL DEPS MISC. The first eight are the same columns under both formats'
names (UPOS is read where CPOSTAG is, XPOS where POSTAG is); the 9th and 10th are different
columns at the same places, so each is a row of its own, of one format. MaltParser's data format
files name CoNLL-U's tag columns UPOSTAG and XPOSTAG, which a feature model may use too.

A column added here (its place, its names, what it holds) is known to every reader at once; a
feature model names it to read it.
"""

from __future__ import annotations

from dataclasses import dataclass

#: The formats by maltpy's name (``input.format``), with the name messages give them.
FORMAT_NAMES = {"conllx": "CoNLL-X", "conllu": "CoNLL-U"}
FORMATS = tuple(FORMAT_NAMES)


@dataclass(frozen=True, slots=True)
class Column:
    """One column: its place in a word's line (from 0) and its name in each format (None: the
    format has not this column)."""

    index: int
    conllx: str | None
    conllu: str | None
    maltparser: str | None = None  # MaltParser's name for it in CoNLL-U, where not CoNLL-U's own
    integer: bool = False  # it holds word numbers
    output: bool = False  # the parser writes it, and OutputColumn reads it as the parser builds it
    given: bool = False  # given to the parser: the columns of blind CoNLL-X and of maltpy.dask's input

    @property
    def names(self) -> tuple[str, ...]:
        """Every name a feature model may give it: CoNLL-X's, MaltParser's, CoNLL-U's."""
        return tuple(dict.fromkeys(name for name in (self.conllx, self.maltparser, self.conllu) if name))


COLUMNS = (
    Column(0, "ID", "ID", integer=True, given=True),
    Column(1, "FORM", "FORM", given=True),
    Column(2, "LEMMA", "LEMMA", given=True),
    Column(3, "CPOSTAG", "UPOS", "UPOSTAG", given=True),
    Column(4, "POSTAG", "XPOS", "XPOSTAG", given=True),
    Column(5, "FEATS", "FEATS", given=True),
    Column(6, "HEAD", "HEAD", integer=True),
    Column(7, "DEPREL", "DEPREL", output=True),
    Column(8, "PHEAD", None, integer=True),
    Column(8, None, "DEPS"),
    Column(9, "PDEPREL", None),
    Column(9, None, "MISC"),
)

#: The number of columns of a word's line.
WIDTH = 1 + max(column.index for column in COLUMNS)
#: The columns a parser is given (blind CoNLL-X has just these, the others being _).
GIVEN = tuple(column for column in COLUMNS if column.given)
#: The places of the columns both formats have (the others differ: PHEAD and DEPS, PDEPREL and MISC).
SHARED = frozenset(column.index for column in COLUMNS if all(getattr(column, fmt) for fmt in FORMATS))
#: Each column's place by each of its names.
INDEX = {name: column.index for column in COLUMNS for name in column.names}
#: The names of the columns that hold word numbers, and of the one the parser's labels are in.
INTEGER_NAMES = tuple(name for column in COLUMNS if column.integer for name in column.names)
OUTPUT_NAMES = tuple(name for column in COLUMNS if column.output for name in column.names)


def names(data_format: str) -> tuple[str, ...]:
    """The format's name of each column, in order."""
    return tuple(getattr(column, data_format) for column in COLUMNS if getattr(column, data_format))


def maltparser_names(data_format: str) -> tuple[str, ...]:
    """The format's columns in order, as MaltParser's data format file names them."""
    own = names(data_format)
    return tuple(column.maltparser if column.maltparser and column.conllu in own else getattr(column, data_format)
                 for column in COLUMNS if getattr(column, data_format))  # fmt: skip


def only_in(data_format: str) -> tuple[str, ...]:
    """The names of the columns the format has and the other not (CoNLL-X's PHEAD and PDEPREL)."""
    return tuple(getattr(c, data_format) for c in COLUMNS
                 if getattr(c, data_format) and not all(getattr(c, other) for other in FORMATS))  # fmt: skip


def shown(index: int) -> str:
    """The column at ``index`` as a message names it, CoNLL-U's name first where they differ."""
    at = [column for column in COLUMNS if column.index == index]
    return "/".join(dict.fromkeys(name for fmt in reversed(FORMATS) for column in at if (name := getattr(column, fmt))))


#: The places of the columns the code reads by name; CoNLL-U's columns at the same places.
ID, FORM, LEMMA, CPOSTAG, POSTAG = INDEX["ID"], INDEX["FORM"], INDEX["LEMMA"], INDEX["CPOSTAG"], INDEX["POSTAG"]
FEATS, HEAD, DEPREL, PHEAD, PDEPREL = INDEX["FEATS"], INDEX["HEAD"], INDEX["DEPREL"], INDEX["PHEAD"], INDEX["PDEPREL"]
UPOS, XPOS, DEPS, MISC = INDEX["UPOS"], INDEX["XPOS"], INDEX["DEPS"], INDEX["MISC"]
