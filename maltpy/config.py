"""The run configuration: a YAML file validated into typed settings.

The file mirrors MaltParser 1.9.2's option file: top-level keys are its option groups
(``singlemalt``, ``guide``, ``lib``, ``nivre``, ``covington``, ``multiplanar``, ``planar``, ``2planar``,
``pproj``, ``graph``, ``input``)
and the keys inside them are its option names, with its defaults. The group ``mst`` holds the
graph-based parser's options (``-a mst``, maltpy/graph) under MSTParser 0.5's own names. Every option also has
MaltParser's command-line flag (``-a``, ``-l``, ``-F``, ``-nr`` ...), through which the command
line overrides the file. ``covington.max_degree`` (Nivre 2007, §3),
``singlemalt.parsing_direction`` and ``singlemalt.root_position`` (direction.py) are maltpy's own.

An unknown group or key, a value of the wrong type or an illegal value is a ``MaltpyError``
naming the file, the line and the key; so is an option that would be ignored, one the algorithm
does not read (``USED_BY``) or that another option leaves with nothing to do (``idle_option``),
unless it holds its default value, which changes nothing.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml

from .data.columns import COLUMNS
from .data.conll import valid_label
from .data.direction import DIRECTIONS, ROOT_POSITIONS
from .data.pseudoproj import COVERED_ROOTS, LIFTING_ORDERS, MARK_CHARACTERS, MARKING_STRATEGIES, Encoding
from .errors import MaltpyError, cut
from .files import read_file
from .graph import GRAPH_ALGORITHMS, MAX_TRAINING_K, TRANSITION_OPTIONS, is_graph_based
from .learners import LEARNERS
from .learners.options import MAX_INT, ignored_learner_option, parse_learner_options
from .learners.options import integer as _integer
from .learners.options import quoted as _q
from .transition import SYSTEMS

#: ``maltpy optimize``'s defaults (here, where the command line reads them without loading the search):
#: MaltOptimizer keeps a change of the feature model that gains at least this much LAS;
OPTIMIZE_THRESHOLD = 0.05
#: and maltpy runs phases 3 and 4 at most this many times (the later rounds while the budget lasts).
OPTIMIZE_ROUNDS = 3

#: Column names a data split may name (data/columns.py): CoNLL-U's columns by every name (CoNLL-X's
#: spellings of the same columns are aliases), but the word numbers the parser writes (HEAD).
COLUMN_NAMES = tuple(name for c in COLUMNS if c.conllu and (c.given or not c.integer) for name in c.names)


@dataclass(frozen=True, slots=True)
class SingleMalt:
    parsing_algorithm: str = "nivreeager"
    null_value: str = "one"
    parsing_direction: str = DIRECTIONS[0]
    root_position: str = ROOT_POSITIONS[0]


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
class Mst:
    """MSTParser 0.5's options, by its names (``order:``, ``decode-type:``, ``training-k:``,
    ``iters:``, ``loss-type:``) and defaults."""

    order: int = 1
    decode_type: str = "proj"
    training_k: int = 1
    iters: int = 10
    loss_type: str = "punc"


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
    mst: Mst = Mst()
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


_DEFAULTS = Config().to_dict()


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
    maximum: int | None = None


OPTIONS: dict[tuple[str, str], Option] = {
    ("singlemalt", "parsing_algorithm"): Option("choice", "a", "parsing algorithm", (*SYSTEMS, *GRAPH_ALGORITHMS)),
    ("singlemalt", "null_value"): Option(
        "choice", "nv", "how feature null values are told apart", ("none", "one", "rootnode", "novalue")
    ),
    ("singlemalt", "parsing_direction"): Option(
        "choice",
        "pd",
        "each sentence read left to right, or right to left with the tree mapped back, in learning and so in the "
        "model's parsing (maltpy's own, as Hall et al. 2007's blended parser: MaltParser has no such option)",
        DIRECTIONS,
    ),
    ("singlemalt", "root_position"): Option(
        "choice",
        "rp",
        "where the root stands: before the first word (start, MaltParser's place) or after the last (end); a parser "
        "reading right to left meets a root at the start last, as a left-to-right one meets a root at the end "
        "(maltpy's own)",
        ROOT_POSITIONS,
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
    ("mst", "order"): Option(
        "int",
        "mo",
        "graph-based parsing (-a mst): arcs scored alone (1) or with their sibling (2)",
        minimum=1,
        maximum=2,
    ),
    ("mst", "decode_type"): Option(
        "choice", "mdt", "graph-based parsing: projective (Eisner) or non-projective trees", ("proj", "non-proj")
    ),
    ("mst", "training_k"): Option(
        "int", "mk", "graph-based parsing: MIRA's constraints from the k best trees", minimum=1, maximum=MAX_TRAINING_K
    ),
    ("mst", "iters"): Option("int", "mi", "graph-based parsing: passes of MIRA over the training treebank", minimum=1),
    ("mst", "loss_type"): Option(
        "choice",
        "ml",
        "graph-based parsing: MIRA's loss counts wrong heads of every word, or of non-punctuation",
        ("punc", "nopunc"),
    ),
    ("guide", "features"): Option("path", "F", "feature model file (XML or text)", optional=True),
    ("guide", "learner"): Option("choice", "l", "learner", tuple(LEARNERS)),
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

#: The algorithms that read each option not every algorithm reads (any other option, every
#: algorithm reads): a transition system's own options (its ``options``), transition-based
#: parsing's (graph.TRANSITION_OPTIONS) and graph-based parsing's (the group mst). Set for another
#: algorithm, such an option would be ignored, and is refused (``unused_option``).
USED_BY: dict[tuple[str, str], tuple[str, ...]] = {
    **{key: tuple(SYSTEMS) for key in TRANSITION_OPTIONS},
    **{key: GRAPH_ALGORITHMS for key in OPTIONS if key[0] == "mst"},
    **{key: tuple(name for name, other in SYSTEMS.items() if key in other.options)
       for system in SYSTEMS.values() for key in system.options},
}  # fmt: skip


#: covington.max_degree, the bound ``maltpy parse -cd`` sets where the algorithm reads it.
MAX_DEGREE = ("covington", "max_degree")
#: nivre.enforce_tree, which ``maltpy parse -nt`` sets where the algorithm reads it.
ENFORCE_TREE = ("nivre", "enforce_tree")


def reads(algorithm: str, key: tuple[str, str]) -> bool:
    """Whether ``algorithm`` reads the option ``key`` (USED_BY)."""
    return algorithm in USED_BY.get(key, (algorithm,))


def unused_option(key: tuple[str, str], value: Any, algorithm: str, learner: str = Guide().learner) -> str | None:
    """Why ``algorithm`` would ignore the option ``key`` set to ``value`` (USED_BY), or None if
    it reads the option or ``value`` is the option's default, which changes nothing: as a
    MaltParser option file may list every option, a file or flag may give any option its default.
    ``learner``: the configuration's, whose defaults are lib.options' default."""
    if reads(algorithm, key) or value == _default(key, learner):
        return None
    name = f"{key[0]}.{key[1]} (-{OPTIONS[key].flag})"
    if is_graph_based(algorithm) and key in TRANSITION_OPTIONS:
        return f"{name}: {TRANSITION_OPTIONS[key]}"
    return f"{name} is an option of {' and '.join(USED_BY[key])}; {algorithm} ignores it"


def _default(key: tuple[str, str], learner: str) -> Any:
    return parse_learner_options(None, learner) if key == ("lib", "options") else _DEFAULTS[key[0]][key[1]]


def idle_option(key: tuple[str, str], value: Any, config: Config) -> str | None:
    """Why the option ``key`` set to ``value`` would do nothing, the other options being as in
    ``config``, or None if it acts or ``value`` is its default."""
    why = _idle_options(config).get(key)
    if why is None or value == _DEFAULTS[key[0]][key[1]]:
        return None
    return f"{key[0]}.{key[1]} (-{OPTIONS[key].flag}): {why}"


def _idle_options(config: Config) -> dict[tuple[str, str], str]:
    """The options that other options of ``config`` leave with nothing to do, each with why."""
    idle = {}
    if config.guide.data_split_column is None:
        idle[("guide", "data_split_threshold")] = "there is no data split (-d, -s) for it to apply to"
    if config.covington.max_degree is None:
        idle[("covington", "bound_in_training")] = "there is no bound (-cd) to apply in training"
    if config.pproj.marking_strategy == "none":
        idle[("pproj", "lifting_order")] = "nothing is lifted without a marking strategy (-pp)"
        if config.pproj.covered_root == "ignore":  # left, right and head attach covered roots without it
            idle[("pproj", "covered_root")] = ("ignore leaves covered roots as they are while arcs are lifted, and "
                                               "nothing is lifted without a marking strategy (-pp)")  # fmt: skip
    return idle


_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0")


# --- loading ----------------------------------------------------------------------------------


def default_config() -> Config:
    """MaltParser 1.9.2's defaults (with its default learner's options filled in)."""
    return load_config(None)


def load_config(path: str | None, overrides: Mapping[tuple[str, str], Any] | None = None,
                given: str = "command line",
                places: Mapping[tuple[str, str], tuple[str, int | None]] | None = None) -> Config:  # fmt: skip
    """Read and validate the YAML file at ``path`` (None: defaults only), then apply ``overrides``
    ({(group, name): value}, values as typed on the command line or already typed; an error in
    one names ``given`` as its place, or its file and line in ``places``: MaltParser's option
    file, whose values are text as typed)."""
    raw: dict[tuple[str, str], tuple[Any, int | None]] = {}
    base_dir = "."
    if path is not None:
        base_dir = os.path.dirname(os.path.abspath(path))
        keys: dict[str, list[str]] = {}
        for group, name in OPTIONS:
            keys.setdefault(group, []).append(name)
        raw = dict(read_config_file(path, keys, nested={("lib", "options"): dict}))
    source: dict[tuple[str, str], str | None] = {key: path for key in raw}
    places = places or {}
    for key, value in (overrides or {}).items():
        raw[key] = (value, places[key][1] if key in places else None)
        source[key] = None
    return _build(raw, source, path, base_dir, given, given_at={key: file for key, (file, _) in places.items()})


def config_from_dict(data: Any, where: str, check_use: bool = False) -> Config:
    """A configuration kept as plain data (in a model archive), checked like a file; with
    ``check_use`` (settings a user gives, not a model's), also for options the algorithm would
    ignore (``unused_option``)."""
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
    return _build(raw, {key: where for key in raw}, where, None, check_use=check_use)


def _build(
    raw: dict[tuple[str, str], tuple[Any, int | None]],
    source: dict[tuple[str, str], str | None],
    path: str | None,
    base_dir: str | None,
    given: str = "command line",
    check_use: bool = True,
    given_at: Mapping[tuple[str, str], str] | None = None,
) -> Config:
    """Check every value (those with source None came from the command line, as text: ``given``,
    or the file ``given_at`` names) and assemble the Config; relative feature-model paths from a
    file are taken from base_dir. With ``check_use``, an option given that the configuration would
    ignore is an error."""
    given_at = given_at or {}

    def place(key: tuple[str, str]) -> str:
        return source.get(key) or given_at.get(key) or given

    values: dict[tuple[str, str], Any] = {}
    for key, (value, line) in raw.items():
        if key == ("lib", "options"):
            continue  # checked below, once the learner is known
        try:
            values[key] = _check(OPTIONS[key], value, from_text=source[key] is None)
        except ValueError as e:
            raise MaltpyError(f"{key[0]}.{key[1]}: {e}", place(key), line) from None
        if key == ("guide", "features") and values[key] is not None and source[key] is not None and base_dir:
            values[key] = os.path.normpath(os.path.join(base_dir, values[key]))
    learner = values.get(("guide", "learner"), Guide().learner)
    lib_value, lib_line = raw.get(("lib", "options"), (None, None))
    lib_where = place(("lib", "options")) if ("lib", "options") in source else path or given
    try:
        values[("lib", "options")] = parse_learner_options(lib_value, learner)
    except ValueError as e:
        raise MaltpyError(f"lib.options: {e}", lib_where, lib_line) from None
    algorithm = values.get(("singlemalt", "parsing_algorithm"), SingleMalt().parsing_algorithm)
    if check_use:
        ignored = ignored_learner_option(values[("lib", "options")], learner)
        if ignored is not None:
            raise MaltpyError(f"lib.options: {ignored}", lib_where, lib_line)
        for key in raw:
            unused = unused_option(key, values[key], algorithm, learner)
            if unused is not None:
                raise MaltpyError(unused, place(key), raw[key][1])
    column = values.get(("guide", "data_split_column"))
    structure = values.get(("guide", "data_split_structure"))
    if (column is None) != (structure is None):
        missing = "data_split_structure" if structure is None else "data_split_column"
        key = ("guide", "data_split_column" if structure is None else "data_split_structure")
        raise MaltpyError(
            f"guide.{key[1]} is set but guide.{missing} is not: a data split needs both",
            place(key),
            raw[key][1],
        )
    if structure is not None:
        from .features.spec import SpecError, foreign_address, split_feature

        key = ("guide", "data_split_structure")
        try:
            foreign = foreign_address(split_feature(column, structure), algorithm)
        except SpecError as e:
            foreign = str(e)
        if foreign:
            raise MaltpyError(f"guide.data_split_structure: {foreign}", place(key), raw[key][1])
    groups = {}
    for f in dataclasses.fields(Config):
        group = group_name(f.name)
        groups[f.name] = type(f.default)(**{name: v for (g, name), v in values.items() if g == group})
    config = Config(**groups)
    for key in raw if check_use else ():
        idle = idle_option(key, values[key], config)
        if idle is not None:
            raise MaltpyError(idle, place(key), raw[key][1])
    mst = config.mst
    if is_graph_based(algorithm) and mst.training_k > 1 and mst.decode_type == "proj" and mst.order == 2:
        key = ("mst", "training_k")
        raise MaltpyError(f"mst.training_k (-mk) {mst.training_k} with mst.order (-mo) 2 and mst.decode_type (-mdt) "
                          "proj needs the k best trees of the second-order Eisner algorithm, which maltpy does not "
                          "have yet", place(key), raw.get(key, (None, None))[1])  # fmt: skip
    marks = [ch for ch in MARK_CHARACTERS if ch in config.graph.root_label]
    if marks and config.pproj.marks_labels:  # deprojectivizing would read the root words' label as marks
        key = ("graph", "root_label")
        raise MaltpyError(
            f"graph.root_label {_q(config.graph.root_label)} holds {marks[0]!r}, which pseudo-projective labels "
            f"use for their marks (pproj.marking_strategy {config.pproj.marking_strategy}, covered_root "
            f"{config.pproj.covered_root})",
            place(key),
            raw.get(key, (None, None))[1],
        )
    return config


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
        if option.maximum is not None and value > option.maximum:
            raise ValueError(f"must be at most {option.maximum}, not {shown}")
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


def read_config_file(
    path: str, keys: Mapping[str, Collection[str]], nested: Mapping[tuple[str, str], type] | None = None
) -> dict[tuple[str, str], tuple[Any, int]]:
    """{(group, name): (value, line)} of the configuration file at ``path`` (``learn -c``'s,
    ``blend -c``'s): YAML text, a mapping of groups (``keys``: each group's names), each a mapping
    of names to single values (``nested``: the keys whose value may be a dict or a list instead).
    Anything else is an error naming the file and line, and so are a key given twice and anchors,
    aliases, tags and merge keys, which a configuration needs none of."""
    nested = nested or {}
    try:
        text = read_file(path, "config file").decode("utf-8")
    except UnicodeDecodeError:
        raise MaltpyError("config file is not UTF-8 text", path) from None
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
            if group not in keys:
                known = ", ".join(sorted(keys))
                raise MaltpyError(f"unknown option group {_q(group)} (groups: {known})", path, group_line)
            for name, node, line in _mapping(group_node, loader, path, f"group {_q(group)}"):
                if name not in keys[group]:
                    known = ", ".join(keys[group])
                    raise MaltpyError(f"unknown key {group}.{name} (keys of {group}: {known})", path, line)
                shape = {yaml.MappingNode: "mapping", yaml.SequenceNode: "list"}.get(type(node))
                allowed = {dict: "mapping", list: "list"}.get(nested.get((group, name)))
                if shape is not None and shape != allowed:
                    expected = f"a single value or a {allowed}" if allowed else "a single value"
                    raise MaltpyError(f"{group}.{name}: expected {expected}, not a {shape}", path, line)
                out[(group, name)] = (_construct(loader, node, path, line), line)
        return out
    finally:
        loader.dispose()


def _construct(loader: yaml.SafeLoader, node: yaml.Node, path: str, line: int) -> Any:
    """The value of a YAML node; MaltpyError for one Python cannot hold (an integer of more than
    4,300 digits, a date out of range), a number too large to show in a message, or a mapping
    inside it (lib.options' ``{c: 0.1}``, its class weights) with a key given twice, which PyYAML
    would take silently, the last one winning."""
    _no_key_twice(loader, node, path)
    try:
        value = loader.construct_object(node, deep=True)
        repr(value)
    except yaml.YAMLError as e:
        raise MaltpyError(f"not valid YAML: {getattr(e, 'problem', None) or e}", path, line) from None
    except ValueError as e:
        raise MaltpyError(f"not a value a configuration holds: {cut(e, 80)}", path, line) from None
    return value


def _no_key_twice(loader: yaml.SafeLoader, node: yaml.Node, path: str) -> None:
    """MaltpyError at a key given twice in any mapping within ``node`` (as ``_mapping`` checks
    the groups and their keys)."""
    if isinstance(node, yaml.SequenceNode):
        for item in node.value:
            _no_key_twice(loader, item, path)
    elif isinstance(node, yaml.MappingNode):
        seen = set()
        for key_node, value_node in node.value:
            key = _construct(loader, key_node, path, key_node.start_mark.line + 1)
            if key in seen:
                raise MaltpyError(f"key {_q(key)} is given twice", path, key_node.start_mark.line + 1)
            seen.add(key)
            _no_key_twice(loader, value_node, path)


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
