"""What a member's parse costs, by its algorithm, and each worker's share of a blend's members in
a team of workers (``shares``; jobs.py): the costs make the shares about even."""

from __future__ import annotations

from collections.abc import Sequence

from ..transition import SYSTEMS


def parse_cost(algorithm: str | None) -> float:
    """What a parse by a member of ``algorithm`` costs against one of Nivre's systems: its
    transition system's ``parse_cost``; 1 for any other algorithm, or None. Only ``shares`` and
    the order members learn in read it: a wrong figure costs time, never a tree."""
    system = SYSTEMS.get(algorithm) if algorithm is not None else None
    return system.parse_cost if system is not None else 1.0


def shares(algorithms: Sequence[str | None], workers: int) -> list[list[int]]:
    """The members (numbers, ascending) each of a team of ``workers`` parses with, so that what
    their parses cost (``parse_cost`` of the members' ``algorithms``)
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
