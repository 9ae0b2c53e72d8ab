"""Single-root parsing (graph.single_root) on the shared UD treebanks: for every treebank with a
train and a test file and every algorithm with LIBLINEAR, LAS without one root, with the final
step alone, and with the constraint inside the transitions where the system has one (Nivre's
arc-eager and arc-standard; the others take the final step alone), and whether every output
sentence has exactly one root labelled as UD requires.

    python scripts/bench_single_root.py [--shared ../shared] [--conll18-script PATH]
                                        [--algorithms NAME ...] [--dev-as-train]

With --conll18-script (the CoNLL 2018 shared task's conll18_ud_eval.py, which this repository
does not hold), each single-root output is also scored by that script, and its LAS printed.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from maltpy.data.conll import ConllReader
from maltpy.models.parser import Model
from maltpy.transition import SYSTEMS


def maltpy(*args: object) -> bytes:
    result = subprocess.run([sys.executable, "-m", "maltpy", *map(str, args)], capture_output=True)
    if result.returncode:
        raise SystemExit(result.stderr.decode())
    return result.stdout


def roots(path: Path) -> tuple[int, int]:
    """Sentences without exactly one word on the root, and root words not labelled root."""
    several = mislabelled = 0
    with open(path, "rb") as f:
        for sentence in ConllReader(f, str(path)):
            on_root = [w for w in sentence.words if w[6] == "0"]
            several += len(on_root) != 1
            mislabelled += sum(w[7] != "root" for w in on_root)
    return several, mislabelled


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shared", type=Path, default=Path(__file__).resolve().parents[2] / "shared")
    parser.add_argument("--conll18-script", type=Path)
    parser.add_argument("--algorithms", nargs="*", default=list(SYSTEMS))
    parser.add_argument("--dev-as-train", action="store_true",
                        help="also the treebanks without a train file, learning on their dev file")  # fmt: skip
    args = parser.parse_args()
    ud = args.shared / "data" / "ud"
    treebanks = []
    for folder in sorted(ud.iterdir()):
        train, test = list(folder.glob("*-ud-train.conllu")), list(folder.glob("*-ud-test.conllu"))
        if not train and args.dev_as_train:
            train = list(folder.glob("*-ud-dev.conllu"))
        if train and test:
            treebanks.append((folder.name, train[0], test[0]))
    print(f"{'treebank':<18} {'algorithm':<14} {'LAS':>6} {'final step':>10} {'constraint':>10} {'diff':>6} "
          f"{'roots≠1 before':>14} {'after':>5} {'label≠root':>10} {'conll18 LAS':>11} {'learn s':>7}")  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        for name, train, test in treebanks:
            for algorithm in args.algorithms:
                model_path = Path(tmp, "m.mpm")
                free, final, one = (Path(tmp, f"{k}.conllu") for k in ("free", "final", "one"))
                started = time.perf_counter()
                maltpy("learn", "-q", "-a", algorithm, "-l", "liblinear", "-i", train, "-m", model_path)
                seconds = time.perf_counter() - started
                model = Model.load(model_path)
                model.set_single_root("false")
                model.parse_file(test, free)
                model.set_single_root("true")
                model.parse_file(test, one)
                constrained = model.rooted_system is not model.system
                if constrained:
                    model.constrain_root = False
                    model.parse_file(test, final)
                systems = [free, final, one] if constrained else [free, one]
                scores = [s["LAS"] for s in json.loads(maltpy("eval", test, *systems, "--json"))["systems"]]
                las_free, las_final, las_one = scores if constrained else (scores[0], scores[1], scores[1])
                before, _ = roots(free)
                after, mislabelled = roots(one)
                official = ""
                if args.conll18_script:
                    out = subprocess.run(
                        [sys.executable, args.conll18_script, test, one], capture_output=True, text=True
                    )
                    official = out.stdout.split("LAS F1 Score: ")[1].split()[0] if out.returncode == 0 else "refused"
                shown = f"{las_one:>10.2f}" if constrained else f"{'(same)':>10}"
                print(f"{name[3:]:<18} {algorithm:<14} {las_free:>6.2f} {las_final:>10.2f} {shown} "
                      f"{las_one - las_free:>+6.2f} {before:>14} {after:>5} {mislabelled:>10} {official:>11} "
                      f"{seconds:>7.1f}", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
