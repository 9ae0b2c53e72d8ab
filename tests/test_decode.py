"""maltpy.decode: Chu-Liu-Edmonds and Eisner's algorithm find the best tree, checked against every
tree there is for up to 7 words, against the textbook form of Chu-Liu-Edmonds for longer
sentences, and on real treebank trees whose scores make them the best."""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest
from conftest import DATA, requires_shared

from maltpy.conll import ConllReader
from maltpy.decode import spanning_tree, tree_score
from maltpy.tree import find_cycle, is_projective

MODES = [(False, False), (False, True), (True, False), (True, True)]  # (projective, one_root)


@functools.cache
def all_trees(n: int) -> np.ndarray:
    """Every dependency tree of n words, one per row as heads (column 0 is -1).

    A tree rooted at 0 is read from its Prüfer code (Prüfer 1918), with 0 taken as the largest
    label so that it is never removed: n - 1 times, the lowest word that heads no word left
    leaves the tree, its head being the code's next number; the last word left hangs on 0. The
    (n + 1)^(n - 1) codes give each tree once (Cayley's formula)."""
    rows = (n + 1) ** (n - 1)
    code = (np.arange(rows)[:, None] // (n + 1) ** np.arange(n - 1)) % (n + 1)
    heads = np.full((rows, n + 1), -1, dtype=np.int64)
    degree = 1 + (code[:, :, None] == np.arange(n + 1)).sum(axis=1)  # 1 + the dependents a node has left
    everyone = np.arange(rows)
    for j in range(n - 1):
        leaf = 1 + np.argmax(degree[:, 1:] == 1, axis=1)
        heads[everyone, leaf] = code[:, j]
        degree[everyone, leaf] = 0
        degree[everyone, code[:, j]] -= 1
    heads[everyone, 1 + np.argmax(degree[:, 1:] == 1, axis=1)] = 0
    return heads


@functools.cache
def projective(n: int) -> np.ndarray:
    """Which of ``all_trees(n)`` are projective, for all at once: with the root at the left end, a
    tree is projective exactly when no two of its arcs cross, drawn above the words (a tree is
    projective when planar and no arc covers the root; nothing covers the first node). The first
    test checks this against ``tree.is_projective``."""
    trees = all_trees(n)
    d = np.arange(n + 1)
    lo, hi = np.minimum(trees, d)[:, 1:], np.maximum(trees, d)[:, 1:]
    ok = np.ones(len(trees), dtype=bool)
    for i in range(n):
        for j in range(n):
            ok &= ~((lo[:, i] < lo[:, j]) & (lo[:, j] < hi[:, i]) & (hi[:, i] < hi[:, j]))
    return ok


def brute_force(scores: np.ndarray, projective_only: bool, one_root: bool):
    """The best score over every tree (projective, with one word on the root, if asked)."""
    n = len(scores) - 1
    trees = all_trees(n)
    keep = np.ones(len(trees), dtype=bool)
    if projective_only:
        keep &= projective(n)
    if one_root:
        keep &= (trees == 0).sum(axis=1) == 1
    return scores[trees[keep, 1:], np.arange(1, n + 1)].sum(axis=1).max()


def assert_tree(heads: np.ndarray, n: int, projective_only: bool, one_root: bool) -> None:
    assert heads.dtype == np.int64
    heads = heads.tolist()
    assert len(heads) == n + 1 and heads[0] == -1 and all(0 <= h <= n for h in heads[1:])
    assert find_cycle(heads) is None
    assert not projective_only or is_projective(heads)
    assert not one_root or heads.count(0) == 1


def test_the_trees_enumerated_are_every_tree_and_every_projective_tree():
    # Cayley: (n + 1)^(n - 1) trees; projective ones with the root at the left: 1, 3, 12, 55, ...
    # (the ternary numbers, binomial(3n, n) / (2n + 1)); the same sets as maltpy.tree's definitions
    # give by testing every head assignment, for up to 5 words
    for n in range(1, 8):
        trees = all_trees(n)
        assert len(np.unique(trees[:, 1:] @ (n + 1) ** np.arange(n))) == len(trees) == (n + 1) ** (n - 1)
        assert projective(n).sum() == math.comb(3 * n, n) // (2 * n + 1)
    for n in range(1, 6):
        grid = np.indices((n + 1,) * n).reshape(n, -1).T.tolist()
        every = {tuple([-1, *h]) for h in grid if find_cycle([-1, *h]) is None}
        assert {tuple(t) for t in all_trees(n).tolist()} == every
        assert {tuple(t) for t in all_trees(n)[projective(n)].tolist()} == {t for t in every if is_projective(list(t))}


# Each distribution gives integer scores K (summed exactly) and the factor the decoder sees them
# multiplied by, or floats (factor None, compared to within rounding).
DISTRIBUTIONS = {
    "uniform": lambda rng, k: (rng.random((k, k)), None),
    "small integers, many ties": lambda rng, k: (rng.integers(0, 3, (k, k)), 1.0),
    "all equal": lambda rng, k: (np.zeros((k, k), dtype=np.int64), 1.0),
    "negative": lambda rng, k: (-rng.integers(1, 10**9, (k, k)), 1.0),
    "near the largest double": lambda rng, k: (rng.integers(-1000, 1001, (k, k)), 2.0**1013),
}


@pytest.mark.parametrize("distribution", DISTRIBUTIONS)
def test_the_best_tree_scores_the_brute_force_maximum(distribution):
    rng = np.random.default_rng(31)
    for n in range(1, 8):
        for _ in range(12 if n < 6 else 3):
            values, factor = DISTRIBUTIONS[distribution](rng, n + 1)
            scores = values * factor if factor else values
            for projective_only, one_root in MODES:
                heads = spanning_tree(scores, projective_only, one_root)
                assert_tree(heads, n, projective_only, one_root)
                best = brute_force(values, projective_only, one_root)
                got = values[heads[1:], np.arange(1, n + 1)].sum()
                if factor:
                    assert got == best, (n, projective_only, one_root, values, heads)
                else:
                    assert math.isclose(got, best, rel_tol=1e-12), (n, projective_only, one_root, values, heads)


def reference_mst(scores: np.ndarray, root_children: list[int] | None = None) -> float:
    """The best tree's score by Chu-Liu-Edmonds as the reader's Fig. 9 gives it (recursive
    contraction over a dict of arcs, O(n^3)), with arcs from the root to ``root_children`` only."""
    n = len(scores) - 1
    arcs = {(h, d): scores[h, d] for h in range(n + 1) for d in range(1, n + 1) if h != d}
    if root_children is not None:
        arcs = {(h, d): s for (h, d), s in arcs.items() if h or d in root_children}
    return sum(scores[h, d] for h, d in _chu_liu_edmonds(arcs, n + 1))


def _chu_liu_edmonds(arcs: dict, size: int) -> set:
    best = {}
    for (h, d), s in arcs.items():
        if d not in best or s > arcs[best[d]]:
            best[d] = (h, d)
    head = {d: h for d, (h, _) in best.items()}
    for start in head:
        seen, v = [], start
        while v in head and v not in seen:
            seen.append(v)
            v = head[v]
        if v in seen:
            cycle = set(seen[seen.index(v) :])
            break
    else:
        return set(best.values())
    c = size  # the contracted node's label
    contracted, origin = {}, {}
    for (h, d), s in arcs.items():
        if h in cycle and d in cycle:
            continue
        key = (c if h in cycle else h, c if d in cycle else d)
        value = s - arcs[best[d]] if d in cycle else s
        if key not in contracted or value > contracted[key]:
            contracted[key], origin[key] = value, (h, d)
    tree = {origin[key] for key in _chu_liu_edmonds(contracted, size + 1)}
    entered = next(d for h, d in tree if d in cycle)
    return tree | {best[v] for v in cycle if v != entered}


def test_chu_liu_edmonds_scores_the_textbook_algorithm_on_longer_sentences():
    rng = np.random.default_rng(32)
    for n in (15, 30, 60):
        for high in (3, 1000):
            scores = rng.integers(0, high, (n + 1, n + 1)).astype(float)
            heads = spanning_tree(scores)
            assert_tree(heads, n, False, False)
            assert tree_score(scores, heads) == reference_mst(scores)
    # one word on the root: the best of the trees with each word alone on the root
    for n in (8, 20):
        scores = rng.integers(0, 5, (n + 1, n + 1)).astype(float)
        scores[0] += 3  # the root's arcs are the best: without the rule, most words would take it
        heads = spanning_tree(scores, one_root=True)
        assert_tree(heads, n, False, True)
        assert tree_score(scores, heads) == max(reference_mst(scores, [r]) for r in range(1, n + 1))


def test_long_random_sentences_give_trees():
    rng = np.random.default_rng(33)
    for n in (100, 300):
        scores = rng.normal(size=(n + 1, n + 1))
        for projective_only, one_root in MODES:
            assert_tree(spanning_tree(scores, projective_only, one_root), n, projective_only, one_root)
        # Eisner's best is one of Chu-Liu-Edmonds' candidates, one word on the root one of the trees
        mst, eisner = tree_score(scores, spanning_tree(scores)), tree_score(scores, spanning_tree(scores, True))
        assert eisner <= mst + 1e-9 and tree_score(scores, spanning_tree(scores, one_root=True)) <= mst + 1e-9


def gold_trees():
    """The gold trees of la_perseus' test file (a treebank with many non-projective ones)."""
    with open(DATA / "ud" / "UD_Latin-Perseus" / "la_perseus-ud-test.conllu", "rb") as f:
        return [s.heads for s in ConllReader(f, "la_perseus-ud-test.conllu")]


def scored(gold: list[int], root: float = 0.0) -> np.ndarray:
    """Score 1 for the arcs of ``gold``, ``root`` for the root's other arcs, 0 for the rest."""
    n = len(gold) - 1
    scores = np.zeros((n + 1, n + 1))
    scores[0, 1:] = root
    scores[gold[1:], np.arange(1, n + 1)] = 1.0
    return scores


@requires_shared
def test_a_real_tree_scored_best_is_found():
    trees = [t for t in gold_trees() if len(t) > 20]
    nonprojective = next(t for t in trees if not is_projective(t))
    proj = next(t for t in trees if is_projective(t))
    assert spanning_tree(scored(nonprojective)).tolist() == nonprojective
    assert spanning_tree(scored(nonprojective), one_root=True).tolist() == nonprojective
    assert spanning_tree(scored(proj), projective=True).tolist() == proj
    assert spanning_tree(scored(proj), projective=True, one_root=True).tolist() == proj


@requires_shared
def test_one_word_on_the_root_is_the_best_such_tree_not_a_repair():
    # Every word's best arc is from the root (1.5, the gold root word's 1): the best tree puts every
    # word on the root. With one word on the root, the gold tree (n arcs of 1) beats any other: if
    # its word on the root is another (1.5), the gold root word takes an arc of 0.
    trees = [t for t in gold_trees() if len(t) > 20]
    for gold, projective_only in ((next(t for t in trees if not is_projective(t)), False),
                                  (next(t for t in trees if is_projective(t)), True)):  # fmt: skip
        scores = scored(gold, root=1.5)
        assert spanning_tree(scores, projective_only).tolist() == [-1] + [0] * (len(gold) - 1)
        assert spanning_tree(scores, projective_only, one_root=True).tolist() == gold


def test_no_word():
    for projective_only, one_root in MODES:
        assert spanning_tree(np.zeros((1, 1)), projective_only, one_root).tolist() == [-1]


def test_the_root_column_and_the_diagonal_are_not_read():
    rng = np.random.default_rng(34)
    scores = rng.random((6, 6))
    odd = scores.copy()
    odd[:, 0] = np.nan
    np.fill_diagonal(odd, -np.inf)
    for projective_only, one_root in MODES:
        assert (
            spanning_tree(odd, projective_only, one_root).tolist()
            == spanning_tree(scores, projective_only, one_root).tolist()
        )


def test_ties_go_to_the_lowest_head_and_the_first_split():
    # all scores equal: the trees decode.py's docstring gives, the same for a copy in Fortran order
    scores = np.zeros((6, 6))
    expected = {(False, False): [-1, 0, 0, 0, 0, 0], (False, True): [-1, 0, 1, 1, 1, 1],
                (True, False): [-1, 0, 1, 2, 3, 4], (True, True): [-1, 0, 1, 2, 3, 4]}  # fmt: skip
    for (projective_only, one_root), heads in expected.items():
        assert spanning_tree(scores, projective_only, one_root).tolist() == heads
        assert spanning_tree(np.asfortranarray(scores), projective_only, one_root).tolist() == heads


@pytest.mark.parametrize(
    "scores",
    [
        [[0.0, 1.0], [0.0, 0.0]],  # a list
        np.zeros((3, 3), dtype=np.int64),
        np.zeros((3, 3), dtype=np.float32),
        np.zeros(3),
        np.zeros((3, 4)),
        np.zeros((0, 0)),
        np.zeros((2, 2, 2)),
    ],
    ids=["list", "int64", "float32", "1-d", "not square", "empty", "3-d"],
)
def test_a_matrix_of_the_wrong_kind_is_a_value_error(scores):
    with pytest.raises(ValueError, match="scores: a"):
        spanning_tree(scores)


@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("arc", [(0, 1), (2, 1), (1, 3)])
def test_a_score_not_finite_is_a_value_error(value, arc):
    scores = np.zeros((4, 4))
    scores[arc] = value
    for projective_only, one_root in MODES:
        with pytest.raises(ValueError, match=f"the arc {arc[0]} -> {arc[1]} is"):
            spanning_tree(scores, projective_only, one_root)


def test_tree_score():
    scores = np.arange(16.0).reshape(4, 4)
    assert tree_score(scores, [-1, 0, 1, 1]) == 1 + 6 + 7
    with pytest.raises(ValueError):
        tree_score(scores, [-1, 0])
