"""One column's tagger: a classifier over a feature table, and what its classes mean.

The classes of UPOS, XPOS and FEATS are the column's values; LEMMA's are edit scripts
(``lemmas``), applied to the word's form, beside a lexicon of the forms seen in training. Tagging
a batch (``predict``) computes the features that read no predicted tag for every word at once
(``features.FeatureTable.static_features``); a tagger that reads its own column at Stack words
then tags position by position across the batch, left to right (greedy), each step one call of
the classifier for the words at that position of every sentence. Each word's scores depend on
its own features alone, so a sentence's tags are the same in any batch.

A tagger *both ways* (``backward``) has a second classifier of the same column, learned on the
sentences read right to left, whose own predictions are to the right of the word it tags; each
word takes the class of the highest sum of the two taggers' scores. Two greedy taggers reading
opposite sides err apart, and their scores together mend most of what one gets wrong alone (the
bidirectional inference of Tsuruoka and Tsujii 2005 and Shen, Satta and Joshi 2007, in its simplest
form: no search, each direction greedy). UPOS, en_lines dev 95.93 -> 96.20, la_perseus test 87.02
-> 87.32, sv_talbanken test (learned on dev) 91.44 -> 92.06.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from ..data.columns import FORM, LEMMA, UPOS
from .features import LEARNING, Batch, FeatureTable, apply_chain, csr_rows, learn_table, reads_tags, seen_lexicon
from .lemmas import Script, apply_script, edit_script

#: Rows classified in one call where no tag to the left is read (bounds the scores' memory).
CHUNK = 4096
#: The most words times classes of a part that a tagger both ways tags at once (it holds three
#: arrays of scores that size, float32): a larger batch is tagged in parts of whole sentences.
MAX_SCORES = 1 << 22


@dataclass
class ColumnTagger:
    """The tagger of ``column``: ``classes`` are values, or edit scripts for LEMMA; ``lexicon``
    (LEMMA) the lemma of each form seen in training, its most frequent, by form and by form and
    UPOS; ``seen`` the values seen with each form in lower case, which its Tags features read
    (``features.seen_lexicon``; empty without them)."""

    column: int
    table: FeatureTable
    classes: list
    classifier: object
    learner: str
    options: dict
    instances: int
    lexicon: dict[str, str] = field(default_factory=dict)
    heldout_accuracy: float | None = None
    seen: dict[str, str] = field(default_factory=dict)
    #: the tagger of the same column learned on the sentences right to left (tagging both ways)
    backward: ColumnTagger | None = None

    def predict(self, batch: Batch) -> list[str]:
        """The column's value for each word of the batch (its other columns as they are)."""
        if self.backward is None:
            return self._greedy(batch)[0]
        place = {c: i for i, c in enumerate(self.backward.classes)}
        order = np.array([place[c] for c in self.classes], dtype=np.int64)  # the backward's columns, ours' order
        out: list[str] = []
        for part in batch.parts(max(1, MAX_SCORES // len(self.classes))):
            forward = self._greedy(part, scored=True)[1]
            backward = self.backward._greedy(part.reversed(), scored=True)[1]
            forward += backward[np.ix_(part.mirror(), order)]
            out += [self.classes[b] for b in forward.argmax(axis=1).tolist()]
        return out

    def _greedy(self, batch: Batch, scored: bool = False) -> tuple[list, np.ndarray | None]:
        """The column's value for each word of the batch tagged in one direction, and with
        ``scored`` each word's scores of every class."""
        table = self.table
        batch.use_seen(self.column, self.seen)
        static = [t for t, d in enumerate(table.dynamic) if not d]
        dynamic = [t for t, d in enumerate(table.dynamic) if d]
        values: list = [None] * batch.n
        scores = np.zeros((batch.n, len(self.classes)), dtype=np.float32) if scored else None
        if not dynamic:
            features = table.static_features(batch, static)
            for start in range(0, batch.n, CHUNK):
                rows = np.arange(start, min(batch.n, start + CHUNK))
                self._decide(batch, rows, features[rows], values, scores)
            return values, scores
        features = np.full((batch.n, len(table.templates)), -1, dtype=np.int64)
        features[:, static] = table.static_features(batch, static)
        codes: dict[tuple, np.ndarray] = {}
        own_bases = {p.base for t in dynamic for p in table.templates[t].parts if p.column == self.column}
        own = {base: np.full(batch.n, -1, dtype=np.int64) for base in own_bases}
        # the code of each class's value in each base read (LEMMA's values are not its classes)
        of_class = {} if self.column == LEMMA else {
            base: np.array([table.vocabularies[base].get(apply_chain(c, base[1]), -1) for c in self.classes],
                           dtype=np.int64) for base in own}  # fmt: skip
        longest = int(batch.lengths.max()) if len(batch.lengths) else 0
        for position in range(longest):
            rows = batch.starts[batch.lengths > position] + position
            for t in dynamic:
                features[rows, t] = table.step_features(batch, t, rows, codes, own)
            best = self._decide(batch, rows, features[rows], values, scores)
            for base, known in own.items():
                if of_class:
                    known[rows] = of_class[base][best]
                else:
                    vocabulary = table.vocabularies[base]
                    known[rows] = [vocabulary.get(apply_chain(values[r], base[1]), -1) for r in rows.tolist()]
        return values, scores

    def _decide(self, batch: Batch, rows: np.ndarray, features: np.ndarray, values: list,
                kept: np.ndarray | None = None) -> list[int]:  # fmt: skip
        """The values of the words ``rows``, whose features are ``features``, into ``values``
        (and their scores into ``kept``, if given); the best class of each."""
        indptr, indices = csr_rows(features)
        scores = self.classifier.scores_binary(indptr, indices)
        if kept is not None:
            kept[rows] = scores
        best = scores.argmax(axis=1).tolist() if len(rows) else []
        classes = self.classes
        if self.column != LEMMA:
            for r, b in zip(rows.tolist(), best):
                values[r] = classes[b]
            return best
        forms = batch.values_at(FORM, rows)
        tags = batch.values_at(UPOS, rows)
        lexicon = self.lexicon
        for i, (r, b, form, tag) in enumerate(zip(rows.tolist(), best, forms, tags)):
            lemma = lexicon.get(f"{form}\t{tag}") or lexicon.get(form)
            if lemma is None:
                lemma = apply_script(form, classes[b])
                if lemma is None:
                    lemma = _best_applicable(form, scores[i], classes)
            values[r] = lemma
        return best


def _best_applicable(form: str, scores: np.ndarray, classes: list[Script]) -> str:
    """The lemma of the best-scored script that applies to ``form`` (the form if none does)."""
    for c in np.argsort(-scores, kind="stable").tolist():
        lemma = apply_script(form, classes[c])
        if lemma is not None:
            return lemma
    return form


def targets(column: int, batch: Batch) -> tuple[np.ndarray, list]:
    """The training instances of ``column`` (the words whose value is known: for LEMMA, not
    ``_``) and their classes: values, or LEMMA's edit scripts."""
    gold = batch.values(column)
    if column != LEMMA:
        return np.arange(batch.n), gold
    forms = batch.values(FORM)
    rows = [i for i, lemma in enumerate(gold) if lemma != "_"]
    scripts: dict[tuple[str, str], Script] = {}
    classes = []
    for i in rows:
        pair = (forms[i], gold[i])
        if pair not in scripts:
            scripts[pair] = edit_script(*pair)
        classes.append(scripts[pair])
    return np.array(rows, dtype=np.int64), classes


def learn_column(column: int, batch: Batch, templates: list, learner: str, options: dict, min_count: int = 1,
                 shared: dict | None = None) -> ColumnTagger | None:  # fmt: skip
    """The tagger of ``column`` learned from the batch's gold values (None: no instance);
    ``shared``: the vocabularies of the taggers learned from the batch (``learn_table``)."""
    from ..learners import LEARNERS

    rows, labels = targets(column, batch)
    if not len(rows):
        return None
    seen = seen_lexicon(batch.values(FORM), batch.values(column)) if reads_tags(templates, column) else {}
    batch.use_seen(column, LEARNING)
    table = learn_table(templates, column, batch, rows, min_count, shared)
    features = table.static_features(batch, list(range(len(templates))))[rows]
    indptr, indices = csr_rows(features)
    X = sp.csr_matrix((np.ones(len(indices)), indices, indptr), shape=(len(rows), table.size))
    kind = LEARNERS[learner].classifier()
    classes, classifier = _fit(kind, X, labels, options, kind.new_shared())
    lexicon = _lexicon(batch, rows, column) if column == LEMMA else {}
    return ColumnTagger(column, table, classes, classifier, learner, options, len(rows), lexicon, seen=seen)


def _fit(kind, X, labels: list, options: dict, shared) -> tuple[list, object]:
    """The classes of ``labels`` (the most frequent first) and a classifier of X learned on them."""
    counts: dict = {}
    for label in labels:
        counts[label] = counts.get(label, 0) + 1
    classes = sorted(counts, key=lambda c: (-counts[c], str(c)))
    number = {c: i for i, c in enumerate(classes)}
    y = np.fromiter((number[label] for label in labels), dtype=np.int64, count=len(labels))
    return classes, kind.fit(X, y, len(classes), options, shared)


def _lexicon(batch: Batch, rows: np.ndarray, column: int) -> dict[str, str]:
    """The most frequent lemma of each form seen in training (ties: the first seen), by the form
    and its UPOS (``form<TAB>UPOS``) and by the form alone."""
    forms, tags, gold = batch.values(FORM), batch.values(UPOS), batch.values(column)
    counts: dict[str, dict[str, int]] = {}
    for i in rows.tolist():
        for key in (forms[i], f"{forms[i]}\t{tags[i]}"):
            by_lemma = counts.setdefault(key, {})
            by_lemma[gold[i]] = by_lemma.get(gold[i], 0) + 1
    return {key: max(by_lemma, key=by_lemma.__getitem__) for key, by_lemma in counts.items()}
