"""``maltpy optimize`` on the shared treebanks, beside MaltParser 1.9.2's defaults: each treebank
is optimized on its training file alone (the test file is never seen by the search), the chosen
configuration learned on the whole training file, its parse of the test file scored, and the LAS
printed beside MaltParser's default (nivreeager, LIBLINEAR) and its best default over the
algorithms and pseudo-projective encodings (../shared/reference/maltparser-1.9.2/scores.tsv), with
each phase's gain on the search's own held-out words.

    python scripts/bench_optimize.py [--shared ../shared] [--budget 60] [--jobs 2]
                                     [--treebanks en_lines la_perseus da_ddt] [--out DIR] [--resume]

The treebanks are the CoNLL-X files of scores.tsv (da_ddt learns from its dev file, as there).
With --resume, a search whose folder is in --out continues from its trial log. Each search is
bounded by --budget minutes; the table says how long each took.
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
import time
from pathlib import Path

TREEBANKS = {
    "en_lines": ("en_lines-ud-train.conllx", "en_lines-ud-test.conllx"),
    "la_perseus": ("la_perseus-ud-train.conllx", "la_perseus-ud-test.conllx"),
    "da_ddt": ("da_ddt-ud-dev.conllx", "da_ddt-ud-test.conllx"),
    "en_partut": ("en_partut-ud-train.conllx", "en_partut-ud-test.conllx"),
}


def maltpy(*args: object) -> str:
    result = subprocess.run([sys.executable, "-m", "maltpy", *map(str, args)], capture_output=True, text=True)
    if result.returncode:
        raise SystemExit(result.stderr)
    return result.stdout + result.stderr


def reference(shared: Path, treebank: str) -> tuple[float | None, tuple[float, str] | None]:
    """MaltParser's default (nivreeager) LAS and its best default (LAS, run) on the treebank."""
    default, best = None, None
    with open(shared / "reference" / "maltparser-1.9.2" / "scores.tsv", newline="") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            if not row["name"].startswith(treebank + "-") or "-l liblinear" not in row["options"]:
                continue
            las = float(row["LAS"])
            if row["options"] == "-a nivreeager -l liblinear":
                default = las
            if best is None or las > best[0]:
                best = (las, row["options"].replace(" -l liblinear", ""))
    return default, best


def phases(out: Path) -> list[tuple[str, float | None, float | None, int]]:
    """Each phase's held-out LAS before and after it and its trials, from the trial log."""
    rows = {}  # a resumed search logs its phases again: the last of each counts
    for line in (out / "trials.jsonl").read_text(encoding="utf-8").splitlines()[1:]:
        record = json.loads(line)
        if "phase_end" in record:
            rows[record["phase_end"]] = (record["phase_end"], record["start_las"], record["las"], record["trials"])
    return list(rows.values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", type=Path, default=Path(__file__).resolve().parents[2] / "shared")
    parser.add_argument("--budget", type=float, default=60)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--treebanks", nargs="*", default=["en_lines", "la_perseus", "da_ddt"])
    parser.add_argument("--out", type=Path, default=Path("bench-optimize"))
    parser.add_argument("--resume", action="store_true")
    args = parser.parse_args()
    data = args.shared / "data" / "conllx"
    rows = []
    for name in args.treebanks:
        train, test = (data / f for f in TREEBANKS[name])
        out = args.out / name
        started = time.monotonic()
        search = ["optimize", "-i", train, "-o", out, "--budget", args.budget, "--jobs", args.jobs, "-q"]
        maltpy(*search, *(["--resume"] if args.resume and (out / "trials.jsonl").exists() else []))
        minutes = (time.monotonic() - started) / 60
        model, parsed = out / "final.mpm", out / "test.parsed.conllx"
        maltpy("learn", "-c", out / "config.yaml", "-i", train, "-m", model, "-q")
        maltpy("parse", "-m", model, "-i", test, "-o", parsed, "-q")
        scores = json.loads(maltpy("eval", test, parsed, "--json"))
        las = scores["systems"][0]["LAS"] if "systems" in scores else scores["LAS"]
        default, best = reference(args.shared, name)
        algorithm = next(x for x in (out / "config.yaml").read_text().splitlines() if "parsing_algorithm" in x)
        rows.append((name, default, best, las, minutes, algorithm.split(":")[1].strip(), phases(out)))
        print(f"{name}: LAS {las:.2f} on test after {minutes:.1f} min of search", file=sys.stderr)
    print("| treebank | MaltParser default | MaltParser best default | maltpy optimize | gain over best | "
          "search | chosen |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    for name, default, best, las, minutes, algorithm, _ in rows:
        gain = f"{las - best[0]:+.2f}" if best else ""
        best_text = f"{best[0]:.2f} ({best[1]})" if best else ""
        print(f"| {name} | {default if default is not None else ''} | {best_text} | {las:.2f} | {gain} | "
              f"{minutes:.1f} min | {algorithm} |")  # fmt: skip
    print()
    print("| treebank | phase | trials | held-out LAS before | after | gain |")
    print("|---|---|---|---|---|---|")
    for name, *_, phase_rows in rows:
        for phase, before, after, n in phase_rows:
            gain = f"{after - before:+.2f}" if before is not None and after is not None else ""
            print(f"| {name} | {phase} | {n} | {before if before is not None else ''} | {after} | {gain} |")


if __name__ == "__main__":
    main()
