"""maltpy.decode: Chu-Liu-Edmonds and Eisner's algorithm find the best tree, checked against every
tree there is for up to 7 words, against the textbook form of Chu-Liu-Edmonds for longer
sentences, and on real treebank trees whose scores make them the best; at second order, the
sibling Eisner algorithm against every projective tree, and the search beyond projective trees
against every tree one change away."""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest
from conftest import DATA, requires_shared

from maltpy.data.conll import ConllReader
from maltpy.data.tree import find_cycle, is_projective
from maltpy.decode import k_best_projective, sibling_score, sibling_search, sibling_tree, spanning_tree, tree_score

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
    # (the ternary numbers, binomial(3n, n) / (2n + 1)); the same sets as maltpy.data.tree's definitions
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


# Each distribution gives integer scores of a shape (summed exactly) and the factor the decoder
# sees them multiplied by, or floats (factor None, compared to within rounding).
DISTRIBUTIONS = {
    "uniform": lambda rng, shape: (rng.random(shape), None),
    "small integers, many ties": lambda rng, shape: (rng.integers(0, 3, shape), 1.0),
    "all equal": lambda rng, shape: (np.zeros(shape, dtype=np.int64), 1.0),
    "negative": lambda rng, shape: (-rng.integers(1, 10**9, shape), 1.0),
    "near the largest double": lambda rng, shape: (rng.integers(-1000, 1001, shape), 2.0**1013),
}


@pytest.mark.parametrize("distribution", DISTRIBUTIONS)
def test_the_best_tree_scores_the_brute_force_maximum(distribution):
    rng = np.random.default_rng(31)
    for n in range(1, 8):
        for _ in range(12 if n < 6 else 3):
            values, factor = DISTRIBUTIONS[distribution](rng, (n + 1, n + 1))
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
            heads = spanning_tree(scores, ties="mstparser")  # MSTParser's ties: a best tree all the same
            assert_tree(heads, n, False, False)
            got, best = values[heads[1:], np.arange(1, n + 1)].sum(), brute_force(values, False, False)
            assert got == best if factor else math.isclose(got, best, rel_tol=1e-12), (n, values, heads)


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
            for ties in ("lowest", "mstparser"):
                heads = spanning_tree(scores, ties=ties)
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
    assert spanning_tree(odd, ties="mstparser").tolist() == spanning_tree(scores, ties="mstparser").tolist()


def test_ties_go_to_the_lowest_head_and_the_first_split():
    # all scores equal: the trees decode.py's docstring gives, the same for a copy in Fortran order
    scores = np.zeros((6, 6))
    expected = {(False, False): [-1, 0, 0, 0, 0, 0], (False, True): [-1, 0, 1, 1, 1, 1],
                (True, False): [-1, 0, 1, 2, 3, 4], (True, True): [-1, 0, 1, 2, 3, 4]}  # fmt: skip
    for (projective_only, one_root), heads in expected.items():
        assert spanning_tree(scores, projective_only, one_root).tolist() == heads
        assert spanning_tree(np.asfortranarray(scores), projective_only, one_root).tolist() == heads


def test_mstparser_ties_fall_to_the_cycle_member_first_in_trove_order():
    # Cycles of two words (5 each way), every other arc 0: the ties below are between the two
    # members, and MSTParser gives them to the first in a Trove 1.1 int hash map's key order, from
    # the last of its 23 slots down (a number v in slot v mod 23, or on along its probe if taken).
    def scores(n, arcs):
        s = np.zeros((n + 1, n + 1))
        for (h, d), v in arcs.items():
            s[h, d] = v
        return s

    def heads_of(s, words, ties):
        heads = spanning_tree(s, ties=ties)
        return {w: int(heads[w]) for w in words}

    # {4, 7}: slots 4 and 7, so 7 comes first: it takes the root's arc and word 2 (lowest: 4)
    s = scores(8, {(4, 7): 5, (7, 4): 5, (4, 2): 3, (7, 2): 3})
    assert heads_of(s, (2, 4, 7), "mstparser") == {2: 7, 4: 7, 7: 0}
    assert heads_of(s, (2, 4, 7), "lowest") == {2: 4, 4: 0, 7: 4}
    # {5, 28} among 28 words: 28 mod 23 = 5 as well, so the one put in second moves on, by
    # 1 + v mod 21, downward: 28 to slot 20 if 5 came first, 5 to slot 22 if 28 did. The map is
    # built along the cycle from where the walk up from the lowest word entered it: word 2 under 5
    # enters at 5 (28 comes first), word 2 under 28 at 28 (5 comes first).
    s = scores(28, {(5, 28): 5, (28, 5): 5, (5, 2): 3, (28, 2): 3})
    assert heads_of(s, (2, 5, 28), "mstparser") == {2: 28, 5: 28, 28: 0}
    s = scores(28, {(5, 28): 5, (28, 5): 5, (28, 2): 3, (5, 3): 3, (28, 3): 3})
    assert heads_of(s, (2, 3, 5, 28), "mstparser") == {2: 28, 3: 5, 5: 0, 28: 5}
    with pytest.raises(ValueError, match="ties"):
        spanning_tree(s, ties="highest")


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


# --- second order ------------------------------------------------------------------------------


def plain_sibling_score(arcs: np.ndarray, sibs: np.ndarray, heads: list[int]) -> float:
    """A tree's second-order score as decode.py defines it, written out: each head's dependents on
    each side from the closest outward, each scoring its arc and the sibling score after the one
    before it (after the head, for the closest)."""
    total = 0
    for h in range(len(heads)):
        left = [d for d in range(h - 1, 0, -1) if heads[d] == h]
        right = [d for d in range(h + 1, len(heads)) if heads[d] == h]
        for side in (left, right):
            for before, d in zip([h, *side], side):
                total += arcs[h, d] + sibs[h, before, d]
    return total


@functools.cache
def before(n: int) -> np.ndarray:
    """For each tree of ``all_trees(n)``, the dependent before each word on its side of its head,
    going outward (the head itself for the closest)."""
    trees = all_trees(n)
    previous = trees.copy()
    for d in range(1, n + 1):
        h = trees[:, d]
        for e in range(1, n + 1):
            between = (trees[:, e] == h) & (np.minimum(h, d) < e) & (e < np.maximum(h, d))
            previous[:, d] = np.where(between & (abs(e - d) < abs(previous[:, d] - d)), e, previous[:, d])
    return previous


def brute_force_sibling(arcs: np.ndarray, sibs: np.ndarray, one_root: bool):
    """The best second-order score over every projective tree (with one word on the root, if asked)."""
    n = len(arcs) - 1
    trees, words = all_trees(n), np.arange(1, n + 1)
    keep = projective(n) & ((trees == 0).sum(axis=1) == 1 if one_root else True)
    heads, previous = trees[keep, 1:], before(n)[keep, 1:]
    return (arcs[heads, words] + sibs[heads, previous, words]).sum(axis=1).max()


def second_order_scores(distribution: str, rng: np.random.Generator, n: int):
    """Arc and sibling scores of a distribution: the values (integers, or floats), and the float64
    arrays the decoder sees, and whether sums of the values are exact."""
    arcs, factor = DISTRIBUTIONS[distribution](rng, (n + 1, n + 1))
    sibs, _ = DISTRIBUTIONS[distribution](rng, (n + 1,) * 3)
    if factor is None:
        return arcs, sibs, arcs, sibs, False
    return arcs, sibs, arcs * factor, sibs * factor, True


def test_sibling_score_is_the_plain_sum():
    rng = np.random.default_rng(40)
    for n in range(1, 8):  # every tree of up to 5 words, 200 of 6 and 7; and the brute force's sum
        arcs, sibs = rng.integers(-50, 50, (n + 1, n + 1)), rng.integers(-50, 50, (n + 1,) * 3)
        rows = np.arange(len(all_trees(n))) if n <= 5 else rng.integers(0, len(all_trees(n)), 200)
        trees, words = all_trees(n)[rows], np.arange(1, n + 1)
        plain = [plain_sibling_score(arcs, sibs, heads) for heads in trees.tolist()]
        assert [sibling_score(arcs.astype(float), sibs.astype(float), heads) for heads in trees] == plain
        assert (arcs[trees[:, 1:], words] + sibs[trees[:, 1:], before(n)[rows, 1:], words]).sum(
            axis=1
        ).tolist() == plain
    for n in (30, 80):  # longer trees: each word under an earlier one, or under a word of a chain
        arcs, sibs = rng.random((n + 1, n + 1)), rng.random((n + 1,) * 3)
        heads = [-1, 0] + [int(rng.integers(0, d)) if d % 2 else int(rng.integers(1, n + 1)) for d in range(2, n + 1)]
        heads = [h if h != d else 0 for d, h in enumerate(heads)]
        assert math.isclose(sibling_score(arcs, sibs, heads), plain_sibling_score(arcs, sibs, heads), rel_tol=1e-12)


@pytest.mark.parametrize("distribution", DISTRIBUTIONS)
def test_the_best_projective_second_order_tree_scores_the_brute_force_maximum(distribution):
    rng = np.random.default_rng(41)
    for n in range(1, 8):
        for _ in range(8 if n < 6 else 2):
            arcs, sibs, arcs_seen, sibs_seen, exact = second_order_scores(distribution, rng, n)
            for one_root in (False, True):
                heads = sibling_tree(arcs_seen, sibs_seen, True, one_root)
                assert_tree(heads, n, True, one_root)
                got, best = plain_sibling_score(arcs, sibs, heads.tolist()), brute_force_sibling(arcs, sibs, one_root)
                if exact:
                    assert got == best, (n, one_root, arcs, sibs, heads)
                else:
                    assert math.isclose(got, best, rel_tol=1e-12), (n, one_root, arcs, sibs, heads)


def test_without_sibling_scores_the_projective_tree_scores_eisners():
    rng = np.random.default_rng(42)
    for n in (*range(1, 8), 15, 40):
        for distribution in ("small integers, many ties", "negative", "uniform"):
            arcs, _ = DISTRIBUTIONS[distribution](rng, (n + 1, n + 1))
            arcs = arcs.astype(float)
            for one_root in (False, True):
                second = tree_score(arcs, sibling_tree(arcs, np.zeros((n + 1,) * 3), True, one_root))
                first = tree_score(arcs, spanning_tree(arcs, True, one_root))
                assert math.isclose(second, first, rel_tol=1e-12), (n, distribution, one_root)


def one_change_away(heads: list[int], one_root: bool):
    """Every tree that changing one word's head makes of ``heads`` (with one word on the root, if asked)."""
    for j in range(1, len(heads)):
        for i in range(len(heads)):
            changed = [*heads[:j], i, *heads[j + 1 :]]
            if i != j and i != heads[j] and find_cycle(changed) is None and (not one_root or changed.count(0) == 1):
                yield changed


@pytest.mark.parametrize("distribution", DISTRIBUTIONS)
def test_the_search_ends_in_a_local_optimum_above_the_projective_tree(distribution):
    # What decode.py says the search guarantees: a tree, at least the projective tree's score, more
    # (and then non-projective) if it changed anything, and no better tree one change away
    rng = np.random.default_rng(43)
    searched = 0
    for n in (*range(2, 10), 12, 12, 12):
        arcs, sibs, arcs_seen, sibs_seen, exact = second_order_scores(distribution, rng, n)
        for one_root in (False, True):
            start = sibling_tree(arcs_seen, sibs_seen, True, one_root).tolist()
            heads = sibling_tree(arcs_seen, sibs_seen, False, one_root)
            assert_tree(heads, n, False, one_root)
            heads = heads.tolist()
            score, start_score = plain_sibling_score(arcs, sibs, heads), plain_sibling_score(arcs, sibs, start)
            slack = 0 if exact else 1e-9
            if heads == start:
                assert all(
                    plain_sibling_score(arcs, sibs, h) <= score + slack for h in one_change_away(heads, one_root)
                )
                continue
            searched += 1
            assert score > start_score - slack and not is_projective(heads)
            assert all(plain_sibling_score(arcs, sibs, h) <= score + slack for h in one_change_away(heads, one_root))
    # all equal: nothing raises the score, so the search keeps the projective tree; else it changes some
    assert (searched == 0) == (distribution == "all equal")


def fig_12(arcs: np.ndarray, sibs: np.ndarray, heads: list[int], one_root: bool) -> list[int]:
    """The reader's Fig. 12 from ``heads``, written out: while some change of one word's head
    raises the score, make the first best, words in ascending order, then heads."""
    while True:
        score, best, better = plain_sibling_score(arcs, sibs, heads), 0, None
        for changed in one_change_away(heads, one_root):
            if plain_sibling_score(arcs, sibs, changed) - score > best:
                best, better = plain_sibling_score(arcs, sibs, changed) - score, changed
        if better is None:
            return heads
        heads = better


@pytest.mark.parametrize("distribution", [d for d in DISTRIBUTIONS if d != "uniform"])
def test_the_search_makes_the_changes_of_fig_12(distribution):
    # integer scores, summed exactly: the same changes, ties included, so the same tree
    rng = np.random.default_rng(47)
    for n in (*range(2, 9), 10, 10, 10):
        arcs, sibs, arcs_seen, sibs_seen, _ = second_order_scores(distribution, rng, n)
        for one_root in (False, True):
            start = sibling_tree(arcs_seen, sibs_seen, True, one_root).tolist()
            expected = fig_12(arcs, sibs, start, one_root)
            assert sibling_tree(arcs_seen, sibs_seen, False, one_root).tolist() == expected, (n, one_root)


def test_the_search_from_parts_is_the_search_from_their_sums():
    # With integer scores every sum is exact: MSTParser's parts (labels beside the arcs, pairs
    # beside the trips) give the tree that their sums give, read at the same places
    rng = np.random.default_rng(44)
    for n in (*range(2, 9), 15, 15):
        arcs, labels = rng.integers(-9, 10, (2, n + 1, n + 1)).astype(float)
        trips, pairs = rng.integers(-9, 10, (n + 1,) * 3).astype(float), rng.integers(-9, 10, (n + 1, n + 1, 2)) * 1.0
        sums = trips + np.where(np.arange(n + 1)[:, None, None] == np.arange(n + 1)[None, :, None],
                                pairs[None, :, :, 0], pairs[None, :, :, 1])  # [h, s, c]: pairs[s, c, s != h]
        for one_root in (False, True):
            start = sibling_tree(arcs + labels, sums, True, one_root)
            searched = sibling_search(start, arcs, trips, labels=labels, pairs=pairs, one_root=one_root)
            assert searched.tolist() == sibling_tree(arcs + labels, sums, False, one_root).tolist()
            assert sibling_search(start, arcs + labels, sums, one_root=one_root).tolist() == searched.tolist()


def test_the_search_sums_a_change_as_mstparser_does():
    # Word 2 under word 1, or after word 1 under the root: the same score, but MSTParser sums the
    # change as (0.0 - 0.1 - 0.1) + (((0.0 + 0.1) + 0.2) + -0.1) = 2.8e-17 > 0, and moves it
    arcs, labels = np.full((3, 3), -5.0), np.zeros((3, 3))
    trips, pairs = np.zeros((3, 3, 3)), np.zeros((3, 3, 2))
    arcs[0, 1] = 0.0
    arcs[1, 2], labels[1, 2] = 0.1, 0.1
    arcs[0, 2], trips[0, 1, 2], labels[0, 2] = 0.1, 0.2, -0.1
    assert sibling_search([-1, 0, 1], arcs, trips, labels=labels, pairs=pairs).tolist() == [-1, 0, 0]
    # summed first into arcs + labels (0.2, 0.0), the change gains 0.0 - 0.2 + (0.0 + 0.2) = 0
    assert sibling_search([-1, 0, 1], arcs + labels, trips).tolist() == [-1, 0, 1]


@pytest.mark.parametrize("heads", [[-1, 2, 1], [-1, 0, 3], [-1, 1, 0], [-1, 0]])
def test_the_search_starts_from_a_tree(heads):
    with pytest.raises(ValueError, match="not a tree"):
        sibling_search(heads, np.zeros((3, 3)), np.zeros((3, 3, 3)))
    with pytest.raises(ValueError, match="one root"):
        sibling_search([-1, 0, 0], np.zeros((3, 3)), np.zeros((3, 3, 3)), one_root=True)
    with pytest.raises(ValueError, match="pair score"):
        pairs = np.zeros((3, 3, 2))
        pairs[0, 2, 0] = np.nan
        sibling_search([-1, 0, 1], np.zeros((3, 3)), np.zeros((3, 3, 3)), pairs=pairs)


def test_without_sibling_scores_the_search_climbs_between_eisner_and_chu_liu_edmonds():
    rng = np.random.default_rng(44)
    below = 0
    for n in (5, 8, 12, 20, 40):
        for _ in range(10):
            arcs = rng.integers(0, 10, (n + 1, n + 1)).astype(float)
            for one_root in (False, True):
                searched = tree_score(arcs, sibling_tree(arcs, np.zeros((n + 1,) * 3), False, one_root))
                eisner = tree_score(arcs, spanning_tree(arcs, True, one_root))
                best = tree_score(arcs, spanning_tree(arcs, False, one_root))
                assert eisner <= searched <= best
                below += searched < best
    assert below  # a local search: not always the best tree


@requires_shared
def test_real_trees_scored_best_are_found_at_second_order():
    # Score 1 for a gold tree's arcs and for its sibling pairs (sibs[h, before, d] for each word d):
    # no other tree scores its 2n. A projective one is found exactly; a non-projective one with
    # arc scores alone by the search (while a word's head is wrong, the highest such word in the
    # gold tree can take its gold head, which its subtree does not hold: a change of +1)
    trees = [t for t in gold_trees() if len(t) > 20]
    for gold in (next(t for t in trees if is_projective(t)), next(t for t in trees if not is_projective(t))):
        n = len(gold) - 1
        arcs, sibs = scored(gold), np.zeros((n + 1,) * 3)
        if is_projective(gold):
            for d in range(1, n + 1):
                previous = [e for e in range(1, n + 1) if gold[e] == gold[d] and min(gold[d], d) < e < max(gold[d], d)]
                sibs[gold[d], min(previous, key=lambda e: abs(e - d), default=gold[d]), d] = 1.0
            assert plain_sibling_score(arcs, sibs, gold) == 2 * n
            assert sibling_tree(arcs, sibs).tolist() == gold
            assert sibling_tree(arcs, sibs, one_root=True).tolist() == gold
        else:
            assert sibling_tree(arcs, sibs, projective=False).tolist() == gold


def read_siblings(n: int, one_root: bool) -> np.ndarray:
    """Where decode.py says the sibling scores are read: sibs[h, s, c] for c a word other than h,
    s = h or s strictly between h and c; with one root, not the root's with s > 0."""
    h, s, c = np.indices((n + 1,) * 3)
    read = (c >= 1) & (c != h) & ((s == h) | ((h < s) & (s < c)) | ((c < s) & (s < h)))
    return read & ~((h == 0) & (s > 0)) if one_root else read


def test_second_order_scores_not_read_may_be_anything():
    rng = np.random.default_rng(45)
    n = 7
    arcs, sibs = rng.random((n + 1, n + 1)), rng.random((n + 1,) * 3)
    odd_arcs = arcs.copy()
    odd_arcs[:, 0] = np.nan
    np.fill_diagonal(odd_arcs, -np.inf)
    for projective_only, one_root in MODES:
        odd_sibs = np.where(read_siblings(n, one_root), sibs, np.nan)
        assert (
            sibling_tree(odd_arcs, odd_sibs, projective_only, one_root).tolist()
            == sibling_tree(arcs, sibs, projective_only, one_root).tolist()
        )


@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("entry", [(0, 0, 2), (3, 3, 1), (1, 2, 3), (3, 2, 1), (0, 1, 2)])
def test_a_sibling_score_read_not_finite_is_a_value_error(value, entry):
    sibs = np.zeros((4, 4, 4))
    sibs[entry] = value
    for projective_only, one_root in MODES:
        if one_root and entry == (0, 1, 2):  # the root's second dependent: not read with one root
            assert sibling_tree(np.zeros((4, 4)), sibs, projective_only, one_root).tolist() == [-1, 0, 1, 2]
            continue
        with pytest.raises(ValueError, match=rf"sibs\[{entry[0]}, {entry[1]}, {entry[2]}\] is"):
            sibling_tree(np.zeros((4, 4)), sibs, projective_only, one_root)
    arcs = np.zeros((4, 4))
    arcs[2, 1] = value
    with pytest.raises(ValueError, match="the arc 2 -> 1 is"):
        sibling_tree(arcs, np.zeros((4, 4, 4)))


def test_second_order_ties_make_eisners_chain():
    # all scores equal: the chain of decode.py's docstring, for every mode and a Fortran-order copy
    for projective_only, one_root in MODES:
        for arcs, sibs in (
            (np.zeros((6, 6)), np.zeros((6, 6, 6))),
            (np.ones((6, 6)), np.asfortranarray(np.ones((6,) * 3))),
        ):
            assert sibling_tree(arcs, sibs, projective_only, one_root).tolist() == [-1, 0, 1, 2, 3, 4]
    for projective_only, one_root in MODES:
        assert sibling_tree(np.zeros((1, 1)), np.zeros((1, 1, 1)), projective_only, one_root).tolist() == [-1]


def test_long_random_sentences_give_trees_at_second_order():
    rng = np.random.default_rng(46)
    for n in (60, 120):
        arcs, sibs = rng.normal(size=(n + 1, n + 1)), rng.normal(size=(n + 1,) * 3)
        for one_root in (False, True):
            start = sibling_tree(arcs, sibs, True, one_root)
            heads = sibling_tree(arcs, sibs, False, one_root)
            assert_tree(start, n, True, one_root)
            assert_tree(heads, n, False, one_root)
            assert sibling_score(arcs, sibs, heads) >= sibling_score(arcs, sibs, start)


@pytest.mark.parametrize(
    "sibs",
    [np.zeros((4, 4, 4), dtype=np.float32), np.zeros((4, 4, 3)), np.zeros((3, 3, 3)), np.zeros((4, 4)), [[[0.0]]]],
    ids=["float32", "not a cube", "of other arcs", "2-d", "list"],
)
def test_sibling_scores_of_the_wrong_kind_are_a_value_error(sibs):
    with pytest.raises(ValueError, match="sibs: a"):
        sibling_tree(np.zeros((4, 4)), sibs)
    with pytest.raises(ValueError, match="sibs: a"):
        sibling_score(np.zeros((4, 4)), sibs, [-1, 0, 1, 2])
    with pytest.raises(ValueError, match="arcs: a"):
        sibling_tree(np.zeros((4, 4), dtype=np.float32), np.zeros((4, 4, 4)))


@pytest.mark.parametrize("heads", [[-1, 0, 1], [-1, 0, 1, 2, 3], [-1, 0, 4, 2], [-1, 0, -1, 2], [-1, 0, 2, 2]])
def test_sibling_score_of_no_head_assignment_is_a_value_error(heads):
    with pytest.raises(ValueError, match="heads of shape|the head of word"):
        sibling_score(np.zeros((4, 4)), np.zeros((4, 4, 4)), heads)


@pytest.mark.parametrize("distribution", ["normal", "integers"])
def test_the_k_best_projective_trees_are_the_brute_force_k_best(distribution):
    rng = np.random.default_rng(11)
    for n in range(1, 7):
        trees = all_trees(n)[projective(n)]
        for _ in range(15):
            size = (n + 1, n + 1)
            scores = rng.normal(size=size) if distribution == "normal" else rng.integers(0, 3, size).astype(float)
            every = np.sort(scores[trees[:, 1:], np.arange(1, n + 1)].sum(axis=1))[::-1]
            for k in (1, 2, 5, 20):
                found = k_best_projective(scores, k)
                assert len(found) == min(k, len(trees))
                assert len({tuple(h) for h in found}) == len(found)  # distinct trees
                for heads in found:
                    assert_tree(heads, n, projective_only=True, one_root=False)
                assert np.allclose([tree_score(scores, h) for h in found], every[: len(found)])
