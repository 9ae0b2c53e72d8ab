from maltpy.tree import find_cycle


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
