"""The CoNLL 2018 shared task's scores of a parse whose tokenization differs from the gold's
(Zeman et al. 2018, "CoNLL 2018 Shared Task: Multilingual Parsing from Raw Text to Universal
Dependencies", §2.3, and its evaluation script conll18_ud_eval.py): the system's words are
aligned with the gold's through their text, and each metric is an F1 over the aligned words.

The text. Both files must spell the same text once every space (Unicode category Zs) is taken
out of the forms; where they do not, nothing can be aligned (a ``MaltpyError`` at the first
character that differs). A *token* is a multiword-token line (``3-4 del``), or a word outside
one; it covers a span of that text, and a *sentence* the span of its tokens. Empty nodes are
neither.

The alignment, in one pass over the two files' words in the order of the text:
- two words outside multiword tokens align when their tokens cover the same span; otherwise the
  one that starts first (the gold word at a tie) is passed over;
- where either file has a word of a multiword token, a *multiword span* is gathered: it starts
  with that token (the other file's word is passed over first if it starts earlier and is no
  word of a multiword token) and takes the word of either file that starts first (the gold's
  at a tie) until the next word of each file lies beyond it: a word of a multiword token starts
  at or after its end, another word ends after it. A multiword token taken in stretches the
  span to its end. The words gathered are aligned as the longest common subsequence of their
  lower-cased forms (a multiword token's words with their own forms), taking a pair of equal
  forms where it can, then passing over the gold word where that keeps the subsequence longest,
  else the system's: the script's choice among subsequences equally long.

The metrics: Tokens and Sentences, the spans both files have; Words, the aligned pairs; over
the aligned words, UPOS, XPOS, UFeats, AllTags and Lemmas as in ``tags``, and UAS, LAS, CLAS,
MLAS and BLEX as in ``conll18``, where a system word's head (or functional child) is right when
it is the word aligned with the gold word's (the root with the root): a head aligned with
nothing is wrong. Each is F1 = 2 correct / (gold + system), the gold and system counts being
every word (content words for CLAS, MLAS and BLEX).

The files are read as the alignment needs them, the one whose text is behind first, and the
words of a system sentence are scored, and let go, once they are all aligned or passed over: a
file of any length is aligned in the memory of a few sentences. ``evaluate`` scores files
tokenized alike word by word, and begins an alignment only where their tokens first differ
(``Alignment.add_alike``).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter, deque
from collections.abc import Iterator
from copy import deepcopy
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import chain, tee

from ..data.conll import CPOSTAG, DEPREL, FEATS, FORM, ID, LEMMA, POSTAG, Sentence
from ..errors import MaltpyError, quote
from .conll18 import (
    CONLL18_METRICS,
    CONTENT_RELATIONS,
    FUNCTIONAL_RELATIONS,
    UD_RELATIONS,
    Conll18Counts,
    f1,
    not_ud_as_dict,
)
from .tags import TAG_METRICS, TagCounts, universal_features

#: What ``eval --conll18`` reports of files tokenized differently, in the script's order.
ALIGNED_METRICS = ("Tokens", "Sentences", "Words", *TAG_METRICS, *CONLL18_METRICS)
#: The metrics of the aligned words, whose counts include the aligned words they are over.
WORD_METRICS = ("Words", *TAG_METRICS, *CONLL18_METRICS)
CONTENT_METRICS = ("CLAS", "MLAS", "BLEX")
NOT_ALIGNED = -1  # the gold word of a system word aligned with none
_RANGE = re.compile(r"([1-9][0-9]*)-([1-9][0-9]*)\Z")
_GOLD, _SYSTEM = 0, 1


@dataclass(slots=True)
class AlignedCounts:
    """For each of ``ALIGNED_METRICS``: [correct, gold, system, aligned], as the script counts
    them (its ``-c``); ``aligned`` is the aligned words a word metric is over (those of a content
    gold word for CLAS, MLAS and BLEX; for Words, the correct), 0 for Tokens and Sentences.
    ``not_ud``: the words, gold and system, of relations outside UD's set (see ``conll18``).
    ``difference``: the first place where the files' words part, which made them aligned."""

    counts: dict[str, list[int]] = field(default_factory=lambda: {m: [0, 0, 0, 0] for m in ALIGNED_METRICS})
    not_ud: tuple[Counter, Counter] = field(default_factory=lambda: (Counter(), Counter()))
    difference: MaltpyError | None = None

    def as_dict(self) -> dict[str, float]:
        """Each metric's F1 in percent, rounded as the script prints it."""
        return {m: f1(correct, gold, system) for m, (correct, gold, system, _) in self.counts.items()}

    def counts_as_dict(self) -> dict[str, dict[str, int]]:
        """The counts, with ``aligned`` where the script has it (not for Tokens and Sentences)."""
        out = {}
        for m, (correct, gold, system, aligned) in self.counts.items():
            out[m] = {"correct": correct, "gold": gold, "system": system}
            if m in WORD_METRICS:
                out[m]["aligned"] = aligned
        return out

    def not_ud_as_dict(self) -> dict[str, dict[str, int]]:
        return not_ud_as_dict(self.not_ud)


@dataclass(slots=True)
class _Word:
    """A word as the alignment and the metrics see it; indices count a file's words from 0."""

    start: int  # the span of its token in the text: a multiword token's for a word of one
    end: int
    multiword: bool
    form: str  # lower-cased, as the alignment compares forms
    sentence: int  # the index of its sentence's first word
    head: int | None  # None for the root
    relation: str  # universal: nsubj:pass is nsubj
    upos: str
    xpos: str
    feats: str  # universal features only (tags.universal_features)
    lemma: str
    children: tuple[tuple[int, str, str, str], ...]  # functional children: (index, relation, UPOS, features)


class _Blocked(Exception):
    """The alignment needs a word of a file that has not been read that far."""


class _File:
    """One file as far as it has been read: its words from ``low`` on, the text not yet compared
    with the other file's (each token's characters and line), the spans of its tokens and
    sentences not yet matched, and its counts."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.words: dict[int, _Word] = {}
        self.low = 0  # the words before it are let go
        self.count = 0  # words read
        self.chars = 0  # characters read
        self.done = False
        self.text: deque[tuple[str, int]] = deque()
        self.tokens: deque[tuple[int, int]] = deque()
        self.sentences: deque[tuple[int, int]] = deque()
        self.totals = Counter()  # of each metric: the words (tokens, sentences) it counts
        self.not_ud = Counter()

    def word(self, i: int) -> _Word | None:
        """Word ``i``, or None past the last word; _Blocked if it is not read yet."""
        if i < self.count:
            return self.words[i]
        if self.done:
            return None
        raise _Blocked

    def let_go(self, below: int) -> None:
        while self.low < below:
            del self.words[self.low]
            self.low += 1

    def read(self, sentence: Sentence) -> None:
        """Take in a parsed sentence: its tokens, text and words."""
        first, heads = self.count, sentence.heads
        relations = [w[DEPREL].split(":")[0] for w in sentence.words]
        feats = [_universal_features(w[FEATS]) for w in sentence.words]
        children: list[list[tuple]] = [[] for _ in sentence.words]
        for d, w in enumerate(sentence.words):
            if relations[d] in FUNCTIONAL_RELATIONS and heads[d + 1]:
                children[heads[d + 1] - 1].append((first + d, relations[d], w[CPOSTAG], feats[d]))
        begin, count = self.chars, 0
        for low, high, form, line in tokens(sentence):
            text = form if form.isascii() and " " not in form else _without_spaces(form)
            start, self.chars = self.chars, self.chars + len(text)
            self.text.append((text, line))
            self.tokens.append((start, self.chars))
            count += 1
            for d in range(low, high + 1):
                w, head = sentence.words[d], heads[d + 1]
                self.words[first + d] = _Word(
                    start=start, end=self.chars, multiword=high > low, form=(w[FORM] if high > low else text).lower(),
                    sentence=first, head=first + head - 1 if head else None, relation=relations[d], upos=w[CPOSTAG],
                    xpos=w[POSTAG], feats=feats[d], lemma=w[LEMMA], children=tuple(children[d]),
                )  # fmt: skip
        self.sentences.append((begin, self.chars))
        self.count += len(sentence)
        content = sum(r in CONTENT_RELATIONS for r in relations)
        self.totals.update({"Tokens": count, "Sentences": 1})
        self.totals.update(dict.fromkeys(("Words", *TAG_METRICS, "UAS", "LAS"), len(sentence)))
        self.totals.update(dict.fromkeys(CONTENT_METRICS, content))
        self.not_ud.update(r for r in relations if r not in UD_RELATIONS)


def _without_spaces(form: str) -> str:
    """A form without its spaces (Unicode category Zs), as the text to align is written."""
    return "".join(c for c in form if unicodedata.category(c) != "Zs")


_universal_features = lru_cache(maxsize=1 << 14)(universal_features)  # FEATS values recur


def multiword_tokens(sentence: Sentence) -> list[tuple[int, int, str, int]]:
    """Each multiword token of ``sentence``: its first and last word (counted from 0), its form
    and its line."""
    out = []
    for k, (before, text) in enumerate(sentence.extra):
        fields = text.split("\t")
        if not text.startswith("#") and (m := _RANGE.match(fields[ID])):
            out.append((before, int(m[2]) - 1, fields[FORM], sentence.line + before + k))
    return out


def tokens(sentence: Sentence) -> Iterator[tuple[int, int, str, int]]:
    """Each token of ``sentence``: its first and last word (counted from 0), its form and its
    line; a multiword token's words are its range's, its form the range line's."""
    ranges = {first: rest for first, *rest in multiword_tokens(sentence)}
    befores = [before for before, _ in sentence.extra]
    d = extra = 0
    while d < len(sentence):
        while extra < len(befores) and befores[extra] <= d:
            extra += 1
        last, form, line = ranges.get(d) or (d, sentence.words[d][FORM], sentence.line + d + extra)
        yield d, last, form, line
        d = last + 1


class Alignment:
    """The CoNLL 2018 scores of one system file against the gold file, as their sentences come
    (``add``): the texts compared, the tokens and sentences matched, the words aligned and each
    aligned word scored as soon as what has been read settles it. ``wanted`` says which file to
    read next; ``problem`` is what makes the files unscorable (their texts differ, a sentence is
    not parsed), found as soon as what has been read shows it."""

    def __init__(self, gold_name: str, system_name: str) -> None:
        self.files = (_File(gold_name), _File(system_name))
        self.gi = self.si = 0  # the next gold and system words to align
        self.ended = False  # no more words align: one file's words are all passed
        self.pairs: deque[tuple[int, int]] = deque()  # aligned, not yet scored
        self.gold_of: dict[int, int] = {}  # the gold word aligned with a system word of those pairs' sentences
        self.counts = AlignedCounts()
        self.problem: MaltpyError | None = None
        self.alike = [0, 0]  # the tokens and sentences of the pairs tokenized alike before it began
        self.before: tuple[Conll18Counts, TagCounts] | None = None  # their word metrics, once it began

    def add_alike(self, g: Sentence, s: Sentence, conll18: Conll18Counts, tags: TagCounts) -> None:
        """A pair of sentences with the same words, before ``conll18`` and ``tags`` count them word
        by word. While the pairs have the same tokens too, word i aligns with word i and the word
        metrics are those counts, so nothing is aligned: the alignment begins at the first pair
        whose multiword tokens differ (or at ``begin``), with a copy of the counts so far."""
        if self.before is None:
            ranges = [token[:3] for token in multiword_tokens(g)]
            if ranges == [token[:3] for token in multiword_tokens(s)]:
                self.alike[0] += len(g) - sum(last - first for first, last, _ in ranges)
                self.alike[1] += 1
                return
            self.before = deepcopy((conll18, tags))
        self.add(_GOLD, g)
        self.add(_SYSTEM, s)

    def begin(self, conll18: Conll18Counts, tags: TagCounts) -> None:
        """Begin here, if not yet begun: ``conll18`` and ``tags`` count the pairs before, no more."""
        if self.before is None:
            self.before = (conll18, tags)

    def add(self, side: int, sentence: Sentence | None) -> None:
        """The next sentence of the gold file (``side`` 0) or the system's (1), or None at its end."""
        if self.problem is not None:
            return
        file = self.files[side]
        if sentence is None:
            file.done = True
        elif sentence.heads is None:
            self.problem = MaltpyError("sentence is not parsed (HEAD is _); cannot score it", file.name, sentence.line)
            return
        else:
            file.read(sentence)
        self.problem = text_difference(*self.files)
        if self.problem is None:
            counts, (gold, system) = self.counts.counts, self.files
            counts["Tokens"][0] += same_spans(gold.tokens, system.tokens)
            counts["Sentences"][0] += same_spans(gold.sentences, system.sentences)
            if not self.ended:
                self._align()
            self._score()

    def wanted(self) -> int | None:
        """The file to read on (0 gold, 1 system): the one whose text is behind, the gold at a tie;
        None once both have ended or the files cannot be scored."""
        gold, system = self.files
        if self.problem is not None or gold.done and system.done:
            return None
        if gold.done or system.done:
            return _SYSTEM if gold.done else _GOLD
        return _GOLD if gold.chars <= system.chars else _SYSTEM

    def result(self) -> AlignedCounts:
        """The counts, once both files have ended: those of the words aligned, and those of the
        pairs tokenized alike before the alignment began."""
        conll18, tags = self.before or (Conll18Counts(), TagCounts())
        n = tags.words
        alike = {"Tokens": [self.alike[0]] * 3 + [0], "Sentences": [self.alike[1]] * 3 + [0], "Words": [n] * 4}
        alike |= {m: [tags.right[m], n, n, n] for m in TAG_METRICS}
        alike |= {m: [right, gold, system, gold] for m, (right, gold, system) in conll18.counts.items()}
        for metric, c in self.counts.counts.items():
            c[1], c[2] = (f.totals[metric] for f in self.files)
            c[:] = [a + b for a, b in zip(c, alike[metric])]
        self.counts.not_ud = tuple(f.not_ud + before for f, before in zip(self.files, conll18.not_ud))
        return self.counts

    def _align(self) -> None:
        """Align the words as far as the words read allow (see the module's docstring)."""
        gold, system = self.files
        try:
            while True:
                g, s = gold.word(self.gi), system.word(self.si)
                if g is None or s is None:
                    self.ended = True
                    return
                if g.multiword or s.multiword:
                    gs, ss, self.gi, self.si = multiword_span(gold, system, self.gi, self.si)
                    for pair in common_forms(gold, system, gs, self.gi, ss, self.si):
                        self._pair(*pair)
                elif (g.start, g.end) == (s.start, s.end):
                    self._pair(self.gi, self.si)
                    self.gi += 1
                    self.si += 1
                elif g.start <= s.start:
                    self.gi += 1
                else:
                    self.si += 1
        except _Blocked:
            pass

    def _pair(self, g: int, s: int) -> None:
        self.pairs.append((g, s))
        self.gold_of[s] = g

    def _score(self) -> None:
        """Score the aligned words of every system sentence whose words are all aligned or passed
        (the gold words their heads and children align with are known then), and let go the words
        that nothing needs any longer."""
        gold, system = self.files
        closed = system.words[self.si].sentence if not self.ended and self.si < system.count else system.count
        scored = []
        while self.pairs and self.pairs[0][1] < closed:
            g, s = self.pairs.popleft()
            self._count(gold.words[g], system.words[s])
            scored.append(s)
        for s in scored:
            del self.gold_of[s]
        if self.ended:
            gold.let_go(gold.count)
            system.let_go(system.count)
        else:
            gold.let_go(min(self.gi, self.pairs[0][0]) if self.pairs else self.gi)
            system.let_go(min(self.si, self.pairs[0][1]) if self.pairs else self.si)

    def _count(self, g: _Word, s: _Word) -> None:
        """Count an aligned pair: for each word metric, one more aligned word, and whether it is right."""
        gold_of = self.gold_of
        head = None if s.head is None else gold_of.get(s.head, NOT_ALIGNED)
        upos, xpos, feats = g.upos == s.upos, g.xpos == s.xpos, g.feats == s.feats
        lemma = g.lemma == "_" or g.lemma == s.lemma
        las = g.head == head and g.relation == s.relation
        right = {"Words": True, "UPOS": upos, "XPOS": xpos, "UFeats": feats, "AllTags": upos and xpos and feats,
                 "Lemmas": lemma, "UAS": g.head == head, "LAS": las}  # fmt: skip
        if g.relation in CONTENT_RELATIONS:
            children = tuple((gold_of.get(i, NOT_ALIGNED), *rest) for i, *rest in s.children)
            right.update(CLAS=las, MLAS=las and upos and feats and children == g.children, BLEX=las and lemma)
        counts = self.counts.counts
        for metric, ok in right.items():
            counts[metric][0] += ok
            counts[metric][3] += 1


def align_rest(alignments: list[Alignment], files: list[Iterator[Sentence]],
               current: list[Sentence | None], difference: MaltpyError) -> list[AlignedCounts]:  # fmt: skip
    """Each system's counts, its alignment carried on to the end of the files: ``files`` holds
    the gold file's sentences and each system's, from where ``current`` (the sentences just read
    from each, None where one has ended), which the alignments have not seen, came from;
    ``difference`` is where the words first part. The alignment furthest behind in the gold
    text reads next, so that the gold sentences held for the others (``tee``) are few. Files that
    cannot be scored are a MaltpyError once they are read to the end, unless a line further on is
    malformed: that is reported instead, as the more basic fault."""
    gold, *systems = files
    golds = tee(gold, len(systems)) if len(systems) > 1 else [gold]
    for alignment, sentence in zip(alignments, current[1:]):
        alignment.add(_GOLD, current[0])
        alignment.add(_SYSTEM, sentence)
    active = list(zip(alignments, golds, systems))
    while active:
        alignment, rest, system = step = min(active, key=lambda a: a[0].files[_GOLD].chars)
        side = alignment.wanted()
        if side is not None:
            alignment.add(side, next(rest if side == _GOLD else system, None))
            continue
        if alignment.problem is not None:
            for _ in chain(gold, *systems):
                pass
            raise alignment.problem
        active.remove(step)
    results = [a.result() for a in alignments]
    for counts in results:
        counts.difference = difference
    return results


def multiword_span(gold: _File, system: _File, gi: int, si: int) -> tuple[int, int, int, int]:
    """The multiword span that begins at gold word ``gi`` or system word ``si``, one of them a
    word of a multiword token: its first gold and system words, and the gold and system words
    after it (see the module's docstring); _Blocked if it reaches past the words read."""
    g, s = gold.words[gi], system.words[si]
    if g.multiword:
        end = g.end
        if not s.multiword and s.start < g.start:
            si += 1
    else:
        end = s.end
        if g.start < s.start:
            gi += 1
    first = gi, si
    while True:
        g, s = gold.word(gi), system.word(si)
        if _beyond(g, end) and _beyond(s, end):
            return (*first, gi, si)
        if g is not None and (s is None or g.start <= s.start):
            end = max(end, g.end) if g.multiword else end
            gi += 1
        else:
            end = max(end, s.end) if s.multiword else end
            si += 1


def _beyond(word: _Word | None, end: int) -> bool:
    """Whether ``word`` (None past the last) lies beyond a multiword span that ends at ``end``."""
    return word is None or (word.start >= end if word.multiword else word.end > end)


def common_forms(gold: _File, system: _File, gs: int, ge: int, ss: int, se: int) -> list[tuple[int, int]]:
    """The gold words ``gs`` to ``ge`` (past the last) and the system words ``ss`` to ``se``
    aligned as the longest common subsequence of their forms: a pair of equal forms where there
    is one, else the gold word passed over where that keeps the subsequence longest, else the
    system's."""
    a = [gold.words[i].form for i in range(gs, ge)]
    b = [system.words[j].form for j in range(ss, se)]
    # longest[i][j]: the length of the longest common subsequence of a[i:] and b[j:]
    longest = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in reversed(range(len(a))):
        for j in reversed(range(len(b))):
            same = a[i] == b[j]
            longest[i][j] = longest[i + 1][j + 1] + 1 if same else max(longest[i + 1][j], longest[i][j + 1])
    pairs, i, j = [], 0, 0
    while i < len(a) and j < len(b):
        if a[i] == b[j]:
            pairs.append((gs + i, ss + j))
            i, j = i + 1, j + 1
        elif longest[i][j] == longest[i + 1][j]:
            i += 1
        else:
            j += 1
    return pairs


def same_spans(gold: deque[tuple[int, int]], system: deque[tuple[int, int]]) -> int:
    """How many spans the two files share (the same start and end), of those read and not yet
    matched; each file's spans come in the order of the text, and a span is let go once no span
    of the other file can match it."""
    same = 0
    while gold and system:
        if gold[0][0] == system[0][0]:
            same += gold.popleft()[1] == system.popleft()[1]
        elif gold[0][0] < system[0][0]:
            gold.popleft()
        else:
            system.popleft()
    return same


def text_difference(gold: _File, system: _File) -> MaltpyError | None:
    """Compare the text both files have read so far (and let it go); the first difference, if
    there is one, or the text a file goes on with after the other has ended, as an error."""
    a, b = gold.text, system.text
    while a and b:
        (x, x_line), (y, y_line) = a[0], b[0]
        n = min(len(x), len(y))
        if x[:n] != y[:n]:
            return _differs(gold, system)
        if n == len(x):
            a.popleft()
        else:
            a[0] = (x[n:], x_line)
        if n == len(y):
            b.popleft()
        else:
            b[0] = (y[n:], y_line)
    for more, ended in ((gold, system), (system, gold)):
        if more.text and ended.done:
            rest = "".join(t for t, _ in more.text)[:20]
            return MaltpyError(f"the text goes on with {rest!r} where {quote(ended.name)} ends (spaces aside); "
                               "the CoNLL 2018 evaluation aligns the words of the same text", more.name,
                               more.text[0][1])  # fmt: skip
    return None


def _differs(gold: _File, system: _File) -> MaltpyError:
    """The error of two texts that differ: where, in both files, and how (20 characters of each)."""
    x, y = ("".join(t for t, _ in f.text) for f in (gold, system))
    i = next(k for k, (p, q) in enumerate(zip(x, y)) if p != q)
    gold_line, system_line = (_line_at(f.text, i) for f in (gold, system))
    return MaltpyError(
        f"the text differs from {quote(gold.name)}:{gold_line} (spaces aside): {y[i : i + 20]!r} here, "
        f"{x[i : i + 20]!r} there; the CoNLL 2018 evaluation aligns the words of the same text",
        system.name,
        system_line,
    )


def _line_at(text: deque[tuple[str, int]], offset: int) -> int:
    """The line of the token that holds character ``offset`` of the text not yet compared."""
    for token, line in text:
        if offset < len(token):
            return line
        offset -= len(token)
    raise ValueError(f"offset {offset} past the text")
