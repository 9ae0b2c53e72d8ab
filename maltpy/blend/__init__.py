"""Blended parsing: the trees several parsers give a sentence, combined into one tree by weighted
votes on arcs (Sagae & Lavie 2006, "Parser Combination by Reparsing"; Hall et al. 2007, "Single
Malt or Blended? A Study in Multilingual Parser Optimization", the Blended system, whose tool is
MaltBlender).

Each member parses the sentence on its own. Every arc h -> d that a member proposes gets a vote
worth that member's weight for d's tag; the combined tree is the maximum spanning tree over the
votes (``decode.spanning_tree``: Chu-Liu-Edmonds, or Eisner's algorithm for a projective tree),
with one word on the root where the single-root rule applies. Each word takes the label with the
most weight among the members that proposed its chosen arc (ties: the label of the member listed
first); an arc no member proposed, which the tree may need, takes the weighted vote of all the
members' labels of that word, or, on the root, of the labels the members gave their root words.
With learned weights, a label scorer chooses among the labels instead (see below), but on an arc
to the root that no member proposed.

Weights, learned from held-out text parsed by each member (``Weights.estimate``):

    pos     a member's labelled attachment score on the held-out words of each coarse tag
            (CPOSTAG; UPOS in CoNLL-U) of the dependent, as Hall et al. weight the Blended
            system's votes, smoothed toward the member's whole score for tags seen rarely
            (SMOOTHING held-out words of a tag count as much as the whole score)
    model   a member's labelled attachment score on all held-out words (Sagae & Lavie's
            per-parser weights)
    equal   one vote per member
    learned (the default) no votes: each proposed arc scores the log-probability that it is
            right, by logistic regression over what the members say of it and the tags and
            morphological features (FEATS) around it (``arc_features``, ``ArcScorer``); where
            the members proposing the chosen arc give it more than one label, a second
            regression picks one (``label_features``, ``LabelScorer``); other labels are voted
            as with pos

``Blend`` is a parser like ``parser.Model``: ``maltpy parse``, the API, ``--jobs`` and Dask take
it, and its archive (``write_blend``) holds each member's archive whole. With ``--jobs``, a team of
workers parses each batch: each worker parses it with its share of the members (``shares``), and
combines a part of it with every member's trees, which the team's workers exchange (jobs.py).
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import itertools
import json
import math
import os
import shlex
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence

import numpy as np

from ..config import ENFORCE_TREE, MAX_DEGREE, USED_BY, reads, unused_option
from ..data.conll import CPOSTAG, FEATS, Sentence, valid_label
from ..decode import spanning_tree
from ..errors import MaltpyError, cut, require
from ..models.archive import Archive, write_archive
from ..models.base import Parser, one_root_for
from ..models.parser import Model
from ..version import __version__
from .options import DECODERS, WEIGHTINGS

SMOOTHING = 5.0
MAX_MEMBERS = 64  # members of a blend: what write_blend writes and read_blend reads (check_members)
MAX_TAGS = 100_000  # tags with a weight, per member, in an archive
MAX_FEATURES = 1_000_000  # features of a learned arc scorer, in an archive
MAX_FEATURE_NAME = 400
MAX_SUMS = 1 << 18  # feature groups whose weights a scorer keeps summed
#: the learned scorer's regularization: LogisticRegression's C (inverse strength); 0.03 to 1 score
#: within 0.1 LAS of each other on en_lines, da_ddt and la_perseus (scripts/bench_blend.py)
SCORER_C = 0.1
FLOOR = 1e-6  # the least probability a proposed arc scores (its log: about -13.8) ...
LOG_FLOOR = math.log(FLOOR)
UNPROPOSED = -30.0  # ... above what an arc no member proposed scores
ROOT_TAG = "<root>"  # the head tag of an arc from the root, in the scorer's features

Tree = tuple[list[int], list[str]]  # heads (index 0: -1, the root) and labels (index 0: "")

#: what a member's parse of a sentence costs, against one of Nivre's systems (1), by its
#: algorithm: over en_lines' test file in one process, nivreeager and nivrestandard take 0.13 to
#: 0.25 s, covnonproj 0.54 to 0.87 s; as the default blend of en_lines learned, over the held-out
#: folds, 0.59 to 1.10 s and 2.71 to 3.10 s. Only ``shares`` reads them: a wrong figure costs
#: time, never a tree. (Shares by those measured seconds came out no more even on en_lines.)
PARSE_COSTS = {"covnonproj": 4.0, "covproj": 4.0}


def check_members(count: int, where: str) -> None:
    """MaltpyError unless a blend of ``count`` members (given in ``where``) can be written and
    read again: no more than MAX_MEMBERS. Checked before any member learns."""
    if count > MAX_MEMBERS:
        raise MaltpyError(f"a blend has at most {MAX_MEMBERS} members, not {count:,}", where)


def parse_cost(algorithm: str | None) -> float:
    """What a parse by a member of ``algorithm`` costs (PARSE_COSTS; 1 for any other, or None)."""
    return PARSE_COSTS.get(algorithm, 1.0) if algorithm is not None else 1.0


def shares(algorithms: Sequence[str | None], workers: int) -> list[list[int]]:
    """The members (numbers, ascending) each of a team of ``workers`` parses with, so that what
    their parses cost (PARSE_COSTS by the members' ``algorithms``; 1 for any other, or None)
    comes out about even: the first worker has member 0 (every worker reads the tags as member 0
    does, and loads it), then each member, the costliest first, goes to the worker with the least
    cost so far (Graham's longest-processing-time rule; ties to the earlier worker)."""
    costs = [parse_cost(a) for a in algorithms]
    loads = [costs[0]] + [0.0] * (workers - 1)
    held: list[list[int]] = [[0]] + [[] for _ in range(workers - 1)]
    for k in sorted(range(1, len(costs)), key=lambda k: (-costs[k], k)):
        worker = min(range(workers), key=lambda w: (loads[w], w))
        loads[worker] += costs[k]
        held[worker].append(k)
    return [sorted(h) for h in held]


def arc_features(trees: Sequence[Tree], tags: Sequence[str],
                 feats: Sequence[str] | None = None) -> Iterator[tuple[int, int, list[str]]]:  # fmt: skip
    """Each arc h -> d some member proposes, with the names of its features for the learned scorer
    (``arc_feature_groups``' groups, one after another). ``tags[d - 1]`` is word d's tag and
    ``feats[d - 1]`` its FEATS (none given: "_" for every word)."""
    for h, d, groups in arc_feature_groups(trees, tags, feats):
        yield h, d, [name for group in groups for name in group]


def arc_feature_groups(
    trees: Sequence[Tree], tags: Sequence[str], feats: Sequence[str] | None = None
) -> Iterator[tuple[int, int, list[tuple[str, ...]]]]:
    """Each arc h -> d some member proposes, with the names of its features in groups that recur
    from arc to arc (``_names``): how many members and which propose it, the arc's direction and
    length and the two tags (``_arc``); the tags around and between its ends (``_around``,
    ``_between``); the labels the members give it with the two tags (``_labels``); the
    morphological features of its ends, and whether they agree (``_morphology``); and for each
    member proposing it, the member with the dependent's tag (Hall et al.'s per-tag weights), the
    head's tag, the arc's direction and length, and the label it gives the arc (``_member``).
    ``feats[d - 1]`` is word d's FEATS ("Case=Nom|Number=Sing", or "_"); none given: "_" for
    every word."""
    n = len(tags)
    padded = ["<s>", ROOT_TAG, *tags, "<s>"]  # word i's tag at i + 1, "<s>" beyond the sentence
    morph = ["_", *feats] if feats is not None else ["_"] * (n + 1)  # word i's FEATS at i, the root's "_"
    members = len(trees)
    for d in range(1, n + 1):
        voters: dict[int, list[int]] = {}
        for m, (heads, _) in enumerate(trees):
            voters.setdefault(heads[d], []).append(m)
        dep, after_dep, before_dep = padded[d + 1], padded[d + 2], padded[d]
        for h, ms in voters.items():
            head = padded[h + 1]
            left = h < d
            side = "L" if left else "R"
            span = f"{side}{min(abs(h - d), 6) if h else 'r'}"
            groups = [_arc(len(ms), dep, span, head, _pattern(tuple(ms), members)),
                      _around(head, padded[h + 2], padded[h], dep, after_dep, before_dep, side),
                      _labels(head, dep, tuple(dict.fromkeys(trees[m][1][d] for m in ms))),
                      _morphology(head, dep, side, morph[h], morph[d])]  # fmt: skip
            low, high = (h, d) if left else (d, h)
            if high - low < 30:
                groups.append(_between(head, dep, tuple(dict.fromkeys(tags[low : high - 1]))))
            groups += [_member(m, dep, head, span, trees[m][1][d]) for m in ms]
            yield h, d, groups


_names = functools.lru_cache(maxsize=1 << 16)  # the feature groups of a parse's arcs recur, mostly


@_names
def _pattern(proposing: tuple[int, ...], members: int) -> str:
    return "".join("1" if m in proposing else "0" for m in range(members))


@_names
def _arc(votes: int, dep: str, span: str, head: str, pattern: str) -> tuple[str, ...]:
    return (f"n={votes}", f"n={votes}|d={dep}", f"a={span}", f"a={span}|h={head}|d={dep}", f"h={head}|d={dep}",
            f"v={pattern}")  # fmt: skip


@_names
def _around(head: str, after_head: str, before_head: str, dep: str, after_dep: str, before_dep: str,
            side: str) -> tuple[str, ...]:  # fmt: skip
    """The four windows of an arc's ends and their neighbours' tags, with its direction (McDonald
    et al. 2005's first-order features of the tags around an arc)."""
    return (f"c1={head}|{after_head}|{before_dep}|{dep}|{side}",
            f"c2={before_head}|{head}|{dep}|{after_dep}|{side}",
            f"c3={head}|{after_head}|{dep}|{after_dep}|{side}",
            f"c4={before_head}|{head}|{before_dep}|{dep}|{side}")  # fmt: skip


@_names
def _between(head: str, dep: str, between: tuple[str, ...]) -> tuple[str, ...]:
    """Each tag between an arc's ends (of an arc shorter than 30 words) with the two ends' tags."""
    return tuple(f"b={head}|{b}|{dep}" for b in between)


@_names
def _labels(head: str, dep: str, labels: tuple[str, ...]) -> tuple[str, ...]:
    """Each label the members proposing an arc give it, with the two ends' tags (McDonald et al.
    2006's labelled arc features): how likely a member is right depends on what it takes the arc
    to be (a det from a NOUN, or a nsubj)."""
    return tuple(f"l={label}|h={head}|d={dep}" for label in labels)


@_names
def _morphology(head: str, dep: str, side: str, head_feats: str, dep_feats: str) -> tuple[str, ...]:
    """The morphological features (FEATS) of an arc's ends: each of the dependent's with the
    head's tag, each of the head's with the dependent's tag (both with the arc's direction), and
    for each feature the two share, whether they agree in it (an adjective agrees with its noun
    in case, number and gender; a verb with its subject in number and person). What a word's
    case says of its head is what the tags cannot tell in a language of free word order: on
    la_perseus these features gain 4.4 LAS, and 0.2 to 0.3 on en_lines, da_ddt and en_partut."""
    dep_pairs, head_pairs = _feature_pairs(dep_feats), _feature_pairs(head_feats)
    agree = tuple(f"ag={k}={dep_pairs[k] == head_pairs[k]}|h={head}|d={dep}" for k in dep_pairs if k in head_pairs)
    return (*(f"df={k}={v}|h={head}|{side}" for k, v in dep_pairs.items()),
            *(f"hf={k}={v}|d={dep}|{side}" for k, v in head_pairs.items()), *agree)  # fmt: skip


@_names
def _feature_pairs(feats: str) -> dict[str, str]:
    """The features of a FEATS field, each name's value ("_": none; a feature without "=", as
    CoNLL-X treebanks write them, "gen|sg", is a name with the empty value; the dict is shared,
    not to be changed)."""
    if feats == "_":
        return {}
    return dict(pair.partition("=")[::2] for pair in feats.split("|") if pair)


@_names
def _member(m: int, dep: str, head: str, span: str, label: str) -> tuple[str, ...]:
    return f"m{m}", f"m{m}|d={dep}", f"m{m}|h={head}", f"m{m}|a={span}", f"m{m}|l={label}"


def label_features(label: str, proposing: Sequence[int], trees: Sequence[Tree], h: int, d: int,
                   tags: Sequence[str], feats: Sequence[str] | None = None) -> list[str]:  # fmt: skip
    """The names of the features of ``label`` as word d's label on the arc h -> d, which the
    members ``proposing`` propose (``trees``: the members' trees; ``tags`` and ``feats`` as
    ``arc_feature_groups`` takes them), for the learned label scorer: the label alone, with the
    dependent's tag, and with both tags and the arc's direction; how many of the proposing
    members give it, and which (each with the dependent's tag); and the label with each of the
    dependent's morphological features (alone and with the head's tag) and each of the head's
    (with the dependent's tag). A word's case tells its label where the members disagree (a
    nominative noun is nsubj, an accusative obj) as it tells its head."""
    dep, head = tags[d - 1], tags[h - 1] if h else ROOT_TAG
    side = "L" if h < d else "R"
    giving = [m for m in proposing if trees[m][1][d] == label]
    dep_pairs = _feature_pairs(feats[d - 1]) if feats is not None else {}
    head_pairs = _feature_pairs(feats[h - 1]) if feats is not None and h else {}
    return [f"l={label}", f"l={label}|d={dep}", f"l={label}|h={head}|d={dep}|{side}",
            f"l={label}|n={len(giving)}|of={len(proposing)}",
            *(f"l={label}|m{m}" for m in giving), *(f"l={label}|m{m}|d={dep}" for m in giving),
            *(f"l={label}|df={k}={v}" for k, v in dep_pairs.items()),
            *(f"l={label}|df={k}={v}|h={head}" for k, v in dep_pairs.items()),
            *(f"l={label}|hf={k}={v}|d={dep}" for k, v in head_pairs.items())]  # fmt: skip


def label_candidates(trees: Sequence[Tree], h: int, d: int) -> tuple[list[int], list[str]]:
    """The members proposing the arc h -> d (all members if none does) and the labels they give
    word d, each once, in the members' order."""
    proposing = [m for m, (heads, _) in enumerate(trees) if heads[d] == h] or list(range(len(trees)))
    return proposing, list(dict.fromkeys(trees[m][1][d] for m in proposing))


@dataclasses.dataclass(frozen=True)
class ArcScorer:
    """The probability that an arc some member proposes is right: logistic regression over its
    ``arc_features``, fitted to the members' parses of held-out text (``fit``). A tree's score is
    the sum of its arcs' log-probabilities."""

    index: Mapping[str, int]
    coef: np.ndarray
    intercept: float

    def scores(self, trees: Sequence[Tree], tags: Sequence[str], feats: Sequence[str] | None = None) -> np.ndarray:
        """The (n+1) x (n+1) matrix of arc scores: log P(right) of each proposed arc, UNPROPOSED
        for the others (``feats``: the words' FEATS, as ``arc_feature_groups`` takes them)."""
        n = len(tags)
        scores = np.full((n + 1, n + 1), UNPROPOSED)
        weight, nothing, sums = self.weights.get, itertools.repeat(0.0), self._sums
        for h, d, groups in arc_feature_groups(trees, tags, feats):
            z = self.intercept
            for group in groups:
                total = sums.get(group)
                if total is None:
                    total = sums[group] = sum(map(weight, group, nothing))
                    if len(sums) > MAX_SUMS:
                        sums.clear()
                z += total
            scores[h, d] = max(-math.log1p(math.exp(-z)) if z > -700 else z, LOG_FLOOR)
        return scores

    @functools.cached_property
    def _sums(self) -> dict[tuple[str, ...], float]:
        """The weight of each feature group met so far (``arc_feature_groups``)."""
        return {}

    @functools.cached_property
    def weights(self) -> dict[str, float]:
        """Each feature's weight (a feature training never saw weighs nothing)."""
        return dict(zip(self.index, self.coef.tolist()))

    @classmethod
    def fit(cls, rows: list[tuple[list[str], bool]]) -> ArcScorer:
        """The scorer fitted to ``rows``: each proposed arc's features, and whether it is right."""
        from scipy.sparse import csr_matrix
        from sklearn.linear_model import LogisticRegression

        # what an archive keeps (from_json): names of at most MAX_FEATURE_NAME characters (a longer
        # one, from a long tag or FEATS, weighs nothing), and the MAX_FEATURES most frequent
        counts = collections.Counter(f for names, _ in rows for f in names)
        kept = {f: k for f, k in counts.items() if len(f) <= MAX_FEATURE_NAME}
        if len(kept) > MAX_FEATURES:
            kept = dict(collections.Counter(kept).most_common(MAX_FEATURES))
        if len(kept) < len(counts):
            rows = [([f for f in names if f in kept], right) for names, right in rows]
        index: dict[str, int] = {}
        columns = [index.setdefault(f, len(index)) for names, _ in rows for f in names]
        pointers = np.cumsum([0] + [len(names) for names, _ in rows])
        x = csr_matrix((np.ones(len(columns)), columns, pointers), shape=(len(rows), len(index)))
        y = np.array([right for _, right in rows])
        if y.all() or not y.any():  # one class only: every arc right, or none
            return cls(index, np.zeros(len(index)), 30.0 if y.all() else -30.0)
        model = LogisticRegression(C=SCORER_C, max_iter=1000).fit(x, y)
        return cls(index, model.coef_[0].copy(), float(model.intercept_[0]))

    def as_json(self) -> dict:
        return {"features": list(self.index), "coef": self.coef.tolist(), "intercept": self.intercept}

    @classmethod
    def from_json(cls, stored: object) -> ArcScorer:
        """The scorer an archive holds (ValueError if it is not one)."""
        require(isinstance(stored, dict), "a learned arc scorer that is not a mapping")
        features, coef, intercept = stored.get("features"), stored.get("coef"), stored.get("intercept")
        require(isinstance(features, list) and isinstance(coef, list) and len(features) == len(coef) <= MAX_FEATURES,
                "a learned arc scorer without one weight per feature")  # fmt: skip
        require(all(isinstance(f, str) and len(f) <= MAX_FEATURE_NAME for f in features)
                and len(set(features)) == len(features), "a learned arc scorer's features are not names")  # fmt: skip
        require(all(_finite(w) for w in coef) and _finite(intercept), "a learned arc scorer's weight is not a number")
        return cls({f: k for k, f in enumerate(features)}, np.array(coef, dtype=float), float(intercept))


class LabelScorer(ArcScorer):
    """The probability that a label some member gives an arc is the word's: logistic regression
    over its ``label_features``, fitted to the members' labels of the held-out words whose gold
    head they propose, where they give more than one (``ArcScorer.fit``, with other rows)."""

    def choose(self, trees: Sequence[Tree], h: int, d: int, tags: Sequence[str],
               feats: Sequence[str] | None = None) -> str:  # fmt: skip
        """Word d's label on the arc h -> d: of the labels the members proposing it give it (all
        members' labels, if none does), the one of highest score (ties: the earliest member's)."""
        proposing, labels = label_candidates(trees, h, d)
        if len(labels) == 1:
            return labels[0]
        weight = self.weights.get
        scores = [sum(weight(f, 0.0) for f in label_features(label, proposing, trees, h, d, tags, feats))
                  for label in labels]  # fmt: skip
        return labels[scores.index(max(scores))]


@dataclasses.dataclass(frozen=True)
class Weights:
    """What each member's arcs and labels are worth (see the module's docstring): ``overall``
    and ``by_tag``, each member's held-out labelled accuracy on all words and by the dependent's
    coarse tag (which weigh the label votes of "learned" and "pos"), and with "learned" the arc
    scorer and the label scorer (None in an archive made before it: labels are voted)."""

    kind: str
    overall: tuple[float, ...]
    by_tag: tuple[Mapping[str, float], ...]
    scorer: ArcScorer | None = None
    labeler: LabelScorer | None = None

    def __len__(self) -> int:
        return len(self.overall)

    @classmethod
    def equal(cls, members: int) -> Weights:
        return cls("equal", tuple(1.0 for _ in range(members)), tuple({} for _ in range(members)))

    def votes(self, tags: Sequence[str]) -> np.ndarray:
        """Members x words: what member m's label (and, but with "learned", its arc) of word d is
        worth (``tags[d - 1]`` is d's tag)."""
        if self.kind == "equal":
            return np.ones((len(self), len(tags)))
        if self.kind == "model":
            return np.repeat(np.array(self.overall)[:, None], len(tags), axis=1)
        return np.array([[table.get(t, whole) for t in tags] for table, whole in zip(self.by_tag, self.overall)])

    def arc_scores(self, trees: Sequence[Tree], tags: Sequence[str], votes: np.ndarray,
                   feats: Sequence[str] | None = None) -> np.ndarray:  # fmt: skip
        """The (n+1) x (n+1) matrix of arc scores the tree maximizes: the learned scorer's (which
        reads the words' ``feats`` too), or the sum of the votes of the members proposing each arc."""
        if self.scorer is not None:
            return self.scorer.scores(trees, tags, feats)
        n = len(tags)
        heads = np.array([t[0][1:] for t in trees], dtype=np.intp).reshape(len(trees), n)
        scores = np.zeros((n + 1, n + 1))
        np.add.at(scores, (heads, np.broadcast_to(np.arange(1, n + 1), heads.shape)), votes)
        return scores

    @classmethod
    def estimate(cls, kind: str, gold: Iterable[Sentence], parses: Sequence[Iterable[Tree]]) -> Weights:
        """The weights of ``kind`` from the members' ``parses`` of the held-out sentences ``gold``
        (one iterable of trees per member, in the sentences' order; punctuation is scored)."""
        members = len(parses)
        if kind == "equal":
            return cls.equal(members)
        counts: dict[str, int] = {}
        right: list[dict[str, int]] = [{} for _ in range(members)]
        rows: list[tuple[list[str], bool]] = []
        label_rows: list[tuple[list[str], bool]] = []
        for sentence, *trees in zip(gold, *parses, strict=True):
            gold_heads, gold_labels = sentence.heads, sentence.labels
            tags = sentence.column(CPOSTAG)
            for d, tag in enumerate(tags, 1):
                counts[tag] = counts.get(tag, 0) + 1
                for m, (heads, labels) in enumerate(trees):
                    if heads[d] == gold_heads[d] and labels[d] == gold_labels[d]:
                        right[m][tag] = right[m].get(tag, 0) + 1
            if kind == "learned":
                feats = sentence.column(FEATS)
                rows.extend((names, gold_heads[d] == h) for h, d, names in arc_features(trees, tags, feats))
                label_rows.extend(_label_rows(trees, gold_heads, gold_labels, tags, feats))
        words = sum(counts.values())
        if not words:
            raise MaltpyError("no held-out words to weigh the members by", "blend")
        overall = tuple(sum(r.values()) / words for r in right)
        by_tag = tuple({t: (r.get(t, 0) + SMOOTHING * whole) / (n + SMOOTHING) for t, n in counts.items()}
                       for r, whole in zip(right, overall))  # fmt: skip
        if kind == "model":
            by_tag = tuple({} for _ in range(members))
        if kind != "learned":
            return cls(kind, overall, by_tag)
        return cls(kind, overall, by_tag, ArcScorer.fit(rows), LabelScorer.fit(label_rows) if label_rows else None)

    def as_json(self) -> dict:
        scorer = {"scorer": self.scorer.as_json()} if self.scorer is not None else {}
        if self.labeler is not None:
            scorer["labeler"] = self.labeler.as_json()
        return {"kind": self.kind, "overall": list(self.overall), "by_tag": [dict(t) for t in self.by_tag], **scorer}

    @classmethod
    def from_json(cls, stored: object, members: int) -> Weights:
        """The weights an archive holds (ValueError if they are not weights of ``members`` members)."""
        require(isinstance(stored, dict) and stored.get("kind") in WEIGHTINGS, "blend weights of no known kind")
        overall, by_tag = stored.get("overall"), stored.get("by_tag")
        require(isinstance(overall, list) and len(overall) == members and all(_weight(w) for w in overall),
                "blend weights not one per member")  # fmt: skip
        require(isinstance(by_tag, list) and len(by_tag) == members
                and all(isinstance(t, dict) and len(t) <= MAX_TAGS for t in by_tag),
                "blend weights by tag not one table per member")  # fmt: skip
        for table in by_tag:
            require(all(isinstance(k, str) and valid_label(k) and _weight(w) for k, w in table.items()),
                    "a blend weight that is not a tag's number from 0 to 1")  # fmt: skip
        learned = stored["kind"] == "learned"
        require(("scorer" in stored) == learned, "learned blend weights without their scorer, or the reverse")
        require(learned or "labeler" not in stored, "a label scorer in blend weights that are not learned")
        scorer = ArcScorer.from_json(stored["scorer"]) if learned else None
        labeler = LabelScorer.from_json(stored["labeler"]) if "labeler" in stored else None
        return cls(stored["kind"], tuple(float(w) for w in overall), tuple(by_tag), scorer, labeler)


def _label_rows(trees: Sequence[Tree], gold_heads: list[int], gold_labels: list[str], tags: Sequence[str],
                feats: Sequence[str]) -> Iterator[tuple[list[str], bool]]:  # fmt: skip
    """The label scorer's rows of one held-out sentence: for each word whose gold head some
    members propose, giving it more than one label, each of those labels' features and whether
    it is the gold one."""
    for d in range(1, len(tags) + 1):
        h = gold_heads[d]
        if not any(heads[d] == h for heads, _ in trees):
            continue
        proposing, labels = label_candidates(trees, h, d)
        if len(labels) > 1:
            for label in labels:
                yield label_features(label, proposing, trees, h, d, tags, feats), label == gold_labels[d]


def _weight(value: object) -> bool:
    return _finite(value) and 0 <= value <= 1


def _finite(value: object) -> bool:
    return type(value) in (int, float) and math.isfinite(value)


def combine(trees: Sequence[Tree], tags: Sequence[str], weights: Weights, projective: bool, one_root: bool,
            feats: Sequence[str] | None = None) -> Tree:  # fmt: skip
    """The tree the members' ``trees`` of one sentence vote for, and its labels (see the module's
    docstring); ``tags[d - 1]`` is word d's coarse tag, ``feats[d - 1]`` its FEATS (for the
    learned scorer; none given: "_" for every word)."""
    n = len(tags)
    votes = weights.votes(tags)
    scores = weights.arc_scores(trees, tags, votes, feats)
    best = spanning_tree(scores, projective=projective, one_root=one_root).tolist()
    labels = [""]
    labeler = weights.labeler
    for d in range(1, n + 1):
        if labeler is not None and (best[d] != 0 or any(heads[d] == 0 for heads, _ in trees)):
            labels.append(labeler.choose(trees, best[d], d, tags, feats))
            continue
        tally: dict[str, float] = {}
        for m, (member_heads, member_labels) in enumerate(trees):
            if member_heads[d] == best[d]:
                tally[member_labels[d]] = tally.get(member_labels[d], 0.0) + votes[m, d - 1]
        if not tally:  # an arc no member proposed
            for m, (member_heads, member_labels) in enumerate(trees):
                if best[d] == 0:
                    for r in range(1, n + 1):
                        if member_heads[r] == 0:
                            tally[member_labels[r]] = tally.get(member_labels[r], 0.0) + votes[m, r - 1]
                else:
                    tally[member_labels[d]] = tally.get(member_labels[d], 0.0) + votes[m, d - 1]
        labels.append(max(tally, key=tally.__getitem__))  # the first of the best: the earliest member's
    return best, labels


class Blend(Parser):
    """Several models whose parses of each sentence are combined into one tree (``combine``).

    In a team of workers (jobs.py), a worker's blend parses with its share of the members alone
    (``own``; ``read_blend`` loads those and member 0, the others are None): it gives their trees
    of a batch (``share_trees``), and combines a part of the batch with every member's trees
    (``combine_into``)."""

    def __init__(self, members: list[Model | None], weights: Weights, decoder: str, statistics: dict,
                 algorithms: list[str] | None = None, own: list[int] | None = None) -> None:  # fmt: skip
        if len(weights) != len(members):
            raise ValueError("one weight per member")
        self.members = members
        self.weights = weights
        self.decoder = decoder
        self.statistics = statistics
        #: each member's parsing algorithm (the archive keeps them: ``shares`` reads them)
        self.algorithms = algorithms or [m.config.singlemalt.parsing_algorithm for m in members]
        #: the members this process parses with: all, but in a team of workers
        self.own = own if own is not None else list(range(len(members)))
        first = members[0]
        self.data_format = first.data_format
        self.vocabulary = first.vocabulary
        self.single_root = first.config.graph.single_root
        self._gathered: dict[int, list[Tree]] | None = None  # share_trees' trees, as batches are parsed

    @property
    def by_tokens(self) -> bool:
        return all(self.members[k].by_tokens for k in self.own)

    def _check_format(self, reader) -> None:
        for k in self.own:
            self.members[k]._check_format(reader)

    def _parse_batch(self, batch: list[Sentence], progress, watch: Callable | None) -> list[Sentence]:
        trees = {k: self.members[k].arcs(batch) for k in self.own}
        if self._gathered is not None:
            for k, kept in self._gathered.items():
                kept += trees[k]
            return batch
        self.combine_into(batch, trees, watch)
        if progress:
            progress(sum(len(s) for s in batch))
        return batch

    def share_trees(self, reader, batch_tokens: int) -> tuple[list[Sentence], dict[int, list[Tree]]]:
        """The sentences of ``reader`` (a ConllReader), unparsed, and the trees that each member
        this process parses with (``own``) gives them: a team's worker's share of a batch."""
        self._gathered = {k: [] for k in self.own}
        try:
            sentences = list(self.parse(reader, batch_tokens=batch_tokens, watch=None))
            return sentences, self._gathered
        finally:
            self._gathered = None

    def combine_into(self, batch: list[Sentence], trees: Mapping[int, list[Tree]], watch: Callable | None) -> None:
        """Give each sentence of ``batch`` the tree that ``trees`` (each member's of every
        sentence) vote for; ``watch`` is given the batch's tally of values training never saw."""
        first = self.members[0]
        views = first.views(batch, watch)  # the first member's reading: its tags weigh the votes
        projective = self.decoder == "projective"
        parses = [trees[k] for k in range(len(self.members))]
        for k, (sentence, view) in enumerate(zip(batch, views)):
            heads, labels = combine([p[k] for p in parses], view.column(CPOSTAG), self.weights, projective,
                                    self._single_root(sentence), view.column(FEATS))  # fmt: skip
            sentence.set_arcs(heads, labels)
            first.write_ignored(sentence)

    def bound_degree(self, max_degree: int | None) -> None:
        """``-cd`` for each member that bounds the degree of non-projectivity (an error if none does)."""
        if not any(reads(a, MAX_DEGREE) for a in self.algorithms):
            which = ", ".join(USED_BY[MAX_DEGREE])
            names = ", ".join(sorted(set(self.algorithms)))
            raise MaltpyError(f"bounds {which} only; this blend's members are {names}", "Model.bound_degree")
        for member in self._held():
            if member.bounds_degree:
                member.bound_degree(max_degree)

    def set_enforce_tree(self, on: bool) -> None:
        """``-nt`` for each member that reads it (an error if none does and ``on`` is not the default)."""
        if all(unused_option(ENFORCE_TREE, on, a) for a in self.algorithms):
            names = ", ".join(sorted(set(self.algorithms)))
            raise MaltpyError(f"nivre.enforce_tree (-nt) {str(on).lower()}: no member of this blend reads it (they "
                              f"are {names})", "Model.set_enforce_tree")  # fmt: skip
        for member, algorithm in zip(self.members, self.algorithms):
            if member is not None and reads(algorithm, ENFORCE_TREE):
                member.set_enforce_tree(on)

    def set_single_root(self, setting: str) -> None:
        for member in self._held():
            member.set_single_root(setting)
        self.single_root = setting

    def _held(self) -> list[Model]:
        """The members this process has loaded."""
        return [m for m in self.members if m is not None]

    def describe(self) -> dict:
        """What ``maltpy info`` shows."""
        return {
            "blend": {"weights": self.weights.kind, "decoder": self.decoder, "members": len(self.members)},
            "data_format": self.data_format,
            "members": [{"weight": w, **m.describe()} for m, w in zip(self.members, self.weights.overall)],
            "training": self.statistics,
        }

    def save(self, path) -> None:
        write_blend(str(path), self)

    def to_bytes(self) -> bytes:
        return write_blend(None, self)


def write_blend(path: str | None, blend: Blend) -> bytes | None:
    """The blend's archive: a manifest with its weights and decoder, and each member's archive
    whole (``members/NN.mpm``), to ``path`` (whole or not at all), or its bytes if ``path`` is None."""
    check_members(len(blend.members), path or "Blend.to_bytes")
    files = {f"members/{k:02d}.mpm": member.to_bytes() for k, member in enumerate(blend.members)}
    manifest = {
        "maltpy_version": __version__,
        "blend": {"members": list(files), "weights": blend.weights.as_json(), "decoder": blend.decoder,
                  "algorithms": blend.algorithms},
        "training": blend.statistics,
    }
    return write_archive(path, manifest, files)


def read_blend(archive: Archive, path: str, team: tuple[int, int] | None, load: Callable[..., Parser]) -> Blend:
    """The blend in ``archive`` (opened from ``path``), each part checked before use; in a team of
    workers, ``team`` = (this worker's place, the team's size), which parses with its share of
    the members (``shares``) and loads those and member 0 alone (all of them from an archive made
    before blends named their members' algorithms)."""
    try:
        stored = archive.manifest["blend"]
        require(isinstance(stored, dict), "a blend that is not a mapping")
        names = stored.get("members")
        require(isinstance(names, list) and 0 < len(names) <= MAX_MEMBERS
                and all(isinstance(n, str) for n in names) and len(set(names)) == len(names),
                "blend members that are not a list of members")  # fmt: skip
        require(stored.get("decoder") in DECODERS, "a blend decoder of no known kind")
        algorithms = stored.get("algorithms")  # not in archives made before --jobs shared members
        require(algorithms is None or (isinstance(algorithms, list) and len(algorithms) == len(names)
                                       and all(isinstance(a, str) and len(a) <= 40 for a in algorithms)),
                "blend algorithms that are not one name per member")  # fmt: skip
        weights = Weights.from_json(stored.get("weights"), len(names))
        statistics = archive.manifest.get("training", {})
        require(isinstance(statistics, dict), "training statistics are not a mapping")
        json.dumps(statistics, allow_nan=False)
    except ValueError as e:
        raise MaltpyError(f"damaged model: {cut(e)}", path) from None
    own = None
    if team is not None and team[1] <= len(names):
        own = shares(algorithms or [None] * len(names), team[1])[team[0]]
    held = sorted({0, *own}) if own is not None and algorithms is not None else range(len(names))
    members: list = [None] * len(names)
    for k in held:
        name = names[k]
        member = load(f"{path}:{name}", archive.member(name), archive)
        if isinstance(member, Blend):
            raise MaltpyError(f"damaged model: a blend inside a blend ({cut(name)})", path)
        algorithm = member.config.singlemalt.parsing_algorithm
        if algorithms is not None and algorithms[k] != algorithm:
            raise MaltpyError(f"damaged model: member {cut(name)} is {algorithm}, not {cut(algorithms[k], 40)} as "
                              "the blend says", path)  # fmt: skip
        members[k] = member
    return Blend(members, weights, stored["decoder"], statistics, algorithms, own)


# --- learning --------------------------------------------------------------------------------------

#: MaltBlender's six (Hall et al. 2007): arc-eager, arc-standard and Covington's non-projective
#: algorithm, each left to right and right to left; the projective two with pseudo-projective
#: parsing (path encoding), so that every member can give a non-projective treebank's trees
DEFAULT_MEMBERS = (
    "-a nivreeager -pp path",
    "-a nivreeager -pp path -pd right-to-left",
    "-a nivrestandard -pp path",
    "-a nivrestandard -pp path -pd right-to-left",
    "-a covnonproj",
    "-a covnonproj -pd right-to-left",
)
#: without a held-out file, the members' weights come from their parses of the training
#: sentences, each parsed by the members learned from the other folds (sentence k is in fold k mod
#: FOLDS): two folds cost as much learning as one held-out tenth did, and give the learned scorer
#: ten times the words (on en_lines, +0.2 LAS with its context and label features)
FOLDS = 2


@dataclasses.dataclass(frozen=True)
class Member:
    """A member as a blend's configuration names it: ``maltpy learn``'s flags (``-c FILE`` and
    the option flags: ``-a covnonproj -pd right-to-left``), or ``-m FILE``, a model learned before."""

    text: str
    config: object | None  # config.Config, to learn
    model_path: str | None  # or a model to take as it is

    @classmethod
    def parse(cls, text: str, where: str, base_dir: str | None = None) -> Member:
        """The member ``text`` names (given in ``where``; a relative ``-c`` or ``-m`` path is taken
        from ``base_dir``, the folder of the blend's configuration file, if given)."""
        from ..config import FLAGS, load_config

        try:
            words = shlex.split(text)
        except ValueError as e:
            raise MaltpyError(f"member {text!r}: {e}", where) from None
        pairs = dict(zip(words[::2], words[1::2]))
        twice = next((w for i, w in enumerate(words[::2]) if w.startswith("-") and w in words[: 2 * i : 2]), None)
        if twice is not None and not len(words) % 2:
            raise MaltpyError(f"member {cut(text, 80)!r}: {twice} is given twice", where)
        if base_dir is not None:
            pairs.update({flag: os.path.join(base_dir, pairs[flag]) for flag in ("-c", "-m") if flag in pairs})
        if len(words) % 2 or len(pairs) != len(words) // 2 or not all(w.startswith("-") for w in pairs):
            raise MaltpyError(f"member {cut(text, 80)!r}: not pairs of a flag and its value", where)
        if "-m" in pairs:
            if len(pairs) > 1:
                raise MaltpyError(f"member {cut(text, 80)!r}: -m FILE names a model; it takes no other flag", where)
            return cls(text, None, pairs["-m"])
        overrides = {}
        for flag, value in pairs.items():
            if flag != "-c" and flag[1:] not in FLAGS:
                raise MaltpyError(f"member {cut(text, 80)!r}: {flag} is not a member's flag (maltpy learn's "
                                  "option flags and -c FILE, or -m FILE alone)", where)  # fmt: skip
            if flag != "-c":
                overrides[FLAGS[flag[1:]]] = value
        try:
            config = load_config(pairs.get("-c"), overrides)
        except MaltpyError as e:
            if e.file != "command line":  # in the member's config file: its file and line
                raise
            raise MaltpyError(f"member {cut(text, 80)!r}: {e.message}", where) from None
        return cls(text, config, None)


@dataclasses.dataclass(frozen=True)
class Treebank:
    """Gold trees a blend learns or weighs its members from, read anew each time it is needed:
    ``sentences()`` gives them (a file read again, or a list held), ``name`` names them in
    messages, ``format`` is their CoNLL format; ``path``: the file (``of_file``), which a worker
    process reads too (``learn_blend``'s ``jobs``)."""

    sentences: Callable[[], Iterator[Sentence]]
    name: str
    format: str
    path: str | None = None

    @classmethod
    def of_file(cls, path: str, format: str = "auto") -> Treebank:
        """The trees of the file at ``path``, which must be one that can be read again (not a
        FIFO or standard input: ``files.check_rereadable``)."""
        from ..files import check_rereadable, read_conll

        check_rereadable(path, "a blend")
        with read_conll(path, format) as reader:  # the format as the first lines say it
            format = reader.format

        def sentences() -> Iterator[Sentence]:
            with read_conll(path, format) as reader:
                yield from reader

        return cls(sentences, path, format, path)


#: what learning one member takes besides the interpreter (jobs.WORKER_BYTES), in times the
#: training treebank's bytes: Covington's non-projective member of en_lines (3.9 MB) peaks at 1.28 GB
LEARN_FACTOR = 400


def learn_blend(train: Treebank, members: Sequence[Member], weighting: str, decoder: str,
                held_out: Treebank | None = None, say: Callable[[str], None] | None = None,
                jobs: int = 1, *, load: Callable[..., Parser]) -> Blend:  # fmt: skip
    """A blend of ``members`` whose weights (``weighting``) come from their parses of held-out
    text: ``held_out`` (the members learn from all of ``train``); or, without it, ``train``
    itself, each of its FOLDS folds parsed by the members learned from the others, which then
    learn again from all of ``train``. A member given as a model (``-m FILE``) is taken as it is,
    and needs ``held_out`` for weights other than equal. With ``jobs`` above 1 and treebanks
    read from files, the members learn (and parse) in that many worker processes at once
    (``processes.Tasks``): the blend is the same. ``load``: how a member given as a model, or
    learned in a worker process, is read (``maltpy.load.load``, which reads blends too, so it is
    given: it sits above this package)."""
    if held_out is None and weighting != "equal" and any(m.model_path for m in members):
        raise MaltpyError("members given as models (-m FILE) need --held-out FILE to be weighed", "command line")
    check_members(len(members), "command line")
    say = say or (lambda message: None)
    # each member learned and, for the weights, made to parse the held-out text in turn: without
    # a held-out file, each fold of the training sentences by the member learned from the others,
    # which is dropped once it has
    weighed = weighting != "equal"
    folds = [None] if held_out is not None else list(range(FOLDS)) if weighed else []
    gold: list[Sentence] = []
    golds: dict[int | None, list[Sentence]] = {}  # each fold's (None: the held-out file's)
    runs = []  # (member, fold, whether it parses the held-out text, whether its model is kept), in turn
    for fold in folds:
        fold_gold = _held_out_gold(train, held_out, fold) if weighed else []
        if held_out is None and not fold_gold:  # a treebank of one sentence
            continue
        gold += fold_gold
        golds[fold] = fold_gold
        runs += [(k, fold, weighed, held_out is not None) for k in range(len(members))]
    if weighed and not gold:
        raise MaltpyError("no held-out sentences to weigh the members by: give more, or --held-out FILE, or "
                          "--weights equal", held_out.name if held_out else train.name)  # fmt: skip
    if held_out is None:
        runs += [(k, None, False, True) for k in range(len(members))]
    parses: list[list[Tree]] = [[] for _ in members]
    models: list[Model] = []
    for (k, _, _, kept), (trees, model) in zip(runs, _runs(runs, train, members, held_out, golds, say, jobs, load)):
        parses[k] += trees
        if kept:
            models.append(model)
    if weighed:
        say(f"weighing the members by their parses of {'the held-out file' if held_out else 'the folds'}")
    weights = Weights.estimate(weighting, gold, parses) if weighed else Weights.equal(len(members))
    statistics = {
        "treebank": train.name,
        "held_out": held_out.name if held_out else f"the treebank in {FOLDS} folds",
        "members": [m.text for m in members],
        "held_out_las": [round(100 * w, 2) for w in weights.overall] if weighting != "equal" else None,
    }
    return Blend(models, weights, decoder, statistics)


def _held_out_gold(train: Treebank, held_out: Treebank | None, fold: int | None) -> list[Sentence]:
    """The sentences a run's member parses for the weights: ``held_out``'s, or ``train``'s
    ``fold`` (sentence k is in fold k mod FOLDS), each with its gold tree."""
    if held_out is not None:
        return _gold(held_out.sentences(), held_out.name)
    return _gold((s for number, s in enumerate(train.sentences()) if number % FOLDS == fold), train.name)


def _runs(runs: list, train: Treebank, members: Sequence[Member], held_out: Treebank | None, golds: dict,
          say: Callable[[str], None], jobs: int, load: Callable[..., Parser],
          ) -> Iterator[tuple[list[Tree], Model | None]]:  # fmt: skip
    """What each of ``runs`` (``learn_blend``'s) gives, in turn: the member's trees of the
    held-out text (``golds``: each fold's sentences, or None's, the held-out file's), and its
    model if kept; in this process, or in ``jobs`` worker processes at once when the treebanks
    are files (a worker reads them itself)."""
    if jobs < 2 or len(runs) < 2 or train.path is None or (held_out is not None and held_out.path is None):
        for k, fold, parsed, kept in runs:
            what = "all of it" if fold is None else f"all but fold {fold + 1} of {FOLDS}"
            say(f"member {k + 1} of {len(members)} ({members[k].text}): learning from {what}")
            try:
                yield _member_run(members[k], train, fold, golds.get(fold) if parsed else None, kept, load)
            except MaltpyError as e:
                raise _of_member(e, k, members) from None
        return
    from ..run.processes import Tasks

    say(f"learning {len(members)} members{f' in {FOLDS} folds and' if runs[0][1] is not None else ''} "
        f"in {min(jobs, len(runs))} processes")  # fmt: skip
    tasks = Tasks(min(jobs, len(runs)))
    try:
        held = (held_out.path, held_out.format, held_out.name) if held_out is not None else None
        # the costliest first (Covington's members learn from about four times the instances), so
        # that no worker is left alone with one at the end
        costs = [parse_cost(m.config.singlemalt.parsing_algorithm if m.config else None) for m in members]
        futures = {n: tasks.submit(_member_task, members[k], (train.path, train.format, train.name), fold,
                                   held if parsed else None, parsed, kept, load)
                   for n, (k, fold, parsed, kept) in sorted(enumerate(runs), key=lambda run: -costs[run[1][0]])}
        for (k, *_), future in zip(runs, map(futures.__getitem__, range(len(runs)))):
            try:
                trees, data = future.result()
            except MaltpyError as e:
                raise _of_member(e, k, members) from None
            except Exception as e:  # the process died (killed, out of memory), or a defect
                raise _of_member(MaltpyError(f"its learning process failed ({type(e).__name__}: {cut(str(e), 200)})",
                                             "maltpy blend"), k, members) from None
            yield trees, load(f"member {k + 1}", data) if data is not None else None
    except BaseException:
        tasks.stop()
        raise
    tasks.shutdown()


def _of_member(error: MaltpyError, k: int, members: Sequence[Member]) -> MaltpyError:
    """``error``, met as member ``k`` learned or parsed, saying which member it is."""
    return MaltpyError(f"member {k + 1} of {len(members)} ({cut(members[k].text, 80)}): {error.message}", error.file,
                       error.line)  # fmt: skip


def _member_task(member: Member, train: tuple[str, str, str], fold: int | None, held: tuple[str, str, str] | None,
                 parsed: bool, kept: bool, load: Callable[..., Parser]) -> tuple[list[Tree], bytes | None]:  # fmt: skip
    """``_member_run`` in a worker process (``processes.Tasks``): the treebanks read from their
    files (``held``: the held-out file's, or None: ``train``'s ``fold``), the model as its
    archive's bytes."""
    def treebank(path: str, format: str, name: str) -> Treebank:
        return dataclasses.replace(Treebank.of_file(path, format), name=name)

    training = treebank(*train)
    gold = _held_out_gold(training, treebank(*held) if held is not None else None, fold) if parsed else None
    trees, model = _member_run(member, training, fold, gold, kept, load)
    return trees, model.to_bytes() if model is not None else None


def _member_run(member: Member, train: Treebank, fold: int | None, gold: list[Sentence] | None,
                kept: bool, load: Callable[..., Parser]) -> tuple[list[Tree], Model | None]:  # fmt: skip
    """``member`` learned from ``train`` (all of it, or all but ``fold``) or, given as a model,
    loaded (by ``load``); its trees of the held-out sentences ``gold``, if given; its model if ``kept``."""
    from ..models.learn import learn

    if member.model_path is not None:
        model = load(member.model_path)
        if isinstance(model, Blend):
            raise MaltpyError("a blend cannot be a member of a blend", member.model_path)
    else:
        sentences = (s for number, s in enumerate(train.sentences()) if fold is None or number % FOLDS != fold)
        model = learn(member.config, sentences, train.format, train.name)
    return _parse_copies(model, gold) if gold is not None else [], model if kept else None


def _gold(sentences: Iterable[Sentence], name: str) -> list[Sentence]:
    """The held-out ``sentences`` (of ``name``), each with its gold tree."""
    gold = []
    for sentence in sentences:
        if sentence.heads is None:
            raise MaltpyError("held-out text needs gold trees, but HEAD is _", name, sentence.line)
        gold.append(sentence)
    return gold


def _parse_copies(model: Model, gold: list[Sentence]) -> list[Tree]:
    """``model``'s tree of each of the ``gold`` sentences (parsed as copies: they keep their trees)."""
    copies = [Sentence([list(w) for w in s.words], s.format, s.line, s.extra) for s in gold]
    return [(s.heads, s.labels) for s in model.parse(copies, watch=None)]


# --- combining parses made before (maltpy combine) -------------------------------------------------


def aligned(readers: Sequence) -> Iterator[list[Sentence]]:
    """The sentences of the parsed files ``readers`` (ConllReaders), one of each at a time; a
    MaltpyError where one holds other words than the first, or ends before it, or is unparsed."""
    from itertools import zip_longest

    from ..evaluation.scores import misalignment

    first_name = readers[0].name
    for number, row in enumerate(zip_longest(*readers), 1):
        for sentence, reader in zip(row[1:], readers[1:]):
            problem = misalignment(number, row[0], sentence, first_name, reader.name)
            if problem:
                raise problem
        if row[0].heads is None:  # one file alone
            raise MaltpyError("sentence is not parsed (HEAD is _)", first_name, row[0].line)
        yield list(row)


def combine_files(readers: Sequence, weights: Weights, projective: bool, single_root: str, out) -> None:
    """Write to ``out`` each sentence of the first of ``readers`` with the tree the files' parses
    of it vote for (``combine``); one word on the root if ``single_root`` is true, or auto and
    the sentence is CoNLL-U."""
    from ..data.conll import format_sentence

    if len(weights) != len(readers):
        raise ValueError("one weight per file")
    for row in aligned(readers):
        first = row[0]
        one_root = one_root_for(single_root, first.format)
        heads, labels = combine([(s.heads, s.labels) for s in row], first.column(CPOSTAG), weights, projective,
                                one_root, first.column(FEATS))  # fmt: skip
        first.set_arcs(heads, labels)
        out.write(format_sentence(first).encode("utf-8"))
