#!/usr/bin/env python3
"""Blended parsing against its members and against MaltParser 1.9.2's reference rows.

For each treebank (train -> test as ../shared/reference/maltparser-1.9.2/scores.tsv has it):
``maltpy blend`` with the default six members (learning time), the LAS of each member alone and
of the blend on the test file (punctuation scored; also of blends with the other --weights), the
best reference row's LAS, and the
whole-process seconds and peak memory of ``maltpy parse`` with the blend (--jobs 1 and 2) and
with a single default model (``maltpy learn`` with no options), alternating, medians of
--repeat runs.

    python scripts/bench_blend.py                       # la_perseus, en_lines, da_ddt
    python scripts/bench_blend.py --treebank en_lines --repeat 5
    python scripts/bench_blend.py --train a.conllu --test b.conllu   # any other treebank
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
CONLLX = SHARED / "data" / "conllx"
SCORES = SHARED / "reference" / "maltparser-1.9.2" / "scores.tsv"
TREEBANKS = {
    "la_perseus": ("la_perseus-ud-train.conllx", "la_perseus-ud-test.conllx"),
    "en_lines": ("en_lines-ud-train.conllx", "en_lines-ud-test.conllx"),
    "da_ddt": ("da_ddt-ud-dev.conllx", "da_ddt-ud-test.conllx"),
}
MALTPY = [sys.executable, "-m", "maltpy"]


def run(args: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(MALTPY + args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    return time.perf_counter() - started


def measured(args: list[str]) -> tuple[float, float]:
    """Whole-process seconds and peak memory (MB) of ``maltpy ARGS``."""
    started = time.perf_counter()
    process = subprocess.Popen(MALTPY + args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    if status:
        raise RuntimeError(f"maltpy {' '.join(args)} failed: {process.stderr.read().decode()[-500:]}")
    return time.perf_counter() - started, usage.ru_maxrss / 1024


def las(gold: Path, parsed: Path) -> float:
    from maltpy.evaluation.scores import attachment_scores
    from maltpy.files import read_conll

    with read_conll(str(gold)) as g, read_conll(str(parsed)) as s:
        return attachment_scores(g, s, str(gold), str(parsed)).las


def reference_best(train: Path) -> tuple[str, float] | None:
    """The best LAS of MaltParser 1.9.2's reference rows learned from ``train``."""
    if not SCORES.exists():
        return None
    with open(SCORES, newline="") as f:
        rows = [r for r in csv.DictReader(f, delimiter="\t") if r["train"].endswith(train.name)]
    return max(((r["name"], float(r["LAS"])) for r in rows), key=lambda x: x[1], default=None)


def member_scores(blend: Path, test: Path, work: Path) -> tuple[list[float], list[str]]:
    """The LAS of each member of ``blend`` alone on ``test``, and the members' flags."""
    from maltpy.load import load

    model = load(str(blend))
    scores = []
    for k, member in enumerate(model.members):
        out = work / f"member{k}.conll"
        member.parse_file(test, out)
        scores.append(las(test, out))
    return scores, model.statistics.get("members")


def bench(name: str, train: Path, test: Path, repeat: int, work: Path, weightings: list[str]) -> dict:
    blend, single = work / f"{name}-blend.mpm", work / f"{name}-single.mpm"
    learn_blend = run(["blend", "-q", "-i", str(train), "-m", str(blend), "--weights", weightings[0]])
    others = {}
    for weighting in weightings[1:]:
        other = work / f"{name}-{weighting}.mpm"
        run(["blend", "-q", "-i", str(train), "-m", str(other), "--weights", weighting])
        out = work / f"{name}-{weighting}.conll"
        run(["parse", "-q", "-m", str(other), "-i", str(test), "-o", str(out)])
        others[weighting] = las(test, out)
    learn_single = run(["learn", "-q", "-i", str(train), "-m", str(single)])
    # each member alone, in a process of its own: this one stays small, as the peak memory of the
    # commands it starts counts its own from before they replace it
    found = subprocess.run([sys.executable, __file__, "--members-of", str(blend), str(test), str(work)], check=True,
                           capture_output=True, text=True).stdout  # fmt: skip
    members, members_text = json.loads(found)
    out = work / f"{name}-blend.conll"
    commands = {
        "single": ["parse", "-q", "-m", str(single), "-i", str(test), "-o", str(work / "single.conll")],
        "blend": ["parse", "-q", "-m", str(blend), "-i", str(test), "-o", str(out)],
        "blend -j2": ["parse", "-q", "-m", str(blend), "-i", str(test), "-o", str(work / "j2.conll"), "--jobs", "2"],
    }
    times: dict[str, list[tuple[float, float]]] = {key: [] for key in commands}
    for _ in range(repeat):
        for key, args in commands.items():
            times[key].append(measured(args))
    if (work / "j2.conll").read_bytes() != out.read_bytes():
        raise RuntimeError("--jobs 2 wrote other bytes than --jobs 1")
    tokens = sum(1 for line in open(test, encoding="utf-8") if line[:1].isdigit())
    return {
        "name": name, "members": members, "blend_las": las(test, out), "single_las": las(test, work / "single.conll"),
        "reference": reference_best(train), "learn_blend": learn_blend, "learn_single": learn_single,
        "tokens": tokens, "members_text": members_text, "others": others,
        **{key: (statistics.median(s for s, _ in t), statistics.median(m for _, m in t)) for key, t in times.items()},
    }  # fmt: skip


def main() -> None:
    if sys.argv[1:2] == ["--members-of"]:
        blend, test, work = map(Path, sys.argv[2:5])
        print(json.dumps(member_scores(blend, test, work)))
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--treebank", action="append", choices=sorted(TREEBANKS), help="(default: all three)")
    parser.add_argument("--train", type=Path, help="another treebank's training file (with --test)")
    parser.add_argument("--test", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--weights",
        default="learned,pos,model",
        help="the blends' weightings, comma-separated; the first is timed (default: %(default)s)",
    )
    args = parser.parse_args()
    runs = []
    if args.train:
        runs.append((args.train.stem, args.train, args.test))
    else:
        for name in args.treebank or list(TREEBANKS):
            train, test = TREEBANKS[name]
            runs.append((name, CONLLX / train, CONLLX / test))
    with tempfile.TemporaryDirectory() as work:
        weightings = args.weights.split(",")
        results = [bench(name, train, test, args.repeat, Path(work), weightings) for name, train, test in runs]
    print("LAS on the test file (punctuation scored)")
    others = "".join(f" {w:>7}" for w in weightings[1:])
    print(f"{'treebank':<12} {'members':<42} {'best':>6} {'blend':>6} {'gain':>6}{others}  MaltParser 1.9.2's best row")
    for r in results:
        best = max(r["members"])
        ref = f"{r['reference'][1]:.2f} ({r['reference'][0]})" if r["reference"] else "-"
        members = " ".join(f"{x:.2f}" for x in r["members"])
        more = "".join(f" {r['others'][w]:7.2f}" for w in weightings[1:])
        print(
            f"{r['name']:<12} {members:<42} {best:6.2f} {r['blend_las']:6.2f} {r['blend_las'] - best:+6.2f}{more}  "
            f"{ref}"
        )
    if results:
        gains = [r["blend_las"] - max(r["members"]) for r in results]
        print(f"mean gain over the best member: {statistics.mean(gains):+.2f}")
    print()
    print(f"whole process, medians of {args.repeat} runs alternating; learning: one run")
    print(f"{'treebank':<12} {'learn single':>12} {'learn blend':>12} {'parse single':>18} {'parse blend':>18} "
          f"{'blend -j2':>18} {'ratio':>6} {'blend tok/s':>11}")  # fmt: skip
    for r in results:
        single, blend, j2 = r["single"], r["blend"], r["blend -j2"]
        print(f"{r['name']:<12} {r['learn_single']:11.1f}s {r['learn_blend']:11.1f}s "
              f"{single[0]:7.2f}s {single[1]:6.0f} MB {blend[0]:7.2f}s {blend[1]:6.0f} MB "
              f"{j2[0]:7.2f}s {j2[1]:6.0f} MB {blend[0] / single[0]:6.2f} {r['tokens'] / blend[0]:11.0f}")  # fmt: skip


if __name__ == "__main__":
    main()
