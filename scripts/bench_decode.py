#!/usr/bin/env python3
"""The spanning tree decoders' speed (maltpy.decode): words per second over a treebank's test file,
and the time for one long random sentence; the same at second order.

Each sentence of the test file gets the score matrix a blend of six parsers would give it: each
of six voters puts weight 1/6 on the gold arc of a word with probability --agreement and on a
random head otherwise, plus uniform noise below 0.01 on every arc (so that ties are rare).
The matrices are made beforehand; the time is that of ``spanning_tree`` on every sentence of the
file, in turn, as a caller does it (Python's checks included), the median of --runs runs; "of
which C" is the C call alone. Then the median time of --long-runs runs for random matrices
(uniform scores) of each of --lengths words.

Second order (``sibling_tree``), over the same file: each sentence gets random scores (arc and
sibling scores uniform), or the blend's arc scores above with sibling scores uniform below 0.01;
they are made afresh before each call (as a parser would have just computed them), which alone is
timed, and the median of --runs runs is given, with the share of words whose head the search
changes from the projective tree. Then the time a sentence of each of --sibling-lengths words
takes with random scores: the median of --runs runs over --instances sentences, divided by their
number.

    python scripts/bench_decode.py [--shared ../shared] [--treebank en_lines] [--runs 7]
                                   [--agreement 0.85] [--lengths 300 1000] [--long-runs 5]
                                   [--sibling-lengths 20 50 100 200] [--instances 20]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import numpy as np

from maltpy.data.conll import ConllReader
from maltpy.decode import _decode, sibling_tree, spanning_tree

SHARED = Path(__file__).resolve().parents[2] / "shared"
MODES = {"Chu-Liu-Edmonds": (False, False), "Chu-Liu-Edmonds, one root": (False, True),
         "Eisner": (True, False), "Eisner, one root": (True, True)}  # fmt: skip
SECOND_ORDER = {"projective": (True, False), "projective, one root": (True, True),
                "search": (False, False), "search, one root": (False, True)}  # fmt: skip


def votes(gold: list[int], agreement: float, rng: np.random.Generator) -> np.ndarray:
    """A blend's arc scores for the sentence whose gold heads are ``gold`` (see the docstring)."""
    n = len(gold) - 1
    scores = rng.random((n + 1, n + 1)) * 0.01
    words = np.arange(1, n + 1)
    for _ in range(6):
        heads = np.where(rng.random(n) < agreement, gold[1:], rng.integers(0, n + 1, n))
        scores[heads, words] += 1 / 6
    return scores


def median_seconds(runs: int, work, *args) -> float:
    """The median time of ``work(*args)``."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        work(*args)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def decode_all(matrices: list[np.ndarray], projective: bool, one_root: bool) -> None:
    for m in matrices:
        spanning_tree(m, projective, one_root)


def decode_all_in_c(matrices: list[np.ndarray], heads: list[np.ndarray], projective: bool, one_root: bool) -> None:
    for m, h in zip(matrices, heads):
        _decode.decode(m, h, projective, one_root)


def random_scores(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Uniform arc and sibling scores for a sentence of n words."""
    return rng.random((n + 1, n + 1)), rng.random((n + 1,) * 3)


def voted_scores(gold: list[int], agreement: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """The blend's arc scores of ``votes`` and sibling scores uniform below 0.01."""
    return votes(gold, agreement, rng), rng.random((len(gold),) * 3) * 0.01


def second_order(make, items: list, projective: bool, one_root: bool) -> tuple[float, int]:
    """The time ``sibling_tree`` takes over the scores ``make(item, rng)`` gives for each item,
    made (the same each time) before each call, which alone is timed; and the number of words
    whose head differs from the projective tree's."""
    rng = np.random.default_rng(2)
    seconds, changed = 0.0, 0
    for item in items:
        arcs, sibs = make(item, rng)
        start = time.perf_counter()
        heads = sibling_tree(arcs, sibs, projective, one_root)
        seconds += time.perf_counter() - start
        if not projective:
            changed += (heads != sibling_tree(arcs, sibs, True, one_root)).sum()
    return seconds, changed


def median_second_order(runs: int, make, items: list, projective: bool, one_root: bool) -> tuple[float, int]:
    """The median time of ``second_order`` over ``runs`` runs, and the words it changes."""
    timed = [second_order(make, items, projective, one_root) for _ in range(runs)]
    return statistics.median(seconds for seconds, _ in timed), timed[0][1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", type=Path, default=SHARED)
    parser.add_argument("--treebank", default="en_lines", help="a UD treebank of the shared data (its test file)")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--agreement", type=float, default=0.85)
    parser.add_argument("--lengths", type=int, nargs="*", default=[300, 1000])
    parser.add_argument("--long-runs", type=int, default=5)
    parser.add_argument("--sibling-lengths", type=int, nargs="*", default=[20, 50, 100, 200])
    parser.add_argument("--instances", type=int, default=20)
    args = parser.parse_args()
    path = next((args.shared / "data" / "ud").glob(f"*/{args.treebank}-ud-test.conllu"))
    with open(path, "rb") as f:
        golds = [s.heads for s in ConllReader(f, str(path))]
    rng = np.random.default_rng(1)
    matrices = [votes(gold, args.agreement, rng) for gold in golds]
    words = sum(len(g) - 1 for g in golds)
    print(f"{path.name}: {len(golds):,} sentences, {words:,} words (longest {max(map(len, golds)) - 1}); "
          f"medians of {args.runs} runs")  # fmt: skip
    print(f"{'':<28}{'seconds':>9}{'words/s':>12}{'of which C':>12}")
    heads = [np.empty(len(m), dtype=np.int64) for m in matrices]
    for name, mode in MODES.items():
        seconds = median_seconds(args.runs, decode_all, matrices, *mode)
        c_seconds = median_seconds(args.runs, decode_all_in_c, matrices, heads, *mode)
        print(f"{name:<28}{seconds:>9.4f}{words / seconds:>12,.0f}{c_seconds:>12.4f}")
    print(f"\nrandom matrices (uniform scores), medians of {args.long_runs} runs, seconds")
    print(f"{'words':<8}" + "".join(f"{name:>28}" for name in MODES))
    for n in args.lengths:
        scores = rng.random((n + 1, n + 1))
        row = [median_seconds(args.long_runs, spanning_tree, scores, *mode) for mode in MODES.values()]
        print(f"{n:<8}" + "".join(f"{s:>28.4f}" for s in row))
    print(f"\nsecond order, medians of {args.runs} runs: seconds, words/s, heads the search changes")
    kinds = {"random scores": (random_scores, [len(g) - 1 for g in golds]),
             "votes, sibling noise": (lambda gold, rng: voted_scores(gold, args.agreement, rng), golds)}  # fmt: skip
    print(f"{'':<24}" + "".join(f"{kind:>36}" for kind in kinds))
    for name, mode in SECOND_ORDER.items():
        row = ""
        for make, items in kinds.values():
            seconds, changed = median_second_order(args.runs, make, items, *mode)
            row += f"{seconds:>9.3f}{words / seconds:>12,.0f}{'' if mode[0] else f'{changed / words:.1%}':>15}"
        print(f"{name:<24}{row}")
    print(f"\nsecond order, random scores: ms a sentence, medians of {args.runs} runs of {args.instances}")
    print(f"{'words':<8}" + "".join(f"{name:>24}" for name in SECOND_ORDER))
    for n in args.sibling_lengths:
        lengths = [n] * args.instances
        row = [median_second_order(args.runs, random_scores, lengths, *mode)[0] for mode in SECOND_ORDER.values()]
        print(f"{n:<8}" + "".join(f"{1000 * s / args.instances:>24.3f}" for s in row))


if __name__ == "__main__":
    main()
