"""Address and feature functions, compiled into closures over a parser configuration.

An address function maps a configuration to a node: a word 1..n, the root 0, or -1 for no node.
A feature function maps it to a value: a string, a tuple of strings (Split, Suffix, Prefix), a
number (an integer column such as ID), or None when it contributes nothing to the instance.

The semantics are MaltParser 1.9.2's, including where its documentation says otherwise:

- Base addresses (Nivre 2008, §6.1; Nivre et al. 2007, §3.3): Stack[i] and Input[i] count from
  the top of the stack and the front of the buffer. In the stack systems Input[i] names only
  the nodes SWAP has put back in the buffer and Lookahead[i] the buffer after them. Covington's
  Left[i] and Right[i] are the words i places left of the current left word (down to the root,
  whatever allow_root says) and right of the current right word; LeftContext[i] and
  RightContext[i] count, from the left and from the right, the words between the two whose head
  (if any) is outside them.
- Graph addresses on the partial graph: head; ldep and rdep, the leftmost left and rightmost
  right dependent; lsib and rsib, the nearest sibling on the same side of the head; pred and
  succ, the neighbouring words (never the root); anc, the topmost ancestor (the node itself if it
  has no head), panc the same but none without a head; ldesc and rdesc, the leftmost and
  rightmost node of the subtree, pldesc and prdesc of the proper subtree (none for the root).
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
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from .spec import BUFFER_INPUT, COLUMNS, Address, Feature, delimiter_literal

NULL, ROOTNODE, NOVALUE = "#null#", "#rootnode#", "#novalue#"

#: The null symbols for (no node, root node, no value) under each null_value setting.
NULL_SYMBOLS = {
    "none": (NULL, NULL, NULL),
    "one": (NULL, NULL, NULL),
    "rootnode": (NULL, ROOTNODE, ROOTNODE),
    "novalue": (NULL, ROOTNODE, NOVALUE),
}

AddressFn = Callable[[object, list], int]
FeatureFn = Callable[[object, list], object]


# --- base addresses ----------------------------------------------------------------------------


def _base_address(a: Address, family: str) -> AddressFn:
    i = a.index
    if a.name in ("Stack", "ActiveStack"):  # 2planar's stack is the active one

        def stack(c, cols, i=i):
            s = c.stack
            return s[-1 - i] if i < len(s) else -1

        return stack
    if a.name == "InactiveStack":

        def inactive_stack(c, cols, i=i):
            s = c.inactive
            return s[-1 - i] if i < len(s) else -1

        return inactive_stack
    if a.name == "Input" and family in BUFFER_INPUT:

        def nivre_input(c, cols, i=i):
            b = c.buffer
            return b[-1 - i] if i < len(b) else -1

        return nivre_input
    if a.name == "Input":  # stack systems: the swapped nodes only

        def swapped_input(c, cols, i=i):
            b = c.buffer
            return b[-1 - i] if i < c.swapped and i < len(b) else -1

        return swapped_input
    if a.name == "Lookahead":

        def lookahead(c, cols, i=i):
            b = c.buffer
            k = c.swapped + i
            return b[-1 - k] if k < len(b) else -1

        return lookahead
    if a.name == "Left":

        def left(c, cols, i=i):
            k = c.left - i
            return k if k >= 0 else -1

        return left
    if a.name == "Right":

        def right(c, cols, i=i):
            k = c.right + i
            return k if k <= c.n else -1

        return right
    if a.name in ("LeftContext", "RightContext"):
        ascending = a.name == "LeftContext"

        def context(c, cols, i=i, ascending=ascending):
            lo, hi = c.left, c.right
            heads = c.arcs.heads
            positions = range(lo + 1, hi) if ascending else range(hi - 1, lo, -1)
            seen = 0
            for k in positions:
                h = heads[k]
                if h == -1 or h < lo or h > hi:
                    if seen == i:
                        return k
                    seen += 1
            return -1

        return context
    raise ValueError(f"no base address {a.name}")


# --- graph addresses ---------------------------------------------------------------------------


def _graph_address(name: str, inner: AddressFn) -> AddressFn:
    if name == "head":

        def head(c, cols):
            x = inner(c, cols)
            return c.arcs.heads[x] if x > 0 else -1

        return head
    if name == "ldep":

        def ldep(c, cols):
            x = inner(c, cols)
            if x < 0:
                return -1
            deps = c.arcs.left[x]
            return deps[0] if deps else -1

        return ldep
    if name in ("rdep", "rdep2"):
        skip_root = name == "rdep2"

        def rdep(c, cols):
            x = inner(c, cols)
            if x < 0 or (skip_root and x == 0):
                return -1
            deps = c.arcs.right[x]
            return deps[-1] if deps else -1

        return rdep
    if name in ("lsib", "rsib"):
        leftward = name == "lsib"

        def sibling(c, cols):
            x = inner(c, cols)
            if x <= 0:
                return -1
            h = c.arcs.heads[x]
            if h == -1:
                return -1
            same_side = c.arcs.left[h] if x < h else c.arcs.right[h]
            k = same_side.index(x)
            if leftward:
                return same_side[k - 1] if k > 0 else -1
            return same_side[k + 1] if k + 1 < len(same_side) else -1

        return sibling
    if name == "pred":

        def pred(c, cols):
            x = inner(c, cols)
            return x - 1 if x > 1 else -1

        return pred
    if name == "succ":

        def succ(c, cols):
            x = inner(c, cols)
            return x + 1 if 0 < x < len(cols[0]) - 1 else -1

        return succ
    if name in ("anc", "panc"):
        proper = name == "panc"

        def ancestor(c, cols):
            x = inner(c, cols)
            if x < 0:
                return -1
            heads = c.arcs.heads
            if proper and (x == 0 or heads[x] == -1):
                return -1
            while x > 0 and heads[x] != -1:
                x = heads[x]
            return x

        return ancestor
    if name in ("ldesc", "pldesc", "rdesc", "prdesc"):
        leftmost = name in ("ldesc", "pldesc")
        proper = name.startswith("p")

        def descendant(c, cols):
            x = inner(c, cols)
            if x <= 0:
                return -1
            arcs = c.arcs
            best = -1 if proper else x
            todo = arcs.left[x] + arcs.right[x]
            while todo:
                d = todo.pop()
                if best == -1 or (d < best if leftmost else d > best):
                    best = d
                todo.extend(arcs.left[d])
                todo.extend(arcs.right[d])
            return best

        return descendant
    raise ValueError(f"no graph address {name}")


def compile_address(a: Address, family: str) -> AddressFn:
    if a.inner is None:
        return _base_address(a, family)
    return _graph_address(a.name, compile_address(a.inner, family))


# --- feature functions -------------------------------------------------------------------------


def _bin(value: int, bins: list[int], labels: list[str]) -> str:
    label = labels[0]
    for b, lab in zip(bins, labels):
        if value >= b:
            label = lab
    return label


def compile_feature(f: Feature, family: str, null_value: str, nested: bool = False,
                    deprel_of: Mapping[str, str] | None = None,
                    split_codes: dict | None = None) -> FeatureFn:  # fmt: skip
    """The feature as a closure ``(configuration, columns) -> value``; ``columns[k][node]`` is
    column k of the sentence's word ``node`` (index 0 is the root's place). ``nested``: the
    feature is part of a Merge (where a Merge of nulls is a null, not nothing). ``deprel_of``:
    when arcs carry pseudo-projective labels (``pseudoproj``), the DEPREL of each; DEPREL
    features see it, as MaltParser's keep the marks in columns of their own."""
    no_node, root_node, no_value = NULL_SYMBOLS[null_value]
    name, args = f.name, f.args
    if name == "InputColumn":
        column = COLUMNS[args[0]]
        address = compile_address(args[1], family)
        if args[0] == "ID":

            def number(c, cols):
                x = address(c, cols)
                return no_node if x < 0 else root_node if x == 0 else x

            return number

        def input_column(c, cols):
            x = address(c, cols)
            if x > 0:
                return cols[column][x]
            return no_node if x < 0 else root_node

        return input_column
    if name == "OutputColumn":
        address = compile_address(args[1], family)

        def output_column(c, cols):
            x = address(c, cols)
            if x > 0:
                label = c.arcs.labels[x]
                if label is None:
                    return no_value
                return label if deprel_of is None else deprel_of[label]
            return no_node if x < 0 else root_node

        return output_column
    if name in ("InputArc", "OutputArc"):
        column = COLUMNS[args[0]]
        first, second = compile_address(args[1], family), compile_address(args[2], family)

        def arc(c, cols, from_input=name == "InputArc"):
            x, y = first(c, cols), second(c, cols)
            if x < 0 or y < 0:
                return NULL
            if from_input:
                hx = _number(cols[column][x]) if x > 0 else -1
                hy = _number(cols[column][y]) if y > 0 else -1
            else:
                hx, hy = c.arcs.heads[x], c.arcs.heads[y]
            if x != 0 and hx == y:
                return "LEFT"
            if y != 0 and hy == x:
                return "RIGHT"
            return NULL

        return arc
    if name == "InputArcDir":
        column = COLUMNS[args[0]]
        address = compile_address(args[1], family)

        def arc_dir(c, cols):
            x = address(c, cols)
            if x < 0:
                return no_node
            if x == 0:
                return root_node
            h = _number(cols[column][x])
            if h < 0 or h == x:
                return NULL
            return "ROOT" if h == 0 else "LEFT" if h < x else "RIGHT"

        return arc_dir
    if name == "Exists":
        address = compile_address(args[0], family)
        return lambda c, cols: "true" if address(c, cols) >= 0 else None
    if name in ("Distance", "NumOf"):
        bins = [int(b) for b in args[2].split("|")]
        labels = [f">={b}" for b in bins]
        if name == "Distance":
            first, second = compile_address(args[0], family), compile_address(args[1], family)

            def distance(c, cols):
                x, y = first(c, cols), second(c, cols)
                if x <= 0 or y <= 0:
                    return NULL
                return _bin(abs(x - y), bins, labels)

            return distance
        address = compile_address(args[0], family)
        relation = args[1].rstrip("s")

        def num_of(c, cols):
            x = address(c, cols)
            if x < 0:
                return NULL
            arcs = c.arcs
            count = (len(arcs.left[x]) if relation != "rdep" else 0) + (len(arcs.right[x]) if relation != "ldep" else 0)
            return _bin(count, bins, labels)

        return num_of
    if name == "Split":
        inner = compile_feature(args[0], family, null_value, True, deprel_of, split_codes)
        delimiter = delimiter_literal(args[1])
        nulls = {no_node, root_node, no_value}
        if split_codes is None:  # parsing: the order of the pieces does not matter

            def split(c, cols):
                value = inner(c, cols)
                if value in nulls:
                    return value
                return tuple(sorted({piece for piece in value.split(delimiter) if piece}))

            return split
        # Learning: the pieces in order of first appearance in the data, as MaltParser's codes
        # in its table SPLIT_<column>, shared by the Split features of a column, order them
        # (and so number the classifier's columns).
        codes = split_codes.setdefault(args[0].args[0], {})

        def split_in_order(c, cols):
            value = inner(c, cols)
            if value in nulls:
                return value
            pieces = dict.fromkeys(piece for piece in value.split(delimiter) if piece)
            for piece in pieces:
                codes.setdefault(piece, len(codes))
            return tuple(sorted(pieces, key=codes.__getitem__))

        return split_in_order
    if name in ("Suffix", "Prefix"):
        inner = compile_feature(args[0], family, null_value, True, deprel_of, split_codes)
        n = args[1]
        nulls = {no_node, root_node, no_value}
        if name == "Suffix":
            return lambda c, cols: v if (v := inner(c, cols)) in nulls else v[-n:]
        return lambda c, cols: v if (v := inner(c, cols)) in nulls else v[:n]
    if name in ("Merge", "Merge3"):
        parts = [compile_feature(a, family, null_value, True, deprel_of, split_codes) for a in args]
        nulls = {no_node, root_node, no_value}

        def merge(c, cols):
            values = [p(c, cols) for p in parts]
            if all(v in nulls for v in values):
                return values[0] if nested else None
            return "~".join(values)

        return merge
    raise ValueError(f"no feature function {name}")


def _number(text: str) -> int:
    """An integer column's value (HEAD, PHEAD), or -1 for ``_`` or anything not a number."""
    return int(text) if text.isdigit() else -1
