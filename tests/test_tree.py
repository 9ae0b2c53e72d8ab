import random

from conftest import DATA, long_sentence, requires_shared

from maltpy.data.conll import ConllReader
from maltpy.data.tree import RootLabels, arc_degree, degree, find_cycle, is_projective, nonprojective_arcs, single_root
from maltpy.transition.base import Arcs, finish

LATIN = DATA / "ud" / "UD_Latin-Perseus" / "la_perseus-ud-train.conllu"


def test_a_tree_has_no_cycle():
    # 1 <- 2 -> 3, 2 <- 0, and a second root child 4
    assert find_cycle([-1, 2, 0, 2, 0]) is None


def test_cycles_are_found_with_their_words_in_head_order():
    assert find_cycle([-1, 2, 3, 1]) == [1, 2, 3]
    assert find_cycle([-1, 0, 2]) == [2]  # self-loop
    # a cycle that is reached from a word outside it: 1 -> 2 -> 3 -> 2
    assert find_cycle([-1, 2, 3, 2]) == [2, 3]


def test_long_chains_do_not_recurse():
    n = 50_000
    assert find_cycle([-1, 0] + list(range(1, n))) is None


# Nivre (2009), Fig. 1: non-projective through "hearing -> on" and "scheduled -> today"
FIG1 = [-1, 2, 3, 0, 3, 2, 7, 5, 4, 3]


def test_projectivity():
    assert is_projective([-1, 2, 0, 2])
    assert not is_projective(FIG1)
    assert nonprojective_arcs(FIG1) == [5, 8]


def dominated_between(heads: list[int], d: int) -> bool:
    """The definition: every word between heads[d] and d has heads[d] among its heads' heads."""
    h = heads[d]
    for k in range(min(h, d) + 1, max(h, d)):
        while k not in (h, 0):
            k = heads[k]
        if k != h:
            return False
    return True


@requires_shared
def test_the_nonprojective_arcs_are_the_definitions_on_real_and_long_trees():
    # la_perseus: 41% of its sentences non-projective; then one long sentence of them whose root
    # words hang from the first one's, so that arcs over thousands of words are tested.
    with open(LATIN, "rb") as f:
        sentences = list(ConllReader(f, "la"))
    for s in [*sentences, long_sentence(sentences[:300], 3000, "star")]:
        heads = s.heads
        assert nonprojective_arcs(heads) == [d for d in range(1, len(heads)) if not dominated_between(heads, d)]
    assert sum(not is_projective(s.heads) for s in sentences) > 500


def test_every_cycle_is_broken_as_one_at_a_time():
    # finish breaks the cycles a planar parser without acyclicity leaves, each at its first word:
    # all at once, as breaking them one at a time (a cycle found, broken, the next ...) does
    rng = random.Random(3)
    for _ in range(500):
        n = rng.randint(1, 40)
        heads = [-1] + [rng.choice([-1, *range(n + 1)]) for _ in range(n)]
        arcs = Arcs(heads, [None] + ["x"] * n, [], [])
        expected = [-1] + [0 if h == -1 else h for h in heads[1:]]
        while (cycle := find_cycle(expected)) is not None:
            expected[min(cycle)] = 0
        assert finish(arcs, "ROOT", acyclic=False)[0] == expected


def test_degree_of_arcs_and_trees():
    # hearing(2) -> on(5) spans 3 (head 0, outside) and 4 (head 3, inside): degree 1
    assert arc_degree(FIG1, 2, 5) == 1
    assert arc_degree(FIG1, 4, 8) == 1
    # is(3) -> .(9) dominates everything between, but "on"(5) only through "hearing"(2),
    # outside the span: Nivre's degree counts that component
    assert arc_degree(FIG1, 3, 9) == 1 and arc_degree(FIG1, 3, 4) == 0
    assert degree(FIG1) == 1 and degree([-1, 2, 0, 2]) == 0
    # in a partial graph, a word without a head yet is outside every span
    assert arc_degree([-1, -1, -1, -1], 1, 3) == 1
    assert arc_degree([-1, -1, -1, -1, -1, -1], 1, 5, limit=1) == 2  # stops once past the limit


def test_single_root_keeps_the_root_a_transition_chose_then_the_biggest():
    roots = RootLabels("root", {"PUNCT": "punct", "VERB": "parataxis"}, "dep")
    tags = ["", "PRON", "VERB", "PUNCT", "VERB", "NOUN"]
    # 2 was attached to the root by a transition (labelled root); 4 and 3 were left over (ROOT)
    heads, labels = single_root([-1, 2, 0, 0, 0, 4], ["", "nsubj", "root", "ROOT", "ROOT", "obj"], roots, "ROOT", tags)
    assert heads == [-1, 2, 0, 2, 2, 4] and labels == ["", "nsubj", "root", "punct", "parataxis", "obj"]
    # all left over: the one heading most words (4, with 5 below it) is kept, and labelled root
    heads, labels = single_root([-1, 0, 0, 0, 0, 4], ["", "ROOT", "ROOT", "ROOT", "ROOT", "obj"], roots, "ROOT", tags)
    assert heads == [-1, 4, 4, 4, 0, 4] and labels == ["", "dep", "parataxis", "punct", "root", "obj"]
    assert find_cycle(heads) is None
    # one root already: only its label changes
    assert single_root([-1, 0, 1], ["", "ROOT", "obj"], roots, "ROOT", tags[:3]) == ([-1, 0, 1], ["", "root", "obj"])
    # a word below another labelled root takes its tag's label under the root word
    assert single_root([-1, 0, 1], ["", "root", "root"], roots, "ROOT", tags[:3]) == (
        [-1, 0, 1],
        ["", "root", "parataxis"],
    )


def test_root_labels_are_counted_from_the_training_trees():
    trees = [
        ([-1, 2, 0, 2], ["", "nsubj", "root", "punct"], ["", "PRON", "VERB", "PUNCT"]),
        ([-1, 0, 1, 1], ["", "root", "punct", "punct"], ["", "NOUN", "PUNCT", "PUNCT"]),
        ([-1, 0], ["", "ROOT"], ["", "X"]),
    ]
    assert RootLabels.count(trees) == RootLabels("root", {"PRON": "nsubj", "PUNCT": "punct"}, "punct")
