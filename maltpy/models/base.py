"""What every kind of parser shares (a transition ``Model``, a ``graph.model.GraphModel``, a
``blend.Blend``): the ways into parsing (``parse``, ``parse_conll``, ``parse_tokens``,
``parse_file``), batching, the watch on values training never saw, and what a trained parser
keeps. A kind defines how it checks an input's format and parses one batch; ``maltpy.load``,
above the kinds, reads a saved parser of any of them.
"""

from __future__ import annotations

import collections
import io
import os
import threading
import weakref
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from ..config import Config
from ..data.conll import QUIET_SECONDS, UPOS, ConllReader, Sentence, format_sentence
from ..data.pseudoproj import deprojectivize
from ..data.sentences import as_sentence
from ..data.tree import UD_ROOT_LABELS, RootLabels, single_root
from ..data.vocabulary import Tally, Vocabulary, Watch, python_warning
from ..errors import MaltpyError, cut
from ..files import atomic_output, check_output_path
from .tags import check_tagged, needed_columns

if TYPE_CHECKING:
    from ..tagging import Taggers

BATCH_SENTENCES = 1000  # a batch of the per-sentence path
BATCH_TOKENS = 100_000  # a batch of the arrays path (batch.py): the bigger, the fewer steps with few rows
_TURNS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # each parser's lock (_parse_in_turn)
_TURNS_MADE = threading.Lock()


def one_root_for(setting: str, *formats: str) -> bool:
    """Whether a parse gets one root under graph.single_root ``setting``: true; or auto, if one of
    ``formats`` (the sentence's, the training treebank's) is CoNLL-U, so that CoNLL-U text that
    looks like CoNLL-X, without comments or multiword tokens, is treated as what the model knows."""
    return setting == "true" or (setting == "auto" and "conllu" in formats)


class Parser:
    """What parses sentences: a transition ``models.parser.Model``, a ``graph.model.GraphModel``,
    or a ``blend.Blend`` of models. The ways into parsing (``parse`` and those built on it) are
    defined here once; a parser defines how it checks an input's format (``_check_format``) and
    parses one batch (``_parse_batch``)."""

    data_format: str
    vocabulary: Vocabulary | None
    single_root: str  # graph.single_root: auto, true or false
    #: whether batches are cut by tokens (the arrays form's batches) or by sentences
    by_tokens: bool = True
    #: whether ``bound_degree`` bounds its parses' degree of non-projectivity (Covington's systems)
    bounds_degree: bool = False
    #: the taggers learned with it (maltpy.tagging), which fill the input's empty tag columns
    #: before it parses, as ``tagging`` says (``set_tagging``); None: it has none
    taggers: Taggers | None = None
    tagging: str = "missing"
    #: of a parser without a vocabulary (a MaltParser model), its training treebank's values of
    #: the tag columns its features read, if known (``tags.training_values``)
    tag_values: dict[int, frozenset[str]] | None = None

    # --- parsing ---------------------------------------------------------------------------------

    def parse(self, sentences: Iterable[Any], batch_size: int | None = None,
              progress: Callable[[int], None] | None = None, batch_tokens: int = BATCH_TOKENS,
              watch: Callable[[Tally], None] | None | str = "warnings") -> Iterator[Any]:  # fmt: skip
        """Parse the sentences, yielding each parse in input order as the kind it was given:
        maltpy's ``Sentence`` (HEAD and DEPREL replaced in place), a ``conllu.TokenList`` (a copy
        with head and deprel set) or a list of tokens (a form or a mapping; a list of dicts with
        "head" and "deprel" set); see ``maltpy.data.sentences``.

        Sentences are parsed in batches of ``batch_size`` sentences or, by default, of
        ``batch_tokens`` tokens; a batch is parsed as a whole, so a generator in the input is
        read a batch ahead. A batch is also closed early when ``sentences`` (a ConllReader on a
        pipe) has no more input ready within QUIET_SECONDS, so that a writer waiting for its
        parses gets them (a writer that is merely slower than the parser does not cut the
        batches short).

        Each batch's values that training never saw are counted (``vocabulary.Tally``) and given
        to ``watch``: by default a ``vocabulary.Watch`` that gives a ``MaltpyWarning`` (Python's
        ``warnings``) for each column whose share of them is far above what the training
        treebank's held-out text shows (``self.watch(warn)`` makes one with another ``warn``);
        None counts nothing."""
        if isinstance(sentences, (str, bytes)):
            raise TypeError("parse takes an iterable of sentences (CoNLL text: parse_conll; a file: parse_file)")
        if batch_size is not None and (type(batch_size) is not int or batch_size < 1):
            raise MaltpyError(f"batch_size is a number of sentences, at least 1, not {cut(repr(batch_size), 40)}",
                              "Model.parse")  # fmt: skip
        if watch == "warnings":
            watch = self.watch(python_warning(sentences.name if isinstance(sentences, ConllReader) else None))
        if isinstance(sentences, ConllReader):
            self._check_format(sentences)
            yield from self._parse_sentences(sentences, batch_size, progress, batch_tokens, watch, sentences.name)
            return
        backs: collections.deque = collections.deque()

        def plain() -> Iterator[Sentence]:
            for number, item in enumerate(sentences, 1):
                sentence, back = as_sentence(item, number, self.data_format)
                backs.append(back)
                yield sentence

        for parsed in self._parse_sentences(plain(), batch_size, progress, batch_tokens, watch, "Model.parse"):
            yield backs.popleft()(parsed)

    def watch(self, warn: Callable[[str], None]) -> Callable[[Tally], None] | None:
        """What ``parse`` gives each batch's tally to, to ``warn`` once a column of the input holds
        far more values training never saw than held-out text does (None for a model made before
        its vocabulary was kept)."""
        if self.vocabulary is None:
            return None
        return Watch(self.vocabulary.expected(), warn).add

    def _parse_sentences(self, sentences: Iterable[Sentence], batch_size: int | None, progress, batch_tokens: int,
                         watch: Callable[[Tally], None] | None, where: str) -> Iterator[Sentence]:  # fmt: skip
        batch: list[Sentence] = []
        tokens = 0
        pending = getattr(sentences, "pending", None)
        arrays = self.by_tokens
        for sentence in sentences:
            batch.append(sentence)
            tokens += len(sentence)
            if batch_size is not None:
                full = len(batch) >= batch_size
            else:
                full = tokens >= batch_tokens if arrays else len(batch) >= BATCH_SENTENCES
            if full or (pending is not None and not pending(QUIET_SECONDS)):
                yield from self._parse_in_turn(batch, progress, watch, where)
                batch = []
                tokens = 0
        if batch:
            yield from self._parse_in_turn(batch, progress, watch, where)

    def _parse_in_turn(self, batch: list[Sentence], progress, watch: Callable[[Tally], None] | None,
                       where: str) -> list[Sentence]:  # fmt: skip
        """``_parse_batch`` of the batch tagged (``tag``; ``where`` names the input in an error),
        by one thread at a time: a parser keeps the state of the batch it parses (the arrays
        form's configurations, batch.py), so threads that share it (Dask's threaded scheduler, a
        Dask worker of several threads, a thread pool) take turns, a batch each. Processes, each
        with its own parser, parse at once."""
        with _TURNS_MADE:
            turn = _TURNS.setdefault(self, threading.Lock())
        with turn:
            self.tag(batch, where)
            return self._parse_batch(batch, progress, watch)

    def set_tagging(self, mode: str) -> None:
        """Tag the input before parsing as ``mode`` says (``maltpy parse --tag``): "missing" (the
        default), each column its taggers predict that is empty (all _) in a sentence; "always",
        every column they predict, whatever the input holds; "never", none."""
        from ..tagging import MODES

        if mode not in MODES:
            raise MaltpyError(f"tagging is one of {', '.join(MODES)}, not {cut(repr(mode), 40)}", "Model.set_tagging")
        self.tagging = mode

    def tag(self, batch: list[Sentence], where: str = "Model.tag") -> list[Sentence]:
        """The sentences of ``batch`` (of the input ``where``), their tag columns filled in place by
        the taggers as ``tagging`` says, then checked (``tags.check_tagged``): a MaltpyError at a
        sentence left with a tag column empty that the parser reads and training never had empty."""
        if self.taggers is not None and self.tagging != "never":
            self.taggers.tag(batch, self.tagging)
        values = self.tag_values
        if self.vocabulary is not None:
            values = {column: known.values for column, known in self.vocabulary.columns.items()}
        if not needed_columns(values, self.taggers, self.tagging):
            return batch  # nothing to check (a model whose taggers fill what it reads): no views made
        read = batch
        if self.vocabulary is not None:  # the sentences as the model reads them (one tag column for both: view)
            read = [self.vocabulary.view(s) for s in batch]
        check_tagged(read, values, self.taggers, self.tagging, where)
        return batch

    def _trained(self, config: Config, data_format: str, statistics: dict, roots: RootLabels | None,
                 vocabulary: Vocabulary | None) -> None:  # fmt: skip
        """Keep what every trained parser has: its configuration, the training treebank's format
        and statistics, the labels of its root words (graph.single_root; UD's for a model without)
        and the values of the columns its features read (None in a model made before they were
        kept: how parsing tells input unlike them, see ``vocabulary``)."""
        self.config = config
        self.data_format = data_format
        self.statistics = statistics
        self.root_label = config.graph.root_label
        self.roots = roots or UD_ROOT_LABELS
        self.roots_learned = roots is not None
        self.vocabulary = vocabulary

    def _finished(self, heads: list[int], labels: list[str], view: Sentence,
                  rooted: bool) -> tuple[list[int], list[str]]:  # fmt: skip
        """A parse as the user gets it: deprojectivized with pseudo-projective parsing, with one
        word on the root if ``rooted`` (the sentence ``view``'s tags choose the labels)."""
        if self.config.pproj.active:
            heads, labels = deprojectivize(heads, labels, self.config.pproj)
        if rooted:
            heads, labels = single_root(heads, labels, self.roots, self.root_label, [""] + view.column(UPOS))
        return heads, labels

    def _check_format(self, reader: ConllReader) -> None:
        raise NotImplementedError

    def _single_root(self, sentence: Sentence) -> bool:
        """Whether the parse of ``sentence`` gets one root (``one_root_for`` of the parser's
        graph.single_root setting, ``single_root``, the sentence's format and the training
        treebank's)."""
        return one_root_for(self.single_root, sentence.format, self.data_format)

    def _parse_batch(self, batch: list[Sentence], progress, watch: Callable[[Tally], None] | None) -> list[Sentence]:
        raise NotImplementedError

    def views(self, batch: list[Sentence], watch: Callable[[Tally], None] | None = None) -> list[Sentence]:
        """Each sentence as the parser reads it: its tag columns as in training (vocabulary.view);
        ``watch`` is given the batch's tally of values training never saw."""
        if self.vocabulary is None:
            return batch
        views = [self.vocabulary.view(s) for s in batch]
        if watch is not None:
            watch(self.vocabulary.tally(views))
        return views

    def parse_conll(self, text: str, format: str = "auto") -> str:
        """Parse CoNLL-X or CoNLL-U text; the same text back with HEAD and DEPREL filled in."""
        if not isinstance(text, str):
            raise TypeError(f"parse_conll takes CoNLL text (a str), not {type(text).__name__}")
        reader = ConllReader(io.BytesIO(text.encode("utf-8")), "<text>", format, blind=True)
        return "".join(format_sentence(s) for s in self.parse(reader))

    def parse_text(self, text: str) -> str:
        """Parse raw text (paragraphs separated by empty lines) with the model's tokenizer and
        taggers: CoNLL-U, as ``maltpy parse -if text`` writes it."""
        return "".join(format_sentence(s) for s in self.parse(self.text_reader(text, "Model.parse_text")))

    def tokenize(self, text: str) -> str:
        """Raw text's sentences and tokens by the model's tokenizer, untagged and unparsed:
        CoNLL-U, as ``maltpy tokenize`` writes it."""
        return "".join(format_sentence(s) for s in self.text_reader(text, "Model.tokenize"))

    def text_reader(self, text: str, where: str):
        """A tokenizing.TextReader of ``text`` with the model's tokenizer."""
        from ..tokenizing.reader import TextReader, tokenizer_of

        if not isinstance(text, str):
            raise TypeError(f"{where} takes raw text (a str), not {type(text).__name__}")
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError as e:  # a lone surrogate: no character of any text
            line = text.count("\n", 0, e.start) + 1
            column = e.start - text.rfind("\n", 0, e.start)
            raise MaltpyError(f"not Unicode text: a lone surrogate U+{ord(text[e.start]):04X} at column {column}",
                              "<text>", line) from None  # fmt: skip
        return TextReader(io.BytesIO(data), "<text>", tokenizer_of(self, where))

    def parse_tokens(self, sentences: Iterable[list]) -> list[list[tuple[int, str]]]:
        """Parse sentences given as lists of tokens (see ``parse``); for each sentence, each
        token's (head, label)."""
        if isinstance(sentences, (str, bytes)):
            raise TypeError("parse_tokens takes a list of sentences, each a list of tokens, not a string")
        return [[(t["head"], t["deprel"]) for t in parsed] for parsed in self.parse(list(sentences))]

    def parse_file(self, input: str | os.PathLike, output: str | os.PathLike, format: str = "auto") -> None:
        """Parse the CoNLL file ``input`` into ``output`` (written whole or not at all), as
        ``maltpy parse -i INPUT -o OUTPUT`` does."""
        from ..tokenizing.reader import open_reader, tokenizer_of

        input, output = os.fspath(input), os.fspath(output)
        check_output_path(output, (input,))
        tokenizer = lambda: tokenizer_of(self, "Model.parse_file")  # noqa: E731
        with open_reader(input, format, tokenizer) as reader, atomic_output(output) as out:
            for sentence in self.parse(reader):
                out.write(format_sentence(sentence).encode("utf-8"))
