"""The CoNLL 2018 shared task's parsing metrics of files tokenized alike (Zeman et al. 2018,
"CoNLL 2018 Shared Task: Multilingual Parsing from Raw Text to Universal Dependencies", §2.3;
its script conll18_ud_eval.py): UAS, LAS, CLAS, MLAS and BLEX, word i of one file being word i
of the other. ``aligned`` scores files whose tokenizations differ with the same definitions.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ..data.conll import CPOSTAG, DEPREL, FEATS, LEMMA, Sentence
from .tags import universal_features

#: The relations whose words the content-word metrics count, and those that make a functional
#: child, as the CoNLL 2018 shared task defines them (Zeman et al. 2018, §2.3; conll18_ud_eval.py).
CONTENT_RELATIONS = frozenset((
    "nsubj", "obj", "iobj", "csubj", "ccomp", "xcomp", "obl", "vocative", "expl", "dislocated", "advcl", "advmod",
    "discourse", "nmod", "appos", "nummod", "acl", "amod", "conj", "fixed", "flat", "compound", "list", "parataxis",
    "orphan", "goeswith", "reparandum", "root", "dep",
))  # fmt: skip
FUNCTIONAL_RELATIONS = frozenset(("aux", "cop", "mark", "det", "clf", "case", "cc"))
#: UD's universal relations (v2, the 37 of universaldependencies.org/u/dep): the content and the
#: functional ones, and punct. A word of any other relation (another treebank's label set, UD v1's
#: dobj) is no content word to the CoNLL 2018 metrics.
UD_RELATIONS = CONTENT_RELATIONS | FUNCTIONAL_RELATIONS | {"punct"}
CONLL18_METRICS = ("UAS", "LAS", "CLAS", "MLAS", "BLEX")


@dataclass(slots=True)
class Conll18Counts:
    """For each CoNLL 2018 metric: [words right, gold words counted, system words counted]. The
    shared task scores each as F1 = 2 right / (gold + system) over words aligned by their text;
    here the files are tokenized alike (``evaluate`` checks it), so word i of one is word i of the
    other. LAS compares the universal relation (``nsubj:pass`` is ``nsubj``); CLAS counts the words
    of content relations; MLAS adds UPOS, the universal features and the functional children
    (relation, UPOS, features); BLEX adds the lemma (unless the gold lemma is ``_``). ``not_ud``
    counts the words, gold and system, whose universal relation is not one of ``UD_RELATIONS``:
    CLAS, MLAS and BLEX never count them, so a treebank of another label set scores 0 there."""

    counts: dict[str, list[int]] = field(default_factory=lambda: {m: [0, 0, 0] for m in CONLL18_METRICS})
    not_ud: tuple[Counter, Counter] = field(default_factory=lambda: (Counter(), Counter()))

    def add(self, g: list[tuple], s: list[tuple]) -> None:
        """Count one sentence, its gold and system words as ``ud_words`` gives them."""
        n = len(g) - 1
        for metric in ("UAS", "LAS"):
            self.counts[metric][1] += n
            self.counts[metric][2] += n
        for d in range(1, n + 1):
            gh, grel, gupos, gfeats, glemma, gkids = g[d]
            sh, srel, supos, sfeats, slemma, skids = s[d]
            head = gh == sh
            las = head and grel == srel
            self.counts["UAS"][0] += head
            self.counts["LAS"][0] += las
            content = grel in CONTENT_RELATIONS
            if grel not in UD_RELATIONS:
                self.not_ud[0][grel] += 1
            if srel not in UD_RELATIONS:
                self.not_ud[1][srel] += 1
            for metric in ("CLAS", "MLAS", "BLEX"):
                self.counts[metric][1] += content
                self.counts[metric][2] += srel in CONTENT_RELATIONS
            if content and las:
                self.counts["CLAS"][0] += 1
                self.counts["MLAS"][0] += (gupos, gfeats, gkids) == (supos, sfeats, skids)
                self.counts["BLEX"][0] += glemma == "_" or glemma == slemma

    def as_dict(self) -> dict[str, float]:
        return {m: f1(right, gold, system) for m, (right, gold, system) in self.counts.items()}

    def not_ud_as_dict(self) -> dict[str, dict[str, int]]:
        return not_ud_as_dict(self.not_ud)


def f1(right: int, gold: int, system: int) -> float:
    """F1 = 2 right / (gold + system) in percent, 0 over nothing, rounded as the script prints it
    ({:.2f} of 100 * F1), so that a tie such as 14.375 goes its way."""
    return float(f"{100 * (2 * right / (gold + system)):.2f}") if gold + system else 0.0


def not_ud_as_dict(not_ud: tuple[Counter, Counter]) -> dict[str, dict[str, int]]:
    """The relations outside UD's set, with their words, in the gold file and the system's, most
    frequent first."""
    return {side: dict(sorted(c.items(), key=lambda kv: (-kv[1], kv[0])))
            for side, c in zip(("gold", "system"), not_ud)}  # fmt: skip


def ud_words(sentence: Sentence) -> list[tuple]:
    """Each word's (head, universal relation, UPOS, universal features, lemma, functional
    children), indexed from 1; a functional child is (its position, relation, UPOS, features)."""
    heads = sentence.heads
    relations = [""] + [w[DEPREL].split(":")[0] for w in sentence.words]
    features = [""] + [universal_features(w[FEATS]) for w in sentence.words]
    children: list[list[tuple]] = [[] for _ in heads]
    for d, w in enumerate(sentence.words, 1):
        if relations[d] in FUNCTIONAL_RELATIONS and heads[d] > 0:
            children[heads[d]].append((d, relations[d], w[CPOSTAG], features[d]))
    return [()] + [
        (heads[d], relations[d], w[CPOSTAG], features[d], w[LEMMA], children[d])
        for d, w in enumerate(sentence.words, 1)
    ]
