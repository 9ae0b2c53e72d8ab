"""What a member's parse costs, by its algorithm, and each worker's share of a blend's members in
a team of workers (``shares``; jobs.py): the costs make the shares about even."""

from __future__ import annotations

from collections.abc import Sequence

#: what a member's parse of a sentence costs, against one of Nivre's systems (1), by its
#: algorithm: over en_lines' test file in one process, nivreeager and nivrestandard take 0.13 to
#: 0.25 s, covnonproj 0.54 to 0.87 s; as the default blend of en_lines learned, over the held-out
#: folds, 0.59 to 1.10 s and 2.71 to 3.10 s. Only ``shares`` reads them: a wrong figure costs
#: time, never a tree. (Shares by those measured seconds came out no more even on en_lines.)
PARSE_COSTS = {"covnonproj": 4.0, "covproj": 4.0}


def parse_cost(algorithm: str | None) -> float:
    """What a parse by a member of ``algorithm`` costs (PARSE_COSTS; 1 for any other, or None)."""
    return PARSE_COSTS.get(algorithm, 1.0) if algorithm is not None else 1.0


def shares(algorithms: Sequence[str | None], workers: int) -> list[list[int]]:
    """The members (numbers, ascending) each of a team of ``workers`` parses with, so that what
    their parses cost (PARSE_COSTS by the members' ``algorithms``; 1 for any other, or None)
    comes out about even: the first worker has member 0 (every worker reads the tags as member 0
    does, and loads it), then each member, the costliest first, goes to the worker with the least
    cost so far (Graham's longest-processing-time rule; ties to the earlier worker)."""
    costs = [parse_cost(a) for a in algorithms]
    loads = [costs[0]] + [0.0] * (workers - 1)
    held: list[list[int]] = [[0]] + [[] for _ in range(workers - 1)]
    for k in sorted(range(1, len(costs)), key=lambda k: (-costs[k], k)):
        worker = min(range(workers), key=lambda w: (loads[w], w))
        loads[worker] += costs[k]
        held[worker].append(k)
    return [sorted(h) for h in held]
