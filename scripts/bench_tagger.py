#!/usr/bin/env python3
"""maltpy's taggers and parser on untagged text, beside UDPipe 1.4 learned from the same file.

Issue 46's acceptance table. For each treebank (../shared/data/ud: en_lines, da_ddt, la_perseus,
sv_talbanken; learned from its train file, from its dev file if it has none) the test file is
given with gold tokenization and LEMMA, UPOS, XPOS, FEATS, HEAD, DEPREL and DEPS blanked to "_":

- UDPipe 1.4 (``ufal.udpipe``, default options: ``Trainer.train("morphodita_parsito", sentences,
  Sentences(), "none", DEFAULT, DEFAULT, error)``) tags and parses it; its words/s are its own
  in-process figure (the seconds of ``Pipeline.process`` on the whole file, the model loaded: the
  issue's 3,076 words/s on en_lines), and the whole process's are printed under the row;
- each maltpy row learns a model (``maltpy learn -i TRAIN -m MODEL``, or the row's command) and
  parses it (``maltpy parse --jobs 1``: the taggers fill the blanked columns); its words/s are
  taken the same way, in-process (``Model.parse_conll`` of the file's text, the model loaded,
  which must give ``maltpy parse``'s bytes), and the whole process's (Python's start and the
  model's loading included) are printed under the row. ``--udpipe-speed process`` compares the
  whole processes instead (on a small test file, maltpy's start, some 0.7 s, is most of it);
- both parse the test file with its gold tags and the tree blanked: "LAS gold tags".

Scores are the CoNLL 2018 shared task's (UPOS, XPOS, UFeats, Lemmas and LAS, F1 = accuracy with
gold tokenization): ``--conll18 conll18_ud_eval.py`` runs the official script in a separate
process (it is not part of maltpy: get it from the ufal/conll2018 repository on GitHub,
evaluation_script/conll18_ud_eval.py); without it, ``maltpy eval --json --conll18`` scores
(its tag accuracies where the system's tag columns differ from the gold's). Words/s are medians
of --runs runs on one core (OMP_NUM_THREADS=1, ``taskset -c 0`` where there is taskset);
learning seconds are one whole run (UDPipe's from its training log: "seconds N"). maltpy is
``python -m maltpy`` of the Python that runs this script, from the current directory: run it
from the checkout's root to measure the checkout.

The goals (issue 46), for each maltpy row against UDPipe's: every tag accuracy at least UDPipe's;
LAS with its own tags at least UDPipe's (+2 for a row whose command is ``blend`` or ``optimize``,
or as the row says; an ``optimize`` row searches, then learns what the search wrote, its blend
where it kept one, and its learning seconds are the search's and the learning's); for a row
learned by ``maltpy learn``, words/s at least 3x UDPipe's. The script ends with status 1 when one
fails (or cannot be measured), 0 when all hold.

UDPipe is a benchmark-only dependency, in a Python of its own:

    python3 -m venv ~/udpipe-venv && ~/udpipe-venv/bin/pip install ufal.udpipe==1.4.0.1

--work DIR holds its models, DIR/<treebank>.udpipe (learned there when missing: 7 to 40 minutes
each, one core), their training logs and the last UDPipe figures (DIR/<treebank>.udpipe.json).

    python scripts/bench_tagger.py --udpipe-python ~/udpipe-venv/bin/python --work ~/udpipe-models \\
        --conll18 ~/conll2018/evaluation_script/conll18_ud_eval.py
    python scripts/bench_tagger.py ... --treebanks en_lines,da_ddt --runs 5
    python scripts/bench_tagger.py ... --row maltpy= --row 'jackknife=learn -tj 10'
    python scripts/bench_tagger.py ... --row 'blend=blend' --row 'optimized:2=learn -c opt/config.yaml'
    python scripts/bench_tagger.py ... --row 'optimize=optimize --tags own --budget 30 --jobs 2'
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
UD = ROOT.parent / "shared" / "data" / "ud"
#: treebank -> (its folder under ../shared/data/ud, the file learned from, the test file): the
#: shared UD treebanks, learned from train, or from dev where there is none (the benchmarks that
#: compare with UDPipe and the neural parser each take some, ``treebanks``)
UD_TREEBANKS = {
    "en_lines": ("UD_English-LinES", "en_lines-ud-train.conllu", "en_lines-ud-test.conllu"),
    "en_partut": ("UD_English-ParTUT", "en_partut-ud-train.conllu", "en_partut-ud-test.conllu"),
    "la_perseus": ("UD_Latin-Perseus", "la_perseus-ud-train.conllu", "la_perseus-ud-test.conllu"),
    "da_ddt": ("UD_Danish-DDT", "da_ddt-ud-dev.conllu", "da_ddt-ud-test.conllu"),
    "sv_talbanken": ("UD_Swedish-Talbanken", "sv_talbanken-ud-dev.conllu", "sv_talbanken-ud-test.conllu"),
}


def treebanks(*names: str) -> dict[str, tuple[str, str, str]]:
    """The UD_TREEBANKS named, in that order (a benchmark's default order)."""
    return {name: UD_TREEBANKS[name] for name in names}


TREEBANKS = treebanks("en_lines", "da_ddt", "la_perseus", "sv_talbanken")
TAGS = ("UPOS", "XPOS", "UFeats", "Lemmas")
METRICS = (*TAGS, "LAS")
#: CoNLL-U columns (0-based) blanked: the tags (LEMMA, UPOS, XPOS, FEATS) and the tree (HEAD, DEPREL, DEPS)
TAG_COLUMNS, TREE_COLUMNS = (2, 3, 4, 5), (6, 7, 8)
SPEEDUP = 3  # maltpy learn's model: at least this many times UDPipe's words/s

#: UDPipe's training, run by the UDPipe Python: argv TRAIN MODEL PARTS, the parts learned with their
#: default options (a comma list of tokenizer, tagger, parser; the others "none"); prints "seconds N".
UDPIPE_TRAIN = """
import os, sys, time, ufal.udpipe as u
source, target, parts = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
reader = u.InputFormat.newConlluInputFormat()
reader.setText(open(source, encoding="utf-8").read())
sentences, sentence, error = u.Sentences(), u.Sentence(), u.ProcessingError()
while reader.nextSentence(sentence, error):
    sentences.push_back(sentence)
    sentence = u.Sentence()
started = time.time()
options = [u.Trainer.DEFAULT if part in parts else "none" for part in ("tokenizer", "tagger", "parser")]
model = u.Trainer.train("morphodita_parsito", sentences, u.Sentences(), *options, error)
print("seconds", round(time.time() - started, 1), "error", error.message, flush=True)
if error.occurred():
    sys.exit(1)
open(target + ".part", "wb").write(model.encode("latin-1") if isinstance(model, str) else model)
os.replace(target + ".part", target)
"""

#: UDPipe's pipelines, one after the other, run by the UDPipe Python: argv IN OUT STAGES, STAGES a
#: JSON list of [model, input format, tagger, parser] (tagger and parser "default" or "none"),
#: each stage reading the one before's CoNLL-U (``udpipe_stages``); prints the seconds of their
#: Pipeline.process calls on the whole text, the models loaded, as JSON.
UDPIPE_PIPELINES = """
import json, sys, time, ufal.udpipe as u
source, target, stages = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
models = {path: u.Model.load(path) for path in {stage[0] for stage in stages}}
for path, model in models.items():
    if model is None:
        sys.exit("cannot load " + path)
option = {"default": u.Pipeline.DEFAULT, "none": u.Pipeline.NONE}
pipelines = [u.Pipeline(models[path], form, option[tagger], option[parser], "conllu")
             for path, form, tagger, parser in stages]
text, error = open(source, encoding="utf-8").read(), u.ProcessingError()
started = time.perf_counter()
for pipeline in pipelines:
    text = pipeline.process(text, error)
    if error.occurred():
        sys.exit(error.message)
seconds = time.perf_counter() - started
open(target, "w", encoding="utf-8").write(text)
print(json.dumps({"seconds": seconds}))
"""


def udpipe_stages(setup: Setup, source: Path, target: Path, *stages: tuple[Path, str, str, str]) -> list[str]:
    """The command that runs UDPipe's ``stages`` (UDPIPE_PIPELINES) on ``source`` into ``target``."""
    listed = json.dumps([[str(path), *rest] for path, *rest in stages])
    return [*setup.pinned, setup.args.udpipe_python, "-c", UDPIPE_PIPELINES, str(source), str(target), listed]


def udpipe_speeds(setup: Setup, source: Path, target: Path, stages: list[tuple[Path, str, str, str]],
                  test: Path) -> tuple[float, float]:  # fmt: skip
    """Words/s (``test``'s words) of UDPipe's ``stages`` on ``source`` into ``target``, --runs
    times on one core: in-process (its Pipeline.process calls) and of the whole process."""
    inside, whole = [], []
    for _ in range(setup.args.runs):
        seconds, out = timed(udpipe_stages(setup, source, target, *stages), one_core())
        whole.append(seconds)
        inside.append(json.loads(out)["seconds"])
    return median_rate(words_in(test), inside), median_rate(words_in(test), whole)


#: maltpy's in-process figure, as UDPipe's is taken: argv MODEL IN OUT METHOD, text in, CoNLL-U text
#: out, the model loaded (METHOD ``parse_conll``: CoNLL-U in, as ``Pipeline.process``; ``parse_text``:
#: raw text in); prints the method's seconds, as JSON
MALTPY_PARSE = """
import json, sys, time, maltpy
model = maltpy.load_model(sys.argv[1])
text = open(sys.argv[2], encoding="utf-8").read()
started = time.perf_counter()
parsed = getattr(model, sys.argv[4])(text)
seconds = time.perf_counter() - started
open(sys.argv[3], "w", encoding="utf-8").write(parsed)
print(json.dumps({"seconds": seconds}))
"""


@dataclass
class Row:
    """A system's figures on one treebank; ``error`` says why the row has none."""

    system: str
    scores: dict[str, float | None] = field(default_factory=dict)  # METRICS, on the blanked file
    gold_las: float | None = None  # LAS parsing the gold-tagged file
    learn_s: float | None = None
    words_s: float | None = None
    process_words_s: float | None = None  # the whole process's (maltpy's words_s until compared)
    error: str = ""


@dataclass
class Setup:
    args: argparse.Namespace
    scratch: Path

    @property
    def pinned(self) -> list[str]:
        """The prefix that keeps a process on one core, where there is taskset."""
        return ["taskset", "-c", str(self.args.cpu)] if shutil.which("taskset") else []


# --- the files ------------------------------------------------------------------------------------


def blanked(source: Path, target: Path, columns: tuple[int, ...]) -> None:
    """Write ``source`` with ``columns`` of every word and empty node set to "_" (multiword
    token lines and comments as they are)."""
    with open(source, encoding="utf-8") as f, open(target, "w", encoding="utf-8") as out:
        for line in f:
            cells = line.rstrip("\n").split("\t")
            if len(cells) == 10 and "-" not in cells[0]:
                for c in columns:
                    cells[c] = "_"
                line = "\t".join(cells) + "\n"
            out.write(line)


def words_in(path: Path) -> int:
    with open(path, encoding="utf-8") as f:
        return sum(1 for line in f if line.split("\t", 1)[0].isdigit())


# --- scoring --------------------------------------------------------------------------------------


def conll18_scores(script: str, gold: Path, system: Path,
                   metrics: tuple[str, ...] = METRICS) -> dict[str, float | None]:  # fmt: skip
    """``metrics`` by the official CoNLL 2018 script (its F1 column), run as a process of its own."""
    result = subprocess.run([sys.executable, script, "-v", str(gold), str(system)], capture_output=True, text=True)
    if result.returncode != 0:
        lines = (result.stderr or result.stdout).strip().splitlines() or [f"exit status {result.returncode}"]
        raise RuntimeError(f"conll18_ud_eval.py: {lines[-1]}")
    found = {}
    for line in result.stdout.splitlines():
        cells = [c.strip() for c in line.split("|")]
        if len(cells) >= 4 and cells[0] in metrics:
            found[cells[0]] = float(cells[3])
    return {m: found.get(m) for m in metrics}


def _find(tree: object, key: str) -> float | None:
    """The figure under ``key`` anywhere in a JSON tree: a number, or a dict's accuracy/F1/score."""
    if isinstance(tree, dict):
        if key in tree:
            value = tree[key]
            if isinstance(value, dict):
                value = next((value[k] for k in ("accuracy", "F1", "f1", "score") if k in value), None)
            if isinstance(value, (int, float)):
                return float(value)
        for value in tree.values():
            figure = _find(value, key)
            if figure is not None:
                return figure
    return None


def maltpy_eval_scores(gold: Path, system: Path) -> dict[str, float | None]:
    """METRICS by ``maltpy eval --json --conll18``: its CoNLL 2018 LAS and its tag accuracies
    (None for those it does not report)."""
    result = subprocess.run([sys.executable, "-m", "maltpy", "eval", "--json", "--conll18", str(gold), str(system)],
                            capture_output=True, text=True)  # fmt: skip
    if result.returncode != 0:
        raise RuntimeError(f"maltpy eval: {result.stderr.strip()}")
    scores = json.loads(result.stdout)
    tags = scores.get("tags", scores)  # where maltpy eval puts them
    return {"LAS": _find(scores.get("conll18", {}), "LAS"), **{m: _find(tags, m) for m in TAGS}}


def scored(setup: Setup, gold: Path, system: Path) -> dict[str, float | None]:
    if setup.args.conll18:
        return conll18_scores(setup.args.conll18, gold, system)
    return maltpy_eval_scores(gold, system)


# --- running --------------------------------------------------------------------------------------


def timed(command: list[str], env: dict[str, str] | None = None) -> tuple[float, str]:
    """Run ``command``; its whole-process seconds and standard output. RuntimeError with the
    last line of its errors when it fails."""
    started = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True, env=env)
    seconds = time.perf_counter() - started
    if result.returncode != 0:
        lines = (result.stderr or result.stdout).strip().splitlines() or [f"exit status {result.returncode}"]
        raise RuntimeError(lines[-1])
    return seconds, result.stdout


def one_core() -> dict[str, str]:
    return {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def median_rate(words: int, seconds: list[float]) -> float:
    return words / statistics.median(seconds)


# --- UDPipe ---------------------------------------------------------------------------------------


def udpipe_model(setup: Setup, name: str, train: Path, parts: str = "tagger,parser",
                 stem: str = "") -> tuple[Path, float | None]:  # fmt: skip
    """The UDPipe model ``stem`` (default ``name``) in --work, DIR/STEM.udpipe (its ``parts``
    learned from ``train`` if missing), and the seconds its learning took, from its training log
    DIR/STEM.train.log."""
    work, stem = Path(setup.args.work), stem or name
    model, log = work / f"{stem}.udpipe", work / f"{stem}.train.log"
    if not model.exists():
        if setup.args.no_train:
            raise RuntimeError(f"no model {model} (--no-train)")
        work.mkdir(parents=True, exist_ok=True)
        script = Path(sys.argv[0]).name
        print(f"{script}: learning {model} with UDPipe 1.4 (7 to 40 minutes)", file=sys.stderr, flush=True)
        with open(log, "w", encoding="utf-8") as out:
            command = [*setup.pinned, setup.args.udpipe_python, "-c", UDPIPE_TRAIN, str(train), str(model), parts]
            if subprocess.run(command, stdout=out, stderr=subprocess.STDOUT, env=one_core()).returncode != 0:
                raise RuntimeError(f"UDPipe's learning failed: see {log}")
    seconds = None
    if log.exists():
        for line in log.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("seconds "):
                seconds = float(line.split()[1])
    return model, seconds


def udpipe_row(setup: Setup, name: str, train: Path, test: Path, blank: Path, untreed: Path) -> Row:
    """UDPipe 1.4 on the blanked test file (tagging and parsing, --runs times, in-process and
    whole-process seconds) and on the gold-tagged one (parsing). With --udpipe-cached, the figures
    the last run stored beside the model, if they are of this model."""
    row = Row("UDPipe 1.4")
    try:
        model, row.learn_s = udpipe_model(setup, name, train)
    except RuntimeError as e:
        row.error = str(e)
        return row
    stat = model.stat()
    stamp = {"model_bytes": stat.st_size, "model_mtime": stat.st_mtime, "conll18": bool(setup.args.conll18)}
    cache = model.with_suffix(".udpipe.json")
    if setup.args.udpipe_cached and cache.exists():
        stored = json.loads(cache.read_text(encoding="utf-8"))
        if stored.pop("stamp", None) == stamp:
            return Row(**stored)
    tagged, parsed = setup.scratch / f"{name}-udpipe.conllu", setup.scratch / f"{name}-udpipe-gold.conllu"
    tagging, parsing = (model, "conllu", "default", "default"), (model, "conllu", "none", "default")
    try:
        row.words_s, row.process_words_s = udpipe_speeds(setup, blank, tagged, [tagging], test)
        timed(udpipe_stages(setup, untreed, parsed, parsing), one_core())
        row.scores = scored(setup, test, tagged)
        row.gold_las = scored(setup, test, parsed)["LAS"]
    except (RuntimeError, ValueError) as e:
        row.error = f"UDPipe: {e}"
        return row
    fields = {k: v for k, v in vars(row).items() if k != "error"}
    cache.write_text(json.dumps({"stamp": stamp, **fields}, indent=1) + "\n", encoding="utf-8")
    return row


# --- maltpy ---------------------------------------------------------------------------------------


@dataclass
class Spec:
    """A maltpy row: its label, the maltpy command and flags that learn its model (``-q -i TRAIN
    -m MODEL`` added), and the points its LAS must be above UDPipe's."""

    label: str
    command: list[str]
    margin: float

    @classmethod
    def parse(cls, text: str) -> Spec:
        """LABEL[:MARGIN]=COMMAND FLAGS; COMMAND learn when empty; MARGIN 2 for blend and optimize,
        else 0."""
        label, sep, command = text.partition("=")
        if not sep or not label:
            raise argparse.ArgumentTypeError(f"{text!r}: a row is LABEL[:MARGIN]=COMMAND FLAGS")
        words = shlex.split(command) or ["learn"]
        label, _, margin = label.partition(":")
        try:
            points = float(margin) if margin else (2.0 if words[0] in ("blend", "optimize") else 0.0)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r}: the margin {margin!r} is not a number") from None
        return cls(label, words, points)


def learn_model(spec: Spec, train: Path, model: Path, stem: Path) -> float:
    """Learn ``model`` from ``train`` as ``spec`` says; its seconds. An ``optimize`` row searches
    into STEM-optimize/ and then learns what the search wrote: its blend where it kept one
    (``maltpy blend -c DIR/blend.yaml``, with the search's -tj), its configuration otherwise."""
    maltpy = [sys.executable, "-m", "maltpy"]
    if spec.command[0] != "optimize":
        return timed([*maltpy, *spec.command, "-q", "-i", str(train), "-m", str(model)])[0]
    out = Path(f"{stem}-optimize")
    shutil.rmtree(out, ignore_errors=True)
    seconds, _ = timed([*maltpy, *spec.command, "-q", "-i", str(train), "-o", str(out)])
    jackknife = spec.command[spec.command.index("-tj") + 1:][:1] if "-tj" in spec.command else []
    if (out / "blend.yaml").exists():
        learn = ["blend", "-c", str(out / "blend.yaml"), *(["-tj", *jackknife] if jackknife else [])]
    else:
        learn = ["learn", "-c", str(out / "config.yaml")]
    return seconds + timed([*maltpy, *learn, "-q", "-i", str(train), "-m", str(model)])[0]


def maltpy_speeds(setup: Setup, parse: list[str], model: Path, source: Path, output: Path, method: str,
                  test: Path) -> tuple[float, float]:  # fmt: skip
    """Words/s (``test``'s words) in-process and of the whole process: ``parse`` (maltpy parse with
    its flags and -m MODEL) of ``source`` into ``output`` --runs times, each followed by the
    model's ``method`` in-process (MALTPY_PARSE), which must write the same bytes."""
    inside, whole = [], []
    for _ in range(setup.args.runs):  # alternating: the whole process, then in-process
        whole.append(timed([*parse, "-i", str(source), "-o", str(output)], one_core())[0])
        run = [*setup.pinned, sys.executable, "-c", MALTPY_PARSE, str(model), str(source), f"{output}.api", method]
        inside.append(json.loads(timed(run, one_core())[1])["seconds"])
    if Path(f"{output}.api").read_bytes() != output.read_bytes():
        raise RuntimeError(f"the API's {method} of {source.name} is not maltpy parse's")
    return median_rate(words_in(test), inside), median_rate(words_in(test), whole)


def maltpy_row(setup: Setup, spec: Spec, name: str, train: Path, test: Path, blank: Path, untreed: Path) -> Row:
    """A maltpy model learned by ``spec`` from ``train``: its learning seconds, its LAS on the
    gold-tagged test file, and its tags and LAS on the blanked one, parsed --runs times on one
    core (whole process). A failing step leaves the row's error and the figures before it."""
    row = Row(spec.label)
    stem = setup.scratch / f"{name}-{spec.label.replace('/', '_')}"
    model, tagged, parsed = stem.with_suffix(".mpm"), Path(f"{stem}.conllu"), Path(f"{stem}-gold.conllu")
    maltpy = [sys.executable, "-m", "maltpy"]
    parse = [*setup.pinned, *maltpy, "parse", "-q", "--jobs", "1", "-m", str(model)]
    try:
        row.learn_s = learn_model(spec, train, model, stem)
        timed([*parse, "-i", str(untreed), "-o", str(parsed)], one_core())
        row.gold_las = scored(setup, test, parsed)["LAS"]
        row.words_s, row.process_words_s = maltpy_speeds(setup, parse, model, blank, tagged, "parse_conll", test)
        row.scores = scored(setup, test, tagged)
    except (RuntimeError, ValueError) as e:
        row.error = str(e)  # maltpy's errors begin "maltpy: error:"
    return row


# --- the table and the goals ----------------------------------------------------------------------

HEADER = ("treebank", "system", *METRICS[:-1], "LAS own", "LAS gold", "learn s", "words/s")


def figure(value: float | None, digits: int = 2) -> str:
    """A table's figure: ``value`` to ``digits`` places, "-" where it was not measured."""
    return "-" if value is None else f"{value:.{digits}f}"


def cells(name: str, row: Row) -> list[str]:
    scores = [figure(row.scores.get(m)) for m in METRICS]
    return [name, row.system, *scores, figure(row.gold_las), figure(row.learn_s, 0), figure(row.words_s, 0)]


def print_row(values: list[str], markdown: bool) -> None:
    if markdown:
        print("| " + " | ".join(values) + " |", flush=True)
    else:
        print(f"{values[0]:<13} {values[1]:<12} " + " ".join(f"{v:>8}" for v in values[2:]), flush=True)


def at_least(who: str, what: str, ours: float | None, theirs: float | None, times: float = 1,
             plus: float = 0) -> tuple[str, bool]:  # fmt: skip
    """The goal ``ours >= times * theirs + plus`` of ``who`` (the treebank and the row): what it
    says, and whether it holds; one that cannot be measured does not hold."""
    if ours is None or theirs is None:
        return f"{who}: {what}: {'UDPipe' if ours is not None else 'maltpy'}'s not measured", False
    digits = 0 if what.startswith("words/s") else 2
    bar = f"{times:g} x " * (times != 1) + f"UDPipe's {theirs:.{digits}f}" + f" + {plus:g}" * (plus != 0)
    return f"{who}: {what} {ours:.{digits}f} >= {bar}", ours >= times * theirs + plus


def goals(name: str, spec: Spec, row: Row, udpipe: Row) -> list[tuple[str, bool]]:
    """Issue 46's goals for ``row`` against UDPipe's: (what, whether it holds); one that cannot be
    measured does not hold."""
    who = f"{name} {spec.label}"
    if row.error:
        return [(f"{who}: {row.error}", False)]
    found = [at_least(who, m, row.scores.get(m), udpipe.scores.get(m)) for m in TAGS]
    found.append(at_least(who, "LAS own tags", row.scores.get("LAS"), udpipe.scores.get("LAS"), plus=spec.margin))
    if spec.command[0] == "learn":
        found.append(at_least(who, "words/s", row.words_s, udpipe.words_s, times=SPEEDUP))
    return found


def bench_treebank(setup: Setup, name: str, specs: list[Spec]) -> list[tuple[str, bool]]:
    """Print the rows of one treebank; its goals."""
    folder, train_name, test_name = TREEBANKS[name]
    train, test = UD / folder / train_name, UD / folder / test_name
    blank, untreed = setup.scratch / f"{name}-blank.conllu", setup.scratch / f"{name}-untreed.conllu"
    blanked(test, blank, TAG_COLUMNS + TREE_COLUMNS)
    blanked(test, untreed, TREE_COLUMNS)
    udpipe = udpipe_row(setup, name, train, test, blank, untreed)
    found = []
    other = "in-process" if setup.args.udpipe_speed == "process" else "as a whole process (model loading included)"
    for row, spec in [(udpipe, None), *((maltpy_row(setup, s, name, train, test, blank, untreed), s) for s in specs)]:
        if row.process_words_s is not None and setup.args.udpipe_speed == "process":
            row.words_s, row.process_words_s = row.process_words_s, row.words_s  # the one compared, shown
        print_row(cells(name, row), setup.args.markdown)
        if row.error:
            print(f"  {row.system}: {row.error}", flush=True)
        elif row.process_words_s is not None:
            print(f"  {row.system}'s words/s {other}: {row.process_words_s:.0f}")
        found += [(f"{name} UDPipe 1.4: {row.error}", False)] if spec is None and row.error else []
        found += goals(name, spec, row, udpipe) if spec is not None else []
    return found


def add_arguments(parser: argparse.ArgumentParser, treebanks, parsed: str, models: str, row: Callable,
                  margins: str, example: str) -> None:  # fmt: skip
    """The options this script and bench_raw_text.py share: ``parsed`` what is timed, ``models``
    UDPipe's model files, ``row`` what reads a --row, ``margins`` its LAS margins' default."""
    parser.add_argument("--treebanks", default=",".join(treebanks),
                        help=f"a comma list of {', '.join(treebanks)} (default: all)")  # fmt: skip
    parser.add_argument("--runs", type=int, default=3, help=f"parses of each {parsed} timed (the median is shown)")
    parser.add_argument("--udpipe-python", default=sys.executable,
                        help="a Python with ufal.udpipe 1.4 (default: this one)")  # fmt: skip
    parser.add_argument("--work", default=str(Path.home() / ".cache" / "maltpy-bench-tagger"),
                        help=f"where UDPipe's models are, {models}, learned there if missing")  # fmt: skip
    parser.add_argument("--no-train", action="store_true",
                        help="never learn a UDPipe model: a missing one fails the treebank")  # fmt: skip
    parser.add_argument("--udpipe-cached", action="store_true",
                        help="UDPipe's figures stored by the last run with the same models, if any, not measured "
                        "anew")  # fmt: skip
    parser.add_argument("--conll18", metavar="PATH", help="the CoNLL 2018 shared task's conll18_ud_eval.py "
                        "(default: maltpy eval's figures)")  # fmt: skip
    parser.add_argument("--row", dest="rows", action="append", type=row, metavar="LABEL[:MARGIN]=COMMAND",
                        help=f"a maltpy row: a label, the points its LAS must be above UDPipe's (default: {margins}), "
                        f"the maltpy command and flags that learn its model, e.g. {example}; may be repeated "
                        "(default: maltpy=learn)")  # fmt: skip
    parser.add_argument("--cpu", type=int, default=0, help="the core parsing is pinned to (taskset)")
    parser.add_argument("--keep", metavar="DIR", help="write the texts, parses and maltpy's models to DIR "
                        "(default: removed)")  # fmt: skip
    parser.add_argument("--markdown", action="store_true", help="print a Markdown table")


def checked_arguments(parser: argparse.ArgumentParser, treebanks, row: Callable) -> argparse.Namespace:
    """The parsed options of ``add_arguments``, checked (``parser.error`` if not)."""
    args = parser.parse_args()
    args.treebanks = [t for t in args.treebanks.split(",") if t]
    unknown = [t for t in args.treebanks if t not in treebanks]
    if unknown or not args.treebanks or args.runs < 1:
        parser.error(f"--treebanks takes {', '.join(treebanks)}; --runs at least 1")
    if args.conll18 and not Path(args.conll18).is_file():
        parser.error(f"--conll18: no file {args.conll18}")
    if subprocess.run([args.udpipe_python, "-c", "import ufal.udpipe"], capture_output=True).returncode != 0:
        parser.error(f"{args.udpipe_python} cannot import ufal.udpipe: give --udpipe-python (the docstring says how)")
    args.rows = args.rows or [row("maltpy=learn")]
    if len({spec.label for spec in args.rows}) < len(args.rows):
        parser.error("--row: two rows with the same label")
    return args


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_arguments(parser, TREEBANKS, "blanked file", "DIR/<treebank>.udpipe", Spec.parse, "2 for blend, else 0",
                  "'jackknife=learn -tj 10'")  # fmt: skip
    parser.add_argument("--udpipe-speed", choices=("inprocess", "process"), default="inprocess",
                        help="UDPipe's words/s shown and compared: its own in-process figure (the issue's) or its "
                        "whole process's, as maltpy's are measured")  # fmt: skip
    return checked_arguments(parser, TREEBANKS, Spec.parse)


Goals = list[tuple[str, bool]]  # (what, whether it holds)


def run_treebanks(args: argparse.Namespace, header: tuple[str, ...],
                  bench: Callable[[Setup, str], Goals]) -> tuple[Setup, Goals]:  # fmt: skip
    """The table's header, then ``bench`` of each treebank of --treebanks (its rows printed), in a
    scratch folder (--keep's, or a temporary one); the setup and every goal found."""
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(args.keep or tmp)
        scratch.mkdir(parents=True, exist_ok=True)
        setup = Setup(args, scratch)
        if args.markdown:
            print("| " + " | ".join(header) + " |\n|" + "---|" * len(header))
        else:
            print_row(list(header), False)
        found = []
        for name in args.treebanks:
            found += bench(setup, name)
    return setup, found


def report_goals(issue: int, found: Goals) -> int:
    """Each goal, ok or FAILED, and how many hold; the exit status: 1 if one failed."""
    print(f"Goals (issue {issue}):")
    for what, ok in found:
        print(f"  {'ok    ' if ok else 'FAILED'} {what}")
    failed = sum(not ok for _, ok in found)
    print(f"{len(found) - failed} of {len(found)} goals hold")
    return 1 if failed else 0


def main() -> int:
    args = arguments()
    setup, found = run_treebanks(args, HEADER, lambda setup, name: bench_treebank(setup, name, args.rows))
    scoring = "conll18_ud_eval.py" if args.conll18 else "maltpy eval"
    pinned = f"pinned to core {args.cpu}" if setup.pinned else "not pinned (no taskset)"
    compared = ("in-process (UDPipe's Pipeline.process, maltpy's Model.parse_conll, the model loaded)"
                if args.udpipe_speed == "inprocess" else "whole processes (maltpy parse --jobs 1)")  # fmt: skip
    print(f"\nScores: {scoring}. Words/s: medians of {args.runs} runs, one thread, {pinned}; {compared}.")
    return report_goals(46, found)


if __name__ == "__main__":
    sys.exit(main())
