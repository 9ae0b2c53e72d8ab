"""The best tree of a sentence under a graph-based model's weights, and its labels (McDonald,
Crammer & Pereira 2007): each arc's best label (§7.1), then the best tree of the labelled arcs,
first order by Eisner's algorithm (§3.1) or Chu-Liu-Edmonds (§3.2), second order the best
projective tree of arcs and sibling parts (§4.1) and the non-projective search from it (§4.2).
Parsing (model.py) and MIRA's learning (learn.py) both find their trees here.
"""

from __future__ import annotations

import numpy as np

from ..decode import sibling_search, sibling_tree, spanning_tree
from .features import NO_TYPE, Alphabet, Encoded, atom, sibling_parts, sibling_scores

LABEL_CHOICES = 1 << 21  # (head, child, label) scores weighed at once by labelled_arcs: 16 MB an array


class Labels:
    """The labels of the training treebank in order of first use, MSTParser's ``<no-type>``
    first, and their atoms."""

    def __init__(self, names: list[str] | None = None) -> None:
        self.names = list(names or [NO_TYPE])
        self.index = {name: k for k, name in enumerate(self.names)}
        self.atoms = np.array([atom(name) for name in self.names], dtype=np.uint64)

    def add(self, name: str) -> int:
        k = self.index.get(name)
        if k is None:
            k = self.index[name] = len(self.names)
            self.names.append(name)
            self.atoms = np.append(self.atoms, np.uint64(atom(name)))
        return k


def labelled_arcs(arcs: np.ndarray, sides: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each arc's score with its best label's, that label, and the label's score alone ([h, c];
    MSTParser's ``getTypes``, §7.1): the label t maximizing the child's side (c, t) plus the head's
    (h, t) for the arc's direction, the lowest-numbered on ties. Weighed for a few heads at a time
    (LABEL_CHOICES), in memory that does not grow with the words times the labels."""
    n, count = len(arcs), sides.shape[1]
    scores, best, label = np.empty((n, n)), np.empty((n, n), dtype=np.int64), np.empty((n, n))
    step = max(1, LABEL_CHOICES // max(1, n * count))
    for start in range(0, n, step):
        heads = slice(start, start + step)
        left = np.arange(start, min(n, start + step))[:, None] < np.arange(n)  # h < c: the head left of its child
        by_left = [sides[heads, None, :, d, 0] + sides[None, :, :, d, 1] for d in (0, 1)]  # [h, c, t]
        both = np.where(left[:, :, None], by_left[1], by_left[0])
        best[heads] = both.argmax(axis=2)
        label[heads] = np.take_along_axis(both, best[heads, :, None], axis=2)[:, :, 0]
        scores[heads] = arcs[heads] + label[heads]
    return scores, best, label


def labels_of(best: np.ndarray, heads: np.ndarray) -> np.ndarray:
    """The label numbers of a tree's arcs (``best``: each arc's best label), 0 for the root."""
    heads = heads.copy()
    heads[0] = 0
    labels = best[heads, np.arange(len(heads))]
    labels[0] = 0
    return labels


Tree = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]


def best_tree(sentence: Encoded, arcs: np.ndarray, sides: np.ndarray, weights: np.ndarray, alphabet: Alphabet,
              order: int, projective: bool, one_root: bool) -> Tree:  # fmt: skip
    """The best tree of ``sentence`` under ``weights``, given its arcs' and label sides' scores
    (features.scores): heads and label numbers (int64, N, [0] unread), with the labelled arcs'
    scores and each arc's best label ([h, c]). Ties fall as in MSTParser 0.5: Chu-Liu-Edmonds
    breaks them as it does, and the second-order search (§4.2) sums its gains from its parts
    (the arc's and label's, the trip's and sibling pair's), where the Eisner algorithms give its
    trees already."""
    arc_scores, best, label = labelled_arcs(arcs, sides)
    if order == 1:
        heads = spanning_tree(arc_scores, projective=projective, one_root=one_root, ties="mstparser")
    else:
        sibs = sibling_scores(sentence, alphabet, weights)
        heads = sibling_tree(arc_scores, sibs, projective=True, one_root=one_root)
        if not projective:
            trips, pairs = sibling_parts(sentence, alphabet, weights, trips=sibs)  # sibs' memory, no longer needed
            heads = sibling_search(heads, arcs, trips, labels=label, pairs=pairs, one_root=one_root)
    heads[0] = 0
    return heads, labels_of(best, heads), arc_scores, best
