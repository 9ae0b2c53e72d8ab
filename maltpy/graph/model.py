"""A graph-based parser (``-a mst``): its parsing and its archive (learning: learn.py).

Parsing a sentence scores every arc and every label with the averaged weights (features.py), takes
each arc's best label (§7.1), and finds the best tree (tree.py; McDonald, Crammer & Pereira 2007): first
order, the tree of the best arcs by Eisner's algorithm (``mst.decode_type: proj``, §3.1) or
Chu-Liu-Edmonds (``non-proj``, §3.2); second order, the best projective tree of arcs and sibling
parts (§4.1), from which the non-projective search moves one word at a time (§4.2). With
graph.single_root, the decoders find the best tree with one word on the root, exactly. Labels
are the best labels of the tree's arcs; where that is MSTParser's ``<no-type>`` (it scores 0, so
only when every label scores below 0), the best label of the treebank's instead.

The archive holds, beside the manifest's configuration and statistics, the features' keys and
averaged weights (``graph/weights.npz``: features whose weight is 0 are left out, as a key not in
the alphabet scores 0), the labels and the version of the templates.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np

from ..config import ENFORCE_TREE, MAX_DEGREE, USED_BY, Config, unused_option
from ..data.conll import ConllReader, Sentence, valid_label
from ..data.tree import RootLabels
from ..data.vocabulary import Tally, Vocabulary
from ..errors import MaltpyError, counted, cut, require
from ..models.archive import Archive, npz_bytes, write_archive
from ..models.base import Parser
from ..models.parts import VOCABULARY, add_taggers, checked_common, checked_taggers, common_manifest
from ..models.tags import describe_taggers, describe_tokenizer
from .features import (
    NO_TYPE,
    TEMPLATES_VERSION,
    Alphabet,
    Atoms,
    check_work,
    encode,
    scores_of,
)
from .tree import Labels, best_tree, labelled_arcs

WEIGHTS = "graph/weights.npz"
MAX_LABELS = 100_000
#: The largest weight (in magnitude) an archive may hold: MIRA's averaged weights are small numbers
#: (1,000 sentences of en_lines, 5 passes: below 0.24), and any sum of fewer than 2^62 weights below
#: this one stays finite, as the decoders need every score to be.
MAX_WEIGHT = 1e100


class GraphModel(Parser):
    """A trained graph-based parser: configuration, labels, the features' keys and weights."""

    by_tokens = False

    def __init__(self, config: Config, alphabet: Alphabet, weights: np.ndarray, labels: Labels, data_format: str,
                 statistics: dict, roots: RootLabels | None, vocabulary: Vocabulary | None) -> None:  # fmt: skip
        self._trained(config, data_format, statistics, roots, vocabulary)
        self.alphabet = alphabet
        self.weights = weights
        self.labels = labels
        self._atoms = Atoms()
        self._input = "Model.parse"  # what ``parse`` reads, for an error at a sentence's line

    @property
    def single_root(self) -> str:
        return self.config.graph.single_root

    def set_single_root(self, setting: str) -> None:
        """Parse with graph.single_root ``setting`` instead of the model's (``maltpy parse -gsr``)."""
        import dataclasses

        if setting not in ("auto", "true", "false"):
            raise MaltpyError(f"single_root is auto, true or false, not {cut(repr(setting), 40)}",
                              "GraphModel.set_single_root")  # fmt: skip
        graph = dataclasses.replace(self.config.graph, single_root=setting)
        self.config = dataclasses.replace(self.config, graph=graph)

    def set_enforce_tree(self, on: bool) -> None:
        """Arc-eager's enforce_tree (``maltpy parse -nt``), which a graph-based model would
        ignore: refused set to true, as learning refuses it."""
        unused = unused_option(ENFORCE_TREE, on, self.config.singlemalt.parsing_algorithm)
        if unused is not None:
            raise MaltpyError(unused, "GraphModel.set_enforce_tree")

    def bound_degree(self, max_degree: int | None) -> None:
        """``maltpy parse -cd``, which a graph-based model does not take."""
        bounded = ", ".join(USED_BY[MAX_DEGREE])
        raise MaltpyError(f"bounds {bounded} only; this model is mst", "GraphModel.bound_degree")

    def write_ignored(self, sentence: Sentence) -> None:
        """Nothing: a graph-based model writes every column as it is given (a blend asks)."""

    def parse(self, sentences: Iterable[Any], *args: Any, **kwargs: Any) -> Iterator[Any]:
        """Parser.parse; a sentence too large to score (features.check_work) is an error at its
        line in the input (``Model.parse`` if it is no ConllReader)."""
        self._input = sentences.name if isinstance(sentences, ConllReader) else "Model.parse"
        return super().parse(sentences, *args, **kwargs)

    def _check_format(self, reader: ConllReader) -> None:
        """Nothing to check: the features read FORM, LEMMA, the two tag columns and FEATS, which
        CoNLL-X and CoNLL-U have alike. The reader's name is kept, for an error at a sentence's
        line (a blend's member is told of its input here alone)."""
        self._input = reader.name

    def _parse_batch(self, batch: list[Sentence], progress, watch: Callable[[Tally], None] | None) -> list[Sentence]:
        for sentence, (heads, labels) in zip(batch, self.arcs(batch, watch)):
            sentence.set_arcs(heads, labels)
        if progress:
            progress(sum(len(s) for s in batch))
        return batch

    def arcs(self, batch: list[Sentence],
             watch: Callable[[Tally], None] | None = None) -> list[tuple[list[int], list[str]]]:  # fmt: skip
        """Each sentence's parse, heads and labels indexed from 1 (see the module's note)."""
        mst, names = self.config.mst, self.labels.names
        out = []
        for sentence, view in zip(batch, self.views(batch, watch)):
            rooted = self._single_root(sentence)
            encoded = encode(view, self._atoms)
            check_work(encoded, len(names), mst.order, self._input, sentence.line)
            arcs, sides = scores_of(encoded, self.labels.atoms, self.alphabet, self.weights)
            heads, numbers, arc_scores, best = best_tree(encoded, arcs, sides, self.weights, self.alphabet, mst.order,
                                                         mst.decode_type == "proj", rooted)  # fmt: skip
            labels = [""] + [names[k] for k in numbers[1:].tolist()]
            if NO_TYPE in labels[1:]:
                real = labelled_arcs(np.zeros_like(arc_scores), sides[:, 1:])[1] + 1
                labels = [""] + [names[int(real[heads[c], c])] if labels[c] == NO_TYPE else labels[c]
                                 for c in range(1, len(labels))]  # fmt: skip
            out.append(self._finished([-1] + heads[1:].tolist(), labels, view, rooted))
        return out

    def summary(self) -> str:
        """What was learned, in a few words (``maltpy learn`` says it)."""
        mst, s = self.config.mst, self.statistics
        return (f"mst (order {mst.order}, {mst.decode_type}) from {counted(s['sentences'], 'sentence')} "
                f"({counted(s['features'], 'feature')}, {counted(mst.iters, 'pass', 'passes')})")  # fmt: skip

    def describe(self) -> dict:
        """What ``maltpy info`` shows."""
        return {
            "algorithm": self.config.singlemalt.parsing_algorithm,
            "mst": dict(self.config.to_dict()["mst"]),
            "data_format": self.data_format,
            "labels": sorted(self.labels.names[1:]),
            "features": len(self.alphabet),  # those with a weight; statistics: those of the gold trees
            "roots": self.roots.as_json(),
            "vocabulary": None if self.vocabulary is None else self.vocabulary.describe(),
            "roots_learned": self.roots_learned,
            "taggers": describe_taggers(self.taggers),
            "tokenizer": describe_tokenizer(self.taggers),
            "training": self.statistics,
        }

    # --- the archive -------------------------------------------------------------------------------

    def _archive(self) -> tuple[dict, dict]:
        kept = self.weights != 0
        files = {WEIGHTS: npz_bytes(keys=self.alphabet.keys[kept], weights=self.weights[kept])}
        manifest, vocabulary = common_manifest(self.config, self.data_format, self.roots, self.statistics,
                                               self.vocabulary)  # fmt: skip
        if vocabulary is not None:
            files[VOCABULARY] = vocabulary
        manifest["graph"] = {"templates": TEMPLATES_VERSION, "labels": self.labels.names, "weights": WEIGHTS}
        add_taggers(manifest, files, self.taggers)
        return manifest, files

    def save(self, path: str | os.PathLike) -> None:
        """Write the model archive to ``path`` (whole or not at all)."""
        write_archive(os.fspath(path), *self._archive())

    def to_bytes(self) -> bytes:
        return write_archive(None, *self._archive())


def read_graph_model(archive: Archive) -> GraphModel:
    """The graph-based model in ``archive``, every part checked before use."""
    try:
        return _checked(archive)
    except ValueError as e:
        raise MaltpyError(f"damaged model: {cut(e)}", archive.path) from None
    except (KeyError, TypeError, IndexError, AttributeError, RecursionError) as e:
        raise MaltpyError(f"damaged model: {type(e).__name__}: {cut(e)}", archive.path) from None


def _checked(archive: Archive) -> GraphModel:
    common = checked_common(archive, archive.path)
    config = common.config
    require(config.singlemalt.parsing_algorithm == "mst", "a graph-based model of a transition system")
    graph = archive.manifest["graph"]
    require(isinstance(graph, dict) and graph.get("weights") == WEIGHTS, "no weights")
    require(type(graph.get("templates")) is int and graph["templates"] == TEMPLATES_VERSION,
            f"features of another version of maltpy's templates ({cut(repr(graph.get('templates')), 20)}, "
            f"this maltpy's: {TEMPLATES_VERSION}): learn the model again")  # fmt: skip
    names = graph.get("labels")
    require(isinstance(names, list) and 1 < len(names) <= MAX_LABELS and names[0] == NO_TYPE
            and all(isinstance(x, str) and valid_label(x) for x in names) and len(set(names)) == len(names),
            "labels that are not labels")  # fmt: skip
    arrays = archive.arrays(WEIGHTS, ("keys", "weights"))
    keys, weights = arrays["keys"], arrays["weights"]
    require(keys.dtype == np.uint64 and keys.ndim == 1 and weights.dtype == np.float64 and weights.shape == keys.shape,
            "weights that do not fit their features")  # fmt: skip
    require(bool((np.abs(weights) <= MAX_WEIGHT).all()), f"weights that are not numbers below {MAX_WEIGHT:g}")
    alphabet = Alphabet(keys)  # ValueError unless sorted, distinct, nonzero and not too many
    require(type(common.statistics.get("features", 0)) is int, "training statistics whose features are no count")
    model = GraphModel(config, alphabet, weights, Labels(names), common.data_format, common.statistics,
                       common.roots, common.vocabulary)  # fmt: skip
    model.taggers = checked_taggers(archive)
    return model
