"""MaltOptimizer's first phase: what the training data tells (Ballesteros and Nivre 2012)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..data.columns import FORM, GIVEN, ID, maltparser_names
from ..data.conll import Sentence
from ..data.tree import is_projective, nonprojective_arcs
from ..errors import counted
from ..transition import SYSTEMS

#: A column "carries information" when at least this share of its words is not ``_``.
INFORMATIVE = 0.5


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
        treebank has non-projective arcs (as MaltOptimizer's phase 1 proposes), each kind in the
        order of the systems' ``trial_rank``."""
        order = sorted(SYSTEMS, key=lambda name: (not SYSTEMS[name].projective, SYSTEMS[name].trial_rank))
        return tuple(name for name in order if SYSTEMS[name].projective or self.nonprojective_arcs)

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
    names = maltparser_names(data_format)  # as feature models name them
    columns = {names[c.index]: c.index for c in GIVEN if c.index not in (ID, FORM)}  # the columns beyond FORM
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
