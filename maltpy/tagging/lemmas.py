"""Lemmas as edit scripts (Chrupała 2008; Chrupała, Dinu and van Genabith 2008): the lemma is
predicted as the class of the shortest edit that turns the form into it, so that one class
(``cut "s" at the end``) serves every word it fits, seen in training or not, as UDPipe's and
MorphoDiTa's lemmatizers do.

A script is ``(case, cut_start, add_start, cut_end, add_end)``: the form is first put in lower
case (``case`` "l") or kept ("k"), then ``cut_start`` characters are cut from its start and
``cut_end`` from its end, and ``add_start`` and ``add_end`` are written there. The part kept is
the longest common substring of the (cased) form and the lemma, so the edit is the shortest of
this shape: ``("l", 0, "", 3, "")`` turns *Stopped* into *stop*, ``("k", 0, "", 4, "o")``
*amavit* into *amo*. Lower case is chosen when the lemma is in lower case and that keeps as
much (so that *Dogs* and *dogs* share a class). A lemma that shares no character with the form
(*went*, *go*) is a whole replacement, ``("=", 0, lemma, 0, "")``. A script applies to a form
only if something of it is kept (``apply_script`` gives None otherwise).
"""

from __future__ import annotations

Script = tuple[str, int, str, int, str]
CASES = ("k", "l", "=")


def _common(a: str, b: str) -> tuple[int, int, int]:
    """The longest common substring of a and b: (its start in a, its start in b, its length),
    the first in a of the longest."""
    best = (0, 0, 0)
    previous = [0] * (len(b) + 1)
    for i in range(1, len(a) + 1):
        current = [0] * (len(b) + 1)
        ai = a[i - 1]
        for j in range(1, len(b) + 1):
            if ai == b[j - 1]:
                n = current[j] = previous[j - 1] + 1
                if n > best[2]:
                    best = (i - n, j - n, n)
        previous = current
    return best


def edit_script(form: str, lemma: str) -> Script:
    """The shortest edit script that turns ``form`` into ``lemma``."""
    if form == lemma:
        return ("k", 0, "", 0, "")
    kept = _common(form, lemma)
    if lemma == lemma.lower():
        lowered = _common(form.lower(), lemma)
        if lowered[2] >= kept[2]:
            return _script("l", form.lower(), lemma, lowered)
    return _script("k", form, lemma, kept)


def _script(case: str, cased: str, lemma: str, common: tuple[int, int, int]) -> Script:
    i, j, n = common
    if n == 0:
        return ("=", 0, lemma, 0, "")
    return (case, i, lemma[:j], len(cased) - i - n, lemma[j + n :])


def apply_script(form: str, script: Script) -> str | None:
    """The lemma the script makes of ``form``, or None if it does not apply (it would cut all)."""
    case, cut_start, add_start, cut_end, add_end = script
    if case == "=":
        return add_start
    cased = form.lower() if case == "l" else form
    if len(cased) - cut_start - cut_end < 1:
        return None
    return add_start + cased[cut_start : len(cased) - cut_end] + add_end


def valid_script(value: object) -> bool:
    """Whether ``value`` (read from a model archive, as a JSON list) is a script."""
    return (
        isinstance(value, (list, tuple)) and len(value) == 5 and value[0] in CASES
        and all(type(value[k]) is int and 0 <= value[k] <= 10_000 for k in (1, 3))
        and all(isinstance(value[k], str) and len(value[k]) <= 10_000 for k in (2, 4))
    )  # fmt: skip
