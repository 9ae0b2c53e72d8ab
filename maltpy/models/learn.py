"""Learning mode (Nivre et al. 2007, §2; Nivre 2008, §6.1): a parser induced from a treebank.

Learning replays each gold tree through the algorithm's oracle; every configuration where the
oracle, not a deterministic rule, decides becomes an instance: the feature model's values and
the transition with its label as one class (MaltParser's ``T.TRANS+A.DEPREL``, written
``RA~nsubj``). Classifiers are trained on the instances in that order.

With pseudo-projective parsing (``pproj``, Nivre & Nilsson 2005), learning projectivizes each
gold tree first and learns its marked labels as classes (``RA~obj|nsubj%``), while DEPREL
features see the plain labels. A right-to-left model (``singlemalt.parsing_direction``, Hall et
al. 2007) learns each sentence reversed, and a model that reads the root last
(``singlemalt.root_position``) with a word standing for it after the last word
(``direction.Reading``). With the dynamic oracle (``guide.oracle`` dynamic, Goldberg & Nivre 2012),
the instances of the configurations the parser reaches by its own errors are added
(``explore.py``). A graph-based algorithm (``-a mst``) learns by ``graph.learn``, from the
same counts of the treebank.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Iterable, Mapping

from ..config import UD_PROFILES, Config
from ..data.conll import CPOSTAG, FEATS, FORM, LEMMA, POSTAG, UPOS, Sentence
from ..data.direction import Reading
from ..data.pseudoproj import DeprelOf, Encoding, check_unmarked, projectivize
from ..data.tree import RootCounts, is_projective
from ..data.vocabulary import VocabularyCounter
from ..errors import MaltpyError, counted
from ..features import FeatureModel, has_default_model, load_feature_model
from ..graph import is_graph_based
from ..graph.learn import learn_graph
from ..learners import LEARNERS
from ..learners.divide import DataSplit, classifier_groups, data_split, guide_of, train_guide
from ..learners.encoding import Instances
from ..learners.options import CLASS_WEIGHTS
from ..learners.timbl_columns import write_instance_files
from ..transition import TransitionSystem, system_for
from ..transition.base import LA, RA, Gold, replay_oracle
from .base import Parser
from .batch import BatchLearner, covered
from .explore import explore_folds
from .parser import Model, columns_of
from .parts import Classes
from .tags import learn_tagging

LEARN_CHUNK_TOKENS = 100_000  # gold trees replayed at a time in arrays when learning
#: a longer gold tree is replayed configuration by configuration: in arrays it would take most of
#: its steps alone, each costing as much as a step of the whole chunk
LEARN_ALONE_TOKENS = 200


def learn(
    config: Config, sentences: Iterable[Sentence], data_format: str, name: str,
    progress: Callable[[str], None] | None = None, save_instances: str | None = None,
) -> Parser:  # fmt: skip
    """Induce a parser from the gold trees in ``sentences`` (read from ``name``), with the
    taggers of the group tagger (``tags.learn_tagging``: none with tagger.columns none), which
    it keeps; with tagger.jackknife K, the parser learns from the treebank's tags as taggers
    learned from the other folds predict them. With ``save_instances``, each classifier's
    training instances are also written to that folder in TiMBL's columns format
    (``<classifier>.col``), as MaltParser's -li writes them."""
    if config.tagger.columns == "none":
        return learn_parser(config, sentences, data_format, name, progress, save_instances)
    sentences = list(sentences)  # the taggers, the folds of a jackknife and the parser read them in turn
    taggers, sentences, statistics = learn_tagging(config.tagger, sentences, name, progress)
    model = learn_parser(config, sentences, data_format, name, progress, save_instances)
    model.taggers = taggers
    model.statistics.update(statistics)
    return model


def learn_parser(
    config: Config, sentences: Iterable[Sentence], data_format: str, name: str,
    progress: Callable[[str], None] | None = None, save_instances: str | None = None,
) -> Parser:  # fmt: skip
    """The parser ``learn`` learns, without taggers (a blend's members learn so: the blend
    learns the taggers once for them all).

    The configuration is read here, once: the steps below are given what it makes (the feature
    model, the transition system, the data split, the learner and its options)."""
    if is_graph_based(config.singlemalt.parsing_algorithm):
        return learn_graph(config, sentences, data_format, name, progress, _Treebank(pproj=config.pproj,
                           columns=[FORM, LEMMA, CPOSTAG, POSTAG, FEATS]))  # fmt: skip
    started = time.perf_counter()
    guide = config.guide
    pproj = config.pproj
    fm = load_feature_model(guide.features, config.singlemalt.parsing_algorithm, guide.learner, data_format,
                            config.singlemalt.null_value, DeprelOf(pproj) if pproj.marks_labels else None,
                            feature_folder(config))  # fmt: skip
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
    taught: list | None = [] if guide.oracle == "dynamic" else None  # what exploration parses again
    originals: list[Sentence] = []
    for sentence in sentences:
        heads, labels = treebank.add(sentence, name)
        split.count(sentence)
        # the oracle and the features see the sentence as the parser reads it (direction.py)
        read = (reading.sentence(sentence, root_label), *reading.tree(heads, labels, root_label))
        replay.add(*read)
        if taught is not None:
            taught.append(read)
            originals.append(sentence)
        if treebank.sentences % 500 == 0:
            treebank.report(progress, instances)
    replay.flush()
    if not len(instances):
        raise MaltpyError("no training instances: the treebank has no sentences", name)
    statistics = {**treebank.statistics(name), "instances": 0, "classes": 0,
                  "seconds_features": round(time.perf_counter() - started, 2), "seconds_training": 0}  # fmt: skip
    if taught:  # -go dynamic: the static oracle's instances, then those of exploration (explore.py)
        static = dataclasses.replace(config, guide=dataclasses.replace(guide, oracle="static"))
        learn_static = lambda part: learn_parser(static, part, data_format, name)  # noqa: E731
        statistics.update(explore_folds(learn_static, system, originals, taught, instances, replay.classes,
                                        split.feature, progress))  # fmt: skip
    model = _trained(config, fm, split, instances, replay.classes, data_format, statistics, treebank, progress)
    if save_instances is not None:
        write_instance_files(save_instances, instances, classifier_groups(instances, split), replay.classes.names())
    return model


def _trained(config: Config, fm: FeatureModel, split: DataSplit, instances: Instances, classes: Classes,
             data_format: str, statistics: dict, treebank: _Treebank, progress) -> Model:  # fmt: skip
    """The model of the classifiers the configuration's learner learns from ``instances``;
    ``statistics`` is given their number and the time it took."""
    started = time.perf_counter()
    options = dict(config.lib.options)
    if isinstance(options.get(CLASS_WEIGHTS), Mapping):
        options[CLASS_WEIGHTS] = classes.weighted(options[CLASS_WEIGHTS], statistics["treebank"])
    models = train_guide(instances, classifier_groups(instances, split), LEARNERS[config.guide.learner].classifier(),
                         options, progress)  # fmt: skip
    statistics.update(instances=len(instances), classes=len(classes.items),
                      seconds_training=round(statistics["seconds_training"] + time.perf_counter() - started, 2))
    return Model(config, fm, classes, guide_of(models, split),
                 data_format, statistics, treebank.root_counts.labels(), treebank.vocabulary.vocabulary())  # fmt: skip


def feature_folder(config: Config) -> str | None:
    """The folder of default feature models (feature_models/<learner>/<folder>/) that a model
    learned with ``config`` takes: ud under the ud profile (config.with_profile), where it has
    the algorithm's (``load_feature_model``), and under ud-lexical ud-lexical where it has the
    algorithm's, else ud; None: the format's (MaltParser's)."""
    profile, algorithm = config.defaults.profile, config.singlemalt.parsing_algorithm
    if profile == "ud-lexical" and has_default_model(config.guide.learner, profile, algorithm):
        return profile
    return "ud" if profile in UD_PROFILES else None


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
