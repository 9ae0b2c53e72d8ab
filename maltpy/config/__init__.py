"""The run configuration: a YAML file validated into typed settings.

The file mirrors MaltParser 1.9.2's option file: top-level keys are its option groups
(``singlemalt``, ``guide``, ``lib``, ``nivre``, ``covington``, ``multiplanar``, ``planar``, ``2planar``,
``pproj``, ``graph``, ``input``)
and the keys inside them are its option names, with its defaults. The group ``mst`` holds the
graph-based parser's options (``-a mst``, maltpy/graph) under MSTParser 0.5's own names, the group
``tagger`` those of the taggers learned with the parser (maltpy.tagging). Every option also has
MaltParser's command-line flag (``-a``, ``-l``, ``-F``, ``-nr`` ...), through which the command
line overrides the file. ``covington.max_degree`` (Nivre 2007, §3),
``singlemalt.parsing_direction`` and ``singlemalt.root_position`` (direction.py) are maltpy's own.

An unknown group or key, a value of the wrong type or an illegal value is a ``MaltpyError``
naming the file, the line and the key; so is an option that would be ignored, one the algorithm
does not read (``USED_BY``) or that another option leaves with nothing to do (``idle_option``),
unless it holds its default value, which changes nothing.

Here, the loading: a file's and the command line's values checked one by one (``_check``) and
together (``_build``). The option groups are records in ``groups``, what each option accepts and
which algorithms read it in ``options``, the YAML text read and written in ``yaml_file``.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Callable, Mapping
from typing import Any

from ..data.conll import valid_label
from ..data.pseudoproj import MARK_CHARACTERS
from ..errors import MaltpyError, cut
from ..graph import is_graph_based
from ..learners.options import MAX_INT, ignored_learner_option, parse_learner_options
from ..learners.options import integer as _integer
from ..learners.options import quoted as _q
from .groups import Config, Defaults, Guide, SingleMalt, Tagger, group_name
from .options import (
    COLUMN_NAMES,
    ENFORCE_TREE,
    FLAGS,
    MAX_DEGREE,
    OPTIONS,
    TAG_COLUMNS,
    USED_BY,
    Option,
    idle_option,
    reads,
    unused_option,
)
from .yaml_file import dump_config, read_config_file

#: What the modules reading a configuration import from here (the groups are in groups.py, the
#: option table in options.py, the YAML text in yaml_file.py).
__all__ = [
    "COLUMN_NAMES", "ENFORCE_TREE", "FLAGS", "MAX_DEGREE", "OPTIMIZE_ROUNDS", "OPTIMIZE_THRESHOLD", "OPTIONS",
    "USED_BY", "Config", "config_from_dict", "default_config", "dump_config", "group_name", "idle_option",
    "load_config", "read_config_file", "reads", "unused_option",
]  # fmt: skip

#: ``maltpy optimize``'s defaults (here, where the command line reads them without loading the search):
#: MaltOptimizer keeps a change of the feature model that gains at least this much LAS;
OPTIMIZE_THRESHOLD = 0.05
#: and maltpy runs phases 3 and 4 at most this many times (the later rounds while the budget lasts).
OPTIMIZE_ROUNDS = 3

_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0")


# --- loading ----------------------------------------------------------------------------------


def default_config() -> Config:
    """MaltParser 1.9.2's defaults (with its default learner's options filled in)."""
    return load_config(None)


def load_config(path: str | None, overrides: Mapping[tuple[str, str], Any] | None = None,
                given: str = "command line",
                places: Mapping[tuple[str, str], tuple[str, int | None]] | None = None,
                fallback: Mapping[tuple[str, str], Any] | None = None) -> Config:  # fmt: skip
    """Read and validate the YAML file at ``path`` (None: defaults only), then apply ``overrides``
    ({(group, name): value}, values as typed on the command line or already typed; an error in
    one names ``given`` as its place, or its file and line in ``places``: MaltParser's option
    file, whose values are text as typed), then ``fallback`` for the options neither gives (a
    profile's defaults, ``with_profile``)."""
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
    for key, value in (fallback or {}).items():
        if key not in raw:
            raw[key] = (value, None)
            source[key] = None
    return _build(raw, source, path, base_dir, given, given_at={key: file for key, (file, _) in places.items()})


#: What the ud profile gives the options that neither a configuration file nor a flag sets (the
#: feature models are the algorithm's in feature_models/<learner>/ud/, ``models.learn.feature_folder``):
#: measured best of the settings that keep Nivre's batched parsing, on en_lines, la_perseus, da_ddt
#: and sv_talbanken, with gold tags and with predicted ones (scripts/ud_defaults.py; README).
UD_DEFAULTS: dict[tuple[str, str], Any] = {
    ("singlemalt", "parsing_algorithm"): "nivrestandard",
    ("pproj", "marking_strategy"): "head",
}
PROFILE = ("defaults", "profile")
#: the profiles with the ud profile's defaults (``with_profile``); ud-lexical's feature models are
#: those of feature_models/<learner>/ud-lexical/ where it has the algorithm's, else ud's
UD_PROFILES = ("ud", "ud-lexical")
#: what ud-lexical gives LIBLINEAR's options where neither a file nor a flag sets them: its larger
#: feature model learns best with more regularization (README, "The ud-lexical profile")
UD_LEXICAL_OPTIONS = "-s 4 -c 0.05"


def decided_profile(profile: str, path: str | None, data_format: str) -> str:
    """``profile`` (``Defaults``) decided for a treebank of ``data_format`` learned with the
    configuration file ``path`` (None: none): auto is ud for a CoNLL-U treebank without a file,
    MaltParser's otherwise; the others are themselves."""
    if profile != "auto":
        return profile
    return "ud" if path is None and data_format == "conllu" else "maltparser"


def with_profile(config: Config, path: str | None, overrides: Mapping[tuple[str, str], Any], data_format: str,
                 given: str = "command line") -> Config:  # fmt: skip
    """``config`` (read from ``path`` with ``overrides``, as ``load_config`` reads it) with its
    profile decided for a treebank of ``data_format`` (``Defaults``): MaltParser's as it is, or the
    ud profile's defaults (``UD_DEFAULTS``) under every option the file and the flags give; of
    those defaults, pseudo-projective parsing only for a transition-based algorithm. The parser
    learns on the treebank's own tags (tagger.jackknife 0): jackknifed tags measured no better
    with predicted tags at parse time (en_lines +0.13, da_ddt -0.14, la_perseus -1.15,
    sv_talbanken -0.38 LAS) and 1.2 to 5.6 worse with gold tags, at 2 to 5 times the learning
    time (scripts/bench_tagger.py)."""
    profile = decided_profile(config.defaults.profile, path, data_format)
    if profile == "maltparser":
        return dataclasses.replace(config, defaults=Defaults("maltparser"))
    overrides = {**overrides, PROFILE: profile}
    fallback = {("singlemalt", "parsing_algorithm"): UD_DEFAULTS[("singlemalt", "parsing_algorithm")]}
    first = load_config(path, overrides, given, fallback=fallback)
    if not is_graph_based(first.singlemalt.parsing_algorithm):
        fallback[("pproj", "marking_strategy")] = UD_DEFAULTS[("pproj", "marking_strategy")]
    if profile == "ud-lexical" and first.guide.learner == "liblinear":
        fallback[("lib", "options")] = UD_LEXICAL_OPTIONS
    return load_config(path, overrides, given, fallback=fallback)


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
    if not check_use and "tagger" in data and ("tagger", "both_ways") not in raw:
        raw[("tagger", "both_ways")] = ("none", None)  # a model learned before it: its taggers tag one way
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
        if key in _PATHS and values[key] is not None and source[key] is not None and base_dir:
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
    _check_split(values, algorithm, place, raw)
    _check_tagger(values, place, raw)
    groups = {}
    for f in dataclasses.fields(Config):
        group = group_name(f.name)
        groups[f.name] = type(f.default)(**{name: v for (g, name), v in values.items() if g == group})
    config = Config(**groups)
    for key in raw if check_use else ():
        idle = idle_option(key, values[key], config)
        if idle is not None:
            raise MaltpyError(idle, place(key), raw[key][1])
    _check_together(config, algorithm, place, raw)
    return config


#: The values as given, each with its line in the file (None: given on the command line).
Raw = dict[tuple[str, str], tuple[Any, int | None]]
#: The options naming a file: relative to a configuration file's folder, when given in one.
_PATHS = (("guide", "features"), ("tagger", "features"))


def _check_split(values: dict[tuple[str, str], Any], algorithm: str, place: Callable[[tuple[str, str]], str],
                 raw: Raw) -> None:  # fmt: skip
    """MaltpyError unless the data split's column and structure are given both or neither, and
    the split's feature reads an address ``algorithm`` has."""
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
        from ..features.spec import SpecError, foreign_address, split_feature

        key = ("guide", "data_split_structure")
        try:
            foreign = foreign_address(split_feature(column, structure), algorithm)
        except SpecError as e:
            foreign = str(e)
        if foreign:
            raise MaltpyError(f"guide.data_split_structure: {foreign}", place(key), raw[key][1])


def _check_tagger(values: dict[tuple[str, str], Any], place: Callable[[tuple[str, str]], str], raw: Raw) -> None:
    """MaltpyError for the taggers' options (the group tagger) that the tagger's learner refuses,
    or a jackknife of one fold, which would learn each fold's taggers from nothing, or a column
    tagged both ways that has no tagger."""
    key = ("tagger", "options")
    if values.get(key) is not None:
        learner = values.get(("tagger", "learner"), Tagger().learner)
        try:
            parse_learner_options(values[key], learner)
        except ValueError as e:
            raise MaltpyError(f"tagger.options (-to): {e}", place(key), raw[key][1]) from None
    key = ("tagger", "jackknife")
    if values.get(key) == 1:
        raise MaltpyError("tagger.jackknife (-tj): 1 fold would learn its taggers from no sentence: 0 (no "
                          "jackknife) or at least 2 folds", place(key), raw[key][1])  # fmt: skip
    key = ("tagger", "both_ways")
    both = str(values.get(key, "auto")).split(",")
    columns = str(values.get(("tagger", "columns"), "auto")).split(",")
    untagged = [c for c in both if c not in ("auto", "none") and columns != ["auto"] and c not in columns]
    if untagged:
        raise MaltpyError(f"tagger.both_ways (-tb): {untagged[0]} has no tagger (tagger.columns, -tc: "
                          f"{','.join(columns)})", place(key), raw[key][1])  # fmt: skip


def _check_together(config: Config, algorithm: str, place: Callable[[tuple[str, str]], str], raw: Raw) -> None:
    """MaltpyError for options that each hold a legal value but not together: the k best trees of
    MST's second-order projective decoder, a root label holding pseudo-projective marks."""
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
    if option.kind == "tagcolumns":
        return _tag_columns(value, lemma=option.flag != "tb")
    if option.kind == "column" and value not in COLUMN_NAMES:
        raise ValueError(f"{_q(value)} is not a column name ({', '.join(COLUMN_NAMES)})")
    if option.kind == "address":
        from ..features.spec import SpecError, parse_address  # the feature language's own grammar and bounds

        try:
            parse_address(value)
        except SpecError as e:
            raise ValueError(f"{_q(value)} is not an address such as Input[0] or head(Stack[0]): {e}") from None
    return value


def _tag_columns(value: str, lemma: bool = True) -> str:
    """tagger.columns' value (or, without ``lemma``, tagger.both_ways'): auto, none, or its comma
    list of columns (CoNLL-X's names too, any case) in tagging order, each once; ValueError saying
    what is wrong."""
    if value in ("auto", "none"):
        return value
    names = [name.strip().lower() for name in value.split(",")]
    unknown = [name for name in names if name not in TAG_COLUMNS]
    if unknown:
        allowed = [c for c in dict.fromkeys(TAG_COLUMNS.values()) if lemma or c != "lemma"]
        raise ValueError(f"{_q(unknown[0])} is not a column a tagger predicts: auto, none, or a comma list of "
                         f"{', '.join(allowed)}")  # fmt: skip
    chosen = {TAG_COLUMNS[name] for name in names}
    if len(chosen) < len(names):
        raise ValueError(f"{_q(value)} names a column twice")
    if not lemma and "lemma" in chosen:
        raise ValueError("LEMMA is tagged one way: auto, none, or a comma list of upos, xpos, feats")
    return ",".join(name for name in dict.fromkeys(TAG_COLUMNS.values()) if name in chosen)
