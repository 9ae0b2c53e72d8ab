"""NLTK's MaltParser interface, ``nltk.parse.malt.MaltParser``, on maltpy: no Java, no jar to
find, no temporary files, no process per call. Needs ``pip install 'maltpy[nltk]'``.

    from maltpy.nltk import MaltParser
    mp = MaltParser(model_filename="en.mpm")              # a maltpy model (or a maltpy.Model)
    mp.parse_one("I shot an elephant in my pajamas .".split()).tree()
    mp.parse_tagged_sents([[("John", "NNP"), ("walks", "VBZ"), (".", ".")]])
    for graph in mp.raw_parse("She didn't go. It rained."):   # a model learned with its tokenizer
        print(graph.tree())
    mp = MaltParser(model_filename="en.mpm", tagger=nltk.pos_tag)    # Penn Treebank tags, a UPOS model
    mp = MaltParser(learner="libsvm")                      # untrained; maltpy.learn's options
    mp.train(depgraphs)                                    # or mp.train_from_file("train.conll")

The calls, their arguments and their results are NLTK's: ``parse_sents`` and
``parse_tagged_sents`` give, for each sentence, an iterator over one ``DependencyGraph``; the
words of ``parse_sents`` are tagged by the tagger given, by default the regular-expression tagger
NLTK's wrapper uses (``nltk.parse.malt.malt_regex_tagger``). ``parser_dirname`` and
``additional_java_args`` are accepted and unused.

Tags. NLTK's taggers (``nltk.pos_tag``, the regular-expression tagger) give Penn Treebank tags,
while a model learned from a Universal Dependencies treebank reads UPOS. So a word's tag fills
POSTAG (XPOS) as it is, and CPOSTAG (UPOS) with the UPOS that UD's English treebanks give a word
of that Penn Treebank tag (``upos_of``); a tag that is not Penn Treebank's (a tagger of the model's
own tagset) fills both, as NLTK's wrapper writes it. A model learned from NLTK's own graphs, with
the tag in both columns, reads the one whose tags it knows (``maltpy.data.vocabulary``).

One difference: NLTK reads MaltParser's output with the root relation
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
from .data.conll import ConllReader
from .data.sentences import field_text
from .errors import MaltpyError
from .load import load_model
from .models.base import Parser
from .models.parser import Model


class MaltParser(ParserI):
    """A dependency parser with the calls of ``nltk.parse.malt.MaltParser``."""

    def __init__(self, parser_dirname: str | Model = "", model_filename: str | os.PathLike | Model | None = None,
                 tagger=None, additional_java_args=None, config=None, **options) -> None:  # fmt: skip
        """``model_filename``: a maltpy model's path, or a Model (also taken as the first
        argument, where NLTK has MaltParser's folder). Without one, ``train`` makes the model
        (and saves it to ``model_filename`` if that names a file to be). ``config`` and
        ``options`` are ``maltpy.learn``'s, for ``train``."""
        if isinstance(parser_dirname, Parser) or (model_filename is None and _is_model_file(parser_dirname)):
            model_filename = parser_dirname
        self.model_filename = model_filename
        self.model: Model | None = None
        if isinstance(model_filename, Parser):
            self.model = model_filename
        elif model_filename is not None and os.path.exists(model_filename):
            self.model = load_model(os.fspath(model_filename))
        self.tagger = tagger if tagger is not None else malt_regex_tagger()
        self._tagger_given = tagger is not None
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
        tokens = ([{"form": word, "upos": upos, "xpos": tag} for (word, tag), upos in zip(s, upos_of(s))]
                  for s in map(list, sentences))  # fmt: skip
        for parsed in self.model.parse(tokens):
            yield iter([_graph(parsed, top_relation_label)])

    def parse_sents(self, sentences: Iterable[list[str]], verbose: bool = False,
                    top_relation_label: str = "null") -> Iterator[Iterator[DependencyGraph]]:  # fmt: skip
        """Tag each sentence of words with the tagger, then parse it (parse_tagged_sents); a model
        with taggers of its own (learned with it: maltpy.tagging) tags them itself, unless a
        tagger is given."""
        if self.model is not None and self.model.taggers is not None and not self._tagger_given:
            return self._parse_words(sentences, top_relation_label)
        tagged = (self.tagger(sentence) for sentence in sentences)
        return self.parse_tagged_sents(tagged, verbose, top_relation_label=top_relation_label)

    def _parse_words(
        self, sentences: Iterable[list[str]], top_relation_label: str
    ) -> Iterator[Iterator[DependencyGraph]]:
        """Sentences of words, tagged by the model's taggers and parsed."""
        for parsed in self.model.parse([{"form": word} for word in s] for s in map(list, sentences)):
            yield iter([_graph(parsed, top_relation_label)])

    def raw_parse(self, text: str, verbose: bool = False,
                  top_relation_label: str = "null") -> Iterator[DependencyGraph]:  # fmt: skip
        """Raw text (paragraphs separated by empty lines) split into sentences and tokens by the
        model's tokenizer, tagged by its taggers and parsed (``Model.parse_text``): a
        DependencyGraph of each sentence's words (a multiword token's words, ``didn't`` ->
        ``did n't``)."""
        if self.model is None:
            raise MaltpyError("the parser has no model: give one (model_filename) or call train() first", "MaltParser")
        for parsed in self.model.parse(self.model.text_reader(text, "MaltParser.raw_parse")):
            words = [dict(zip(_FIELDS, w[1:8])) for w in parsed.words]
            for word in words:
                word["head"] = int(word["head"])
            yield _graph(words, top_relation_label)

    def raw_parse_sents(self, texts: Iterable[str], verbose: bool = False,
                        top_relation_label: str = "null") -> Iterator[Iterator[DependencyGraph]]:  # fmt: skip
        """``raw_parse`` of each text: for each, an iterator over its sentences' DependencyGraphs."""
        for text in texts:
            yield self.raw_parse(text, verbose, top_relation_label)

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


#: The UPOS of each Penn Treebank tag (Santorini 1990; with the tags of OntoNotes and the English
#: Web Treebank: HYPH, NFP, ADD, AFX, GW, XX), as UD's English treebanks map them; upos_of
#: decides the words the tag alone does not.
PENN_UPOS = {
    "CC": "CCONJ", "CD": "NUM", "DT": "DET", "EX": "PRON", "FW": "X", "IN": "ADP", "JJ": "ADJ", "JJR": "ADJ",
    "JJS": "ADJ", "LS": "X", "MD": "AUX", "NN": "NOUN", "NNS": "NOUN", "NNP": "PROPN", "NNPS": "PROPN",
    "PDT": "DET", "POS": "PART", "PRP": "PRON", "PRP$": "PRON", "RB": "ADV", "RBR": "ADV", "RBS": "ADV",
    "RP": "ADP", "SYM": "SYM", "TO": "PART", "UH": "INTJ", "VB": "VERB", "VBD": "VERB", "VBG": "VERB",
    "VBN": "VERB", "VBP": "VERB", "VBZ": "VERB", "WDT": "PRON", "WP": "PRON", "WP$": "PRON", "WRB": "ADV",
    ".": "PUNCT", ",": "PUNCT", ":": "PUNCT", "``": "PUNCT", "''": "PUNCT", '"': "PUNCT", "-LRB-": "PUNCT",
    "-RRB-": "PUNCT", "(": "PUNCT", ")": "PUNCT", "HYPH": "PUNCT", "NFP": "PUNCT", "$": "SYM", "#": "SYM",
    "ADD": "X", "AFX": "ADJ", "GW": "X", "XX": "X",
}  # fmt: skip
_SUBORDINATORS = {"because", "if", "that", "whether", "although", "though", "while", "unless", "whereas", "once"}
_NEGATIONS = {"not", "n't"}
_BE = {"be", "am", "is", "are", "was", "were", "been", "being", "'s", "'re", "'m", "ai"}
_HAVE_DO = {"have", "has", "had", "having", "'ve", "'d", "do", "does", "did"}


def upos_of(tagged: list[tuple[str, str]]) -> list[str]:
    """The UPOS of each (word, tag) of a sentence: PENN_UPOS's for a Penn Treebank tag, with UD
    English's choices where the word decides (a subordinating IN is SCONJ, "not" is PART, every
    form of "be" is AUX, and a form of "have" or "do" before its verb, adverbs between, is AUX);
    a tag of another tagset is its own UPOS."""
    out = []
    for i, (word, tag) in enumerate(tagged):
        upos, lower = PENN_UPOS.get(tag, tag), word.lower()
        if tag == "IN" and lower in _SUBORDINATORS:
            upos = "SCONJ"
        elif tag == "RB" and lower in _NEGATIONS:
            upos = "PART"
        elif tag.startswith("VB") and lower in _BE:
            upos = "AUX"
        elif tag.startswith("VB") and lower in _HAVE_DO:
            after = [t for _, t in tagged[i + 1 : i + 4]]
            verb = next((t for t in after if not t.startswith(("RB", "PRP"))), "")
            upos = "AUX" if verb in ("VB", "VBN", "VBG", "VBD") else "VERB"
        out.append(upos)
    return out


_FIELDS = ("form", "lemma", "upos", "xpos", "feats", "head", "deprel")  # a CoNLL word's fields 2 to 8


def _is_model_file(path) -> bool:
    return isinstance(path, (str, os.PathLike)) and os.path.isfile(path)


def _graph(parsed: list[dict], top_relation_label: str) -> DependencyGraph:
    """The parse as NLTK's DependencyGraph, read from its CoNLL-X text as NLTK's wrapper reads
    MaltParser's output (see the module's note on the root relation)."""
    lines = [
        "\t".join(
            (
                str(i),
                t["form"],
                *(field_text(t.get(key)) for key in ("lemma", "upos", "xpos", "feats")),
                str(t["head"]),
                t["deprel"],
                "_",
                "_",
            )
        )
        for i, t in enumerate(parsed, 1)
    ]
    roots = [t["deprel"] for t in parsed if t["head"] == 0]
    top = top_relation_label if top_relation_label in roots or not roots else roots[0]
    return DependencyGraph("\n".join(lines), top_relation_label=top, cell_separator="\t")
