"""What the codes of an .mco's symbol tables stand for, as maltpy's feature values and classes.

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

The decision table's codes become maltpy's classes (``Decisions``): a transition and a label with
its pseudo-projective marks.
"""

from __future__ import annotations

from ..data.conll import valid_label
from ..data.pseudoproj import COVERED_MARK, Encoding
from ..errors import cut, require
from ..features import FeatureModel
from ..features.functions import NOVALUE, NULL, ROOTNODE
from ..features.spec import INTEGER_COLUMNS
from ..learners.encoding import NUMBER
from ..models.parts import SEPARATOR, Classes
from ..transition.base import LA, RA
from .container import Members
from .text import read_symbol_tables

#: Decision settings' parts after T.TRANS and A.DEPREL: the pseudo-projective columns.
PP_PARTS = ("A.PPLIFTED", "A.PPPATH", "A.PPCOVERED")
#: What a symbol takes in memory: its code and text in its table, and its entries in the tables of
#: values that Values makes of each table (two at most: with its null values and without).
COST_SYMBOL = 256


def symbol_tables(members: Members) -> dict:
    """The symbol tables, their symbols' memory spent from the members' budget."""
    budget = members.budget
    tables = read_symbol_tables(members.text("symboltables.sym", None), f"{members.name}/symboltables.sym",
                                max(0, budget.left) // COST_SYMBOL)  # fmt: skip
    budget.spend(COST_SYMBOL * sum(len(t.symbols) for t in tables.values()))
    return tables


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


def symbol(table, code: int) -> str | None:
    """The symbol of ``code`` in ``table``, a null value included (None if it has none)."""
    symbol = table.symbols.get(code)
    return symbol if symbol is not None else _null_symbols(table.null_strategy).get(code)


class Decisions:
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


class Values:
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
