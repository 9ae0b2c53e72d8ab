"""Learning mode and parsing mode (Nivre et al. 2007, §2; Nivre 2008, §6.1).

Learning replays each gold tree through the algorithm's oracle; every configuration where the
oracle, not a deterministic rule, decides becomes an instance: the feature model's values and
the transition with its label as one class (MaltParser's ``T.TRANS+A.DEPREL``, written
``RA~nsubj``). Classifiers are trained on the instances in that order.

Parsing moves a batch of sentences in lock step: at each step every unfinished sentence gives
one instance, the classifiers answer the whole batch in one call each, and every sentence
takes its best allowed transition. As in MaltParser, the classes are ranked by score (ties to
the class learned first), the lowest-ranked class is never tried, and when no ranked class is
allowed the algorithm's default move is made. Words left without a head go to the root.

With pseudo-projective parsing (``pproj``, Nivre & Nilsson 2005), learning projectivizes each
gold tree first and learns its marked labels as classes (``RA~obj|nsubj%``), while DEPREL
features see the plain labels; parsing deprojectivizes each parsed tree by its labels' marks.

A right-to-left model (``singlemalt.parsing_direction``, Hall et al. 2007) learns and parses each
sentence reversed, and a model that reads the root last (``singlemalt.root_position``) with a word
standing for it after the last word (``direction.Reading``); parsing maps each tree back first.
"""

from __future__ import annotations

import collections
import dataclasses
import io
import os
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

import numpy as np

from ..config import ENFORCE_TREE, MAX_DEGREE, USED_BY, Config, reads, unused_option
from ..data.columns import WIDTH
from ..data.conll import (
    CPOSTAG,
    FEATS,
    FORM,
    LEMMA,
    POSTAG,
    QUIET_SECONDS,
    UPOS,
    ConllReader,
    Sentence,
    format_sentence,
)
from ..data.direction import Reading
from ..data.pseudoproj import DeprelOf, Encoding, check_unmarked, deprojectivize, projectivize
from ..data.sentences import as_sentence
from ..data.tree import UD_ROOT_LABELS, RootCounts, RootLabels, is_projective, single_root
from ..data.vocabulary import Tally, Vocabulary, VocabularyCounter, Watch, python_warning
from ..errors import MaltpyError, counted, cut
from ..features import FeatureModel, load_feature_model
from ..features.spec import FORMAT_NAMES
from ..files import atomic_output, check_output_path, read_conll
from ..graph import is_graph_based
from ..learners import LEARNERS, AtomicModel
from ..learners.divide import Guide, classifier_groups, data_split, guide_of, train_guide
from ..learners.encoding import Instances
from ..learners.options import CLASS_WEIGHTS
from ..learners.timbl_columns import write_instance_files
from ..transition import TransitionSystem, system_for
from ..transition.base import LA, RA, Gold, finish, replay_oracle
from .archive import Archive
from .batch import BatchLearner, BatchParser, covered, ranked
from .parts import Classes, ModelParts, open_archive, read_model, write_model

BATCH_SENTENCES = 1000  # a batch of the per-sentence path
LEARN_CHUNK_TOKENS = 100_000  # gold trees replayed at a time in arrays when learning
#: a longer gold tree is replayed configuration by configuration: in arrays it would take most of
#: its steps alone, each costing as much as a step of the whole chunk
LEARN_ALONE_TOKENS = 200
BATCH_TOKENS = 100_000  # a batch of the arrays path (batch.py): the bigger, the fewer steps with few rows
NARROW_ROWS = 16  # fewer unfinished sentences than this parse on one by one (scripts/bench_long_sentences.py)
_TURNS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # each parser's lock (_parse_in_turn)
_TURNS_MADE = threading.Lock()


def columns_of(sentence: Sentence) -> list[list]:
    """``columns[k][i]``: column k of word i; index 0 stands for the root, whose columns are never read."""
    words = sentence.words
    return [[None] + [w[k] for w in words] for k in range(WIDTH)]


def one_root_for(setting: str, *formats: str) -> bool:
    """Whether a parse gets one root under graph.single_root ``setting``: true; or auto, if one of
    ``formats`` (the sentence's, the training treebank's) is CoNLL-U, so that CoNLL-U text that
    looks like CoNLL-X, without comments or multiword tokens, is treated as what the model knows."""
    return setting == "true" or (setting == "auto" and "conllu" in formats)


class Parser:
    """What parses sentences: a ``Model``, or a ``blend.Blend`` of models. The ways into parsing
    (``parse`` and those built on it) are defined here once; a parser defines how it checks an
    input's format (``_check_format``) and parses one batch (``_parse_batch``)."""

    data_format: str
    vocabulary: Vocabulary | None
    single_root: str  # graph.single_root: auto, true or false
    #: whether batches are cut by tokens (the arrays form's batches) or by sentences
    by_tokens: bool = True
    #: whether ``bound_degree`` bounds its parses' degree of non-projectivity (Covington's systems)
    bounds_degree: bool = False

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
            yield from self._parse_sentences(sentences, batch_size, progress, batch_tokens, watch)
            return
        backs: collections.deque = collections.deque()

        def plain() -> Iterator[Sentence]:
            for number, item in enumerate(sentences, 1):
                sentence, back = as_sentence(item, number, self.data_format)
                backs.append(back)
                yield sentence

        for parsed in self._parse_sentences(plain(), batch_size, progress, batch_tokens, watch):
            yield backs.popleft()(parsed)

    def watch(self, warn: Callable[[str], None]) -> Callable[[Tally], None] | None:
        """What ``parse`` gives each batch's tally to, to ``warn`` once a column of the input holds
        far more values training never saw than held-out text does (None for a model made before
        its vocabulary was kept)."""
        if self.vocabulary is None:
            return None
        return Watch(self.vocabulary.expected(), warn).add

    def _parse_sentences(self, sentences: Iterable[Sentence], batch_size: int | None, progress,
                         batch_tokens: int, watch: Callable[[Tally], None] | None) -> Iterator[Sentence]:  # fmt: skip
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
                yield from self._parse_in_turn(batch, progress, watch)
                batch = []
                tokens = 0
        if batch:
            yield from self._parse_in_turn(batch, progress, watch)

    def _parse_in_turn(self, batch: list[Sentence], progress,
                       watch: Callable[[Tally], None] | None) -> list[Sentence]:  # fmt: skip
        """``_parse_batch``, by one thread at a time: a parser keeps the state of the batch it
        parses (the arrays form's configurations, batch.py), so threads that share it (Dask's
        threaded scheduler, a Dask worker of several threads, a thread pool) take turns, a
        batch each. Processes, each with its own parser, parse at once."""
        with _TURNS_MADE:
            turn = _TURNS.setdefault(self, threading.Lock())
        with turn:
            return self._parse_batch(batch, progress, watch)

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

    def parse_tokens(self, sentences: Iterable[list]) -> list[list[tuple[int, str]]]:
        """Parse sentences given as lists of tokens (see ``parse``); for each sentence, each
        token's (head, label)."""
        if isinstance(sentences, (str, bytes)):
            raise TypeError("parse_tokens takes a list of sentences, each a list of tokens, not a string")
        return [[(t["head"], t["deprel"]) for t in parsed] for parsed in self.parse(list(sentences))]

    def parse_file(self, input: str | os.PathLike, output: str | os.PathLike, format: str = "auto") -> None:
        """Parse the CoNLL file ``input`` into ``output`` (written whole or not at all), as
        ``maltpy parse -i INPUT -o OUTPUT`` does."""
        input, output = os.fspath(input), os.fspath(output)
        check_output_path(output, (input,))
        with read_conll(input, format, blind=True) as reader, atomic_output(output) as out:
            for sentence in self.parse(reader):
                out.write(format_sentence(sentence).encode("utf-8"))

    @classmethod
    def load(cls, path: str | os.PathLike, data: bytes | None = None, within: Archive | None = None,
             team: tuple[int, int] | None = None) -> Parser:  # fmt: skip
        """The parser in the archive at ``path`` (or in ``data``, the bytes of one, which ``path``
        then names in messages; a member of the archive ``within``, a blend's, read within its
        budget), every part checked before use: a model (model_archive.read_model) or a blend of
        models (blend.read_blend); or MaltParser's model file (.mco) there, read as a model
        (mco.load_mco), unless it is a member (a blend holds maltpy's archives, which its budget
        bounds; an .mco has a budget of its own). ``team``: a worker's place in a team of workers
        and the team's size, for a blend (its share of the members alone, ``blend.read_blend``)."""
        from ..blend import read_blend
        from ..graph.model import read_graph_model
        from ..mco import is_mco, load_mco

        if within is None and isinstance(path, (str, os.PathLike)) and is_mco(os.fspath(path), data):
            return load_mco(os.fspath(path), data)
        with open_archive(path, data, within) as archive:
            if "blend" in archive.manifest:
                return read_blend(archive, os.fspath(path), team)
            if "graph" in archive.manifest:
                return read_graph_model(archive)
            p = read_model(archive)
        return Model(p.config, p.feature_model, p.classes, p.guide, p.data_format, p.statistics, p.roots,
                     p.vocabulary, p.ignored_columns)  # fmt: skip


class Model(Parser):
    """A trained parser: configuration, feature model, classes and classifiers."""

    #: whether graph.single_root constrains the transitions where the system has the constraint
    #: (Nivre's systems); if not, its final step acts alone (scripts/bench_single_root.py measures both)
    constrain_root = True
    #: how few unfinished sentences the arrays form leaves to the per-sentence definitions
    #: (``BatchParser.parse``); 0: none, the arrays form parses every sentence to its end
    narrow_rows = NARROW_ROWS

    def __init__(self, config: Config, feature_model: FeatureModel, classes: Classes, guide: Guide,
                 data_format: str, statistics: dict, roots: RootLabels | None = None,
                 vocabulary: Vocabulary | None = None,
                 ignored_columns: dict[int, str] | None = None) -> None:  # fmt: skip
        self._trained(config, data_format, statistics, roots, vocabulary)
        self.feature_model = feature_model
        self.classes = classes
        self.guide = guide
        #: columns (by number) that a parse writes as the given text whatever the input held: a
        #: MaltParser model's data format's IGNORE columns, which MaltParser writes as their
        #: default (PHEAD and PDEPREL, DEPS and MISC: ``_``); none for maltpy's own models
        self.ignored_columns = dict(ignored_columns or {})
        for model in guide.all_models():
            model.transitions = [classes.items[label] for label in model.labels]
        self._encoders: dict[str, Callable | None] = {}
        self._set_system()

    def _set_system(self) -> None:
        """The transition system of ``self.config``, and the path that parses with it: the arrays
        form, or per sentence with compiled encoders for the models the arrays form does not cover."""
        self.system = system_for(self.config)
        #: the system with the single-root constraint, where it has one (Nivre's systems), for the
        #: sentences graph.single_root applies to; the others take its final step alone
        self.rooted_system = system_for(self.config, one_root=True)
        if not self.rooted_system.one_root:
            self.rooted_system = self.system
        self._batch = BatchParser(self) if BatchParser.supports(self) else None
        self.reading = Reading.of(self.config.singlemalt.parsing_direction, self.config.singlemalt.root_position)

    def _encoder(self, model: AtomicModel) -> Callable | None:
        """How a binarized classifier gets an instance's columns from a configuration and the
        sentence's columns, when the model's values are all plain strings (else None): the
        feature model's fast form in one call where it has one, else its values' columns
        (``FeatureMap.columns_of``). Made once a classifier, when first needed."""
        if model.name not in self._encoders:
            self._encoders[model.name] = self._make_encoder(model)
        return self._encoders[model.name]

    def _make_encoder(self, model: AtomicModel) -> Callable | None:
        if model.classifier.symbolic or not self.feature_model.plain:
            return None
        fmap, plan = model.featuremap, self.feature_model.plan
        if plan is not None:
            tables, picks = fmap.tables, fmap.picks
            return lambda c, cols: plan.columns(c, cols, tables, picks)
        extract, columns_of = self.feature_model.extract, fmap.columns_of
        return lambda c, cols: columns_of(extract(c, cols))

    def _check_format(self, reader: ConllReader) -> None:
        """MaltpyError if the model's features read a column by a name the input's format does
        not have (a CoNLL-X model's PHEAD, of CoNLL-U input: its 9th column is DEPS)."""
        found = self.feature_model.foreign_column(reader.format) if reader.format != self.data_format else None
        if found:
            spec, problem = found
            raise MaltpyError(f"the model's feature {spec.text} cannot read {FORMAT_NAMES[reader.format]} input: "
                              f"{problem} (convert it: maltpy convert --to {self.data_format})",
                              reader.name)  # fmt: skip

    @property
    def single_root(self) -> str:
        return self.config.graph.single_root

    @property
    def by_tokens(self) -> bool:
        return self._batch is not None

    @property
    def bounds_degree(self) -> bool:
        return reads(self.config.singlemalt.parsing_algorithm, MAX_DEGREE)

    def _parse_batch(self, batch: list[Sentence], progress, watch: Callable[[Tally], None] | None) -> list[Sentence]:
        for sentence, (heads, labels) in zip(batch, self.arcs(batch, watch)):
            sentence.set_arcs(heads, labels)
            self.write_ignored(sentence)
        if progress:
            progress(sum(len(s) for s in batch))
        return batch

    def arcs(self, batch: list[Sentence],
             watch: Callable[[Tally], None] | None = None) -> list[tuple[list[int], list[str]]]:  # fmt: skip
        """Each sentence's parse, heads and labels indexed from 1 (the sentences are left as they
        are): the transitions' tree, deprojectivized with pseudo-projective parsing, with one word
        on the root where graph.single_root applies. ``watch`` is given the batch's tally of values
        training never saw."""
        views = self.views(batch, watch)
        one_root = [self._single_root(s) for s in batch]
        # what the transitions and features read: a right-to-left model's sentences reversed, a
        # root read last a word of its own, and their trees mapped back before anything else sees
        # them (direction.py); the transitions' single-root constraint is on node 0, so not with
        # a root read last, whose words the final step makes one
        reading = self.reading
        read = [reading.sentence(v, self.root_label) for v in views]
        trees: list = [None] * len(batch)
        for rooted in (False, True):  # a batch is one file's, so nearly always one of the two
            members = [k for k, flag in enumerate(one_root) if flag == rooted]
            if members:
                constrained = rooted and self.constrain_root and not reading.root_last
                for k, tree in zip(members, self._trees([read[k] for k in members], constrained)):
                    trees[k] = reading.back(*tree)
        out = []
        for view, rooted, (heads, labels) in zip(views, one_root, trees):
            out.append(self._finished(heads, labels, view, rooted))
        return out

    def write_ignored(self, sentence: Sentence) -> None:
        """Write the columns the model ignores as it says (``ignored_columns``)."""
        for k, text in self.ignored_columns.items():
            for word in sentence.words:
                word[k] = text

    def _trees(self, batch: list[Sentence], one_root: bool) -> list[tuple[list[int], list[str]]]:
        """Each sentence's heads and labels as the transitions leave them (words without a head
        on the root with the root label), with the single-root constraint if ``one_root``."""
        system = self.rooted_system if one_root else self.system
        if self._batch is not None:
            labels = [label for _, label in self.classes.items]
            trees = self._batch.parse(batch, labels, self.root_label, one_root, self.narrow_rows)
            left = [k for k, tree in enumerate(trees) if not isinstance(tree, tuple)]
            if left:  # the few sentences unfinished, one by one
                arcs = self._parse_one_by_one([batch[k] for k in left], system, [trees[k] for k in left])
                for k, a in zip(left, arcs):
                    trees[k] = finish(a, self.root_label)
            return trees
        return [finish(arcs, self.root_label, system.acyclicity) for arcs in self._parse_one_by_one(batch, system)]

    def _parse_one_by_one(self, batch: list[Sentence], system, configs: list | None = None) -> list:
        """The batch's final arcs, each configuration moved by ``system``'s per-sentence
        definitions (the models ``BatchParser`` does not cover, and the sentences it leaves),
        from ``configs`` or the initial ones."""
        guide, extract = self.guide, self.feature_model.extract
        configs = configs or [system.initial(len(s)) for s in batch]
        columns = [columns_of(s) for s in batch]
        active = list(range(len(batch)))
        while active:
            asking: dict[int, list[int]] = {}  # classifier -> sentences asking it this step
            for i in active:
                c = configs[i]
                name = system.deterministic(c)
                while name is not None and not system.is_terminal(c):
                    system.apply(c, name)
                    name = None if system.is_terminal(c) else system.deterministic(c)
                if not system.is_terminal(c):
                    model = guide.model_for(c, columns[i])
                    asking.setdefault(id(model), [model]).append(i)
            for model, *members in asking.values():
                if model is None:  # no classifier for this split value: MaltParser's first class
                    for i in members:
                        self._apply_ranked(system, configs[i], None, None, 0)
                    continue
                encode = self._encoder(model)
                if encode is not None:
                    scores, best = model.classify_columns([encode(configs[i], columns[i]) for i in members])
                else:
                    scores, best = model.classify([extract(configs[i], columns[i]) for i in members])
                for i, row, b in zip(members, scores, best.tolist()):
                    self._apply_ranked(system, configs[i], model, row, b)
            active = [i for i in active if not system.is_terminal(configs[i])]
        return [c.arcs for c in configs]

    def _apply_ranked(self, system, c, model: AtomicModel | None, row: np.ndarray | None, best: int) -> None:
        """Apply the best-ranked allowed transition (MaltParser's DeterministicParser.predict);
        ``best`` is the classifier's choice (the row's first maximum, where MaltParser's ranking
        starts; k-NN's choice settles ties its own way)."""
        allowed = system.allowed(c)
        if model is None:
            name, label = self.classes.items[0]
            if name not in allowed:
                name, label = system.default(c, self.root_label)
            system.apply(c, name, label)
            return
        transitions = model.transitions
        if len(transitions) > 1 and transitions[best][0] in allowed:
            system.apply(c, *transitions[best])
            return
        for name, label in ranked(row, transitions):
            if name in allowed:
                system.apply(c, name, label)
                return
        system.apply(c, *system.default(c, self.root_label))

    def bound_degree(self, max_degree: int | None) -> None:
        """Parse with this bound on Covington's degree of non-projectivity instead of the
        model's (``maltpy parse -cd``; Nivre 2007 bounds a parser trained unbounded)."""
        if max_degree is not None and (type(max_degree) is not int or max_degree < 0):
            raise MaltpyError(f"a degree bound is a whole number from 0, not {cut(repr(max_degree), 40)}",
                              "Model.bound_degree")  # fmt: skip
        if not self.bounds_degree:
            bounded = ", ".join(USED_BY[MAX_DEGREE])
            raise MaltpyError(f"bounds {bounded} only; this model is {self.system.name}", "Model.bound_degree")
        covington = dataclasses.replace(self.config.covington, max_degree=max_degree)
        self.config = dataclasses.replace(self.config, covington=covington)
        self._set_system()

    def set_enforce_tree(self, on: bool) -> None:
        """Parse with arc-eager's enforce_tree on or off instead of the model's setting (``maltpy
        parse -nt``; MaltParser reads nivre.enforce_tree when it parses). A model of another
        algorithm, which would ignore it, refuses it set to true, as learning does."""
        if type(on) is not bool:
            raise MaltpyError(f"enforce_tree is true or false, not {cut(repr(on), 40)}", "Model.set_enforce_tree")
        unused = unused_option(ENFORCE_TREE, on, self.config.singlemalt.parsing_algorithm)
        if unused is not None:
            raise MaltpyError(unused, "Model.set_enforce_tree")
        nivre = dataclasses.replace(self.config.nivre, enforce_tree=on)
        self.config = dataclasses.replace(self.config, nivre=nivre)
        self._set_system()

    def set_single_root(self, setting: str) -> None:
        """Parse with graph.single_root ``setting`` (auto, true, false) instead of the model's
        (``maltpy parse -gsr``)."""
        if setting not in ("auto", "true", "false"):
            raise MaltpyError(f"single_root is auto, true or false, not {cut(repr(setting), 40)}",
                              "Model.set_single_root")  # fmt: skip
        graph = dataclasses.replace(self.config.graph, single_root=setting)
        self.config = dataclasses.replace(self.config, graph=graph)

    def summary(self) -> str:
        """What was learned, in a few words (``maltpy learn`` says it)."""
        s = self.statistics
        return (f"{self.config.singlemalt.parsing_algorithm} with {self.config.guide.learner} from "
                f"{counted(s['sentences'], 'sentence')} ({counted(s['instances'], 'instance')}, "
                f"{counted(len(self.guide.all_models()), 'classifier')})")  # fmt: skip

    def describe(self) -> dict:
        """What ``maltpy info`` shows."""
        classifiers = []
        for model in self.guide.all_models():
            c = model.classifier
            classifiers.append(
                {
                    "name": model.name,
                    "kind": c.kind,
                    "instances": model.instances,
                    "classes": len(model.labels),
                    "features": model.featuremap.size,
                    "size": c.describe_size(),
                }
            )
        return {
            "algorithm": self.config.singlemalt.parsing_algorithm,
            "parsing_direction": self.config.singlemalt.parsing_direction,
            "root_position": self.config.singlemalt.root_position,
            "learner": self.config.guide.learner,
            "data_format": self.data_format,
            "pseudo_projective": dataclasses.asdict(self.config.pproj) if self.config.pproj.active else None,
            "labels": sorted({label for _, label in self.classes.items if label is not None}),
            "classes": self.classes.names(),
            "roots": self.roots.as_json(),
            "vocabulary": None if self.vocabulary is None else self.vocabulary.describe(),
            "roots_learned": self.roots_learned,
            "classifiers": classifiers,
            "training": self.statistics,
        }

    # --- the archive -------------------------------------------------------------------------------

    def parts(self) -> ModelParts:
        """What the model archive holds of this model (model_archive.py)."""
        return ModelParts(self.config, self.feature_model, self.classes, self.guide, self.data_format,
                          self.statistics, self.roots, self.vocabulary, self.ignored_columns)  # fmt: skip

    def save(self, path: str | os.PathLike) -> None:
        """Write the model archive to ``path`` (whole or not at all)."""
        write_model(os.fspath(path), self.parts())

    def to_bytes(self) -> bytes:
        """The model archive's bytes (what ``save`` writes; ``Model.load(name, data)`` reads them)."""
        return write_model(None, self.parts())


def load_model(path: str) -> Parser:
    """A model made by ``maltpy learn`` (or ``Model.save``), a blend made by ``maltpy blend``, or
    MaltParser's model file (.mco)."""
    return Parser.load(path)


def learn(
    config: Config, sentences: Iterable[Sentence], data_format: str, name: str,
    progress: Callable[[str], None] | None = None, save_instances: str | None = None,
) -> Parser:  # fmt: skip
    """Induce a parser from the gold trees in ``sentences`` (read from ``name``). With
    ``save_instances``, each classifier's training instances are also written to that folder
    in TiMBL's columns format (``<classifier>.col``), as MaltParser's -li writes them.

    The configuration is read here, once: the steps below are given what it makes (the feature
    model, the transition system, the data split, the learner and its options)."""
    if is_graph_based(config.singlemalt.parsing_algorithm):
        from ..graph.model import learn_graph

        return learn_graph(config, sentences, data_format, name, progress, _Treebank(pproj=config.pproj,
                           columns=[FORM, LEMMA, CPOSTAG, POSTAG, FEATS]))  # fmt: skip
    started = time.perf_counter()
    guide = config.guide
    pproj = config.pproj
    fm = load_feature_model(guide.features, config.singlemalt.parsing_algorithm, guide.learner, data_format,
                            config.singlemalt.null_value, DeprelOf(pproj) if pproj.marks_labels else None)  # fmt: skip
    fm.check_columns(data_format)
    system = system_for(config, learning=True)
    split = data_split(fm, guide.data_split_column, guide.data_split_structure, guide.data_split_threshold)
    symbolic = LEARNERS[guide.learner].symbolic
    keep_symbols = save_instances is not None
    in_arrays = not (symbolic or keep_symbols) and covered(system, fm, split.written, learning=True)
    arrays = BatchLearner(fm, system, split.written) if in_arrays else None
    treebank = _Treebank(pproj, fm.input_columns(guide.data_split_column))
    instances = Instances(len(fm), fm.nulls, binary=not symbolic, symbolic=symbolic or keep_symbols)
    replay = _Replay(fm, system, split.feature, instances, arrays, lambda: treebank.report(progress, instances))
    reading = Reading.of(config.singlemalt.parsing_direction, config.singlemalt.root_position)
    root_label = config.graph.root_label
    for sentence in sentences:
        heads, labels = treebank.add(sentence, name)
        split.count(sentence)
        # the oracle and the features see the sentence as the parser reads it (direction.py)
        replay.add(reading.sentence(sentence, root_label), *reading.tree(heads, labels, root_label))
        if treebank.sentences % 500 == 0:
            treebank.report(progress, instances)
    replay.flush()
    if not len(instances):
        raise MaltpyError("no training instances: the treebank has no sentences", name)
    extracted = time.perf_counter()
    groups = classifier_groups(instances, split)
    if save_instances is not None:
        write_instance_files(save_instances, instances, groups, replay.classes.names())
    options = dict(config.lib.options)
    if isinstance(options.get(CLASS_WEIGHTS), Mapping):
        options[CLASS_WEIGHTS] = replay.classes.weighted(options[CLASS_WEIGHTS], name)
    models = train_guide(instances, groups, LEARNERS[guide.learner].classifier(), options, progress)
    statistics = {
        **treebank.statistics(name),
        "instances": len(instances), "classes": len(replay.classes.items),
        "seconds_features": round(extracted - started, 2),
        "seconds_training": round(time.perf_counter() - extracted, 2),
    }  # fmt: skip
    return Model(config, fm, replay.classes, guide_of(models, split),
                 data_format, statistics, treebank.root_counts.labels(), treebank.vocabulary.vocabulary())  # fmt: skip


class _Treebank:
    """What learning keeps of the gold trees besides the instances: the counts of its
    statistics, the root labels (graph.single_root) and the vocabulary of the input ``columns``;
    and each tree as the oracle is shown it, projectivized with the pseudo-projective setting
    ``pproj`` (Nivre & Nilsson 2005)."""

    def __init__(self, pproj: Encoding, columns: list[int]) -> None:
        self.pproj = pproj
        self.sentences = self.tokens = self.nonprojective = self.lifted_sentences = self.lifted_arcs = 0
        self.root_counts = RootCounts()
        self.vocabulary = VocabularyCounter(columns)

    def add(self, sentence: Sentence, name: str) -> tuple[list[int], list[str]]:
        """Count ``sentence`` (of the file ``name``); the heads and labels the oracle replays."""
        heads, labels = sentence.heads, sentence.labels
        if heads is None:
            raise MaltpyError("learning needs gold trees, but HEAD is _", name, sentence.line)
        self.sentences += 1
        self.tokens += len(sentence)
        self.nonprojective += not is_projective(heads)
        self.root_counts.add(heads, labels, [""] + sentence.column(UPOS))
        self.vocabulary.add(sentence)
        if self.pproj.active:
            check_unmarked(sentence, self.pproj, name)
            lifted = projectivize(heads, labels, self.pproj)
            heads, labels = lifted.heads, lifted.labels
            self.lifted_sentences += lifted.lifted > 0
            self.lifted_arcs += lifted.lifted
        return heads, labels

    def report(self, progress: Callable[[str], None] | None, instances: Instances) -> None:
        """Learning's progress: the sentences read, and the instances made of them so far (the
        arrays path replays a chunk of sentences at a time, so its count comes a chunk later)."""
        if progress:
            made = f", {counted(len(instances), 'instance')}" if len(instances) else " read"
            progress(f"{counted(self.sentences, 'sentence')}{made}")

    def statistics(self, name: str) -> dict:
        lifted = {"lifted_sentences": self.lifted_sentences, "lifted_arcs": self.lifted_arcs}
        return {"treebank": name, "sentences": self.sentences, "tokens": self.tokens,
                "nonprojective_sentences": self.nonprojective, **(lifted if self.pproj.active else {})}  # fmt: skip


class _Replay:
    """The oracle of ``system`` replayed over each gold tree, its instances collected in the
    trees' order: the feature values of each configuration where the oracle chose the
    transition, and the class it chose (Nivre 2008, §6.1), the classes numbered in order of
    registration, the system's first class first. With ``arrays`` (the systems with an arrays
    form that learns: Nivre's), a chunk of trees is replayed at a time in arrays
    (``batch.BatchLearner.replay``); without it (the other systems, k-NN, the instance files of
    -li), and for long sentences, configuration by configuration (``transition.base.replay_oracle``)."""

    def __init__(self, fm: FeatureModel, system: TransitionSystem, split: Callable | None, instances: Instances,
                 arrays: BatchLearner | None, chunk_done: Callable[[], None]) -> None:  # fmt: skip
        self.extract = fm.extract
        self.system = system
        self.split = split
        self.instances = instances
        self.arrays = arrays
        self.classes = Classes()
        self.classes.add(system.first_class)
        self.chunk: list[tuple[Sentence, list[int], list[str]]] = []
        self.chunk_tokens = 0
        self.chunk_done = chunk_done

    def add(self, sentence: Sentence, heads: list[int], labels: list[str]) -> None:
        if self.arrays is not None and len(sentence) <= LEARN_ALONE_TOKENS:
            self.chunk.append((sentence, heads, labels))
            self.chunk_tokens += len(sentence)
            if self.chunk_tokens >= LEARN_CHUNK_TOKENS:
                self.flush()
            return
        self.flush()  # the instances stay in the order of the sentences
        classes, instances, split, extract = self.classes, self.instances, self.split, self.extract
        columns = columns_of(sentence)
        c = self.system.initial(len(sentence))
        for move, label, asked in replay_oracle(self.system, Gold(heads, labels), c):
            number = classes.add(move, label if move in (LA, RA) else None)
            if asked:
                instances.add(extract(c, columns), number)
                if split is not None:
                    instances.split_values.append(split(c, columns))

    def flush(self) -> None:
        """Replay the chunk of trees waiting for the arrays form."""
        if not self.chunk:
            return
        replay = self.arrays.replay([(h, lab) for _, h, lab in self.chunk], [s for s, _, _ in self.chunk])
        asked = []
        for name, label, instance in zip(replay.moves, replay.labels, replay.asked):
            number = self.classes.add(name, label if name in (LA, RA) else None)
            if instance:
                asked.append(number)
        self.instances.add_numbered(replay.values, asked)
        if replay.split_values is not None:
            self.instances.split_values.extend(replay.split_values)
        self.chunk, self.chunk_tokens = [], 0
        self.chunk_done()
