"""NLTK's MaltParser interface, ``nltk.parse.malt.MaltParser``, on maltpy: no Java, no jar to
find, no temporary files, no process per call. Needs ``pip install 'maltpy[nltk]'``.

    from maltpy.nltk import MaltParser
    mp = MaltParser(model_filename="en.mpm")              # a maltpy model (or a maltpy.Model)
    mp.parse_one("I shot an elephant in my pajamas .".split()).tree()
    mp.parse_tagged_sents([[("John", "NNP"), ("walks", "VBZ"), (".", ".")]])
    mp = MaltParser(learner="libsvm")                      # untrained; maltpy.learn's options
    mp.train(depgraphs)                                    # or mp.train_from_file("train.conll")

The calls, their arguments and their results are NLTK's: ``parse_sents`` and
``parse_tagged_sents`` give, for each sentence, an iterator over one ``DependencyGraph``; the
words of ``parse_sents`` are tagged by the tagger given, by default the regular-expression tagger
NLTK's wrapper uses (``nltk.parse.malt.malt_regex_tagger``), and the tag fills both CPOSTAG and
POSTAG, as NLTK's wrapper writes them. ``parser_dirname`` and ``additional_java_args`` are
accepted and unused. One difference: NLTK reads MaltParser's output with the root relation
``top_relation_label`` ("null" by default), which no trained model gives, so its graphs have no
root and ``tree()`` fails; here a graph's root relation is the label the parser gave the root's
dependent, unless that is ``top_relation_label``.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterable, Iterator

from nltk.parse.api import ParserI
from nltk.parse.dependencygraph import DependencyGraph
from nltk.parse.malt import malt_regex_tagger

from .api import learn
from .conll import ConllReader
from .errors import MaltpyError
from .parser import Model, load_model


class MaltParser(ParserI):
    """A dependency parser with the calls of ``nltk.parse.malt.MaltParser``."""

    def __init__(self, parser_dirname: str | Model = "", model_filename: str | os.PathLike | Model | None = None,
                 tagger=None, additional_java_args=None, config=None, **options) -> None:  # fmt: skip
        """``model_filename``: a maltpy model's path, or a Model (also taken as the first
        argument, where NLTK has MaltParser's folder). Without one, ``train`` makes the model
        (and saves it to ``model_filename`` if that names a file to be). ``config`` and
        ``options`` are ``maltpy.learn``'s, for ``train``."""
        if isinstance(parser_dirname, Model) or (model_filename is None and _is_model_file(parser_dirname)):
            model_filename = parser_dirname
        self.model_filename = model_filename
        self.model: Model | None = None
        if isinstance(model_filename, Model):
            self.model = model_filename
        elif model_filename is not None and os.path.exists(model_filename):
            self.model = load_model(os.fspath(model_filename))
        self.tagger = tagger if tagger is not None else malt_regex_tagger()
        self.additional_java_args = additional_java_args or []
        self._config, self._options = config, options

    @property
    def _trained(self) -> bool:
        return self.model is not None

    def parse_tagged_sents(self, sentences: Iterable[list[tuple[str, str]]], verbose: bool = False,
                           top_relation_label: str = "null") -> Iterator[Iterator[DependencyGraph]]:  # fmt: skip
        """Parse sentences of (word, tag) pairs; for each, an iterator over its DependencyGraph."""
        if self.model is None:
            raise MaltpyError("the parser has no model: give one (model_filename) or call train() first", "MaltParser")
        tokens = ([{"form": word, "upos": tag, "xpos": tag} for word, tag in sentence] for sentence in sentences)
        for parsed in self.model.parse(tokens):
            yield iter([_graph(parsed, top_relation_label)])

    def parse_sents(self, sentences: Iterable[list[str]], verbose: bool = False,
                    top_relation_label: str = "null") -> Iterator[Iterator[DependencyGraph]]:  # fmt: skip
        """Tag each sentence of words with the tagger, then parse it (parse_tagged_sents)."""
        tagged = (self.tagger(sentence) for sentence in sentences)
        return self.parse_tagged_sents(tagged, verbose, top_relation_label=top_relation_label)

    def train(self, depgraphs: Iterable[DependencyGraph], verbose: bool = False) -> None:
        """Learn the model from DependencyGraphs (their CoNLL-X text, as NLTK's wrapper writes it)."""
        text = "\n".join(graph.to_conll(10) for graph in depgraphs)
        self._learned(learn(ConllReader(io.BytesIO(text.encode("utf-8")), "<depgraphs>"), self._config,
                            **self._options))  # fmt: skip

    def train_from_file(self, conll_file: str | os.PathLike, verbose: bool = False) -> None:
        """Learn the model from a CoNLL-X or CoNLL-U file."""
        self._learned(learn(conll_file, self._config, **self._options))

    def _learned(self, model: Model) -> None:
        self.model = model
        if isinstance(self.model_filename, (str, os.PathLike)) and os.fspath(self.model_filename):
            model.save(self.model_filename)


def _is_model_file(path) -> bool:
    return isinstance(path, (str, os.PathLike)) and os.path.isfile(path)


def _graph(parsed: list[dict], top_relation_label: str) -> DependencyGraph:
    """The parse as NLTK's DependencyGraph, read from its CoNLL-X text as NLTK's wrapper reads
    MaltParser's output (see the module's note on the root relation)."""
    lines = [
        "\t".join((str(i), t["form"], "_", t["upos"], t["xpos"], "_", str(t["head"]), t["deprel"], "_", "_"))
        for i, t in enumerate(parsed, 1)
    ]
    roots = [t["deprel"] for t in parsed if t["head"] == 0]
    top = top_relation_label if top_relation_label in roots or not roots else roots[0]
    return DependencyGraph("\n".join(lines), top_relation_label=top, cell_separator="\t")
