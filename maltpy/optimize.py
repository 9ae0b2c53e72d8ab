"""``maltpy optimize``: MaltOptimizer's search over a treebank, built in.

MaltOptimizer (Ballesteros and Nivre 2012, "MaltOptimizer: A System for MaltParser Optimization",
LREC) tunes MaltParser for a treebank in phases, each keeping the best of the one before:

1. Data analysis: size, non-projectivity, which columns carry information, the root labels;
   from these, the algorithms to try, the pseudo-projective encodings and how to score.
2. The parsing algorithm: every candidate with its default feature model, the pseudo-projective
   encodings of Nivre and Nilsson (2005) for the projective ones, then the root options.
3. The feature model: backward elimination over the default model, then forward selection over
   the groups of ``feature_groups`` (MaltParser's feature language); a change is kept only when it
   gains at least ``threshold`` LAS points.
4. The learner: LIBLINEAR's C (LIBSVM's C and gamma) on a small grid.

A trial learns a parser on the training part and scores LAS (punctuation included, as
MaltParser's evaluation) on the held-out part: the dev file (``-d``), K folds of the training
file (``--folds``), or by default a seeded 80/20 split of it, or 5 folds when it is small.
Trials are independent processes (``--jobs``, or a Dask cluster's workers); the decisions are
taken in a fixed order from the scores alone, so a search is the same for a seed whatever the
number of jobs, and ``--resume`` replays a search from its trial log without running again the
trials it holds.

Out: ``OUT_DIR/config.yaml`` and ``OUT_DIR/features.txt`` (what ``maltpy learn -c`` takes),
rewritten after every phase, so that a search cut short leaves its best so far; and the trial log
``OUT_DIR/trials.jsonl``, one JSON object per line: first the search's inputs and data analysis,
then one per trial as it ends (``key``, ``phase``, ``what`` it changed, ``las``, ``correct``,
``words``, ``seconds``, ``error``, ``config``, ``features``), and one per phase as it ends
(``phase_end``, ``las``, ``start_las``, ``trials``, ``seconds``, ``kept``).
"""

from __future__ import annotations

import collections
import concurrent.futures
import contextlib
import hashlib
import io
import json
import math
import os
import random
import re
import shutil
import signal
import stat
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import yaml

from .config import LEARNER_OPTIONS, config_from_dict
from .config import OPTIMIZE_ROUNDS as ROUNDS
from .config import OPTIMIZE_THRESHOLD as THRESHOLD
from .conll import ConllReader, Sentence, format_sentence
from .errors import MaltpyError, counted, cut
from .evaluate import attachment_scores
from .features import load_feature_model
from .features.spec import FAMILY
from .files import atomic_output, check_output_path, make_folder, read_conll
from .jobs import Tasks
from .tree import is_projective, nonprojective_arcs

LOG_VERSION = 1
#: Below this many training tokens, a search without -d or --folds scores by 5-fold cross-validation:
#: a fifth of a small treebank is too few words to tell settings apart (da_ddt's dev file has 10,000).
SMALL_TREEBANK = 30_000
SMALL_FOLDS = 5
HOLDOUT = 0.2  # the share held out of the training file by default
#: Phase 2 takes the best algorithm and root options: any gain counts (a tie keeps the default).
ROOT_GAIN = 0.0001
PROJECTIVE = ("nivreeager", "nivrestandard", "stackproj", "covproj")
NONPROJECTIVE = ("stacklazy", "stackeager", "covnonproj", "2planar", "planar")
MARKINGS = ("head", "path", "head+path", "baseline")
LIBLINEAR_C = (0.01, 0.025, 0.05, 0.1, 0.2, 0.4, 0.8)
LIBSVM_C = (0.25, 0.5, 1.0, 2.0)
LIBSVM_GAMMA = (0.1, 0.2, 0.4)
MAX_LOG_BYTES = 1 << 30  # a search of a million trials writes less
MAX_LOG_LINE = 1 << 20  # a trial's line holds its feature model: some kilobytes
#: A column "carries information" when at least this share of its words is not ``_``.
INFORMATIVE = 0.5


# --- phase 1: data analysis --------------------------------------------------------------------


@dataclass
class Analysis:
    """What MaltOptimizer's first phase learns from the training data."""

    format: str
    sentences: int
    tokens: int
    nonprojective_sentences: int
    nonprojective_arcs: int
    #: column -> share of words whose value is not ``_``
    filled: dict[str, float]
    #: the second part-of-speech column differs from the first on some words
    two_tags: bool
    #: LEMMA differs from the lower-cased FORM on some words
    lemma_differs: bool
    root_labels: dict[str, int]
    sentences_with_several_roots: int

    @property
    def tag(self) -> str:
        """The part-of-speech column the default feature models use for this format."""
        return "UPOSTAG" if self.format == "conllu" else "POSTAG"

    @property
    def other_tag(self) -> str:
        return "XPOSTAG" if self.format == "conllu" else "CPOSTAG"

    def uses(self, column: str) -> bool:
        """Is the column worth features? (present, and not a copy of what features already see)"""
        if column == "LEMMA":
            return self.filled["LEMMA"] >= INFORMATIVE and self.lemma_differs
        if column == self.other_tag:
            return self.filled[column] >= INFORMATIVE and self.two_tags
        return self.filled.get(column, 0.0) >= INFORMATIVE

    def algorithms(self) -> tuple[str, ...]:
        """The algorithms to try: the projective ones always; the non-projective ones where the
        treebank has non-projective arcs (as MaltOptimizer's phase 1 proposes)."""
        return PROJECTIVE + (NONPROJECTIVE if self.nonprojective_arcs else ())

    def as_dict(self) -> dict[str, Any]:
        return {
            "format": self.format, "sentences": self.sentences, "tokens": self.tokens,
            "nonprojective_sentences": self.nonprojective_sentences, "nonprojective_arcs": self.nonprojective_arcs,
            "filled": {k: round(v, 3) for k, v in self.filled.items()}, "two_tags": self.two_tags,
            "lemma_differs": self.lemma_differs, "root_labels": self.root_labels,
            "sentences_with_several_roots": self.sentences_with_several_roots,
        }  # fmt: skip

    def describe(self) -> list[str]:
        pct = 100 * self.nonprojective_sentences / max(self.sentences, 1)
        arcs = 100 * self.nonprojective_arcs / max(self.tokens, 1)
        used = [c for c in ("LEMMA", self.other_tag, "FEATS") if self.uses(c)]
        roots = ", ".join(f"{k} {v}" for k, v in sorted(self.root_labels.items(), key=lambda kv: -kv[1])[:3])
        return [
            f"{self.sentences:,} sentences, {self.tokens:,} tokens ({self.format})",
            f"non-projective: {pct:.1f}% of sentences, {arcs:.2f}% of arcs",
            f"columns with information beyond FORM and {self.tag}: {', '.join(used) or 'none'}",
            f"root labels: {roots}; {counted(self.sentences_with_several_roots, 'sentence')} with several roots",
            f"to try: {', '.join(self.algorithms())}"
            + ("; pseudo-projective encodings for the projective ones" if self.nonprojective_arcs else ""),
        ]


def analyse(sentences: Sequence[Sentence], data_format: str) -> Analysis:
    """Phase 1 over the training sentences."""
    columns = {"LEMMA": 2, "CPOSTAG": 3, "POSTAG": 4, "FEATS": 5}
    if data_format == "conllu":
        columns = {"LEMMA": 2, "UPOSTAG": 3, "XPOSTAG": 4, "FEATS": 5}
    filled = Counter()
    tokens = np_sentences = np_arcs = several = 0
    two_tags = lemma_differs = False
    roots: Counter = Counter()
    for sentence in sentences:
        heads, labels = sentence.heads, sentence.labels
        tokens += len(sentence)
        for word in sentence.words:
            for name, i in columns.items():
                filled[name] += word[i] != "_"
            two_tags = two_tags or word[3] != word[4]
            lemma_differs = lemma_differs or word[2] != word[1].lower()
        if not is_projective(heads):
            np_sentences += 1
            np_arcs += len(nonprojective_arcs(heads))
        on_root = [labels[d] for d in range(1, len(heads)) if heads[d] == 0]
        roots.update(on_root)
        several += len(on_root) > 1
    return Analysis(
        data_format, len(sentences), tokens, np_sentences, np_arcs,
        {name: filled[name] / max(tokens, 1) for name in columns}, two_tags, lemma_differs, dict(roots), several,
    )  # fmt: skip


# --- the feature space of phase 3 --------------------------------------------------------------

#: Per family: the two words a transition relates (the focus), then the words around them,
#: nearest first. The focus words are the "top items" of MaltOptimizer's structural features.
FOCUS = {
    "nivre": ("Stack[0]", "Input[0]"),
    "planar": ("Stack[0]", "Input[0]"),
    "twoplanar": ("ActiveStack[0]", "Input[0]"),
    "stack": ("Stack[0]", "Stack[1]"),
    "covington": ("Left[0]", "Right[0]"),
}
CONTEXT = {
    "nivre": ("Stack[1]", "Input[1]", "Input[2]", "Stack[2]", "Input[3]"),
    "planar": ("Stack[1]", "Input[1]", "Input[2]", "Stack[2]", "Input[3]"),
    "twoplanar": ("ActiveStack[1]", "Input[1]", "Input[2]", "InactiveStack[0]", "Input[3]"),
    "stack": ("Lookahead[0]", "Stack[2]", "Lookahead[1]", "Input[0]", "Lookahead[2]"),
    "covington": ("Left[1]", "Right[1]", "Right[2]", "Left[2]", "LeftContext[0]", "RightContext[0]"),
}
DISTANCE_BINS = "0|1|2|3|4|5|6|7|8|9|10"
VALENCY_BINS = "0|1|2|3|4|5|6"


def readable(feature: str) -> str:
    """One spelling of a feature: no blanks, a blank after each comma (the default models' files
    and the candidates below are compared in it)."""
    return re.sub(r"\s+", "", feature).replace(",", ", ")


def _col(column: str, address: str) -> str:
    kind = "OutputColumn" if column == "DEPREL" else "InputColumn"
    return f"{kind}({column}, {address})"


def feature_groups(algorithm: str, analysis: Analysis) -> list[tuple[str, list[str]]]:
    """Phase 3's forward candidates for ``algorithm``, in groups tried in order: each group's
    features are tried one at a time against the current model (see ``Search.greedy``).

    The space is MaltOptimizer's (part-of-speech and word-form windows, lemma and morphology of the
    focus words, structure around them, conjunctions of tags, forms and labels, distance and
    valency), plus the suffixes of the issue; the windows follow each family's addresses."""
    family = FAMILY[algorithm]
    a, b = FOCUS[family]
    context = CONTEXT[family]
    tag, other = analysis.tag, analysis.other_tag
    focus = (a, b)
    deps = [f"{side}({x})" for side in ("ldep", "rdep") for x in focus]  # varying() drops the ones always empty
    groups: list[tuple[str, list[str]]] = [
        ("part-of-speech window", [_col(tag, x) for x in context] + [_col(tag, f"head({a})")]),
        ("word-form window", [_col("FORM", x) for x in focus + context[:4]] + [_col("FORM", f"head({a})")]),
    ]
    if analysis.uses(other):
        groups.append((f"{other} of the top items", [_col(other, x) for x in focus + context[:2]]))
    if analysis.uses("LEMMA"):
        groups.append(("LEMMA of the top items", [_col("LEMMA", x) for x in focus + context[:2]]))
    if analysis.uses("FEATS"):
        groups.append((
            "FEATS of the top items",
            [f"Split({_col('FEATS', x)}, \\|)" for x in focus + context[:2]] + [_col("FEATS", x) for x in focus],
        ))  # fmt: skip
    groups.append(("suffixes of FORM", [f"Suffix({_col('FORM', x)}, {n})" for n in (3, 2) for x in focus]
                   + [f"Suffix({_col('FORM', context[0])}, 3)"]))  # fmt: skip
    groups.append((
        "structure around the top items",
        [_col(tag, d) for d in deps] + [_col("DEPREL", d) for d in deps] + [_col("FORM", d) for d in deps]
        + [_col("DEPREL", a), _col("DEPREL", f"head({a})"), _col(tag, f"head(head({a}))")],
    ))  # fmt: skip
    merges = [
        f"Merge({_col(tag, a)}, {_col('FORM', b)})",
        f"Merge({_col('FORM', a)}, {_col(tag, b)})",
        f"Merge({_col('FORM', a)}, {_col('FORM', b)})",
        f"Merge3({_col(tag, a)}, {_col(tag, b)}, {_col('DEPREL', f'ldep({b})')})",
        f"Merge3({_col(tag, b)}, {_col('DEPREL', f'ldep({b})')}, {_col('DEPREL', f'rdep({b})')})",
        f"Merge({_col(tag, b)}, {_col(tag, context[0])})",
        f"Merge({_col(tag, a)}, {_col(tag, f'head({a})')})",
    ]  # fmt: skip
    if analysis.uses("LEMMA"):
        merges += [f"Merge({_col(tag, a)}, {_col('LEMMA', b)})", f"Merge({_col('LEMMA', a)}, {_col(tag, b)})"]
    if analysis.uses("FEATS"):
        merges += [f"Merge({_col('FEATS', a)}, {_col('FEATS', b)})", f"Merge({_col(tag, a)}, {_col('FEATS', b)})"]
    groups.append(("conjunctions (Merge, Merge3)", merges))
    groups.append((
        "distance and valency",
        [f"Distance({a}, {b}, {DISTANCE_BINS})"]
        + [f"NumOf({x}, {side}, {VALENCY_BINS})" for side in ("ldeps", "rdeps") for x in focus],
    ))  # fmt: skip
    return [(name, list(dict.fromkeys(readable(c) for c in candidates))) for name, candidates in groups]


#: Per family, the words beyond CONTEXT, for the wider windows of the later rounds.
FURTHER = {
    "nivre": ("Input[4]", "Stack[3]"),
    "planar": ("Input[4]", "Stack[3]"),
    "twoplanar": ("Input[4]", "ActiveStack[2]", "InactiveStack[1]"),
    "stack": ("Lookahead[3]", "Stack[3]"),
    "covington": ("Right[3]", "Left[3]"),
}


def wider_groups(algorithm: str, analysis: Analysis) -> list[tuple[str, list[str]]]:
    """The candidates of the rounds after the first (when the budget allows them): the windows
    one or two words wider, lexical and morphological pairs, and one step deeper in the tree."""
    family = FAMILY[algorithm]
    a, b = FOCUS[family]
    context, further = CONTEXT[family], FURTHER[family]
    tag = analysis.tag
    wide = context[2:] + further
    words = [_col(tag, x) for x in further] + [_col("FORM", x) for x in wide] + [f"Suffix({_col('FORM', x)}, 3)"
                                                                              for x in context[:2]]  # fmt: skip
    pairs = [
        f"Merge3({_col(tag, a)}, {_col(tag, b)}, {_col(tag, context[0])})",
        f"Merge({_col(tag, a)}, {_col('DEPREL', a)})",
        f"Merge({_col('FORM', a)}, {_col('DEPREL', f'ldep({a})')})",
        f"Merge({_col(tag, b)}, {_col('FORM', context[0])})",
    ]
    deeper = [_col(tag, f"ldep(ldep({a}))"), _col(tag, f"rdep(rdep({a}))"), _col(tag, f"head({b})"),
              _col("FORM", f"head(head({a}))"), _col(tag, f"ldep({context[0]})")]  # fmt: skip
    if analysis.uses("LEMMA"):
        words += [_col("LEMMA", x) for x in wide] + [_col("LEMMA", f"head({a})")]
        pairs += [f"Merge({_col('LEMMA', a)}, {_col('LEMMA', b)})"]
    if analysis.uses("FEATS"):
        words += [f"Split({_col('FEATS', x)}, \\|)" for x in wide + (f"head({a})",)]
        pairs += [f"Merge({_col('FEATS', a)}, {_col(tag, b)})", f"Merge({_col('FEATS', a)}, {_col('DEPREL', a)})"]
        deeper += [f"Split({_col('FEATS', f'ldep({a})')}, \\|)", f"Split({_col('FEATS', f'ldep({b})')}, \\|)"]
    groups = [("wider windows", words), ("more conjunctions", pairs), ("deeper structure", deeper)]
    return [(name, list(dict.fromkeys(readable(c) for c in candidates))) for name, candidates in groups]


#: Sentences of the training data the oracle walks to find the candidates that never vary.
VARYING_SAMPLE = 300


def varying(candidates: Sequence[str], setting: Setting, sentences: Sequence[Sentence],
            data_format: str) -> set[str]:  # fmt: skip
    """The candidates whose value is not the same in every configuration the oracle passes on
    the first VARYING_SAMPLE training sentences. A feature that never varies for the algorithm
    (the head of a stack word in the stack systems, whose words get their head as they leave it;
    the contexts of covproj) tells the learner nothing, and a trial of it would only measure noise."""
    from .parser import columns_of
    from .pseudoproj import DeprelOf, projectivize
    from .transition import system_for
    from .transition.base import Gold, replay_oracle

    if not candidates:
        return set()
    groups = setting.groups
    with tempfile.TemporaryDirectory(prefix="maltpy-optimize-") as folder:
        groups.setdefault("guide", {})["features"] = path = os.path.join(folder, "candidates.txt")
        with open(path, "w", encoding="utf-8") as f:
            f.write("".join(line + "\n" for line in candidates))
        config = config_from_dict(groups, "maltpy optimize")
        pproj = config.pproj
        deprel_of = DeprelOf(pproj) if pproj.marks_labels else None
        fm = load_feature_model(path, config.singlemalt.parsing_algorithm, config.guide.learner, data_format,
                                config.singlemalt.null_value, deprel_of)  # fmt: skip
    order = [readable(s.text) for s in fm.specs]  # MaltParser's order, not the file's
    system = system_for(config, learning=True)
    seen: list[set] = [set() for _ in order]
    for sentence in sentences[:VARYING_SAMPLE]:
        heads, labels = sentence.heads, sentence.labels
        if pproj.active:
            lifted = projectivize(heads, labels, pproj)
            heads, labels = lifted.heads, lifted.labels
        columns, c = columns_of(sentence), system.initial(len(sentence))
        for _, _, asked in replay_oracle(system, Gold(heads, labels), c):
            if asked:
                for values, value in zip(seen, fm.extract(c, columns)):
                    if len(values) < 2:
                        values.add(repr(value))
    return {feature for feature, values in zip(order, seen) if len(values) > 1}


def default_features(algorithm: str, learner: str, data_format: str) -> tuple[str, ...]:
    """The default feature model of the algorithm, learner and format, one line per feature."""
    fm = load_feature_model(None, algorithm, learner, data_format, "one")
    return tuple(readable(s.text) for s in sorted(fm.specs, key=lambda s: s.line))


# --- settings and trials -----------------------------------------------------------------------


@dataclass(frozen=True)
class Setting:
    """One point of the search: the configuration's groups (YAML's, as ``config_from_dict``
    takes them, the feature file aside) and the feature model's lines."""

    options: str  # JSON, keys sorted: hashable and the same text for the same settings
    features: tuple[str, ...]

    @classmethod
    def make(cls, options: dict, features: Iterable[str]) -> Setting:
        return cls(json.dumps(options, sort_keys=True), tuple(features))

    @property
    def groups(self) -> dict[str, dict[str, Any]]:
        return json.loads(self.options)

    @property
    def algorithm(self) -> str:
        return self.groups["singlemalt"]["parsing_algorithm"]

    def key(self) -> str:
        text = json.dumps([self.options, list(self.features)])
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:20]

    def changed(self, **groups: dict[str, Any]) -> Setting:
        """A copy with these groups' keys set."""
        options = self.groups
        for group, values in groups.items():
            options.setdefault(group, {}).update(values)
        return Setting.make(options, self.features)

    def with_features(self, features: Iterable[str]) -> Setting:
        return Setting(self.options, tuple(features))


@dataclass
class Result:
    setting: Setting
    las: float | None  # None: the trial failed (see error) or was not run
    seconds: float = 0.0
    error: str | None = None


@dataclass(frozen=True)
class Data:
    """Where a trial's sentences come from: the files and how they are split (small and
    picklable, so that a Dask worker can rebuild the same splits)."""

    train: str
    train_sha256: str
    dev: str | None
    dev_sha256: str | None
    folds: int  # 1 with dev or holdout
    seed: int
    data_format: str


class _Split:
    def __init__(self, train: list[Sentence], dev: list[Sentence], data_format: str) -> None:
        self.train = train
        self.dev = dev
        self.dev_text = "".join(format_sentence(s, data_format) for s in dev).encode("utf-8")


def splits_of(sentences: list[Sentence], dev: list[Sentence] | None, folds: int, seed: int,
              data_format: str) -> list[_Split]:  # fmt: skip
    """Training and held-out parts: the dev file; or K folds of a seeded shuffle; or, with
    folds == 1, a seeded HOLDOUT share of the training sentences held out."""
    if dev is not None:
        return [_Split(sentences, dev, data_format)]
    order = list(range(len(sentences)))
    random.Random(seed).shuffle(order)
    if folds == 1:
        held = set(order[: max(1, round(HOLDOUT * len(order)))])
        parts = [held]
    else:
        parts = [set(order[k::folds]) for k in range(folds)]
    return [
        _Split([s for i, s in enumerate(sentences) if i not in part], [sentences[i] for i in sorted(part)], data_format)
        for part in parts
    ]


def read_sentences(path: str, data_format: str = "auto") -> tuple[list[Sentence], str]:
    with read_conll(path, data_format) as reader:
        sentences = list(reader)
        fmt = reader.format
    for s in sentences:
        if s.heads is None:
            raise MaltpyError("optimizing needs gold trees, but HEAD is _", path, s.line)
    if not sentences:
        raise MaltpyError("no sentences to optimize on", path)
    return sentences, fmt


_worker_data: dict[Data, list[_Split]] = {}


def _splits(data: Data) -> list[_Split]:
    """The data's splits, read once per worker process; the files must be those the search began
    with (a file edited meanwhile, or another copy on a cluster's worker, would mix two searches)."""
    if data not in _worker_data:
        for path, digest in ((data.train, data.train_sha256), (data.dev, data.dev_sha256)):
            if path is not None and file_digest(path) != digest:
                raise MaltpyError("changed since the search began (or differs on this worker)", path)
        train, _ = read_sentences(data.train, data.data_format)
        dev = read_sentences(data.dev, data.data_format)[0] if data.dev else None
        _worker_data.clear()
        _worker_data[data] = splits_of(train, dev, data.folds, data.seed, data.data_format)
    return _worker_data[data]


def run_trial(data: Data, part: int, options: str, features: tuple[str, ...]) -> tuple[int, int, float]:
    """Learn on one split's training part, parse its held-out part: (correct, words, seconds).
    Runs in a worker process (or a Dask worker)."""
    from .parser import learn

    started = time.perf_counter()
    split = _splits(data)[part]
    groups = json.loads(options)
    with tempfile.TemporaryDirectory(prefix="maltpy-optimize-") as folder:
        groups.setdefault("guide", {})["features"] = path = os.path.join(folder, "features.txt")
        with open(path, "w", encoding="utf-8") as f:
            f.write("".join(line + "\n" for line in features))
        config = config_from_dict(groups, "maltpy optimize")
        model = learn(config, split.train, data.data_format, data.train)
    reader = ConllReader(io.BytesIO(split.dev_text), "held-out part", data.data_format, blind=True)
    # no warning of unseen values: a trial is one of hundreds, and its held-out part the treebank's
    scores = attachment_scores(split.dev, model.parse(reader, watch=None), "held-out part", "its parse")
    return scores.right_both, scores.tokens, time.perf_counter() - started


# --- the search --------------------------------------------------------------------------------


@dataclass
class PhaseSummary:
    name: str
    trials: int = 0
    seconds: float = 0.0
    start_las: float | None = None
    end_las: float | None = None
    changes: list[str] = field(default_factory=list)


@dataclass
class _Tally:
    """The folds of one trial, added up as they end."""

    correct: int = 0
    words: int = 0
    seconds: float = 0.0
    error: str | None = None
    parts: int = 0

    def add(self, correct: int, words: int, seconds: float) -> None:
        self.correct += correct
        self.words += words
        self.seconds += seconds
        self.parts += 1

    def fail(self, error: str) -> None:
        self.error = self.error or error
        self.parts += 1


@contextlib.contextmanager
def _signals_held() -> Iterator[None]:
    """Termination signals wait (are delivered after) while the block runs: a second SIGTERM
    must not interrupt the stopping of the workers, nor a signal leave config.yaml and
    features.txt of two different settings."""
    held = {getattr(signal, n) for n in ("SIGTERM", "SIGHUP", "SIGINT") if hasattr(signal, n)}
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, held) if hasattr(signal, "pthread_sigmask") else None
    try:
        yield
    finally:
        if previous is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, previous)


#: What a trial takes (peak resident memory of a LIBLINEAR trial: 114 MB on da_ddt's dev file of
#: 0.66 MB, 399 MB on en_lines' training file of 3.9 MB): an interpreter with its libraries, and
TRIAL_BYTES = 64 << 20
#: this many times the bytes of the treebank it reads (and the dev file's); LIBSVM adds its kernel
#: cache (-m, 100 MB).
TRIAL_FACTOR = 100


def trial_bytes(train: str, dev: str | None, learner: str) -> int:
    """About the memory one trial process takes, to bound ``--jobs`` by (jobs.bound_jobs)."""
    size = 0
    for path in (train, dev):
        with contextlib.suppress(OSError, TypeError):  # a missing file is reported by the search
            size += os.path.getsize(path)
    cache = int(LEARNER_OPTIONS["libsvm"]["m"].default) << 20 if learner == "libsvm" else 0
    return TRIAL_BYTES + TRIAL_FACTOR * size + cache


def _in_folder(folder: str) -> None:
    """A trial process's temporary files (its feature model, LIBSVM's model file) go into the
    search's folder, which the search removes however it ends: a trial process it stops is
    killed before it could remove its own."""
    tempfile.tempdir = folder


class Runner:
    """Where trials run: ``jobs`` worker processes (``jobs.Tasks``), started as trials come, or
    a Dask cluster's workers. ``stop`` ends them at once (the deadline, a signal, an error); ``close`` after a
    search that finished. Either removes the folder of the processes' temporary files."""

    def __init__(self, jobs: int, scheduler: str | None) -> None:
        self.client = None
        self.folder: str | None = None
        if scheduler is None:
            self.jobs = jobs
            try:
                self.folder = tempfile.mkdtemp(prefix="maltpy-optimize-")
            except OSError as e:
                raise MaltpyError(f"cannot make a folder: {e.strerror}", tempfile.gettempdir()) from None
            self.executor: Tasks | concurrent.futures.Executor = Tasks(jobs, _in_folder, (self.folder,))
            return
        try:
            from distributed import Client
        except ImportError as e:
            raise MaltpyError(f"--scheduler needs Dask ({e}): pip install 'maltpy[dask]'", "command line") from None
        try:
            self.client = Client(scheduler, timeout=30)
            workers = sum(self.client.nthreads().values())
        except (OSError, ValueError, TimeoutError) as e:
            if self.client is not None:
                self.client.close()
            raise MaltpyError(f"--scheduler {scheduler}: no Dask cluster there ({e})", "command line") from None
        if not workers:
            self.client.close()
            raise MaltpyError(f"--scheduler {scheduler}: the cluster has no workers", "command line")
        self.jobs = max(jobs, workers)
        self.executor = self.client.get_executor()

    def submit(self, *args: Any) -> concurrent.futures.Future:
        return self.executor.submit(run_trial, *args)

    def stop(self) -> None:
        """End every trial now: the worker processes are killed (a cluster's tasks cancelled)."""
        with _signals_held():
            if self.client is not None:
                self.executor.shutdown(wait=False)
                self.client.close()
                return
            self.executor.stop()
            self._remove_folder()

    def close(self) -> None:
        if self.client is not None:
            self.client.close()
        else:
            self.executor.shutdown(wait=True)
            with _signals_held():
                self._remove_folder()

    def _remove_folder(self) -> None:
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)
            self.folder = None


#: Failures of the machine, not of the setting: the search stops (--resume continues it) rather
#: than log the trial as failed, which a resumed search would take for the setting's score.
INFRASTRUCTURE = (concurrent.futures.BrokenExecutor, concurrent.futures.CancelledError, MemoryError, OSError)


def _stopped(error: BaseException) -> MaltpyError:
    return MaltpyError(f"a trial's process failed ({type(error).__name__}: {cut(str(error), 200)}); the trials "
                       "that ended are in the log, and --resume continues the search", "maltpy optimize")  # fmt: skip


def _infrastructure(error: BaseException) -> bool:
    return isinstance(error, INFRASTRUCTURE) or type(error).__module__.startswith("distributed")


class Search:
    """Runs trials (in parallel, from the cache on --resume), within the budget, and logs them."""

    def __init__(self, data: Data, splits: int, runner: Runner, deadline: float, log: TrialLog,
                 cache: dict[str, dict], threshold: float,
                 progress: Callable[[Search], None] | None) -> None:  # fmt: skip
        self.data = data
        self.splits = splits
        self.runner = runner
        self.jobs = runner.jobs
        self.deadline = deadline
        self.log = log
        self.cache = cache
        self.threshold = threshold
        self.progress = progress
        self.trials = 0  # run or taken from the log, in this search
        self.task_seconds: list[float] = []
        self.out_of_time = False
        self.phase = ""
        self.failures: list[Result] = []
        self.started = time.monotonic()
        self.last_note = ""

    def expected_task(self) -> float:
        """How long one task is expected to take: the slowest of the recent ones, so that a task
        started before the deadline ends before it."""
        return max(self.task_seconds[-8:]) if self.task_seconds else 0.0

    def time_for(self, tasks: int) -> bool:
        """Can ``tasks`` tasks (those running and those to start) end before the deadline?"""
        rounds = math.ceil(tasks / self.jobs)
        return time.monotonic() + rounds * self.expected_task() <= self.deadline

    def evaluate(self, settings: Sequence[Setting], what: Sequence[str]) -> list[Result]:
        """Score each setting, its folds in parallel with each other and with the next settings'.
        A setting starts only if all its folds can end before the deadline; at the deadline the
        trials still running are stopped. A setting the budget leaves no time for comes back with
        las None, unlogged. Trials are logged as they end."""
        results: list[Result | None] = [None] * len(settings)
        waiting: collections.deque[int] = collections.deque()
        for i, s in enumerate(settings):
            record = self.cache.get(s.key())
            if record is not None:
                results[i] = Result(s, record["las"], record["seconds"], record.get("error"))
                self._logged(results[i], what[i])
            else:
                waiting.append(i)
        tasks: collections.deque[tuple[int, int]] = collections.deque()
        tallies = {i: _Tally() for i in waiting}
        running: dict[concurrent.futures.Future, int] = {}
        while (waiting or tasks or running) and not self.out_of_time:
            while len(running) < self.jobs:
                if not tasks and waiting:
                    if not self.time_for(len(running) + self.splits):
                        self.out_of_time = True
                        break
                    i = waiting.popleft()
                    tasks.extend((i, part) for part in range(self.splits))
                if not tasks:
                    break
                i, part = tasks.popleft()
                s = settings[i]
                running[self._submit(self.data, part, s.options, s.features)] = i
            if not running:
                break
            left = self.deadline - time.monotonic()
            done, _ = concurrent.futures.wait(running, timeout=max(left, 0), return_when="FIRST_COMPLETED")
            if not done:  # the deadline: what still runs is stopped, unlogged (--resume runs it)
                self.out_of_time = True
                self.runner.stop()
                break
            for future in done:
                i = running.pop(future)
                tally = tallies[i]
                try:
                    correct, words, seconds = future.result()
                except BaseException as e:
                    if not isinstance(e, Exception) or _infrastructure(e):
                        raise _stopped(e) from None
                    tally.fail(e.message if isinstance(e, MaltpyError) else f"{type(e).__name__}: {e}")
                else:
                    self.task_seconds.append(seconds)
                    tally.add(correct, words, seconds)
                if tally.parts == self.splits:
                    results[i] = self._finished(settings[i], what[i], tally)
        return [r if r is not None else Result(s, None) for r, s in zip(results, settings)]

    def _submit(self, *args: Any) -> concurrent.futures.Future:
        try:
            return self.runner.submit(*args)
        except (concurrent.futures.BrokenExecutor, RuntimeError) as e:
            raise _stopped(e) from None

    def _finished(self, setting: Setting, what: str, tally: _Tally) -> Result:
        if tally.error is None and not tally.words:
            tally.error = "no words to score"
        las = None if tally.error is not None else round(100 * tally.correct / tally.words, 4)
        result = Result(setting, las, round(tally.seconds, 2), tally.error)
        record = {
            "trial": len(self.cache) + 1, "phase": self.phase, "what": what, "key": setting.key(), "las": las,
            "correct": tally.correct, "words": tally.words, "seconds": round(tally.seconds, 2), "error": tally.error,
            "config": setting.groups, "features": list(setting.features),
        }  # fmt: skip
        self.log.write(record)
        self.cache[setting.key()] = record
        self._logged(result, what)
        return result

    def _logged(self, result: Result, what: str) -> None:
        self.trials += 1
        if result.las is None:
            self.failures.append(result)
        self.last_note = f"{what}: {result.las if result.las is not None else 'failed'}"
        if self.progress:
            self.progress(self)

    def better(self, result: Result, than: Result, threshold: float) -> bool:
        return result.las is not None and than.las is not None and result.las >= than.las + threshold

    def best_of(self, base: Result, alternatives: Sequence[tuple[str, Setting]],
                threshold: float) -> tuple[Result, list[str]]:  # fmt: skip
        """The best of settings that exclude each other, if it gains ``threshold`` on ``base``
        (the first of equals); else ``base``. Returns it with its name ([] for ``base``)."""
        tried = self.evaluate([setting for _, setting in alternatives], [name for name, _ in alternatives])
        winner = max((r for r in tried if r.las is not None), key=lambda r: r.las, default=None)
        if winner is None or not self.better(winner, base, threshold):
            return base, []
        return winner, [alternatives[tried.index(winner)][0]]

    def greedy(self, base: Result, changes: Sequence[tuple[str, Callable[[Setting], Setting]]],
               threshold: float) -> tuple[Result, list[str]]:  # fmt: skip
        """Try each change alone on ``base``; keep the best that gains ``threshold``, then add
        the other gaining ones one at a time, best first, each kept if it gains again. Ties go
        to the earlier change: the order of ``changes`` decides, never timing."""
        if not changes:
            return base, []
        tried = self.evaluate([change(base.setting) for _, change in changes], [name for name, _ in changes])
        gaining = [(r.las, -i, i) for i, r in enumerate(tried) if self.better(r, base, threshold)]
        gaining.sort(reverse=True)
        if not gaining:
            return base, []
        first = gaining[0][2]
        current, kept = tried[first], [changes[first][0]]
        for _, _, i in gaining[1:]:
            name, change = changes[i]
            result = self.evaluate([change(current.setting)], [name])[0]
            if self.better(result, current, threshold):
                current, kept = result, kept + [name]
        return current, kept


# --- the phases --------------------------------------------------------------------------------


def _base_setting(algorithm: str, learner: str, data_format: str) -> Setting:
    options = {
        "singlemalt": {"parsing_algorithm": algorithm},
        "guide": {"learner": learner},
        "lib": {"options": {flag: spec.default for flag, spec in LEARNER_OPTIONS[learner].items() if flag != "w"}},
        "input": {"format": data_format},
    }
    return Setting.make(options, default_features(algorithm, learner, data_format))


def phase_algorithm(search: Search, analysis: Analysis, learner: str) -> tuple[Result, list[str]]:
    """Phase 2: the algorithms with their default features; the pseudo-projective encodings for
    the two best projective ones (where the data have non-projective arcs); the root options."""
    algorithms = analysis.algorithms()
    settings = [_base_setting(a, learner, analysis.format) for a in algorithms]
    results = search.evaluate(settings, list(algorithms))
    scored = [r for r in results if r.las is not None]
    if not scored:
        failed = next((r.error for r in results if r.error is not None), None)
        if failed is not None:
            raise MaltpyError(f"every trial of the algorithms failed; the first: {failed}", "maltpy optimize")
        raise MaltpyError("no trial of the algorithms finished: a larger --budget is needed", "maltpy optimize")
    best = max(scored, key=lambda r: r.las)  # max keeps the first of equals: the list's order
    notes = [f"{best.setting.algorithm} of {len(scored)} algorithms"]
    if analysis.nonprojective_arcs:
        projective = sorted((r for r in scored if r.setting.algorithm in PROJECTIVE), key=lambda r: -r.las)[:2]
        lifted = [r.setting.changed(pproj={"marking_strategy": m}) for r in projective for m in MARKINGS]
        names = [f"{r.setting.algorithm} -pp {m}" for r in projective for m in MARKINGS]
        for r, name in zip(search.evaluate(lifted, names), names):
            if r.las is not None and r.las > best.las:
                best, notes = r, [name]
    best, kept = search.greedy(best, root_options(best.setting), ROOT_GAIN)
    if "pproj" in best.setting.groups:  # covered roots: three alternatives
        covered = [(f"-pcr {c}", best.setting.changed(pproj={"covered_root": c})) for c in ("left", "right", "head")]
        best, chosen = search.best_of(best, covered, ROOT_GAIN)
        kept += chosen
    return best, notes + kept


def root_options(setting: Setting) -> list[tuple[str, Callable[[Setting], Setting]]]:
    """The options MaltOptimizer tries after choosing the algorithm: how the root takes its
    dependents, REDUCE and SHIFT, and for a pseudo-projective encoding its covered roots and
    lifting order."""
    family = FAMILY[setting.algorithm]
    changes: list[tuple[str, Callable[[Setting], Setting]]] = []
    if family == "nivre":
        changes.append(("-nr false", lambda s: s.changed(nivre={"allow_root": False})))
        if setting.algorithm == "nivreeager":
            changes.append(("-ne true", lambda s: s.changed(nivre={"allow_reduce": True})))
    elif family == "covington":
        changes.append(("-cr false", lambda s: s.changed(covington={"allow_root": False})))
        changes.append(("-cs true", lambda s: s.changed(covington={"allow_shift": True})))
    elif family in ("planar", "twoplanar"):
        changes.append(("-prh relaxed", lambda s: s.changed(multiplanar={"planar_root_handling": "relaxed"})))
        if family == "twoplanar":
            changes.append(("-2pr true", lambda s: s.changed(**{"2planar": {"reduceonswitch": True}})))
    if "pproj" in setting.groups:
        changes.append(("-plo deepest", lambda s: s.changed(pproj={"lifting_order": "deepest"})))
    return changes


def phase_features(search: Search, best: Result, analysis: Analysis, sentences: Sequence[Sentence],
                   round_: int = 1) -> tuple[Result, list[str]]:  # fmt: skip
    """Phase 3: backward elimination over the model's features, then forward selection group by
    group (``feature_groups``), each change kept when it gains ``search.threshold``. A later round
    (the budget allowing) has no backward step and tries ``wider_groups`` too."""
    kept: list[str] = []
    if round_ == 1:
        removals = [(f"- {line}", lambda s, line=line: s.with_features(x for x in s.features if x != line))
                    for line in best.setting.features]  # fmt: skip
        best, kept = search.greedy(best, removals, search.threshold)
    groups = feature_groups(best.setting.algorithm, analysis)
    if round_ > 1:
        groups += wider_groups(best.setting.algorithm, analysis)
    useful = varying([c for _, group in groups for c in group], best.setting, sentences, analysis.format)
    for _, candidates in groups:
        if search.out_of_time:
            break
        new = [c for c in candidates if c not in best.setting.features and c in useful]
        additions = [(f"+ {line}", lambda s, line=line: s.with_features(s.features + (line,))) for line in new]
        best, names = search.greedy(best, additions, search.threshold)
        kept += names
    return best, kept


def phase_learner(search: Search, best: Result, analysis: Analysis) -> tuple[Result, list[str]]:
    """Phase 4: for LIBSVM, first the data split MaltParser's LIBSVM models use (one classifier
    per part of speech of the next input word, -T 1000); then the learner's cost C (and LIBSVM's
    gamma) on a grid around the defaults."""
    kept: list[str] = []
    learner = best.setting.groups["guide"]["learner"]
    if learner == "libsvm":
        column, address = analysis.tag, split_address(best.setting.algorithm)
        split = best.setting.changed(
            guide={"data_split_column": column, "data_split_structure": address, "data_split_threshold": 1000}
        )
        name = f"-d {column} -s {address} -T 1000"
        result = search.evaluate([split], [name])[0]
        if search.better(result, best, search.threshold):
            best, kept = result, [name]
    options = best.setting.groups["lib"]["options"]
    if learner == "liblinear":
        grid = [{"c": c} for c in LIBLINEAR_C if c != options["c"]]
    else:
        grid = [{"c": c, "g": g} for c in LIBSVM_C for g in LIBSVM_GAMMA if (c, g) != (options["c"], options["g"])]
    alternatives = [(" ".join(f"-{k} {v}" for k, v in values.items()),
                     best.setting.changed(lib={"options": {**options, **values}})) for values in grid]  # fmt: skip
    best, chosen = search.best_of(best, alternatives, search.threshold)
    return best, kept + chosen


def split_address(algorithm: str) -> str:
    """The address of the data split: the next input word (MaltParser's -s for each family)."""
    return {"stack": "Lookahead[0]", "covington": "Right[0]"}.get(FAMILY[algorithm], "Input[0]")


# --- output ------------------------------------------------------------------------------------


def write_outputs(out_dir: str, best: Result, header: dict, summary: list[PhaseSummary]) -> None:
    """config.yaml and features.txt for ``maltpy learn -c``, each written whole or not at all."""
    groups = best.setting.groups
    groups.setdefault("guide", {})["features"] = "features.txt"
    groups.pop("input", None)  # the format is the input's own when learning again
    options = groups["lib"]["options"]
    learner = groups["guide"]["learner"]
    groups["lib"]["options"] = " ".join(f"-{f} {options[f]:g}" for f in LEARNER_OPTIONS[learner] if f in options)
    order = ("singlemalt", "guide", "lib")
    groups = {name: groups[name] for name in sorted(groups, key=lambda g: (order + (g,)).index(g))}
    where = header["scoring"]
    lines = [
        f"# maltpy optimize: LAS {best.las:.2f} on {where} (seed {header['seed']}).",
        "# Phases: " + "; ".join(f"{p.name} {p.end_las:.2f}" for p in summary if p.end_las is not None) + ".",
        "# Trial log: trials.jsonl. Use: maltpy learn -c THIS -i TRAIN -m MODEL",
    ]
    text = "\n".join(lines) + "\n" + yaml.safe_dump(groups, sort_keys=False, default_flow_style=False)
    features = (f"# Feature model chosen by maltpy optimize for {best.setting.algorithm} (LAS {best.las:.2f} on "
                f"{where}).\n" + "".join(line + "\n" for line in best.setting.features))  # fmt: skip
    with _signals_held():  # the two files change together or not at all
        with atomic_output(os.path.join(out_dir, "features.txt")) as out:
            out.write(features.encode("utf-8"))
        with atomic_output(os.path.join(out_dir, "config.yaml")) as out:
            out.write(text.encode("utf-8"))


def summary_table(summary: list[PhaseSummary], baseline: Result | None, best: Result) -> str:
    rows = [("phase", "trials", "time", "LAS", "gain", "kept")]
    for p in summary:
        gain = "" if p.end_las is None or p.start_las is None else f"{p.end_las - p.start_las:+.2f}"
        las = "" if p.end_las is None else f"{p.end_las:.2f}"
        kept = "; ".join(p.changes[:4]) + (f"; ... ({len(p.changes)} in all)" if len(p.changes) > 4 else "")
        rows.append((p.name, str(p.trials), f"{p.seconds / 60:.1f} min", las, gain, kept))
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    out = ["  ".join(c.ljust(w) for c, w in zip(r[:5], widths)) + "  " + r[5] for r in rows]
    if baseline is not None and baseline.las is not None:
        learner = baseline.setting.groups["guide"]["learner"]
        out.append(f"MaltParser's default (nivreeager, its default features, {learner}): {baseline.las:.2f}; "
                   f"optimized: {best.las:.2f} ({best.las - baseline.las:+.2f})")  # fmt: skip
    return "\n".join(out)


# --- the command -------------------------------------------------------------------------------


def file_digest(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _read_log(path: str, header: dict) -> dict[str, dict]:
    """The trials of an earlier search with the same inputs, by key. The log is checked as
    untrusted input: a regular file (not a link), bounded in size and line length, each trial's
    fields of the types the search reads. A last line without its end (a search killed while
    writing it) is cut off the file."""
    info = os.lstat(path)
    if not stat.S_ISREG(info.st_mode):
        raise MaltpyError("not a trial log: not a regular file (a link, a folder or a device)", path)
    if info.st_size > MAX_LOG_BYTES:
        raise MaltpyError(f"a trial log of more than {MAX_LOG_BYTES >> 20} MB is not read", path)
    with open(path, "rb") as f:
        data = f.read(MAX_LOG_BYTES + 1)
    if len(data) > MAX_LOG_BYTES:
        raise MaltpyError(f"a trial log of more than {MAX_LOG_BYTES >> 20} MB is not read", path)
    lines = data.split(b"\n")
    if lines[-1]:  # the unfinished last line of a search that was stopped while writing it
        with open(path, "r+b") as f:
            f.truncate(len(data) - len(lines[-1]))
    cache: dict[str, dict] = {}
    for number, raw in enumerate(lines[:-1], 1):
        if len(raw) > MAX_LOG_LINE:
            raise MaltpyError(f"not a trial log: a line of more than {MAX_LOG_LINE >> 10} kB", path, number)
        try:
            record = json.loads(raw)
        except (ValueError, RecursionError):
            raise MaltpyError("not a trial log: a line is not JSON", path, number) from None
        if not isinstance(record, dict):
            raise MaltpyError("not a trial log: a line is not a JSON object", path, number)
        if number == 1:
            mismatch = [k for k in ("log", "train_sha256", "dev_sha256", "scoring", "seed", "learner")
                        if record.get(k) != header[k]]  # fmt: skip
            if mismatch:
                raise MaltpyError(
                    f"--resume: the log is of another search ({', '.join(mismatch)} differ); "
                    "use a new output folder", path, 1,
                )  # fmt: skip
            continue
        if "phase_end" in record:  # what a phase kept: a summary, not a trial
            continue
        key, las, seconds, error = (record.get(k) for k in ("key", "las", "seconds", "error"))
        if not isinstance(key, str) or len(key) != 20:
            raise MaltpyError("not a trial log: a trial without its key", path, number)
        if not (las is None or _number(las) and 0 <= las <= 100) or not (_number(seconds) and seconds >= 0):
            raise MaltpyError("not a trial log: a trial's las or seconds is not a number in range", path, number)
        if not (error is None or isinstance(error, str)) or (las is None) == (error is None):
            raise MaltpyError("not a trial log: a trial has neither a score nor an error, or both", path, number)
        record["error"] = None if error is None else cut(" ".join(error.split()), 300)
        cache[key] = record
    return cache


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


class TrialLog:
    """The trial log open for writing: one JSON object a line, each written through at once;
    a write that fails (a full disk) is an error naming the file."""

    def __init__(self, path: str, append: bool) -> None:
        self.path = path
        try:
            self.file = open(path, "a" if append else "w", encoding="utf-8")  # closed on leaving the with
        except OSError as e:
            raise MaltpyError(f"cannot write: {e.strerror}", path) from None

    def write(self, record: dict) -> None:
        try:
            self.file.write(json.dumps(record) + "\n")
            self.file.flush()
        except OSError as e:
            raise MaltpyError(f"cannot write: {e.strerror}", self.path) from None

    def __enter__(self) -> TrialLog:
        return self

    def __exit__(self, *exception: object) -> None:
        with contextlib.suppress(OSError):  # what a failed write left unwritten, already reported
            self.file.close()


def optimize(train: str, out_dir: str, dev: str | None = None, folds: int | None = None, budget: float = 60.0,
             jobs: int = 1, seed: int = 1, resume: bool = False, threshold: float = THRESHOLD,
             learner: str = "liblinear", scheduler: str | None = None, data_format: str = "auto", rounds: int = ROUNDS,
             say: Callable[[str], None] | None = None, progress: Callable[[Search], None] | None = None,
             ) -> tuple[Result, list[PhaseSummary], Result | None]:  # fmt: skip
    """Run the four phases on ``train`` and write the best configuration to ``out_dir``; see the
    module's text. ``budget`` in minutes bounds the whole search: no trial starts that the
    slowest recent one says would end after it."""
    say = say or (lambda message: None)
    started = time.monotonic()
    deadline = started + 60 * budget
    if dev is not None and folds is not None:
        raise MaltpyError("-d and --folds exclude each other", "command line")
    for path in (train, dev):
        if path is not None and not os.path.isfile(path):
            missing = not os.path.exists(path)
            raise MaltpyError("no such file" if missing else "not a regular file: a search reads it many times", path)
    if not out_dir:
        raise MaltpyError("the output folder's name is empty", "command line")
    sentences, fmt = read_sentences(train, data_format)
    if dev is not None:
        read_sentences(dev, fmt)  # its errors now, not in every trial
    elif len(sentences) < 2:
        raise MaltpyError("a search needs at least 2 sentences, to learn on some and score the others", train)
    analysis = analyse(sentences, fmt)
    if dev is not None:
        n_folds, scoring = 1, f"the dev file {os.path.basename(dev)}"
    elif folds is not None:
        if folds > len(sentences):
            raise MaltpyError(f"--folds {folds}: the treebank has only {len(sentences)} sentences", train)
        n_folds, scoring = folds, f"{folds}-fold cross-validation on {os.path.basename(train)}"
    elif analysis.tokens < SMALL_TREEBANK and len(sentences) >= SMALL_FOLDS:
        n_folds, scoring = SMALL_FOLDS, f"{SMALL_FOLDS}-fold cross-validation on {os.path.basename(train)}"
    else:
        n_folds, scoring = 1, f"a held-out {round(100 * HOLDOUT)}% of {os.path.basename(train)}"
    header = {
        "log": LOG_VERSION, "train": os.path.abspath(train), "train_sha256": file_digest(train),
        "dev": os.path.abspath(dev) if dev else None, "dev_sha256": file_digest(dev) if dev else None,
        "scoring": scoring, "seed": seed, "learner": learner, "analysis": analysis.as_dict(),
    }  # fmt: skip
    make_folder(out_dir, "output folder")
    for name in ("config.yaml", "features.txt"):
        check_output_path(os.path.join(out_dir, name), (train, dev))
    log_path = os.path.join(out_dir, "trials.jsonl")
    cache: dict[str, dict] = {}
    if os.path.lexists(log_path):
        if not resume:
            raise MaltpyError("holds the trial log of a search: --resume continues it, or choose another -o", log_path)
        cache = _read_log(log_path, header)
    runner = Runner(jobs, scheduler)
    say("phase 1, data analysis: " + "; ".join(analysis.describe()))
    split = f" (phase 4 tries -d {analysis.tag} -T 1000)" if learner == "libsvm" else " (one model, no data split)"
    data = Data(header["train"], header["train_sha256"], header["dev"], header["dev_sha256"], n_folds, seed, fmt)
    say(f"learner {learner}{split}; scoring by LAS on {scoring}; budget {budget:g} min, {counted(runner.jobs, 'job')}")
    summary: list[PhaseSummary] = []
    best: Result | None = None
    baseline: Result | None = None
    try:
        with TrialLog(log_path, append=bool(cache)) as log:
            if not cache:
                log.write(header)
            search = Search(data, n_folds, runner, deadline, log, cache, threshold, progress)
            phases = [
                ("2 algorithm", lambda b: phase_algorithm(search, analysis, learner)),
                ("3 features", lambda b: phase_features(search, b, analysis, sentences)),
                ("4 learner", lambda b: phase_learner(search, b, analysis)),
            ]
            round_ = 1
            while phases:
                name, run = phases.pop(0)
                if search.out_of_time and best is not None:
                    say(f"phase {name}: skipped, the budget is spent")
                    break
                search.phase = name
                phase = PhaseSummary(name, start_las=best.las if best else None)
                trials, clock = search.trials, time.monotonic()
                best, phase.changes = run(best)
                if baseline is None:
                    default = _base_setting("nivreeager", learner, fmt)
                    record = cache.get(default.key())
                    baseline = Result(default, record["las"]) if record is not None else None
                    phase.start_las = baseline.las if baseline is not None else None
                phase.trials, phase.seconds, phase.end_las = search.trials - trials, time.monotonic() - clock, best.las
                summary.append(phase)
                log.write({"phase_end": name, "las": best.las, "start_las": phase.start_las, "trials": phase.trials,
                           "seconds": round(phase.seconds, 1), "kept": phase.changes})  # fmt: skip
                write_outputs(out_dir, best, header, summary)
                say(f"phase {name}: LAS {best.las:.2f} after {counted(phase.trials, 'trial')}"
                    + (f"; kept {'; '.join(phase.changes)}" if phase.changes else ""))  # fmt: skip
                # while the budget lasts, phases 3 and 4 again, as long as a round keeps a change
                if not phases and not search.out_of_time and any(p.changes for p in summary[-2:]) and round_ < rounds:
                    round_ += 1
                    phases = [
                        (
                            f"3 features, round {round_}",
                            lambda b, r=round_: phase_features(search, b, analysis, sentences, r),
                        ),
                        (f"4 learner, round {round_}", lambda b: phase_learner(search, b, analysis)),
                    ]
    except BaseException:
        runner.stop()  # a signal, an error: the trials running are killed, not waited for
        raise
    runner.close()
    failed = [r for r in search.failures if r.error is not None]
    if failed:
        say(f"{counted(len(failed), 'trial')} failed (see their 'error' in trials.jsonl), the first: {failed[0].error}")
    return best, summary, baseline
