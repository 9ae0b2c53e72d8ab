#!/usr/bin/env python3
"""Parse with MaltParser's own model files (.mco): maltpy with the .mco as it is, maltpy with the
model converted to its archive (convert-model), and MaltParser itself with the same .mco.

For each model: the seconds maltpy takes to load the .mco and the converted archive, and to
parse the test file once loaded (in this process, medians of --repeat), and the whole-process
seconds and peak memory of each parse of the test file (medians of --repeat runs, the three
commands alternating), with a check that the three parses are the same bytes. Without
--malt-jar, MaltParser's column is left empty.

    python scripts/bench_mco.py                                     # the largest reference models
    python scripts/bench_mco.py --malt-jar ~/maltparser-1.9.2/maltparser-1.9.2.jar --repeat 5
    python scripts/bench_mco.py --model big.mco:../shared/data/conllx/en_lines-ud-test.conllx

A model of MaltParser's own is named ``PATH:TEST``; MaltParser finds a model only under the name
it was learned as (the folder inside the .mco), so each is copied to that name for its run.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MCO = ROOT.parent / "shared" / "reference" / "maltparser-mco"
#: The largest reference models of each kind: 1.5's flat LIBLINEAR weights, 1.9.2's rows, LIBSVM with a data split.
DEFAULT = ("da_ddt-nivreeager-pp_head_path-liblinear-malt1.5.2.mco", "da_ddt-covnonproj-liblinear-malt1.9.2.mco",
           "da_ddt-nivreeager-libsvm-split-malt1.9.2.mco")  # fmt: skip


def measured(command: list[str], cwd: Path | None = None) -> tuple[float, float]:
    """A command's whole-process seconds and peak memory in MB (wait4's resource usage)."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=cwd)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    if status != 0:
        raise RuntimeError(f"{' '.join(command)} failed: {process.stderr.read().decode()[-500:]}")
    return seconds, usage.ru_maxrss / 1024


def in_process(path: Path, test: Path, repeat: int, out: Path) -> tuple[float, float]:
    """The median seconds of loading the model in this process, and of parsing ``test`` with it
    once loaded (the parse alone)."""
    from maltpy.load import load

    loads, parses = [], []
    for _ in range(repeat):
        started = time.perf_counter()
        model = load(str(path))
        loaded = time.perf_counter()
        model.parse_file(test, out)
        loads.append(loaded - started)
        parses.append(time.perf_counter() - loaded)
    return statistics.median(loads), statistics.median(parses)


def bench(mco: Path, test: Path, args, workdir: Path) -> None:
    with zipfile.ZipFile(mco) as z:
        name = z.namelist()[0].split("/", 1)[0]
    folder = workdir / name
    folder.mkdir()
    shutil.copy(mco, folder / f"{name}.mco")
    maltpy = [sys.executable, "-m", "maltpy"]
    converted = folder / f"{name}.mpm"
    subprocess.run([*maltpy, "convert-model", str(mco), "-o", str(converted)], check=True)
    outputs = {"mco": folder / "mco.conll", "mpm": folder / "mpm.conll", "malt": folder / "malt.conll"}
    commands = {
        "mco": [*maltpy, "parse", "-m", str(mco), "-i", str(test), "-o", str(outputs["mco"])],
        "mpm": [*maltpy, "parse", "-m", str(converted), "-i", str(test), "-o", str(outputs["mpm"])],
    }
    if args.malt_jar:
        commands["malt"] = ["java", "-jar", args.malt_jar, "-c", name, "-w", str(folder), "-m", "parse",
                            "-i", str(test), "-o", str(outputs["malt"])]  # fmt: skip
    times: dict[str, list[float]] = {key: [] for key in commands}
    peaks: dict[str, list[float]] = {key: [] for key in commands}
    for _ in range(args.repeat):  # alternating
        for key, command in commands.items():
            seconds, peak = measured(command, cwd=folder)
            times[key].append(seconds)
            peaks[key].append(peak)
    same = len({outputs[key].read_bytes() for key in commands}) == 1
    size = sum(i.file_size for i in zipfile.ZipFile(mco).infolist()) / 1e6
    row = [f"{mco.name[:40]:<40}", f"{size:>5.1f}"]
    for path in (mco, converted):  # alternating within in_process's repeats would mix caches; each in turn
        load, parse = in_process(path, test, args.repeat, folder / "in_process.conll")
        row.append(f"{load:>6.2f} {parse:>7.2f}")
    for key in ("mco", "mpm", "malt"):
        if key in times:
            row.append(f"{statistics.median(times[key]):>7.2f} {max(peaks[key]):>6.0f}")
        else:
            row.append(f"{'':>7} {'':>6}")
    print("  ".join(row) + f"  {'yes' if same else 'NO'}", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", action="append", default=[], metavar="MCO:TEST",
                        help="a MaltParser model and the file to parse with it (default: the largest references)")
    parser.add_argument("--malt-jar", help="a MaltParser jar, to parse with the same .mco side by side")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each command (default 3)")
    args = parser.parse_args()  # fmt: skip
    models = [(Path(m.rsplit(":", 1)[0]), Path(m.rsplit(":", 1)[1])) for m in args.model]
    if not models:
        tests = dict(line.split("\t") for line in (MCO / "MANIFEST.tsv").read_text().splitlines() if line)
        models = [(MCO / name, (MCO / tests[name]).resolve()) for name in DEFAULT]
    print(f"{'':<40}  {'':>5}  {'.mco in process':>14}  {'.mpm in process':>14}  "
          f"{'whole processes: seconds, peak MB':>46}")  # fmt: skip
    print(f"{'model':<40}  {'MB':>5}  {'load s':>6} {'parse s':>7}  {'load s':>6} {'parse s':>7}  "
          f"{'.mco':>7} {'':>6}  {'.mpm':>7} {'':>6}  {'malt':>7} {'':>6}  same")  # fmt: skip
    with tempfile.TemporaryDirectory() as workdir:
        for mco, test in models:
            bench(mco, test, args, Path(workdir))
    print("MB: the model's members uncompressed; in process: maltpy's load, and its parse once loaded (medians);")
    print("whole processes: maltpy parse -m X.mco, -m X.mpm (converted), MaltParser's -c X -m parse (medians)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
