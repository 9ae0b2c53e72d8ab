from maltpy.tree import arc_degree, degree, find_cycle, is_projective, nonprojective_arcs


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
