"""What each member's arcs and labels are worth in the combination (combination.py): the
weights, learned from held-out text parsed by each member (``Weights.estimate``):

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
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Mapping, Sequence

import numpy as np

from ..data.conll import CPOSTAG, FEATS, Sentence, valid_label
from ..errors import MaltpyError, require
from .features import Tree, arc_features, label_candidates, label_features
from .options import WEIGHTINGS
from .scorer import ArcScorer, LabelScorer, finite

SMOOTHING = 5.0
MAX_TAGS = 100_000  # tags with a weight, per member, in an archive


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
    return finite(value) and 0 <= value <= 1
