"""The feature extractor: the whole feature model as one generated Python function.

This is the hot path of learning and parsing (it runs once per transition). The function
computes each address and each column value once, however many features share it (POSTAG of
Input[0] appears in six features of the default arc-eager model), and inlines the common
functions; everything else calls the closures of ``functions``, which define the semantics.
The generated code reads only the configuration and the sentence's columns; the feature
specification contributes names of columns and closures, never text of its own.
"""

from __future__ import annotations

from .functions import NULL_SYMBOLS, compile_address, compile_feature
from .spec import BUFFER_INPUT, COLUMNS, Address, Feature


class _Writer:
    def __init__(self, family: str, null_value: str, deprel_of=None, split_codes=None) -> None:
        self.family = family
        self.null_value = null_value
        self.deprel_of = deprel_of
        self.split_codes = split_codes
        self.lines: list[str] = []
        self.names: dict[str, str] = {}  # canonical text -> local variable
        self.namespace: dict[str, object] = {}
        no_node, root_node, no_value = NULL_SYMBOLS[null_value]
        self.namespace.update(NO_NODE=no_node, ROOT_NODE=root_node, NO_VALUE=no_value,
                              NULLS=frozenset((no_node, root_node, no_value)), DEPREL_OF=deprel_of)  # fmt: skip

    def _local(self, key: str, expression: str) -> str:
        name = self.names.get(key)
        if name is None:
            name = self.names[key] = f"v{len(self.names)}"
            self.lines.append(f"    {name} = {expression}")
        return name

    def _closure(self, key: str, fn) -> str:
        name = f"f{len(self.namespace)}"
        self.namespace[name] = fn
        return self._local(key, f"{name}(c, cols)")

    def address(self, a: Address) -> str:
        key = str(a)
        if key in self.names:
            return self.names[key]
        i = a.index
        if a.inner is None and a.name in ("Stack", "ActiveStack"):
            return self._local(key, f"stack[{-1 - i}] if {i} < len(stack) else -1")
        if a.inner is None and a.name == "Input" and self.family in BUFFER_INPUT:
            return self._local(key, f"buffer[{-1 - i}] if {i} < len(buffer) else -1")
        if a.inner is None and a.name == "Lookahead":
            return self._local(key, f"buffer[-1 - c.swapped - {i}] if c.swapped + {i} < len(buffer) else -1")
        if a.inner is None and a.name == "Left":
            return self._local(key, f"c.left - {i} if c.left >= {i} else -1")
        if a.inner is None and a.name == "Right":
            return self._local(key, f"c.right + {i} if c.right + {i} <= c.n else -1")
        if a.name == "head":
            x = self.address(a.inner)
            return self._local(key, f"heads[{x}] if {x} > 0 else -1")
        if a.name == "ldep":
            x = self.address(a.inner)
            return self._local(key, f"left[{x}][0] if {x} >= 0 and left[{x}] else -1")
        if a.name == "rdep":
            x = self.address(a.inner)
            return self._local(key, f"right[{x}][-1] if {x} >= 0 and right[{x}] else -1")
        return self._closure(key, compile_address(a, self.family))

    def value(self, f: Feature, nested: bool) -> str:
        key = f"{f}|nested" if nested and f.name in ("Merge", "Merge3") else str(f)
        if key in self.names:
            return self.names[key]
        if f.name == "InputColumn" and f.args[0] != "ID":
            x = self.address(f.args[1])
            column = COLUMNS[f.args[0]]
            return self._local(key, f"cols[{column}][{x}] if {x} > 0 else (NO_NODE if {x} < 0 else ROOT_NODE)")
        if f.name == "OutputColumn":
            x = self.address(f.args[1])
            label = f"labels[{x}]" if self.deprel_of is None else f"DEPREL_OF[labels[{x}]]"
            label = f"({label} if labels[{x}] is not None else NO_VALUE)"
            return self._local(key, f"{label} if {x} > 0 else (NO_NODE if {x} < 0 else ROOT_NODE)")
        if f.name in ("Merge", "Merge3"):
            parts = [self.value(a, True) for a in f.args]
            joined = ' + "~" + '.join(parts)
            nulls = " and ".join(f"{p} in NULLS" for p in parts)
            otherwise = parts[0] if nested else "None"
            return self._local(key, f"{otherwise} if {nulls} else {joined}")
        return self._closure(key, compile_feature(f, self.family, self.null_value, nested, self.deprel_of,
                                                  self.split_codes))  # fmt: skip


def compile_extractor(features: list[Feature], family: str, null_value: str, tables=None, positions=None,
                      deprel_of=None, split_codes=None):  # fmt: skip
    """A function ``(configuration, columns) -> tuple of values``, one per feature, with the
    values ``functions.compile_feature`` gives.

    Given a classifier's value tables (``tables[k]`` maps the values of feature ``positions[k]``
    to columns), the function returns instead the list of the columns of the values it knows:
    the instance, ready for the classifier (only for features whose values are plain strings).
    """
    w = _Writer(family, null_value, deprel_of, split_codes)
    outputs = [w.value(f, nested=False) for f in features]
    if tables is not None:
        for k, table in enumerate(tables):
            w.namespace[f"t{k}"] = table
        looked_up = ", ".join(f"t{k}.get({outputs[p]})" for k, p in enumerate(positions))
        outputs = [f"[x for x in ({looked_up},) if x is not None]"]
    prologue = ["def extract(c, cols):", "    arcs = c.arcs", "    heads, labels = arcs.heads, arcs.labels",
                "    left, right = arcs.left, arcs.right"]  # fmt: skip
    if family in (*BUFFER_INPUT, "stack"):  # the families with a stack and a buffer
        prologue.append("    stack, buffer = c.stack, c.buffer")
    result = outputs[0] if tables is not None else f"({', '.join(outputs)},)"
    body = [*prologue, *w.lines, f"    return {result}"]
    exec("\n".join(body), w.namespace)  # noqa: S102 - generated from the parsed feature model only
    extract = w.namespace["extract"]
    extract.source = "\n".join(body)
    return extract
