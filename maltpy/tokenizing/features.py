"""The features of the tokenizer's three classifiers, as strings.

Token ends: the points inside a run of characters without white space (a chunk; white space
always ends a token), each described by its chunk alone, so that a chunk's tokens depend on the
chunk only (``Tokenizer`` remembers them): the characters before and after the point (1 to 3,
lower-cased), their kinds (upper, lower, digit, other letter, or the character itself), the
parts of the chunk on either side and the whole chunk (lower-cased, when short), and how far the
point is from the chunk's ends. Only the points between characters of kinds that training split
between are classified (``pair``): between two letters, in a treebank that never splits there,
no token ends.

Sentence ends: each token but a paragraph's last that may end one (``tokenizer._candidates``), by
its form and the forms of the two tokens on either side (lower-cased), their shapes, the white
space after it (none, spaces, a line end), the first character's kind of the next token, and its
place in its paragraph (the first six, or later: a heading before its text).

Multiword tokens: a token by its form (lower-cased), suffixes of 1 to 5 characters, prefixes of 1
to 3, its shape and length.
"""

from __future__ import annotations

SHORT = 12  # characters of a chunk part (or a token) given whole as a feature
SHORT_CHUNK = 20


def kind(ch: str) -> str:
    """A character's kind: ``U`` upper-case, ``L`` lower-case, ``D`` digit, ``A`` another
    letter (no case), or the character itself."""
    if ch.isalpha():
        return "U" if ch.isupper() else "L" if ch.islower() else "A"
    return "D" if ch.isdigit() else ch


class _Kinds(dict):
    """Each character's kind, found once."""

    def __missing__(self, ch: str) -> str:
        self[ch] = found = kind(ch)
        return found


KINDS = _Kinds()


def kinds_of(text: str) -> str:
    """The kind of each character of ``text``."""
    return "".join(map(KINDS.__getitem__, text))


def pair(a: str, b: str) -> str:
    """The coarse kinds of two neighbouring characters (a letter ``a``, a digit ``d``, else ``o``)."""
    return _coarse(a) + _coarse(b)


def _coarse(ch: str) -> str:
    return "a" if ch.isalpha() else "d" if ch.isdigit() else "o"


def chunk_views(chunk: str) -> tuple[str, str, str, list[int]]:
    """What point_features reads of a chunk, found once for all its points: the chunk
    lower-cased (a character for a character: U+0130's lower case is two), its characters'
    kinds, and the runs of its kinds (``_runs``)."""
    lower = chunk.lower()
    if len(lower) != len(chunk):
        lower = "".join(ch.lower()[:1] or ch for ch in chunk)
    kinds = kinds_of(chunk)
    return (lower, kinds, *_runs(kinds))


def point_features(chunk: str, views: tuple[str, str, str, list[int]], j: int) -> list[str]:
    """The features of the point before ``chunk[j]`` (0 < j < len(chunk)); ``views`` are the
    chunk's ``chunk_views``."""
    n = len(chunk)
    lower, kinds, runs, of = views
    a1, b1 = lower[j - 1], lower[j]
    a2, b2 = lower[max(0, j - 2) : j], lower[j : j + 2]
    a3, b3 = lower[max(0, j - 3) : j], lower[j : j + 3]
    out = [
        "a" + a1, "b" + b1, "ab" + a1 + b1, "a2" + a2, "b2" + b2, "a3" + a3, "b3" + b3,
        "a2b" + a2 + "|" + b1, "ab2" + a1 + "|" + b2, "a2b2" + a2 + "|" + b2,
        "k" + kinds[max(0, j - 3) : j] + "|" + kinds[j : j + 3], "k1" + kinds[j - 1 : j + 1],
        "k2" + kinds[max(0, j - 2) : j + 2],
        "pl" + str(min(j, 6)), "pr" + str(min(n - j, 6)),
        "ls" + _squeezed_runs(runs, 0, of[j - 1] + 1), "rs" + _squeezed_runs(runs, of[j], len(runs)),
    ]  # fmt: skip
    if j <= SHORT:
        out.append("L" + lower[:j])
    if n - j <= SHORT:
        out.append("R" + lower[j:])
    if n <= SHORT_CHUNK:
        out.append("W" + lower)
    return out


def _runs(kinds: str) -> tuple[str, list[int]]:
    """The kind of each run of ``kinds`` and the run of each character: ``_squeezed`` of any
    prefix or suffix from them in constant time (a chunk of 40,000 points took 33 s, its
    features each read the whole chunk)."""
    runs, of = [], []
    for k in kinds:
        if not runs or runs[-1] != k:
            runs.append(k)
        of.append(len(runs) - 1)
    return "".join(runs), of


def _squeezed_runs(runs: str, start: int, end: int) -> str:
    """``_squeezed`` of the characters of runs ``start`` ... ``end - 1``."""
    return runs[start:end] if end - start <= 12 else runs[start : start + 6] + "~" + runs[end - 6 : end]


def _squeezed(kinds: str) -> str:
    """Kinds with each run collapsed to one, at most 6 kept at each end."""
    runs, _ = _runs(kinds)
    return _squeezed_runs(runs, 0, len(runs))


def sentence_features(lowers: list[str], shapes: list[str], spaces: list[str], firsts: list[str], i: int) -> list[str]:
    """The features of a sentence end after token ``i`` of a paragraph's tokens (lower-cased
    forms, shapes, the kind of white space after each: ``""``, ``s`` or ``n``, and the kind of
    each token's first character)."""
    n = len(lowers)

    def w(k: int) -> str:
        return lowers[i + k] if 0 <= i + k < n else ("<s>" if i + k < 0 else "</p>")

    def s(k: int) -> str:
        return shapes[i + k] if 0 <= i + k < n else ("<s>" if i + k < 0 else "</p>")

    first = firsts[i + 1] if i + 1 < n else "</p>"
    return [
        "w" + w(0), "n" + w(1), "p" + w(-1), "n2" + w(2), "p2" + w(-2),
        "s" + s(0), "ns" + s(1), "ps" + s(-1), "n2s" + s(2),
        "wn" + w(0) + "|" + w(1), "ss" + s(0) + "|" + s(1), "pw" + w(-1) + "|" + w(0), "wns" + w(0) + "|" + s(1),
        "swn" + s(0) + "|" + w(1), "nn2" + w(1) + "|" + w(2), "sp" + spaces[i], "f" + first,
        "spf" + spaces[i] + first, "wf" + w(0) + "|" + first, "e" + lowers[i][-1:], "len" + str(min(len(lowers[i]), 5)),
        "sss" + s(-1) + "|" + s(0) + "|" + s(1), "at" + _place(i) + "|" + s(0) + "|" + s(1),
    ]  # fmt: skip


def _place(i: int) -> str:
    """A token's place in its paragraph, from its start: 0 to 5, or more."""
    return str(i) if i < 6 else "6+"


def token_shape(form: str) -> str:
    """A token's shape: its characters' kinds, each run collapsed to one (``McDonald's`` ->
    ``ULUL'L``)."""
    return _squeezed(kinds_of(form))


def word_features(form: str) -> list[str]:
    """The features of a token for its multiword analysis."""
    lower = form.lower()
    out = ["f" + lower, "sh" + token_shape(form), "len" + str(min(len(form), 8))]
    out += ["s" + str(k) + lower[-k:] for k in range(1, 6) if len(lower) > k]
    out += ["p" + str(k) + lower[:k] for k in range(1, 4) if len(lower) > k]
    return out
