"""The text of a CoNLL-U treebank, as the tokenizer learns from it: paragraphs of raw text with
where each token and sentence ends, and each token's multiword analysis.

A paragraph is the ``# text`` of its sentences joined as UD's conllu_to_text joins them: with a
space, or none after a sentence whose last token has ``SpaceAfter=No``; a ``# newdoc`` or
``# newpar`` comment begins a new one (a treebank with neither is one paragraph). A sentence's
tokens are its multiword tokens (a range line, whose words are its analysis) and its other words;
they are found in its text by their characters other than white space, in order. A sentence
without ``# text``, or whose tokens are not its text, is left out, and the paragraph is cut there.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..data.conll import FORM, MISC, Sentence

_SPACE = re.compile(r"\s+")
_RANGE = re.compile(r"([1-9][0-9]*)-([1-9][0-9]*)\t")


@dataclass
class Paragraph:
    """Raw text; for each token its span ``(start, end)`` in ``text``, whether a sentence ends
    after it, and its words (None: the token is one word, its form)."""

    text: str = ""
    spans: list[tuple[int, int]] = field(default_factory=list)
    sentence_ends: list[bool] = field(default_factory=list)
    words: list[list[str] | None] = field(default_factory=list)


def _starts_block(sentence: Sentence) -> bool:
    return any(before == 0 and re.match(r"#\s*new(doc|par)\b", line) for before, line in sentence.extra)


def tokens_of(sentence: Sentence) -> list[tuple[str, list[str] | None, bool]]:
    """Each token's (form, its words if it is a multiword token, whether SpaceAfter=No)."""
    ranges = {}
    for _, line in sentence.extra:
        m = _RANGE.match(line)
        if m:
            ranges[int(m.group(1))] = (int(m.group(2)), line.split("\t"))
    out = []
    i, n = 1, len(sentence.words)
    while i <= n:
        if i in ranges and ranges[i][0] >= i:
            last, fields = ranges[i]
            misc = fields[MISC] if len(fields) > MISC else "_"
            words = [w[FORM] for w in sentence.words[i - 1 : last]]
            out.append((fields[FORM], words, "SpaceAfter=No" in misc.split("|")))
            i = last + 1
        else:
            word = sentence.words[i - 1]
            out.append((word[FORM], None, "SpaceAfter=No" in word[MISC].split("|")))
            i += 1
    return out


def _aligned(text: str, forms: list[str]) -> list[tuple[int, int]] | None:
    """Each form's span in ``text``, matching their characters other than white space in order;
    None if they are not the text's."""
    spans = []
    position = 0
    n = len(text)
    for form in forms:
        chars = _SPACE.sub("", form)
        if not chars:
            return None
        start = None
        for ch in chars:
            while position < n and text[position].isspace():
                position += 1
            if position >= n or text[position] != ch:
                return None
            if start is None:
                start = position
            position += 1
        spans.append((start, position))
    return spans if not text[position:].strip() else None


def paragraphs(sentences: Iterable[Sentence]) -> tuple[list[Paragraph], int]:
    """The treebank's paragraphs, and the number of sentences left out (no ``# text``, or tokens
    that are not it)."""
    out: list[Paragraph] = []
    current = Paragraph()
    left_out = 0
    glue = ""
    for sentence in sentences:
        text = sentence.comment("text")
        tokens = tokens_of(sentence)
        spans = _aligned(text, [t[0] for t in tokens]) if text and tokens else None
        if spans is None:
            left_out += 1
            if current.spans:
                out.append(current)
            current, glue = Paragraph(), ""
            continue
        if _starts_block(sentence) and current.spans:
            out.append(current)
            current, glue = Paragraph(), ""
        offset = len(current.text) + len(glue) if current.spans else 0
        current.text += (glue if current.spans else "") + text
        current.spans += [(offset + s, offset + e) for s, e in spans]
        current.sentence_ends += [False] * (len(tokens) - 1) + [True]
        current.words += [t[1] for t in tokens]
        glue = "" if tokens[-1][2] else " "
    if current.spans:
        out.append(current)
    return out, left_out
