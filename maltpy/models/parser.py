"""Parsing mode (Nivre et al. 2007, §2; Nivre 2008, §6.1): the transition-based model.

Parsing moves a batch of sentences in lock step: at each step every unfinished sentence gives
one instance, the classifiers answer the whole batch in one call each, and every sentence
takes its best allowed transition (``ranked_choice``). As in MaltParser, the classes are ranked
by score (ties to the class learned first), the lowest-ranked class is never tried, and when no
ranked class is allowed the algorithm's default move is made. Words left without a head go to
the root.

With pseudo-projective parsing (``pproj``, Nivre & Nilsson 2005), parsing deprojectivizes each
parsed tree by its labels' marks. A right-to-left model (``singlemalt.parsing_direction``, Hall
et al. 2007) parses each sentence reversed, and a model that reads the root last
(``singlemalt.root_position``) with a word standing for it after the last word
(``direction.Reading``); parsing maps each tree back first. Learning: learn.py.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable

import numpy as np

from ..config import ENFORCE_TREE, MAX_DEGREE, USED_BY, Config, reads, unused_option
from ..data.columns import WIDTH
from ..data.conll import ConllReader, Sentence
from ..data.direction import Reading
from ..data.tree import RootLabels
from ..data.vocabulary import Tally, Vocabulary
from ..errors import MaltpyError, counted, cut
from ..features import FeatureModel
from ..features.spec import FORMAT_NAMES
from ..learners import AtomicModel
from ..learners.divide import Guide
from ..transition import system_for
from ..transition.base import finish
from .archive import Archive
from .base import Parser
from .batch import BatchParser
from .choice import ranked_choice
from .parts import Classes, ModelParts, open_archive, read_model, write_model
from .tags import describe_taggers, describe_tokenizer

NARROW_ROWS = 16  # fewer unfinished sentences than this parse on one by one (scripts/bench_long_sentences.py)


def columns_of(sentence: Sentence) -> list[list]:
    """``columns[k][i]``: column k of word i; index 0 stands for the root, whose columns are never read."""
    words = sentence.words
    return [[None] + [w[k] for w in words] for k in range(WIDTH)]





def asking_by_classifier(system, guide: Guide, configs: list, columns: list, active: list[int]) -> dict[int, list]:
    """One step of parsing a batch one configuration at a time: each ``active`` configuration
    (an index into ``configs`` and ``columns``) makes the moves MaltParser makes without asking
    the classifier (``system.deterministic``), and those left unfinished are grouped by the
    classifier ``guide`` asks about them: by its id, [the classifier (None: none for the data
    split's value), index, ...]. ``Model`` parses so, and learning with a dynamic oracle explores."""
    asking: dict[int, list] = {}
    for i in active:
        c = configs[i]
        name = system.deterministic(c)
        while name is not None and not system.is_terminal(c):
            system.apply(c, name)
            name = None if system.is_terminal(c) else system.deterministic(c)
        if not system.is_terminal(c):
            model = guide.model_for(c, columns[i])
            asking.setdefault(id(model), [model]).append(i)
    return asking


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
            for model, *members in asking_by_classifier(system, guide, configs, columns, active).values():
                if model is None:  # no classifier for this split value: MaltParser's first class
                    for i in members:
                        self._apply_ranked(system, configs[i], self.classes.items)
                    continue
                encode = self._encoder(model)
                if encode is not None:
                    scores, best = model.classify_columns([encode(configs[i], columns[i]) for i in members])
                else:
                    scores, best = model.classify([extract(configs[i], columns[i]) for i in members])
                for i, row, b in zip(members, scores, best.tolist()):
                    self._apply_ranked(system, configs[i], model.transitions, row, b)
            active = [i for i in active if not system.is_terminal(configs[i])]
        return [c.arcs for c in configs]

    def _apply_ranked(self, system, c, transitions: list, row: np.ndarray | None = None, best: int = 0) -> None:
        """Make the transition of ``ranked_choice`` (choice.py) in ``c``, or ``system``'s default move."""
        choice = ranked_choice(transitions, system.allowed(c), row, best)
        system.apply(c, *(choice if choice is not None else system.default(c, self.root_label)))

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
            "taggers": describe_taggers(self.taggers),
            "tokenizer": describe_tokenizer(self.taggers),
            "training": self.statistics,
        }

    # --- the archive -------------------------------------------------------------------------------

    @classmethod
    def load(cls, path: str | os.PathLike, data: bytes | None = None, within: Archive | None = None) -> Model:
        """The transition model in maltpy's archive at ``path`` (or in ``data``, the bytes of one,
        which ``path`` then names in messages; a member of the archive ``within``), every part
        checked before use. A saved parser of any kind (a graph-based model, a blend, MaltParser's
        .mco): ``maltpy.load``."""
        with open_archive(path, data, within) as archive:
            return read_transition_model(archive)

    def parts(self) -> ModelParts:
        """What the model archive holds of this model (parts.py)."""
        return ModelParts(self.config, self.feature_model, self.classes, self.guide, self.data_format,
                          self.statistics, self.roots, self.vocabulary, self.ignored_columns, self.taggers)  # fmt: skip

    def save(self, path: str | os.PathLike) -> None:
        """Write the model archive to ``path`` (whole or not at all)."""
        write_model(os.fspath(path), self.parts())

    def to_bytes(self) -> bytes:
        """The model archive's bytes (what ``save`` writes; ``Model.load(name, data)`` reads them)."""
        return write_model(None, self.parts())


def read_transition_model(archive: Archive) -> Model:
    """The transition model in ``archive``, every part checked before use (parts.read_model)."""
    p = read_model(archive)
    model = Model(p.config, p.feature_model, p.classes, p.guide, p.data_format, p.statistics, p.roots,
                  p.vocabulary, p.ignored_columns)  # fmt: skip
    model.taggers = p.taggers
    return model
