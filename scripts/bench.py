#!/usr/bin/env python3
"""Learn and parse treebanks with maltpy and print the figures beside MaltParser 1.9.2's.

Each run is a row of ../shared/reference/maltparser-1.9.2/scores.tsv: the same training and
test files and the same options (maltpy takes MaltParser's flags). Learning and parsing are
timed as whole processes, as the reference timed MaltParser's (its JVM start included).

    python scripts/bench.py                          # every run maltpy supports (long)
    python scripts/bench.py sv-                      # runs whose name starts with sv-
    python scripts/bench.py la_perseus-nivreeager-liblinear en_lines-stacklazy-liblinear
    python scripts/bench.py --markdown sv-           # a Markdown table
    python scripts/bench.py --check sv-              # and exit 1 unless each parse is MaltParser's

--check compares each parse with MaltParser's own output for the run (outputs/ beside scores.tsv)
byte for byte, and its LAS with the reference's: the comparisons of tests/test_maltparser_parity.py, for the
runs the suite leaves out because they take long (the README's development notes name them).

Corpus scale (issue 10): whole-process seconds, tokens/s and peak memory, medians of --repeat
runs, of parsing a million tokens (en_lines test x 50) and la_perseus with LIBSVM, with --jobs 1
and 2, and of learning; MaltParser's figures beside them are the issue's, measured on this
machine kind, unless --malt-jar names a MaltParser 1.9.2 jar to run side by side, alternating.
--load runs one CPU-bound process beside every run.

    python scripts/bench.py --corpus                 # about 10 minutes
    python scripts/bench.py --corpus --load --repeat 3
    python scripts/bench.py --corpus --malt-jar ~/maltparser-1.9.2/maltparser-1.9.2.jar
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
REFERENCE = SHARED / "reference" / "maltparser-1.9.2" / "scores.tsv"
OUTPUTS = REFERENCE.parent / "outputs"  # MaltParser's parse of each run's test file, gzipped


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
        "as_malt": parsed.read_bytes() == gzip.open(OUTPUTS / f"{row['name']}.conll.gz").read(),
    }  # fmt: skip


# --- corpus scale ---------------------------------------------------------------------------------

#: MaltParser 1.9.2's whole-process seconds for the corpus runs, as issue 10 measured them
#: (same machine kind, quiet): used when no --malt-jar is given.
MALT_SECONDS = {"parse en_lines x50": 28.8, "parse la_perseus": 79.8, "learn la_perseus": 52.4,
                "learn en_lines": 10.7}  # fmt: skip


def measured(command: list[str]) -> tuple[float, float]:
    """Run a command; its whole-process seconds and its peak memory in MB (the largest of its
    processes, from wait4's resource usage)."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    if status != 0:
        raise RuntimeError(f"{' '.join(command)} failed: {process.stderr.read().decode()[-500:]}")
    return seconds, usage.ru_maxrss / 1024


def corpus(args, workdir: Path) -> None:
    data = SHARED / "data" / "conllx"
    big = workdir / "en_lines_x50.conllx"
    with open(big, "wb") as out:
        text = (data / "en_lines-ud-test.conllx").read_bytes()
        for _ in range(50):
            out.write(text)
    maltpy = [sys.executable, "-m", "maltpy"]
    en_model, la_model = workdir / "en.mpm", workdir / "la.mpm"
    learn_en = [*maltpy, "learn", "-q", "-a", "nivreeager", "-l", "liblinear", "-i",
                str(data / "en_lines-ud-train.conllx"), "-m", str(en_model)]  # fmt: skip
    learn_la = [*maltpy, "learn", "-q", "-a", "nivreeager", "-l", "libsvm", "-i",
                str(data / "la_perseus-ud-train.conllx"), "-m", str(la_model)]  # fmt: skip
    runs = [("learn en_lines", learn_en, None), ("learn la_perseus", learn_la, None)]
    for jobs in (1, 2):
        runs.append((f"parse en_lines x50, --jobs {jobs}", [*maltpy, "parse", "--jobs", str(jobs), "-m", str(en_model),
                     "-i", str(big), "-o", str(workdir / f"en{jobs}.conll")], tokens_in(big)))  # fmt: skip
        runs.append((f"parse la_perseus, --jobs {jobs}", [*maltpy, "parse", "--jobs", str(jobs), "-m", str(la_model),
                     "-i", str(data / "la_perseus-ud-test.conllx"), "-o", str(workdir / f"la{jobs}.conll")],
                     tokens_in(data / "la_perseus-ud-test.conllx")))  # fmt: skip
    malt = {}
    if args.malt_jar:
        java = ["java", "-jar", args.malt_jar, "-w", str(workdir)]
        malt = {
            "learn en_lines": [*java, "-c", "en", "-m", "learn", "-a", "nivreeager", "-l", "liblinear",
                               "-i", str(data / "en_lines-ud-train.conllx")],
            "learn la_perseus": [*java, "-c", "la", "-m", "learn", "-a", "nivreeager", "-l", "libsvm",
                                 "-i", str(data / "la_perseus-ud-train.conllx")],
            "parse en_lines x50": [*java, "-c", "en", "-m", "parse", "-i", str(big), "-o", str(workdir / "m.conll")],
            "parse la_perseus": [*java, "-c", "la", "-m", "parse", "-i", str(data / "la_perseus-ud-test.conllx"),
                                 "-o", str(workdir / "m.conll")],
        }  # fmt: skip
    hog = None
    if args.load:  # one CPU-bound process beside every run
        hog = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        print(f"{'run':<34} {'seconds':>8} {'tokens/s':>9} {'peak MB':>8} {'malt s':>7} {'ratio':>6}"
              + ("   (under load)" if args.load else ""))  # fmt: skip
        for name, command, tokens in runs:
            key = name.split(",")[0]
            ours, theirs, peaks = [], [], []
            for _ in range(args.repeat):  # alternating, when MaltParser runs too
                seconds, peak = measured(command)
                ours.append(seconds)
                peaks.append(peak)
                if key in malt:
                    theirs.append(measured(malt[key])[0])
            s = statistics.median(ours)
            m = statistics.median(theirs) if theirs else MALT_SECONDS[key]
            rate = f"{tokens / s:.0f}" if tokens else ""
            print(f"{name:<34} {s:>8.2f} {rate:>9} {max(peaks):>8.0f} {m:>7.1f} {m / s:>5.1f}x", flush=True)
    finally:
        if hog is not None:
            hog.kill()
    same = (workdir / "en1.conll").read_bytes() == (workdir / "en2.conll").read_bytes()
    same &= (workdir / "la1.conll").read_bytes() == (workdir / "la2.conll").read_bytes()
    print(f"--jobs 1 and --jobs 2 outputs byte-identical: {same}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="*", help="run names or name prefixes from scores.tsv (default: all)")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    parser.add_argument("--check", action="store_true",
                        help="exit 1 unless every parse is MaltParser's output byte for byte, at its LAS")  # fmt: skip
    parser.add_argument("--corpus", action="store_true", help="the corpus-scale runs instead")
    parser.add_argument("--repeat", type=int, default=5, help="corpus runs: runs per row (the median is shown)")
    parser.add_argument("--load", action="store_true", help="corpus runs: one CPU-bound process beside each")
    parser.add_argument("--malt-jar", help="corpus runs: a MaltParser 1.9.2 jar to run side by side")
    args = parser.parse_args()
    if args.corpus:
        with tempfile.TemporaryDirectory() as tmp:
            corpus(args, Path(tmp))
        return 0
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
    differing = []
    with tempfile.TemporaryDirectory() as tmp:
        for row in rows:
            r = bench(row, Path(tmp))
            if not r["as_malt"] or r["LAS"] != r["malt_LAS"]:
                what = "LAS" if r["as_malt"] else "parse is not MaltParser's output byte for byte; LAS"
                differing.append(f"{r['run']}: the {what} {r['LAS']:.2f}, MaltParser's {r['malt_LAS']:.2f}")
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
    if args.check:
        for difference in differing:
            print(f"bench.py: {difference}", file=sys.stderr)
        print(f"{len(rows) - len(differing)} of {len(rows)} parses are MaltParser's byte for byte", file=sys.stderr)
        return 1 if differing or not rows else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
