#!/usr/bin/env python3
"""Measure parser configurations for Universal Dependencies treebanks (issue 46, item 6).

Which configuration should plain `maltpy learn` on a CoNLL-U treebank use? Each configuration
(algorithm, feature model, learner options) is learned on a treebank's training file and
scored on its test file twice: with the test file's gold tags, and with the tags UDPipe 1.4
predicts (the stand-in for maltpy's own taggers: the test file with LEMMA, UPOS, XPOS and FEATS
blanked, tagged by a UDPipe model trained on the same training file). LAS is the CoNLL 2018
shared task's (`maltpy eval --conll18`: every word, punctuation too, the universal part of the
label). Times are CPU seconds (the machine is shared: wall time says more of the neighbours):
learning as a whole process; parsing in process (the model loaded, the test file read: words
per second of parsing alone, the fastest of --repeat) and as a whole `maltpy parse` process
(start, model loading and writing included), on one core.

    python scripts/ud_defaults.py                                   # every treebank and configuration
    python scripts/ud_defaults.py --treebank en_lines --config ne-base --config sp-ud
    python scripts/ud_defaults.py --markdown                        # the table in Markdown

Results are kept in WORK/results.json (default WORK: $TMPDIR/maltpy-ud-defaults) and a run
reuses them (--again measures the rows asked for anew). UDPipe: --udpipe-python names a
Python with ufal.udpipe, --udpipe-models a folder of <treebank>.udpipe models; without them the
predicted-tag column is left empty. The ablation models are written to WORK from the groups
below; the proposed UD models are feature_models/liblinear/ud/.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shlex
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
UD = ROOT.parent / "shared" / "data" / "ud"
DEFAULTS = ROOT / "feature_models" / "liblinear" / "conllu"
PROPOSED = ROOT / "feature_models" / "liblinear" / "ud"

#: treebank: (training file, test file); da_ddt and sv_talbanken learn from their dev file.
TREEBANKS = {
    "en_lines": ("UD_English-LinES/en_lines-ud-train.conllu", "UD_English-LinES/en_lines-ud-test.conllu"),
    "la_perseus": ("UD_Latin-Perseus/la_perseus-ud-train.conllu", "UD_Latin-Perseus/la_perseus-ud-test.conllu"),
    "da_ddt": ("UD_Danish-DDT/da_ddt-ud-dev.conllu", "UD_Danish-DDT/da_ddt-ud-test.conllu"),
    "sv_talbanken": ("UD_Swedish-Talbanken/sv_talbanken-ud-dev.conllu",
                     "UD_Swedish-Talbanken/sv_talbanken-ud-test.conllu"),
}  # fmt: skip

#: The addresses of the two words an arc joins (a: left, b: right), of the next word (c) and of
#: the word under a on the stack (d), by
#: system: arc-eager's Stack[0] and Input[0]; the stack systems' Stack[1] and Stack[0].
ADDRESSES = {
    "nivre": {"a": "Stack[0]", "b": "Input[0]", "c": "Input[1]", "d": "Stack[1]"},
    "stack": {"a": "Stack[1]", "b": "Stack[0]", "c": "Lookahead[0]", "d": "Stack[2]"},
}

#: Groups of features added to MaltParser's default model for the ablation rows.
GROUPS = {
    "feats": [r"Split(InputColumn(FEATS, {a}), \|)", r"Split(InputColumn(FEATS, {b}), \|)",
              r"Split(InputColumn(FEATS, {c}), \|)"],
    "featsw": ["InputColumn(FEATS, {a})", "InputColumn(FEATS, {b})", "InputColumn(FEATS, {c})"],
    "lemma": ["InputColumn(LEMMA, {a})", "InputColumn(LEMMA, {b})"],
    "xpos": ["InputColumn(XPOSTAG, {a})", "InputColumn(XPOSTAG, {b})", "InputColumn(XPOSTAG, {c})"],
    "merge": ["Merge(InputColumn(UPOSTAG, {a}), InputColumn(FEATS, {a}))",
              "Merge(InputColumn(UPOSTAG, {b}), InputColumn(FEATS, {b}))",
              "Merge(InputColumn(UPOSTAG, {c}), InputColumn(FEATS, {c}))",
              "Merge(InputColumn(FEATS, {a}), InputColumn(FEATS, {b}))"],
    "more": ["InputColumn(FEATS, {d})", "InputColumn(LEMMA, {c})",
             "Merge(InputColumn(UPOSTAG, {d}), InputColumn(FEATS, {d}))"],
    "cross": ["Merge(InputColumn(FEATS, {a}), InputColumn(UPOSTAG, {b}))",
              "Merge(InputColumn(UPOSTAG, {a}), InputColumn(FEATS, {b}))",
              "InputColumn(FEATS, ldep({b}))", "InputColumn(FEATS, rdep({a}))"],
    "deprel": ["Merge3(InputColumn(UPOSTAG, {b}), OutputColumn(DEPREL, ldep({b})), OutputColumn(DEPREL, rdep({b})))",
               "OutputColumn(DEPREL, rdep({b}))", "InputColumn(LEMMA, head({a}))"],
}  # fmt: skip

#: Algorithms: flags, default model file, address family.
ALGORITHMS = {
    "ne": (["-a", "nivreeager"], "nivreeager", "nivre"),
    "nepp": (["-a", "nivreeager", "-pp", "head"], "nivreeager", "nivre"),
    "ns": (["-a", "nivrestandard"], "nivrestandard", "nivre"),
    "nspp": (["-a", "nivrestandard", "-pp", "head"], "nivrestandard", "nivre"),
    "nspath": (["-a", "nivrestandard", "-pp", "path"], "nivrestandard", "nivre"),
    "nshp": (["-a", "nivrestandard", "-pp", "head+path"], "nivrestandard", "nivre"),
    "sp": (["-a", "stackproj", "-pp", "head"], "stackproj", "stack"),
    "sl": (["-a", "stacklazy"], "stackswap", "stack"),
}

#: Configuration name: (algorithm, feature groups added, or "ud" for the proposed file, -lo).
CONFIGS = {
    "ne-base": ("ne", (), None),
    "ne-feats": ("ne", ("feats",), None),
    "ne-featsw": ("ne", ("featsw",), None),
    "ne-fw-lemma": ("ne", ("featsw", "lemma"), None),
    "ne-fw-lemma-xpos": ("ne", ("featsw", "lemma", "xpos"), None),
    "ne-fw-lxm": ("ne", ("featsw", "lemma", "xpos", "merge"), None),
    "ne-fw-lxmd": ("ne", ("featsw", "lemma", "xpos", "merge", "deprel"), None),
    "ne-ud": ("ne", "ud", None),
    "nepp-ud": ("nepp", "ud", None),
    "ns-ud": ("ns", "ud", None),
    "nspp-ud": ("nspp", "ud", None),
    "nspp-base": ("nspp", (), None),
    "nspp-fw-lxm": ("nspp", ("featsw", "lemma", "xpos", "merge"), None),
    "nspp-fs-lxm": ("nspp", ("feats", "lemma", "xpos", "merge"), None),
    "nspp-fw-lxm-more": ("nspp", ("featsw", "lemma", "xpos", "merge", "more"), None),
    "nspp-fw-lxm-cross": ("nspp", ("featsw", "lemma", "xpos", "merge", "cross"), None),
    "nspp-fw-lxm-more-cross": ("nspp", ("featsw", "lemma", "xpos", "merge", "more", "cross"), None),
    "nspath-ud": ("nspath", "ud", None),
    "nshp-ud": ("nshp", "ud", None),
    "sp-base": ("sp", (), None),
    "sp-ud": ("sp", "ud", None),
    "sl-base": ("sl", (), None),
    "sl-ud": ("sl", "ud", None),
    "nspp-ud-c0.05": ("nspp", "ud", "-s 4 -c 0.05 -e 0.1 -B -1"),
    "nspp-ud-c0.2": ("nspp", "ud", "-s 4 -c 0.2 -e 0.1 -B -1"),
}


def feature_file(config: str, work: Path) -> Path:
    """The feature model of a configuration: the proposed UD file, or MaltParser's default with
    the configuration's groups added (written to WORK)."""
    algorithm, groups, _ = CONFIGS[config]
    _, model, family = ALGORITHMS[algorithm]
    if groups == "ud":
        return PROPOSED / f"{model}.txt"
    lines = [line for line in (DEFAULTS / f"{model}.txt").read_text().splitlines() if not line.startswith("#")]
    for group in groups:
        lines += [feature.format(**ADDRESSES[family]) for feature in GROUPS[group]]
    path = work / f"{config}.txt"
    path.write_text("\n".join(lines) + "\n")
    return path


def maltpy(*args: str) -> str:
    result = subprocess.run([sys.executable, "-m", "maltpy", *args], capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"maltpy {shlex.join(args)} failed: {result.stderr.strip()}")
    return result.stdout


def cpu_seconds(*args: str) -> float:
    """The CPU seconds (user and system) of a `maltpy` process: on a shared machine, the figure
    that other processes disturb least."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    maltpy(*args)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


TAGGER = """
import sys
from ufal.udpipe import Model, Pipeline
model = Model.load(sys.argv[1])
if model is None:
    sys.exit("cannot load " + sys.argv[1])
sys.stdout.write(Pipeline(model, "conllu", Pipeline.DEFAULT, Pipeline.NONE, "conllu").process(sys.stdin.read()))
"""


TRAINER = """
import sys
import ufal.udpipe as u
text = u.InputFormat.newConlluInputFormat()
text.setText(open(sys.argv[1], encoding="utf-8").read())
sentences, sentence, error = u.Sentences(), u.Sentence(), u.ProcessingError()
while text.nextSentence(sentence, error):
    sentences.push_back(sentence)
    sentence = u.Sentence()
model = u.Trainer.train("morphodita_parsito", sentences, u.Sentences(), "none", u.Trainer.DEFAULT, "none", error)
if error.occurred():
    sys.exit(error.message)
open(sys.argv[2], "wb").write(model.encode("latin-1") if isinstance(model, str) else model)
"""


def udpipe_model(treebank: str, args, work: Path) -> Path | None:
    """UDPipe's model for the treebank: --udpipe-models's (tagger and parser), or with
    --udpipe-train one with its tagger alone, trained with UDPipe's defaults into WORK (the same
    tagger: UDPipe trains its tagger apart from its parser)."""
    for model in (Path(args.udpipe_models) / f"{treebank}.udpipe", work / f"{treebank}.tagger.udpipe"):
        if model.exists():
            return model
    if not args.udpipe_train or not Path(args.udpipe_python).exists():
        return None
    print(f"training UDPipe's tagger on {treebank} ...", file=sys.stderr, flush=True)
    env = dict(os.environ, OMP_NUM_THREADS="1")
    subprocess.run([args.udpipe_python, "-c", TRAINER, str(UD / TREEBANKS[treebank][0]), str(model)],
                   check=True, env=env)  # fmt: skip
    return model


def udpipe_tagged(treebank: str, test: Path, args, work: Path) -> Path | None:
    """The test file with LEMMA, UPOS, XPOS and FEATS predicted by UDPipe (None without a model)."""
    out = work / f"{treebank}.udpipe.conllu"
    if out.exists():
        return out
    model = udpipe_model(treebank, args, work)
    if model is None:
        return None
    blank = []
    for line in test.read_text(encoding="utf-8").splitlines():
        cells = line.split("\t")
        if len(cells) == 10 and cells[0].isdigit():
            cells[2:6] = ["_"] * 4
        blank.append("\t".join(cells))
    env = dict(os.environ, OMP_NUM_THREADS="1")
    result = subprocess.run([args.udpipe_python, "-c", TAGGER, str(model)], input="\n".join(blank) + "\n",
                            capture_output=True, text=True, env=env)  # fmt: skip
    if result.returncode != 0:
        raise RuntimeError(f"UDPipe tagging failed: {result.stderr.strip()}")
    lines = []
    for line in result.stdout.splitlines():  # a predicted lemma may end in a space ('bl ')
        cells = line.split("\t")
        if len(cells) == 10:
            cells = [cell.strip() or "_" for cell in cells]
        lines.append("\t".join(cells))
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


def parse_and_score(model_path: Path, test: Path, gold: Path, out: Path, repeat: int = 1) -> tuple[float, float]:
    """LAS (CoNLL 2018) of the model on ``test`` against ``gold``, and its parse words/s (the
    fastest of ``repeat`` parses: the machine is shared)."""
    import maltpy as mp

    seconds = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = mp.load_model(model_path)
        for _ in range(repeat):
            sentences = list(mp.read_conll(test))
            started = time.process_time()
            parsed = list(model.parse(sentences))
            seconds.append(time.process_time() - started)
    mp.write_conll(parsed, out)
    scores = json.loads(maltpy("eval", "--conll18", "--json", str(gold), str(out)))
    return scores["conll18"]["LAS"], scores["tokens"] / min(seconds)


def measure(treebank: str, config: str, args, work: Path) -> dict:
    train, test = (UD / name for name in TREEBANKS[treebank])
    algorithm, _, options = CONFIGS[config]
    flags = [*ALGORITHMS[algorithm][0], "-F", str(feature_file(config, work))]
    if options:
        flags += ["-lo", options]
    model = work / f"{treebank}.{config}.mpm"
    learn_s = cpu_seconds("learn", "-q", "-i", str(train), "-m", str(model), *flags)
    row = {"treebank": treebank, "config": config, "flags": shlex.join(flags), "learn_s": learn_s}
    gold = work / f"{treebank}.{config}.gold.conllu"
    row["las_gold"], row["words_s"] = parse_and_score(model, test, test, gold, args.repeat)
    seconds = cpu_seconds("parse", "-m", str(model), "-i", str(test), "-o", str(gold))  # as `maltpy parse` is used
    row["process_words_s"] = json.loads(maltpy("eval", "--json", str(test), str(gold)))["tokens"] / seconds
    tagged = udpipe_tagged(treebank, test, args, work)
    if tagged is not None:
        row["las_udpipe"], _ = parse_and_score(model, tagged, test, work / f"{treebank}.{config}.udpipe.conllu")
    model.unlink()
    return row


def table(rows: list[dict], markdown: bool) -> str:
    head = ["treebank", "config", "LAS gold", "LAS UDPipe tags", "learn CPU s", "parse words/s", "process words/s"]
    body = [[r["treebank"], r["config"], f"{r['las_gold']:.2f}",
             f"{r['las_udpipe']:.2f}" if "las_udpipe" in r else "-", f"{r['learn_s']:.1f}",
             f"{r['words_s']:,.0f}", f"{r['process_words_s']:,.0f}" if "process_words_s" in r else "-"]
            for r in rows]  # fmt: skip
    if markdown:
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        return "\n".join(lines + ["| " + " | ".join(cells) + " |" for cells in body])
    widths = [max(len(x) for x in column) for column in zip(head, *body)]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(cells, widths)) for cells in [head, *body])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--treebank", action="append", choices=TREEBANKS, help="default: all")
    parser.add_argument("--config", action="append", choices=CONFIGS, help="default: all")
    parser.add_argument("--work", default=Path(tempfile.gettempdir()) / "maltpy-ud-defaults", type=Path)
    parser.add_argument("--udpipe-python", default="/work/udpipe-venv/bin/python")
    parser.add_argument("--udpipe-models", default="/work/ref")
    parser.add_argument(
        "--udpipe-train",
        action="store_true",
        help="where --udpipe-models has no model for a treebank, train UDPipe's tagger into WORK",
    )
    parser.add_argument("--repeat", type=int, default=3, help="parses timed; the fastest counts (default: 3)")
    parser.add_argument("--again", action="store_true", help="measure the rows asked for anew")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    store = args.work / "results.json"
    results = json.loads(store.read_text()) if store.exists() else {}
    rows = []
    for treebank in args.treebank or TREEBANKS:
        for config in args.config or CONFIGS:
            key = f"{treebank} {config}"
            if (
                args.again
                or key not in results
                or (
                    "las_udpipe" not in results[key]
                    and udpipe_tagged(treebank, UD / TREEBANKS[treebank][1], args, args.work)
                )
            ):
                results[key] = measure(treebank, config, args, args.work)
                store.write_text(json.dumps(results, indent=1))
                print(table([results[key]], False).splitlines()[1], file=sys.stderr, flush=True)
            rows.append(results[key])
    print(table(rows, args.markdown))


if __name__ == "__main__":
    main()
