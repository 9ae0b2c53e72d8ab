"""Blended parsing: the trees several parsers give a sentence, combined into one tree by weighted
votes on arcs (Sagae & Lavie 2006, "Parser Combination by Reparsing"; Hall et al. 2007, "Single
Malt or Blended? A Study in Multilingual Parser Optimization", the Blended system, whose tool is
MaltBlender).

Its rooms, one job each (each importing only those above it):

    options      what ``maltpy blend``'s options may say (read without NumPy)
    costs        what a member's parse costs, and each worker's share of the members in a team
    features     the learned scorers' features of an arc and of a label
    scorer       the logistic scorers of arcs and of labels
    weights      what each member's arcs and labels are worth, from its parses of held-out text
    combination  the members' trees of a sentence combined into one (``combine``); parsed files
                 combined (``combine_files``, ``maltpy combine``)
    model        ``Blend``, a parser like ``parser.Model``, and its archive
    learn        a blend learned (``learn_blend``): its members, with folds and worker processes

The public names, here as in their rooms: ``Blend``, ``read_blend``, ``write_blend`` (model);
``learn_blend``, ``Member``, ``Treebank`` (learn); ``Weights`` (weights); ``combine``,
``combine_files`` (combination). Each room is imported when one of its names is first asked for,
so that the command line, which reads ``options`` as it starts, imports no NumPy (jobs.py).
"""

from __future__ import annotations


def __getattr__(name: str) -> object:
    """The public name ``name``, from its room (PEP 562: only names not defined here come here)."""
    if name in ("Blend", "read_blend", "write_blend"):
        from . import model as room
    elif name in ("learn_blend", "Member", "Treebank"):
        from . import learn as room
    elif name == "Weights":
        from . import weights as room
    elif name in ("combine", "combine_files"):
        from . import combination as room
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(room, name)
