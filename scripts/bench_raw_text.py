#!/usr/bin/env python3
"""maltpy from raw text to trees, beside UDPipe 1.4 learned from the same file.

Issue 47's acceptance table. For each treebank (../shared/data/ud: en_lines, en_partut and
la_perseus learned from their train files, sv_talbanken and da_ddt from their dev files) the
test file's text is made as UD's conllu_to_text makes its .txt (without the line wrapping): one
block for each document or paragraph (a new one at each ``# newdoc`` or ``# newpar``; a file
with neither is one block), its sentences' ``# text`` joined by a space, or by nothing after a
sentence whose last token (a multiword token's range line, not its words) has SpaceAfter=No;
the blocks separated by an empty line. Then:

- UDPipe 1.4 (``ufal.udpipe``) tokenizes it (``Pipeline(tokenizer, "tokenize", NONE, NONE,
  "conllu")``), then tags and parses its tokens (``Pipeline(model, "conllu", DEFAULT, DEFAULT,
  "conllu")``); its words/s in-process are the seconds of the two ``Pipeline.process`` calls on
  the whole text, the models loaded; the whole process's include the Python's start and the
  models' loading;
- each maltpy row learns a model (``maltpy learn -i TRAIN -m MODEL``: the tokenizer, the
  taggers and the parser, or the row's command) and parses the text (``maltpy parse --jobs 1 -if
  text``, the whole process) and in-process (``maltpy.load_model(MODEL).parse_text(text)``, the
  model loaded, which must give ``maltpy parse``'s bytes).

Scores are the CoNLL 2018 shared task's, over the system's words aligned with the gold's through
the text: Tokens, Sentences and Words F1, and the aligned UPOS, Lemmas and LAS (the table), XPOS,
UFeats, UAS, CLAS, MLAS and BLEX (--json). ``--conll18 conll18_ud_eval.py`` runs the official
script in a process of its own (it is not part of maltpy: get it from the ufal/conll2018
repository on GitHub, evaluation_script/conll18_ud_eval.py); without it, ``maltpy eval --json
--conll18`` scores. Words/s are the gold test file's words over the median seconds of --runs runs
on one core (OMP_NUM_THREADS=1, ``taskset -c 0`` where there is taskset); the table shows the
whole process's, the in-process figure is printed under each row. Learning seconds are one whole
run (UDPipe's from its training logs: "seconds N"). maltpy is ``python -m maltpy`` of the Python
that runs this script, from the current directory: run it from the checkout's root.

The goals (issue 47), for each maltpy row against UDPipe's: Tokens and Sentences F1 at least
UDPipe's; LAS at least UDPipe's + 2 (or the row's margin); words/s in-process at least 3x
UDPipe's in-process (the whole processes' ratio is printed beside it), for every row: the one
system must hold all four (a blend's LAS bought with its speed does not). The script ends with
status 1 when one fails (or cannot be measured), 0 when all hold.

UDPipe is a benchmark-only dependency, in a Python of its own:

    python3 -m venv ~/udpipe-venv && ~/udpipe-venv/bin/pip install ufal.udpipe==1.4.0.1

--work DIR holds its models: DIR/<treebank>.udpipe (tagger and parser, perhaps a tokenizer: the
models of bench_tagger.py serve) and DIR/<treebank>.tok.udpipe (a tokenizer, used where present);
a missing model is learned there with its training log, DIR/<treebank>[.tok].train.log (the
whole model when DIR/<treebank>.udpipe is missing, else the tokenizer when it has none: 5 to 40
minutes each, one core). The last UDPipe figures are kept in DIR/<treebank>.raw.json.

    python scripts/bench_raw_text.py --udpipe-python ~/udpipe-venv/bin/python --work ~/udpipe-models \\
        --conll18 ~/conll2018/evaluation_script/conll18_ud_eval.py
    python scripts/bench_raw_text.py ... --treebanks en_lines,da_ddt --runs 5 --markdown
    python scripts/bench_raw_text.py ... --row maltpy= --row 'blend:3=blend' --json figures.json
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_tagger import (  # noqa: E402  (the scripts' folder on the path first)
    UD,
    Row,
    Setup,
    Spec,
    add_arguments,
    at_least,
    checked_arguments,
    conll18_scores,
    figure,
    learn_model,
    maltpy_speeds,
    print_row,
    report_goals,
    run_treebanks,
    timed,
    treebanks,
    udpipe_model,
    udpipe_speeds,
)

TREEBANKS = treebanks("en_lines", "en_partut", "la_perseus", "sv_talbanken", "da_ddt")
SHOWN = ("Tokens", "Sentences", "Words", "UPOS", "Lemmas", "LAS")
METRICS = (*SHOWN[:4], "XPOS", "UFeats", "AllTags", "Lemmas", "UAS", "LAS", "CLAS", "MLAS", "BLEX")
MARGIN = 2.0  # LAS points above UDPipe's, unless the row says
SPEEDUP = 3  # maltpy learn's model: at least this many times UDPipe's words/s

#: Whether a UDPipe model has a tokenizer: argv MODEL; prints yes or no.
UDPIPE_HAS_TOKENIZER = """
import sys, ufal.udpipe as u
model = u.Model.load(sys.argv[1])
if model is None:
    sys.exit("cannot load " + sys.argv[1])
print("yes" if model.newTokenizer(u.Model.DEFAULT) is not None else "no")
"""



# --- the raw text ---------------------------------------------------------------------------------

NEW_BLOCK = re.compile(r"# new(doc|par)\b")


def raw_text(conllu: Path) -> tuple[str, int]:
    """The text of ``conllu``, as the module's docstring says, and the number of its sentences
    whose ``# text`` is not their tokens' forms (spaces aside)."""
    blocks: list[list[str]] = [[]]
    text, forms, last_misc, covered, differ = None, [], "_", 0, 0

    def end_sentence() -> None:
        nonlocal text, forms, covered, differ
        if text is None:
            raise ValueError(f"{conllu}: a sentence without '# text'")
        differ += "".join(text.split()) != "".join(forms)
        no_space = "SpaceAfter=No" in last_misc.split("|")
        blocks[-1].append(text + ("" if no_space else " "))
        text, forms, covered = None, [], 0

    with open(conllu, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line:
                if forms:
                    end_sentence()
            elif line.startswith("#"):
                if NEW_BLOCK.match(line) and blocks[-1]:
                    blocks.append([])
                elif line.startswith("# text = "):
                    text = line[len("# text = ") :]
            else:
                cells = line.split("\t")
                first, _, last = cells[0].partition("-")
                if last:  # a multiword token: it is the token, its words are not
                    last_misc, covered = cells[9], int(last)
                    forms.append("".join(cells[1].split()))
                elif first.isdigit() and int(first) > covered:
                    last_misc = cells[9]
                    forms.append("".join(cells[1].split()))
    if forms:
        end_sentence()
    paragraphs = ["".join(block).rstrip(" ") for block in blocks if block]
    return "\n\n".join(paragraphs) + "\n", differ


# --- scoring --------------------------------------------------------------------------------------


def aligned_scores(setup: Setup, gold: Path, system: Path) -> dict[str, float | None]:
    """METRICS of ``system`` against ``gold``, tokenized as they are: by conll18_ud_eval.py with
    --conll18, else by ``maltpy eval --json --conll18`` (its aligned F1 under "conll18")."""
    if setup.args.conll18:
        return conll18_scores(setup.args.conll18, gold, system, METRICS)
    result = subprocess.run([sys.executable, "-m", "maltpy", "eval", "--json", "--conll18", str(gold), str(system)],
                            capture_output=True, text=True)  # fmt: skip
    if result.returncode != 0:
        raise RuntimeError(f"maltpy eval: {result.stderr.strip()}")
    figures = json.loads(result.stdout).get("conll18", {})
    return {m: figures.get(m) for m in METRICS}


# --- UDPipe ---------------------------------------------------------------------------------------


def udpipe_models(setup: Setup, name: str, train: Path) -> tuple[Path, Path, float | None]:
    """UDPipe's tokenizer and tagger-and-parser models of ``name`` in --work (one file or two,
    learned from ``train`` where missing) and the seconds their learning took."""
    model, seconds = udpipe_model(setup, name, train, "tokenizer,tagger,parser")
    tokenizer = Path(setup.args.work) / f"{name}.tok.udpipe"
    if not tokenizer.exists():
        _, answer = timed([setup.args.udpipe_python, "-c", UDPIPE_HAS_TOKENIZER, str(model)])
        if answer.strip() == "yes":
            return model, model, seconds
    tokenizer, tokenizer_seconds = udpipe_model(setup, name, train, "tokenizer", f"{name}.tok")
    both = None if seconds is None or tokenizer_seconds is None else seconds + tokenizer_seconds
    return tokenizer, model, both


def udpipe_row(setup: Setup, name: str, train: Path, test: Path, text: Path) -> Row:
    """UDPipe 1.4 from the raw ``text`` (--runs times, in-process and whole-process seconds), scored
    against ``test``. With --udpipe-cached, the figures the last run stored beside the model, if
    they are of these models."""
    row = Row("UDPipe 1.4")
    try:
        tokenizer, model, row.learn_s = udpipe_models(setup, name, train)
    except RuntimeError as e:
        row.error = str(e)
        return row
    stamp = {"conll18": bool(setup.args.conll18), "text_bytes": text.stat().st_size}
    for part, path in (("tokenizer", tokenizer), ("model", model)):
        stat = path.stat()
        stamp |= {f"{part}_bytes": stat.st_size, f"{part}_mtime": stat.st_mtime}
    cache = Path(setup.args.work) / f"{name}.raw.json"
    if setup.args.udpipe_cached and cache.exists():
        stored = json.loads(cache.read_text(encoding="utf-8"))
        if stored.pop("stamp", None) == stamp:
            return Row(**stored)
    parsed = setup.scratch / f"{name}-udpipe.conllu"
    stages = (tokenizer, "tokenize", "none", "none"), (model, "conllu", "default", "default")
    try:
        row.words_s, row.process_words_s = udpipe_speeds(setup, text, parsed, list(stages), test)
        row.scores = aligned_scores(setup, test, parsed)
    except (RuntimeError, ValueError) as e:
        row.error = f"UDPipe: {e}"
        return row
    fields = {k: v for k, v in asdict(row).items() if k != "error"}
    cache.write_text(json.dumps({"stamp": stamp, **fields}, indent=1) + "\n", encoding="utf-8")
    return row


# --- maltpy ---------------------------------------------------------------------------------------


def row_spec(text: str) -> Spec:
    """A --row: bench_tagger.py's LABEL[:MARGIN]=COMMAND FLAGS, MARGIN 2 for every command."""
    spec = Spec.parse(text)
    if ":" not in text.partition("=")[0]:
        spec.margin = MARGIN
    return spec


def maltpy_row(setup: Setup, spec: Spec, name: str, train: Path, test: Path, text: Path) -> Row:
    """A maltpy model learned by ``spec`` from ``train``: its learning seconds, and its parse of
    the raw ``text`` --runs times on one core (the whole process, then in-process), scored against
    ``test``. A failing step leaves the row's error and the figures before it."""
    row = Row(spec.label)
    stem = setup.scratch / f"{name}-{spec.label.replace('/', '_')}"
    model, parsed = stem.with_suffix(".mpm"), Path(f"{stem}.conllu")
    parse = [*setup.pinned, sys.executable, "-m", "maltpy", "parse", "-q", "--jobs", "1", "-if", "text",
             "-m", str(model)]  # fmt: skip
    try:
        row.learn_s = learn_model(spec, train, model, stem)
        row.words_s, row.process_words_s = maltpy_speeds(setup, parse, model, text, parsed, "parse_text", test)
        row.scores = aligned_scores(setup, test, parsed)
    except (RuntimeError, ValueError) as e:
        row.error = str(e)  # maltpy's errors begin "maltpy: error:"
    return row


# --- the table and the goals ----------------------------------------------------------------------

HEADER = ("treebank", "system", *SHOWN, "learn s", "words/s")


def cells(name: str, row: Row) -> list[str]:
    shown = [figure(row.scores.get(m)) for m in SHOWN]
    return [name, row.system, *shown, figure(row.learn_s, 0), figure(row.process_words_s, 0)]


def goals(name: str, spec: Spec, row: Row, udpipe: Row) -> list[tuple[str, bool]]:
    """Issue 47's goals for ``row`` against UDPipe's: (what, whether it holds)."""
    who = f"{name} {spec.label}"
    if row.error:
        return [(f"{who}: {row.error}", False)]
    found = [at_least(who, m, row.scores.get(m), udpipe.scores.get(m)) for m in ("Tokens", "Sentences")]
    found.append(at_least(who, "LAS", row.scores.get("LAS"), udpipe.scores.get("LAS"), plus=spec.margin))
    whole = (row.process_words_s or 0) / udpipe.process_words_s if udpipe.process_words_s else None
    ratio = "" if whole is None else f" (whole processes: {whole:.1f} x)"
    found.append(at_least(who, f"words/s in-process{ratio}", row.words_s, udpipe.words_s, times=SPEEDUP))
    return found


def bench_treebank(setup: Setup, name: str, specs: list[Spec], figures: dict) -> list[tuple[str, bool]]:
    """Print the rows of one treebank and add them to ``figures``; its goals."""
    folder, train_name, test_name = TREEBANKS[name]
    train, test = UD / folder / train_name, UD / folder / test_name
    text = setup.scratch / f"{name}-test.txt"
    raw, differ = raw_text(test)
    text.write_text(raw, encoding="utf-8")
    if differ:
        print(f"  {name}: {differ} sentences' '# text' are not their tokens' forms (spaces aside)", flush=True)
    udpipe = udpipe_row(setup, name, train, test, text)
    found = [] if not udpipe.error else [(f"{name} UDPipe 1.4: {udpipe.error}", False)]
    for row, spec in [(udpipe, None), *((maltpy_row(setup, s, name, train, test, text), s) for s in specs)]:
        print_row(cells(name, row), setup.args.markdown)
        figures.setdefault(name, {})[row.system] = asdict(row)
        if row.error:
            print(f"  {row.system}: {row.error}", flush=True)
        elif row.words_s is not None:
            print(f"  {row.system}'s words/s in-process (the model loaded): {row.words_s:.0f}", flush=True)
        found += goals(name, spec, row, udpipe) if spec is not None else []
    return found


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_arguments(parser, TREEBANKS, "text", "DIR/<treebank>.udpipe and DIR/<treebank>.tok.udpipe", row_spec, "2",
                  "'blend=blend'")  # fmt: skip
    parser.add_argument("--json", metavar="FILE", help="also write every figure (all the metrics) to FILE")
    return checked_arguments(parser, TREEBANKS, row_spec)


def main() -> int:
    args = arguments()
    figures: dict = {}
    setup, found = run_treebanks(args, HEADER, lambda setup, name: bench_treebank(setup, name, args.rows, figures))
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
    scoring = "conll18_ud_eval.py" if args.conll18 else "maltpy eval --conll18"
    pinned = f"pinned to core {args.cpu}" if setup.pinned else "not pinned (no taskset)"
    print(f"\nScores: {scoring}, the words aligned through the text. Words/s: the gold test file's words, medians "
          f"of {args.runs} runs, one thread, {pinned}; the table's are the whole process's.")  # fmt: skip
    return report_goals(47, found)


if __name__ == "__main__":
    sys.exit(main())
