"""Each address function finds the node its definition names, in the definitions and the fast form.

An address's definition and its fast forms are made from one entry of ``ADDRESS_FUNCTIONS``
(``features.addresses``); tests/test_features.py and tests/test_batch.py check the forms against
the definitions on every configuration of real treebanks. Here the nodes are written out by hand,
from the user guide's words, on small configurations: what the one entry means.
"""

from types import SimpleNamespace

import pytest

from maltpy.features import FeatureModel
from maltpy.features.functions import NULL, ROOTNODE
from maltpy.features.spec import parse_feature_model
from maltpy.transition.base import Arcs


def configuration() -> SimpleNamespace:
    """Six words; 0 -> 3, 3 -> 1, 3 -> 2, 5 -> 4, 5 -> 6; every system's fields at once."""
    arcs = Arcs.empty(6)
    for head, dependent in ((0, 3), (3, 1), (3, 2), (5, 4), (5, 6)):
        arcs.add(head, dependent, "x")
    return SimpleNamespace(stack=[0, 3, 5], inactive=[0, 2], buffer=[6, 4], swapped=1, left=2, right=5, n=6,
                           arcs=arcs)  # fmt: skip


# The node of each address (-1: none), by algorithm: its base addresses, and graph addresses
# over them. The stack's top and the buffer's front are the lists' last nodes.
NODES = {
    "nivreeager": {
        "Stack[0]": 5, "Stack[1]": 3, "Stack[2]": 0, "Stack[3]": -1,
        "Input[0]": 4, "Input[1]": 6, "Input[2]": -1,  # the whole buffer
        "head(Stack[1])": 0, "head(Stack[0])": -1, "head(Stack[2])": -1, "head(Input[0])": 5,
        "ldep(Stack[1])": 1, "ldep(Stack[0])": 4, "ldep(Input[0])": -1, "ldep(Stack[3])": -1,
        "rdep(Stack[0])": 6, "rdep(Stack[2])": 3, "rdep2(Stack[2])": -1, "rdep2(Stack[0])": 6,
        "pred(Stack[1])": 2, "pred(ldep(Stack[1]))": -1, "pred(Stack[2])": -1,
        "succ(Stack[0])": 6, "succ(Input[1])": -1, "succ(Stack[2])": -1, "head(ldep(Stack[0]))": 5,
    },
    "stacklazy": {
        "Stack[0]": 5, "Input[0]": 4, "Input[1]": -1,  # the swapped nodes only: one
        "Lookahead[0]": 6, "Lookahead[1]": -1,  # the buffer after them
    },
    "2planar": {"ActiveStack[0]": 5, "ActiveStack[2]": 0, "InactiveStack[0]": 2, "InactiveStack[2]": -1},
    "covnonproj": {
        "Left[0]": 2, "Left[2]": 0, "Left[3]": -1,  # down to the root
        "Right[0]": 5, "Right[1]": 6, "Right[2]": -1,  # up to the last word
        # between 2 and 5: 3 (its head 0 outside them) and 4 (its head 5 not)
        "LeftContext[0]": 3, "LeftContext[1]": -1, "RightContext[0]": 3, "RightContext[1]": -1,
        "head(LeftContext[0])": 0, "ldep(Right[0])": 4,
    },
}  # fmt: skip


@pytest.mark.parametrize("algorithm", NODES)
def test_each_address_finds_the_node_its_definition_names(algorithm):
    addresses = NODES[algorithm]
    text = "".join(f"InputColumn(FORM, {a})\n" for a in addresses)
    fm = FeatureModel(parse_feature_model(text.encode(), "m.txt", algorithm), algorithm, "rootnode", "m.txt")
    assert fm.plan is not None  # every address here has a fast form
    cols = [[None, *(f"w{k}" for k in range(1, 7))]] * 10  # each column's value names its word
    expected = [NULL if x < 0 else ROOTNODE if x == 0 else f"w{x}" for x in addresses.values()]
    c = configuration()
    for values in (fm.plan.values(c, cols), fm.extract_slowly(c, cols)):
        assert [values[k] for k in fm.file_order] == expected  # the model holds MaltParser's order
