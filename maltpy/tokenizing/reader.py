"""Raw text in: paragraphs read from a stream, tokenized, given as CoNLL-U sentences.

Paragraphs are separated by empty lines (or lines of white space only); the lines of a paragraph
are one text, their line ends white space. On a pipe, a paragraph also ends where the input goes
quiet after a line end (``conll.QUIET_SECONDS``), so that a sentence typed at a prompt is parsed
when its line is sent. The text is read as CoNLL is (``lines.Blocks``): UTF-8, no control
character but the tab, lines of at most max_line_bytes(); anything else is a MaltpyError naming the
line, before any sentence of its paragraph is given.

Each sentence is written as UDPipe writes raw text's: ``# newdoc`` before the input's first,
``# newpar`` before a paragraph's first, ``# sent_id`` (1, 2 ... in the input) and ``# text`` (its
text, line ends and tabs as spaces), a line per word, FORM and (of a multiword token's range line
or a word of its own) MISC ``SpaceAfter=No`` where no white space follows the token in its
paragraph, ``SpacesAfter=`` (``\\s``, ``\\t``, ``\\n``, ``\\r``, ``\\\\`` and ``\\p`` for ``|``) where
the white space is not one space; every other column ``_``. The words' forms, with these, are the
input's text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, BinaryIO

from ..data.conll import QUIET_SECONDS, ConllReader, Sentence, format_sentence
from ..data.lines import Blocks, bytes_left
from ..errors import MaltpyError
from ..files import open_input, read_conll

if TYPE_CHECKING:
    from .tokenizer import Token, Tokenizer

TEXT = "text"  # the input format of raw text (-if text)
_LINE_SPACE = re.compile(r"[\t\n\r\x0b\x0c\x1c-\x1f\x85\u2028\u2029]")
_ESCAPES = {" ": "\\s", "\t": "\\t", "\n": "\\n", "\r": "\\r", "\\": "\\\\", "|": "\\p"}


class TextReader(ConllReader):
    """Sentences of raw text, tokenized by ``tokenizer``, as a ConllReader gives them (CoNLL-U,
    blind): ``parse`` and ``parse --jobs`` (whose workers are sent the sentences' CoNLL-U
    lines, ``raw``) read it as they read CoNLL."""

    def __init__(self, stream: BinaryIO, name: str, tokenizer: Tokenizer) -> None:  # noqa: D107 -- no super().__init__: nothing of CoNLL to detect
        self.name = name
        self.blind = True
        self.format = "conllu"
        self.size = bytes_left(stream)
        self.tokenizer = tokenizer
        self._source = Blocks(stream, name)
        self._rest = False
        self._sentences = 0  # given so far, for sent_id
        self._lines_out = 0  # CoNLL-U lines given by raw()

    def paragraphs(self) -> Iterator[tuple[int, str]]:
        """(the number of its first line, its text) of each paragraph."""
        held: list[str] = []
        first = 0
        for number, lines in self._source:
            for i, line in enumerate(lines, number):
                if line.strip():
                    if not held:
                        first = i
                    held.append(line)
                elif held:
                    yield first, "\n".join(held)
                    held = []
            if held and not self._source.pending(QUIET_SECONDS):
                yield first, "\n".join(held)
                held = []
        if held:
            yield first, "\n".join(held)

    def __iter__(self) -> Iterator[Sentence]:
        for line, text in self.paragraphs():
            yield from self.sentences(text, line)

    def sentences(self, text: str, line: int = 0) -> list[Sentence]:
        """The sentences of one paragraph (whose first line is ``line``), numbered on from the
        reader's last."""
        out = []
        tokenized = self.tokenizer.tokenize(text)
        for k, tokens in enumerate(tokenized):
            following = tokenized[k + 1][0].start if k + 1 < len(tokenized) else len(text)
            self._sentences += 1
            comments = (["# newdoc"] if self._sentences == 1 else []) + (["# newpar"] if k == 0 else [])
            out.append(conllu_sentence(tokens, text, following, self._sentences, comments, line))
        return out

    def raw(self) -> Iterator[tuple[int, bytes]]:
        """The sentences' CoNLL-U lines, a paragraph at a time (for ``parse --jobs``'s workers)."""
        for line, text in self.paragraphs():
            data = "".join(format_sentence(s) for s in self.sentences(text, line)).encode("utf-8")
            if data:
                number = self._lines_out + 1
                self._lines_out += data.count(b"\n")
                yield number, data


def conllu_sentence(tokens: list[Token], text: str, following: int, number: int, comments: list[str],
                    line: int) -> Sentence:  # fmt: skip
    """The CoNLL-U sentence of ``tokens`` of the paragraph ``text`` (the next token, if any, starts
    at ``following``)."""
    extra = [(0, c) for c in comments]
    extra.append((0, f"# sent_id = {number}"))
    extra.append((0, "# text = " + _LINE_SPACE.sub(" ", text[tokens[0].start : tokens[-1].end])))
    words: list[list[str]] = []
    for i, t in enumerate(tokens):
        after = text[t.end : tokens[i + 1].start if i + 1 < len(tokens) else following]
        if i + 1 == len(tokens) and following == len(text):
            after = " "  # the paragraph's end: nothing to say
        misc = "SpaceAfter=No" if not after else "_" if after == " " else "SpacesAfter=" + _escaped(after)
        if t.words:
            first = len(words) + 1
            extra.append((len(words), f"{first}-{first + len(t.words) - 1}\t{t.form}\t_\t_\t_\t_\t_\t_\t_\t{misc}"))
            for w in t.words:
                words.append([str(len(words) + 1), w, "_", "_", "_", "_", "_", "_", "_", "_"])
        else:
            words.append([str(len(words) + 1), t.form, "_", "_", "_", "_", "_", "_", "_", misc])
    return Sentence(words, "conllu", line, extra)


def _escaped(space: str) -> str:
    """White space as MISC holds it (UDPipe's escapes; any other as ``\\uXXXX``)."""
    return "".join(_ESCAPES.get(ch) or f"\\u{ord(ch):04X}" for ch in space)


NO_TOKENIZER = (
    "the model has no tokenizer (learned from a treebank without # text lines, or with tagger.columns none): "
    "learn it again from a CoNLL-U treebank with its text to parse raw text"
)


def tokenizer_of(parser, where: str) -> Tokenizer:
    """The tokenizer learned with ``parser`` (a models.base.Parser), or a MaltpyError naming ``where``."""
    taggers = getattr(parser, "taggers", None)
    tokenizer = getattr(taggers, "tokenizer", None)
    if tokenizer is None:
        raise MaltpyError(NO_TOKENIZER, where)
    return tokenizer


@contextmanager
def open_reader(
    path: str | None, format: str, tokenizer: Callable[[], Tokenizer], blind: bool = True
) -> Iterator[ConllReader]:
    """A reader of a file or of standard input: a TextReader if ``format`` is ``text`` (the
    tokenizer given by ``tokenizer()``, asked before the input is opened), else a ConllReader."""
    if format != TEXT:
        with read_conll(path, format, blind) as reader:
            yield reader
        return
    chosen = tokenizer()
    with open_input(path) as (stream, name):
        yield TextReader(stream, name, chosen)
