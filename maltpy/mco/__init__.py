"""MaltParser's model files (.mco), from every release since 1.5, as maltpy models.

An .mco is a zip (a JAR) of one folder, named after the configuration it was learned as, holding
(MaltParser's ConfigurationDir, the same layout 1.5 to 1.9.2): a report naming the release that
wrote it, the saved options, the symbol tables, the data format and feature model XML it was
learned with, and the classifiers: ``odm0.<learner>.moo`` (LIBLINEAR or LIBSVM model) and
``odm0.<learner>.map`` (its FeatureMap), with a data split ``odm0.dsm`` and one
``odm0.NNN.<learner>.*`` pair per split value of code NNN. The text members are ``mco_text``'s;
the classifiers and maps are Java serialization streams, read by ``javaser`` for these classes
only.

How MaltParser turns a configuration into a classifier's input (Lib.predict, the same in every
release): feature i of the feature vector (the feature model's features without blanks, sorted
and without repeats; 1-based) has a value with a code in its symbol table (the column's table
for InputColumn and OutputColumn, MERGE2_/MERGE3_ tables for Merge, ... ``table_name``); the
FeatureMap takes ``(i << 48) | code`` to the learner's feature index. maltpy's features give
values as text, so each map key is turned into (feature, the text of that code's symbol), or
several texts where maltpy's feature tells apart what MaltParser's codes alike (InputArc, which
is always null in MaltParser; the root's ID with ``rootnode``), and the model becomes a maltpy
Model: the same feature values, the same columns in the same order, the same weights, so the
same scores, summed in the same order, ranked the same way (MaltParser's selection sort). A key
no maltpy value can meet (a Merge of nulls, whose value MaltParser leaves out) keeps its column
under a name no feature gives, so that the columns keep their numbers. A feature whose values
maltpy cannot give as MaltParser does (Suffix, Prefix) is refused.

Everything read is untrusted: the number of members and their sizes are bounded before anything
is read (MAX_MEMBERS, MAX_MCO_VARIABLE, MAX_RATIO), each member is read when needed into a buffer
of the size it declares, the streams hold only the classes named here, what the streams and the
symbol tables become in memory is spent from one budget of MAX_MCO_VARIABLE bytes (javaser.Budget;
also what the LIBLINEAR weights become, a row shared by back-reference once for each feature that
shares it), and every array is checked against the others before use. A setting maltpy does not
implement is refused, naming the option and its value.
"""

from __future__ import annotations

import io
import posixpath
import re
import xml.parsers.expat
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..config import config_from_dict
from ..data.conll import valid_label
from ..data.lines import environment_bytes
from ..data.pseudoproj import COVERED_MARK, DeprelOf, Encoding
from ..errors import MaltpyError, cut, require
from ..features import FeatureModel
from ..features.functions import NOVALUE, NULL, ROOTNODE
from ..features.spec import INTEGER_COLUMNS, MULTI_VALUED, parse_feature_model
from ..files import MAX_MEMBERS, MAX_SMALL_FILE, open_file, too_many_members
from ..learners import AtomicModel
from ..learners.divide import data_split, guide_of
from ..learners.encoding import NUMBER, FeatureMap
from ..learners.liblinear import MAX_WEIGHT, LibLinear
from ..learners.libsvm import KERNELS, LibSvm
from ..models.archive import _READ_ERRORS, MANIFEST, MAX_RATIO
from ..models.parts import SEPARATOR, Classes
from ..transition import SYSTEMS
from ..transition.base import LA, RA
from .javaser import Budget, JavaEnum, JavaObject, ObjectRows, Records, Rows, StreamError, read_stream
from .text import MCOError, read_options, read_symbol_tables, writing_release

MAX_MCO_VARIABLE = "MALTPY_MAX_MCO_BYTES"
READ_CHUNK = 1 << 22  # bytes inflated at a time into a member's buffer
INFO_SUFFIX = "_singlemalt.info"
#: How the names of an .mco's members end (in its folder): the report, the saved options, the
#: symbol tables, a classifier.
MALTPARSER_MEMBERS = (INFO_SUFFIX, "savedoptions.sop", "symboltables.sym", ".moo")

#: The classes a stream may hold (besides javaser.BOXES), with the SolverType of both packages.
LIBLINEAR_CLASSES = frozenset({"org.maltparser.ml.lib.MaltLiblinearModel", "liblinear.SolverType",
                               "de.bwaldvogel.liblinear.SolverType"})  # fmt: skip
LIBSVM_CLASSES = frozenset({"org.maltparser.ml.lib.MaltLibsvmModel", "libsvm.svm_parameter", "libsvm.svm_node"})
MAP_CLASSES = frozenset({"org.maltparser.ml.lib.FeatureMap", "org.maltparser.core.helper.HashMap"})
SOLVERS = ("L2R_LR", "L2R_L2LOSS_SVC_DUAL", "L2R_L2LOSS_SVC", "L2R_L1LOSS_SVC_DUAL", "MCSVM_CS",
           "L1R_L2LOSS_SVC", "L1R_LR", "L2R_LR_DUAL")  # fmt: skip
LEARNER_FILES = {"liblinear": "liblinear", "libsvm": "libsvm"}
#: The data formats maltpy reads, as MaltParser's XML lists their columns.
DATA_FORMATS = {
    "conllx": ("ID", "FORM", "LEMMA", "CPOSTAG", "POSTAG", "FEATS", "HEAD", "DEPREL", "PHEAD", "PDEPREL"),
    "conllu": ("ID", "FORM", "LEMMA", "UPOSTAG", "XPOSTAG", "FEATS", "HEAD", "DEPREL", "DEPS", "MISC"),
}
#: Decision settings' parts after T.TRANS and A.DEPREL: the pseudo-projective columns.
PP_PARTS = ("A.PPLIFTED", "A.PPPATH", "A.PPCOVERED")
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
#: A column no maltpy feature value reaches: a key of the map whose code has no such value.
UNREACHED = "\t"


def max_mco_bytes() -> int:
    """The most bytes an .mco's members may hold, uncompressed, all together: 512 MB (a model of
    a million-token treebank holds some 50 MB), or the environment's setting. The same number
    bounds the memory of the values read from any one stream (javaser's ``budget``)."""
    return environment_bytes(MAX_MCO_VARIABLE, 512 << 20)


def is_mco(path: str, data: bytes | None = None) -> bool:
    """Whether the file (or ``data``) is a zip of a MaltParser configuration, whole or not, so
    that load_mco, not the maltpy archive reader, says what is wrong with it: a zip listing a
    member that MaltParser names (MALTPARSER_MEMBERS) in a folder and no maltpy manifest; a zip of
    more entries than any model has (MAX_MEMBERS), which load_mco refuses before they are listed;
    a zip that cannot be listed (cut short: no end record) whose first member, in its local
    header, lies in a folder (APPNOTE 4.3.7: its name at byte 30; maltpy's archives begin with
    their manifest)."""
    try:
        with open_file(path, "model file") if data is None else io.BytesIO(data) as f:
            header = f.read(30)
            if header[:4] != b"PK\x03\x04" or len(header) < 30:
                return False
            first = f.read(int.from_bytes(header[26:28], "little"))
            if too_many_members(f) is not None:
                return True
            f.seek(0)
            try:
                with zipfile.ZipFile(f) as z:
                    names = z.namelist()[:10_000]
            except _READ_ERRORS:
                return b"/" in first
    except (OSError, ValueError, EOFError):
        return False
    return MANIFEST not in names and any("/" in n and n.rsplit("/", 1)[1].endswith(MALTPARSER_MEMBERS) for n in names)


# --- the archive -----------------------------------------------------------------------------


@dataclass
class Members:
    """The members of an .mco, by their names in its one folder ``name``, each read when asked
    for (one at a time in memory, as load_mco takes them) into a buffer of the size it declares,
    never past it, its CRC checked."""

    name: str
    zip: zipfile.ZipFile
    infos: dict[str, zipfile.ZipInfo]
    #: what the values read from the members may take in memory, together
    budget: Budget

    def get(self, member: str, most: int | None = None) -> bytearray:
        """The member's bytes; ValueError if it is missing, or holds more than ``most``."""
        info = self.infos.get(member)
        if info is None:
            raise ValueError(f"{self.name}/{member} is missing")
        require(most is None or info.file_size <= most,
                f"{self.name}/{member} holds {info.file_size} bytes, more than maltpy reads of one "
                f"({most})")  # fmt: skip
        data = bytearray(info.file_size)
        view = memoryview(data)
        done = 0
        try:
            with self.zip.open(info) as f:
                while done < len(data):
                    n = f.readinto(view[done : done + READ_CHUNK])
                    if n == 0:
                        break
                    done += n
                extra = f.read(1)
        except _READ_ERRORS as e:
            raise ValueError(f"{self.name}/{member}: not a readable zip member ({cut(e)})") from None
        require(done == len(data) and not extra,
                f"{self.name}/{member} holds other than the {len(data)} bytes it declares")  # fmt: skip
        return data

    def text(self, member: str, most: int | None = MAX_SMALL_FILE) -> str:
        """The member's UTF-8 text; by default one of at most MAX_SMALL_FILE bytes (a report, the
        options, an XML file: a few kB)."""
        try:
            return self.get(member, most).decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError(f"{self.name}/{member} is not UTF-8 text") from None


@contextmanager
def read_members(path: str, data: bytes | None = None) -> Iterator[Members]:
    """The members of the .mco at ``path`` (or in ``data``), open while the context lasts: at
    most MAX_MEMBERS (counted before zipfile lists them), in one folder, no deeper paths, no name
    twice, their declared sizes within bounds (max_mco_bytes() in all, MAX_RATIO times what they
    take compressed) before any is read."""
    limit = max_mco_bytes()
    with open_file(path, "model file") if data is None else io.BytesIO(data) as f:
        many = too_many_members(f)
        require(many is None, f"not a MaltParser model ({many}; a model has a few, maltpy reads {MAX_MEMBERS} at most)")
        try:
            z = zipfile.ZipFile(f)
        except _READ_ERRORS as e:
            raise ValueError(f"a damaged or truncated .mco: not a readable zip archive ({cut(e)}; "
                             "a file cut short?)") from None
        with z:
            all_infos = [i for i in z.infolist() if not i.filename.endswith("/")]
            require(0 < len(all_infos) <= MAX_MEMBERS, "not a MaltParser model (no members, or too many)")
            folders = {i.filename.split("/", 1)[0] for i in all_infos}
            require(len(folders) == 1, "not a MaltParser model (its members are not in one folder)")
            infos: dict[str, zipfile.ZipInfo] = {}
            total = 0
            for info in all_infos:
                parts = info.filename.split("/")
                require(len(parts) == 2 and parts[1] not in ("", ".", "..") and "\\" not in info.filename,
                        f"a member outside the model's folder: {cut(info.filename, 100)!r}")  # fmt: skip
                size = info.file_size
                total += size
                if total > limit or size > MAX_RATIO * info.compress_size:  # 1.5's LIBLINEAR weights: mostly zeros
                    raise ValueError(f"{cut(info.filename, 100)} declares {size} bytes from {info.compress_size}, "
                                     f"more than maltpy reads of an .mco ({limit} in all, {MAX_MCO_VARIABLE} allows "
                                     f"more; or a zip bomb)")  # fmt: skip
                require(parts[1] not in infos, f"{cut(info.filename, 100)} twice")
                infos[parts[1]] = info
            yield Members(folders.pop(), z, infos, Budget(limit))


# --- the model ---------------------------------------------------------------------------------


def load_mco(path: str, data: bytes | None = None):
    """The parser.Model of the MaltParser model file at ``path`` (or in ``data``), every part
    checked; MaltpyError naming the file and what is wrong."""
    with _reading(path), read_members(path, data) as members:
        return _load(members)


def saved_options(path: str) -> dict[tuple[str, str], str]:
    """The saved options of the MaltParser configuration at ``path`` (a model's, or what
    MaltParser's proj mode saves for its deproj mode: the options and the symbol tables), as
    ``read_options`` gives them; MaltpyError naming the file and what is wrong."""
    with _reading(path), read_members(path) as members:
        return read_options(members.text("savedoptions.sop"), f"{members.name}/savedoptions.sop")


@contextmanager
def _reading(path: str) -> Iterator[None]:
    """What goes wrong in reading the .mco at ``path`` as a MaltpyError naming it."""
    try:
        yield
    except MCOError as e:
        raise MaltpyError(f"damaged MaltParser model: {e}", path) from None
    except StreamError as e:
        raise MaltpyError(f"damaged MaltParser model: {cut(e, 300)}", path) from None
    except ValueError as e:
        raise MaltpyError(f"MaltParser model: {cut(e, 300)}", path) from None
    except (KeyError, TypeError, IndexError, AttributeError, RecursionError, OverflowError) as e:
        raise MaltpyError(f"damaged MaltParser model: {type(e).__name__}: {cut(e, 200)}", path) from None
    except MaltpyError as e:
        if e.file == path:
            raise
        # a member's own reader (the feature model's) names the member: the line names the .mco
        where = f"{e.file}:{e.line}: " if e.line is not None else f"{e.file}: " if e.file is not None else ""
        raise MaltpyError(f"MaltParser model: {where}{e.message}", path) from None


def _load(members: Members):
    from ..models.parser import Model

    infos = [m for m in members.infos if m.endswith(INFO_SUFFIX)]
    require(len(infos) <= 1, f"not a MaltParser model (several reports: {cut(', '.join(sorted(infos)), 100)})")
    require(len(infos) == 1, f"{members.name}/{members.name}{INFO_SUFFIX} is missing (MaltParser's report on the "
                             f"configuration, which names the release that wrote it)")  # fmt: skip
    info = members.text(infos[0])
    release = writing_release(info, f"{members.name}/{infos[0]}")
    version = ".".join(map(str, release))
    options = read_options(members.text("savedoptions.sop"), f"{members.name}/savedoptions.sop")
    config = _config(options, release)
    algorithm = config.singlemalt.parsing_algorithm
    system = SYSTEMS[algorithm]
    tables = _symbol_tables(members)
    data_format, ignored = _data_format(members, options)
    feature_file = posixpath.basename(options.get(("guide", "features"), "").replace("\\", "/"))
    require(feature_file != "", "option guide features names no feature model")
    source = f"{members.name}/{feature_file}"
    specs = parse_feature_model(bytes(members.get(feature_file, MAX_SMALL_FILE)), source, algorithm)
    deprel_of = DeprelOf(config.pproj) if config.pproj.marks_labels else None
    fm = FeatureModel(specs, algorithm, config.singlemalt.null_value, source, deprel_of, learning=False)
    fm.check_columns(data_format)
    decisions = _Decisions(options, tables, system, config.pproj)
    values = _Values(fm, tables, config.singlemalt.null_value)
    g = config.guide
    split = data_split(fm, g.data_split_column, g.data_split_structure, g.data_split_threshold)
    parts = _Parts(members, release, g.learner, values, decisions)
    models = {}
    if g.data_split_column is None:
        models["main"] = _classifier(parts, "odm0", "main", list(range(len(fm))), 0)
    else:
        table = tables.get(g.data_split_column)
        require(table is not None, f"no symbol table of the data split's column {g.data_split_column}")
        reduced = [p for p in range(len(fm)) if p != split.position]
        for code, count in _divisions(members.text("odm0.dsm")):
            if code == -1:
                if count > 0:
                    models["master"] = _classifier(parts, "odm0", "master", list(range(len(fm))), count)
                continue
            value = _symbol(table, code)
            require(value is not None, f"odm0.dsm: split value code {code} is not in table {g.data_split_column}")
            models[f"split:{value}"] = _classifier(parts, f"odm0.{code:03d}", f"split:{value}", reduced, count)
        if "master" in models:
            models["master"] = models.pop("master")  # the last, as maltpy's archives keep it
        require(models, "odm0.dsm lists no classifier")
    _check_classes(models, decisions, f"odm0.{LEARNER_FILES[g.learner]}.moo")
    statistics = {
        "treebank": f"unknown: a MaltParser {version} model",
        "maltparser_version": version,
        "maltparser_configuration": members.name,
        "maltparser_options": {f"{g} {n}": v for (g, n), v in sorted(options.items())},
    }
    return Model(config, fm, decisions.classes, guide_of(models, split), data_format, statistics,
                 ignored_columns=ignored)  # fmt: skip


#: What a LIBLINEAR weight takes in memory: its number and column in the weights (CSR), and its
#: native copy on the way.
WEIGHT_COST = 20
#: What a symbol takes in memory: its code and text in its table, and its entries in the tables of
#: values that _Values makes of each table (two at most: with its null values and without).
COST_SYMBOL = 256


def _symbol_tables(members: Members) -> dict:
    """The symbol tables, their symbols' memory spent from the members' budget."""
    budget = members.budget
    tables = read_symbol_tables(members.text("symboltables.sym", None), f"{members.name}/symboltables.sym",
                                max(0, budget.left) // COST_SYMBOL)  # fmt: skip
    budget.spend(COST_SYMBOL * sum(len(t.symbols) for t in tables.values()))
    return tables


def _config(options: dict[tuple[str, str], str], release: tuple[int, ...]):
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


def _data_format(members: Members, options: dict[tuple[str, str], str]) -> tuple[str, dict[int, str]]:
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


def _divisions(text: str) -> list[tuple[int, int]]:
    """The data split's table (odm0.dsm): (code, frequency) a line, -1 the master."""
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        found = re.fullmatch(r"(-1|\d{1,9})\t(\d{1,12})", line)
        if found is None:
            raise MCOError("odm0.dsm", number, "not a split value's code and frequency")
        out.append((int(found.group(1)), int(found.group(2))))
    require(len({c for c, _ in out}) == len(out), "odm0.dsm lists a split value twice")
    return out


def _null_symbols(strategy: str) -> dict[int, str]:
    """A table's null values by code (MaltParser's InputNullValues / OutputNullValues)."""
    if strategy == "rootnode":
        return {0: NULL, 1: ROOTNODE}
    if strategy == "novalue":
        return {0: NULL, 1: ROOTNODE, 2: NOVALUE}
    return {0: NULL}


def table_name(feature) -> str:
    """The symbol table that codes a feature's values in an .mco (MaltParser's getMapIdentifier,
    the same in 1.5 to 1.9.2): the column's for InputColumn and OutputColumn, ``MERGE2_a_b`` and
    ``MERGE3_a_b_c`` of the parts' tables for Merge and Merge3, ``SPLIT_t`` of the split part's
    table t, ``ARC_c``/``ARCDIR_c`` for the arc features of column c, ``DISTANCE_bins`` and
    ``NUMOFbins``. ValueError for Suffix and Prefix, whose values maltpy does not give as
    MaltParser does: each of MaltParser's (SuffixFeature, PrefixFeature, every release) adds the
    affix of each value to a set it never empties, so a configuration's value is every affix the
    parse has met so far, and a sentence's parse depends on the sentences before it."""
    name, args = feature.name, feature.args
    if name in ("InputColumn", "OutputColumn"):
        return args[0]
    if name in ("Merge", "Merge3"):
        for part in args:
            if part.name in ("InputArc", "InputArcDir"):
                raise ValueError(f"feature {cut(str(feature), 100)}: MaltParser's {part.name} never finds its node, "
                                 f"so its value is always #null# (1.5 to 1.9.2), and maltpy's is not; maltpy reads "
                                 f"such a feature alone, not inside a Merge")  # fmt: skip
        return f"MERGE{len(args) if name == 'Merge3' else 2}_{'_'.join(table_name(f) for f in args)}"
    if name == "Split":
        return f"SPLIT_{table_name(args[0])}"
    if name in ("InputArc", "OutputArc"):
        return f"ARC_{args[0]}"
    if name == "InputArcDir":
        return f"ARCDIR_{args[0]}"
    if name == "Distance":
        return f"DISTANCE_{args[2]}"
    if name == "NumOf":
        return f"NUMOF{args[2]}"
    if name == "Exists":
        return "EXISTS"
    raise ValueError(f"feature {cut(str(feature), 100)}: MaltParser's {name} values are every {name.lower()} the "
                     f"parse has met so far (its {name}Feature never empties them), so its parses depend on the "
                     f"sentences before; maltpy gives each value's own {name.lower()} and would parse differently, "
                     f"so it does not read such a model")  # fmt: skip


def _symbol(table, code: int) -> str | None:
    """The symbol of ``code`` in ``table``, a null value included (None if it has none)."""
    symbol = table.symbols.get(code)
    return symbol if symbol is not None else _null_symbols(table.null_strategy).get(code)


class _Decisions:
    """The decision table (``T.TRANS+A.DEPREL``, with the pseudo-projective columns): each
    code's class, as maltpy's classes (transition, label), the label with its pseudo-projective
    marks in maltpy's syntax (``d|h%``, pseudoproj)."""

    def __init__(self, options: dict, tables: dict, system, pproj: Encoding) -> None:
        settings = options.get(("guide", "decision_settings"), "T.TRANS+A.DEPREL")
        parts = settings.split("+")
        if any(c in settings for c in ",#") or parts[:2] != ["T.TRANS", "A.DEPREL"] or \
                not set(parts[2:]) <= set(PP_PARTS) or len(set(parts)) != len(parts):  # fmt: skip
            raise ValueError(f"option guide decision_settings is {cut(settings, 100)!r}: maltpy parses with "
                             f"T.TRANS+A.DEPREL (and the pseudo-projective columns) only")  # fmt: skip
        table = tables.get(settings)
        require(table is not None, f"no symbol table {cut(settings, 100)} (the decisions)")
        self.parts = parts
        self.classes = Classes()
        self.number: dict[int, int] = {}
        for code in sorted(table.symbols):
            name, label = self._class(table.symbols[code], system, pproj)
            if (name, label) in self.classes.index:
                raise ValueError(f"decision table: class {cut(table.symbols[code], 100)!r} twice")
            self.number[code] = self.classes.add(name, label)
        require(self.classes.items, "an empty decision table")

    def _class(self, symbol: str, system, pproj: Encoding) -> tuple[str, str | None]:
        pieces = symbol.split(SEPARATOR)
        name = pieces[0]
        if name not in system.transitions:
            raise ValueError(f"decision table: {cut(symbol, 100)!r} is no transition of {system.name}")
        if name not in (LA, RA):
            require(len(pieces) == 1, f"decision table: {cut(symbol, 100)!r} has a label without an arc")
            return name, None
        require(len(pieces) == len(self.parts) and pieces[1] != "",
                f"decision table: {cut(symbol, 100)!r} does not have the parts {'+'.join(self.parts)}")  # fmt: skip
        require(all(valid_label(piece) for piece in pieces[1:]),
                f"decision table: {cut(symbol, 100)!r} has a label that is not CoNLL field text")  # fmt: skip
        label = pieces[1]
        marks = dict(zip(self.parts[2:], pieces[2:]))
        lifted, path, covered = (marks.get(p, "#false#") for p in PP_PARTS)
        if covered == "#true#":
            return name, label + COVERED_MARK
        if lifted not in ("#false#", "#null#"):
            label += "|" if lifted == "#true#" else f"|{lifted}"
        if path == "#true#":
            label += "%"
        return name, label


class _Values:
    """The values (maltpy's text) that each code of a feature's symbol table stands for, as the
    feature function gives them (see the module's docstring): mostly one; several where maltpy
    tells apart what MaltParser codes alike; none for a code maltpy's features never give."""

    def __init__(self, fm: FeatureModel, tables: dict, null_value: str) -> None:
        self.fm = fm
        self.tables = tables
        self.skip_nulls = null_value == "none"
        self._by_position: list[dict[int, tuple] | None] = [None] * len(fm)
        #: (table, with its null values) -> its values: one dict for the features that share a
        #: table (a model's features read FORM and POSTAG at many places), so that what the values
        #: take is bounded by the symbol tables (COST_SYMBOL), whatever the number of features
        self._of_table: dict[tuple[str, bool, str | None], dict[int, tuple]] = {}
        self._codes_of_table: dict[str, set[int]] = {}
        for spec in fm.specs:
            table_name(spec.feature)  # ValueError for a feature maltpy does not read as MaltParser does

    def codes(self, position: int) -> set[int]:
        """The codes MaltParser may give the feature at ``position`` (0-based): its values' codes,
        and every code of its symbol table, null values included (a Merge of nulls, which maltpy
        leaves out, has a code)."""
        name = table_name(self.fm.specs[position].feature)
        found = self._codes_of_table.get(name)
        if found is None:
            table = self.tables.get(name)
            found = set() if table is None else set(table.symbols) | set(_null_symbols(table.null_strategy))
            self._codes_of_table[name] = found
        return found | set(self.of(position))

    def of(self, position: int) -> dict[int, tuple]:
        """code -> values of the feature at ``position`` (0-based)."""
        found = self._by_position[position]
        if found is None:
            found = self._by_position[position] = self._make(self.fm.specs[position].feature)
        return found

    def _make(self, feature) -> dict[int, tuple]:
        name = feature.name
        if name in ("InputColumn", "OutputColumn"):
            column = feature.args[0]
            if column in INTEGER_COLUMNS:
                return self._numbers(column)
            # MaltParser writes a table of every column of its data format, filled or not
            require(column in self.tables, f"feature {cut(str(feature), 100)}: no symbol table of column {column}")
        if name == "Exists":
            return {1: ("true",)}  # code 1, the value 1 (true) or 0 (false, left out)
        if name in ("InputArc", "InputArcDir"):
            return self._never_found(feature)
        nulls = not self.skip_nulls and name not in ("Merge", "Merge3")  # every part null: left out
        # a Split's null value has its code in the split part's table (SplitFeature.update)
        return self._table(table_name(feature), nulls, table_name(feature.args[0]) if name == "Split" else None)

    def _numbers(self, column: str) -> dict[int, tuple]:
        """An integer column's codes (ColumnFeature.castFeatureValue): code 1 for every number,
        the number its value; a null value its own code, the value 1, so that the root's, code 1
        with ``rootnode``, is the number 1."""
        found: dict[int, tuple] = {1: (NUMBER,)}
        table = self.tables.get(column)
        if not self.skip_nulls and table is not None:
            for code, symbol in _null_symbols(table.null_strategy).items():
                found[code] = found.get(code, ()) + (symbol,)
        return found

    def _never_found(self, feature) -> dict[int, tuple]:
        """InputArc and InputArcDir as MaltParser computes them: it tests the class of each node
        against the DependencyNode interface, which no node's class is (InputArcFeature.update,
        InputArcDirFeature.update, 1.5 to 1.9.2), so the value is always no node's null value,
        code 0 of its table: every value maltpy gives stands for it."""
        if self.skip_nulls:
            return {}  # a null left out: the feature never gives MaltParser anything
        values = (NULL, ROOTNODE, NOVALUE, "LEFT", "RIGHT") + (("ROOT",) if feature.name == "InputArcDir" else ())
        return {0: values}

    def _table(self, name: str, nulls: bool, nulls_of: str | None = None) -> dict[int, tuple]:
        """The values of table ``name``'s codes, with its null values (those of table
        ``nulls_of`` if given) or without them."""
        found = self._of_table.get((name, nulls, nulls_of))
        if found is None:
            found = self._of_table[(name, nulls, nulls_of)] = self._make_table(name, nulls, nulls_of)
        return found

    def _make_table(self, name: str, nulls: bool, nulls_of: str | None) -> dict[int, tuple]:
        table = self.tables.get(name)
        if table is None:
            return {}  # a table MaltParser never filled: no key of the map can name it
        out = {code: (symbol,) for code, symbol in table.symbols.items()}
        if nulls:
            strategy = self.tables[nulls_of].null_strategy if nulls_of in self.tables else table.null_strategy
            for code, symbol in _null_symbols(strategy).items():
                out.setdefault(code, (symbol,))
        else:
            for code in _null_symbols(table.null_strategy):
                if out.get(code, ("",))[0] in (NULL, ROOTNODE, NOVALUE):
                    del out[code]
        return out


def _stream(members: Members, member: str, classes: frozenset[str], class_name: str) -> JavaObject:
    try:
        contents = read_stream(members.get(member), classes, members.budget)
    except StreamError as e:
        beyond = f" ({MAX_MCO_VARIABLE} allows more)" if members.budget.left < 0 else ""
        raise StreamError(f"{member}: {e}{beyond}") from None
    require(len(contents) == 1 and isinstance(contents[0], JavaObject) and contents[0].class_name == class_name,
            f"{member} is not one {class_name.rsplit('.', 1)[-1]}")  # fmt: skip
    return contents[0]


def _ints(value: object, what: str) -> np.ndarray:
    require(isinstance(value, np.ndarray) and value.dtype.kind == "i" and value.ndim == 1, f"{what} is not an int[]")
    return value.astype(np.int64)


def _doubles(value: object, what: str) -> np.ndarray:
    require(isinstance(value, np.ndarray) and value.dtype.kind == "f" and value.dtype.itemsize == 8,
            f"{what} is not a double[]")  # fmt: skip
    out = value.astype(np.float64, copy=False)
    require(len(out) == 0 or (out.min() >= -MAX_WEIGHT and out.max() <= MAX_WEIGHT),  # NaN fails both
            f"{what}: a number that is not finite, or beyond ±{MAX_WEIGHT:g}")  # fmt: skip
    return out


def _feature_map(members: Members, member: str) -> tuple[np.ndarray, np.ndarray]:
    """The FeatureMap's keys and indices (MaltParser's own HashMap of Long to Integer, which
    writes its capacity and size, then each key and its value)."""
    fmap = _stream(members, member, MAP_CLASSES, "org.maltparser.ml.lib.FeatureMap")
    table = fmap.fields.get("map")
    require(isinstance(table, JavaObject) and table.class_name == "org.maltparser.core.helper.HashMap",
            f"{member}: the feature map holds no HashMap")  # fmt: skip
    items = table.annotations
    require(len(items) >= 1 and isinstance(items[0], bytes) and len(items[0]) == 8, f"{member}: not a HashMap's data")
    size = int.from_bytes(items[0][4:], "big", signed=True)
    classes, numbers = _boxed(items[1:], member)
    require(size >= 0 and len(classes) == 2 * size,
            f"{member}: a HashMap of {size} entries holds {len(classes)} values")  # fmt: skip
    require(bool((classes[0::2] == 0).all() and (classes[1::2] == 1).all()),
            f"{member}: a feature map entry is not a Long and an Integer")  # fmt: skip
    keys, indices = numbers[0::2], numbers[1::2]
    # MaltParser numbers the features 1, 2, ... as it first meets them (FeatureMap.addIndex), in
    # every release: an index twice would merge two features, one beyond the map's size would
    # make a learner as wide as the index says
    require(size == 0 or (int(indices.min()) == 1 and int(indices.max()) == size and len(np.unique(indices)) == size),
            f"{member}: its feature indices are not 1 to {size}, each once")  # fmt: skip
    return keys, indices


BOXED = {"java.lang.Long": 0, "java.lang.Integer": 1}


def _boxed(items: list, member: str) -> tuple[np.ndarray, np.ndarray]:
    """The class (BOXED) and number of each boxed number of ``items`` (JavaObjects and Records)."""
    classes, numbers = [], []
    for item in items:
        if isinstance(item, Records):
            require(all(c in BOXED for c in item.classes), f"{member}: a feature map holds other than numbers")
            period = len(item.classes)
            kinds = np.empty(len(item), dtype=np.int8)
            values = np.empty(len(item), dtype=np.int64)
            for k, name in enumerate(item.classes):
                kinds[k::period] = BOXED[name]
                values[k::period] = item.values[f"{k}.value"]
            classes.append(kinds)
            numbers.append(values)
        else:
            require(isinstance(item, JavaObject) and item.class_name in BOXED and type(item.fields.get("value")) is int,
                    f"{member}: a feature map holds other than numbers")  # fmt: skip
            classes.append(np.array([BOXED[item.class_name]], dtype=np.int8))
            numbers.append(np.array([item.fields["value"]], dtype=np.int64))
    if not classes:
        return np.zeros(0, dtype=np.int8), np.zeros(0, dtype=np.int64)
    return np.concatenate(classes), np.concatenate(numbers)


@dataclass
class _Parts:
    """What each classifier of an .mco is read against: the members, the release that wrote them,
    the learner, the values of the symbol tables' codes and the decision table."""

    members: Members
    release: tuple[int, ...]
    learner: str
    values: _Values
    decisions: _Decisions


def _classifier(parts: _Parts, stem: str, name: str, positions: list[int], instances: int) -> AtomicModel:
    """The classifier ``stem.<learner>.moo`` with its map ``.map``, as a maltpy AtomicModel
    reading the features at ``positions`` (0-based, in the feature vector's order). Each member is
    checked against what it must fit, so that a member of another model (another release's,
    treebank's, algorithm's) is refused, naming it: the map's keys against the feature vector and
    its symbol tables (_check_keys), then the weights against the map and the decision table."""
    suffix = LEARNER_FILES[parts.learner]
    moo, map_member = f"{stem}.{suffix}.moo", f"{stem}.{suffix}.map"
    keys, indices = _feature_map(parts.members, map_member)
    position, code = _check_keys(keys, positions, parts.values, map_member)
    if parts.learner == "liblinear":
        weights, labels = _liblinear(parts, moo, map_member, len(indices))
        width = weights.shape[0]
    else:
        # the feature of each learner index, 0 for a feature of several values
        single = np.array([0] + [p if parts.values.fm.specs[q].feature.name not in MULTI_VALUED else 0
                                 for p, q in enumerate(positions, 1)])  # fmt: skip
        feature_of = np.zeros(len(indices) + 1, dtype=np.int64)
        feature_of[indices] = single[position]
        svm, labels, width = _libsvm(parts, moo, map_member, feature_of)
    fmap = _map(position, code, indices, width, positions, parts.values)
    classifier = LibLinear(weights, np.zeros(len(labels))) if parts.learner == "liblinear" else svm
    return AtomicModel(name, fmap, [parts.decisions.number[c] for c in labels.tolist()], classifier, instances)


def _check_keys(keys: np.ndarray, positions: list[int], values: _Values, member: str) -> tuple[np.ndarray, np.ndarray]:
    """The feature (1-based position) and code of each key (position << 48 | code) of the map
    ``member``; ValueError, naming the map, for a key of a feature beyond the feature vector, or of
    a code that its feature's symbol table does not have (MaltParser's FeatureMap holds the codes
    its features met in training: every one is in the tables it wrote beside it)."""
    position = keys >> 48
    code = keys & ((1 << 48) - 1)
    require(bool(((position >= 1) & (position <= len(positions))).all()),
            f"{member}: a key of a feature beyond the feature vector's {len(positions)}")  # fmt: skip
    features = np.unique(position).tolist()
    codes = {p: values.codes(positions[p - 1]) for p in features}  # a feature without its table first
    for p in features:
        outside = code[(position == p) & ~np.isin(code, np.fromiter(codes[p], dtype=np.int64))]
        if len(outside):
            feature = values.fm.specs[positions[p - 1]].feature
            raise ValueError(f"{member}: a key of code {int(outside[0])} for feature {p} ({cut(str(feature), 100)}), "
                             f"a code its symbol table {cut(table_name(feature), 100)} does not have (another "
                             f"model's map?)")  # fmt: skip
    return position, code


def _check_classes(models: dict[str, AtomicModel], decisions: _Decisions, member: str) -> None:
    """ValueError unless the classifiers' classes are the decision table's, every one: MaltParser
    codes a decision when training first meets it, as an instance of one of the classifiers, each
    of which learns every class of its instances (the main one, without a data split, all)."""
    learned = set().union(*(model.labels for model in models.values()))
    if len(learned) != len(decisions.classes.items):
        which = member if set(models) == {"main"} else "the classifiers of odm0.dsm"
        raise ValueError(f"{which}: {len(learned)} classes, where the decision table has "
                         f"{len(decisions.classes.items)} (another model's?)")  # fmt: skip


def _map(position: np.ndarray, code: np.ndarray, indices: np.ndarray, width: int, positions: list[int],
         values: _Values) -> FeatureMap:  # fmt: skip
    """maltpy's FeatureMap of MaltParser's: the key (``position``, ``code``) of learner index i
    (1-based) as column i - 1 for (feature, value), every column 0..width-1 named (a column no
    value reaches under a name no feature gives, ``UNREACHED``)."""
    fmap = FeatureMap(positions, values.fm.nulls)
    named = np.zeros(width, dtype=bool)
    for p, c, i in zip(position.tolist(), code.tolist(), indices.tolist()):
        table = fmap.tables[p - 1]
        for value in values.of(positions[p - 1]).get(c, ()):
            if value not in table:
                table[value] = i - 1
                named[i - 1] = True
    for column in np.flatnonzero(~named).tolist():
        fmap.tables[0][f"{UNREACHED}{column}"] = column
    fmap.size = width
    return fmap


def _labels(value: object, count: int, member: str, decisions: _Decisions) -> np.ndarray:
    """A model's class codes: ``count`` of them, each once, each in the decision table (checked
    before the weights are read: their number is the classes')."""
    labels = _ints(value, f"{member}: labels")
    require(len(labels) == count, f"{member}: {len(labels)} labels for {count} classes")
    require(len(set(labels.tolist())) == len(labels), f"{member}: a class twice")
    unknown = [c for c in labels.tolist() if c not in decisions.number]
    require(not unknown, f"{member}: class code {unknown[:1]} is not in the decision table")
    return labels


def _liblinear(parts: _Parts, member: str, map_member: str, map_size: int) -> tuple[sp.csr_matrix, np.ndarray]:
    """The weights (features x classes, classes in the model's order) and class codes of a
    MaltLiblinearModel: 1.5's weights one flat array, feature by feature (nr_w a feature: 1 for
    two classes with another solver than MCSVM_CS); 1.6's on a row a feature, trailing zeros cut,
    a row maybe shared or null. Its features are its map's, ``map_size`` (MaltParser learns on
    as many as the map holds: LibLinear's problem.n), one more allowed in 1.5."""
    members = parts.members
    m = _stream(members, member, LIBLINEAR_CLASSES, "org.maltparser.ml.lib.MaltLiblinearModel").fields
    nr_class, nr_feature = m.get("nr_class"), m.get("nr_feature")
    require(type(nr_class) is int and 1 <= nr_class <= 1 << 20 and type(nr_feature) is int and nr_feature >= 0,
            f"{member}: bad class or feature counts")  # fmt: skip
    widths = (map_size, map_size + 1) if parts.release[:2] < (1, 6) else (map_size,)
    require(nr_feature in widths, f"{member}: weights of {nr_feature} features, where {map_member} maps "
                                  f"{map_size}: one of the two is another model's")  # fmt: skip
    labels = _labels(m.get("labels"), nr_class, member, parts.decisions)
    solver = m.get("solverType")
    require(isinstance(solver, JavaEnum) and solver.constant in SOLVERS, f"{member}: an unknown solver")
    bias = m.get("bias")
    require(isinstance(bias, float), f"{member}: no bias")
    w = m.get("w")
    if isinstance(w, np.ndarray):  # 1.5
        nr_w = 1 if nr_class == 2 and solver.constant != "MCSVM_CS" else nr_class
        require(w.dtype == ">f8" and len(w) >= nr_feature * nr_w,
                f"{member}: {len(w)} weights for {nr_feature} features")  # fmt: skip
        block = w[: nr_feature * nr_w].reshape(nr_feature, nr_w)
        counts = np.count_nonzero(block, axis=1)
        _spend(members, WEIGHT_COST * int(counts.sum()), member)
        mask = block != 0
        data = block[mask].astype(np.float64)
        columns = np.broadcast_to(np.arange(nr_w, dtype=np.int32), block.shape)[mask]
        del mask
    else:
        require(isinstance(w, Rows) and w.dtype == ">f8" and len(w) == nr_feature,
                f"{member}: not a weight row a feature")  # fmt: skip
        # a row shared by back-reference (MaltParser 1.6 on writes equal rows once) is one for
        # each feature that shares it: what the rows become is spent before it is made
        counts = w.sizes()
        require(not len(counts) or int(counts.max()) <= nr_class, f"{member}: a weight row longer than the classes")
        _spend(members, WEIGHT_COST * int(counts.sum()), member)
        _, data = w.gathered()
        ordinal = np.arange(len(data), dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)
        columns = ordinal.astype(np.int32)  # each weight's class: its place in its row
    data = _doubles(data, f"{member}: w")
    indptr = np.concatenate([[0], np.cumsum(counts)])
    weights = sp.csr_matrix((data, columns, indptr), shape=(nr_feature, nr_class))
    weights.eliminate_zeros()
    return weights, labels


def _spend(members: Members, cost: int, member: str) -> None:
    """ValueError unless the members' budget has ``cost`` left (what is about to be made)."""
    if not members.budget.spend(cost):
        raise ValueError(f"{member}: values that would take more than {members.budget.total >> 20} MB of memory "
                         f"({MAX_MCO_VARIABLE} allows more)")  # fmt: skip


def _libsvm(parts: _Parts, member: str, map_member: str, feature_of: np.ndarray) -> tuple[LibSvm, np.ndarray, int]:
    """A MaltLibsvmModel as maltpy's LibSvm (LIBSVM's classes 0..k-1 in the model's order), its
    class codes, and the number of features it reads: its map's, every support vector's node
    within them, as MaltParser's training gives them. A support vector is a training instance,
    one value of each feature (Split's, several), so that it holds no two nodes that its map
    ``map_member`` gives one feature (``feature_of``: the feature of each learner index, 1-based;
    0 for a feature of several values)."""
    members, decisions = parts.members, parts.decisions
    m = _stream(members, member, LIBSVM_CLASSES, "org.maltparser.ml.lib.MaltLibsvmModel").fields
    param = m.get("param")
    require(isinstance(param, JavaObject) and param.class_name == "libsvm.svm_parameter", f"{member}: no parameters")
    p = param.fields
    require(p.get("svm_type") == 0, f"{member}: svm_type {cut(p.get('svm_type'), 20)}: maltpy parses with C-SVC only")
    require(p.get("kernel_type") in KERNELS.values(), f"{member}: an unknown kernel_type")
    require(type(p.get("degree")) is int and all(isinstance(p.get(x), float) for x in ("gamma", "coef0")),
            f"{member}: bad kernel parameters")  # fmt: skip
    nr_class, count = m.get("nr_class"), m.get("l")
    require(type(nr_class) is int and nr_class >= 1 and type(count) is int and count >= 0, f"{member}: bad counts")
    labels = _labels(m.get("label"), nr_class, member, decisions)
    n_sv = _ints(m.get("nSV"), f"{member}: nSV")
    rho = _doubles(m.get("rho"), f"{member}: rho")
    coef = m.get("sv_coef")
    vectors = m.get("SV")
    require(len(n_sv) == nr_class and int(n_sv.sum()) == count and (n_sv >= 0).all()
            and len(rho) == nr_class * (nr_class - 1) // 2, f"{member}: class counts that do not fit")  # fmt: skip
    require(isinstance(coef, Rows) and coef.dtype == ">f8" and len(coef) == nr_class - 1,
            f"{member}: sv_coef is not one row a class but one")  # fmt: skip
    lengths, values = coef.gathered()
    require(bool((lengths == count).all()), f"{member}: sv_coef rows of another length than l")
    coefficients = _doubles(values, f"{member}: sv_coef").reshape(nr_class - 1, count)
    require(isinstance(vectors, ObjectRows) and vectors.class_name == "libsvm.svm_node" and len(vectors) == count,
            f"{member}: not l support vectors of svm_nodes")  # fmt: skip
    nodes, sv_ptr = vectors.values, vectors.ptr
    if len(nodes):
        kinds = {name: nodes.dtype[name].str[1:] for name in nodes.dtype.names or ()}
        require(kinds == {"index": "i4", "value": "f8"}, f"{member}: svm_nodes without an index and a value")
        sv_ind = nodes["index"].astype(np.int64)
        sv_val = _doubles(nodes["value"], f"{member}: a support vector's values")
    else:
        sv_ind, sv_val = np.zeros(0, dtype=np.int64), np.zeros(0)
    inside = np.ones(len(sv_ind), dtype=bool)
    inside[sv_ptr[:-1][sv_ptr[:-1] < len(sv_ind)]] = False  # False where a support vector starts
    require(bool((sv_ind > 0).all()) and bool((np.diff(sv_ind) > 0)[inside[1:]].all()),
            f"{member}: support vector nodes out of order")  # fmt: skip
    width = len(feature_of) - 1
    require(not len(sv_ind) or int(sv_ind.max()) <= width,
            f"{member}: a support vector node of a feature index beyond the map's {width}")  # fmt: skip
    feature = feature_of[sv_ind]
    vector = np.repeat(np.arange(count, dtype=np.int64), np.diff(sv_ptr))[feature > 0]
    pairs = vector * (int(feature_of.max()) + 1) + feature[feature > 0]  # (support vector, feature)
    require(len(np.unique(pairs)) == len(pairs),
            f"{member}: a support vector of two values of one feature, as {map_member} numbers them: one of "
            f"the two is another model's")  # fmt: skip
    try:
        svm = LibSvm.from_arrays(p["kernel_type"], p["degree"], p["gamma"], p["coef0"], width, n_sv, rho,
                                 coefficients, sv_ptr, sv_ind, sv_val)  # fmt: skip
    except ValueError as e:
        raise ValueError(f"{member}: {e}") from None
    return svm, labels, width
