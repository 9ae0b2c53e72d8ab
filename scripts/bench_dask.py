"""Throughput of `maltpy parse` on a large corpus: --jobs 1, --jobs 2, and a Dask cluster of two
worker processes (`--scheduler`), side by side, alternating, medians of --repeat runs.

    python scripts/bench_dask.py -m en.mpm -i corpus.conllx [--parts 4] [--repeat 3]

The corpus is parsed whole with --jobs; for the cluster it is cut at sentence ends into --parts
files, parsed with `maltpy parse -i PART... --output-dir D --scheduler ADDRESS`, the cluster
(a dask.distributed LocalCluster, one thread per worker) started once before the runs, so its
workers keep the model loaded between runs, as a cluster in use does. Every run's output is
checked against the --jobs 1 output. Needs maltpy[dask].
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time


def split(corpus: str, parts: int, folder: str) -> list[str]:
    """The corpus cut at empty lines into ``parts`` files of about equal size."""
    data = open(corpus, "rb").read()
    paths, start = [], 0
    for k in range(1, parts + 1):
        end = len(data) if k == parts else data.find(b"\n\n", len(data) * k // parts) + 2
        path = os.path.join(folder, f"part{k:02d}{os.path.splitext(corpus)[1]}")
        with open(path, "wb") as f:
            f.write(data[start:end])
        paths.append(path)
        start = end
    return paths


def timed(command: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-m", "--model", required=True)
    ap.add_argument("-i", "--input", required=True)
    ap.add_argument("--parts", type=int, default=4)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    from distributed import LocalCluster

    maltpy = [sys.executable, "-m", "maltpy"]
    tokens = sum(1 for line in open(args.input, "rb") if line.strip() and not line.startswith(b"#"))
    with (
        tempfile.TemporaryDirectory() as tmp,
        LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster,
    ):
        parts = split(args.input, args.parts, tmp)
        os.mkdir(os.path.join(tmp, "out"))
        runs = {
            "--jobs 1": maltpy + ["parse", "-m", args.model, "-i", args.input, "-o", f"{tmp}/j1"],
            "--jobs 2": maltpy + ["parse", "-m", args.model, "-i", args.input, "-o", f"{tmp}/j2", "-j", "2"],
            "dask, 2 workers": maltpy + ["parse", "-m", args.model, "-i", *parts, "--output-dir",
                                         os.path.join(tmp, "out"), "--scheduler", cluster.scheduler_address],
        }  # fmt: skip
        times: dict[str, list[float]] = {name: [] for name in runs}
        timed(runs["dask, 2 workers"])  # the workers load the model once, as a cluster in use has
        for _ in range(args.repeat):
            for name, command in runs.items():
                times[name].append(timed(command))
        reference = open(os.path.join(tmp, "j1"), "rb").read()
        assert open(os.path.join(tmp, "j2"), "rb").read() == reference, "--jobs 2 differs"
        together = b"".join(open(os.path.join(tmp, "out", os.path.basename(p)), "rb").read() for p in parts)
        assert together == reference, "the cluster's parse differs"
    print(f"{tokens:,} tokens, {args.parts} parts for the cluster, medians of {args.repeat} (whole process, wall)")
    print(f"{'run':<18}{'seconds':>10}{'tokens/s':>12}")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"{name:<18}{median:>10.2f}{tokens / median:>12,.0f}")


if __name__ == "__main__":
    main()
