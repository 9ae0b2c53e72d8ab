"""Maximum spanning tree decoding: the best dependency tree of a sentence under arc scores, first
and second order.

A sentence of n words has a dense score matrix ``scores`` of (n + 1) x (n + 1) float64, in which
``scores[h, d]`` is the score of the arc h → d and node 0 is the artificial root; column 0 (arcs
into the root) and the diagonal (self-loops) are never read and may hold anything, -inf
included. A tree's score is the sum of the scores of its arcs (arc-factored, first order:
McDonald, Pereira & Crammer (2007), "Global Inference and Learning Algorithms for Multi-Lingual
Dependency Parsing", in the ESSLLI 2007 course reader, §3). The best tree is found exactly:

- non-projective: the Chu-Liu-Edmonds algorithm (Chu & Liu 1965; Edmonds 1967; the reader's §3.2,
  Fig. 9): every word takes its best head; a cycle among those arcs is contracted into one node,
  whose incoming arcs score s(x, v) - s(a(v), v) for the cycle word v they enter (a(v) its head
  on the cycle), and the best tree of the smaller graph expands into the best tree of the
  original one. Done in Tarjan's (1977) O(n²) form for dense graphs: after a contraction only the
  new node needs a new head, and only a cycle through it can be new.
- projective: Eisner's (1996) O(n³) dynamic program over spans whose head is at one end (the
  reader's §3.1, Figs. 7 and 8), exact over all projective trees (there, as in ``tree``, the root
  is at the left end and an arc from it covers the words before its dependent).

``one_root=True`` gives the best tree among those in which exactly one word hangs on the root, as
Universal Dependencies requires; still exact, not a repair of the unconstrained tree:

- Chu-Liu-Edmonds subtracts a constant M from the score of every arc from the root, as
  Stanojević & Cohen's (2021) reweighting does, but with M infinite: an arc from the root is worse
  than any other arc into the same node, whatever the scores. A tree with k words on the root
  scores (-k, its score), compared first by -k. The algorithm only adds, subtracts and compares
  scores, so it finds the best tree for scores of that kind as for numbers: one with a single word
  on the root (every tree has one at least), and of those the best. Taken as infinite, M costs no
  precision (a finite one would round away the low bits of the root's arcs); in practice, the
  contractions go on until one node is left, which takes its best arc from the root. Gabow &
  Tarjan (1984) constrain the root's degree otherwise, and Zmigrod, Vieira & Cotterell (2020,
  "Please Mind the Root") adapt their algorithm to parsing; both run in O(n²), as this does.
- Eisner's algorithm lets the root take one word r by construction: the best tree with r alone
  on the root is s(0, r) plus the best complete spans 1..r and r..n headed by r, which the table
  over the words 1..n (the root left out) holds; the best r is taken. Every projective tree with
  one word on the root splits so, hence exact.

Ties are broken the same way every time, so a matrix always gives the same tree: a word takes the
lowest-numbered of its best heads (the root first; a contracted cycle numbered by its lowest
word), a contracted cycle is entered through its lowest best word, and Eisner's spans split at
the first best point, the one nearest the span's left end. With all scores equal,
Chu-Liu-Edmonds puts every word on the root (with one root: word 1 on the root, every other word
under it), and Eisner's algorithm makes a chain, each word headed by the one before it.

``ties="mstparser"`` breaks the ties of Chu-Liu-Edmonds (without one root) as MSTParser 0.5 does,
so that ``-a mst`` learns and parses as it does to the word: its trees have the same score, and
ties are frequent early in learning, when most features' weights are still 0. MSTParser's
implementation (McDonald's, ``DependencyDecoder.chuLiuEdmonds``) is the recursive form of the
reader's Fig. 9: each round gives every node its best head afresh (the lowest-numbered best),
finds one cycle, walking up from each node in turn from the root, and contracts it into one of
its members, the first of them in the order in which a GNU Trove 1.1 int hash map built along
the cycle lists its keys (from its last slot to its first: for small numbers the highest first).
The same order picks, of the members, the one a contracted arc enters or leaves on ties, and the
arc into the cycle scores (s(C) + s(x, v)) - s(a(v), v), rounded as it rounds. A round costs
O(n²), so O(n³) in all at worst.

Second order (the reader's §4; McDonald & Pereira 2006) scores pairs of adjacent arcs as well:
``sibling_tree(arcs, sibs)``, with ``arcs`` a matrix as above and ``sibs`` an (n + 1)³ array in
which ``sibs[h, s, c]`` is the score of c being h's next dependent after s on the same side of
h, going outward (s strictly between h and c), and ``sibs[h, h, c]`` that of c being h's closest
dependent on its side (the reader's s(h, -, c)). A tree's score (``sibling_score``) is the sum of
its arcs' scores and, for each head and side, of ``sibs[h, prev, c]`` along its dependents from
the closest outward (prev = h for the closest); no other entry of ``sibs`` is read. The reader's
s(i, k, j) is ``arcs[i, j] + sibs[i, k, j]``: it folds the arc's score in, which here stays apart.

- projective, exact: Eisner's algorithm with the sibling item (§4.1, Figs. 10 and 11), O(n³)
  time and O(n²) memory. An incomplete span in which s heads t gathers s's dependents from the
  closest outward: either t is s's closest dependent on that side (the words between belong to
  t), or t follows s's dependent r, the two joined by a sibling item (complete spans headed by r
  and by t, back to back) onto the incomplete span s..r. The recurrences are in
  ``maltpy/decode/_decode_sibling.c``; Fig. 11 as printed gives the complete items the incomplete
  items' sum.
- non-projective, approximate: the best such tree is NP-hard to find (§4.2), so Fig. 12's search
  starts from the best projective tree and makes, while one raises the score, the change of one
  word's head that raises it most and leaves a tree. A word's part in the score is local (its
  arc, and the sibling scores beside it on its head's side), so each pass weighs all n² changes
  in O(n²) time. A change's gain is summed from the parts it changes as MSTParser 0.5 sums it
  (``sibling_search``), so that the changes whose gain is rounding, not score (frequent while
  learning, when many scores are equal), fall as they fall there. The reader bounds the number of
  changes by a constant M for an O(n³ + Mn²) time, but uses no bound, nor does MSTParser: each
  change raises the score, and there are finitely many trees, but a gain of rounding could lead
  round a cycle, so this stops after (n + 1)² changes; in practice a few follow the projective
  parse. What the search guarantees, up to rounding: a tree; a local optimum, that no change of
  one word's head that leaves a tree (and one root, if asked) raises its score; a score at least
  the projective tree's, and higher if it changed anything, so that its tree is then
  non-projective (§4.2's argument). It need not be the best tree: with ``sibs`` all zero it
  climbs first-order scores from Eisner's tree, to a score between Eisner's and
  Chu-Liu-Edmonds', not always the latter.

``one_root=True`` again gives one word on the root. Projective, exactly: with r alone on the
root, the best tree is ``arcs[0, r] + sibs[0, 0, r]`` plus the best complete spans 1..r and r..n
headed by r; the best r is taken. The search then starts from that tree and weighs only changes
that keep one word on the root: no word moves onto the root, and its word, above every other,
cannot move. ``sibs[0, s, c]`` for s > 0 is then never read.

Ties, at second order: the projective algorithm's spans split at the first best point, as
Eisner's do; for an incomplete span, the case in which its dependent is its head's closest
counts as the split at the head's end (before every r when the head is on the left, after every
r when it is on the right). The search takes, of the best changes, that of the lowest word, to
the lowest head (Fig. 12's loops, and MSTParser's). With all scores equal, both make the chain
that Eisner's algorithm makes.

Scores must be finite (NaN or ±inf in an arc or sibling score read is a ValueError, a caller's
bug). When their largest magnitude would let a sum of 4(n + 1) of them overflow, they are first
divided by a power of two, which is exact (short of scores below 2⁻¹⁰²² of the largest).

All the algorithms are in C (``maltpy/decode/_decode*.c``, a file an algorithm), without the GIL, in
O(n²) memory beside the scores: a copy of the matrix and the original arc behind each arc of the
contracted graph for Chu-Liu-Edmonds (two matrices' worth), Eisner's three tables, and at second
order four tables and the search's O(n) arrays. ``scripts/bench_decode.py`` measures them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..data.tree import find_cycle
from . import _decode


def spanning_tree(scores: np.ndarray, projective: bool = False, one_root: bool = False,
                  ties: str = "lowest") -> np.ndarray:  # fmt: skip
    """The best dependency tree under ``scores`` (see the module's docstring), as heads in maltpy's
    convention (``tree``): an int64 array of length n + 1, ``heads[0] = -1``, ``heads[d]`` in 0..n.
    Chu-Liu-Edmonds, or Eisner's algorithm if ``projective``; exactly one word on the root if
    ``one_root``. ``ties``: "lowest", or "mstparser" for MSTParser 0.5's (non-projective without
    one root; Eisner's ties are its already). A 1 x 1 matrix (no word) gives ``[-1]``."""
    _check("scores", scores, 2)
    if ties not in ("lowest", "mstparser"):
        raise ValueError(f"ties are 'lowest' or 'mstparser', not {ties!r}")
    heads = np.empty(len(scores), dtype=np.int64)
    _decode.decode(np.ascontiguousarray(scores), heads, projective, one_root, ties == "mstparser")
    return heads


def k_best_projective(scores: np.ndarray, k: int) -> list[np.ndarray]:
    """The ``k`` best projective trees under ``scores`` (best first; fewer if there are fewer), as
    ``spanning_tree``'s heads: Eisner's algorithm with the k best items of each span (MSTParser's
    ``KBestParseForest``, for MIRA's k best trees, McDonald et al. 2007, §2.2), ties kept in the
    order the spans' splits and ranks come (MSTParser's). No single-root constraint (learning only)."""
    _check("scores", scores, 2)
    if type(k) is not int or k < 1:
        raise ValueError(f"k is a whole number from 1, not {k!r}")
    heads = np.empty((k, len(scores)), dtype=np.int64)
    found = _decode.kbest(np.ascontiguousarray(scores), heads)
    return list(heads[:found])


def tree_score(scores: np.ndarray, heads: Sequence[int] | np.ndarray) -> float:
    """The score of the tree ``heads`` under ``scores``: the sum of ``scores[heads[d], d]`` for d ≥ 1."""
    heads = np.asarray(heads)
    if len(heads) != len(scores):
        raise ValueError(f"heads of {len(heads)} nodes for scores of {len(scores)}")
    return float(scores[heads[1:], np.arange(1, len(heads))].sum())


def sibling_tree(arcs: np.ndarray, sibs: np.ndarray, projective: bool = True, one_root: bool = False) -> np.ndarray:
    """The best tree under the second-order scores ``arcs`` and ``sibs`` (see the module's
    docstring), as heads in the convention of ``spanning_tree``: the second-order Eisner algorithm
    (exact) if ``projective``, else the search from its tree (approximate); exactly one word on
    the root if ``one_root``."""
    _check("arcs", arcs, 2)
    _check("sibs", sibs, 3, len(arcs))
    heads = np.empty(len(arcs), dtype=np.int64)
    _decode.sibling_decode(np.ascontiguousarray(arcs), np.ascontiguousarray(sibs), heads, projective, one_root)
    return heads


def sibling_search(heads: Sequence[int] | np.ndarray, arcs: np.ndarray, sibs: np.ndarray,
                   labels: np.ndarray | None = None, pairs: np.ndarray | None = None,
                   one_root: bool = False) -> np.ndarray:  # fmt: skip
    """The search of ``sibling_tree`` (§4.2, Fig. 12) alone, from the tree ``heads`` (a tree in
    ``spanning_tree``'s convention, with one word on the root if ``one_root``), under MSTParser
    0.5's parts of the scores: an arc's score is ``arcs[h, c] + labels[h, c]`` (its label's), a
    sibling part's ``sibs[h, s, c] + pairs[s, c, k]`` (k = 0 if s is h, c its closest dependent,
    else 1); ``labels`` and ``pairs`` may be None (all 0). Each change's gain is summed from them in
    the order and grouping of MSTParser's ``rearrange``, so that the changes that gain nothing but
    rounding fall as they fall there; the search stops after (n + 1)² changes, where MSTParser's
    could go round a cycle of such changes for ever. The tree found, as new heads."""
    _check("arcs", arcs, 2)
    _check("sibs", sibs, 3, len(arcs))
    if labels is not None:
        _check("labels", labels, 2, len(arcs))
    if pairs is not None and (not isinstance(pairs, np.ndarray) or pairs.dtype != np.float64
                              or pairs.shape != (len(arcs), len(arcs), 2)):  # fmt: skip
        raise ValueError(f"pairs: a {len(arcs)} x {len(arcs)} x 2 float64 array is needed, not {_kind(pairs)}")
    heads = np.array(heads, dtype=np.int64)
    n = len(arcs) - 1
    words = heads[1:]
    tree = (heads.shape == (n + 1,) and not ((words < 0) | (words > n) | (words == np.arange(1, n + 1))).any()
            and find_cycle([-1, *words.tolist()]) is None)  # fmt: skip
    if not tree or (one_root and (words == 0).sum() != 1):
        rooted = " with one root" if one_root else ""
        raise ValueError(f"heads {heads.tolist()[:20]} are not a tree of {n} words{rooted}")
    heads[0] = -1
    labels = np.zeros_like(arcs) if labels is None else np.ascontiguousarray(labels)
    pairs = np.zeros((n + 1, n + 1, 2)) if pairs is None else np.ascontiguousarray(pairs)
    _decode.sibling_search(np.ascontiguousarray(arcs), labels, np.ascontiguousarray(sibs), pairs, heads, one_root)
    return heads


def sibling_score(arcs: np.ndarray, sibs: np.ndarray, heads: Sequence[int] | np.ndarray) -> float:
    """The second-order score of ``heads`` (any head for each word, 0..n and not the word itself;
    a tree or not): the sum of ``arcs[heads[d], d]`` over the words d, and of
    ``sibs[h, prev, d]`` over each head h's dependents d on each side, from the closest outward,
    prev the one before d (h for the closest)."""
    _check("arcs", arcs, 2)
    _check("sibs", sibs, 3, len(arcs))
    heads = np.ascontiguousarray(heads, dtype=np.int64)
    if heads.shape != (len(arcs),):
        raise ValueError(f"heads of shape {heads.shape} for arcs of {len(arcs)} nodes")
    return _decode.sibling_score(np.ascontiguousarray(arcs), np.ascontiguousarray(sibs), heads)


def _check(name: str, scores: object, ndim: int, nodes: int | None = None) -> None:
    """A ValueError unless ``scores`` is a float64 array of ``ndim`` equal sides, of ``nodes`` if
    given (the arcs' side), else of any length but 0."""
    if not isinstance(scores, np.ndarray) or scores.dtype != np.float64:
        raise ValueError(f"{name}: a float64 numpy array is needed, not {_kind(scores)}")
    if nodes is None:
        side = scores.shape[0] if scores.ndim else 0
        if scores.shape != (side,) * ndim or not side:
            needed = " x ".join(["(n + 1)"] * ndim)
            raise ValueError(f"{name}: an {needed} array is needed, not one of shape {scores.shape}")
    elif scores.shape != (nodes,) * ndim:
        needed = " x ".join([str(nodes)] * ndim)
        raise ValueError(
            f"{name}: a {needed} array is needed for arcs of {nodes} nodes, not one of shape {scores.shape}"
        )


def _kind(value: object) -> str:
    dtype = getattr(value, "dtype", None)
    return f"{type(value).__name__} of {dtype}" if dtype is not None else type(value).__name__
