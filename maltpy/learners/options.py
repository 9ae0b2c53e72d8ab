"""The learners' options (MaltParser's ``-lo``, ``lib.options``): each learner's flags with their
types, bounds and defaults, and the parsing of an option string or mapping into checked values.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import cut


def quoted(value: Any) -> str:
    """A user's value quoted in a message, cut short (a file may hold anything)."""
    return cut(repr(value), 60)


@dataclass(frozen=True, slots=True)
class LibOption:
    """One learner option: its type (int, float or str), default, bounds (None: open) and, for a
    string, the values it takes (a regular expression, matched whole, case ignored)."""

    kind: type  # int, float, str, or dict: LIBSVM's class weights (see CLASS_WEIGHTS)
    default: int | float | str | Mapping
    low: float | None = None
    high: float | None = None
    pattern: str | None = None
    shown: str = ""  # the values of a string option, as the error message names them
    above: bool = False  # the value must be greater than ``low``, not equal to it


#: Each learner's options by flag. LIBSVM's and LIBLINEAR's defaults are MaltParser 1.9.2's
#: (LibSvm.getDefaultLibOptions, LibLinear.getDefaultLibOptions); k-NN's take TiMBL's letters with
#: the settings of Nivre et al. (2007), §4.1, as defaults.
LEARNER_OPTIONS: dict[str, dict[str, LibOption]] = {
    "libsvm": {
        "s": LibOption(int, 0, 0, 1),  # svm type: C-SVC (1: nu-SVC); the others are not classifiers
        "t": LibOption(int, 1, 0, 3),  # kernel: polynomial (gamma*u'v + coef0)^degree
        "d": LibOption(int, 2, 1, 20),  # degree
        "g": LibOption(float, 0.2, 0),  # gamma (0: LIBSVM's 1 / number of features)
        "r": LibOption(float, 0.0),  # coef0
        "c": LibOption(float, 1.0, 0, above=True),  # cost C
        "n": LibOption(float, 0.5, 0, 1, above=True),  # nu
        "p": LibOption(float, 0.1, 0),  # epsilon of the epsilon-SVR loss
        "m": LibOption(float, 100.0, 0, above=True),  # cache size in MB
        "e": LibOption(float, 1.0, 0, above=True),  # stopping tolerance
        "h": LibOption(int, 1, 0, 1),  # shrinking heuristics
        "b": LibOption(int, 0, 0, 1),  # probability estimates
        "w": LibOption(dict, {}, 0, 1e6, above=True),  # -w<class> <weight>: C of that class's instances, times weight
    },
    "liblinear": {
        "s": LibOption(int, 4, 0, 7),  # solver: Crammer-Singer multi-class SVM
        "c": LibOption(float, 0.1, 0, above=True),  # cost C
        "e": LibOption(float, 0.1, 0, above=True),  # stopping tolerance
        "B": LibOption(float, -1.0, None, 1e6),  # bias feature's value; 0 or negative = no bias term
    },
    "knn": {
        "k": LibOption(int, 5, 1, 100_000),  # the k nearest distances
        "m": LibOption(str, "M", pattern="M|O", shown="M or O"),  # metric: MVDM or Overlap
        "L": LibOption(int, 3, 1, 100_000),  # MVDM for values seen at least L times, Overlap below
        "d": LibOption(
            str,
            "ID",
            pattern=r"Z|ID|IL|ED:[0-9]{1,15}(\.[0-9]{0,15})?(:[0-9]{1,15}(\.[0-9]{0,15})?)?",
            shown="Z, ID, IL or ED:a[:b]",
        ),  # class votes weighted by distance: equally, inverse distance, inverse linear, exponential decay
        "w": LibOption(int, 1, 0, 4),  # weighting: none, gain ratio, information gain, chi-square, shared variance
    },
}

#: LIBSVM's -wi, given as ``-w<class> <weight>``: the cost C of the instances of a class is
#: C * weight (svm.cpp, svm_train: weighted_C). LIBSVM names a class by its number in the training
#: file; maltpy's numbers are its own, so the class is named as ``maltpy info`` lists the classes:
#: ``-wRE 2``, ``-wLA~nsubj 0.5``, or a transition alone, ``-wLA 2``, for all its classes (a class
#: named in full takes its own weight). MaltParser 1.9.2 has no -w (LibSvm's allowed flags are
#: "stdgrnmcepb" and Lib.parseParameters rejects any other); 1.7 passed it to LIBSVM by number.
CLASS_WEIGHTS = "w"
_CLASS_NAME = re.compile(r"[A-Z]{1,8}(~\S{1,200})?\Z")
MAX_CLASS_WEIGHTS = 10_000


def parse_learner_options(value: Any, learner: str) -> dict[str, int | float | str | dict[str, float]]:
    """Learner options from MaltParser's ``-lo`` string (``-s 4 -c 0.1``, blanks or ``_`` between,
    or TiMBL's ``-k5 -mM`` with the value joined to its one-letter flag) or from a mapping
    {flag: value}, checked against the learner's flags and merged over its defaults. LIBSVM's
    class weights are ``-w<class> <weight>`` in a string, ``{w: {class: weight}}`` or
    ``{w<class>: weight}`` in a mapping (see CLASS_WEIGHTS). Raises ValueError with a message
    naming the offending flag."""
    allowed = LEARNER_OPTIONS[learner]
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


#: The learner options that the learner's other options leave unread, each with when and why:
#: LIBSVM's parameters of a kernel or an SVM type other than the one chosen (svm.h, svm.cpp:
#: kernel_function reads degree, gamma and coef0 by kernel type; svm_train reads C and the class
#: weights for C-SVC, nu for nu-SVC, p for the regressions only), and its probability model,
#: which maltpy's prediction never reads (it votes on the decision values);
#: TiMBL's MVDM threshold with the Overlap metric. Set to anything but its default, such an
#: option would change nothing, so it is refused (``ignored_learner_option``).
IGNORED_WHEN: dict[str, dict[str, tuple[Any, str]]] = {
    "libsvm": {
        "d": (lambda o: o["t"] != 1, "the degree is the polynomial kernel's (-t 1)"),
        "g": (lambda o: o["t"] == 0, "the linear kernel (-t 0) has no gamma"),
        "r": (lambda o: o["t"] not in (1, 3), "coef0 is the polynomial and sigmoid kernels' (-t 1, -t 3)"),
        "c": (lambda o: o["s"] == 1, "nu-SVC (-s 1) is bounded by nu (-n), not by C"),
        "w": (lambda o: o["s"] == 1, "class weights scale C, which nu-SVC (-s 1) does not use"),
        "n": (lambda o: o["s"] != 1, "nu is nu-SVC's (-s 1)"),
        "p": (lambda o: True, "epsilon is the regressions' (epsilon-SVR), and maltpy's LIBSVM classifies"),
        "b": (lambda o: True, "maltpy votes on the decision values and never reads the probability model"),
    },
    "knn": {
        "L": (lambda o: o["m"] == "O", "the threshold is MVDM's (-m M), and the Overlap metric (-m O) has none"),
    },
}


def ignored_learner_option(options: Mapping[str, Any], learner: str) -> str | None:
    """Why one of ``options`` (``parse_learner_options``'s) would be left unread by the others
    (IGNORED_WHEN), or None: an option at its default changes nothing, and is taken."""
    allowed = LEARNER_OPTIONS[learner]
    for flag, (ignored, why) in IGNORED_WHEN.get(learner, {}).items():
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
