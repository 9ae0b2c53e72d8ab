"""The fast form of the per-configuration feature extractor: a feature model as a Plan of
``_gather`` (C), where every function it applies has a fast form beside its definition
(``addresses.ADDRESS_FUNCTIONS``, ``functions.FEATURE_FUNCTIONS``: the Nivre, Covington, stack
and planar systems' default models and every model of their addresses and columns, arcs and
Merges). A Plan finds the nodes and values in the order of the definitions' extractor
(``functions.Layout``) and gives the same values, or straight away an instance's columns in a
classifier's tables. Models with other functions (Split, Suffix, Distance, ID, lsib, ...) take
the definitions' extractor (``functions.compile_extractor``).
"""

from __future__ import annotations

from ._gather import Plan
from .functions import FEATURE_FUNCTIONS, Layout, Setting
from .spec import Feature


def compile_plan(features: list[Feature], setting: Setting) -> Plan | None:
    """The features' Plan (``plan.values(c, columns)`` gives what ``compile_extractor``'s
    function gives, ``plan.columns(c, columns, tables, picks)`` the columns of those values in
    ``tables``), or None if one of them has no fast form."""
    layout = Layout.of(features)
    nodes = layout.nodes.fast_steps(setting.family)
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
    return Plan(nodes, values, layout.outputs, setting.nulls, setting.deprel_of)
