#!/usr/bin/env python3
"""Learn and parse treebanks with maltpy and print the figures beside MaltParser 1.9.2's.

Each run is a row of ../shared/reference/maltparser-1.9.2/scores.tsv: the same training and
test files and the same options (maltpy takes MaltParser's flags). Learning and parsing are
timed as whole processes, as the reference timed MaltParser's (its JVM start included).

    python scripts/bench.py                          # every run maltpy supports (long)
    python scripts/bench.py sv-                      # runs whose name starts with sv-
    python scripts/bench.py la_perseus-nivreeager-liblinear en_lines-stacklazy-liblinear
    python scripts/bench.py --markdown sv-           # a Markdown table

Runs whose options maltpy does not support yet (planar, 2planar) are
listed as skipped.
"""

from __future__ import annotations

import argparse
import csv
import json
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
REFERENCE = SHARED / "reference" / "maltparser-1.9.2" / "scores.tsv"
UNSUPPORTED = ("planar",)


def run(args: list[str]) -> float:
    started = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "maltpy", *args], capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"maltpy {' '.join(args)} failed: {result.stderr.strip()}")
    return time.perf_counter() - started


def tokens_in(path: Path) -> int:
    with open(path, encoding="utf-8") as f:
        return sum(1 for line in f if line.strip() and line.split("\t", 1)[0].isdigit())


def bench(row: dict, workdir: Path) -> dict:
    train, test = SHARED / "data" / row["train"], SHARED / "data" / row["test"]
    model, parsed = workdir / f"{row['name']}.mpm", workdir / f"{row['name']}.conll"
    learn_s = run(["learn", "-q", "-i", str(train), "-m", str(model), *shlex.split(row["options"])])
    parse_s = run(["parse", "-m", str(model), "-i", str(test), "-o", str(parsed)])
    scores = json.loads(
        subprocess.run(
            [sys.executable, "-m", "maltpy", "eval", "--json", str(test), str(parsed)],
            capture_output=True, text=True, check=True,
        ).stdout
    )  # fmt: skip
    n = tokens_in(test)
    return {
        "run": row["name"], "learn_s": learn_s, "malt_learn_s": float(row["learn_s"]),
        "parse_s": parse_s, "malt_parse_s": float(row["parse_s"]),
        "tok_s": n / parse_s, "malt_tok_s": n / float(row["parse_s"]),
        "LAS": scores["LAS"], "malt_LAS": float(row["LAS"]), "UAS": scores["UAS"], "malt_UAS": float(row["UAS"]),
    }  # fmt: skip


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="*", help="run names or name prefixes from scores.tsv (default: all)")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = parser.parse_args()
    rows = list(csv.DictReader(open(REFERENCE, encoding="utf-8"), delimiter="\t"))
    if args.runs:
        rows = [r for r in rows if any(r["name"] == p or r["name"].startswith(p) for p in args.runs)]
    header = ("run", "learn s", "malt", "parse s", "malt", "tokens/s", "malt", "LAS", "malt", "diff", "UAS", "malt")
    if args.markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
    else:
        print(f"{'run':<42} {'learn s':>8} {'malt':>6} {'parse s':>8} {'malt':>6} {'tokens/s':>9} {'malt':>7} "
              f"{'LAS':>6} {'malt':>6} {'diff':>6} {'UAS':>6} {'malt':>6}")  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        for row in rows:
            if any(u in row["options"] for u in UNSUPPORTED):
                print(f"{row['name']:<42} skipped: {row['options']} not supported yet", file=sys.stderr)
                continue
            r = bench(row, Path(tmp))
            cells = (
                r["run"], f"{r['learn_s']:.1f}", f"{r['malt_learn_s']:.1f}", f"{r['parse_s']:.1f}",
                f"{r['malt_parse_s']:.1f}", f"{r['tok_s']:.0f}", f"{r['malt_tok_s']:.0f}", f"{r['LAS']:.2f}",
                f"{r['malt_LAS']:.2f}", f"{r['LAS'] - r['malt_LAS']:+.2f}", f"{r['UAS']:.2f}", f"{r['malt_UAS']:.2f}",
            )  # fmt: skip
            if args.markdown:
                print("| " + " | ".join(cells) + " |", flush=True)
            else:
                print(f"{cells[0]:<42} {cells[1]:>8} {cells[2]:>6} {cells[3]:>8} {cells[4]:>6} {cells[5]:>9} "
                      f"{cells[6]:>7} {cells[7]:>6} {cells[8]:>6} {cells[9]:>6} {cells[10]:>6} {cells[11]:>6}",
                      flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
