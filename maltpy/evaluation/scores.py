"""Attachment scores, as the CoNLL shared tasks and Nivre (2008, §6.2) report them, grouped as
MaltEval groups them (Nilsson & Nivre 2008), and the significance of a difference.

Over the scored words: LAS, the share with the right head and the right label; UAS, the right
head; LA, the right label. EM is the share of sentences whose scored words are all right in
head and label. With punctuation excluded, a word is not scored if its gold UPOS/CPOSTAG is
PUNCT or its gold form consists of Unicode punctuation characters only (as the CoNLL-X
eval.pl). Per label, precision and recall count words with the right head and that label.

Grouped (``by``), each scored word counts in the group of its value in the gold file: its gold
label, tag, arc length, arc direction, sentence length, arc projectivity or depth (MaltEval's
Deprel, Cpostag, Postag, GroupedRelationLength, ArcDirection, SentenceLength in bins of ten,
ArcProjectivity and ArcDepth); the LAS,
UAS and LA of a group are over those words (MaltEval's recall). For the groupings that depend
on the tree, a system's own value of each word also counts: ``precision`` is the share of the
words the system puts in a group that have the right head and label (MaltEval's precision).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from itertools import chain, zip_longest

from ..data.conll import CPOSTAG, DEPREL, FORM, HEAD, POSTAG, Sentence
from ..data.tree import depths, nonprojective_arcs
from ..errors import MaltpyError, quote
from .aligned import AlignedCounts, Alignment, align_rest
from .conll18 import Conll18Counts, ud_words
from .tags import TagCounts


def is_punctuation(word: list[str]) -> bool:
    """Tag PUNCT, or a form made of Unicode punctuation (categories P*) only."""
    return word[CPOSTAG] == "PUNCT" or all(unicodedata.category(c).startswith("P") for c in word[FORM])


@dataclass(slots=True)
class LabelCounts:
    gold: int = 0
    system: int = 0
    correct: int = 0  # right head and this label in both

    def as_dict(self) -> dict[str, float | int | None]:
        f1 = None
        if self.gold and self.system:
            f1 = round(200.0 * self.correct / (self.gold + self.system), 2)
        return {
            "gold": self.gold,
            "system": self.system,
            "correct": self.correct,
            "precision": _percent(self.correct, self.system),
            "recall": _percent(self.correct, self.gold),
            "f1": f1,
        }


#: MaltEval's groupings that maltpy has, by the name ``eval --by`` takes.
GROUPINGS = ("deprel", "upos", "xpos", "arc-length", "arc-direction", "sentence-length", "projectivity", "depth")
#: Those whose value a system's tree decides too (the others are columns of the input).
TREE_GROUPINGS = frozenset(("deprel", "arc-length", "arc-direction", "projectivity", "depth"))
# The values are MaltEval's keys (its se.vxu.msi.malteval.grouping classes), but for sentence
# length: MaltEval's SentenceLength groups by the exact length; maltpy bins it by tens.

#: MaltEval's GroupedRelationLength: the arcs from the root, then by |head - dependent|.
ARC_LENGTH_BINS = ("to_root", "1", "2", "3-6", "7-...")
#: Sentence lengths in words, by tens.
SENTENCE_LENGTH_BINS = ("1-10", "11-20", "21-30", "31-40", "41-50", "51-...")
#: MaltEval's ArcDirection: the head to the left of the word, to its right, or the root.
ARC_DIRECTIONS = ("left", "right", "to_root")
#: MaltEval's ArcProjectivity: each word's arc projective or not (see ``tree.is_projective_arc``).
PROJECTIVITY = ("Proj", "Non-proj")


def arc_length_bin(head: int, dependent: int) -> str:
    if head == 0:
        return "to_root"
    length = abs(head - dependent)
    return str(length) if length <= 2 else "3-6" if length <= 6 else "7-..."


def sentence_length_bin(words: int) -> str:
    return SENTENCE_LENGTH_BINS[min((words - 1) // 10, len(SENTENCE_LENGTH_BINS) - 1)]


def group_values(grouping: str, sentence: Sentence, heads: list[int], labels: list[str]) -> list[str]:
    """The value of each word of ``sentence`` (in order) for ``grouping``, in the tree ``heads``,
    ``labels`` (indexed from 1; see ``tree``)."""
    n = len(sentence)
    if grouping == "deprel":
        return labels[1:]
    if grouping == "upos":
        return sentence.column(CPOSTAG)
    if grouping == "xpos":
        return sentence.column(POSTAG)
    if grouping == "arc-length":
        return [arc_length_bin(heads[d], d) for d in range(1, n + 1)]
    if grouping == "arc-direction":
        return [ARC_DIRECTIONS[2 if heads[d] == 0 else heads[d] > d] for d in range(1, n + 1)]
    if grouping == "sentence-length":
        return [sentence_length_bin(n)] * n
    if grouping == "projectivity":
        nonprojective = set(nonprojective_arcs(heads))
        return [PROJECTIVITY[d in nonprojective] for d in range(1, n + 1)]
    if grouping == "depth":  # MaltEval's ArcDepth: 0 for the words on the root, 1 for their dependents ...
        return [str(x - 1) for x in depths(heads)[1:]]
    raise ValueError(f"unknown grouping {grouping!r}")


def value_order(grouping: str, values: Iterable[str]) -> list[str]:
    """The values of a grouping in the order a table lists them: bins and depths by size, the
    rest by name."""
    fixed = {"arc-length": ARC_LENGTH_BINS, "sentence-length": SENTENCE_LENGTH_BINS,
             "arc-direction": ARC_DIRECTIONS, "projectivity": PROJECTIVITY}.get(grouping)  # fmt: skip
    if fixed:
        return sorted(values, key=fixed.index)
    if grouping == "depth":
        return sorted(values, key=int)
    return sorted(values)


@dataclass(slots=True)
class GroupCounts:
    """The scored words of one value of a grouping: by their gold value (``tokens`` and what
    is right of them), and by the system's value (``system_tokens``, ``system_right``)."""

    tokens: int = 0
    right_head: int = 0
    right_label: int = 0
    right_both: int = 0
    system_tokens: int = 0
    system_right: int = 0  # right head and label

    def as_dict(self, precision: bool) -> dict[str, float | int | None]:
        out = {
            "tokens": self.tokens,
            "LAS": _percent(self.right_both, self.tokens),
            "UAS": _percent(self.right_head, self.tokens),
            "LA": _percent(self.right_label, self.tokens),
        }
        if precision:
            out["system_tokens"] = self.system_tokens
            out["precision"] = _percent(self.system_right, self.system_tokens)
        return out


@dataclass(slots=True)
class Scores:
    tokens: int = 0
    sentences: int = 0
    right_head: int = 0
    right_label: int = 0
    right_both: int = 0
    exact: int = 0
    per_label: dict[str, LabelCounts] = field(default_factory=dict)
    #: {grouping: {value: counts}} for the groupings asked for
    by: dict[str, dict[str, GroupCounts]] = field(default_factory=dict)
    #: (scored words, right in head and label, right in head) of each sentence, in order
    sentence_counts: list[tuple[int, int, int]] = field(default_factory=list)
    #: the CoNLL 2018 shared task's metrics, if asked for (over every word, punctuation too)
    conll18: Conll18Counts | None = None
    #: the CoNLL 2018 shared task's tagging accuracies (over every word), always counted
    tags: TagCounts = field(default_factory=TagCounts)
    #: with the CoNLL 2018 metrics, if the files' words differ: all that is scored, on words
    #: aligned through the text as the shared task's script aligns them (see ``aligned``)
    aligned: AlignedCounts | None = None

    @property
    def las(self) -> float | None:
        return _percent(self.right_both, self.tokens)

    @property
    def uas(self) -> float | None:
        return _percent(self.right_head, self.tokens)

    @property
    def la(self) -> float | None:
        return _percent(self.right_label, self.tokens)

    @property
    def em(self) -> float | None:
        return _percent(self.exact, self.sentences)

    def as_dict(self, per_label: bool = False) -> dict:
        out = {
            "LAS": self.las,
            "UAS": self.uas,
            "LA": self.la,
            "EM": self.em,
            "tokens": self.tokens,
            "sentences": self.sentences,
        }
        if per_label:
            out["labels"] = {label: c.as_dict() for label, c in sorted(self.per_label.items())}
        if self.conll18 is not None:
            out["conll18"] = self.conll18.as_dict()
            out["conll18_not_ud"] = self.conll18.not_ud_as_dict()
        if self.by:
            out["by"] = {
                grouping: {v: groups[v].as_dict(grouping in TREE_GROUPINGS) for v in value_order(grouping, groups)}
                for grouping, groups in self.by.items()
            }
        return out

    def add(self, gold: Sentence, system: Sentence, scored: list[bool], gold_values: dict[str, list[str]],
            gold_ud: list[tuple] | None = None) -> None:  # fmt: skip
        """Count one sentence: ``scored`` says which words count, ``gold_values`` gives each
        grouping's gold value of every word, ``gold_ud`` the gold words as the CoNLL 2018 metrics
        see them (``ud_words``; if they are counted)."""
        right = head_right = words = 0
        right_heads = [gw[HEAD] == sw[HEAD] for gw, sw in zip(gold.words, system.words)]
        right_labels = [gw[DEPREL] == sw[DEPREL] for gw, sw in zip(gold.words, system.words)]
        for i, (gw, sw) in enumerate(zip(gold.words, system.words)):
            if not scored[i]:
                continue
            head, label = right_heads[i], right_labels[i]
            words += 1
            head_right += head
            self.right_label += label
            right += head and label
            g_counts = self.per_label.setdefault(gw[DEPREL], LabelCounts())
            g_counts.gold += 1
            self.per_label.setdefault(sw[DEPREL], LabelCounts()).system += 1
            g_counts.correct += head and label
        self.sentences += 1
        self.tokens += words
        self.right_head += head_right
        self.right_both += right
        self.exact += right == words
        self.sentence_counts.append((words, right, head_right))
        self.tags.add(gold, system)
        if self.conll18 is not None:
            self.conll18.add(gold_ud, ud_words(system))
        if self.by:
            self._add_groups(system, scored, gold_values, right_heads, right_labels)

    def _add_groups(self, system: Sentence, scored: list[bool], gold_values: dict[str, list[str]],
                    right_heads: list[bool], right_labels: list[bool]) -> None:  # fmt: skip
        """Count the words of one sentence in their groups; ``right_heads`` and ``right_labels``
        say which words of ``system`` have the gold head and label."""
        both = [h and lab for h, lab in zip(right_heads, right_labels)]
        heads, labels = system.heads, system.labels
        for grouping, groups in self.by.items():
            for i, value in enumerate(gold_values[grouping]):
                if scored[i]:
                    c = groups.get(value) or groups.setdefault(value, GroupCounts())
                    c.tokens += 1
                    c.right_head += right_heads[i]
                    c.right_label += right_labels[i]
                    c.right_both += both[i]
            if grouping in TREE_GROUPINGS:
                for i, value in enumerate(group_values(grouping, system, heads, labels)):
                    if scored[i]:
                        c = groups.get(value) or groups.setdefault(value, GroupCounts())
                        c.system_tokens += 1
                        c.system_right += both[i]


def _percent(part: int, whole: int) -> float | None:
    return round(100.0 * part / whole, 2) if whole else None


def attachment_scores(
    gold: Iterable[Sentence],
    system: Iterable[Sentence],
    gold_name: str,
    system_name: str,
    exclude_punct: bool = False,
) -> Scores:
    """Score ``system`` against ``gold``, sentence by sentence, streaming (see ``evaluate``)."""
    return evaluate(gold, [system], gold_name, [system_name], exclude_punct)[0]


def evaluate(
    gold: Iterable[Sentence],
    systems: Sequence[Iterable[Sentence]],
    gold_name: str,
    system_names: Sequence[str],
    exclude_punct: bool = False,
    by: Sequence[str] = (),
    watch: Callable[[int, Sentence, list[Sentence], list[Scores]], None] | None = None,
    conll18: bool = False,
) -> list[Scores]:
    """Score each of ``systems`` against ``gold``, sentence by sentence, streaming; group the
    words by each grouping in ``by``. ``watch(number, gold, systems, scores)`` sees each
    sentence once it is counted. ``conll18`` adds the CoNLL 2018 shared task's metrics.

    The files must hold the same sentences with the same word forms; the first sentence where
    one differs from the gold is a MaltpyError naming it in both files, unless a line further on
    in any file is malformed: that is reported instead, as the more basic fault. All must be
    parsed. With ``conll18``, files whose words differ are scored all the same, as the shared
    task's script scores them (``aligned``): from the first difference on, no sentence is
    watched, and each system's ``aligned`` holds its scores, the only ones that count.
    """
    for grouping in by:
        if grouping not in GROUPINGS:
            raise ValueError(f"unknown grouping {grouping!r}")
    scores = [Scores(by={grouping: {} for grouping in by}, conll18=Conll18Counts() if conll18 else None)
              for _ in systems]  # fmt: skip
    alignments = [Alignment(gold_name, name) for name in system_names] if conll18 else []
    gold = iter(gold)
    readers = [iter(s) for s in systems]
    for number, (g, *ss) in enumerate(zip_longest(gold, *readers), 1):
        for s, name in zip(ss, system_names):
            differs = words_differ(number, g, s, gold_name, name)
            if differs and alignments:
                for counts, alignment in zip(scores, alignments):
                    alignment.begin(counts.conll18, counts.tags)
                for counts, aligned in zip(scores, align_rest(alignments, [gold, *readers], [g, *ss], differs)):
                    counts.aligned = aligned
                return scores
            problem = differs or unparsed(g, s, gold_name, name)
            if problem:
                for _ in chain(gold, *readers):  # reading on raises the first malformed line, if any
                    pass
                raise problem
        for alignment, s, counts in zip(alignments, ss, scores):
            alignment.add_alike(g, s, counts.conll18, counts.tags)
        scored = [not is_punctuation(w) for w in g.words] if exclude_punct else [True] * len(g)
        heads, labels = g.heads, g.labels
        gold_values = {grouping: group_values(grouping, g, heads, labels) for grouping in by}
        gold_ud = ud_words(g) if conll18 else None
        for s, counts in zip(ss, scores):
            counts.add(g, s, scored, gold_values, gold_ud)
        if watch is not None:
            watch(number, g, ss, scores)
    return scores


def approximate_randomization(first: Sequence[int], second: Sequence[int], samples: int, seed: int) -> float:
    """The p value of a paired approximate randomization test (Noreen 1989; Yeh 2000) of the
    difference between two systems' totals: ``first[i]`` and ``second[i]`` are what each got
    right in sentence i. Each sample swaps the two systems' counts of every sentence with
    probability 1/2; p = (r + 1) / (samples + 1), r the samples whose absolute difference is at
    least the observed one. The same seed gives the same p."""
    import numpy as np

    diff = np.asarray(first, dtype=np.int64) - np.asarray(second, dtype=np.int64)
    observed = abs(int(diff.sum()))
    rng = np.random.default_rng(seed)
    at_least = 0
    chunk = max(1, min(samples, (1 << 22) // max(1, len(diff))))  # about 4M signs at a time
    done = 0
    while done < samples:
        rows = min(chunk, samples - done)
        signs = 1 - 2 * rng.integers(0, 2, size=(rows, len(diff)), dtype=np.int8)
        at_least += int((np.abs(signs @ diff) >= observed).sum())
        done += rows
    return (at_least + 1) / (samples + 1)


def significance(first: Scores, second: Scores, samples: int = 10_000, seed: int = 1) -> dict:
    """The p values of the LAS and UAS difference between two systems of the same gold file, by
    approximate randomization over sentences."""
    both = [(a[1], b[1]) for a, b in zip(first.sentence_counts, second.sentence_counts)]
    heads = [(a[2], b[2]) for a, b in zip(first.sentence_counts, second.sentence_counts)]
    return {
        "LAS": approximate_randomization(*zip(*both), samples, seed) if both else 1.0,
        "UAS": approximate_randomization(*zip(*heads), samples, seed) if heads else 1.0,
        "samples": samples,
        "seed": seed,
    }


def misalignment(
    number: int, g: Sentence | None, s: Sentence | None, gold_name: str, system_name: str
) -> MaltpyError | None:
    """Why sentence ``number`` of the two files cannot be scored, if it cannot."""
    return words_differ(number, g, s, gold_name, system_name) or unparsed(g, s, gold_name, system_name)


def words_differ(
    number: int, g: Sentence | None, s: Sentence | None, gold_name: str, system_name: str
) -> MaltpyError | None:
    """Where sentence ``number`` of the two files differs in its words, if it does (or has no
    counterpart)."""
    if g is None:
        return MaltpyError(
            f"sentence {number} has no counterpart: {quote(gold_name)} ends after {number - 1} sentences",
            system_name,
            s.line,
        )
    if s is None:
        return MaltpyError(
            f"{quote(system_name)} ends after {number - 1} sentences; sentence {number} has no counterpart there",
            gold_name,
            g.line,
        )
    where = f"sentence {number} does not line up with {quote(gold_name)}:{g.line}"
    if len(g) != len(s):
        return MaltpyError(f"{where}: {len(s)} words here, {len(g)} there", system_name, s.line)
    for i, (gw, sw) in enumerate(zip(g.words, s.words), 1):
        if gw[FORM] != sw[FORM]:
            return MaltpyError(f"{where}: word {i} is {sw[FORM]!r} here, {gw[FORM]!r} there", system_name, s.line)
    return None


def unparsed(g: Sentence, s: Sentence, gold_name: str, system_name: str) -> MaltpyError | None:
    """The error of the first of two sentences that is not parsed, if one is not."""
    for sentence, name in ((g, gold_name), (s, system_name)):
        if sentence.heads is None:
            return MaltpyError("sentence is not parsed (HEAD is _); cannot score it", name, sentence.line)
    return None
