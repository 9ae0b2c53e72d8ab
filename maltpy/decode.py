"""Maximum spanning tree decoding: the best dependency tree of a sentence under arc scores.

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

Scores must be finite (NaN or ±inf in an arc read is a ValueError, a caller's bug). When their
largest magnitude would let a sum of 2(n + 1) of them overflow, they are first divided by a
power of two, which is exact (short of scores below 2⁻¹⁰²² of the largest).

Both algorithms are in C (``maltpy/_decode.c``), without the GIL, in O(n²) memory beside the
matrix: its copy and the original arc behind each arc of the contracted graph for Chu-Liu-Edmonds
(two matrices' worth), Eisner's three tables. ``scripts/bench_decode.py`` measures them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from . import _decode


def spanning_tree(scores: np.ndarray, projective: bool = False, one_root: bool = False) -> np.ndarray:
    """The best dependency tree under ``scores`` (see the module's docstring), as heads in maltpy's
    convention (``tree``): an int64 array of length n + 1, ``heads[0] = -1``, ``heads[d]`` in 0..n.
    Chu-Liu-Edmonds, or Eisner's algorithm if ``projective``; exactly one word on the root if
    ``one_root``. A 1 x 1 matrix (no word) gives ``[-1]``."""
    if not isinstance(scores, np.ndarray) or scores.dtype != np.float64:
        raise ValueError(f"scores: a float64 numpy array is needed, not {_kind(scores)}")
    if scores.ndim != 2 or scores.shape[0] != scores.shape[1] or not scores.shape[0]:
        raise ValueError(f"scores: a square (n + 1) x (n + 1) matrix is needed, not one of shape {scores.shape}")
    heads = np.empty(len(scores), dtype=np.int64)
    _decode.decode(np.ascontiguousarray(scores), heads, projective, one_root)
    return heads


def tree_score(scores: np.ndarray, heads: Sequence[int] | np.ndarray) -> float:
    """The score of the tree ``heads`` under ``scores``: the sum of ``scores[heads[d], d]`` for d ≥ 1."""
    heads = np.asarray(heads)
    if len(heads) != len(scores):
        raise ValueError(f"heads of {len(heads)} nodes for scores of {len(scores)}")
    return float(scores[heads[1:], np.arange(1, len(heads))].sum())


def _kind(value: object) -> str:
    dtype = getattr(value, "dtype", None)
    return f"{type(value).__name__} of {dtype}" if dtype is not None else type(value).__name__
