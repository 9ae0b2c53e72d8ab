"""Facts about dependency graphs.

A sentence of n words is a graph over the nodes 0..n, node 0 being the artificial root.
Throughout maltpy its arcs are given as ``heads``, a list of length n + 1 in which
``heads[d]`` is the head of word d and ``heads[0]`` is -1 (the root has no head).
A dependency tree is such a list in which every word reaches the root by following heads
(Nivre 2008, §2: single-head, acyclic, connected, rooted at 0).
"""

from __future__ import annotations

ROOT_HEAD = -1


def find_cycle(heads: list[int]) -> list[int] | None:
    """Return the words of one cycle in ``heads``, in head order, or None if there is none.

    Each word is visited once: a walk up the heads from an unvisited word either reaches a
    word already known to reach the root, or returns to a word of the same walk (a cycle).
    """
    n = len(heads) - 1
    state = [0] * (n + 1)  # 0 unvisited, 1 on the current walk, 2 known to reach the root
    state[0] = 2
    for start in range(1, n + 1):
        walk = []
        d = start
        while state[d] == 0:
            state[d] = 1
            walk.append(d)
            d = heads[d]
        if state[d] == 1:
            return walk[walk.index(d) :]
        for w in walk:
            state[w] = 2
    return None
