"""Multiword tokens: a token's analysis into words, as a class a classifier can learn.

An analysis is a JSON list:

- ``["none"]``: the token is one word;
- ``["split", n2, ..., nk]``: the words are the token's characters, the last k - 1 words of
  n2 ... nk characters (``didn't`` -> ``did n't``: ``["split", 3]``; ``neque`` -> ``ne que``);
- ``["edit", k, a, w2, ..., wk]``: the first word is the token without its last k characters,
  then ``a``; the others are w2 ... wk as written (``del`` -> ``de el``: ``["edit", 1, "", "el"]``;
  ``au`` -> ``à le``: ``["edit", 2, "à", "le"]``).

So the analyses seen in training apply to forms never seen (``militiaeque`` as ``itemque``).
"""

from __future__ import annotations

NONE = ["none"]
MAX_WORDS = 16
MAX_TEXT = 200


def analysis_of(form: str, words: list[str] | None) -> list:
    """The analysis that gives ``words`` from ``form`` (NONE for a one-word token)."""
    if not words or len(words) == 1 and words[0] == form:
        return NONE
    if "".join(words) == form:
        return ["split", *(len(w) for w in words[1:])]
    first = words[0]
    common = 0
    while common < min(len(form), len(first)) and form[common] == first[common]:
        common += 1
    return ["edit", len(form) - common, first[common:], *words[1:]]


def apply(form: str, analysis: list) -> list[str] | None:
    """The words of ``form`` by ``analysis``; None if it does not apply (too short a form)."""
    kind = analysis[0]
    if kind == "none":
        return None
    if kind == "split":
        lengths = analysis[1:]
        start = len(form) - sum(lengths)
        if start < 1:
            return None
        words = [form[:start]]
        for n in lengths:
            words.append(form[start : start + n])
            start += n
        return words
    k, a = analysis[1], analysis[2]
    if k >= len(form) and not a:
        return None
    return [form[: len(form) - k] + a, *analysis[3:]]


def valid_analysis(value: object) -> bool:
    """Whether ``value`` is an analysis (of an archive: untrusted)."""
    if not isinstance(value, list) or not value or len(value) > MAX_WORDS + 3:
        return False
    kind, rest = value[0], value[1:]
    if kind == "none":
        return not rest
    if kind == "split":
        return bool(rest) and all(type(n) is int and 0 < n <= MAX_TEXT for n in rest)
    if kind == "edit":
        return (len(rest) >= 3 and type(rest[0]) is int and 0 <= rest[0] <= MAX_TEXT
                and all(isinstance(w, str) and len(w) <= MAX_TEXT for w in rest[1:])
                and (not rest[1] or _word(rest[1])) and all(_word(w) for w in rest[2:]))  # fmt: skip
    return False


def _word(text: str) -> bool:
    """A word's form as a CoNLL field holds it: not empty, no white space, control character or
    lone surrogate (JSON's ``"\\ud800"``: not UTF-8, which the output is)."""
    return bool(text) and not any(ch.isspace() or ord(ch) < 32 or ord(ch) == 127 or "\ud800" <= ch <= "\udfff"
                                  for ch in text)  # fmt: skip
