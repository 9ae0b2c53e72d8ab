"""A tagger's features: MaltParser's feature language, read as a parse that only shifts.

A tagger tags a sentence's words left to right, as a parser with only a shift transition would
read them: ``Input[0]`` is the word being tagged, ``Input[i]`` the i-th word after it, ``Stack[0]``
the word before it and ``Stack[j]`` the (j+1)-th before it, whose tags are already predicted. A
feature is a *template*: one value per word, or a Merge/Merge3 of two or three *parts*, each part
a column read at one of those words through a chain of string functions:

    InputColumn(FORM, Input[1])                       the next word's form
    Suffix(Lower(InputColumn(FORM, Input[0])), 3)     the last 3 letters of the word, in lower case
    Shape(InputColumn(FORM, Stack[0]))                the previous word's shape (``Xxxx`` -> ``Xx``)
    Merge(InputColumn(UPOS, Stack[0]), InputColumn(UPOS, Stack[1]))   the two tags to the left

Lower(f), Shape(f) and Tags(f) are maltpy's own (``features.spec.TAGGING_SIGNATURES``); Suffix and
Prefix give the last or first n characters (the whole value if shorter), as in a parser's feature
model. ``Tags(InputColumn(FORM, Input[1]))`` is the next word's *ambiguity class*: the values of the
tagger's own column seen with its form (in lower case) in training, sorted and joined by a tab
(``NOUN<TAB>VERB``: no CoNLL value holds one), ``#unseen#`` for a form training did not see. It
gives the words to the right, whose tags are not yet predicted, what their forms alone would (the
"ambiguity classes" of Giménez and Màrquez's SVMTool, 2004); learning, each word reads the
classes of the *other* words of its form (``left_out``), so that a form seen once is unseen at
its one word, as a new word is when tagging. Tags reads FORM alone, within nothing but a Merge,
and LEMMA's tagger has none.
A word beyond either end of the sentence reads ``#null#``. A tagger reads FORM and the columns
tagged before it (``TAGGED``'s order) at any word, and its own column at ``Stack`` words only;
any other feature is a MaltpyError naming it.

Values are coded per *base* (a column and a chain of functions): the base's vocabulary numbers
the values seen in training from 1, 0 is ``#null#`` and -1 a value never seen. A template's
value is the mixed-radix number of its parts' codes (its *key*), and its feature number the
key's place among the template's keys seen in training (``searchsorted``), after the features
of the templates before it: so the features of a whole batch are computed with a few array
operations per template (``static_features``), and only the parts that read the tagger's own
column at Stack words wait for the tags to their left (``dynamic_features``, one step per
word position across the batch).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..data.columns import FORM, INDEX, LEMMA
from ..errors import MaltpyError, cut
from ..features.spec import Address, SpecError, parse_feature
from .columns import column_name

NULL = "#null#"
#: The most keys a template may have for its feature numbers to be looked up in a table.
DENSE = 1 << 18
#: The largest key of a template: its parts' vocabularies multiplied (with room to add).
MAX_KEY = 1 << 62
#: The functions of a part's chain, by name: each maps a value to a value.
CHAIN = ("Lower", "Shape", "Suffix", "Prefix", "Tags")


def word_shape(text: str) -> str:
    """The word's shape: each upper-case letter ``X``, lower-case letter ``x``, digit ``d``,
    any other character itself, and a run of one of these collapsed to one (``McDonald's`` ->
    ``XxXx'x``, ``1,000`` -> ``d,d``)."""
    out = []
    last = ""
    for ch in text:
        c = "X" if ch.isupper() else "x" if ch.islower() else "d" if ch.isdigit() else ch
        if c != last:
            out.append(c)
            last = c
    return "".join(out)


def apply_chain(value: str, chain: tuple) -> str:
    """``value`` through the chain's functions, innermost first."""
    for step in chain:
        name = step[0]
        if name == "Lower":
            value = value.lower()
        elif name == "Shape":
            value = word_shape(value)
        elif name == "Suffix":
            value = value[-step[1] :]
        else:
            value = value[: step[1]]
    return value


@dataclass(frozen=True, slots=True)
class Part:
    """A column read at a word through a chain of functions. ``offset``: the word read, from the
    word tagged (``Input[i]`` is +i, ``Stack[j]`` is -(j+1)); ``chain``: the functions, innermost
    first, as tuples (``("Lower",)``, ``("Suffix", 3)``)."""

    column: int
    offset: int
    chain: tuple

    @property
    def base(self) -> tuple:
        return (self.column, self.chain)


@dataclass(frozen=True, slots=True)
class Template:
    """One feature of a tagger's feature model: its text (without blanks) and its parts."""

    text: str
    parts: tuple[Part, ...]


def compile_template(text: str, column: int, readable: tuple[int, ...], name: str, line: int | None) -> Template:
    """The template of the feature ``text`` for the tagger of ``column``, which reads FORM and
    ``readable`` (the columns tagged before it) anywhere and its own column at Stack words; a
    MaltpyError naming the feature if it is not one a tagger has."""

    def bad(why: str) -> MaltpyError:
        return MaltpyError(
            f"bad feature {cut(text.strip(), 120)!r} of the {column_name(column)} tagger: {why}", name, line
        )

    try:
        feature = parse_feature(text, tagging=True)
    except SpecError as e:
        raise bad(cut(str(e))) from None
    pieces = feature.args if feature.name in ("Merge", "Merge3") else (feature,)
    parts = []
    for piece in pieces:
        chain = []
        while piece.name in CHAIN:
            chain.append((piece.name,) if piece.name in ("Lower", "Shape") else
                         ("Tags", column) if piece.name == "Tags" else (piece.name, piece.args[1]))  # fmt: skip
            piece = piece.args[0]
        if piece.name != "InputColumn":
            raise bad(f"{piece.name} is not a tagger's feature (InputColumn, Lower, Shape, Suffix, Prefix, Tags, "
                      "Merge)")  # fmt: skip
        offset = _offset(piece.args[1], bad)
        read = INDEX[piece.args[0]]
        if any(step[0] == "Tags" for step in chain):
            if tuple(chain) != tags_chain(column) or read != FORM:
                raise bad("Tags reads a form alone: Tags(InputColumn(FORM, ...)), within nothing but Merge")
            if column == LEMMA:
                raise bad("the LEMMA tagger has no Tags (its classes are edit scripts)")
        if read == column:
            if offset >= 0:
                raise bad(f"the tagger reads its own column {column_name(column)} only at words to the left (Stack[j])")
        elif read != FORM and read not in readable:
            before = ", ".join(column_name(c) for c in readable) or "none"
            raise bad(f"the {column_name(column)} tagger reads FORM and the columns tagged before it "
                      f"({before}), not {column_name(read)}")  # fmt: skip
        parts.append(Part(read, offset, tuple(reversed(chain))))
    return Template("".join(text.split()), tuple(parts))


def _offset(address: Address, bad) -> int:
    """The word an address reads, from the word tagged."""
    if address.inner is not None or address.name not in ("Input", "Stack"):
        raise bad(f"{address} is not an address of a tagger (Input[i]: the word tagged and those after it; "
                  "Stack[j]: those before it)")  # fmt: skip
    return address.index if address.name == "Input" else -address.index - 1


class Batch:
    """Sentences as one flat sequence of words: each word's sentence, position and sentence
    length, and each column's values interned (``interned``), computed once however many
    templates and taggers read them."""

    def __init__(self, sentences: list) -> None:
        self.sentences = sentences
        lengths = np.fromiter((len(s.words) for s in sentences), dtype=np.int64, count=len(sentences))
        self.n = int(lengths.sum())
        self.starts = np.concatenate(([0], np.cumsum(lengths)[:-1])).astype(np.int64) if len(lengths) else lengths
        self.lengths = lengths
        sentence_of = np.repeat(np.arange(len(sentences)), lengths)
        self.position = np.arange(self.n, dtype=np.int64) - self.starts[sentence_of] if self.n else lengths
        self.length = lengths[sentence_of]
        self._values: dict[int, list[str]] = {}
        self._interned: dict[int, tuple[np.ndarray, list[str]]] = {}
        #: What each tagged column's Tags features read (``use_seen``), and each one's values.
        self._seen: dict[int, dict[str, str] | str] = {}
        self._tags: dict[int, tuple[np.ndarray, list[str]]] = {}
        self._chained: dict[tuple, list[str]] = {}
        self._coded: dict[tuple, tuple[dict, np.ndarray]] = {}

    def parts(self, words: int) -> list[Batch]:
        """The batch itself if it has at most ``words`` words, else batches of its sentences in
        turn, each of at most ``words`` words (a longer sentence alone)."""
        if self.n <= words:
            return [self]
        out, start, size = [], 0, 0
        for i, length in enumerate(self.lengths.tolist()):
            if size and size + length > words:
                out.append(Batch(self.sentences[start:i]))
                start, size = i, 0
            size += length
        out.append(Batch(self.sentences[start:]))
        return out

    def reversed(self) -> Batch:
        """A batch of the same sentences, each read right to left (the words are the same)."""
        return Batch([_RightToLeft(s.words[::-1]) for s in self.sentences])

    def mirror(self) -> np.ndarray:
        """Each word's row in ``reversed()``."""
        return np.arange(self.n, dtype=np.int64) + self.length - 1 - 2 * self.position

    def values(self, column: int) -> list[str]:
        """The column's value at each word."""
        if column not in self._values:
            self._values[column] = [w[column] for s in self.sentences for w in s.words]
        return self._values[column]

    def values_at(self, column: int, rows: np.ndarray) -> list[str]:
        values = self.values(column)
        return [values[r] for r in rows.tolist()]

    def interned(self, column: int) -> tuple[np.ndarray, list[str]]:
        """Each word's number among the column's distinct values, and those values."""
        if column not in self._interned:
            self._interned[column] = _intern(self.values(column))
        return self._interned[column]

    def use_seen(self, column: int, lexicon: dict[str, str] | str) -> None:
        """The Tags features of the tagger of ``column`` read ``lexicon`` (``seen_lexicon``: the
        values seen with each form in lower case), or, with LEARNING, the values the batch's own
        column has with each form, each word's own left out (``left_out``)."""
        if self._seen.get(column) is not lexicon:
            self._seen[column] = lexicon
            self._tags.pop(column, None)
            self._drop_coded(lambda base: base[1] == tags_chain(column))

    def tags(self, column: int) -> tuple[np.ndarray, list[str]]:
        """``interned`` of each word's Tags value for the tagger of ``column`` (as ``use_seen``
        set; a KeyError if it did not)."""
        if column not in self._tags:
            lexicon = self._seen[column]
            if lexicon is LEARNING:
                self._tags[column] = _intern(left_out(self.values(FORM), self.values(column)))
            else:
                numbers, forms = self.interned(FORM)
                self._tags[column] = (numbers, [lexicon.get(f.lower(), UNSEEN) for f in forms])
        return self._tags[column]

    def chained(self, base: tuple) -> tuple[np.ndarray, list[str]]:
        """``interned`` of the base's values: its column's, through its chain."""
        if base[1][:1] and base[1][0][0] == "Tags":
            return self.tags(base[1][0][1])
        numbers, distinct = self.interned(base[0])
        if not base[1]:
            return numbers, distinct
        if base not in self._chained:
            self._chained[base] = [apply_chain(v, base[1]) for v in distinct]
        return numbers, self._chained[base]

    def changed(self, column: int) -> None:
        """Forget what was computed of ``column`` (its values were just replaced)."""
        self._values.pop(column, None)
        self._interned.pop(column, None)
        self._drop_coded(lambda base: base[0] == column)
        for base in [b for b in self._chained if b[0] == column]:
            del self._chained[base]
        if self._seen.get(column) is LEARNING:  # read from the column that changed
            self._tags.pop(column, None)
            self._drop_coded(lambda base: base[1] == tags_chain(column))

    def _drop_coded(self, which) -> None:
        for key in [k for k in self._coded if which(k[0])]:
            del self._coded[key]

    def coded(self, base: tuple, vocabulary: dict[str, int]) -> np.ndarray:
        """Each word's code in ``vocabulary`` of the base's values (-1: unseen); computed once for
        taggers that share the vocabulary (those learned together, see ``learn_table``)."""
        key = (base, id(vocabulary))
        hit = self._coded.get(key)
        if hit is not None and hit[0] is vocabulary:
            return hit[1]
        numbers, distinct = self.chained(base)
        table = np.fromiter((vocabulary.get(v, -1) for v in distinct), dtype=np.int64, count=len(distinct))
        codes = table[numbers] if len(numbers) else numbers
        self._coded[key] = (vocabulary, codes)
        return codes

    def shifted(self, codes: np.ndarray, offset: int) -> np.ndarray:
        """The codes of the word ``offset`` away from each word, 0 (``#null#``) beyond its sentence."""
        if offset == 0:
            return codes
        target = self.position + offset
        inside = (target >= 0) & (target < self.length)
        return np.where(inside, codes[np.clip(np.arange(self.n) + offset, 0, max(self.n - 1, 0))], 0)


class _RightToLeft:
    """A sentence's words in the opposite order, as a Batch reads a sentence."""

    __slots__ = ("words",)

    def __init__(self, words: list) -> None:
        self.words = words


def _intern(values: list[str]) -> tuple[np.ndarray, list[str]]:
    """Each value's number among the distinct values (in order of first use), and those values."""
    seen: dict[str, int] = {}
    numbers = [seen.setdefault(v, len(seen)) for v in values]
    return np.array(numbers, dtype=np.int64), list(seen)


def tags_chain(column: int) -> tuple:
    """The chain of a part ``Tags(InputColumn(FORM, ...))`` of the tagger of ``column`` (its only
    form: ``compile_template``)."""
    return (("Tags", column),)


def reads_tags(templates: list[Template], column: int) -> bool:
    """Whether the templates of the tagger of ``column`` read Tags (and so its ``seen``)."""
    return any(p.chain == tags_chain(column) for t in templates for p in t.parts)


#: ``Batch.use_seen``'s lexicon while a tagger learns: each word's Tags read from the batch itself.
LEARNING = "learning"
#: The Tags value of a form not seen in training (or, learning, seen only at the word itself).
UNSEEN = "#unseen#"
#: What joins the values of an ambiguity class: a tab, which no CoNLL field holds (FEATS holds ``|``).
SEPARATOR = "\t"


def seen_lexicon(forms: list[str], values: list[str]) -> dict[str, str]:
    """The values seen with each form in lower case, sorted and joined by SEPARATOR (``NOUN<TAB>
    VERB``): the word's ambiguity class, which its Tags features read."""
    by: dict[str, set[str]] = {}
    for form, value in zip(forms, values):
        by.setdefault(form.lower(), set()).add(value)
    return {form: SEPARATOR.join(sorted(seen)) for form, seen in by.items()}


def left_out(forms: list[str], values: list[str]) -> list[str]:
    """Each word's Tags value in its own training batch: the values seen with its form (in lower
    case) at the other words, so that learning sees, as tagging does, forms that training did not
    see and classes that do not hold the word's own value when only it had that value (UNSEEN
    where no other word has the form)."""
    counts: dict[str, dict[str, int]] = {}
    for form, value in zip(forms, values):
        by = counts.setdefault(form.lower(), {})
        by[value] = by.get(value, 0) + 1
    memo: dict[tuple[str, str], str] = {}
    out = []
    for form, value in zip(forms, values):
        key = (form, value)
        if key not in memo:
            by = counts[form.lower()]
            seen = sorted(v for v, n in by.items() if n - (v == value) > 0)
            memo[key] = SEPARATOR.join(seen) if seen else UNSEEN
        out.append(memo[key])
    return out


class FeatureTable:
    """A tagger's templates with what training saw: each base's vocabulary, and each template's
    keys (ascending) after the features of the templates before it."""

    def __init__(self, templates: list[Template], vocabularies: dict[tuple, dict[str, int]],
                 keys: list[np.ndarray], column: int) -> None:  # fmt: skip
        self.column = column  # the tagger's own column, which its dynamic parts read
        self.templates = templates
        self.vocabularies = vocabularies
        self.keys = keys
        self.starts = np.concatenate(([0], np.cumsum([len(k) for k in keys]))).astype(np.int64)
        self.size = int(self.starts[-1])
        self.radix = [_radix(t, vocabularies) for t in templates]
        self.dynamic = [any(p.offset < 0 and p.column == self.column for p in t.parts) for t in templates]
        self._dense: dict[int, np.ndarray | None] = {}

    def codes(self, batch: Batch, base: tuple) -> np.ndarray:
        """Each word's code in the base's vocabulary (-1: unseen)."""
        return batch.coded(base, self.vocabularies[base])

    def features_of_keys(self, t: int, keys: np.ndarray) -> np.ndarray:
        """The feature numbers of template t's keys (-1: a key training did not see): by a table
        of every key where the template has at most DENSE keys, else by a search."""
        known = self.keys[t]
        if not len(known):
            return np.full(len(keys), -1, dtype=np.int64)
        if t not in self._dense:
            top = math.prod(len(self.vocabularies[p.base]) + 1 for p in self.templates[t].parts)
            dense = None
            if top <= DENSE:
                dense = np.full(top + 1, -1, dtype=np.int64)  # the last: key -1
                dense[known] = np.arange(len(known), dtype=np.int64) + self.starts[t]
            self._dense[t] = dense
        dense = self._dense[t]
        if dense is not None:
            return dense[keys]
        place = np.minimum(np.searchsorted(known, keys), len(known) - 1)
        return np.where((keys >= 0) & (known[place] == keys), place + self.starts[t], -1)

    def keys_at(self, batch: Batch, t: int, codes: dict[tuple, np.ndarray]) -> np.ndarray:
        """Template t's key at each word of the batch (-1: a part unseen), its own column read
        as the batch has it; ``codes`` caches each base's codes."""
        keys = np.zeros(batch.n, dtype=np.int64)
        for part, multiplier in zip(self.templates[t].parts, self.radix[t]):
            if part.base not in codes:
                codes[part.base] = self.codes(batch, part.base)
            keys = combine(keys, batch.shifted(codes[part.base], part.offset), multiplier)
        return keys

    def static_features(self, batch: Batch, templates: list[int]) -> np.ndarray:
        """The feature number of each of ``templates`` at each word of the batch (words x
        templates, -1 where none)."""
        out = np.full((batch.n, len(templates)), -1, dtype=np.int64)
        codes: dict[tuple, np.ndarray] = {}
        for j, t in enumerate(templates):
            out[:, j] = self.features_of_keys(t, self.keys_at(batch, t, codes))
        return out

    def step_features(self, batch: Batch, t: int, rows: np.ndarray, codes: dict[tuple, np.ndarray],
                      own: dict[tuple, np.ndarray]) -> np.ndarray:  # fmt: skip
        """Template t's feature numbers at the words ``rows`` (the words at one position of their
        sentences), its parts on the tagger's own column read from ``own`` (each base's codes of
        the tags predicted so far), the others from ``codes``."""
        keys = np.zeros(len(rows), dtype=np.int64)
        for part, multiplier in zip(self.templates[t].parts, self.radix[t]):
            source = own if part.column == self.column else codes
            if part.base not in source:
                source[part.base] = self.codes(batch, part.base)
            target = batch.position[rows] + part.offset
            inside = (target >= 0) & (target < batch.length[rows])
            where = np.clip(rows + part.offset, 0, max(batch.n - 1, 0))
            keys = combine(keys, np.where(inside, source[part.base][where], 0), multiplier)
        return self.features_of_keys(t, keys)


def combine(keys: np.ndarray, codes: np.ndarray, multiplier: int) -> np.ndarray:
    """Keys with one more part: -1 once a part is unseen."""
    return np.where((keys < 0) | (codes < 0), -1, keys + codes * multiplier)


def _radix(template: Template, vocabularies: dict[tuple, dict[str, int]]) -> list[int]:
    """Each part's multiplier in the template's keys (the first part's 1)."""
    out, m = [], 1
    for part in template.parts:
        out.append(m)
        m *= len(vocabularies[part.base]) + 1
    if m > MAX_KEY:
        raise ValueError(f"the feature {cut(template.text)} has more values than maltpy numbers")
    return out


def learn_table(templates: list[Template], column: int, batch: Batch, rows: np.ndarray, min_count: int = 1,
                shared: dict[tuple, dict[str, int]] | None = None) -> FeatureTable:  # fmt: skip
    """The feature table of the tagger of ``column`` from a training batch (its own column
    holding the gold values): every value of each base, and the keys of each template at the
    ``rows`` (the training instances) seen at least ``min_count`` times. ``shared``: the
    vocabularies of the taggers learned from the same batch, which this one shares."""
    shared = {} if shared is None else shared
    vocabularies: dict[tuple, dict[str, int]] = {}
    for template in templates:
        for part in template.parts:
            if part.base not in shared:
                _, distinct = batch.chained(part.base)
                shared[part.base] = {v: i for i, v in enumerate(sorted(set(distinct)), 1)}
            vocabularies[part.base] = shared[part.base]
    every = FeatureTable(templates, vocabularies, [np.zeros(0, dtype=np.int64)] * len(templates), column)
    codes: dict[tuple, np.ndarray] = {}
    keys = []
    for t in range(len(templates)):
        k = every.keys_at(batch, t, codes)[rows]
        values, counts = np.unique(k[k >= 0], return_counts=True)
        keys.append(values[counts >= min_count])
    return FeatureTable(templates, vocabularies, keys, column)


def csr_rows(features: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """CSR arrays (indptr int64, indices int32) of rows of feature numbers (-1: none), each
    row's ascending as the templates' features are."""
    present = features >= 0
    indptr = np.concatenate(([0], np.cumsum(present.sum(axis=1)))).astype(np.int64)
    return indptr, features[present].astype(np.int32)
