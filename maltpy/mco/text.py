"""The text members of MaltParser's model files (.mco): the writing release, the saved options and
the symbol tables (issue 30, groundwork; the streams are ``javaser``'s).

What each release writes, read from its source (jhamalt/maltparser, RELEASE_1.5.2 to master for
1.9.2) and checked on the reference files of 1.5.2, 1.7.2, 1.8.1 and 1.9.2:

- ``<name>_singlemalt.info``: a report; the writing release is the rest of the line that starts
  with ``Version:`` and 23 blanks (MaltParser's ConfigurationDir reads it so).
- ``savedoptions.sop``: one option a line, ``container TAB group TAB name TAB value`` (an empty
  value leaves its tab or loses it); class-valued options are written ``class <name>``, which
  MaltParser loads by name. Here they are mapped through a fixed table and anything else is
  refused: a model names no code to run.
- ``symboltables.sym``: a header of one line a table (``TAB name TAB category TAB null
  strategy``, 1.9 a type before the strategy), a blank line, then each table: its name, its
  ``code TAB symbol`` lines (1.9 writes them in no order), a blank line. A symbol (and a table's
  name) is a column's value, a label or a decision that a parse may write into a CoNLL file, so
  each is held to the rule the CoNLL reader reads a field by (``conll.valid_label``).

Every function takes the member's text and gives plain data, or raises ``MCOError`` naming the
line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..data.conll import valid_label
from ..transition import SYSTEMS

#: The class-valued options' values, by the text MaltParser writes for them (the same in every
#: release from 1.5 on).
CLASS_VALUES = {
    ("guide", "learner"): {
        "class org.maltparser.ml.lib.LibLinear": "liblinear",
        "class org.maltparser.ml.lib.LibSvm": "libsvm",
    },
    ("singlemalt", "parsing_algorithm"): {  # each system's own (``TransitionSystem.maltparser_class``)
        f"class org.maltparser.parser.algorithm.{system.maltparser_class}": name
        for name, system in SYSTEMS.items() if system.maltparser_class is not None
    },
    ("singlemalt", "guide_model"): {"class org.maltparser.parser.guide.SingleGuide": "single"},
}
OLDEST = (1, 5)
VERSION_LINE = re.compile(r"^Version: {23}(\S+)\s*$", re.MULTILINE)


class MCOError(ValueError):
    """A member of an .mco that is not what MaltParser writes: the member, the line, what."""

    def __init__(self, member: str, line: int | None, message: str) -> None:
        super().__init__(f"{member}{f':{line}' if line else ''}: {message}")
        self.member, self.line = member, line


def writing_release(info: str, member: str = "singlemalt.info") -> tuple[int, ...]:
    """The release that wrote the model, as numbers (1, 9, 2); MCOError for one older than 1.5,
    whose models are another format, or for a report without the line."""
    found = VERSION_LINE.search(info)
    if found is None or not re.fullmatch(r"\d+(\.\d+)+", found.group(1)):
        raise MCOError(member, None, "no MaltParser version in the report")
    release = tuple(int(part) for part in found.group(1).split("."))
    if release[:2] < OLDEST:
        line = info.count("\n", 0, found.start()) + 1
        raise MCOError(member, line, f"written by MaltParser {found.group(1)}, older than 1.5: another model format")
    return release


def read_options(sop: str, member: str = "savedoptions.sop") -> dict[tuple[str, str], str]:
    """The saved options, (group, name) -> value text, class values by their names in maltpy's
    options (``CLASS_VALUES``); MCOError for a line that is not an option, an option given
    twice, or a class maltpy does not know."""
    options: dict[tuple[str, str], str] = {}
    for number, line in enumerate(sop.split("\n"), 1):
        if not line:
            continue
        parts = line.split("\t")
        if len(parts) == 3:
            parts.append("")  # an empty value, its tab gone
        if len(parts) != 4 or parts[0] != "0":
            raise MCOError(member, number, "not a saved option (container, group, name, value)")
        _, group, name, value = parts
        if (group, name) in options:
            raise MCOError(member, number, f"option {group} {name} given twice")
        known = CLASS_VALUES.get((group, name))
        if known is not None:
            if value not in known:
                raise MCOError(member, number, f"option {group} {name} is {value[:200]!r}, which maltpy does not have")
            value = known[value]
        elif value.startswith("class "):
            raise MCOError(member, number, f"option {group} {name} names a class, {value[:200]!r}")
        options[(group, name)] = value
    return options


@dataclass(slots=True)
class SymbolTable:
    """One table: its column category and type (None before 1.9), its null-value strategy, and
    its symbols by code."""

    category: int
    type: int | None
    null_strategy: str
    symbols: dict[int, str] = field(default_factory=dict)


#: Tables in one .sym: a data format's columns, a table a Merge, Split ... feature fills, the
#: decision tables (a few dozen in a model).
MAX_TABLES = 100_000


def read_symbol_tables(sym: str, member: str = "symboltables.sym",
                       most_symbols: int | None = None) -> dict[str, SymbolTable]:  # fmt: skip
    """The symbol tables by name; MCOError for a header or body line out of place, a table the
    header does not name, a code or a symbol given twice in a table (MaltParser's tables map
    each symbol to one code), a symbol or table name that is not CoNLL field text (a tab, a line
    break or another control character, blanks at its ends: conll.valid_label), more than
    MAX_TABLES tables or ``most_symbols`` symbols, or blank lines where MaltParser writes one.
    The text is read a line at a time, never split whole (a .sym of blank lines would be a list
    of as many strings)."""
    lines = _lines(sym)
    tables: dict[str, SymbolTable] = {}
    number = 0
    for number, line in lines:
        if not line:
            break
        parts = line.split("\t")
        if parts[0] != "" or len(parts) not in (4, 5) or not all(re.fullmatch(r"-?\d+", p) for p in parts[2:-1]):
            raise MCOError(member, number, "not a symbol table's header line")
        if not valid_label(parts[1]):
            raise MCOError(member, number, f"a table name that is not CoNLL field text: {parts[1][:100]!r}")
        if len(tables) >= MAX_TABLES:
            raise MCOError(member, number, f"more than {MAX_TABLES} symbol tables")
        numbers = [int(p) for p in parts[2:-1]]
        tables[parts[1]] = SymbolTable(numbers[0], numbers[1] if len(numbers) == 2 else None, parts[-1].lower())
    table: SymbolTable | None = None
    seen: set[str] = set()
    blank = True  # the header's end
    count = 0
    for number, line in lines:
        if table is None:
            if not line:
                if blank:
                    raise MCOError(member, number, "a blank line where a table's name was expected")
                blank = True
                continue
            table = tables.get(line)
            if table is None:
                raise MCOError(member, number, f"table {line[:100]!r} is not in the header")
            seen = set(table.symbols.values())
            blank = False
            continue
        if not line:
            table = None
            blank = True
            continue
        code, tab, symbol = line.partition("\t")
        if not tab or not (0 < len(code) <= 9 and code.isascii() and code.isdigit()):
            raise MCOError(member, number, "not a code and its symbol")
        if not valid_label(symbol):
            raise MCOError(member, number, f"a symbol that is not CoNLL field text: {symbol[:100]!r}")
        if int(code) in table.symbols:
            raise MCOError(member, number, f"code {code} given twice")
        if symbol in seen:
            raise MCOError(member, number, f"symbol {symbol[:100]!r} given twice")
        count += 1
        if most_symbols is not None and count > most_symbols:
            raise MCOError(member, number, f"more than {most_symbols} symbols (MALTPY_MAX_MCO_BYTES allows more)")
        seen.add(symbol)
        table.symbols[int(code)] = symbol
    return tables


def _lines(text: str):
    """(line number, line) of each line of ``text``, one at a time."""
    start, number = 0, 0
    while start < len(text):
        end = text.find("\n", start)
        if end < 0:
            end = len(text)
        number += 1
        yield number, text[start:end]
        start = end + 1
