"""MSTParser 0.5's features: what a part of a tree (an arc, a label on it, a child after its
sibling) says about a sentence, as McDonald, Crammer & Pereira (2007, in the ESSLLI 2007 course
reader) define them and MSTParser 0.5 (``DependencyPipe``, ``DependencyPipe2O``) computes them.

The templates are enumerated in C (``_mst_templates.c``), which names each family as this table
does; what they read of a sentence is decided here (``encode``):

- **arc features** (first order, §5 and Table 1; §8.2): of the arc's two words, left and right
  by position: the tags between them, one feature per word between (a tag twice between fires
  twice); 24 conjunctions of their tags and their neighbours' (at the sentence's ends the
  strings ``STR`` and ``END``; a neighbour that is the other word, ``MID``); all that once for
  POSTAG and once for CPOSTAG. Of head and child by role: 13 conjunctions of the head's and the
  child's (word, tag) for (FORM, POSTAG), (FORM, CPOSTAG), (LEMMA, POSTAG) and (LEMMA, CPOSTAG);
  and for every pair of a head's FEATS value and a child's (by their positions in FEATS) the same
  13 for (FORM, value) and for (LEMMA, value): the morphological features of §8.2. Nearly every
  one of them comes twice, plain and joined with the arc's direction and its distance in
  MSTParser's buckets (1, 2, 3, 4, 5, 6-10, more).
- **label features** (§7.1, first-order labelling): of one word of the arc at a time, with the
  label, the direction and the word's side (head or child): its FORM and POSTAG, and its
  neighbours' POSTAG; each with the side and direction, and again without (so that the head's and
  the child's copies of these are one feature, which the arc counts twice).
- **sibling features** (second order, §4 and Table 1d): of a head, its child and the child before
  it on the same side (the head itself, written ``STPOS``/``STWRD``, for the first): the three
  POSTAGs, and the two children's FORM and POSTAG pairs with the direction and their distance.

A sentence is read as MSTParser's CoNLL reader reads it: FORM and LEMMA wholly of digits (or
``1.5``, ``1,000``) become ``<num>``; FEATS is split at ``|`` (``_`` is one value); the root is a
token of its own, with the strings ``<root>``, ``<root-LEMMA>``, ``<root-CPOS>``, ``<root-POS>``
and as many FEATS values ``<root-feat>k`` as the first word has. MSTParser's alphabet holds the
features of the gold trees only (``Alphabet``): a feature of a wrong arc or label that no gold tree
has is dropped, in learning and parsing alike.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from ..data.conll import CPOSTAG, FEATS, FORM, LEMMA, POSTAG, Sentence
from ..errors import MaltpyError
from ..models.archive import ARCHIVE_VARIABLE, max_archive_bytes
from . import _mst

#: The version of the templates' numbering (_mst_templates.c): a model's keys are only good for the same.
TEMPLATES_VERSION = 1
#: MSTParser's number normalization of FORM and LEMMA (``DependencyReader.normalize``): its
#: pattern [0-9]+|[0-9]+\.[0-9]+|[0-9]+[0-9,]+ matches the same strings as this one, but
#: backtracks in time quadratic in the word's length (minutes for a hostile FORM of 200,000 digits).
NUMBER = re.compile(r"[0-9][0-9,]*|[0-9]+\.[0-9]+")
ROOT = ("<root>", "<root-LEMMA>", "<root-CPOS>", "<root-POS>")
#: MSTParser's fixed strings: a neighbour before the first word, after the last, the other word of
#: the arc; the tag and the word that stand for the head before its first child.
SPECIALS = ("STR", "END", "MID", "STPOS", "STWRD")
#: MSTParser's label of the root token, its label number 0: no gold arc has it, so it scores 0.
NO_TYPE = "<no-type>"
MAX_ATOMS = 1 << 22  # strings whose atoms are kept between sentences
MAX_ATOM_CHARACTERS = 1 << 25  # and their characters (a FORM may have a million)


def atom(text: str) -> int:
    """The 64-bit hash a string takes part in features as (the same on every machine)."""
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).digest(), "little")


class Atoms:
    """``atom`` of each string, remembered."""

    def __init__(self) -> None:
        self.known: dict[str, int] = {}
        self.characters = 0  # of the strings known
        self.specials = np.array([atom(s) for s in SPECIALS], dtype=np.uint64)

    def __call__(self, texts: Iterable[str]) -> list[int]:
        known = self.known
        out = []
        for text in texts:
            value = known.get(text)
            if value is None:
                if len(known) >= MAX_ATOMS or self.characters + len(text) > MAX_ATOM_CHARACTERS:
                    known.clear()
                    self.characters = 0
                value = atom(text)
                if len(text) <= MAX_ATOM_CHARACTERS:
                    known[text] = value
                    self.characters += len(text)
            out.append(value)
        return out


def _normal(text: str) -> str:
    return "<num>" if NUMBER.fullmatch(text) else text


def _feats(text: str) -> list[str]:
    values = text.split("|")
    while len(values) > 1 and values[-1] == "":  # Java's split drops trailing empty strings
        values.pop()
    return values


@dataclass(slots=True)
class Encoded:
    """A sentence as _mst.c reads it."""

    atoms: np.ndarray  # uint64 (4, N): FORM, LEMMA, CPOSTAG, POSTAG of tokens 0..n
    fptr: np.ndarray  # int64 (N + 1): token i's FEATS values are fval[fptr[i]:fptr[i + 1]]
    fval: np.ndarray  # uint64
    specials: np.ndarray  # uint64 (5): SPECIALS

    @property
    def size(self) -> int:
        """N: the words and the root."""
        return self.atoms.shape[1]

    @property
    def args(self) -> tuple:
        return (self.atoms, self.fptr, self.fval, self.specials)

    @property
    def nbytes(self) -> int:
        return self.atoms.nbytes + self.fptr.nbytes + self.fval.nbytes


def encode(sentence: Sentence, atoms: Atoms) -> Encoded:
    """``sentence`` as MSTParser's CoNLL reader reads it (see the module's note), in atoms."""
    words = sentence.words
    feats = [_feats(w[FEATS]) for w in words]
    root_feats = [f"<root-feat>{k}" for k in range(len(feats[0]) if feats else 0)]
    columns = (
        [ROOT[0], *(_normal(w[FORM]) for w in words)],
        [ROOT[1], *(_normal(w[LEMMA]) for w in words)],
        [ROOT[2], *(w[CPOSTAG] for w in words)],
        [ROOT[3], *(w[POSTAG] for w in words)],
    )
    table = np.array([atoms(column) for column in columns], dtype=np.uint64).reshape(4, len(words) + 1)
    values = [root_feats, *feats]
    fptr = np.zeros(len(values) + 1, dtype=np.int64)
    np.cumsum([len(v) for v in values], out=fptr[1:])
    fval = np.array(atoms(v for vs in values for v in vs), dtype=np.uint64)
    return Encoded(table, fptr, fval, atoms.specials)


def max_features() -> int:
    """The most features a graph-based model holds: a 32nd of the bytes maltpy reads of one model
    archive (archive.max_archive_bytes), so that Alphabet's hash table (16 bytes a slot, twice the
    features rounded up to a power of two) takes no more than that budget (twice, for a budget that
    is no power of two), nor its keys and weights more than half of it. By default 2^27 features,
    16 times the 8.3 million of la_perseus's gold trees at order 1, in a table of 4 GiB."""
    return max_archive_bytes() // 32


#: The most work scoring one sentence may take (``work``): 2^30 steps, some 30 seconds (measured:
#: 1,000 words at order 1, 1.6 billion steps, 29 s; 540 words at order 2, 1.0 billion, 39 s and
#: 1.3 GB). Under 40 labels, at order 1 a sentence of about 880 words of one FEATS value (510 of 8
#: values), at order 2 of about 550 (430). The treebanks in ../shared/data have at most 209 words
#: a sentence, 8 FEATS values a word.
MAX_SENTENCE_WORK = 1 << 30


def work(sentence: Encoded, labels: int, order: int) -> int:
    """The steps of scoring every part of ``sentence`` under ``labels`` labels at ``order``
    (``scores_of``, learn.labelled_arcs, ``sibling_scores``): features looked up and labels
    weighed. Each of the n² arcs h -> c has 148 + 4 d features at distance d (the tags between its
    words, §5, are 4 a word), and 52 for each pair of a FEATS value of h and one of c (§8.2); each
    of the N tokens' label sides 14, for each label as head and as child, either way (§7.1), and
    each arc weighs every label; at order 2, c after each sibling between h and it, or after h, 14
    (Table 1d)."""
    n = sentence.size - 1
    distances = (n - 1) * n * (n + 1) // 3 + n * (n + 1) // 2  # the sum of |h - c| over the arcs
    values = np.diff(sentence.fptr)  # each token's FEATS values, the root's first
    total, children = int(values.sum()), int(values[1:].sum())
    pairs = total * children - int(np.dot(values[1:].astype(float), values[1:]))
    steps = 148 * n * n + 4 * distances + 52 * pairs + 56 * (n + 1) * labels + (n + 1) ** 2 * labels
    return steps + (14 * distances if order == 2 else 0)


def check_work(sentence: Encoded, labels: int, order: int, where: str, line: int | None) -> None:
    """A MaltpyError at ``where``:``line`` if scoring ``sentence`` takes more than
    MAX_SENTENCE_WORK (``work``): MSTParser's features grow with the cube of the words and the
    square of the FEATS values, so that one sentence could take hours, and at order 2 its sibling
    scores the cube of the words in memory."""
    steps = work(sentence, labels, order)
    if steps > MAX_SENTENCE_WORK:
        values = int(np.diff(sentence.fptr)[1:].sum())
        raise MaltpyError(f"a sentence of {sentence.size - 1:,} words and {values:,} FEATS values, whose scoring "
                          f"takes {steps:,} steps, more than the {MAX_SENTENCE_WORK:,} of -a mst (order {order}): its "
                          "features read every word between an arc's ends and pair each FEATS value of a head with "
                          "each of its child's; split the sentence, or parse it with a transition-based model",
                          where, line or None)  # fmt: skip


class Alphabet:
    """The features of the gold trees, numbered (MSTParser's frozen alphabet): their keys, sorted,
    and a hash table from key to number that _mst_templates.c looks keys up in."""

    def __init__(self, keys: np.ndarray) -> None:
        keys = np.ascontiguousarray(keys, dtype=np.uint64)
        most = max_features()
        if len(keys) > most:
            raise ValueError(f"{len(keys):,} features, more than the {most:,} of a graph-based model (a 32nd "
                             f"of the bytes maltpy reads of one model: {ARCHIVE_VARIABLE} allows more)")  # fmt: skip
        if len(keys) > 1 and not bool(np.all(keys[1:] > keys[:-1])):
            raise ValueError("feature keys that are not sorted and distinct")
        if len(keys) and keys[0] == 0:
            raise ValueError("a feature key of 0")
        self.keys = keys
        size = 2
        while size < 2 * len(keys):
            size *= 2
        self.table = np.zeros((size, 2), dtype=np.uint64)  # each slot: a key (0: none) and its number
        _mst.build_table(keys, self.table)

    def __len__(self) -> int:
        return len(self.keys)

    @classmethod
    def of_trees(cls, keys: list[np.ndarray]) -> Alphabet:
        """The alphabet of the gold trees' keys (``tree_keys`` of each)."""
        if not keys:
            return cls(np.zeros(0, dtype=np.uint64))
        every = np.sort(np.concatenate(keys))
        return cls(every[np.concatenate(([True], every[1:] != every[:-1]))])  # np.unique sorts far slower


#: which parts of a tree ``tree_keys`` and ``tree_numbers`` read: its arcs and their labels, its
#: sibling parts (second order)
FIRST, SIBLINGS = 1, 2


def parts_of(order: int) -> int:
    """The parts of a tree a model of ``order`` scores."""
    return FIRST | (SIBLINGS if order == 2 else 0)


def tree_keys(sentence: Encoded, heads: np.ndarray, labels: np.ndarray, parts: int) -> np.ndarray:
    """The keys of the ``parts`` of the tree ``heads`` (int64, N; heads[0] unread) with ``labels``
    (each word's label atom, uint64, N)."""
    return np.frombuffer(_mst.tree_parts(sentence.args, heads, labels, parts, None), dtype=np.uint64)


def tree_numbers(sentence: Encoded, heads: np.ndarray, labels: np.ndarray, parts: int,
                 alphabet: Alphabet) -> np.ndarray:  # fmt: skip
    """The feature numbers of the ``parts`` of the tree, once each time its feature fires (MIRA's
    feature vector, §2)."""
    return np.frombuffer(_mst.tree_parts(sentence.args, heads, labels, parts, alphabet.table), dtype=np.int32)


@dataclass(slots=True)
class Rows:
    """The feature numbers of every arc and every label side of a sentence (``_mst.rows``)."""

    arc_ptr: np.ndarray
    label_ptr: np.ndarray
    numbers: np.ndarray

    @property
    def nbytes(self) -> int:
        return self.arc_ptr.nbytes + self.label_ptr.nbytes + self.numbers.nbytes


def rows(sentence: Encoded, label_atoms: np.ndarray, alphabet: Alphabet) -> Rows:
    arc_ptr, label_ptr, numbers = _mst.rows(sentence.args, label_atoms, alphabet.table)
    return Rows(np.frombuffer(arc_ptr, dtype=np.int64), np.frombuffer(label_ptr, dtype=np.int64),
                np.frombuffer(numbers, dtype=np.int32))  # fmt: skip


def gathered(r: Rows, heads: np.ndarray, labels: np.ndarray, label_count: int) -> np.ndarray:
    """``tree_numbers`` of the tree's arcs and labels (``labels``: label numbers), from its rows."""
    return np.frombuffer(_mst.gather(r.arc_ptr, r.label_ptr, r.numbers, heads, labels, label_count), dtype=np.int32)


def difference(gold: np.ndarray, other: np.ndarray, scratch: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """gold's feature vector minus other's, merged: (feature numbers, values), no zero values
    (``scratch``: zeros, one per feature, left zero)."""
    numbers, values = _mst.difference(gold, other, scratch)
    return np.frombuffer(numbers, dtype=np.int32), np.frombuffer(values)


def scores(r: Rows, weights: np.ndarray, size: int, labels: int) -> tuple[np.ndarray, np.ndarray]:
    """The arcs' scores (N x N, [h, c]) and the label sides' (N x L x 2 x 2, [word, label, head
    left of child, word is the child]) under ``weights``, from a sentence's rows."""
    arcs = np.empty(size * size)
    _mst.sums(r.arc_ptr, r.numbers, weights, arcs)
    sides = np.empty(size * labels * 4)
    _mst.sums(r.label_ptr, r.numbers, weights, sides)
    return arcs.reshape(size, size), sides.reshape(size, labels, 2, 2)


def scores_of(sentence: Encoded, label_atoms: np.ndarray, alphabet: Alphabet,
              weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """``scores`` without rows: each part's features looked up and summed as they come, in
    O(N²) memory (parsing keeps no rows; a sentence of N words has about 300 N² feature numbers)."""
    n, labels = sentence.size, len(label_atoms)
    arcs, sides = np.empty((n, n)), np.empty((n, labels, 2, 2))
    _mst.scores(sentence.args, label_atoms, alphabet.table, weights, arcs, sides)
    return arcs, sides


def sibling_scores(sentence: Encoded, alphabet: Alphabet, weights: np.ndarray) -> np.ndarray:
    """[h, s, c]: the score of c as h's next child after s (s == h: its first child) on the same
    side; entries that are no such part hold 0."""
    n = sentence.size
    out = np.zeros((n, n, n))
    _mst.sibling_scores(sentence.args, alphabet.table, weights, out, None)
    return out


def sibling_parts(sentence: Encoded, alphabet: Alphabet, weights: np.ndarray,
                  trips: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """``sibling_scores`` in MSTParser's two parts, as its second-order search sums them
    (decode.sibling_search): [h, s, c] the trip features' score ("trips"), [s, c, k] the sibling
    pair's (k = 0: c its head s's closest dependent, 1: c after s). ``trips``: an N x N x N array to
    write into (a sibling_scores array no longer needed: the entries that are no part keep what
    they hold)."""
    n = sentence.size
    trips = np.zeros((n, n, n)) if trips is None else trips
    pairs = np.zeros((n, n, 2))
    _mst.sibling_scores(sentence.args, alphabet.table, weights, trips, pairs)
    return trips, pairs
