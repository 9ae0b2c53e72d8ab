"""The tokenizer: a paragraph of raw text to sentences of tokens, each token to its words.

Three classifiers in turn, each greedy and local, learned from the treebank's text
(``text.paragraphs``): where tokens end inside a chunk of characters without white space, then
after which tokens sentences end (a paragraph's end is one), then each token's multiword analysis
(``words``): a form seen in training takes its most frequent analysis there, a form never seen
the classifier's.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from ..data.conll import Sentence
from ..errors import MaltpyError, require
from .classifier import StringClassifier
from .features import KINDS, chunk_views, pair, point_features, sentence_features, token_shape, word_features
from .text import Paragraph, paragraphs
from .words import NONE, analysis_of, apply, valid_analysis

_CHUNK = re.compile(r"\S+")
#: A kind of neighbours (``features.pair``) is classified where training split it at least this
#: share of the times it met it (and twice).
ACTIVE_SHARE = 0.001
MEMORY = 200_000  # chunks whose tokens are remembered (and forms whose shapes are)
SENTENCE_BATCH = 20_000  # tokens whose sentence ends (or points whose token ends) are classified at a time
#: Only _candidates may end a sentence where training's sentences ended elsewhere at most this
#: share of the times (else every token may).
MISSED_ENDS = 0.01
VERSION = 1


@dataclass(slots=True)
class Token:
    """A token of a paragraph: its span in the paragraph's text and its words (None: itself)."""

    start: int
    end: int
    form: str
    words: list[str] | None = None


class Tokenizer:
    """A tokenizer learned by ``learn_tokenizer``: ``tokenize(paragraph)``. It remembers each
    chunk's tokens and each form's shape it has met (up to MEMORY of them), which gives the same
    tokens as finding them again, faster."""

    def __init__(self, ends: StringClassifier | None, pairs: frozenset[str], sentences: StringClassifier | None,
                 lexicon: dict[str, list], known: frozenset[str], mwt: StringClassifier | None,
                 statistics: dict, every: bool = True, unmet: frozenset[str] = frozenset(),
                 periods: frozenset[str] | None = None) -> None:  # fmt: skip
        self.ends = ends
        self.pairs = pairs
        #: the kinds of neighbours with punctuation that training never met: split, as punctuation
        #: next to a word mostly is in UD (la_perseus: no quote before a word in train, 'in'que in test)
        self.unmet = unmet
        self.sentences = sentences
        self.lexicon = lexicon  # lower-cased form -> its analysis, of forms ever multiword
        self.known = known  # lower-cased forms seen in training
        self.mwt = mwt
        self.statistics = statistics
        self.every = every  # whether every token may end a sentence, or only _candidates
        self.periods = periods  # the tokens ending in a period that training saw (lower-cased)
        self._memory: dict[str, tuple[int, ...]] = {}
        self._shapes: dict[str, str] = {}
        self._tails = _tails(lexicon)

    # --- tokenizing -------------------------------------------------------------------------------

    def tokenize(self, text: str) -> list[list[Token]]:
        """The sentences of a paragraph of text, each a list of tokens."""
        tokens = self._tokens(text)
        if not tokens:
            return []
        tokens, ends = self._ends_at_periods(text, tokens)
        self._analyse(tokens)
        sentences, start = [], 0
        for i, end in enumerate(ends):
            if end:
                sentences.append(tokens[start : i + 1])
                start = i + 1
        return sentences

    def _tokens(self, text: str) -> list[Token]:
        chunks = [(m.start(), m.group()) for m in _CHUNK.finditer(text)]
        memory = self._memory  # shared by the threads that tokenize with this tokenizer: read once
        cuts = {chunk: memory.get(chunk) for _, chunk in chunks}
        unknown = [chunk for chunk, known in cuts.items() if known is None]
        if unknown:
            found = self._cut(unknown)
            cuts.update(found)
            if len(memory) + len(found) > MEMORY:
                memory.clear()
            memory.update(found)
        tokens = []
        for start, chunk in chunks:
            last = 0
            for j in cuts[chunk]:
                tokens.append(Token(start + last, start + j, chunk[last:j]))
                last = j
            tokens.append(Token(start + last, start + len(chunk), chunk[last:]))
        return tokens

    def _cut(self, chunks: list[str]) -> dict[str, tuple[int, ...]]:
        """Where the tokens of each chunk end inside it."""
        rows, places = [], []
        cut: dict[str, list[int]] = {}
        for chunk in chunks:
            if len(chunk) < 2 or (chunk.isalpha() and "aa" not in self.pairs):
                continue  # a word of letters alone, in a treebank that never splits between letters
            views = None
            for j in range(1, len(chunk)):
                k = pair(chunk[j - 1], chunk[j])
                if (k in self.pairs or k in self.unmet) and _joined(chunk, j):
                    continue
                if k in self.pairs:
                    views = views or chunk_views(chunk)
                    rows.append(point_features(chunk, views, j))
                    places.append((chunk, j))
                    if len(rows) >= SENTENCE_BATCH:  # a batch at a time: memory bounded on a long chunk
                        self._decide(rows, places, cut)
                        rows, places = [], []
                elif k in self.unmet:
                    cut.setdefault(chunk, []).append(j)
        self._decide(rows, places, cut)
        return {chunk: tuple(sorted(cut[chunk])) if chunk in cut else () for chunk in chunks}

    def _decide(self, rows: list, places: list[tuple[str, int]], cut: dict[str, list[int]]) -> None:
        """Add to ``cut`` the points of ``places`` (their features ``rows``) where a token ends;
        without a classifier, training split every point of the kinds it split at."""
        decided = self.ends.classify(rows) if self.ends is not None and rows else [None] * len(rows)
        for (chunk, j), c in zip(places, decided):
            if c is None or self.ends.classes[c] is True:
                cut.setdefault(chunk, []).append(j)

    def _ends_at_periods(self, text: str, tokens: list[Token]) -> tuple[list[Token], list[bool]]:
        """The tokens and where sentences end after them. A token that ends in a period after
        something other than a letter, which its run kept (``1960.``: the run alone decides its
        tokens), and that training never saw as a token, has the period split off if a sentence
        ends after it: the sentence classifier, which reads the next tokens, decides (sv_talbanken:
        Sentences F1 +0.3; after a letter, an abbreviation's period is taken: da_ddt, -0.3)."""
        if self.periods is None or self.sentences is None:
            return tokens, self._sentence_ends(text, tokens)
        split, tried = [], set()
        for t in tokens:
            if (
                len(t.form) > 1
                and t.form[-1] == "."
                and not t.form[-2].isalpha()
                and t.form.lower() not in self.periods
            ):
                split.append(Token(t.start, t.end - 1, t.form[:-1]))
                tried.add(len(split))
                split.append(Token(t.end - 1, t.end, "."))
            else:
                split.append(t)
        if not tried:
            return tokens, self._sentence_ends(text, tokens)
        ends = self._sentence_ends(text, split)
        kept, kept_ends = [], []
        for i, (t, end) in enumerate(zip(split, ends)):
            if i in tried and not end:  # no sentence ends there: the period stays in its token
                merged = kept[-1]
                kept[-1] = Token(merged.start, t.end, merged.form + ".")
                kept_ends[-1] = end
            else:
                kept.append(t)
                kept_ends.append(end)
        return kept, kept_ends

    def _sentence_ends(self, text: str, tokens: list[Token]) -> list[bool]:
        n = len(tokens)
        ends = [False] * n
        ends[-1] = True
        if n == 1 or self.sentences is None:
            return ends
        views = _views(text, [t.form for t in tokens], [(t.start, t.end) for t in tokens], self._shapes)
        if len(self._shapes) > MEMORY:
            self._shapes.clear()
        classes = self.sentences.classes
        for start in range(0, n - 1, SENTENCE_BATCH):
            places = _candidates(*views, range(start, min(n - 1, start + SENTENCE_BATCH)), self.every)
            rows = [sentence_features(*views, i) for i in places]
            for i, c in zip(places, self.sentences.classify(rows)):
                ends[i] = classes[c] is True
        return ends

    def _analyse(self, tokens: list[Token]) -> None:
        """Set the words of the multiword tokens."""
        if not self.lexicon and self.mwt is None:
            return
        unseen = []
        tails = self._tails
        for t in tokens:
            lower = t.form.lower()
            analysis = self.lexicon.get(lower)
            if analysis is not None:
                t.words = apply(t.form, analysis)
            elif lower not in self.known and self.mwt is not None and _may_be_multiword(t.form, lower, tails):
                unseen.append(t)
        if unseen:
            classes = self.mwt.classes
            for t, c in zip(unseen, self.mwt.classify([word_features(t.form) for t in unseen])):
                t.words = apply(t.form, classes[c])

    # --- archive ----------------------------------------------------------------------------------

    def to_archive(self, folder: str) -> tuple[dict, dict[str, bytes]]:
        entry: dict = {"version": VERSION, "pairs": sorted(self.pairs), "unmet": sorted(self.unmet),
                       "every": self.every, "statistics": self.statistics}  # fmt: skip
        members: dict[str, bytes] = {}
        for name in ("ends", "sentences", "mwt"):
            classifier = getattr(self, name)
            if classifier is not None:
                entry[name], files = classifier.to_archive(f"{folder}/{name}")
                members.update(files)
        import json

        members[f"{folder}/lexicon.json"] = json.dumps(
            {"lexicon": self.lexicon, "known": sorted(self.known), "periods": sorted(self.periods or ())},
            ensure_ascii=False,
            separators=(",", ":"),
        ).encode("utf-8")
        entry["lexicon"] = f"{folder}/lexicon.json"
        return entry, members

    @classmethod
    def from_archive(cls, archive, entry: object) -> Tokenizer:
        """The tokenizer of the entry, every part checked (ValueError if anything is wrong)."""
        import json

        version = entry.get("version") if isinstance(entry, dict) else None
        require(type(version) is int and version == VERSION, "a tokenizer of an unknown version")  # not True, 1.0
        pairs = entry.get("pairs")
        require(isinstance(pairs, list) and all(p in _PAIRS for p in pairs), "bad kinds of neighbours")
        unmet = entry.get("unmet")
        require(isinstance(unmet, list) and all(p in _PAIRS for p in unmet), "bad kinds of neighbours")
        require(isinstance(entry.get("every"), bool), "no rule of the tokens that may end a sentence")
        statistics = entry.get("statistics")
        require(isinstance(statistics, dict) and len(json.dumps(statistics)) < 10_000, "bad statistics")
        parts = {}
        for name, valid in (("ends", _boolean), ("sentences", _boolean), ("mwt", valid_analysis)):
            parts[name] = StringClassifier.from_archive(archive, entry[name], valid) if name in entry else None
        require(isinstance(entry.get("lexicon"), str), "no lexicon member")
        data = json.loads(archive.text(entry["lexicon"]))
        require(isinstance(data, dict), "a lexicon that is not a mapping")
        lexicon, known = data.get("lexicon"), data.get("known")
        require(isinstance(lexicon, dict) and all(valid_analysis(a) and a != NONE for a in lexicon.values()),
                "a lexicon of bad analyses")  # fmt: skip
        require(isinstance(known, list) and all(isinstance(k, str) for k in known), "bad known forms")
        periods = data.get("periods")
        require(isinstance(periods, list) and all(isinstance(k, str) for k in periods), "bad known periods")
        return cls(parts["ends"], frozenset(pairs), parts["sentences"], lexicon, frozenset(known), parts["mwt"],
                   statistics, entry["every"], frozenset(unmet), frozenset(periods))  # fmt: skip


_PAIRS = {a + b for a in "ado" for b in "ado"}


def _tails(lexicon: dict[str, list]) -> dict[int, set[str]] | None:
    """The ends of the multiword forms training saw (``n't``, ``que``), by length: a form never
    seen is given to the classifier only if it ends in one (the same words on the five test
    texts, in less time); None if an analysis keeps its form's end (``["edit", 0, ...]``: any
    form may be one)."""
    tails: dict[int, set[str]] = {}
    for form, analysis in lexicon.items():
        n = sum(analysis[1:]) if analysis[0] == "split" else analysis[1]
        if n == 0:
            return None
        tails.setdefault(n, set()).add(form[-n:])
    return tails


def _may_be_multiword(form: str, lower: str, tails: dict[int, set[str]] | None) -> bool:
    """Whether the multiword classifier is asked of a form (``lower``: lower-cased): one of two
    characters or more that ends in one of ``tails`` (any, with None)."""
    return len(form) > 1 and (tails is None or any(lower[-n:] in ends for n, ends in tails.items()))


def _joined(chunk: str, j: int) -> bool:
    """Whether ``chunk[j - 1]`` and ``chunk[j]`` belong to one character as a reader sees it: a
    mark (a combining accent of decomposed text, a vowel sign, a variation selector), a zero width
    joiner or an emoji's skin tone never begins a token, nor does what follows a joiner."""
    ch = chunk[j]
    return (chunk[j - 1] == "\u200d" or ch == "\u200d" or "\U0001f3fb" <= ch <= "\U0001f3ff"
            or unicodedata.category(ch)[0] == "M")  # fmt: skip


def _boolean(value: object) -> bool:
    return isinstance(value, bool)


def _views(text: str, forms: list[str], spans: list[tuple[int, int]], shapes: dict[str, str]) -> tuple:
    """What sentence_features reads of a paragraph's tokens: their forms lower-cased, shapes
    (remembered in ``shapes``), the white space after each and their first characters' kinds."""
    n = len(forms)
    found = []
    for form in forms:
        shape = shapes.get(form)
        if shape is None:
            shapes[form] = shape = token_shape(form)
        found.append(shape)
    spaces = [_space(text, spans[i][1], spans[i + 1][0]) for i in range(n - 1)] + ["n"]
    return [f.lower() for f in forms], found, spaces, [KINDS[f[0]] for f in forms]


def _candidates(lowers: list[str], shapes, spaces: list[str], firsts: list[str], places, every: bool) -> list[int]:
    """The tokens among ``places`` after which a sentence may end: every one, or (``every``
    False) those that end in a character other than a letter or digit, are followed by a line
    end, or by a token that does not begin in lower case."""
    if every:
        return list(places)
    return [i for i in places if firsts[i + 1] != "L" or not lowers[i][-1].isalnum() or spaces[i] == "n"]


def _space(text: str, end: int, start: int) -> str:
    """The kind of white space between two tokens: none, spaces, or a line end."""
    if end == start:
        return ""
    return "n" if "\n" in text[end:start] else "s"


# --- learning --------------------------------------------------------------------------------------


def learn_tokenizer(sentences: Iterable[Sentence], name: str = "<treebank>") -> Tokenizer | None:
    """The tokenizer learned from the treebank's text (None if it has no ``# text``)."""
    from ..learners import LEARNERS

    paras, left_out = paragraphs(sentences)
    if not paras:
        return None
    shared = LEARNERS["liblinear"].classifier().new_shared()
    pairs, ends, unmet = _learn_ends(paras, shared)
    views = [_views(p.text, [p.text[s:e] for s, e in p.spans], p.spans, {}) for p in paras]
    inner = [i for p in paras for i, end in enumerate(p.sentence_ends[:-1]) if end]
    missed = sum(1 for p, v in zip(paras, views) for i, end in enumerate(p.sentence_ends[:-1])
                 if end and not _candidates(*v, [i], False))  # fmt: skip
    every = missed > MISSED_ENDS * len(inner)
    sentence_rows, sentence_labels = [], []
    for p, v in zip(paras, views):
        for i in _candidates(*v, range(len(p.spans) - 1), every):
            sentence_rows.append(sentence_features(*v, i))
            sentence_labels.append(p.sentence_ends[i])
    learned = (StringClassifier.fit(sentence_rows, sentence_labels, shared)
               if len(set(sentence_labels)) > 1 else None)  # fmt: skip
    lexicon, known, mwt = _learn_words(paras, shared)
    tokens = sum(len(p.spans) for p in paras)
    statistics = {"paragraphs": len(paras), "tokens": tokens, "sentences": sum(sum(p.sentence_ends) for p in paras),
                  "left_out": left_out}  # fmt: skip
    if not tokens:
        raise MaltpyError("no token of the treebank is in its text", name)
    periods = frozenset(f for p in paras for s, e in p.spans if e - s > 1 and (f := p.text[s:e].lower())[-1] == ".")
    return Tokenizer(ends, pairs, learned, lexicon, known, mwt, statistics, every, unmet, periods)


def _learn_ends(paras: list[Paragraph], shared) -> tuple[frozenset[str], StringClassifier | None, frozenset[str]]:
    met: dict[str, int] = {}
    split: dict[str, int] = {}
    points = []  # (chunk, j, boundary)
    for p in paras:
        token_ends = {e for _, e in p.spans}
        for m in _CHUNK.finditer(p.text):
            chunk, start = m.group(), m.start()
            for j in range(1, len(chunk)):
                k = pair(chunk[j - 1], chunk[j])
                met[k] = met.get(k, 0) + 1
                boundary = start + j in token_ends
                if boundary:
                    split[k] = split.get(k, 0) + 1
                points.append((chunk, j, boundary, k))
    pairs = frozenset(k for k, n in split.items() if n >= 2 and n >= ACTIVE_SHARE * met[k])
    unmet = frozenset(k for k in _PAIRS if "o" in k and k not in met)
    rows, labels = [], []
    views: dict[str, tuple] = {}  # each chunk's, found once
    for chunk, j, boundary, k in points:
        if k in pairs:
            if chunk not in views:
                views[chunk] = chunk_views(chunk)
            rows.append(point_features(chunk, views[chunk], j))
            labels.append(boundary)
    if len(set(labels)) < 2:  # every point of the kinds split (or none)
        return pairs, None, unmet
    return pairs, StringClassifier.fit(rows, labels, shared), unmet


def _learn_words(paras: list[Paragraph], shared) -> tuple[dict[str, list], frozenset[str], StringClassifier | None]:
    """The lexicon of multiword forms (each form's most frequent analysis, none winning ties), the
    forms seen, and the classifier of forms never seen: learned from the forms that end as a
    multiword form does (``_tails``: the only ones it is asked of), its classes the analyses seen
    at least twice."""
    none = tuple(NONE)
    counts: dict[str, dict[tuple, int]] = {}
    forms, analyses = [], []
    for p in paras:
        for (s, e), words in zip(p.spans, p.words):
            form = p.text[s:e]
            analysis = analysis_of(form, words)
            if analysis != NONE and apply(form, analysis) != words:
                analysis = NONE  # words that are not the form's (a form with spaces)
            forms.append(form)
            analyses.append(key := tuple(analysis))
            by = counts.setdefault(form.lower(), {})
            by[key] = by.get(key, 0) + 1
    if all(a == none for a in analyses):
        return {}, frozenset(), None
    lexicon = {}
    for lower, by in counts.items():
        best = max(by, key=lambda k: (by[k], k == none))
        if best != none:
            lexicon[lower] = list(best)
    seen: dict[tuple, int] = {}
    for a in analyses:
        seen[a] = seen.get(a, 0) + 1
    tails = _tails(lexicon)
    rows, labels = [], []
    for form, a in zip(forms, analyses):
        if _may_be_multiword(form, form.lower(), tails):
            rows.append(word_features(form))
            labels.append(list(a) if seen[a] >= 2 else NONE)
    if len({tuple(label) for label in labels}) < 2:
        return lexicon, frozenset(counts), None
    return lexicon, frozenset(counts), StringClassifier.fit(rows, labels, shared)
