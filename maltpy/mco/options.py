"""MaltParser's saved options (savedoptions.sop, as ``text`` reads them) as maltpy's
configuration, and the data format XML they name.

The options maltpy reads are mapped to its own (OPTION_KEYS, 1.5 and 1.6's nivre root handling
as 1.7's); those it parses by one value only must have that value (FIXED, the charsets); the
data format must list CoNLL-X's or CoNLL-U's columns. A setting maltpy does not implement is
refused, naming the option and its value.
"""

from __future__ import annotations

import posixpath
import re
import xml.parsers.expat

from ..config import config_from_dict
from ..data.columns import FORMATS, maltparser_names
from ..data.conll import valid_label
from ..errors import MaltpyError, cut, require
from ..files import MAX_SMALL_FILE
from ..models.parts import SEPARATOR
from .container import Members, read_members, reading
from .text import read_options

#: The data formats maltpy reads, as MaltParser's XML lists their columns.
DATA_FORMATS = {data_format: maltparser_names(data_format) for data_format in FORMATS}
#: Saved options maltpy reads, (group, name) -> maltpy's key; the others are checked below.
OPTION_KEYS = {
    ("singlemalt", "parsing_algorithm"): ("singlemalt", "parsing_algorithm"),
    ("singlemalt", "null_value"): ("singlemalt", "null_value"),
    ("graph", "root_label"): ("graph", "root_label"),
    ("nivre", "allow_root"): ("nivre", "allow_root"),
    ("nivre", "allow_reduce"): ("nivre", "allow_reduce"),
    ("covington", "allow_root"): ("covington", "allow_root"),
    ("covington", "allow_shift"): ("covington", "allow_shift"),
    ("planar", "connectedness"): ("planar", "connectedness"),
    ("planar", "acyclicity"): ("planar", "acyclicity"),
    ("planar", "no_covered_roots"): ("planar", "no_covered_roots"),
    ("multiplanar", "planar_root_handling"): ("multiplanar", "planar_root_handling"),
    ("2planar", "reduceonswitch"): ("2planar", "reduceonswitch"),
    ("guide", "learner"): ("guide", "learner"),
    ("guide", "data_split_column"): ("guide", "data_split_column"),
    ("guide", "data_split_structure"): ("guide", "data_split_structure"),
    ("guide", "data_split_threshold"): ("guide", "data_split_threshold"),
    ("pproj", "marking_strategy"): ("pproj", "marking_strategy"),
    ("pproj", "covered_root"): ("pproj", "covered_root"),
    ("pproj", "lifting_order"): ("pproj", "lifting_order"),
}
#: Saved options with the only value maltpy parses by (empty: none given).
FIXED = {
    ("singlemalt", "guide_model"): "single",
    ("singlemalt", "use_partial_tree"): "false",
    ("singlemalt", "propagation"): "",
    ("guide", "classitem_separator"): SEPARATOR,
    ("guide", "kbest"): "-1",
    ("graph", "head_rules"): "",
}
#: 1.5 and 1.6's nivre root_handling as 1.7's allow_root and allow_reduce (1.5.2's ArcEager
#: tests root_handling != NORMAL where 1.7's tests !allowRoot, and forbids REDUCE of a word
#: without a head only when STRICT).
ROOT_HANDLING = {"normal": (True, True), "relaxed": (False, True), "strict": (False, False)}


def saved_options(path: str) -> dict[tuple[str, str], str]:
    """The saved options of the MaltParser configuration at ``path`` (a model's, or what
    MaltParser's proj mode saves for its deproj mode: the options and the symbol tables), as
    ``read_options`` gives them; MaltpyError naming the file and what is wrong."""
    with reading(path), read_members(path) as members:
        return read_options(members.text("savedoptions.sop"), f"{members.name}/savedoptions.sop")


def config_of(options: dict[tuple[str, str], str], release: tuple[int, ...]):
    """maltpy's configuration of the saved options; ValueError naming an option maltpy cannot
    parse as MaltParser does."""
    for key, value in FIXED.items():
        if key in options and options[key] != value:
            raise ValueError(f"option {key[0]} {key[1]} is {cut(options[key], 100)!r}: maltpy parses with "
                             f"{value!r} only")  # fmt: skip
    for key in (("input", "charset"), ("output", "charset")):
        if key in options and options[key].replace("-", "").lower() != "utf8":
            raise ValueError(f"option {key[0]} {key[1]} is {cut(options[key], 100)!r}: maltpy reads UTF-8 only")
    raw: dict[str, dict[str, object]] = {}
    for key, (group, name) in OPTION_KEYS.items():
        value = options.get(key)
        if value is None or (value == "" and key[0] == "guide"):
            continue
        raw.setdefault(group, {})[name] = value
    handling = options.get(("nivre", "root_handling"))
    if handling is not None and release[:2] < (1, 7):
        require(handling in ROOT_HANDLING, f"option nivre root_handling is {cut(handling, 100)!r}")
        raw.setdefault("nivre", {}).update(zip(("allow_root", "allow_reduce"), map(str, ROOT_HANDLING[handling])))
    require("parsing_algorithm" in raw.get("singlemalt", {}), "no saved option singlemalt parsing_algorithm")
    handling = options.get(("2planar", "planar_root_handling"))
    if handling is not None and raw["singlemalt"]["parsing_algorithm"] == "2planar":
        # 1.5 to 1.7.1 keep -prh in group 2planar, for the 2-planar system alone: their planar
        # system has no root handling (PlanarFactory), which is 1.7.2's normal
        raw.setdefault("multiplanar", {})["planar_root_handling"] = handling
    require("learner" in raw.get("guide", {}), "no saved option guide learner")
    raw.setdefault("graph", {})["single_root"] = "false"  # MaltParser's parse, root words as they come
    for group in raw.values():
        for name, value in group.items():
            if isinstance(value, str) and value.lower() in ("true", "false"):
                group[name] = value.lower() == "true"
    if "data_split_threshold" in raw.get("guide", {}):
        text = raw["guide"]["data_split_threshold"]
        require(re.fullmatch(r"\d{1,9}", text) is not None, f"option guide data_split_threshold is {cut(text, 40)!r}")
        raw["guide"]["data_split_threshold"] = int(text)
    try:
        return config_from_dict(raw, "savedoptions.sop")
    except MaltpyError as e:
        raise ValueError(f"savedoptions.sop: {e.message}") from None


def read_data_format(members: Members, options: dict[tuple[str, str], str]) -> tuple[str, dict[int, str]]:
    """conllx or conllu, from the data format XML the options name (its columns must be one of
    those formats', in order), and the columns it marks IGNORE with what MaltParser writes in
    them, their default (``_``): CoNLL-X's PHEAD and PDEPREL, CoNLL-U's DEPS and MISC."""
    name = posixpath.basename(options.get(("input", "format"), "conllx.xml").replace("\\", "/"))
    text = bytes(members.get(name, MAX_SMALL_FILE))
    columns: list[str] = []
    ignored: dict[int, str] = {}

    def column(tag: str, attrs: dict) -> None:
        if tag == "column":
            if attrs.get("category") == "IGNORE":
                ignored[len(columns)] = attrs.get("default", "_")
            columns.append(attrs.get("name", ""))

    parser = xml.parsers.expat.ParserCreate()
    parser.StartElementHandler = column
    try:
        parser.Parse(text, True)
    except xml.parsers.expat.ExpatError as e:
        raise ValueError(f"{name} is not well-formed XML (line {e.lineno})") from None
    for data_format, names in DATA_FORMATS.items():
        if tuple(columns) == names:
            require(all(k >= 8 and valid_label(v) for k, v in ignored.items()),
                    f"{name}: an ignored column other than the 9th and 10th, or a bad default")  # fmt: skip
            return data_format, ignored
    raise ValueError(f"option input format is {cut(name, 100)!r}, whose columns ({cut(' '.join(columns), 120)}) are "
                     f"neither CoNLL-X's nor CoNLL-U's")  # fmt: skip
