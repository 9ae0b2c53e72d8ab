"""MaltParser's own command line, ``maltpy -c NAME -m parse -i IN -o OUT``, read as MaltParser
1.9.2 reads it and run as the maltpy command that does the same.

MaltParser takes each option as ``-FLAG VALUE``, ``--GROUP-NAME=VALUE`` or ``--NAME=VALUE`` (the
name alone when no other group has an option of that name), the names case-insensitive, a later
option over an earlier one; and the same options from an XML option file (``-f FILE``: ``<option
name= value=>`` inside ``<optiongroup groupname=>`` inside one ``<optioncontainer>``), which the
command line overrides (its OptionManager.parseCommandLine and parseOptionInstanceXMLfile; the
options are those of its appdata/options.xml). ``-c NAME`` names the configuration, NAME.mco in
the working directory (``-w``, default the current one); ``-m`` the mode (its "flowchart"), parse
by default. Here each mode becomes a maltpy command line, which then runs as if typed:

    learn    maltpy learn   -m DIR/NAME.mpm [-i IN] [the configuration's flags: -a -l -F ...]
    parse    maltpy parse   -m DIR/NAME.mco|.mpm [-i IN] [-o OUT] [--format F] [-nt B] [-gsr G] [-cd D]
    info     maltpy info    -m DIR/NAME.mco|.mpm
    convert  maltpy convert [-i IN] [-o OUT] [--format F] --to F
    proj     maltpy proj    [-i IN] [-o OUT] [--format F] -pp S [-pcr C] [-plo O]
    deproj   maltpy deproj  [-i IN] [-o OUT] [--format F] -pp S  (S: NAME.mco's or NAME.mpm's, else -pp's)

An option that MaltParser takes and maltpy does not is an error; one that maltpy takes but the
mode does not use (a learning option when parsing, where MaltParser lets the model's saved
setting win) is ignored with a warning. Every value given is checked as MaltParser checks it
when it reads it, in any mode, by the rules of maltpy's configuration; an error names the option
file and line where the value was given there.
"""

from __future__ import annotations

import os
import xml.parsers.expat
from dataclasses import dataclass

from ..config import ENFORCE_TREE, MAX_DEGREE, OPTIONS, USED_BY, config_from_dict, load_config
from ..data.conll import FORMATS
from ..errors import MaltpyError, quote
from ..files import read_file
from ..transition import SYSTEMS
from .common import warn

Key = tuple[str, str]  # (option group, option name), MaltParser's

COMMAND_LINE = "command line"

#: MaltParser's options taken here beside the configuration's (config.OPTIONS): (group, name) -> flag.
RUN_OPTIONS: dict[Key, str] = {
    ("system", "option_file"): "f",
    ("system", "verbosity"): "v",
    ("config", "name"): "c",
    ("config", "flowchart"): "m",
    ("config", "workingdir"): "w",
    ("input", "infile"): "i",
    ("input", "charset"): "ic",
    ("output", "outfile"): "o",
    ("output", "format"): "of",
    ("output", "charset"): "oc",
}

#: MaltParser 1.9.2's options that maltpy does not take: flag -> (group, name).
NOT_TAKEN: dict[str, Key] = {
    "h": ("system", "help"), "u": ("config", "url"), "t": ("config", "type"), "cl": ("config", "logging"),
    "lfi": ("config", "logfile"), "sm": ("singlemalt", "mode"), "gm": ("singlemalt", "guide_model"),
    "di": ("singlemalt", "diagnostics"), "dif": ("singlemalt", "diafile"), "up": ("singlemalt", "use_partial_tree"),
    "fp": ("singlemalt", "propagation"), "ir": ("input", "reader"), "iro": ("input", "reader_options"),
    "it": ("input", "iterations"), "ow": ("output", "writer"), "owo": ("output", "writer_options"),
    "gsl": ("graph", "max_sentence_length"), "ghr": ("graph", "head_rules"), "lx": ("lib", "external"),
    "li": ("lib", "save_instance_files"), "lv": ("lib", "verbosity"), "k": ("guide", "kbest"),
    "kt": ("guide", "kbest_type"), "gds": ("guide", "decision_settings"), "gcs": ("guide", "classitem_separator"),
}  # fmt: skip

#: Flags of earlier releases that MaltParser 1.9.2 still takes, as the flag it takes them for.
OLD_FLAGS = {"llo": "lo", "lso": "lo", "lli": "li", "lsi": "li", "llx": "lx", "lsx": "lx", "llv": "lv", "lsv": "lv"}

#: MaltParser's modes (-m) that maltpy has no command for.
NOT_RUN = ("unpack", "analyze", "learnwo", "testdata", "versioning")

#: The -v levels; below info (MaltParser's default) the command runs with -q.
VERBOSITY = ("off", "fatal", "error", "warn", "info", "debug")
QUIET = ("off", "fatal", "error")

_TAKEN: dict[Key, str] = {**RUN_OPTIONS, **{key: option.flag for key, option in OPTIONS.items()}}
_BY_FLAG: dict[str, Key] = {flag: key for key, flag in _TAKEN.items()}
_KNOWN: tuple[Key, ...] = (*_TAKEN, *NOT_TAKEN.values())
_STREAMS = {"", "-", "/dev/stdin", "/dev/stdout"}  # what MaltParser reads as standard input or output

#: The names MaltParser gives CoNLL-X and CoNLL-U in -if and -of: its format names and their files.
FORMAT_NAMES = {spelling: name for name in FORMATS
                for spelling in (name, f"{name}.xml", f"/appdata/dataformat/{name}.xml")}  # fmt: skip


@dataclass(slots=True)
class Given:
    """An option's value, and where it was given: as typed on the command line ("-a",
    "--config-name") or named in an option file ("singlemalt-parsing_algorithm" at FILE:LINE)."""

    value: str
    shown: str
    file: str = COMMAND_LINE
    line: int | None = None

    def error(self, message: str) -> MaltpyError:
        return MaltpyError(f"{self.shown} {quote(self.value)}: {message}", self.file, self.line)

    def where(self) -> str:
        return self.shown if self.file == COMMAND_LINE else f"{self.shown} ({quote(self.file)}:{self.line})"


class Options:
    """The options given, and which of them the mode has used."""

    def __init__(self, given: dict[Key, Given]) -> None:
        self.given = given
        self.used: set[Key] = set()

    def get(self, key: Key) -> Given | None:
        self.used.add(key)
        return self.given.get(key)

    def value(self, key: Key, default: str | None = None) -> str | None:
        given = self.get(key)
        return default if given is None else given.value

    def unused(self) -> list[str]:
        return [given.where() for key, given in self.given.items() if key not in self.used]


def maltpy_arguments(argv: list[str]) -> list[str]:
    """The maltpy command line that does what MaltParser's command line ``argv`` asks."""
    given = read_arguments(argv)
    option_file = given.pop(("system", "option_file"), None)
    if option_file is not None:
        given = {**read_option_file(option_file.value), **given}
    flowchart = given.get(("config", "flowchart"))
    _check_configuration(given, parsing=flowchart is None or flowchart.value == "parse")
    options = Options(given)
    options.get(("config", "name"))  # every mode names a configuration in MaltParser, some leave it unused
    options.get(("config", "workingdir"))
    mode = options.get(("config", "flowchart"))
    name = "parse" if mode is None else mode.value
    if name not in _MODES:
        modes = ", ".join(_MODES)
        if name in NOT_RUN:
            raise mode.error(f"MaltParser's {name} mode has no maltpy counterpart (maltpy runs {modes})")
        raise mode.error(f"not one of MaltParser's modes ({modes}, {', '.join(NOT_RUN)})")
    verbosity = options.get(("system", "verbosity"))
    if verbosity is not None and verbosity.value not in VERBOSITY:
        raise verbosity.error(f"not one of {', '.join(VERBOSITY)}")
    quiet = ["-q"] if verbosity is not None and verbosity.value in QUIET else []
    args = _MODES[name](options, quiet)
    if options.unused():
        warn(f"-m {name} does not use {', '.join(options.unused())}: ignored")
    return args


# --- reading the options ----------------------------------------------------------------------


def read_arguments(argv: list[str]) -> dict[Key, Given]:
    """MaltParser's options on the command line: ``-FLAG VALUE``, ``--GROUP-NAME=VALUE``,
    ``--NAME=VALUE``, and (maltpy's reading, which MaltParser has not) ``--GROUP-NAME VALUE``."""
    given: dict[Key, Given] = {}
    i = 0
    while i < len(argv):
        arg = argv[i]
        if arg.startswith("--") and len(arg) > 2:
            text, equals, value = arg[2:].partition("=")
            key = _named(text, arg.partition("=")[0])
        elif arg.startswith("-") and len(arg) > 1:
            flag = OLD_FLAGS.get(arg[1:], arg[1:])
            key = _flagged(flag, arg)
            equals = ""
        else:
            raise MaltpyError(f"{quote(arg)}: not an option (MaltParser's options are -FLAG VALUE or "
                              f"--GROUP-NAME=VALUE)", COMMAND_LINE)  # fmt: skip
        if not equals:
            i += 1
            if i == len(argv):
                raise MaltpyError(f"{arg} needs a value", COMMAND_LINE)
            value = argv[i]
        given[key] = Given(value, arg.partition("=")[0])
        i += 1
    return given


def read_option_file(path: str) -> dict[Key, Given]:
    """The options of MaltParser's XML option file (its one ``<optioncontainer>``)."""
    parser = xml.parsers.expat.ParserCreate()
    given: dict[Key, Given] = {}
    state = {"containers": 0, "group": None}

    def start(tag: str, attrs: dict[str, str]) -> None:
        line = parser.CurrentLineNumber
        if tag == "optioncontainer":
            state["containers"] += 1
            if state["containers"] > 1:
                raise MaltpyError("a second <optioncontainer>: maltpy runs one configuration at a time", path, line)
        elif tag == "optiongroup":
            state["group"] = attrs.get("groupname", "").lower()
        elif tag == "option" and state["group"] is not None:
            shown = f"{state['group']}-{attrs.get('name', '').lower()}"
            try:
                key = _named(shown, shown)
            except MaltpyError as e:
                raise MaltpyError(e.message, path, line) from None
            if "value" not in attrs:
                raise MaltpyError(f"{shown} has no value", path, line)
            given[key] = Given(attrs["value"], shown, path, line)

    def end(tag: str) -> None:
        if tag == "optiongroup":
            state["group"] = None

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    try:
        parser.Parse(read_file(path, "option file"), True)
    except xml.parsers.expat.ExpatError as e:
        raise MaltpyError(f"option file is not well-formed XML: {xml.parsers.expat.errors.messages[e.code]}",
                          path, e.lineno) from None  # fmt: skip
    return given


#: The options ``maltpy parse`` reads (-nt, -gsr, -cd): whether the model's algorithm reads them
#: is checked in parse mode once the model is found (``_check_parse_options``).
PARSE_OPTIONS = (ENFORCE_TREE, ("graph", "single_root"), MAX_DEGREE)


def _check_configuration(given: dict[Key, Given], parsing: bool = False,
                         algorithm: str | None = None) -> None:  # fmt: skip
    """The configuration's options given (every mode's: MaltParser checks each value as it reads
    it), checked by the rules of maltpy's configuration, an error naming the option file and line
    where the option was given there (the maltpy command they become has only a command line).
    ``parsing``: parse mode, whose -nt and -cd the model's algorithm reads or not, not -a's
    default: checked here only as values (``algorithm``, when given, is the model's)."""
    values = {key: _format(g) if key == ("input", "format") else g.value
              for key, g in given.items() if key in OPTIONS}  # fmt: skip
    places = {key: (g.file, g.line) for key, g in given.items() if key in OPTIONS and g.file != COMMAND_LINE}
    if parsing:
        for key in PARSE_OPTIONS:
            if key in values:  # its value checked with an algorithm that reads it
                load_config(None, {**values, ("singlemalt", "parsing_algorithm"): algorithm or USED_BY[key][0],
                                   key: values[key]}, places=places)  # fmt: skip
                if algorithm is None:
                    del values[key]
        if algorithm is not None:
            values[("singlemalt", "parsing_algorithm")] = algorithm
    load_config(None, values, places=places)


def _flagged(flag: str, shown: str) -> Key:
    if flag in _BY_FLAG:
        return _BY_FLAG[flag]
    if flag in NOT_TAKEN:
        group, name = NOT_TAKEN[flag]
        raise MaltpyError(f"{shown} ({group}-{name}): a MaltParser option maltpy does not take", COMMAND_LINE)
    raise MaltpyError(f"{shown}: not one of MaltParser's flags", COMMAND_LINE)


def _named(text: str, shown: str) -> Key:
    """The option ``--GROUP-NAME`` or ``--NAME`` (``text`` without the dashes)."""
    group, dash, name = text.lower().partition("-")
    if dash:
        matches = [(group, name)] if (group, name) in _KNOWN else []
    else:
        name = group
        matches = [key for key in _KNOWN if key[1] == name]
        if len(matches) > 1:
            raise MaltpyError(f"{shown} is ambiguous: {' or '.join(f'--{g}-{n}' for g, n in matches)}", COMMAND_LINE)
    if not matches:
        raise MaltpyError(f"{shown}: not one of MaltParser's options", COMMAND_LINE)
    if matches[0] not in _TAKEN:
        raise MaltpyError(f"{shown}: a MaltParser option maltpy does not take", COMMAND_LINE)
    return matches[0]


# --- the modes --------------------------------------------------------------------------------


def _learn(options: Options, quiet: list[str]) -> list[str]:
    """MaltParser's learn mode: the configuration's options as ``maltpy learn``'s flags; the
    model is NAME.mpm in the working directory (maltpy writes no .mco). It takes MaltParser's
    defaults (defaults.profile maltparser, unless -P is given) and learns no taggers, as MaltParser
    does not, unless tagger.columns (-tc) is given."""
    args = ["learn", "-m", _model_stem(options) + ".mpm", *_input(options)]
    for key, option in OPTIONS.items():
        given = options.get(key)
        if given is not None:
            value = _format(given) if key == ("input", "format") else given.value
            args += [f"-{option.flag}", value]
    for key, value in ((("tagger", "columns"), "none"), (("defaults", "profile"), "maltparser")):
        if options.get(key) is None:
            args += [f"-{OPTIONS[key].flag}", value]
    return args + quiet


def _parse(options: Options, quiet: list[str]) -> list[str]:
    """MaltParser's parse mode: ``maltpy parse`` with the model NAME.mco or NAME.mpm, and the
    options read at parse time: -nt, maltpy's -gsr and -cd."""
    streams = [*_input(options), *_output(options), *_same_format(options)]  # checked before the model is looked for
    model = _find_model(options)
    algorithm = _saved_algorithm(model)
    parse_time = {key: g for key, g in options.given.items() if key in PARSE_OPTIONS}
    if algorithm is not None and parse_time:  # whether the model reads them, at their file and line
        _check_configuration(parse_time, parsing=True, algorithm=algorithm)
    args = ["parse", "-m", model, *streams]
    for key in PARSE_OPTIONS:
        value = options.value(key)
        if value is not None:
            args += [f"-{OPTIONS[key].flag}", value]
    return args + quiet


def _info(options: Options, quiet: list[str]) -> list[str]:
    return ["info", "-m", _find_model(options)]


def _convert(options: Options, quiet: list[str]) -> list[str]:
    """MaltParser's convert mode: -if to -of (by default the input's, conllx by default)."""
    given_in, given_out = options.get(("input", "format")), options.get(("output", "format"))
    source = None if given_in is None else _format(given_in)
    target = _format(given_out) if given_out is not None else source or "conllx"
    return ["convert", *_input(options), *_output(options), "--format", source or "auto", "--to", target, *quiet]


def _proj(options: Options, quiet: list[str]) -> list[str]:
    """MaltParser's proj mode, its -pp none by default (maltpy writes no NAME.mco beside)."""
    args = ["proj", *_input(options), *_output(options), *_same_format(options)]
    args += ["-pp", options.value(("pproj", "marking_strategy"), "none")]
    for key in (("pproj", "covered_root"), ("pproj", "lifting_order")):
        value = options.value(key)
        if value is not None:
            args += [f"-{OPTIONS[key].flag}", value]
    return args + quiet


def _deproj(options: Options, quiet: list[str]) -> list[str]:
    """MaltParser's deproj mode, with the marking strategy the configuration NAME saved (NAME.mco,
    as MaltParser's proj mode saves it or a model; or maltpy's NAME.mpm), which wins over -pp as a
    saved option does in MaltParser; -pp where there is no such file (maltpy's proj mode saves
    none)."""
    streams = [*_input(options), *_output(options), *_same_format(options)]
    given = options.given.get(("config", "name"))
    model = None if given is None else _saved_model(options)
    if model is not None:
        strategy = _saved_marking_strategy(model)  # -pp, if given, is reported unused
    else:
        strategy = options.value(("pproj", "marking_strategy"))
        if strategy is None and given is None:
            raise MaltpyError("-m deproj needs -c NAME (the marking strategy NAME.mco saved) or -pp", COMMAND_LINE)
        if strategy is None:
            stem = _model_stem(options)
            raise MaltpyError(f"-m deproj needs the marking strategy: no {quote(stem + '.mco')} or "
                              f"{quote(stem + '.mpm')} saved one, and no -pp gives it",
                              given.file, given.line)  # fmt: skip
    return ["deproj", *streams, "-pp", strategy, *quiet]


def _saved_algorithm(path: str) -> str | None:
    """The parsing algorithm of the model at ``path`` (an .mco's saved option, a maltpy model's
    configuration), None for a blend (maltpy parse asks its members)."""
    from ..mco.container import is_mco
    from ..mco.options import saved_options

    if is_mco(path):
        algorithm = saved_options(path).get(("singlemalt", "parsing_algorithm"), "nivreeager")
        return algorithm if algorithm in SYSTEMS else None  # another is the model's error, when it is read
    config = _saved_config(path)
    return None if config is None else config.singlemalt.parsing_algorithm


def _saved_marking_strategy(path: str) -> str:
    """The marking strategy of the configuration saved at ``path``: an .mco's saved option
    (MaltParser's default, none, if it has none), a maltpy model's configuration."""
    from ..mco.container import is_mco
    from ..mco.options import saved_options

    key = ("pproj", "marking_strategy")
    if is_mco(path):
        return load_config(None, {key: saved_options(path).get(key, "none")}, given=path).pproj.marking_strategy
    config = _saved_config(path)
    if config is None:
        raise MaltpyError("a blend of models, which has no one marking strategy: -m deproj takes none from it", path)
    return config.pproj.marking_strategy


def _saved_config(path: str):
    """The configuration of the maltpy model at ``path``, None for a blend (its members have one each)."""
    from ..models.parts import open_archive

    with open_archive(path) as archive:
        config = archive.manifest.get("config")
        return None if config is None else config_from_dict(config, path)


_MODES = {"learn": _learn, "parse": _parse, "info": _info, "convert": _convert, "proj": _proj, "deproj": _deproj}


# --- files, formats and character sets ---------------------------------------------------------


def _folder(options: Options) -> str | None:
    """The working directory (-w), None for the current one."""
    given = options.get(("config", "workingdir"))
    if given is None:
        return None
    if not os.path.isdir(given.value):
        raise given.error("no such folder (the working directory)")
    return given.value


def _model_stem(options: Options) -> str:
    """The model's path without its suffix: NAME in the working directory (NAME may end in .mco,
    as MaltParser allows)."""
    given = options.get(("config", "name"))
    name = "" if given is None else given.value.removesuffix(".mco")
    if not name:
        raise MaltpyError("no configuration name: MaltParser's command line names it with -c NAME", COMMAND_LINE)
    folder = _folder(options)
    return name if folder is None else os.path.join(folder, name)


def _find_model(options: Options) -> str:
    """NAME.mco (MaltParser's) or NAME.mpm (maltpy's) in the working directory
    (``_saved_model``); an error if neither is there."""
    found = _saved_model(options)
    if found is None:
        stem, name = _model_stem(options), options.given[("config", "name")]
        raise MaltpyError(f"no model {quote(stem + '.mco')} or {quote(stem + '.mpm')}", name.file, name.line)
    return found


def _saved_model(options: Options) -> str | None:
    """NAME.mco or NAME.mpm in the working directory, the newer if both are there (a model learned
    here after MaltParser's), saying so; None if neither is."""
    stem = _model_stem(options)
    found = [path for path in (stem + ".mpm", stem + ".mco") if os.path.isfile(path)]
    if not found:
        return None
    newest = max(found, key=lambda path: os.stat(path).st_mtime_ns)  # a tie: the first, NAME.mpm
    if len(found) == 2:
        other = found[1] if newest == found[0] else found[0]
        warn(f"both {quote(found[0])} and {quote(found[1])}: taking the newer, {quote(newest)} "
             f"(not {quote(other)})")  # fmt: skip
    return newest


def _input(options: Options) -> list[str]:
    _utf8(options.get(("input", "charset")))
    path = options.value(("input", "infile"), "")
    return [] if path in _STREAMS else ["-i", path]


def _output(options: Options) -> list[str]:
    _utf8(options.get(("output", "charset")))
    path = options.value(("output", "outfile"), "")
    return [] if path in _STREAMS else ["-o", path]


def _same_format(options: Options) -> list[str]:
    """maltpy writes in the input's format: -if and -of, where given, name that format."""
    given = [g for g in (options.get(("input", "format")), options.get(("output", "format"))) if g is not None]
    formats = [_format(g) for g in given]
    if len(set(formats)) > 1:
        raise given[1].error(f"maltpy writes in the input's format, here {formats[0]} ({given[0].shown})")
    return ["--format", formats[0]] if formats else []


def _format(given: Given) -> str:
    if given.value not in FORMAT_NAMES:
        raise given.error(f"maltpy reads and writes {' and '.join(FORMATS)} only ({', '.join(FORMAT_NAMES)})")
    return FORMAT_NAMES[given.value]


def _utf8(given: Given | None) -> None:
    if given is not None and given.value.upper() not in ("UTF-8", "UTF8"):
        raise given.error("maltpy reads and writes UTF-8 only")
