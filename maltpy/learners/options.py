"""The learners' options (MaltParser's ``-lo``, ``lib.options``): the parsing of an option string
or mapping into checked values, against the learner's flags with their types, bounds and
defaults (its class's ``options``, ``base.LibOption``).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from ..errors import cut
from . import LEARNERS
from .kinds import CLASS_WEIGHTS, LibOption

__all__ = ["CLASS_WEIGHTS", "LibOption", "ignored_learner_option", "parse_learner_options"]


def quoted(value: Any) -> str:
    """A user's value quoted in a message, cut short (a file may hold anything)."""
    return cut(repr(value), 60)


_CLASS_NAME = re.compile(r"[A-Z]{1,8}(~\S{1,200})?\Z")
MAX_CLASS_WEIGHTS = 10_000


def parse_learner_options(value: Any, learner: str) -> dict[str, int | float | str | dict[str, float]]:
    """Learner options from MaltParser's ``-lo`` string (``-s 4 -c 0.1``, blanks or ``_`` between,
    or TiMBL's ``-k5 -mM`` with the value joined to its one-letter flag) or from a mapping
    {flag: value}, checked against the learner's flags and merged over its defaults. LIBSVM's
    class weights are ``-w<class> <weight>`` in a string, ``{w: {class: weight}}`` or
    ``{w<class>: weight}`` in a mapping (see CLASS_WEIGHTS). Raises ValueError with a message
    naming the offending flag."""
    allowed = LEARNERS[learner].options
    weighted = allowed.get(CLASS_WEIGHTS, LibOption(int, 0)).kind is dict
    given: dict[str, Any] = {}
    weights: dict[str, Any] = {}

    def weigh(name: str, raw: Any) -> None:
        if name in weights:
            raise ValueError(f"-{CLASS_WEIGHTS}{quoted(name)[1:-1]} is given twice")
        weights[name] = raw

    if isinstance(value, str):
        tokens = [t for t in re.split(r"[_\s]+", value.strip()) if t]
        while tokens:
            flag = tokens.pop(0)
            if not flag.startswith("-") or len(flag) < 2:
                raise ValueError(f"{quoted(flag)} is not a flag (flags start with -)")
            if weighted and flag[1] == CLASS_WEIGHTS:
                if not tokens:
                    raise ValueError(f"{quoted(flag)} needs a weight (-w<class> <weight>)")
                weigh(flag[2:], tokens.pop(0))
                continue
            if len(flag) > 2 and flag[1] in allowed and flag[1:] not in allowed:
                flag, raw = flag[:2], flag[2:]
            elif tokens:
                raw = tokens.pop(0)
            else:
                raise ValueError(f"{quoted(value)}: every flag needs a value (-flag value ...)")
            given[flag[1:]] = raw
    elif isinstance(value, Mapping):
        for key, raw in value.items():
            flag = str(key).lstrip("-")
            if weighted and flag == CLASS_WEIGHTS:
                if not isinstance(raw, Mapping):
                    raise ValueError("-w takes a mapping of classes to weights, such as {RE: 2, LA~nsubj: 0.5}")
                for name, weight in raw.items():
                    weigh(str(name), weight)
            elif weighted and flag[:1] == CLASS_WEIGHTS:
                weigh(flag[1:], raw)
            else:
                given[flag] = raw
    elif value is None:
        pass
    else:
        raise ValueError("expected a string such as '-c 0.1' or a mapping such as {c: 0.1}")
    options = {flag: dict(spec.default) if spec.kind is dict else spec.default for flag, spec in allowed.items()}
    for flag, raw in given.items():
        if flag not in allowed:
            raise ValueError(f"-{flag} is not a {learner} option (known: {' '.join('-' + f for f in allowed)})")
        options[flag] = _lib_value(flag, raw, allowed[flag])
    if weights:
        options[CLASS_WEIGHTS] = _class_weights(weights, allowed[CLASS_WEIGHTS])
    return options


def ignored_learner_option(options: Mapping[str, Any], learner: str) -> str | None:
    """Why one of ``options`` (``parse_learner_options``'s) would be left unread by the others
    (the learner's ``ignored_when``), or None: an option at its default changes nothing, and is
    taken. Set to anything but its default, such an option would change nothing, so it is refused."""
    allowed = LEARNERS[learner].options
    for flag, (ignored, why) in LEARNERS[learner].ignored_when.items():
        if options[flag] != allowed[flag].default and ignored(options):
            value = " ".join(f"-w{name} {weight}" for name, weight in options[flag].items()) if flag == CLASS_WEIGHTS \
                else f"-{flag} {options[flag]}"  # fmt: skip
            return f"{value}: {why}; {learner} would ignore it"
    return None


def _class_weights(weights: dict[str, Any], spec: LibOption) -> dict[str, float]:
    """LIBSVM's class weights by class name, or ValueError saying what is wrong with one."""
    if len(weights) > MAX_CLASS_WEIGHTS:
        raise ValueError(f"{len(weights)} class weights (-w), more than {MAX_CLASS_WEIGHTS}")
    out = {}
    for name, raw in weights.items():
        if not _CLASS_NAME.match(name):
            hint = (
                "LIBSVM's class numbers are maltpy's own: name the class" if re.fullmatch(r"[+-]?[0-9]+", name)
                else "not a class: give a transition (RE) or a transition and label (LA~nsubj)"
            )  # fmt: skip
            raise ValueError(f"-w{quoted(name)[1:-1]}: {hint}, as `maltpy info` lists the classes (-wRE 2)")
        out[name] = _lib_value(f"w{name}", raw, LibOption(float, 1.0, spec.low, spec.high, above=spec.above))
    return out


def _lib_value(flag: str, raw: Any, spec: LibOption) -> int | float | str:
    """The value of one learner option, or ValueError saying what is wrong with it."""
    if spec.kind is str:
        text = str(raw).strip().upper() if isinstance(raw, (str, int, float)) and not isinstance(raw, bool) else None
        if text is None or not re.fullmatch(spec.pattern, text):
            raise ValueError(f"-{flag} takes {spec.shown}, not {quoted(raw)}")
        return text
    number = _number(raw, spec.kind)
    if number is None:
        raise ValueError(f"-{flag} takes {'an integer' if spec.kind is int else 'a number'}, not {quoted(raw)}")
    low, high = spec.low, spec.high
    if spec.above and number <= low:
        raise ValueError(f"-{flag} {cut(raw, 30)} must be greater than {low}")
    if (low is not None and number < low) or (high is not None and number > high):
        bounds = f"{low if low is not None else '-inf'}..{high if high is not None else 'inf'}"
        raise ValueError(f"-{flag} {cut(raw, 30)} is outside {bounds}")
    return number


#: The largest value of an integer option: MaltParser reads its options as Java ints.
MAX_INT = 2**31 - 1


def integer(text: str) -> int:
    """The integer a string of digits (with a sign) writes; one of more than 18 digits, beyond
    every option's bounds, as -2**63 or 2**63, its digits unread (Python reads 4,300 at most)."""
    if len(text.lstrip("+-").lstrip("0")) > 18:
        return -(2**63) if text.startswith("-") else 2**63
    return int(text)


def _number(raw: Any, kind: type) -> int | float | None:
    """``raw`` as a finite number of type ``kind``, or None if it is not one."""
    if isinstance(raw, str):
        text = raw.strip()
        if kind is int:
            return integer(text) if re.fullmatch(r"[+-]?[0-9]+", text) else None
        try:
            raw = float(text)
        except ValueError:
            return None
    if isinstance(raw, bool) or not isinstance(raw, (int, float)):
        return None
    if kind is int:
        return raw if isinstance(raw, int) else None
    return float(raw) if math.isfinite(raw) else None
