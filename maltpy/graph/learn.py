"""Learning a graph-based parser: online large-margin learning, MIRA over the k best trees, with
averaged weights (McDonald, Crammer & Pereira 2007, §2, Figures 5 and 6), as MSTParser 0.5's
``DependencyParser.train`` and ``Parameters.updateParamsMIRA`` do it.

The features are those of the gold trees (features.Alphabet), their weights start at 0. Each
pass over the treebank takes its sentences in order. For each sentence, the best tree under the
current weights (and the labels of its arcs, features.py) is found, with a few more for MIRA:

- projective, first order: the k best trees (``mst.training_k``, 1 by default; decode.k_best_projective);
- projective, second order: the best tree (maltpy has no k best second-order trees yet);
- non-projective, first order: the best tree and the trees that change one word's head of it, for
  the k words whose best other head (no descendant of theirs) scores highest (MSTParser's
  ``getKChanges``), so two trees by default;
- non-projective, second order: the approximate search's tree alone (§4.2).

The weights then move as little as they can for the gold tree to beat each of those trees by its
loss, the number of words with a wrong head plus the number with a wrong label, punctuation
included (``mst.loss_type: punc``); with ``nopunc``, words whose POSTAG is punctuation by
MSTParser's pattern (PUNCTUATION) are not counted. (MSTParser 0.5 never passes its ``loss-type``
option on, so it always counts punctuation: ``punc`` is the setting that compares with it.)
Hildreth's method for the quadratic
program (one tree: its closed form), without a bound on the step. The model keeps the average of
the weights after every sentence of every pass (MSTParser's ``averageParams``, summed as it sums
them: each step weighted by the steps left).
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from ..config import Config
from ..config.groups import Mst
from ..data.conll import POSTAG, Sentence
from ..decode import k_best_projective
from ..errors import MaltpyError, counted
from .features import (
    NO_TYPE,
    SIBLINGS,
    Alphabet,
    Atoms,
    Encoded,
    Rows,
    check_work,
    difference,
    encode,
    gathered,
    parts_of,
    rows,
    scores,
    tree_keys,
    tree_numbers,
)
from .model import GraphModel
from .tree import Labels, best_tree, labels_of

#: MSTParser's punctuation, for ``loss-type:nopunc`` (``Parameters.numErrors``): a whole POSTAG of these
PUNCTUATION = re.compile(r"[,:.'`]+")
HILDRETH_STEPS = 10_000
#: Learning keeps the feature numbers of every arc and label of the training sentences (``Rows``,
#: MSTParser's forest file, in memory) up to this many bytes (MALTPY_MST_CACHE_BYTES); it looks up
#: those of the sentences beyond again in every pass. en_lines train keeps 1.6 GB.
CACHE_BYTES = 4 << 30


def cache_bytes() -> int:
    """The bytes of feature numbers learning keeps (CACHE_BYTES, or MALTPY_MST_CACHE_BYTES)."""
    value = os.environ.get("MALTPY_MST_CACHE_BYTES", "")
    return int(value) if value.isdigit() else CACHE_BYTES  # MSTParser's bound on Hildreth's iterations


EPSILON = 1e-8


@dataclass(slots=True)
class Gold:
    """A training sentence and its gold tree, as the passes read them."""

    sentence: Encoded
    heads: np.ndarray  # int64 (N), heads[0] = 0
    labels: np.ndarray  # label numbers (N), labels[0] = 0
    scored: np.ndarray | None = None  # bool (N - 1): the words 1..n the loss counts
    vector: np.ndarray | None = None  # the gold tree's feature numbers
    rows: Rows | None = None
    counted: tuple[np.ndarray, np.ndarray] | None = None  # occurrences(vector), once needed


def descendants(heads: np.ndarray) -> np.ndarray:
    """[i, j]: whether j is i or below i in the tree ``heads``."""
    n = len(heads)
    below = np.eye(n, dtype=bool)
    for j in range(1, n):
        h, steps = j, 0
        while h > 0 and steps < n:
            h = int(heads[h])
            below[h, j] = True
            steps += 1
    return below


def one_head_changes(scores: np.ndarray, heads: np.ndarray, k: int) -> list[tuple[int, int]]:
    """MSTParser's ``getKChanges``: for each word its best other head that is not below it, and of
    those the k scoring highest (the first word on ties), as (word, head)."""
    n = len(heads)
    below = descendants(heads)
    best = []
    for i in range(1, n):
        allowed = ~below[i].copy()
        allowed[i] = False
        allowed[heads[i]] = False
        if not allowed.any():
            continue
        column = np.where(allowed, scores[:, i], -np.inf)
        j = int(column.argmax())
        best.append((-column[j], i, j))
    best.sort()
    return [(i, j) for _, i, j in best[: min(k, n)]]


def occurrences(vector: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A tree's features (``vector``: feature numbers, one for each occurrence) and how often each
    occurs."""
    return np.unique(vector, return_counts=True)


def hildreth(gram: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The step sizes alpha >= 0 maximizing sum(b * alpha) - |sum(alpha_k a_k)|^2 / 2, given the
    Gram matrix of the a_k (MIRA's dual, §2.2), by Hildreth's method as MSTParser's
    ``Parameters.hildreth`` runs it."""
    alpha = np.zeros(len(b))
    f = b.astype(float).copy()
    kkt = f.copy()
    best = int(kkt.argmax())
    steps = 0
    while kkt[best] >= EPSILON and steps < HILDRETH_STEPS:
        diff = f[best] / gram[best, best] if gram[best, best] > 1e-12 else 0.0
        add = -alpha[best] if alpha[best] + diff < 0 else diff
        alpha[best] += add
        f -= add * gram[:, best]
        kkt = np.where(alpha > 1e-12, np.abs(f), f)
        best = int(kkt.argmax())
        steps += 1
    return alpha


def gram_matrix(a: list[tuple[np.ndarray, np.ndarray]], scratch: np.ndarray) -> np.ndarray:
    """The dot products of the sparse vectors ``a`` (feature numbers, values; numbers distinct),
    through ``scratch`` (zeros, one per feature, left zero)."""
    gram = np.empty((len(a), len(a)))
    for i, (numbers, values) in enumerate(a):
        scratch[numbers] = values
        for j, (other, other_values) in enumerate(a):
            gram[i, j] = float(scratch[other] @ other_values)
        scratch[numbers] = 0
    return gram


class Trainer:
    """MIRA's passes over the gold trees (see the module's note)."""

    def __init__(self, trees: list[Gold], labels: Labels, alphabet: Alphabet, order: int, projective: bool,
                 training_k: int) -> None:  # fmt: skip
        self.trees = trees
        self.labels = labels
        self.alphabet = alphabet
        self.order = order
        self.projective = projective
        self.k = training_k
        self.weights = np.zeros(len(alphabet))
        self.total = np.zeros(len(alphabet))
        self.scratch = np.zeros(len(alphabet))

    def vector(self, tree: Gold, r: Rows, heads: np.ndarray, labels: np.ndarray) -> np.ndarray:
        """The feature numbers of a tree of ``tree``'s sentence: its arcs' and labels' from the
        sentence's rows ``r``, its sibling parts' looked up."""
        first = gathered(r, heads, labels, len(self.labels.names))
        if self.order < 2:
            return first
        atoms = self.labels.atoms[labels]
        return np.concatenate((first, tree_numbers(tree.sentence, heads, atoms, SIBLINGS, self.alphabet)))

    def candidates(self, tree: Gold, r: Rows) -> list[tuple[np.ndarray, np.ndarray]]:
        """The trees MIRA's constraints compare the gold one with, as (heads, labels)."""
        arcs, sides = scores(r, self.weights, tree.sentence.size, len(self.labels.names))
        heads, labels, scored, best = best_tree(tree.sentence, arcs, sides, self.weights, self.alphabet, self.order,
                                                self.projective, False)  # fmt: skip
        if self.order == 1 and self.projective and self.k > 1:
            return [(h, labels_of(best, h)) for h in k_best_projective(scored, self.k)]
        out = [(heads, labels)]
        if self.order == 1 and not self.projective:
            for word, head in one_head_changes(scored, heads, self.k):
                changed, relabelled = heads.copy(), labels.copy()
                changed[word], relabelled[word] = head, best[head, word]
                out.append((changed, relabelled))
        return out

    def step(self, tree: Gold, upd: int) -> None:
        w = self.weights
        a, b, others = [], [], []
        r = tree.rows if tree.rows is not None else rows(tree.sentence, self.labels.atoms, self.alphabet)
        for heads, labels in self.candidates(tree, r):
            wrong = (heads[1:] != tree.heads[1:]).astype(int) + (labels[1:] != tree.labels[1:])
            loss = int(wrong.sum() if tree.scored is None else wrong[tree.scored].sum())
            other = self.vector(tree, r, heads, labels)
            numbers, values = difference(tree.vector, other, self.scratch)
            a.append((numbers, values))
            b.append(loss - float(values @ w[numbers]))  # the loss less the gold tree's margin over this one
            others.append(other)
        if len(a) == 1:
            values = a[0][1]
            norm = float(values @ values)
            alphas = [b[0] / norm if b[0] >= EPSILON and norm > 1e-12 else 0.0]
        else:
            alphas = list(hildreth(gram_matrix(a, self.scratch), np.array(b)))
        for other, alpha in zip(others, alphas):
            if alpha:
                if tree.counted is None:
                    tree.counted = occurrences(tree.vector)
                self.add(tree.counted, alpha, upd)
                self.add(occurrences(other), -alpha, upd)

    def add(self, counted: tuple[np.ndarray, np.ndarray], alpha: float, upd: int) -> None:
        """Adds ``alpha`` to the weight of each feature of a tree (``counted``: its features and
        how often each occurs), and ``upd`` times it to its total, once for each occurrence, as
        MSTParser's update does (the gold tree's, then the other's, taken away): a feature of both
        trees gets +alpha, then -alpha, which need not leave its weight as it was, and a feature
        twice in a tree alpha twice, not 2 alpha once. So a step's weights are MSTParser's to the
        last bit, and so are its choices where two labels or trees score the same but for
        rounding."""
        features, counts = counted
        step = upd * alpha
        times = 1
        while len(features):  # the features that occur at least ``times`` times
            self.weights[features] += alpha
            self.total[features] += step
            more = counts > times
            features, counts, times = features[more], counts[more], times + 1

    def train(self, iterations: int, progress: Callable[[str], None] | None) -> np.ndarray:
        """The averaged weights after ``iterations`` passes."""
        count = len(self.trees)
        for it in range(1, iterations + 1):
            started = time.perf_counter()
            for i, tree in enumerate(self.trees):
                self.step(tree, iterations * count - (count * (it - 1) + (i + 1)) + 1)
            if progress:
                progress(f"pass {it} of {iterations}: {time.perf_counter() - started:.1f}s")
        return self.total * (1.0 / (iterations * count))  # as MSTParser averages: times the reciprocal


def gold_trees(mst: Mst, sentences: Iterable[Sentence], name: str, add: Callable,
               labels: Labels, atoms: Atoms) -> list[Gold]:  # fmt: skip
    """The training sentences and their gold trees (``add`` counts each and gives the tree to
    learn: models.learn's treebank statistics, pseudo-projective lifting), each with the words
    MIRA's loss counts (``mst.loss_type``), checked for what ``mst.order``'s parsing needs."""
    trees, lines = [], []
    for sentence in sentences:
        heads, names = add(sentence, name)
        if not len(sentence):
            continue
        if NO_TYPE in names[1:]:
            raise MaltpyError(f"the label {NO_TYPE} is MSTParser's label of the root token, which -a mst gives no "
                              "word: rename it", name, sentence.word_line(names.index(NO_TYPE, 1)))  # fmt: skip
        h = np.array(heads, dtype=np.int64)
        h[0] = 0
        numbers = np.array([0] + [labels.add(label) for label in names[1:]], dtype=np.int64)
        scored = None
        if mst.loss_type == "nopunc":
            scored = np.array([not PUNCTUATION.fullmatch(w[POSTAG]) for w in sentence.words])
        trees.append(Gold(encode(sentence, atoms), h, numbers, scored))
        lines.append(sentence.line)
    if not trees:
        raise MaltpyError("no training sentences: the treebank has no words", name)
    for tree, line in zip(trees, lines):  # with the model's labels, as parsing checks them
        check_work(tree.sentence, len(labels.names), mst.order, name, line)
    return trees


def train(trees: list[Gold], labels: Labels, mst: Mst, progress: Callable[[str], None] | None,
          name: str) -> tuple[Alphabet, np.ndarray, dict]:  # fmt: skip
    """The alphabet of the gold trees and the averaged weights MIRA learns over them with the
    options ``mst``, with statistics (a MaltpyError naming the treebank ``name`` if they have more features than a model
    holds, features.max_features)."""
    started = time.perf_counter()
    parts = parts_of(mst.order)
    try:
        alphabet = Alphabet.of_trees([tree_keys(t.sentence, t.heads, labels.atoms[t.labels], parts) for t in trees])
    except ValueError as e:
        raise MaltpyError(f"the gold trees have {e}", name) from None
    if progress:
        progress(f"{counted(len(alphabet), 'feature')} in the gold trees")
    cached, budget = 0, cache_bytes()
    for t in trees:
        t.vector = tree_numbers(t.sentence, t.heads, labels.atoms[t.labels], parts, alphabet)
        if cached < budget:  # the rest are looked up again in every pass
            t.rows = rows(t.sentence, labels.atoms, alphabet)
            cached += t.rows.nbytes
    indexed = time.perf_counter()
    trainer = Trainer(trees, labels, alphabet, mst.order, mst.decode_type == "proj", mst.training_k)
    weights = trainer.train(mst.iters, progress)
    statistics = {
        "features": len(alphabet),
        "labels": len(labels.names) - 1,
        "bytes_cached": cached,
        "seconds_features": round(indexed - started, 2),
        "seconds_training": round(time.perf_counter() - indexed, 2),
    }
    return alphabet, weights, statistics


def learn_graph(config: Config, sentences: Iterable[Sentence], data_format: str, name: str,
                progress: Callable[[str], None] | None, treebank) -> GraphModel:  # fmt: skip
    """Learn a graph-based parser from the gold trees of ``sentences`` (``treebank``: learning's
    counts of them, ``models.learn._Treebank``, which also lifts them with pseudo-projective
    parsing)."""
    labels = Labels()
    trees = gold_trees(config.mst, sentences, name, treebank.add, labels, Atoms())
    alphabet, weights, statistics = train(trees, labels, config.mst, progress, name)
    statistics = {**treebank.statistics(name), **statistics}
    return GraphModel(config, alphabet, weights, labels, data_format, statistics, treebank.root_counts.labels(),
                      treebank.vocabulary.vocabulary())  # fmt: skip
