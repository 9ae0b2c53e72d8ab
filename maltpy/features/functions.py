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

Two kinds of feature function: a *simple* one reads the configuration at the nodes its
addresses found; a *combining* one (Merge, Split, Suffix, Prefix) reads only its parts' values,
so that an extractor computes each part once however many features share it. A definition
gives the values of all the uses of its function in a feature model at once (``Use``), reading
the nodes and the parts' values by their places: the extractor runs once per transition, and in
Python one call with a loop costs less than a call a feature (``compile_extractor``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from operator import itemgetter
from typing import NamedTuple

import numpy as np

from ._gather import INPUT_COLUMN, MERGE, MERGE3, OUTPUT_ARC, OUTPUT_COLUMN, Plan
from .addresses import NodeLayout, Slots, Step, compile_nodes, compile_steps
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
#: A simple function's values for its uses in a model, appended to ``values``:
#: ``(configuration, columns, nodes, values) -> None``.
SimpleFn = Callable[[object, list, list, list], None]
#: A combining function's values for its uses, read from its parts' places in ``values`` and
#: appended to it: ``(values) -> None``.
CombiningFn = Callable[[list], None]


# --- feature functions -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Setting:
    """What a feature function's definition depends on besides its arguments: the algorithm's
    family, the null symbols (``NULL_SYMBOLS``), ``deprel_of`` (when arcs carry pseudo-projective
    labels, the DEPREL of each: DEPREL features see it, as MaltParser's keep the marks in columns
    of their own) and ``split_codes`` (learning's order of Split pieces, see ``_split``)."""

    family: str
    null_value: str
    deprel_of: Mapping[str, str] | None = None
    split_codes: dict | None = None

    @property
    def nulls(self) -> tuple[str, str, str]:
        return NULL_SYMBOLS[self.null_value]


class Use(NamedTuple):
    """One use of a feature function in a feature model: ``places``, those of its addresses'
    nodes (a simple function) or of its parts' values (a combining one), in the order of its
    arguments ``args``; ``nested``, whether it is a part of a Merge, where a Merge of nulls is a
    null, not nothing."""

    places: tuple[int, ...]
    args: tuple
    nested: bool = False


class FeatureFunction(NamedTuple):
    """A feature function's definition: ``simple(setting, uses) -> (configuration, columns,
    nodes) -> values`` for one that reads the configuration, or ``combining(setting, uses) ->
    (values) -> values`` for one that reads its parts' values; each gives the values of all its
    ``uses`` (``Use``) in a model at once, in their order. And its arrays form
    (``features.arrays``), None where the batched path does not cover it: ``arrays(batch,
    feature, x, flat, nulls)`` gives the symbols of the values at nodes ``x`` (places ``flat``),
    ``nulls`` being the symbols of no node, the root and no value. (A Merge's arrays form is
    ``arrays.Column``'s, over its parts' symbols.) And its fast form (``compile_plan``):
    ``fast(use) -> step`` of ``_gather``'s Plan, None for a use it does not cover."""

    simple: Callable[[Setting, list[Use]], SimpleFn] | None = None
    combining: Callable[[Setting, list[Use]], CombiningFn] | None = None
    arrays: Callable[..., np.ndarray] | None = None
    fast: Callable[[Use], Step | None] | None = None


def _input_column(s: Setting, uses: list[Use]) -> SimpleFn:
    """InputColumn(c, a): the input column c of node a (ID: its number). One gather over all the
    model's InputColumn features, the null symbols of the root and of no node at places 0 and -1
    of ``null``."""
    no_node, root_node, _ = s.nulls
    null = (root_node, no_node)
    reads = [(None if column == "ID" else COLUMNS[column], i) for (i,), (column, _), _ in uses]

    def input_column(c, cols, nodes, values):
        for k, i in reads:
            x = nodes[i]
            values.append((cols[k][x] if k is not None else x) if x > 0 else null[x])

    return input_column


def _input_column_arrays(b, f: Feature, x: np.ndarray, flat: np.ndarray, nulls: tuple) -> np.ndarray:
    no_node, root, _ = nulls
    return np.where(x > 0, b.values[COLUMNS[f.args[0]]][flat], np.where(x < 0, no_node, root))


def _output_column(s: Setting, uses: list[Use]) -> SimpleFn:
    """OutputColumn(DEPREL, a): the label of a's arc in the partial graph."""
    no_node, root_node, no_value = s.nulls
    null = (root_node, no_node)
    deprel_of = s.deprel_of
    places = [i for (i,), _, _ in uses]

    def output_column(c, cols, nodes, values):
        labels = c.arcs.labels
        for i in places:
            x = nodes[i]
            if x > 0:
                label = labels[x]
                values.append(no_value if label is None else label if deprel_of is None else deprel_of[label])
            else:
                values.append(null[x])

    return output_column


def _output_column_arrays(b, f: Feature, x: np.ndarray, flat: np.ndarray, nulls: tuple) -> np.ndarray:
    """The batch's arc labels are class numbers; ``label_symbol`` gives each one's DEPREL's symbol."""
    no_node, root, no_value = nulls
    label = b.labels[flat]
    own = np.where(label >= 0, b.label_symbol[np.maximum(label, 0)], no_value)
    return np.where(x > 0, own, np.where(x < 0, no_node, root))


def _arc(from_input: bool) -> Callable[[Setting, list[Use]], SimpleFn]:
    """InputArc(c, a, b) (``from_input``, heads in column c) and OutputArc(c, a, b) (heads in the
    partial graph): LEFT if b is a's head, RIGHT if a is b's head, else #null#."""

    def arc(c, cols, k: int, x: int, y: int) -> str:
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

    def compile_arc(s: Setting, uses: list[Use]) -> SimpleFn:
        reads = [(COLUMNS[column], i, j) for (i, j), (column, _, _), _ in uses]

        def arcs(c, cols, nodes, values):
            for k, i, j in reads:
                values.append(arc(c, cols, k, nodes[i], nodes[j]))

        return arcs

    return compile_arc


def _input_arc_dir(s: Setting, uses: list[Use]) -> SimpleFn:
    """InputArcDir(c, a): where a's head in column c is, ROOT, LEFT or RIGHT."""
    no_node, root_node, _ = s.nulls

    def arc_dir(cols, k: int, x: int) -> str:
        if x < 0:
            return no_node
        if x == 0:
            return root_node
        h = _number(cols[k][x])
        if h < 0 or h == x:
            return NULL
        return "ROOT" if h == 0 else "LEFT" if h < x else "RIGHT"

    reads = [(COLUMNS[column], i) for (i,), (column, _), _ in uses]

    def arc_dirs(c, cols, nodes, values):
        for k, i in reads:
            values.append(arc_dir(cols, k, nodes[i]))

    return arc_dirs


def _exists(s: Setting, uses: list[Use]) -> SimpleFn:
    """Exists(a): ``true`` if there is a node a, else nothing."""
    places = [i for (i,), _, _ in uses]

    def exists(c, cols, nodes, values):
        for i in places:
            values.append("true" if nodes[i] >= 0 else None)

    return exists


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


def _distance(s: Setting, uses: list[Use]) -> SimpleFn:
    """Distance(a, b, bins): |a - b| binned; #null# for a missing node or the root."""
    reads = [(i, j, _binned(bins)) for (i, j), (_, _, bins), _ in uses]

    def distance(c, cols, nodes, values):
        for i, j, binned in reads:
            x, y = nodes[i], nodes[j]
            values.append(binned(abs(x - y)) if x > 0 and y > 0 else NULL)

    return distance


def _num_of(s: Setting, uses: list[Use]) -> SimpleFn:
    """NumOf(a, ldeps|rdeps|deps, bins): a's left, right or all dependents counted, binned."""

    def num_of(arcs, x: int, relation: str, binned: Callable[[int], str]) -> str:
        if x < 0:
            return NULL
        count = (len(arcs.left[x]) if relation != "rdep" else 0) + (len(arcs.right[x]) if relation != "ldep" else 0)
        return binned(count)

    reads = [(i, relation.rstrip("s"), _binned(bins)) for (i,), (_, relation, bins), _ in uses]

    def nums_of(c, cols, nodes, values):
        for i, relation, binned in reads:
            values.append(num_of(c.arcs, nodes[i], relation, binned))

    return nums_of


def _split(s: Setting, uses: list[Use]) -> CombiningFn:
    """Split(f, d): the pieces of f's value between the delimiters, as a set of values."""
    nulls = set(s.nulls)

    def pieces_of(inner: Feature, delimiter: str) -> Callable[[object], object]:
        delimiter = delimiter_literal(delimiter)
        if s.split_codes is None:  # parsing: the order of the pieces does not matter
            return lambda value: tuple(sorted({piece for piece in value.split(delimiter) if piece}))
        # Learning: the pieces in order of first appearance in the data, as MaltParser's codes in
        # its table SPLIT_<column>, shared by the Split features of a column, order them (and so
        # number the classifier's columns).
        codes = s.split_codes.setdefault(inner.args[0], {})

        def in_order(value):
            pieces = dict.fromkeys(piece for piece in value.split(delimiter) if piece)
            for piece in pieces:
                codes.setdefault(piece, len(codes))
            return tuple(sorted(pieces, key=codes.__getitem__))

        return in_order

    reads = [(i, pieces_of(*args)) for (i,), args, _ in uses]

    def split(values):
        for i, pieces in reads:
            value = values[i]
            values.append(value if value in nulls else pieces(value))

    return split


def _affix(suffix: bool) -> Callable[[Setting, list[Use]], CombiningFn]:
    """Suffix(f, n) (``suffix``) and Prefix(f, n): the last or first n characters of f's value."""

    def compile_affix(s: Setting, uses: list[Use]) -> CombiningFn:
        nulls = set(s.nulls)
        reads = [(i, slice(-n, None) if suffix else slice(n)) for (i,), (_, n), _ in uses]

        def affix(values):
            for i, cut in reads:
                value = values[i]
                values.append(value if value in nulls else value[cut])

        return affix

    return compile_affix


def _merge(s: Setting, uses: list[Use]) -> CombiningFn:
    """Merge(f, g) and Merge3(f, g, h): the parts' values joined by ``~``; nothing if all are
    null (a null inside a Merge). The text is one f-string (one allocation where ``+`` makes one
    per part)."""
    nulls = frozenset(s.nulls)
    if len(uses[0].places) == 2:
        pairs = [(i, j, nested) for (i, j), _, nested in uses]

        def merge(values):
            for i, j, nested in pairs:
                a, b = values[i], values[j]
                values.append((a if nested else None) if a in nulls and b in nulls else f"{a}~{b}")

        return merge
    triples = [(i, j, k, nested) for (i, j, k), _, nested in uses]

    def merge3(values):
        for i, j, k, nested in triples:
            a, b, c = values[i], values[j], values[k]
            all_null = a in nulls and b in nulls and c in nulls
            values.append((a if nested else None) if all_null else f"{a}~{b}~{c}")

    return merge3


#: Each feature function's definition, by its name in the feature language (spec.SIGNATURES
#: gives its parameters).
def _input_column_fast(use: Use) -> Step | None:
    column = use.args[0]
    return None if column == "ID" else (INPUT_COLUMN, COLUMNS[column], use.places[0])


FEATURE_FUNCTIONS: dict[str, FeatureFunction] = {
    "InputColumn": FeatureFunction(simple=_input_column, arrays=_input_column_arrays, fast=_input_column_fast),
    "OutputColumn": FeatureFunction(
        simple=_output_column, arrays=_output_column_arrays, fast=lambda use: (OUTPUT_COLUMN, 0, use.places[0])
    ),  # fmt: skip
    "InputArc": FeatureFunction(simple=_arc(from_input=True)),
    "OutputArc": FeatureFunction(simple=_arc(from_input=False), fast=lambda use: (OUTPUT_ARC, 0, *use.places)),
    "InputArcDir": FeatureFunction(simple=_input_arc_dir),
    "Exists": FeatureFunction(simple=_exists),
    "Distance": FeatureFunction(simple=_distance),
    "NumOf": FeatureFunction(simple=_num_of),
    "Split": FeatureFunction(combining=_split),
    "Suffix": FeatureFunction(combining=_affix(suffix=True)),
    "Prefix": FeatureFunction(combining=_affix(suffix=False)),
    "Merge": FeatureFunction(combining=_merge, fast=lambda use: (MERGE, *use.places, 0, use.nested)),
    "Merge3": FeatureFunction(combining=_merge, fast=lambda use: (MERGE3, *use.places, use.nested)),
}


def _parts(f: Feature) -> list[Feature]:
    """A combining feature's parts: its arguments that are features."""
    return [a for a in f.args if isinstance(a, Feature)]


def compile_feature(f: Feature, setting: Setting) -> FeatureFn:
    """The feature as a closure ``(configuration, columns) -> value``; ``columns[k][node]`` is
    column k of the sentence's word ``node`` (index 0 is the root's place)."""
    extract = compile_extractor(Layout.of([f]), setting)
    return lambda c, cols: extract(c, cols)[0]


class Layout(NamedTuple):
    """Where an extractor finds a feature model's values: its nodes (``NodeLayout``), then its
    values, each distinct feature once however many features share it (POSTAG of Input[0]
    appears in six features of the default arc-eager model): ``groups``, each a function's name
    and its uses, the simple functions' first, then the combining ones' in rounds, a part before
    its whole, the values of a group in the order of its uses; ``outputs``, the place of each of
    the model's features among the values."""

    nodes: NodeLayout
    groups: list[tuple[str, list[Use]]]
    outputs: list[int]

    @classmethod
    def of(cls, features: list[Feature]) -> Layout:
        uses: dict[str, list[tuple[Feature, bool]]] = {}  # the simple ones, by function
        rounds: list[dict[str, list[tuple[Feature, bool]]]] = []  # the combining ones, by depth and function
        depth: dict[tuple[Feature, bool], int] = {}
        parts: dict[tuple[Feature, bool], list[tuple[Feature, bool]]] = {}

        def wire(f: Feature, nested: bool) -> tuple[Feature, bool]:
            combining = FEATURE_FUNCTIONS[f.name].combining is not None
            key = (f, nested and combining)  # a Merge's value depends on ``nested``
            if key in depth:
                return key
            if not combining:
                uses.setdefault(f.name, []).append(key)
                depth[key] = 0
                return key
            parts[key] = [wire(p, True) for p in _parts(f)]
            depth[key] = level = 1 + max(depth[p] for p in parts[key])
            while len(rounds) < level:
                rounds.append({})
            rounds[level - 1].setdefault(f.name, []).append(key)
            return key

        outputs = [wire(f, False) for f in features]
        nodes = NodeLayout.of(a for group in uses.values() for f, _ in group for a in f.args if isinstance(a, Address))
        place: dict[tuple[Feature, bool], int] = {}
        groups: list[tuple[str, list[Use]]] = []
        for name, group in uses.items():
            here = [Use(tuple(nodes.places[a] for a in f.args if isinstance(a, Address)), f.args) for f, _ in group]
            groups.append((name, here))
            place.update((key, len(place)) for key in group)
        for level in rounds:
            for name, group in level.items():
                groups.append((name, [Use(tuple(place[p] for p in parts[key]), key[0].args, key[1]) for key in group]))
                place.update((key, len(place)) for key in group)
        return cls(nodes, groups, [place[key] for key in outputs])


def compile_extractor(layout: Layout, setting: Setting) -> Callable[[object, list], tuple]:
    """A function ``(configuration, columns) -> tuple of values``, one per feature of the
    layout's (``Layout.of(features)``), with the values ``compile_feature`` gives: the
    definitions run in the layout's order, each feature function giving the values of all its
    uses in one call (the hot path of learning and parsing runs once per transition;
    ``compile_plan`` is its fast form)."""
    find = compile_nodes(layout.nodes, setting.family)
    simple: list[SimpleFn] = []
    combining: list[CombiningFn] = []
    for name, uses in layout.groups:
        function = FEATURE_FUNCTIONS[name]
        if function.simple is not None:
            simple.append(function.simple(setting, uses))
        else:
            combining.append(function.combining(setting, uses))
    pick = itemgetter(*layout.outputs)
    if len(layout.outputs) == 1:
        single = pick
        pick = lambda values: (single(values),)  # noqa: E731 - itemgetter of one place gives no tuple

    def extract(c, cols):
        nodes = find(c)
        values = []
        for values_of in simple:
            values_of(c, cols, nodes, values)
        for combine in combining:
            combine(values)
        return pick(values)

    return extract


def compile_plan(layout: Layout, setting: Setting) -> Plan | None:
    """The Plan of the features of ``layout`` (``Layout.of(features)``): ``plan.values(c,
    columns)`` gives what ``compile_extractor``'s function gives, ``plan.columns(c, columns,
    tables, picks)`` the columns of those values in ``tables``; None if a function has no fast
    form."""
    slots = Slots()
    nodes = compile_steps(layout.nodes, setting.family, slots)
    if nodes is None:
        return None
    values = []
    for name, uses in layout.groups:
        form = FEATURE_FUNCTIONS[name].fast
        for use in uses:
            step = form(use) if form is not None else None
            if step is None:
                return None
            values.append(step)
    return Plan(nodes, values, layout.outputs, setting.nulls, setting.deprel_of, tuple(slots.names))


def _number(text: str) -> int:
    """An integer column's value (HEAD, PHEAD), or -1 for ``_`` or anything not a number."""
    return int(text) if text.isdigit() else -1
