"""CoNLL-X and CoNLL-U: reading and writing one sentence at a time.

CoNLL-X (Buchholz and Marsi 2006) has ten tab-separated columns, ID FORM LEMMA CPOSTAG POSTAG
FEATS HEAD DEPREL PHEAD PDEPREL. CoNLL-U (Universal Dependencies v2) keeps the ten columns as ID
FORM LEMMA UPOS XPOS FEATS HEAD DEPREL DEPS MISC and adds comment lines, multiword-token lines
(``3-4``) and empty nodes (``8.1``). maltpy parses the words (the lines whose ID is an integer)
and carries every other line through untouched, so a CoNLL-U file read and written back is the
same bytes. Sentences end at an empty line; the last one may end at the end of the file.

Reading is strict, because a silently misread file gives a silently wrong tree: any line that is
not well formed is a ``MaltpyError`` naming the file and the line. The checks are defined line by
line (``lines.Blocks._line`` for the text of a line, ``_SentenceBuilder`` for its fields). For speed,
a block of input is first decoded and checked whole, and a sentence checked with a few
operations over all its words (``ConllReader._whole``); these shortcuts accept only what the
line-by-line checks accept, and whatever they do not accept goes through those, which find the
first faulty line and say what is wrong with it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import chain
from typing import BinaryIO

from ..errors import MaltpyError, cut
from .columns import CPOSTAG as CPOSTAG  # every column's place, for the readers of sentences
from .columns import DEPREL, DEPS, FORMATS, GIVEN, HEAD, ID, MISC, PHEAD, POSTAG, SHARED, UPOS, WIDTH, names
from .columns import FEATS as FEATS
from .columns import FORM as FORM
from .columns import LEMMA as LEMMA
from .columns import PDEPREL as PDEPREL
from .columns import XPOS as XPOS
from .lines import Blocks, bytes_left
from .tree import find_cycle

#: Each format's column names, in order (columns.py).
COLUMNS = {data_format: names(data_format) for data_format in FORMATS}

_WORD_ID = re.compile(r"[1-9][0-9]*\Z")
_HEAD = re.compile(r"(?:0|[1-9][0-9]*)\Z")
_RANGE_ID = re.compile(r"([1-9][0-9]*)-([1-9][0-9]*)\Z")
_EMPTY_ID = re.compile(r"(0|[1-9][0-9]*)\.([1-9][0-9]*)\Z")
_PEEK_LINES = 2000
#: How long a pipe must stay quiet (``ConllReader.pending``) before a parser hands on the
#: sentences it has, instead of waiting for a full batch: a writer waiting for its parses gets them.
QUIET_SECONDS = 0.05
# A field with blanks at its start or end, as str.strip sees them, in a sentence's word lines
# joined by LF; and the characters str.isspace knows beyond ASCII.
_BLANK_AT_BORDER = re.compile(r"\s[\t\n]|[\t\n]\s|^\s|\s\Z")
_WIDE_BLANK = re.compile("[\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]")
_BLIND_COLUMNS = ["_"] * (WIDTH - len(GIVEN))  # HEAD to PDEPREL of a blind CoNLL-X word


@dataclass(slots=True)
class Sentence:
    """One sentence: its words' ten fields, and the other lines of a CoNLL-U sentence.

    ``words[i]`` holds the fields of word i + 1 as strings. ``extra`` holds each comment,
    multiword-token and empty-node line with the number of words before it. ``line`` is the
    number of the sentence's first line in the file it was read from.
    """

    words: list[list[str]]
    format: str = "conllx"
    line: int = 0
    extra: list[tuple[int, str]] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.words)

    @property
    def heads(self) -> list[int] | None:
        """Heads in maltpy's convention (see ``tree``), or None if the sentence is unparsed."""
        if self.words and self.words[0][HEAD] == "_":
            return None
        return [-1] + [int(w[HEAD]) for w in self.words]

    @property
    def labels(self) -> list[str]:
        """DEPREL of each word, with a placeholder for the root at index 0."""
        return [""] + [w[DEPREL] for w in self.words]

    @property
    def sent_id(self) -> str | None:
        """The value of the CoNLL-U comment ``# sent_id = ...`` before the words, if there is one."""
        return self.comment("sent_id")

    def comment(self, key: str) -> str | None:
        """The value of the CoNLL-U comment ``# key = value`` before the words (``sent_id``,
        ``text``), if there is one."""
        for before, line in self.extra:
            if before == 0 and line.startswith("#"):
                name, equals, value = line[1:].partition("=")
                if equals and name.strip() == key:
                    return value.strip()
        return None

    def word_line(self, word: int) -> int:
        """The line number of word ``word`` (counted from 1) in the file it was read from."""
        return self.line + word - 1 + sum(1 for before, _ in self.extra if before < word)

    def column(self, index: int) -> list[str]:
        return [w[index] for w in self.words]

    def set_arcs(self, heads: list[int], labels: list[str]) -> None:
        """Replace HEAD and DEPREL of every word (``heads``/``labels`` indexed from 1, as in
        ``tree``); every other column and line stays as it was."""
        for d, word in enumerate(self.words, 1):
            word[HEAD] = str(heads[d])
            word[DEPREL] = labels[d]


class ConllReader:
    """Sentences from a binary stream, one at a time.

    ``format`` is ``conllx``, ``conllu`` or ``auto``; ``auto`` decides from the first lines
    (comments, multiword tokens, empty nodes and the DEPS column mean CoNLL-U, an integer PHEAD
    means CoNLL-X), then from the file name's extension, and falls back to CoNLL-X, MaltParser's
    default. The decision is in ``self.format`` as soon as the reader exists.

    ``blind`` (for parsing) also accepts CoNLL-X words of six columns, ID to FEATS, as
    MaltParser's blind test files have them; the missing four become ``_``. ``first_line`` is
    the number of the stream's first line, when it is a part of a file. ``self.size`` is the
    number of bytes to read, if the input is a regular file (``parse --jobs`` sizes its batches
    by it), else None.
    """

    def __init__(self, stream: BinaryIO, name: str, format: str = "auto", blind: bool = False,
                 first_line: int = 1) -> None:  # fmt: skip
        if format not in FORMATS + ("auto",):
            raise MaltpyError(f"unknown format {cut(repr(format), 40)} (conllx, conllu or auto)", name)
        self.name = name
        self.blind = blind
        self.size: int | None = bytes_left(stream)
        self._source = Blocks(stream, name, first_line=first_line)
        self._rest = False  # whether lines read wait after the sentence last given
        chunks = self._source.chunks()
        peeked: list[tuple[int, bytes]] = []  # the chunks the format was decided from
        if format == "auto":
            seen: list[str] = []
            for number, data in chunks:
                peeked.append((number, data))
                lines, error = self._source.decode(data, number)
                if _peek(lines, seen, self._source.pending):
                    break
                if error:
                    raise error
            format = _detect(seen, name)
        self.format = format
        self._chunks = chain(peeked, chunks)
        self._blocks = self._source.decoded(self._chunks)

    def share_read(self, line: int | None = None) -> float | None:
        """About how much of the input is read, from 0 to 1 (None if its size is unknown); given
        the line a reader of the sentences has got to, how much of it that reader has got through
        (the bytes read, times the share of the lines read that are behind it)."""
        if not self.size:
            return None
        read = self._source.consumed
        if line is not None and self._source.lines_read > 0:
            read *= min(1.0, line / self._source.lines_read)
        return min(1.0, read / self.size)

    def raw(self) -> Iterator[tuple[int, bytes]]:
        """The input as read, instead of its sentences: (the number of the first line, whole lines
        undecoded and unchecked) of each chunk. For a reader elsewhere (``parse --jobs``'s
        workers), which checks them; an input error met here (a line too long to hold, a read that
        fails) comes after the chunks before it."""
        return self._chunks

    def pending(self, wait: float = 0.0) -> bool:
        """Whether more input is ready now (on a pipe: has come, or comes within ``wait``
        seconds; see files.PipeReader); a file always is."""
        return self._rest or self._source.pending(wait)

    def __iter__(self) -> Iterator[Sentence]:
        held: list[str] = []  # the lines of a sentence begun in an earlier block
        first = 0  # the number of its first line
        while True:
            try:
                number, lines = next(self._blocks)
            except StopIteration:
                break
            except MaltpyError:
                self._check_lines(held, first)  # a fault in an earlier line is named first
                raise
            start, count = 0, len(lines)
            while start < count:
                try:
                    end = lines.index("", start)
                except ValueError:
                    first = first if held else number + start
                    held += lines[start:]
                    break
                if held:
                    sentence_lines, held = held + lines[start:end], []
                elif end == start:
                    raise self._error(
                        "empty line where a sentence should begin (sentences are separated by exactly one empty line)",
                        number + start,
                    )
                else:
                    sentence_lines, first = lines[start:end], number + start
                self._rest = end + 1 < count
                yield self._sentence(sentence_lines, first)
                start = end + 1
        self._rest = False
        if held:
            yield self._sentence(held, first)

    def _sentence(self, lines: list[str], first: int) -> Sentence:
        """The sentence of these lines (the first is line ``first``): checked whole if it can be,
        else line by line."""
        sentence = self._whole(lines, first)
        return sentence if sentence is not None else self._check_lines(lines, first).finish()

    def _check_lines(self, lines: list[str], first: int) -> _SentenceBuilder:
        builder = _SentenceBuilder(self, first)
        for number, line in enumerate(lines, first):
            builder.add(line, number)
        return builder

    def _whole(self, lines: list[str], first: int) -> Sentence | None:
        """The sentence, if a few checks over all its words at once find it well formed; None to
        leave it to _SentenceBuilder, line by line (a fault, or a case these checks leave to it).

        The same checks as _SentenceBuilder's: ten tab-separated fields (six when ``blind``),
        none empty or with blanks around it, comments first, the IDs 1, 2 ... n, each HEAD (and
        PHEAD) a word number up to n, every HEAD or none _, no cycle. Multiword tokens and empty
        nodes are checked by _SentenceBuilder.add_other as the words before them come.
        """
        conllu = self.format == "conllu"
        comments = 0
        if conllu:
            while comments < len(lines) and lines[comments].startswith("#"):
                comments += 1
        word_lines = lines[comments:] if comments else lines
        rows = [line.split("\t") for line in word_lines]
        n = len(rows)
        widths = set(map(len, rows))
        if widths != {WIDTH}:
            if conllu or not self.blind or not widths or not widths <= {len(GIVEN), WIDTH}:
                return None
            for row in rows:
                if len(row) == len(GIVEN):
                    row += _BLIND_COLUMNS
        if not all(map(all, rows)):  # a field is empty
            return None
        # Control characters are refused with their line, so in ASCII without spaces the only
        # blanks are the tabs and LFs between fields.
        text = "\n".join(word_lines)
        if (" " in text or not text.isascii() and _WIDE_BLANK.search(text)) and _BLANK_AT_BORDER.search(text):
            return None
        numerals = _NUMERALS.upto(n)
        extra = [(0, line) for line in lines[:comments]] if comments else []
        columns = list(zip(*rows))
        if columns[ID] != numerals[1 : n + 1]:
            if not conllu:
                return None
            builder = _SentenceBuilder(self, first)
            builder.sentence.extra = extra
            words = builder.sentence.words
            try:
                for number, (row, line) in enumerate(zip(rows, word_lines), first + comments):
                    if row[ID] == numerals[len(words) + 1]:
                        words.append(row)
                        builder.empty_nodes = 0
                    else:
                        builder.add_other(row, line, number)
            except MaltpyError:
                return None
            if not words or builder.range_end > len(words):
                return None
            rows, n = words, len(words)
            columns = list(zip(*rows))
        values = _NUMERALS.values
        heads = list(map(values.get, columns[HEAD]))
        if None in heads:
            if columns[HEAD].count("_") != n:
                return None
        elif max(heads) > n or find_cycle([-1, *heads]):
            return None
        if not conllu and columns[PHEAD].count("_") != n:
            if any(values.get(value, n + 1) > n for value in columns[PHEAD] if value != "_"):
                return None
        return Sentence(rows, self.format, first, extra)

    def _error(self, message: str, line: int) -> MaltpyError:
        return MaltpyError(message, self.name, line)


class _Numerals:
    """The numerals "0", "1", "2" ... as far as the longest sentence so far needs: ``texts`` (a
    sentence of n words has the IDs texts[1 : n + 1]) and ``values`` (a HEAD that _HEAD accepts,
    to its number)."""

    def __init__(self) -> None:
        self.texts: tuple[str, ...] = ("0",)
        self.values: dict[str, int] = {"0": 0}

    def upto(self, n: int) -> tuple[str, ...]:
        texts = self.texts
        if len(texts) <= n:
            more = tuple(str(i) for i in range(len(texts), 2 * n))
            self.values.update(zip(more, range(len(texts), 2 * n)))
            texts = self.texts = texts + more
        return texts


_NUMERALS = _Numerals()


class _SentenceBuilder:
    """Checks the lines of one sentence as they come and assembles the Sentence."""

    def __init__(self, reader: ConllReader, line: int) -> None:
        self.reader = reader
        self.conllu = reader.format == "conllu"
        self.sentence = Sentence([], reader.format, line)
        self.word_lines: list[int] = []
        self.range_end = 0  # last word covered by a multiword token so far
        self.range_line = 0
        self.empty_nodes = 0  # empty nodes seen after the current last word

    def add(self, line: str, number: int) -> None:
        error = self.reader._error
        if line.startswith("#"):
            if not self.conllu:
                raise error("comment line in CoNLL-X input (for CoNLL-U, use --format conllu)", number)
            if self.sentence.words or self.range_end or self.empty_nodes:
                raise error("comment line inside a sentence (comments come before its first word)", number)
            self.sentence.extra.append((len(self.sentence.words), line))
            return
        if not line.strip():
            raise error("line holds only blanks (tabs or spaces); a line between sentences must be empty", number)
        fields = line.split("\t")
        if len(fields) == len(GIVEN) and self.reader.blind and not self.conllu:
            fields += _BLIND_COLUMNS
        if len(fields) != WIDTH:
            hint = " (columns must be separated by tabs)" if len(fields) < WIDTH and " " in line else ""
            raise error(f"expected {WIDTH} tab-separated columns, found {len(fields)}{hint}", number)
        names = COLUMNS[self.reader.format]
        for i, value in enumerate(fields):
            if value == "":
                raise error(f"column {i + 1} ({names[i]}) is empty; write _ for no value", number)
            if value != value.strip():
                raise error(f"column {i + 1} ({names[i]}) has blanks at its start or end: {value!r}", number)
        words = self.sentence.words
        id_ = fields[ID]
        if _WORD_ID.match(id_):
            if int(id_) != len(words) + 1:
                raise error(f"word ID {id_} out of order: expected {len(words) + 1}", number)
            for col in (HEAD,) if self.conllu else (HEAD, PHEAD):
                if fields[col] != "_" and not _HEAD.match(fields[col]):
                    raise error(f"{names[col]} {fields[col]!r} is neither a word number nor _", number)
            words.append(fields)
            self.word_lines.append(number)
            self.empty_nodes = 0
            return
        self.add_other(fields, line, number)

    def add_other(self, fields: list[str], line: str, number: int) -> None:
        """A line of well-formed fields whose ID is not a word's: a multiword token or an empty node."""
        error, names = self.reader._error, COLUMNS[self.reader.format]
        words = self.sentence.words
        id_ = fields[ID]
        if not self.conllu:
            kind = "a multiword token" if _RANGE_ID.match(id_) else "an empty node" if _EMPTY_ID.match(id_) else None
            if kind:
                raise error(f"ID {id_!r} is {kind}, which CoNLL-X has not (for CoNLL-U, use --format conllu)", number)
            raise error(f"ID {id_!r} is not a word number", number)
        if m := _RANGE_ID.match(id_):
            first, last = int(m[1]), int(m[2])
            if first >= last:
                raise error(f"multiword token {id_}: the range must span at least two words", number)
            if first != len(words) + 1:
                raise error(f"multiword token {id_} must come just before word {first}", number)
            if first <= self.range_end:
                raise error(f"multiword token {id_} overlaps the one before it", number)
            self.range_end, self.range_line = last, number
        elif m := _EMPTY_ID.match(id_):
            after, index = int(m[1]), int(m[2])
            if after != len(words):
                raise error(f"empty node {id_} must follow word {after}, but follows word {len(words)}", number)
            if index != self.empty_nodes + 1:
                raise error(f"empty node {id_} out of order: expected {after}.{self.empty_nodes + 1}", number)
            self.empty_nodes += 1
        else:
            raise error(f"ID {id_!r} is neither a word number, a range (3-4) nor an empty node (8.1)", number)
        for col in (HEAD, DEPREL):
            if fields[col] != "_":
                raise error(f"{names[col]} of multiword token or empty node {id_} must be _", number)
        self.sentence.extra.append((len(words), line))

    def finish(self) -> Sentence:
        """The sentence, once its heads are known to form a tree (or all to be _)."""
        sentence, error = self.sentence, self.reader._error
        words, n = sentence.words, len(sentence.words)
        if n == 0:
            raise error("sentence without words (only comments, multiword tokens or empty nodes)", sentence.line)
        if self.range_end > n:
            raise error(f"multiword token ends at word {self.range_end}, past the last word {n}", self.range_line)
        names = COLUMNS[sentence.format]
        for col in (HEAD,) if self.conllu else (HEAD, PHEAD):
            for w, line in zip(words, self.word_lines):
                if w[col] != "_" and int(w[col]) > n:
                    raise error(f"{names[col]} {w[col]} is out of range: the sentence has {n} words", line)
        unparsed = [line for w, line in zip(words, self.word_lines) if w[HEAD] == "_"]
        if unparsed and len(unparsed) < n:
            raise error("HEAD is _ but other words of this sentence have heads", unparsed[0])
        if not unparsed:
            cycle = find_cycle(sentence.heads)
            if cycle:
                path = " -> ".join(str(d) for d in cycle + cycle[:1])
                raise error(f"the heads form a cycle ({path}), not a tree", self.word_lines[cycle[0] - 1])
        return sentence


_NOT_IN_A_LABEL = re.compile("[\x00-\x1f\x7f\ud800-\udfff]")  # controls (tab, line breaks ...) and surrogates


def valid_label(text: str) -> bool:
    """A DEPREL that a CoNLL file can hold, as the reader takes fields: not empty, no tab, line
    break or other control character, nothing that is not a character (a lone surrogate), no
    blanks around it."""
    return bool(text) and text == text.strip() and not _NOT_IN_A_LABEL.search(text)


def _evidence(line: str) -> str | None:
    """The format one line proves, if any."""
    if line.startswith("#"):
        return "conllu"
    fields = line.split("\t")
    if _RANGE_ID.match(fields[0]) or _EMPTY_ID.match(fields[0]):
        return "conllu"
    if len(fields) == WIDTH and _WORD_ID.match(fields[0]):
        if _HEAD.match(fields[PHEAD]):
            return "conllx"
        if ":" in fields[DEPS]:
            return "conllu"
    return None


def _peek(lines: list[str], seen: list[str], pending: Callable[[], bool]) -> bool:
    """Add ``lines`` to the lines ``seen`` for the format's decision; whether they are enough: a
    line that proves a format, _PEEK_LINES lines, or a sentence's end after which a pipe waits."""
    for i, line in enumerate(lines, 1):
        seen.append(line)
        if len(seen) >= _PEEK_LINES or _evidence(line):
            return True
        if line == "" and i == len(lines) and not pending():
            return True
    return False


def _detect(peeked: list[str], name: str) -> str:
    for line in peeked:
        if found := _evidence(line):
            return found
    lower = name.lower()
    if lower.endswith(".conllu"):
        return "conllu"
    if lower.endswith((".conll", ".conllx")):
        return "conllx"
    for line in peeked:
        fields = line.split("\t")
        if len(fields) == WIDTH and "=" in fields[MISC]:
            return "conllu"
    return "conllx"


def format_sentence(sentence: Sentence, format: str | None = None, postag_from: str = "xpos") -> str:
    """The sentence as CoNLL text in ``format`` (default: its own), ending with its empty line.

    Written in its own format, every line comes out as it was read, apart from the line ends
    (always LF). CoNLL-U to CoNLL-X keeps the words' first eight columns (POSTAG from XPOS, or
    from UPOS with ``postag_from="upos"``) and blanks PHEAD and PDEPREL; CoNLL-X to CoNLL-U
    blanks DEPS and MISC. Lines CoNLL-X cannot hold (comments, multiword tokens, empty nodes)
    are left out.
    """
    format = format or sentence.format
    if format == sentence.format:
        if not sentence.extra:
            return "\n".join(map("\t".join, sentence.words)) + "\n\n"
        lines = []
        extra = iter(sentence.extra)
        pending = next(extra, None)
        for i, w in enumerate(sentence.words):
            while pending is not None and pending[0] <= i:
                lines.append(pending[1])
                pending = next(extra, None)
            lines.append("\t".join(w))
        while pending is not None:
            lines.append(pending[1])
            pending = next(extra, None)
        return "\n".join(lines) + "\n\n"
    postag = UPOS if (sentence.format, format, postag_from) == ("conllu", "conllx", "upos") else POSTAG
    # the columns both formats have, POSTAG from ``postag``; the others (PHEAD and PDEPREL, DEPS and MISC) blank
    line = "\t".join(f"{{{postag if k == POSTAG else k}}}" if k in SHARED else "_" for k in range(WIDTH)) + "\n"
    return "".join(line.format(*w) for w in sentence.words) + "\n"
