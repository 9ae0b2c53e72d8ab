"""The one loader: a saved parser of any kind, read from its file.

It sits above the kinds it dispatches to, none of which imports it: a transition model
(``models.parser.Model``), a graph-based model (``graph.model.GraphModel``), a blend of models
(``blend.Blend``, whose members it reads too) and MaltParser's model file (.mco, read as a
transition model by ``mco.load_mco``). The command line, its ``--jobs`` workers, the Python API,
NLTK's interface, Dask and learning a blend all load through here.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from contextlib import contextmanager

from .blend.model import read_blend
from .errors import MaltpyError
from .graph.model import read_graph_model
from .mco import is_mco, load_mco
from .models.archive import Archive
from .models.base import Parser
from .models.parser import read_transition_model
from .models.parts import TAGGERS, checked_tokenizer, open_archive


def load(path: str | os.PathLike, data: bytes | None = None, within: Archive | None = None,
         team: tuple[int, int] | None = None) -> Parser:  # fmt: skip
    """The parser in the archive at ``path`` (or in ``data``, the bytes of one, which ``path``
    then names in messages; a member of the archive ``within``, a blend's, read within its
    budget), every part checked before use: a transition model (``parts.read_model``), a
    graph-based model (``graph.model.read_graph_model``) or a blend of models
    (``blend.read_blend``, its members read by this function); or MaltParser's model file (.mco)
    there, read as a model (``mco.load_mco``), unless it is a member (a blend holds maltpy's
    archives, which its budget bounds; an .mco has a budget of its own). ``team``: a worker's
    place in a team of workers and the team's size, for a blend (its share of the members alone)."""
    with collector_paused():
        if within is None and isinstance(path, (str, os.PathLike)) and is_mco(os.fspath(path), data):
            return load_mco(os.fspath(path), data)
        with open_archive(path, data, within) as archive:
            if "blend" in archive.manifest:
                return read_blend(archive, os.fspath(path), team, load)
            if "graph" in archive.manifest:
                return read_graph_model(archive)
            return read_transition_model(archive)


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused, and resumed after if it ran before (so a load
    within a load leaves it to the outer): loading makes millions of small objects (a model's
    feature tables, symbols and vocabularies) and no cycle of garbage, and each collection walks
    every object made so far, the more the more is loaded: ``maltpy parse --jobs 1`` of en_lines
    test took 4.48 s against 4.92 with configs/blends/ud-fast.yaml's four members, 2.10 against
    2.22 with one ud-lexical model (whole processes on one core, medians of 5 paired runs)."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def load_model(path: str | os.PathLike, max_degree: int | None = None, enforce_tree: bool | None = None,
               single_root: str | None = None, team: tuple[int, int] | None = None,
               tagging: str | None = None) -> Parser:  # fmt: skip
    """A model made by ``maltpy learn`` (or ``Model.save``), a blend made by ``maltpy blend``, or
    MaltParser's model file (.mco) (``load``), set to parse as the command line's flags say: its
    covnonproj degree bounded at ``max_degree`` (``-cd``), its enforce_tree set (``-nt``), its
    single_root (``-gsr``) and its tagging mode (``--tag``: ``Parser.set_tagging``) if given; of
    a blend, in a team of workers (``team``: this one's place and the team's size), the share of
    the members this worker parses with (``blend.read_blend``)."""
    model = load(path, team=team)
    if tagging is not None:
        try:
            model.set_tagging(tagging)
        except MaltpyError as e:
            raise MaltpyError(f"--tag: {e.message}", "command line") from None
    if max_degree is not None:
        try:
            model.bound_degree(max_degree)
        except MaltpyError as e:
            raise MaltpyError(f"-cd: {e.message}", "command line") from None
    if enforce_tree is not None:
        try:
            model.set_enforce_tree(enforce_tree)
        except MaltpyError as e:
            raise MaltpyError(e.message, "command line") from None
    if single_root is not None:
        model.set_single_root(single_root)
    return model


def load_tokenizer(path: str | os.PathLike):
    """The tokenizer learned with the model at ``path`` (maltpy.tokenizing), read alone where the
    archive holds it (the main process of ``parse -if text --jobs`` tokenizes; its workers parse),
    else from the whole model (a blend whose taggers are its first member's); a MaltpyError if the
    model has none."""
    from .tokenizing.reader import NO_TOKENIZER

    if is_mco(os.fspath(path)):
        raise MaltpyError(NO_TOKENIZER.replace("the model has", "MaltParser's model (.mco) has"), os.fspath(path))
    with open_archive(path) as archive:
        tokenizer = checked_tokenizer(archive)
        whole = TAGGERS not in archive.manifest and "blend" in archive.manifest
    if whole:
        taggers = load(path).taggers
        tokenizer = taggers.tokenizer if taggers is not None else None
    if tokenizer is None:
        raise MaltpyError(NO_TOKENIZER, os.fspath(path))
    return tokenizer
