"""Peak memory and time of ``maltpy eval --html`` and ``maltpy view`` on a large input: every
shared UD treebank (CoNLL-U) in one gold file, 12,911 sentences, and a system file made from it
(every fifth word on the root, every third relabelled ``dep``). Each command runs --runs times; the
median of its peak resident memory (the maltpy process alone, Linux's ru_maxrss) and of its
seconds is printed, with the size of what it writes.

    python scripts/bench_drawing_memory.py [--shared ../shared] [--runs 3] [--only NAME ...]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path


def system_of(gold: str) -> str:
    """The gold text with every fifth word on the root and every third relabelled ``dep`` (a
    tree still: a word moved to the root cannot close a cycle)."""
    out = []
    for line in gold.split("\n"):
        fields = line.split("\t")
        if len(fields) == 10 and fields[0].isdigit():
            if int(fields[0]) % 5 == 0:
                fields[6] = "0"
            if int(fields[0]) % 3 == 0:
                fields[7] = "dep"
            line = "\t".join(fields)
        out.append(line)
    return "\n".join(out)


def measured(args: list[str], stdin: Path | None) -> tuple[int, float, int]:
    """Peak kB, seconds, and bytes written to stdout of one run of ``maltpy ARGS`` in a fresh
    process (run from a wrapper, so that RUSAGE_CHILDREN sees this one child only)."""
    wrapper = (
        "import resource, subprocess, sys, time; t = time.perf_counter();"
        "r = subprocess.run(sys.argv[2:], stdin=open(sys.argv[1], 'rb') if sys.argv[1] else None,"
        " stdout=subprocess.PIPE, stderr=subprocess.PIPE);"
        "sys.stderr.buffer.write(r.stderr); assert r.returncode == 0, r.returncode;"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, time.perf_counter() - t, len(r.stdout))"
    )
    result = subprocess.run([sys.executable, "-c", wrapper, str(stdin or ""), sys.executable, "-m", "maltpy", *args],
                            capture_output=True, text=True)  # fmt: skip
    if result.returncode:
        raise SystemExit(result.stderr)
    peak, seconds, written = result.stdout.split()
    return int(peak), float(seconds), int(written)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", type=Path, default=Path(__file__).resolve().parents[2] / "shared")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--only", nargs="*", help="run only the commands of these names")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        gold, system = tmp / "gold.conllu", tmp / "system.conllu"
        text = "".join(p.read_text("utf-8") for p in sorted((args.shared / "data" / "ud").glob("*/*.conllu")))
        gold.write_text(text, "utf-8")
        system.write_text(system_of(text), "utf-8")
        sentences = text.count("\n\n")
        out_html, out_svg = tmp / "out.html", tmp / "out.svg"
        commands = {
            "eval --html --show 10": (["eval", gold, system, "--html", out_html, "--show", "10"], None, out_html),
            "eval --html --show 10, system on stdin": (
                ["eval", gold, "-", "--html", out_html, "--show", "10"], system, out_html),
            "eval --html --show 2000": (["eval", gold, system, "--html", out_html, "--show", "2000"], None, out_html),
            "eval --html --show 10000": (["eval", gold, system, "--html", out_html, "--show", "10000"], None, out_html),
            "view --gold --sentence 12000 -o .svg": (
                ["view", "-i", system, "--gold", gold, "--sentence", "12000", "-o", out_svg], None, out_svg),
            f"view --gold --first {sentences} -o .html": (
                ["view", "-i", system, "--gold", gold, "--first", sentences, "-o", out_html], None, out_html),
            f"view --first {sentences} -o .svg": (["view", "-i", system, "--first", sentences, "-o", out_svg], None,
                                                  out_svg),  # fmt: skip
            f"view --first {sentences}, input on stdin, SVG on stdout": (
                ["view", "--first", sentences], system, None),
        }  # fmt: skip
        print(f"{sentences} sentences; median of {args.runs} runs")
        print(f"{'command':<52} {'peak MB':>8} {'seconds':>8} {'output MB':>10}")
        for name, (command, stdin, output) in commands.items():
            if args.only and name.split()[0] not in args.only and name not in args.only:
                continue
            runs = [measured([str(a) for a in command], stdin) for _ in range(args.runs)]
            written = os.path.getsize(output) if output else runs[0][2]
            peak = statistics.median(r[0] for r in runs) / 1024
            seconds = statistics.median(r[1] for r in runs)
            print(f"{name:<52} {peak:>8.0f} {seconds:>8.1f} {written / 2**20:>10.1f}", flush=True)


if __name__ == "__main__":
    main()
