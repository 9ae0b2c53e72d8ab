"""Feature specifications in MaltParser's feature language, read from its XML container or from
maltpy's plain text file, and checked against the parsing algorithm.

The language (Nivre et al. 2007, §3.3; MaltParser's user guide): a feature applies an
*attribute function* to a node found by an *address function*:

    InputColumn(POSTAG, Stack[0])            the part of speech of the top of the stack
    OutputColumn(DEPREL, ldep(Input[0]))     the label of the leftmost dependent of the next word
    Merge(InputColumn(POSTAG, Stack[0]), InputColumn(POSTAG, Input[0]))

Containers. MaltParser's XML, ``<featuremodels><featuremodel><feature>...</feature>``, loads as
it is (only the first ``<featuremodel>`` counts, as in MaltParser); the text file has one feature
per line, ``#`` starting a comment. As in MaltParser, whitespace inside a feature is ignored,
identical features count once, and the features are ordered by their text (MaltParser sorts
them so; the order numbers the features of a training instance).
"""

from __future__ import annotations

import re
import xml.parsers.expat
from dataclasses import dataclass

from ..data.columns import FORMAT_NAMES, FORMATS, INDEX, INTEGER_NAMES, OUTPUT_NAMES, only_in
from ..errors import MaltpyError, cut
from ..files import read_file
from ..transition import SYSTEMS

#: Column names of CoNLL-X and CoNLL-U, as MaltParser's data formats name them, with aliases, and
#: their places; the names of the columns of word numbers and of the parser's labels; the columns
#: one format has and the other not, by name (data/columns.py).
COLUMNS = INDEX
INTEGER_COLUMNS = INTEGER_NAMES
OUTPUT_COLUMNS = OUTPUT_NAMES
FORMAT_COLUMNS = {data_format: only_in(data_format) for data_format in FORMATS}

#: The families whose Input[i] is the i-th node of the buffer (``TransitionSystem.buffer_input``;
#: the stack family's is a swapped one).
BUFFER_INPUT = frozenset(system.family for system in SYSTEMS.values() if system.buffer_input)
GRAPH_ADDRESSES = (
    "head", "ldep", "rdep", "rdep2", "lsib", "rsib", "pred", "succ",
    "anc", "panc", "ldesc", "pldesc", "rdesc", "prdesc",
)  # fmt: skip
#: The base address functions of every system (``TransitionSystem.base_addresses``).
ALL_BASES = sorted({name for system in SYSTEMS.values() for name in system.base_addresses})

#: Each feature function's parameters: c column, a address, f feature, i integer,
#: b bins (``0|1|2|5``), r NumOf relation, d Split delimiter (a literal, see delimiter_literal).
SIGNATURES = {
    "InputColumn": "ca", "OutputColumn": "ca", "InputArc": "caa", "InputArcDir": "ca", "OutputArc": "caa",
    "Exists": "a", "Distance": "aab", "NumOf": "arb", "Split": "fd", "Suffix": "fi", "Prefix": "fi",
    "Merge": "ff", "Merge3": "fff",
}  # fmt: skip
MULTI_VALUED = ("Split", "Suffix", "Prefix")
#: The feature functions of a tagger's feature model only (maltpy.tagging): Lower(f), f's value in
#: lower case, Shape(f), its word shape, and Tags(f), the form's ambiguity class (the tagger's
#: values seen with it in training). ``parse_feature(text, tagging=True)`` reads them; a
#: parser's feature model that names one is refused, saying whose they are.
TAGGING_SIGNATURES = {"Lower": "f", "Shape": "f", "Tags": "f"}
NUMOF_RELATIONS = ("ldeps", "rdeps", "deps", "ldep", "rdep", "dep")


@dataclass(frozen=True, slots=True)
class Address:
    """``Stack[0]`` (name, index) or ``head(Stack[0])`` (name, inner)."""

    name: str
    index: int | None = None
    inner: Address | None = None

    def __str__(self) -> str:
        return f"{self.name}[{self.index}]" if self.inner is None else f"{self.name}({self.inner})"


@dataclass(frozen=True, slots=True)
class Feature:
    """A feature function applied to its arguments (addresses, features, strings, integers)."""

    name: str
    args: tuple

    def __str__(self) -> str:
        return f"{self.name}({','.join(str(a) for a in self.args)})"


@dataclass(frozen=True, slots=True)
class FeatureSpec:
    """One line of a feature model: the feature, its text without whitespace, where it came from."""

    feature: Feature
    text: str
    line: int


class SpecError(ValueError):
    pass


def parse_feature(text: str, tagging: bool = False) -> Feature:
    """Parse one feature (of a tagger's feature model with ``tagging``: TAGGING_SIGNATURES too);
    raise SpecError saying what is wrong."""
    compact = re.sub(r"\s+", "", text)
    if not compact:
        raise SpecError("empty feature")
    feature, end = _parse_feature(compact, 0, 0, tagging)
    if end != len(compact):
        raise SpecError(f"unexpected {compact[end:]!r} after the feature")
    return feature


_NAME = re.compile(r"[A-Za-z][A-Za-z0-9]*")


def _expect(text: str, pos: int, char: str) -> int:
    if pos >= len(text) or text[pos] != char:
        found = repr(text[pos]) if pos < len(text) else "the end"
        raise SpecError(f"expected {char!r} at {text[:pos]}\u2038, found {found}")
    return pos + 1


MAX_DEPTH = 32  # features within features (MaltParser's deepest take three)


def _parse_feature(text: str, pos: int, depth: int = 0, tagging: bool = False) -> tuple[Feature, int]:
    if depth > MAX_DEPTH:
        raise SpecError(f"features nested more than {MAX_DEPTH} deep")
    m = _NAME.match(text, pos)
    if not m:
        raise SpecError(f"expected a feature function at {text[:pos]}\u2038")
    name = m.group()
    signatures = {**SIGNATURES, **TAGGING_SIGNATURES} if tagging else SIGNATURES
    if name in TAGGING_SIGNATURES and not tagging:
        raise SpecError(f"{name} is a feature function of a tagger's feature model, not of a parser's")
    if name not in signatures:
        if name in ALL_BASES or name in GRAPH_ADDRESSES:
            raise SpecError(f"{name} is an address, not a feature (use e.g. InputColumn(POSTAG, {name}...))")
        raise SpecError(f"unknown feature function {name!r} (known: {', '.join(SIGNATURES)})")
    pos = _expect(text, m.end(), "(")
    args: list = []
    for i, kind in enumerate(signatures[name]):
        if i:
            pos = _expect(text, pos, ",")
        if kind == "a":
            arg, pos = _parse_address(text, pos)
        elif kind == "f":
            arg, pos = _parse_feature(text, pos, depth + 1, tagging)
        elif kind == "d":
            end = text.find(")", pos)  # the delimiter runs to the next ")": it cannot hold one
            end = len(text) if end < 0 else end
            arg, pos = text[pos:end], end
            if not arg:
                raise SpecError(f"{name}: empty delimiter")
            delimiter_literal(arg)  # SpecError if it is not a literal
        else:
            m = re.compile(r"[^,()\[\]]+").match(text, pos)
            if not m:
                raise SpecError(f"{name}: expected an argument at {text[:pos]}\u2038")
            arg, pos = m.group(), m.end()
            if kind == "i":
                arg = _integer(arg, name)
        args.append(arg)
    pos = _expect(text, pos, ")")
    return _check(Feature(name, tuple(args)), tagging), pos


_REGEX_SPECIAL = set(".^$*+?{}[]|()\\")


def delimiter_literal(text: str) -> str:
    """The string a Split delimiter stands for. MaltParser hands it to Java's regular
    expressions, but its feature files use simple delimiters (``\\|``, ``_``): maltpy takes a
    delimiter as a literal string, in which a punctuation character may be escaped with a
    backslash (``\\|`` is ``|``). Anything else a regular expression would read differently is
    refused, so that no feature model (nor a model archive) can make splitting slow."""
    out = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\":
            if i + 1 == len(text) or text[i + 1].isalnum() or text[i + 1].isspace():
                raise SpecError(f"Split: delimiter {text[:40]!r}: a backslash escapes only a punctuation character")
            out.append(text[i + 1])
            i += 2
            continue
        if ch in _REGEX_SPECIAL:
            raise SpecError(f"Split: delimiter {text[:40]!r} must be a literal string (escape {ch!r} as '\\{ch}')")
        out.append(ch)
        i += 1
    return "".join(out)


MAX_ADDRESS_DEPTH = 32  # address functions within address functions (MaltParser's deepest take three)
MAX_INTEGER = 2**31 - 1  # the largest index, length or bin: MaltParser reads each as a Java int


def _integer(text: str, where: str) -> int:
    """A non-negative integer of the feature language, at most MAX_INTEGER."""
    if not re.fullmatch(r"[0-9]+", text):
        raise SpecError(f"{where}: {cut(text, 40)!r} is not a non-negative integer")
    digits = text.lstrip("0") or "0"
    if len(digits) > len(str(MAX_INTEGER)) or int(digits) > MAX_INTEGER:
        raise SpecError(f"{where}: {cut(digits, 20)} is larger than {MAX_INTEGER}")
    return int(digits)


def parse_address(text: str) -> Address:
    """One address (``Stack[0]``, ``head(ldep(Input[1]))``); raise SpecError saying what is wrong."""
    compact = re.sub(r"\s+", "", text)
    address, end = _parse_address(compact, 0)
    if end != len(compact):
        raise SpecError(f"unexpected {cut(compact[end:], 40)!r} after the address")
    return address


def split_feature(column: str, structure: str) -> Feature:
    """The feature a data split reads (``guide.data_split_column`` and ``_structure``, MaltParser's
    -d and -s): ``InputColumn(column, structure)``, the structure being any address. Raise
    SpecError saying what is wrong, as for the same feature in a feature model."""
    return _check(Feature("InputColumn", (column, parse_address(structure))))


def _parse_address(text: str, pos: int, depth: int = 0) -> tuple[Address, int]:
    m = _NAME.match(text, pos)
    if not m:
        raise SpecError(f"expected an address such as Stack[0] at {cut(text[:pos], 80)}\u2038")
    name, pos = m.group(), m.end()
    if name in GRAPH_ADDRESSES:
        if depth >= MAX_ADDRESS_DEPTH:
            raise SpecError(f"address functions nested more than {MAX_ADDRESS_DEPTH} deep")
        pos = _expect(text, pos, "(")
        inner, pos = _parse_address(text, pos, depth + 1)
        return Address(name, None, inner), _expect(text, pos, ")")
    if name not in ALL_BASES:
        raise SpecError(f"unknown address function {cut(name, 40)!r}")
    pos = _expect(text, pos, "[")
    m = re.compile(r"[0-9]+").match(text, pos)
    if not m:
        raise SpecError(f"{name}[...] needs a non-negative integer index")
    return Address(name, _integer(m.group(), f"{name}[...]")), _expect(text, m.end(), "]")


def _check(f: Feature, tagging: bool = False) -> Feature:
    """The argument checks MaltParser makes when it initialises a function, made at load time (a
    tagger's Merge may merge a Suffix or Prefix, which is one value in a tagger's features)."""
    name, args = f.name, f.args
    if name in ("InputColumn", "OutputColumn", "InputArc", "InputArcDir", "OutputArc"):
        column = args[0]
        if column not in COLUMNS:
            raise SpecError(f"{name}: unknown column {column!r} (columns: {', '.join(COLUMNS)})")
        if name == "OutputColumn" and column not in OUTPUT_COLUMNS:
            raise SpecError(f"OutputColumn: {column} is an input column (the output column is DEPREL)")
        if name == "InputColumn" and column in OUTPUT_COLUMNS + ("HEAD",):
            raise SpecError(f"InputColumn: {column} is what the parser predicts (use OutputColumn(DEPREL, ...))")
        if name != "InputColumn" and name != "OutputColumn" and column not in INTEGER_COLUMNS:
            raise SpecError(f"{name}: {column} is not a column of word numbers ({', '.join(INTEGER_COLUMNS)})")
    elif name in ("Distance", "NumOf"):
        bins = args[2]
        parts = bins.split("|")
        if not all(re.fullmatch(r"[0-9]+", p) for p in parts) or parts[0] != "0":
            raise SpecError(f"{name}: bins {bins!r} must be ascending integers from 0, such as 0|1|2|5")
        edges = [_integer(p, f"{name}: a bin") for p in parts]
        if any(a >= b for a, b in zip(edges, edges[1:])):
            raise SpecError(f"{name}: bins {bins!r} must be ascending integers from 0, such as 0|1|2|5")
        if name == "NumOf" and args[1] not in NUMOF_RELATIONS:
            raise SpecError(f"NumOf: relation {args[1]!r} is not one of ldeps, rdeps, deps")
        return Feature(name, (*args[:2], "|".join(map(str, edges))))  # 0|01 is 0|1, as Java's parseInt reads it
    elif name == "Split":
        inner = args[0]
        if inner.name not in ("InputColumn", "OutputColumn") or inner.args[0] in INTEGER_COLUMNS:
            raise SpecError("Split: the first argument must be an InputColumn or OutputColumn of text")
    elif name in ("Suffix", "Prefix") + tuple(TAGGING_SIGNATURES):
        inner = args[0]
        if inner.name not in ("InputColumn", *TAGGING_SIGNATURES) or inner.args[0] in INTEGER_COLUMNS:
            raise SpecError(f"{name}: the first argument must be an InputColumn of text")
        if name in TAGGING_SIGNATURES:
            return f
        if args[1] < 1:
            raise SpecError(f"{name}: the length must be at least 1")
    elif name in ("Merge", "Merge3"):
        merged = ("Split", "Exists") if tagging else MULTI_VALUED + ("Exists",)
        for inner in args:
            if inner.name in merged or (inner.name == "InputColumn" and inner.args[0] == "ID"):
                raise SpecError(f"{name}: cannot merge {inner.name} values (merge text-valued features)")
    return f


def addresses(f: Feature):
    """Every base address (Stack, Input, ...) the feature uses."""
    for arg in f.args:
        if isinstance(arg, Feature):
            yield from addresses(arg)
        elif isinstance(arg, Address):
            a = arg
            while a.inner is not None:
                a = a.inner
            yield a


# --- containers ---------------------------------------------------------------------------------


def read_feature_model(path: str, algorithm: str) -> list[FeatureSpec]:
    """The features of the file at ``path`` (XML or text), checked for ``algorithm``, de-duplicated
    and in MaltParser's order. Errors name the file, the line and the offending text."""
    return parse_feature_model(read_file(path, "feature model file"), path, algorithm)


def parse_feature_model(data: bytes, name: str, algorithm: str) -> list[FeatureSpec]:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise MaltpyError("feature model is not UTF-8 text", name) from None
    stripped = text.lstrip("\ufeff \t\r\n")
    lines = _xml_features(data, name) if stripped.startswith("<") else _text_features(text)
    if not lines:
        raise MaltpyError("the feature model has no features", name)
    specs: dict[str, FeatureSpec] = {}
    for raw, line in lines:
        try:
            feature = parse_feature(raw)
        except SpecError as e:
            raise MaltpyError(f"bad feature {repr(cut(raw.strip(), 120))}: {cut(str(e).strip())}", name, line) from None
        foreign = foreign_address(feature, algorithm)
        if foreign:
            raise MaltpyError(f"bad feature {repr(cut(raw.strip(), 120))}: {foreign}", name, line)
        compact = re.sub(r"\s+", "", raw)
        specs.setdefault(compact, FeatureSpec(feature, compact, line))
    return [specs[key] for key in sorted(specs)]


def foreign_column(feature: Feature, data_format: str) -> str | None:
    """What is wrong if the feature names a column that ``data_format`` does not have (PHEAD on
    CoNLL-U, whose 9th column is DEPS), else None: read by its place, the column would give the
    other format's values."""
    for arg in feature.args:
        if isinstance(arg, Feature):
            inner = foreign_column(arg, data_format)
            if inner:
                return inner
    column = feature.args[0] if feature.name in ("InputColumn", "InputArc", "InputArcDir", "OutputArc") else None
    for other, names in FORMAT_COLUMNS.items():
        if other != data_format and column in names:
            place = names.index(column)
            return (f"{column} is a column of {FORMAT_NAMES[other]}; {FORMAT_NAMES[data_format]}'s column "
                    f"{COLUMNS[column] + 1} is {FORMAT_COLUMNS[data_format][place]}")  # fmt: skip
    return None


def foreign_address(feature: Feature, algorithm: str) -> str | None:
    """What is wrong if the feature reads an address the algorithm does not have, else None."""
    bases = SYSTEMS[algorithm].base_addresses
    for a in addresses(feature):
        if a.name not in bases:
            return f"{a.name}[...] is not an address of {algorithm} (it has {', '.join(b + '[i]' for b in bases)})"
    return None


def _text_features(text: str) -> list[tuple[str, int]]:
    """One feature per line; ``#`` at the start of a line or after a blank starts a comment."""
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        line = re.sub(r"(^|\s)#.*", "", line).strip()
        if line:
            out.append((line, number))
    return out


def _xml_features(data: bytes, name: str) -> list[tuple[str, int]]:
    """The <feature> texts of the first <featuremodel>; if it has <submodel>s, those of the first
    submodel (MaltParser's main feature vector)."""
    parser = xml.parsers.expat.ParserCreate()
    state = {"models": 0, "in_model": False, "feature": None, "line": 0, "submodel": 0, "in_sub": False}
    plain: list[tuple[str, int]] = []
    sub: list[tuple[str, int]] = []

    def start(tag, attrs):
        if tag == "featuremodel":
            state["models"] += 1
            state["in_model"] = state["models"] == 1
        elif tag == "submodel" and state["in_model"]:
            state["submodel"] += 1
            state["in_sub"] = True
        elif tag == "feature" and state["in_model"]:
            state["feature"] = []
            state["line"] = parser.CurrentLineNumber

    def end(tag):
        if tag == "featuremodel":
            state["in_model"] = False
        elif tag == "submodel":
            state["in_sub"] = False
        elif tag == "feature" and state["feature"] is not None:
            content = "".join(state["feature"]).strip()
            if len(content) > 1:
                if not state["in_sub"]:
                    plain.append((content, state["line"]))
                elif state["submodel"] == 1:
                    sub.append((content, state["line"]))
            state["feature"] = None

    def chars(data):
        if state["feature"] is not None:
            state["feature"].append(data)

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = chars
    try:
        parser.Parse(data, True)
    except xml.parsers.expat.ExpatError as e:
        raise MaltpyError(
            f"feature model is not well-formed XML: {xml.parsers.expat.errors.messages[e.code]}", name, e.lineno
        ) from None
    if state["models"] == 0:
        raise MaltpyError("no <featuremodel> element in the XML feature model", name)
    return sub if state["submodel"] else plain
