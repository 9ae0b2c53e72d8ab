#!/usr/bin/env python3
"""Graph-based parsing (-a mst) side by side with MSTParser 0.5: LAS, UAS, whole-process time and
peak memory of learning and of parsing, and whether the two parsers' trees are the same.

Each run learns from a treebank and parses its test file, as issue 32 sets them (la_perseus and
en_lines train -> test, da_ddt dev -> test; and, named, sv_talbanken dev -> test and en_partut
train -> test, outside ../shared/reference), for order 1 and 2 and projective and non-projective
decoding. maltpy runs alone, unless --mst-classpath names MSTParser 0.5's classes and Trove's jar
(built by the user from its Java sources, outside this repository): then each command runs as
maltpy, MSTParser, maltpy, MSTParser ... (--repeat times each) and the table gives medians of
both. MSTParser writes numbers as <num> and CPOSTAG in both tag columns, so its output is scored
with the test file's own columns 1-6 and MSTParser's HEAD and DEPREL.

    python scripts/bench_mst.py la_perseus                      # maltpy alone, order 1 and 2
    python scripts/bench_mst.py --mst-classpath /opt/mst/mstparser.jar:/opt/mst/trove.jar --repeat 3
    python scripts/bench_mst.py en_lines --order 1 --decode proj --markdown
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "conllx"
TREEBANKS = {
    "la_perseus": ("la_perseus-ud-train.conllx", "la_perseus-ud-test.conllx"),
    "en_lines": ("en_lines-ud-train.conllx", "en_lines-ud-test.conllx"),
    "da_ddt": ("da_ddt-ud-dev.conllx", "da_ddt-ud-test.conllx"),
}
#: Treebanks outside ../shared/reference, run when named
UNSEEN = {
    "sv_talbanken": ("sv_talbanken-ud-dev.conllx", "sv_talbanken-ud-test.conllx"),
    "en_partut": ("en_partut-ud-train.conllx", "en_partut-ud-test.conllx"),
}


def timed(command: list[str], cwd: str | None = None) -> tuple[float, float]:
    """Run ``command``; its wall time in seconds and peak memory in MB (its own, by wait4)."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=cwd)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{' '.join(command)} failed: {process.stderr.read().decode(errors='replace')[-2000:]}")
    process.stderr.close()
    return seconds, usage.ru_maxrss / 1024


def arcs(path: Path) -> list[tuple[str, str]]:
    with open(path, encoding="utf-8") as f:
        return [tuple(line.rstrip("\n").split("\t")[6:8]) for line in f if line.strip()]


def restored(test: Path, mst_output: Path, out: Path) -> Path:
    """The test file with MSTParser's HEAD and DEPREL (its other columns are rewritten)."""
    with (
        open(test, encoding="utf-8") as t,
        open(mst_output, encoding="utf-8") as m,
        open(out, "w", encoding="utf-8") as o,
    ):
        for line, parsed in itertools.zip_longest(t, m):
            if line is None or parsed is None or bool(line.strip()) != bool(parsed.strip()):
                raise RuntimeError(f"{mst_output} does not line up with {test}")
            if line.strip():
                cols, theirs = line.rstrip("\n").split("\t"), parsed.rstrip("\n").split("\t")
                line = "\t".join(cols[:6] + theirs[6:8] + ["_", "_"]) + "\n"
            o.write(line)
    return out


def scores(gold: Path, system: Path) -> tuple[float, float]:
    sys.path.insert(0, str(ROOT))
    from maltpy.evaluation.scores import attachment_scores
    from maltpy.files import read_conll

    with read_conll(str(gold), "auto") as g, read_conll(str(system), "auto") as s:
        result = attachment_scores(g, s, str(gold), str(system))
    return result.las, result.uas


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("treebanks", nargs="*",
                        help=f"of {', '.join(TREEBANKS | UNSEEN)} (default: {', '.join(TREEBANKS)})")  # fmt: skip
    parser.add_argument("--order", type=int, choices=(1, 2), action="append")
    parser.add_argument("--decode", choices=("proj", "non-proj"), action="append")
    parser.add_argument("--mst-classpath", help="MSTParser 0.5's classes and Trove's jar, to run side by side")
    parser.add_argument("--java-options", default="-Xmx8g", help="for MSTParser's JVM (default: -Xmx8g)")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each command (medians are printed)")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = parser.parse_args()
    unknown = [t for t in args.treebanks if t not in TREEBANKS | UNSEEN]
    if unknown:
        parser.error(f"unknown treebank {unknown[0]}: one of {', '.join(TREEBANKS | UNSEEN)}")
    work = Path(tempfile.mkdtemp(prefix="bench_mst."))
    maltpy = [sys.executable, "-m", "maltpy"]
    rows = []
    for name, order, decode in itertools.product(
        args.treebanks or list(TREEBANKS), args.order or (1, 2), args.decode or ("proj", "non-proj")
    ):
        train, test = (DATA / f for f in (TREEBANKS | UNSEEN)[name])
        cell = work / f"{name}.o{order}.{decode}"
        runs: dict[str, list[tuple[float, float]]] = {}
        commands = {
            "maltpy learn": maltpy
            + ["learn", "-q", "-i", str(train), "-m", f"{cell}.mpm", "-a", "mst", "-mo", str(order), "-mdt", decode],
            "maltpy parse": maltpy
            + ["parse", "-q", "-m", f"{cell}.mpm", "-i", str(test), "-o", f"{cell}.maltpy.conllx"],
        }
        if args.mst_classpath:
            java = [
                "java",
                *args.java_options.split(),
                f"-Djava.io.tmpdir={work}",
                "-cp",
                args.mst_classpath,
                "mstparser.DependencyParser",
            ]
            options = [f"order:{order}", f"decode-type:{decode}", "format:CONLL"]
            commands["MSTParser learn"] = java + ["train", f"train-file:{train}", f"model-name:{cell}.model", *options]
            commands["MSTParser parse"] = java + [
                "test",
                f"test-file:{test}",
                f"model-name:{cell}.model",
                f"output-file:{cell}.mst.raw",
                *options,
            ]
        for _ in range(args.repeat):
            for step in ("learn", "parse"):  # maltpy, MSTParser, maltpy, MSTParser ...
                for who in ("maltpy", "MSTParser"):
                    if f"{who} {step}" in commands:
                        runs.setdefault(f"{who} {step}", []).append(timed(commands[f"{who} {step}"]))
        median = {k: (statistics.median(s for s, _ in v), statistics.median(m for _, m in v)) for k, v in runs.items()}
        row = {
            "treebank": name,
            "order": order,
            "decode": decode,
            **median,
            "maltpy": scores(test, Path(f"{cell}.maltpy.conllx")),
        }
        if args.mst_classpath:
            mst_out = restored(test, Path(f"{cell}.mst.raw"), Path(f"{cell}.mst.conllx"))
            row["MSTParser"] = scores(test, mst_out)
            row["same"] = sum(a == b for a, b in zip(arcs(Path(f"{cell}.maltpy.conllx")), arcs(mst_out)))
            row["words"] = len(arcs(mst_out))
        rows.append(row)
        print_rows(rows[-1:], args.markdown, header=len(rows) == 1, side=bool(args.mst_classpath))
        sys.stdout.flush()


def print_rows(rows: list[dict], markdown: bool, header: bool, side: bool) -> None:
    columns = ["treebank", "order", "decode", "LAS maltpy", "UAS maltpy", "learn s", "learn MB", "parse s", "parse MB"]
    if side:
        columns += ["LAS MST", "UAS MST", "learn s MST", "learn MB MST", "parse s MST", "parse MB MST", "same arcs"]
    lines = []
    for r in rows:
        values = [
            r["treebank"],
            r["order"],
            r["decode"],
            f"{r['maltpy'][0]:.2f}",
            f"{r['maltpy'][1]:.2f}",
            f"{r['maltpy learn'][0]:.1f}",
            f"{r['maltpy learn'][1]:.0f}",
            f"{r['maltpy parse'][0]:.1f}",
            f"{r['maltpy parse'][1]:.0f}",
        ]
        if side:
            values += [
                f"{r['MSTParser'][0]:.2f}",
                f"{r['MSTParser'][1]:.2f}",
                f"{r['MSTParser learn'][0]:.1f}",
                f"{r['MSTParser learn'][1]:.0f}",
                f"{r['MSTParser parse'][0]:.1f}",
                f"{r['MSTParser parse'][1]:.0f}",
                f"{r['same']}/{r['words']}",
            ]
        lines.append(values)
    if markdown:
        if header:
            print("| " + " | ".join(columns) + " |")
            print("|" + "---|" * len(columns))
        for values in lines:
            print("| " + " | ".join(str(v) for v in values) + " |")
    else:
        if header:
            print("  ".join(f"{c:>12}" for c in columns))
        for values in lines:
            print("  ".join(f"{v!s:>12}" for v in values))


if __name__ == "__main__":
    main()
