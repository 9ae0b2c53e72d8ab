"""The run configuration: a YAML file validated into typed settings.

The file mirrors MaltParser 1.9.2's option file: top-level keys are its option groups
(``singlemalt``, ``guide``, ``lib``, ``nivre``, ``covington``, ``multiplanar``, ``planar``, ``2planar``,
``pproj``, ``graph``, ``input``)
and the keys inside them are its option names, with its defaults. Every option also has
MaltParser's command-line flag (``-a``, ``-l``, ``-F``, ``-nr`` ...), through which the command
line overrides the file. ``covington.max_degree`` is maltpy's own (Nivre 2007, §3).

An unknown group or key, a value of the wrong type or an illegal value is a ``MaltpyError``
naming the file, the line and the key.
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml

from .conll import valid_label
from .errors import MaltpyError, cut
from .files import read_file
from .pseudoproj import COVERED_ROOTS, LIFTING_ORDERS, MARK_CHARACTERS, MARKING_STRATEGIES, Encoding
from .transition import SYSTEMS

LEARNERS = ("liblinear", "libsvm", "knn")

#: ``maltpy optimize``'s defaults (here, where the command line reads them without loading the search):
#: MaltOptimizer keeps a change of the feature model that gains at least this much LAS;
OPTIMIZE_THRESHOLD = 0.05
#: and maltpy runs phases 3 and 4 at most this many times (the later rounds while the budget lasts).
OPTIMIZE_ROUNDS = 3

#: Column names a data split or a feature may name; CoNLL-X and CoNLL-U spellings are aliases.
COLUMN_NAMES = (
    "ID",
    "FORM",
    "LEMMA",
    "CPOSTAG",
    "UPOSTAG",
    "UPOS",
    "POSTAG",
    "XPOSTAG",
    "XPOS",
    "FEATS",
    "DEPREL",
    "DEPS",
    "MISC",
)


@dataclass(frozen=True, slots=True)
class SingleMalt:
    parsing_algorithm: str = "nivreeager"
    null_value: str = "one"


@dataclass(frozen=True, slots=True)
class Input:
    format: str = "auto"


@dataclass(frozen=True, slots=True)
class Graph:
    root_label: str = "ROOT"
    single_root: str = "auto"


@dataclass(frozen=True, slots=True)
class Nivre:
    allow_root: bool = True
    allow_reduce: bool = False
    enforce_tree: bool = False


@dataclass(frozen=True, slots=True)
class Covington:
    allow_root: bool = True
    allow_shift: bool = False
    max_degree: int | None = None
    bound_in_training: bool = False


@dataclass(frozen=True, slots=True)
class MultiPlanar:
    planar_root_handling: str = "normal"


@dataclass(frozen=True, slots=True)
class Planar:
    connectedness: str = "none"
    acyclicity: bool = True
    no_covered_roots: bool = False


@dataclass(frozen=True, slots=True)
class TwoPlanar:
    reduceonswitch: bool = False


@dataclass(frozen=True, slots=True)
class Guide:
    features: str | None = None
    learner: str = "liblinear"
    data_split_column: str | None = None
    data_split_structure: str | None = None
    data_split_threshold: int = 50


@dataclass(frozen=True, slots=True)
class Lib:
    #: Learner options by flag, MaltParser's ``-lo``; filled in with the learner's defaults.
    options: Mapping[str, int | float | str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Config:
    singlemalt: SingleMalt = SingleMalt()
    input: Input = Input()
    graph: Graph = Graph()
    nivre: Nivre = Nivre()
    covington: Covington = Covington()
    multiplanar: MultiPlanar = MultiPlanar()
    planar: Planar = Planar()
    twoplanar: TwoPlanar = TwoPlanar()  # MaltParser's group 2planar
    guide: Guide = Guide()
    lib: Lib = Lib()
    pproj: Encoding = Encoding()

    def to_dict(self) -> dict[str, dict[str, Any]]:
        """The settings as plain data, group by group (for YAML output and the model archive)."""
        out = {}
        for f in dataclasses.fields(self):
            group = getattr(self, f.name)
            out[group_name(f.name)] = {g.name: _plain(getattr(group, g.name)) for g in dataclasses.fields(group)}
        return out


def group_name(field_name: str) -> str:
    """MaltParser's name of the option group a Config field holds (2planar is no identifier)."""
    return "2planar" if field_name == "twoplanar" else field_name


def _plain(value: Any) -> Any:
    return dict(value) if isinstance(value, Mapping) else value


# --- what each option accepts -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Option:
    """One option: its kind of value, MaltParser's flag for it, and one line of help."""

    kind: str  # bool | int | str | label | choice | path | column | address | liboptions
    flag: str
    help: str
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    optional: bool = False


OPTIONS: dict[tuple[str, str], Option] = {
    ("singlemalt", "parsing_algorithm"): Option("choice", "a", "parsing algorithm", tuple(SYSTEMS)),
    ("singlemalt", "null_value"): Option(
        "choice", "nv", "how feature null values are told apart", ("none", "one", "rootnode", "novalue")
    ),
    ("input", "format"): Option("choice", "if", "input data format", ("auto", "conllx", "conllu")),
    ("graph", "root_label"): Option("label", "grl", "label of words attached to the root after parsing"),
    ("graph", "single_root"): Option(
        "choice",
        "gsr",
        "one word on the root, labelled as the training treebank labels root words, as Universal Dependencies "
        "requires (maltpy's own): auto is true when the input or the training treebank is CoNLL-U",
        ("auto", "true", "false"),
    ),
    ("nivre", "allow_root"): Option("bool", "nr", "root dependents attached by a transition (Nivre)"),
    ("nivre", "allow_reduce"): Option("bool", "ne", "REDUCE allowed for a word without a head"),
    ("nivre", "enforce_tree"): Option("bool", "nt", "arc-eager parsing: UNSHIFT words left without a head at the end"),
    ("covington", "allow_root"): Option("bool", "cr", "root dependents attached by a transition (Covington)"),
    ("covington", "allow_shift"): Option("bool", "cs", "SHIFT allowed before Left is exhausted"),
    ("covington", "max_degree"): Option(
        "int",
        "cd",
        "bound on the degree of non-projectivity of LINK while parsing (maltpy's own)",
        minimum=0,
        optional=True,
    ),
    ("covington", "bound_in_training"): Option(
        "bool", "cdt", "apply max_degree in training too (Nivre 2007's d = 0 baseline)"
    ),
    ("multiplanar", "planar_root_handling"): Option(
        "choice",
        "prh",
        "root dependents attached by RIGHT-ARC (normal) or afterwards (relaxed)",
        ("normal", "relaxed"),
    ),
    ("planar", "connectedness"): Option(
        "choice",
        "pcon",
        "connectedness: not enforced, on REDUCE, on REDUCE and SHIFT",
        ("none", "reduceonly", "full"),
    ),
    ("planar", "acyclicity"): Option("bool", "pacy", "no arc that closes a cycle (planar and 2planar)"),
    ("planar", "no_covered_roots"): Option("bool", "pcov", "no REDUCE of a word without a head (planar and 2planar)"),
    ("2planar", "reduceonswitch"): Option("bool", "2pr", "SWITCH also pops the stack it makes active"),
    ("guide", "features"): Option("path", "F", "feature model file (XML or text)", optional=True),
    ("guide", "learner"): Option("choice", "l", "learner", LEARNERS),
    ("guide", "data_split_column"): Option("column", "d", "column of the data split feature", optional=True),
    ("guide", "data_split_structure"): Option("address", "s", "address of the data split feature", optional=True),
    ("guide", "data_split_threshold"): Option(
        "int", "T", "split values seen fewer times share one classifier", minimum=0
    ),
    ("lib", "options"): Option("liboptions", "lo", "learner options, as MaltParser's -lo"),
    ("pproj", "marking_strategy"): Option("choice", "pp", "pseudo-projective label encoding", MARKING_STRATEGIES),
    ("pproj", "covered_root"): Option("choice", "pcr", "covered-root handling", COVERED_ROOTS),
    ("pproj", "lifting_order"): Option("choice", "plo", "which arc is lifted first", LIFTING_ORDERS),
}

#: MaltParser's command-line flag of each option (without the dash) -> (group, name).
FLAGS: dict[str, tuple[str, str]] = {opt.flag: key for key, opt in OPTIONS.items()}

# --- learner options (-lo) ---------------------------------------------------------------------


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

_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0")


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
            raise ValueError(f"-{CLASS_WEIGHTS}{_q(name)[1:-1]} is given twice")
        weights[name] = raw

    if isinstance(value, str):
        tokens = [t for t in re.split(r"[_\s]+", value.strip()) if t]
        while tokens:
            flag = tokens.pop(0)
            if not flag.startswith("-") or len(flag) < 2:
                raise ValueError(f"{_q(flag)} is not a flag (flags start with -)")
            if weighted and flag[1] == CLASS_WEIGHTS:
                if not tokens:
                    raise ValueError(f"{_q(flag)} needs a weight (-w<class> <weight>)")
                weigh(flag[2:], tokens.pop(0))
                continue
            if len(flag) > 2 and flag[1] in allowed and flag[1:] not in allowed:
                flag, raw = flag[:2], flag[2:]
            elif tokens:
                raw = tokens.pop(0)
            else:
                raise ValueError(f"{_q(value)}: every flag needs a value (-flag value ...)")
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
            raise ValueError(f"-w{_q(name)[1:-1]}: {hint}, as `maltpy info` lists the classes (-wRE 2)")
        out[name] = _lib_value(f"w{name}", raw, LibOption(float, 1.0, spec.low, spec.high, above=spec.above))
    return out


def _lib_value(flag: str, raw: Any, spec: LibOption) -> int | float | str:
    """The value of one learner option, or ValueError saying what is wrong with it."""
    if spec.kind is str:
        text = str(raw).strip().upper() if isinstance(raw, (str, int, float)) and not isinstance(raw, bool) else None
        if text is None or not re.fullmatch(spec.pattern, text):
            raise ValueError(f"-{flag} takes {spec.shown}, not {_q(raw)}")
        return text
    number = _number(raw, spec.kind)
    if number is None:
        raise ValueError(f"-{flag} takes {'an integer' if spec.kind is int else 'a number'}, not {_q(raw)}")
    low, high = spec.low, spec.high
    if spec.above and number <= low:
        raise ValueError(f"-{flag} {cut(raw, 30)} must be greater than {low}")
    if (low is not None and number < low) or (high is not None and number > high):
        bounds = f"{low if low is not None else '-inf'}..{high if high is not None else 'inf'}"
        raise ValueError(f"-{flag} {cut(raw, 30)} is outside {bounds}")
    return number


#: The largest value of an integer option: MaltParser reads its options as Java ints.
MAX_INT = 2**31 - 1


def _integer(text: str) -> int:
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
            return _integer(text) if re.fullmatch(r"[+-]?[0-9]+", text) else None
        try:
            raw = float(text)
        except ValueError:
            return None
    if isinstance(raw, bool) or not isinstance(raw, (int, float)):
        return None
    if kind is int:
        return raw if isinstance(raw, int) else None
    return float(raw) if math.isfinite(raw) else None


# --- loading ----------------------------------------------------------------------------------


def default_config() -> Config:
    """MaltParser 1.9.2's defaults (with its default learner's options filled in)."""
    return load_config(None)


def load_config(path: str | None, overrides: Mapping[tuple[str, str], Any] | None = None,
                given: str = "command line") -> Config:  # fmt: skip
    """Read and validate the YAML file at ``path`` (None: defaults only), then apply ``overrides``
    ({(group, name): value}, values as typed on the command line or already typed; an error in
    one names ``given`` as its place)."""
    raw: dict[tuple[str, str], tuple[Any, int | None]] = {}
    base_dir = "."
    if path is not None:
        base_dir = os.path.dirname(os.path.abspath(path))
        try:
            text = read_file(path, "config file").decode("utf-8")
        except UnicodeDecodeError:
            raise MaltpyError("config file is not UTF-8 text", path) from None
        raw = _read_yaml(text, path)
    source: dict[tuple[str, str], str | None] = {key: path for key in raw}
    for key, value in (overrides or {}).items():
        raw[key] = (value, None)
        source[key] = None
    return _build(raw, source, path, base_dir, given)


def config_from_dict(data: Any, where: str) -> Config:
    """A configuration kept as plain data (in a model archive), checked like a file."""
    raw: dict[tuple[str, str], tuple[Any, int | None]] = {}
    if not isinstance(data, Mapping):
        raise MaltpyError("the configuration is not a mapping", where)
    for group, options in data.items():
        if not isinstance(options, Mapping):
            raise MaltpyError(f"configuration group {_q(group)} is not a mapping", where)
        for name, value in options.items():
            if (group, name) not in OPTIONS:
                raise MaltpyError(f"unknown configuration key {group}.{name}", where)
            raw[(group, name)] = (value, None)
    return _build(raw, {key: where for key in raw}, where, None)


def _build(
    raw: dict[tuple[str, str], tuple[Any, int | None]],
    source: dict[tuple[str, str], str | None],
    path: str | None,
    base_dir: str | None,
    given: str = "command line",
) -> Config:
    """Check every value (those with source None came from the command line, as text) and
    assemble the Config; relative feature-model paths from a file are taken from base_dir."""
    values: dict[tuple[str, str], Any] = {}
    for key, (value, line) in raw.items():
        if key == ("lib", "options"):
            continue  # checked below, once the learner is known
        try:
            values[key] = _check(OPTIONS[key], value, from_text=source[key] is None)
        except ValueError as e:
            raise MaltpyError(f"{key[0]}.{key[1]}: {e}", source[key] or given, line) from None
        if key == ("guide", "features") and values[key] is not None and source[key] is not None and base_dir:
            values[key] = os.path.normpath(os.path.join(base_dir, values[key]))
    learner = values.get(("guide", "learner"), Guide().learner)
    lib_value, lib_line = raw.get(("lib", "options"), (None, None))
    try:
        values[("lib", "options")] = parse_learner_options(lib_value, learner)
    except ValueError as e:
        where = source.get(("lib", "options"), path) or given
        raise MaltpyError(f"lib.options: {e}", where, lib_line) from None
    column = values.get(("guide", "data_split_column"))
    structure = values.get(("guide", "data_split_structure"))
    if (column is None) != (structure is None):
        missing = "data_split_structure" if structure is None else "data_split_column"
        key = ("guide", "data_split_column" if structure is None else "data_split_structure")
        raise MaltpyError(
            f"guide.{key[1]} is set but guide.{missing} is not: a data split needs both",
            source.get(key) or given,
            raw[key][1],
        )
    if structure is not None:
        from .features.spec import SpecError, foreign_address, split_feature

        key = ("guide", "data_split_structure")
        algorithm = values.get(("singlemalt", "parsing_algorithm"), SingleMalt().parsing_algorithm)
        try:
            foreign = foreign_address(split_feature(column, structure), algorithm)
        except SpecError as e:
            foreign = str(e)
        if foreign:
            raise MaltpyError(f"guide.data_split_structure: {foreign}", source.get(key) or given, raw[key][1])
    groups = {}
    for f in dataclasses.fields(Config):
        group = group_name(f.name)
        groups[f.name] = type(f.default)(**{name: v for (g, name), v in values.items() if g == group})
    config = Config(**groups)
    marks = [ch for ch in MARK_CHARACTERS if ch in config.graph.root_label]
    if marks and config.pproj.marks_labels:  # deprojectivizing would read the root words' label as marks
        key = ("graph", "root_label")
        raise MaltpyError(
            f"graph.root_label {_q(config.graph.root_label)} holds {marks[0]!r}, which pseudo-projective labels "
            f"use for their marks (pproj.marking_strategy {config.pproj.marking_strategy}, covered_root "
            f"{config.pproj.covered_root})",
            source.get(key) or given,
            raw.get(key, (None, None))[1],
        )
    return config


def _q(value: Any) -> str:
    """A user's value quoted in a message, cut short (a file may hold anything)."""
    return cut(repr(value), 60)


def _check(option: Option, value: Any, from_text: bool) -> Any:
    """The typed value of one option, or ValueError saying what is wrong with it."""
    if value is None or (from_text and value == ""):
        if option.optional:
            return None
        raise ValueError("a value is required")
    if option.kind == "bool":
        if from_text and isinstance(value, str) and value.lower() in _TRUE + _FALSE:
            return value.lower() in _TRUE
        if not isinstance(value, bool):
            raise ValueError(f"expected true or false, not {_q(value)}")
        return value
    if option.kind == "int":
        shown = cut(value, 30)
        if from_text and isinstance(value, str) and re.fullmatch(r"[+-]?[0-9]+", value):
            value = _integer(value)
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"expected an integer, not {_q(value)}")
        if option.minimum is not None and value < option.minimum:
            raise ValueError(f"must be at least {option.minimum}, not {shown}")
        if value > MAX_INT:
            raise ValueError(f"must be at most {MAX_INT}, not {shown}")
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool) and option.kind in ("str", "label"):
        value = str(value)
    if isinstance(value, bool) and option.kind == "choice" and str(value).lower() in option.choices:
        value = str(value).lower()  # YAML's false for single_root: false
    if not isinstance(value, str):
        raise ValueError(f"expected a string, not {_q(value)}")
    if value == "" or value != value.strip():
        raise ValueError(f"{_q(value)} is empty or has surrounding blanks")
    if option.kind == "label" and not valid_label(value):
        raise ValueError(f"{_q(value)} is not a label CoNLL can hold (no tabs, line breaks or blanks around it)")
    if option.kind == "choice" and value not in option.choices:
        raise ValueError(f"{_q(value)} is not one of {', '.join(option.choices)}")
    if option.kind == "column" and value not in COLUMN_NAMES:
        raise ValueError(f"{_q(value)} is not a column name ({', '.join(COLUMN_NAMES)})")
    if option.kind == "address":
        from .features.spec import SpecError, parse_address  # the feature language's own grammar and bounds

        try:
            parse_address(value)
        except SpecError as e:
            raise ValueError(f"{_q(value)} is not an address such as Input[0] or head(Stack[0]): {e}") from None
    return value


MAX_YAML_DEPTH = 32  # nesting of YAML collections in a configuration (real ones: 3 or 4)
_OPENING = (yaml.BlockMappingStartToken, yaml.BlockSequenceStartToken, yaml.FlowMappingStartToken,
            yaml.FlowSequenceStartToken)  # fmt: skip
_CLOSING = (yaml.BlockEndToken, yaml.FlowMappingEndToken, yaml.FlowSequenceEndToken)


def _read_yaml(text: str, path: str) -> dict[tuple[str, str], tuple[Any, int]]:
    """{(group, name): (value, line)} from the YAML text; structure errors name the line."""
    loader = yaml.SafeLoader(text)
    try:
        # A configuration needs no anchors, aliases or tags: refused before anything is built
        # (an alias bomb expands to gigabytes; a tag may name a constructor). Nor deep nesting
        # (groups, keys, lib.options' mapping): refused as the scanner meets it, since building
        # thousands of levels takes seconds before Python's recursion limit stops it.
        depth = 0
        for token in yaml.scan(text, Loader=yaml.SafeLoader):
            if isinstance(token, (yaml.AnchorToken, yaml.AliasToken, yaml.TagToken)):
                kind = {yaml.AnchorToken: "anchors (&)", yaml.AliasToken: "aliases (*)", yaml.TagToken: "tags (!)"}
                raise MaltpyError(f"YAML {kind[type(token)]} are not allowed in a configuration", path,
                                  token.start_mark.line + 1)  # fmt: skip
            if isinstance(token, _OPENING):
                depth += 1
                if depth > MAX_YAML_DEPTH:
                    raise MaltpyError("not a configuration: YAML nested too deeply", path, token.start_mark.line + 1)
            elif isinstance(token, _CLOSING):
                depth -= 1
        root = loader.get_single_node()
    except RecursionError:
        raise MaltpyError("not a configuration: YAML nested too deeply", path) from None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        raise MaltpyError(f"not valid YAML: {problem}", path, mark.line + 1 if mark else None) from None
    try:
        if root is None or (isinstance(root, yaml.ScalarNode) and root.value == ""):
            return {}
        out: dict[tuple[str, str], tuple[Any, int]] = {}
        for group, group_node, group_line in _mapping(root, loader, path, "the file"):
            if group not in {g for g, _ in OPTIONS}:
                known = ", ".join(sorted({g for g, _ in OPTIONS}))
                raise MaltpyError(f"unknown option group {_q(group)} (groups: {known})", path, group_line)
            for name, node, line in _mapping(group_node, loader, path, f"group {_q(group)}"):
                if (group, name) not in OPTIONS:
                    known = ", ".join(n for g, n in OPTIONS if g == group)
                    raise MaltpyError(f"unknown key {group}.{name} (keys of {group}: {known})", path, line)
                if isinstance(node, yaml.SequenceNode) or (
                    isinstance(node, yaml.MappingNode) and (group, name) != ("lib", "options")
                ):
                    raise MaltpyError(f"{group}.{name}: expected a single value, not a list or mapping", path, line)
                out[(group, name)] = (_construct(loader, node, path, line), line)
        return out
    finally:
        loader.dispose()


def _construct(loader: yaml.SafeLoader, node: yaml.Node, path: str, line: int) -> Any:
    """The value of a YAML node; MaltpyError for one Python cannot hold (an integer of more than
    4,300 digits, a date out of range), or a number too large to show in a message."""
    try:
        value = loader.construct_object(node, deep=True)
        repr(value)
    except yaml.YAMLError as e:
        raise MaltpyError(f"not valid YAML: {getattr(e, 'problem', None) or e}", path, line) from None
    except ValueError as e:
        raise MaltpyError(f"not a value a configuration holds: {cut(e, 80)}", path, line) from None
    return value


def _mapping(node: yaml.Node, loader: yaml.SafeLoader, path: str, what: str):
    """Yield (key, value node, line) of a YAML mapping node; duplicate keys are errors."""
    if not isinstance(node, yaml.MappingNode):
        raise MaltpyError(f"{what} must be a mapping of option names to values", path, node.start_mark.line + 1)
    seen = set()
    for key_node, value_node in node.value:
        line = key_node.start_mark.line + 1
        if key_node.tag == "tag:yaml.org,2002:merge":
            raise MaltpyError("YAML merge keys (<<) are not allowed in a configuration", path, line)
        key = _construct(loader, key_node, path, line)
        if not isinstance(key, str):
            raise MaltpyError(f"key {_q(key)} is not a name", path, line)
        if key in seen:
            raise MaltpyError(f"key {_q(key)} is given twice", path, line)
        seen.add(key)
        yield key, value_node, line


def dump_config(config: Config) -> str:
    """The configuration as YAML, every option shown (what ``maltpy config`` prints)."""
    return yaml.safe_dump(config.to_dict(), sort_keys=False, default_flow_style=False, allow_unicode=True)
