#!/usr/bin/env python3
"""``maltpy knn`` beside timbl 6.5 over TiMBL's grid of options; prints a table of agreement.

Every combination of feature weighting (-w 0..4), class voting (-d Z, ID, IL, ED:a, ED:a:b),
k (1, 3, 7) and metric (-m O; -m M with -L 1 and -L 3: timbl's default -L and the paper's) is
run by timbl and by maltpy's learner on the same files, and the classes they give are compared
instance by instance. The files are of two kinds:

- crafted instance files, tests/data/knn/NAME.train and NAME.test (the tests compare part of
  the grid on them), each aimed at edge cases: ties between classes at every k, ties between
  distances and distances a rounding apart, values seen once, features with one value or
  weight 0, one class in training, features whose values each go with one class (chi-square),
  values and classes never seen in training. crafted() made them from fixed seeds
  (--make-crafted makes them again);
- real treebanks' instances: ``maltpy learn -l knn --save-instances`` on one file of a treebank
  (the training instances) and on another (the test instances, a sample of them), for the
  treebanks and parsing algorithms in TREEBANKS.

maltpy's side is ``maltpy knn``'s own code (read_columns and experiment), called in this process
to save starting one per combination, with every option given. timbl runs as ``timbl -f TRAIN
-t TEST ... -o OUT``. The training instances of a treebank are the first TRAINING of its file
(timbl takes minutes a combination on more). The script ends with status 1 if a combination
agrees on less than 99.9% of the instances: the bar of tests/test_knn.py, which runs a part of
the grid.

    python scripts/knn_grid.py                       # the whole grid, crafted files and treebanks
    python scripts/knn_grid.py --make-crafted        # write tests/data/knn again, from crafted()
    python scripts/knn_grid.py --crafted             # crafted files only (a few minutes)
    python scripts/knn_grid.py --sample 100 -j 2     # fewer test instances per treebank, 2 timbls
    python scripts/knn_grid.py --only "-w 3" --only "ED"   # combinations whose text has each
"""

from __future__ import annotations

import argparse
import itertools
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from maltpy.learners.knn import experiment
from maltpy.learners.options import parse_learner_options
from maltpy.learners.timbl_columns import read_columns

ROOT = Path(__file__).resolve().parents[1]
CONLLX = ROOT.parent / "shared" / "data" / "conllx"
CRAFTED = ROOT / "tests" / "data" / "knn"
WEIGHTINGS = ["0", "1", "2", "3", "4"]
DECAYS = ["Z", "ID", "IL", "ED:1", "ED:0.1", "ED:3", "ED:1:2", "ED:0.5:0.5", "ED:2:1.5"]
KS = ["1", "3", "7"]
METRICS = ["-m O", "-m M -L 1", "-m M -L 3"]
#: (name, algorithm, training file, test file) of the real instances, all in ../shared/data/conllx
TREEBANKS = [
    ("da_ddt", "nivreeager", "da_ddt-ud-dev.conllx", "da_ddt-ud-test.conllx"),
    ("sv_talbanken", "stackproj", "sv_talbanken-ud-dev.conllx", "sv_talbanken-ud-test.conllx"),
    ("en_lines", "covnonproj", "en_lines-ud-dev.conllx", "en_partut-ud-test.conllx"),
    ("la_perseus", "planar", "la_perseus-ud-train.conllx", "la_perseus-ud-test.conllx"),
]
TRAINING = 5000

# --- crafted instance files ---------------------------------------------------------------------

Rows = list[list[str]]


def _draw(rng: random.Random, n: int, columns: list[Callable[[random.Random], str]],
          label: Callable[[list[str], random.Random], str]) -> Rows:  # fmt: skip
    rows = []
    for _ in range(n):
        values = [column(rng) for column in columns]
        rows.append([*values, label(values, rng)])
    return rows


def _choice(values: str) -> Callable[[random.Random], str]:
    return lambda rng: rng.choice(values)


def _zipf(prefix: str, size: int) -> Callable[[random.Random], str]:
    """A value of a vocabulary of ``size`` with Zipf's frequencies: many seen once or twice."""
    weights = [1 / (r + 1) for r in range(size)]
    return lambda rng: prefix + str(rng.choices(range(size), weights)[0])


def _unknown(rows: Rows, rng: random.Random, share: float) -> Rows:
    """Some values replaced by values no training instance has, and some classes likewise."""
    out = []
    for row in rows:
        row = [("never" + str(f) if rng.random() < share else v) for f, v in enumerate(row[:-1])] + row[-1:]
        if rng.random() < share:
            row[-1] = "UNSEEN"
        out.append(row)
    return out


def crafted() -> dict[str, tuple[Rows, Rows]]:
    """The crafted (training, test) instance files, by name."""
    sets: dict[str, tuple[Rows, Rows]] = {}
    rng = random.Random(2811)
    # Ties everywhere: few values, few classes of equal frequency, many identical instances.
    cols = [_choice("ab"), _choice("abc"), _choice("ab")]
    balanced = lambda values, rng: rng.choice("XYZ")  # noqa: E731
    sets["ties"] = (_draw(rng, 48, cols, balanced), _unknown(_draw(rng, 400, cols, balanced), rng, 0.05))
    # A class that follows the features, with noise: distances tie, classes less often.
    cols = [_choice("abcd"), _choice("abcd"), _choice("ab"), _choice("abc")]
    noisy = lambda v, rng: ("P" if v[0] in "ab" else "Q") if rng.random() < 0.7 else rng.choice("PQRS")  # noqa: E731
    sets["noisy"] = (_draw(rng, 120, cols, noisy), _unknown(_draw(rng, 400, cols, noisy), rng, 0.1))
    # Values seen once or twice (MVDM falls back to Overlap below -L), skewed classes.
    cols = [_zipf("w", 60), _zipf("t", 12), _zipf("u", 30), _choice("xyz")]
    skewed = lambda v, rng: rng.choices("ABCDE", [8, 4, 2, 1, 1])[0] if rng.random() < 0.5 else "A" + v[1][-1]  # noqa: E731
    sets["hapax"] = (_draw(rng, 300, cols, skewed), _unknown(_draw(rng, 400, cols, skewed), rng, 0.05))
    # Zero weights and chi-square: a feature with one value, one independent of the class, one
    # whose values each go with one class only, one that copies it.
    def pure(v: list[str], rng: random.Random) -> str:
        return {"a": "K", "b": "K", "c": "L", "d": "M"}[v[2]]

    cols = [_choice("o"), _choice("pq"), _choice("abcd"), _choice("rs")]
    train = _draw(rng, 80, cols, pure)
    for row in train:
        row[3] = row[2] + "'"
    test = _draw(rng, 300, cols, lambda v, rng: rng.choice("KLM"))
    for row in test:
        row[3] = rng.choice([row[2], "a", "b", "c", "d"]) + "'"
    sets["purity"] = (train, _unknown(test, rng, 0.1))
    # One class in training: every information-based weight is 0, every instance at distance 0.
    cols = [_choice("abc"), _choice("de")]
    sets["oneclass"] = (_draw(rng, 30, cols, lambda v, rng: "C"), _unknown(_draw(rng, 100, cols, balanced), rng, 0.1))
    # Every feature has one value: all instances identical, the class counts decide.
    cols = [_choice("a"), _choice("b")]
    sets["constant"] = (_draw(rng, 25, cols, lambda v, rng: rng.choice("XXYYZ")), _draw(rng, 40, cols, balanced))
    # A larger mix of cardinalities and classes.
    cols = [_zipf("v", 200), _choice("abcdefgh"), _zipf("p", 20), _choice("ab"), _zipf("q", 40), _choice("xyz")]
    mixed = lambda v, rng: v[1].upper() if rng.random() < 0.4 else rng.choice("ABCDEFGH")  # noqa: E731
    sets["mixed"] = (_draw(rng, 1500, cols, mixed), _unknown(_draw(rng, 600, cols, mixed), rng, 0.05))
    # Classes of equal frequency that the features do not tell apart: every tie goes on to the
    # classes' order (their first appearance), with the second class first in a few cells.
    cells = [[a, b, c] for a in "pq" for b in "rs" for c in "YXZ"]
    train = [cell for cell in cells for _ in range(2)] + [["p", "r", "Y"], ["q", "s", "X"], ["q", "r", "Z"]]
    rng.shuffle(train)
    sets["equal"] = (train, _unknown(_draw(rng, 120, [_choice("pqt"), _choice("rsu")], balanced), rng, 0.05))
    return sets


def write(path: Path, rows: Rows) -> Path:
    path.write_text("".join(" ".join(row) + "\n" for row in rows), encoding="utf-8")
    return path


def treebank_instances(folder: Path, sample: int) -> list[tuple[str, Path, Path]]:
    """(name, training file, test file) of each of TREEBANKS' instances, the test sampled."""
    made = []
    for name, algorithm, train, test in TREEBANKS:
        parts = {}
        for part, conll in (("train", train), ("test", test)):
            out = folder / f"{name}-{part}"
            result = subprocess.run([sys.executable, "-m", "maltpy", "learn", "-q", "-a", algorithm, "-l", "knn",
                                     "-i", str(CONLLX / conll), "-m", str(out) + ".mpm", "--save-instances", str(out)],
                                    capture_output=True, text=True)  # fmt: skip
            if result.returncode:
                raise SystemExit(result.stderr)
            parts[part] = out / "main.col"
        train_path, test_path = folder / f"{name}-train.col", folder / f"{name}-test.col"
        train_path.write_text("".join(parts["train"].read_text(encoding="utf-8").splitlines(True)[:TRAINING]),
                              encoding="utf-8")  # fmt: skip
        lines = parts["test"].read_text(encoding="utf-8").splitlines()
        sampled = random.Random(name).sample(lines, min(sample, len(lines)))
        test_path.write_text("\n".join(sampled) + "\n", encoding="utf-8")
        made.append((f"{name}-{algorithm}", train_path, test_path))
    return made


# --- the comparison -------------------------------------------------------------------------------


def combinations(only: list[str]) -> list[str]:
    grid = [f"-k {k} {m} -d {d} -w {w}" for w, d, k, m in itertools.product(WEIGHTINGS, DECAYS, KS, METRICS)]
    return [c for c in grid if all(part in c for part in only)]


def timbl(train: Path, test: Path, options: str, out: Path) -> list[str]:
    flags = options.split()
    joined = [f + v for f, v in zip(flags[::2], flags[1::2])]
    result = subprocess.run(["timbl", "-f", str(train), "-t", str(test), *joined, "-o", str(out)],
                            capture_output=True, text=True)  # fmt: skip
    if result.returncode:
        raise RuntimeError(f"timbl {options} on {test}: {result.stderr.strip()[-300:]}")
    return [line.rpartition(" ")[2] for line in out.read_text(encoding="utf-8").splitlines()]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--crafted", action="store_true", help="crafted files only, no treebanks")
    parser.add_argument("--sample", type=int, default=300, help="test instances per treebank (default 300)")
    parser.add_argument("--only", action="append", default=[], help="combinations whose text has this (repeatable)")
    parser.add_argument("-j", "--jobs", type=int, default=1, help="timbl processes at once (default 1)")
    parser.add_argument("--keep", type=Path, help="keep the instance files and outputs in this folder")
    parser.add_argument("--show", type=int, default=3, help="disagreements listed per combination (default 3)")
    parser.add_argument("--make-crafted", action="store_true", help=f"write the crafted files to {CRAFTED}, and stop")
    args = parser.parse_args()
    if args.make_crafted:
        CRAFTED.mkdir(parents=True, exist_ok=True)
        for name, (train, test) in crafted().items():
            write(CRAFTED / f"{name}.train", train)
            write(CRAFTED / f"{name}.test", test)
        return 0
    if shutil.which("timbl") is None:
        print("timbl is not installed (Debian: apt-get install timbl)", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        folder.mkdir(parents=True, exist_ok=True)
        files = [(path.stem, path, path.with_suffix(".test")) for path in sorted(CRAFTED.glob("*.train"))]
        if not args.crafted:
            files += treebank_instances(folder, args.sample)
        data = {name: (read_columns(str(train)), train, test) for name, train, test in files}
        tests = {name: read_columns(str(test), len(rows[0])) for name, (rows, _, test) in data.items()}
        total = sum(len(t) for t in tests.values())
        print(f"maltpy knn beside timbl 6.5: {len(files)} pairs of files ({', '.join(data)}), {total} test "
              f"instances per combination")  # fmt: skip
        print(f"{'combination':<32} {'instances':>9} {'agree':>7} {'agreement':>10}  disagreements (file:line)")
        worst, below, started = 1.0, 0, time.perf_counter()
        pool = ThreadPoolExecutor(max(1, args.jobs))
        for options in combinations(args.only):
            knn_options = parse_learner_options(options, "knn")
            outs = {name: folder / f"{name}.{options.replace(' ', '')}.out" for name in data}
            theirs = {name: pool.submit(timbl, train, test, options, outs[name])
                      for name, (_, train, test) in data.items()}  # fmt: skip
            agree, missed = 0, []
            for name, (rows, _, _) in data.items():
                ours = experiment(rows, tests[name], knn_options)
                for line, (a, b) in enumerate(zip(ours, theirs[name].result()), 1):
                    agree += a == b
                    if a != b:
                        missed.append(f"{name}:{line}")
            share = agree / total
            worst, below = min(worst, share), below + (share < 0.999)
            print(f"{options:<32} {total:>9} {agree:>7} {100 * share:>9.2f}%  {' '.join(missed[: args.show])}",
                  flush=True)  # fmt: skip
        pool.shutdown()
        print(f"lowest agreement {100 * worst:.2f}%; {below} combinations below 99.9%; "
              f"{time.perf_counter() - started:.0f}s")  # fmt: skip
    return 1 if below else 0


if __name__ == "__main__":
    sys.exit(main())
