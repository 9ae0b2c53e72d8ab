"""Feature functions: one table from each name to its definition (and its arrays form).

MaltParser's feature language (Nivre et al. 2007, §3.3; MaltParser's user guide, "Feature
model"): a feature applies a *feature function* (InputColumn, Merge, ...) to nodes found by
*address functions* (Stack[0], ldep(Input[0]), ...; ``addresses``). ``FEATURE_FUNCTIONS`` maps
each name to its definition, and to its arrays form where the batched path (``features.arrays``)
covers it: to add a feature function is to add one entry here and its parameters to
``spec.SIGNATURES``.

An address function maps a configuration to a node: a word 1..n, the root 0, or -1 for no node.
A feature function maps it to a value: a string, a tuple of strings (Split), a number (an
integer column such as ID), or None when it contributes nothing to the instance.

The semantics are MaltParser 1.9.2's, including where its documentation says otherwise:

- Addresses: see ``addresses`` (ADDRESS_FUNCTIONS).
- Null values (option ``null_value``): a missing node, the root and a word without a head yet
  are ``#null#`` each with ``one`` (the default) and ``none``; ``rootnode`` gives the root (and a
  word without a head) ``#rootnode#``; ``novalue`` gives a word without a head ``#novalue#``.
  With ``none`` null values are left out of instances.
- Merge joins the parts' values with ``~`` (``#null#~DT``); when every part is null it gives
  nothing. Exists gives ``true`` or nothing. Distance is |i - j| binned as ``>=b``; NumOf counts
  dependents, binned the same way; both give ``#null#`` for a missing node, Distance for the root too.

Where MaltParser 1.9.2 has a bug, maltpy does what its documentation says and notes it: Suffix
and Prefix give the last or first n characters of the value (MaltParser's accumulate every
value they have seen), and InputArc and InputArcDir compare word numbers (MaltParser's always
give ``#null#``).

Two kinds of feature function: a *simple* one reads the configuration (its definition gives a
closure ``(configuration, columns) -> value``); a *combining* one (Merge, Split, Suffix, Prefix)
reads only its parts' values (its definition gives ``(values) -> value`` over the places of its
parts in ``values``), so that an extractor computes each part once however many features share it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from operator import itemgetter
from typing import NamedTuple

import numpy as np

from .addresses import compile_address
from .spec import COLUMNS, Address, Feature, delimiter_literal

NULL, ROOTNODE, NOVALUE = "#null#", "#rootnode#", "#novalue#"

#: The null symbols for (no node, root node, no value) under each null_value setting.
NULL_SYMBOLS = {
    "none": (NULL, NULL, NULL),
    "one": (NULL, NULL, NULL),
    "rootnode": (NULL, ROOTNODE, ROOTNODE),
    "novalue": (NULL, ROOTNODE, NOVALUE),
}

FeatureFn = Callable[[object, list], object]


# --- feature functions -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Setting:
    """What a feature function's definition depends on besides its arguments: the algorithm's
    family, the null symbols (``NULL_SYMBOLS``), ``nested`` (the feature is part of a Merge, where
    a Merge of nulls is a null, not nothing), ``deprel_of`` (when arcs carry pseudo-projective
    labels, the DEPREL of each: DEPREL features see it, as MaltParser's keep the marks in columns
    of their own) and ``split_codes`` (learning's order of Split pieces, see ``_split``)."""

    family: str
    null_value: str
    nested: bool = False
    deprel_of: Mapping[str, str] | None = None
    split_codes: dict | None = None

    @property
    def nulls(self) -> tuple[str, str, str]:
        return NULL_SYMBOLS[self.null_value]


class FeatureFunction(NamedTuple):
    """A feature function's definition: ``simple(setting, *args) -> closure`` for one that reads
    the configuration, or ``combining(setting, places, *args) -> (values) -> value`` for one
    that reads its parts' values at ``places``; and its arrays form (``features.arrays``), None
    where the batched path does not cover it: ``arrays(batch, feature, x, flat, nulls)`` gives
    the symbols of the values at nodes ``x`` (places ``flat``), ``nulls`` being the symbols of
    no node, the root and no value. (A Merge's arrays form is ``arrays.Column``'s, over its
    parts' symbols.)"""

    simple: Callable[..., FeatureFn] | None = None
    combining: Callable[..., Callable[[list], object]] | None = None
    arrays: Callable[..., np.ndarray] | None = None


def _input_column(s: Setting, column: str, address: Address) -> FeatureFn:
    """InputColumn(c, a): the input column c of node a (ID: its number)."""
    no_node, root_node, _ = s.nulls
    node = compile_address(address, s.family)
    if column == "ID":

        def number(c, cols):
            x = node(c, cols)
            return no_node if x < 0 else root_node if x == 0 else x

        return number
    k = COLUMNS[column]

    def input_column(c, cols):
        x = node(c, cols)
        if x > 0:
            return cols[k][x]
        return no_node if x < 0 else root_node

    return input_column


def _input_column_arrays(b, f: Feature, x: np.ndarray, flat: np.ndarray, nulls: tuple) -> np.ndarray:
    no_node, root, _ = nulls
    return np.where(x > 0, b.values[COLUMNS[f.args[0]]][flat], np.where(x < 0, no_node, root))


def _output_column(s: Setting, column: str, address: Address) -> FeatureFn:
    """OutputColumn(DEPREL, a): the label of a's arc in the partial graph."""
    no_node, root_node, no_value = s.nulls
    node = compile_address(address, s.family)
    deprel_of = s.deprel_of

    def output_column(c, cols):
        x = node(c, cols)
        if x > 0:
            label = c.arcs.labels[x]
            if label is None:
                return no_value
            return label if deprel_of is None else deprel_of[label]
        return no_node if x < 0 else root_node

    return output_column


def _output_column_arrays(b, f: Feature, x: np.ndarray, flat: np.ndarray, nulls: tuple) -> np.ndarray:
    """The batch's arc labels are class numbers; ``label_symbol`` gives each one's DEPREL's symbol."""
    no_node, root, no_value = nulls
    label = b.labels[flat]
    own = np.where(label >= 0, b.label_symbol[np.maximum(label, 0)], no_value)
    return np.where(x > 0, own, np.where(x < 0, no_node, root))


def _arc(from_input: bool) -> Callable[..., FeatureFn]:
    """InputArc(c, a, b) (``from_input``, heads in column c) and OutputArc(c, a, b) (heads in the
    partial graph): LEFT if b is a's head, RIGHT if a is b's head, else #null#."""

    def compile_arc(s: Setting, column: str, first_address: Address, second_address: Address) -> FeatureFn:
        k = COLUMNS[column]
        first, second = compile_address(first_address, s.family), compile_address(second_address, s.family)

        def arc(c, cols):
            x, y = first(c, cols), second(c, cols)
            if x < 0 or y < 0:
                return NULL
            if from_input:
                hx = _number(cols[k][x]) if x > 0 else -1
                hy = _number(cols[k][y]) if y > 0 else -1
            else:
                hx, hy = c.arcs.heads[x], c.arcs.heads[y]
            if x != 0 and hx == y:
                return "LEFT"
            if y != 0 and hy == x:
                return "RIGHT"
            return NULL

        return arc

    return compile_arc


def _input_arc_dir(s: Setting, column: str, address: Address) -> FeatureFn:
    """InputArcDir(c, a): where a's head in column c is, ROOT, LEFT or RIGHT."""
    no_node, root_node, _ = s.nulls
    k = COLUMNS[column]
    node = compile_address(address, s.family)

    def arc_dir(c, cols):
        x = node(c, cols)
        if x < 0:
            return no_node
        if x == 0:
            return root_node
        h = _number(cols[k][x])
        if h < 0 or h == x:
            return NULL
        return "ROOT" if h == 0 else "LEFT" if h < x else "RIGHT"

    return arc_dir


def _exists(s: Setting, address: Address) -> FeatureFn:
    """Exists(a): ``true`` if there is a node a, else nothing."""
    node = compile_address(address, s.family)
    return lambda c, cols: "true" if node(c, cols) >= 0 else None


def _binned(bins: str) -> Callable[[int], str]:
    """The label ``>=b`` of the largest bin b a count reaches (Distance, NumOf)."""
    edges = [int(b) for b in bins.split("|")]
    labels = [f">={b}" for b in edges]

    def label(value: int) -> str:
        found = labels[0]
        for edge, text in zip(edges, labels):
            if value >= edge:
                found = text
        return found

    return label


def _distance(s: Setting, first_address: Address, second_address: Address, bins: str) -> FeatureFn:
    """Distance(a, b, bins): |a - b| binned; #null# for a missing node or the root."""
    first, second = compile_address(first_address, s.family), compile_address(second_address, s.family)
    binned = _binned(bins)

    def distance(c, cols):
        x, y = first(c, cols), second(c, cols)
        if x <= 0 or y <= 0:
            return NULL
        return binned(abs(x - y))

    return distance


def _num_of(s: Setting, address: Address, relation: str, bins: str) -> FeatureFn:
    """NumOf(a, ldeps|rdeps|deps, bins): a's left, right or all dependents counted, binned."""
    node = compile_address(address, s.family)
    binned = _binned(bins)
    relation = relation.rstrip("s")

    def num_of(c, cols):
        x = node(c, cols)
        if x < 0:
            return NULL
        arcs = c.arcs
        count = (len(arcs.left[x]) if relation != "rdep" else 0) + (len(arcs.right[x]) if relation != "ldep" else 0)
        return binned(count)

    return num_of


def _split(s: Setting, places: tuple[int, ...], inner: Feature, delimiter: str) -> Callable[[list], object]:
    """Split(f, d): the pieces of f's value between the delimiters, as a set of values."""
    (k,) = places
    nulls = set(s.nulls)
    delimiter = delimiter_literal(delimiter)
    if s.split_codes is None:  # parsing: the order of the pieces does not matter

        def split(values):
            value = values[k]
            if value in nulls:
                return value
            return tuple(sorted({piece for piece in value.split(delimiter) if piece}))

        return split
    # Learning: the pieces in order of first appearance in the data, as MaltParser's codes in its
    # table SPLIT_<column>, shared by the Split features of a column, order them (and so number
    # the classifier's columns).
    codes = s.split_codes.setdefault(inner.args[0], {})

    def split_in_order(values):
        value = values[k]
        if value in nulls:
            return value
        pieces = dict.fromkeys(piece for piece in value.split(delimiter) if piece)
        for piece in pieces:
            codes.setdefault(piece, len(codes))
        return tuple(sorted(pieces, key=codes.__getitem__))

    return split_in_order


def _affix(suffix: bool) -> Callable[..., Callable[[list], object]]:
    """Suffix(f, n) (``suffix``) and Prefix(f, n): the last or first n characters of f's value."""

    def compile_affix(s: Setting, places: tuple[int, ...], inner: Feature, n: int) -> Callable[[list], object]:
        (k,) = places
        nulls = set(s.nulls)
        if suffix:
            return lambda values: v if (v := values[k]) in nulls else v[-n:]
        return lambda values: v if (v := values[k]) in nulls else v[:n]

    return compile_affix


def _merge(s: Setting, places: tuple[int, ...], *parts: Feature) -> Callable[[list], object]:
    """Merge(f, g) and Merge3(f, g, h): the parts' values joined by ``~``; nothing if all are
    null (a null inside a Merge)."""
    nulls = frozenset(s.nulls)
    nested = s.nested
    if len(places) == 2:
        i, j = places

        def merge(values):
            a, b = values[i], values[j]
            if a in nulls and b in nulls:
                return a if nested else None
            return a + "~" + b

        return merge
    i, j, k = places

    def merge3(values):
        a, b, c = values[i], values[j], values[k]
        if a in nulls and b in nulls and c in nulls:
            return a if nested else None
        return a + "~" + b + "~" + c

    return merge3


#: Each feature function's definition, by its name in the feature language (spec.SIGNATURES
#: gives its parameters).
FEATURE_FUNCTIONS: dict[str, FeatureFunction] = {
    "InputColumn": FeatureFunction(simple=_input_column, arrays=_input_column_arrays),
    "OutputColumn": FeatureFunction(simple=_output_column, arrays=_output_column_arrays),
    "InputArc": FeatureFunction(simple=_arc(from_input=True)),
    "OutputArc": FeatureFunction(simple=_arc(from_input=False)),
    "InputArcDir": FeatureFunction(simple=_input_arc_dir),
    "Exists": FeatureFunction(simple=_exists),
    "Distance": FeatureFunction(simple=_distance),
    "NumOf": FeatureFunction(simple=_num_of),
    "Split": FeatureFunction(combining=_split),
    "Suffix": FeatureFunction(combining=_affix(suffix=True)),
    "Prefix": FeatureFunction(combining=_affix(suffix=False)),
    "Merge": FeatureFunction(combining=_merge),
    "Merge3": FeatureFunction(combining=_merge),
}


def _parts(f: Feature) -> list[Feature]:
    """A combining feature's parts: its arguments that are features."""
    return [a for a in f.args if isinstance(a, Feature)]


def compile_feature(f: Feature, setting: Setting) -> FeatureFn:
    """The feature as a closure ``(configuration, columns) -> value``; ``columns[k][node]`` is
    column k of the sentence's word ``node`` (index 0 is the root's place)."""
    definition = FEATURE_FUNCTIONS[f.name]
    if definition.simple is not None:
        return definition.simple(setting, *f.args)
    inside = Setting(setting.family, setting.null_value, True, setting.deprel_of, setting.split_codes)
    parts = [compile_feature(p, inside) for p in _parts(f)]
    combine = definition.combining(setting, tuple(range(len(parts))), *f.args)
    return lambda c, cols: combine([p(c, cols) for p in parts])


def compile_extractor(features: list[Feature], setting: Setting) -> Callable[[object, list], tuple]:
    """A function ``(configuration, columns) -> tuple of values``, one per feature, with the
    values ``compile_feature`` gives. This is the hot path of learning and parsing (it runs once
    per transition): each distinct simple feature is one closure call, computed once however many
    features share it (POSTAG of Input[0] appears in six features of the default arc-eager model);
    each combining feature reads its parts' places, in rounds so that a part comes before its whole."""
    simple: list[FeatureFn] = []
    rounds: list[list[Callable[[list], object]]] = []
    place: dict[tuple[Feature, bool], int] = {}
    depth: dict[int, int] = {}

    def wire(f: Feature, nested: bool) -> int:
        definition = FEATURE_FUNCTIONS[f.name]
        key = (f, nested and definition.combining is not None)  # a Merge's value depends on ``nested``
        if key in place:
            return place[key]
        if definition.simple is not None:
            place[key] = len(simple)
            simple.append(definition.simple(setting, *f.args))
            depth[place[key]] = 0
            return place[key]
        places = tuple(wire(p, True) for p in _parts(f))
        here = Setting(setting.family, setting.null_value, nested, setting.deprel_of, setting.split_codes)
        level = 1 + max(depth[p] for p in places)
        while len(rounds) < level:
            rounds.append([])
        place[key] = key_place = -len(place) - 1  # numbered below once the simple ones are counted
        rounds[level - 1].append((key_place, definition.combining, here, places, f.args))
        depth[key_place] = level
        return key_place

    outputs = [wire(f, False) for f in features]
    # the simple features' places are 0..; the combining ones' follow, round by round
    renumber = {p: p for p in range(len(simple))}
    compiled_rounds = []
    for entries in rounds:
        compiled = []
        for key_place, combining, here, places, args in entries:
            renumber[key_place] = len(renumber)
            compiled.append(combining(here, tuple(renumber[p] for p in places), *args))
        compiled_rounds.append(compiled)
    pick = itemgetter(*[renumber[p] for p in outputs])
    if len(outputs) == 1:
        single = pick
        pick = lambda values: (single(values),)  # noqa: E731 - itemgetter of one place gives no tuple

    def extract(c, cols):
        values = [f(c, cols) for f in simple]
        for combining in compiled_rounds:
            values += [f(values) for f in combining]
        return pick(values)

    return extract


def _number(text: str) -> int:
    """An integer column's value (HEAD, PHEAD), or -1 for ``_`` or anything not a number."""
    return int(text) if text.isdigit() else -1
