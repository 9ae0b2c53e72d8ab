#!/usr/bin/env python3
"""maltpy's accuracy levers on the shared UD treebanks, beside MaltParser 1.9.2 and the neural parser.

Issue 48's acceptance table. For each treebank (../shared/data/ud: en_lines, la_perseus and
en_partut learned from train, da_ddt and sv_talbanken from dev; parsed: the test file):

- MaltParser 1.9.2: the best LAS among its reference runs (../shared/reference/maltparser-1.9.2/
  scores.tsv, the CoNLL-X copies of the same files; none was run on en_partut and sv_talbanken),
  with its learning and parsing seconds (whole process, the JVM's start included);
- each maltpy row learns a model (``maltpy <COMMAND> FLAGS -q -i TRAIN -m MODEL``; by default the
  default model, the default blend, arc-eager with the ud profile's features and the same with the
  dynamic oracle) and parses the test file with its gold tags ("LAS gold": ``maltpy parse --jobs
  1``, --runs times on one core, whole process, its median seconds and words/s) and with the tags
  of its own taggers ("LAS own": LEMMA, UPOS, XPOS and FEATS blanked, ``--tag always``).

Scores are the CoNLL 2018 shared task's LAS (``--conll18 conll18_ud_eval.py``, the official script
in a separate process, from the ufal/conll2018 repository; without it ``maltpy eval --conll18``,
with the same figures). An ``optimize`` row (``--row 'optimize=optimize --budget 30 --jobs 2'``)
searches, then learns what the search wrote, its blend where it kept one; its learning seconds
are the search's and the learning's.

The goals (issue 48): a row (one system) with gold tags scores at least the neural parser's LAS
on en_lines (84.86) and la_perseus (62.10) and parses en_lines' test file in at most a third of
its 21.7 s (whole process, one core); with rows labelled ``optimize`` and ``blend``, optimize's
LAS is on average at least 1.0 above the blend's. The script ends with status 1 when one fails.

    python scripts/bench_accuracy.py --conll18 ~/conll2018/evaluation_script/conll18_ud_eval.py
    python scripts/bench_accuracy.py --treebanks en_lines,la_perseus --runs 5 --markdown
    python scripts/bench_accuracy.py --row default=learn --row 'dynamic=learn -a nivreeager -go dynamic'
    python scripts/bench_accuracy.py --row 'optimize=optimize --budget 30 --jobs 2' --row blend=blend
"""

from __future__ import annotations

import argparse
import csv
import itertools
import statistics
import sys
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_tagger import (  # noqa: E402
    ROOT,
    TAG_COLUMNS,
    TREE_COLUMNS,
    UD,
    Setup,
    Spec,
    blanked,
    figure,
    learn_model,
    one_core,
    print_row,
    report_goals,
    run_treebanks,
    scored,
    timed,
    treebanks,
    words_in,
)

REFERENCE = ROOT.parent / "shared" / "reference" / "maltparser-1.9.2" / "scores.tsv"
TREEBANKS = treebanks("en_lines", "la_perseus", "da_ddt", "en_partut", "sv_talbanken")  # the order
#: the neural parser's LAS with gold tags (a biaffine BiLSTM parser, supar 1.1.4, trained on a GPU)
#: and its seconds parsing en_lines' test file on one CPU core (issue 48)
NEURAL = {"en_lines": 84.86, "la_perseus": 62.10}
NEURAL_SECONDS = 21.7
DEFAULT_ROWS = ("default=learn", "blend=blend", "eager=learn -a nivreeager",
                "eager dynamic=learn -a nivreeager -go dynamic")  # fmt: skip
HEADER = ("treebank", "system", "LAS gold", "LAS own", "learn s", "parse s", "words/s")


@dataclass
class Row:
    system: str
    gold_las: float | None = None
    own_las: float | None = None
    learn_s: float | None = None
    parse_s: float | None = None  # whole process, the test file with its gold tags
    words_s: float | None = None
    error: str = ""
    notes: list[str] = field(default_factory=list)


def maltparser_row(name: str) -> Row | None:
    """MaltParser 1.9.2's best reference run on the treebank, or None where it was never run."""
    if not REFERENCE.exists():
        return None
    with open(REFERENCE, encoding="utf-8", newline="") as f:
        runs = [r for r in csv.DictReader(f, delimiter="\t") if r["name"].split("-")[0] == name]
    if not runs:
        return None
    best = max(runs, key=lambda r: float(r["LAS"]))
    row = Row(f"MaltParser 1.9.2 ({best['options']})", gold_las=float(best["LAS"]),
              learn_s=float(best["learn_s"]), parse_s=float(best["parse_s"]))  # fmt: skip
    row.notes.append("LAS by MaltParser's reference (all tokens, its CoNLL-X files); no tagger")
    return row


def maltpy_row(setup: Setup, spec: Spec, name: str, train: Path, test: Path, untagged: Path) -> Row:
    """A maltpy model learned by ``spec``: its learning seconds; the gold-tagged test file parsed
    --runs times on one core (whole process), its LAS and median seconds; the untagged one parsed
    once with its own tags, its LAS."""
    row = Row(spec.label)
    stem = setup.scratch / f"{name}-{spec.label.replace('/', '_').replace(' ', '_')}"
    model, gold, own = stem.with_suffix(".mpm"), Path(f"{stem}-gold.conllu"), Path(f"{stem}-own.conllu")
    parse = [*setup.pinned, sys.executable, "-m", "maltpy", "parse", "-q", "--jobs", "1", "-m", str(model)]
    try:
        row.learn_s = learn_model(spec, train, model, stem)
        seconds = [timed([*parse, "-i", str(test), "-o", str(gold)], one_core())[0] for _ in range(setup.args.runs)]
        row.parse_s = statistics.median(seconds)
        row.words_s = words_in(test) / row.parse_s
        row.gold_las = scored(setup, test, gold)["LAS"]
        timed([*parse, "--tag", "always", "-i", str(untagged), "-o", str(own)], one_core())
        row.own_las = scored(setup, test, own)["LAS"]
    except (RuntimeError, ValueError) as e:
        row.error = str(e)
    return row


def cells(name: str, row: Row) -> list[str]:
    return [name, row.system, figure(row.gold_las), figure(row.own_las), figure(row.learn_s, 1),
            figure(row.parse_s), figure(row.words_s, 0)]  # fmt: skip


def bench_treebank(setup: Setup, name: str, specs: list[Spec], rows: dict) -> list[tuple[str, bool]]:
    """Print the rows of one treebank, keep them in ``rows[label][name]``; the treebank's failures
    to measure (the goals across treebanks are ``goals``')."""
    folder, train_name, test_name = TREEBANKS[name]
    train, test = UD / folder / train_name, UD / folder / test_name
    untagged = setup.scratch / f"{name}-untagged.conllu"
    blanked(test, untagged, TAG_COLUMNS + TREE_COLUMNS)
    found = []
    reference = maltparser_row(name)
    measured = (maltpy_row(setup, spec, name, train, test, untagged) for spec in specs)  # printed as they come
    for row in itertools.chain([reference] if reference else [], measured):
        print_row(cells(name, row), setup.args.markdown)
        for note in [row.error, *row.notes] if row.error else row.notes:
            print(f"  {row.system}: {note}", flush=True)
        if row.error:
            found.append((f"{name} {row.system}: {row.error}", False))
        rows.setdefault(row.system, {})[name] = row
    return found


def goals(rows: dict[str, dict[str, Row]]) -> list[tuple[str, bool]]:
    """Issue 48's goals over the rows of every treebank: one maltpy row (a system) beyond the neural
    parser on en_lines and la_perseus at a third of its time; optimize 1.0 above the blend."""
    found = []
    for label, by_treebank in rows.items():
        if label.startswith("MaltParser") or not all(t in by_treebank for t in NEURAL):
            continue
        lines = by_treebank["en_lines"]
        holds = [r.gold_las is not None and r.gold_las >= NEURAL[t] for t, r in by_treebank.items() if t in NEURAL]
        fast = lines.parse_s is not None and lines.parse_s <= NEURAL_SECONDS / 3
        figures = ", ".join(f"{t} {by_treebank[t].gold_las} >= {NEURAL[t]}" for t in NEURAL)
        seconds = "-" if lines.parse_s is None else f"{lines.parse_s:.2f}"
        what = f"{label}: LAS gold {figures} (the neural parser's); en_lines parsed in {seconds} s"
        found.append((f"{what} <= {NEURAL_SECONDS / 3:.2f} s", all(holds) and fast))
    if "optimize" in rows and "blend" in rows:
        common = [t for t in rows["optimize"] if t in rows["blend"]]
        gains = [rows["optimize"][t].gold_las - rows["blend"][t].gold_las for t in common
                 if rows["optimize"][t].gold_las is not None and rows["blend"][t].gold_las is not None]  # fmt: skip
        mean = sum(gains) / len(gains) if gains else float("-inf")
        found.append((f"optimize - blend, LAS gold, mean of {len(gains)} treebanks: {mean:+.2f} >= +1.0", mean >= 1.0))
    if not any(ok for what, ok in found if "neural" in what):
        found.append(("no row holds the neural parser's goals on every count", False))
    return found


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--treebanks", default=",".join(TREEBANKS), help=f"a comma list of {', '.join(TREEBANKS)}")
    parser.add_argument("--runs", type=int, default=3, help="parses of each gold-tagged test file timed (median)")
    parser.add_argument("--conll18", metavar="PATH", help="the CoNLL 2018 shared task's conll18_ud_eval.py")
    parser.add_argument("--row", dest="rows", action="append", type=Spec.parse, metavar="LABEL=COMMAND",
                        help="a maltpy row: a label and the maltpy command with flags that learn its model; may be "
                        f"repeated (default: {'; '.join(DEFAULT_ROWS)})")  # fmt: skip
    parser.add_argument("--cpu", type=int, default=0, help="the core parsing is pinned to (taskset)")
    parser.add_argument("--keep", metavar="DIR", help="write the parses and models to DIR (default: removed)")
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")
    args = parser.parse_args()
    args.treebanks = [t for t in args.treebanks.split(",") if t]
    if any(t not in TREEBANKS for t in args.treebanks) or not args.treebanks or args.runs < 1:
        parser.error(f"--treebanks takes {', '.join(TREEBANKS)}; --runs at least 1")
    if args.conll18 and not Path(args.conll18).is_file():
        parser.error(f"--conll18: no file {args.conll18}")
    args.rows = args.rows or [Spec.parse(text) for text in DEFAULT_ROWS]
    if len({spec.label for spec in args.rows}) < len(args.rows):
        parser.error("--row: two rows with the same label")
    return args


def main() -> int:
    args = arguments()
    rows: dict[str, dict[str, Row]] = {}
    _, found = run_treebanks(args, HEADER, lambda setup, name: bench_treebank(setup, name, args.rows, rows))
    print(f"\nLAS: {'conll18_ud_eval.py' if args.conll18 else 'maltpy eval --conll18'}. Parse seconds: whole "
          f"processes (maltpy parse --jobs 1, gold tags), medians of {args.runs} runs, one thread.")  # fmt: skip
    return report_goals(48, found + goals(rows))


if __name__ == "__main__":
    sys.exit(main())
