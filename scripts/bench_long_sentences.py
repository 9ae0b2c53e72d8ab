#!/usr/bin/env python3
"""Long sentences against ordinary text: µs per token of parsing, per algorithm and length.

A long sentence is made of the sentences of a treebank's test file, taken in turn until it has
at least the tokens asked for, joined into one tree: each sentence's root word attached to the
root word of the sentence before it (``--shape chain``, the default: the tree is as deep as
there are sentences) or of the first sentence (``--shape star``: one word with a dependent per
sentence); word IDs, heads and multiword-token ranges renumbered, comments but the first
sent_id and the empty nodes left out, DEPS (CoNLL-X's PHEAD) blanked. For each algorithm (a LIBLINEAR model
learned on the train file, kept in --models) the script times, in one process, reading the
CoNLL text, parsing it and writing the parses, for the test file (ordinary text) and for one
sentence of each length, and prints µs per token (the median of --runs runs, taken in turn) and
its ratio to ordinary text. Covington's non-projective system compares every pair of words
(Nivre 2008, §5): it is timed up to --covington-max tokens, beyond which the table says "-".

    python scripts/bench_long_sentences.py [--runs 3] [--lengths 1000 10000 50000]
                                           [--algorithms nivreeager ...] [--learner liblinear]
                                           [--option="-pp head"] [--shape chain|star]
                                           [--models /tmp/long-models] [--shared ../shared]
"""

from __future__ import annotations

import argparse
import io
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

SHARED = Path(__file__).resolve().parents[2] / "shared"
TREEBANK = Path("data") / "ud" / "UD_English-LinES" / "en_lines-ud"  # under the shared folder


def long_sentence(sentences: list, tokens: int, shape: str = "chain"):
    """One sentence of at least ``tokens`` words made of ``sentences`` (maltpy Sentences with
    heads, taken in turn, again from the first when they run out), as the module docstring says."""
    from maltpy.data.conll import DEPREL, DEPS, HEAD, ID, Sentence

    words: list[list[str]] = []
    extra: list[tuple[int, str]] = []
    fmt = sentences[0].format
    anchor = 0  # the word the next sentence's root word goes below (0: none yet)
    k = 0
    while len(words) < tokens:
        s = sentences[k % len(sentences)]
        k += 1
        base = len(words)
        for before, line in s.extra:
            fields = line.split("\t")
            if line.startswith("#"):
                if not extra and "sent_id" in line:
                    extra.append((0, f"# sent_id = long-{tokens}-{shape}"))
            elif "-" in fields[ID]:
                first, last = fields[ID].split("-")
                fields[ID] = f"{int(first) + base}-{int(last) + base}"
                extra.append((before + base, "\t".join(fields)))
        root = 0
        for i, w in enumerate(s.words, 1):
            w = list(w)
            w[ID] = str(base + i)
            if w[HEAD] == "0":
                root = base + i
                if anchor:
                    w[HEAD], w[DEPREL] = str(anchor), "parataxis"
            else:
                w[HEAD] = str(int(w[HEAD]) + base)
            w[DEPS] = "_"
            words.append(w)
        if shape == "chain" or not anchor:
            anchor = root
    return Sentence(words, fmt, 1, extra)


def read(path: Path) -> list:
    from maltpy.data.conll import ConllReader

    with open(path, "rb") as f:
        return list(ConllReader(f, str(path)))


def text_of(sentences: list) -> bytes:
    from maltpy.data.conll import format_sentence

    return "".join(format_sentence(s) for s in sentences).encode("utf-8")


def seconds(model, data: bytes, name: str) -> float:
    """Read ``data`` as CoNLL, parse it and write the parses (to memory), as ``maltpy parse`` does."""
    from maltpy.data.conll import ConllReader, format_sentence

    started = time.perf_counter()
    out = io.BytesIO()
    for sentence in model.parse(ConllReader(io.BytesIO(data), name)):
        out.write(format_sentence(sentence).encode("utf-8"))
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--lengths", type=int, nargs="*", default=[1000, 10000, 50000])
    parser.add_argument("--algorithms", nargs="*", help="the algorithms to bench (default: all)")
    parser.add_argument("--learner", default="liblinear")
    parser.add_argument("--option", default="", help='more flags for maltpy learn: --option="-pp head"')
    parser.add_argument("--shape", choices=("chain", "star"), default="chain")
    parser.add_argument("--covington-max", type=int, default=2000)
    parser.add_argument("--models", type=Path, default=Path("/tmp/maltpy-long-models"))
    parser.add_argument("--shared", type=Path, default=SHARED)
    args = parser.parse_args()
    args.option = shlex.split(args.option)
    from maltpy.models.parser import Model
    from maltpy.transition import SYSTEMS

    args.algorithms = args.algorithms or list(SYSTEMS)

    treebank = args.shared / TREEBANK
    test = read(Path(f"{treebank}-test.conllu"))
    inputs = {"text": text_of(test)}
    sizes = {"text": sum(len(s) for s in test)}
    for n in args.lengths:
        long = long_sentence(test, n, args.shape)
        inputs[f"{n}"], sizes[f"{n}"] = text_of([long]), len(long)
    args.models.mkdir(parents=True, exist_ok=True)
    print(f"µs per token, median of {args.runs} runs ({args.learner} {' '.join(args.option)}, {args.shape}); "
          f"(ratio to ordinary text); tokens: " + ", ".join(f"{k} {v}" for k, v in sizes.items()))  # fmt: skip
    print("| algorithm | " + " | ".join(inputs) + " |")
    print("|---|" + "---:|" * len(inputs))
    for algorithm in args.algorithms:
        name = "-".join([algorithm, args.learner, *(o.lstrip("-") for o in args.option)])
        path = args.models / f"{name}.mpm"
        if not path.exists():
            subprocess.run([sys.executable, "-m", "maltpy", "learn", "-q", "-a", algorithm, "-l", args.learner,
                            *args.option, "-i", f"{treebank}-train.conllu", "-m", str(path)], check=True)  # fmt: skip
        model = Model.load(path)
        # the runs interleaved, input after input, so that a busy spell of a shared machine
        # falls on every input alike
        quadratic = algorithm == "covnonproj"
        keys = [k for k in inputs if not (quadratic and k != "text" and sizes[k] > args.covington_max)]
        times: dict[str, list[float]] = {k: [] for k in keys}
        for _ in range(args.runs):
            for key in keys:
                times[key].append(seconds(model, inputs[key], key))
        base = statistics.median(times["text"]) / sizes["text"] * 1e6
        cells = [f"{base:.1f}"]
        for key in list(inputs)[1:]:
            if key not in times:
                cells.append("-")
                continue
            per_token = statistics.median(times[key]) / sizes[key] * 1e6
            cells.append(f"{per_token:.1f} ({per_token / base:.1f})")
        print(f"| {algorithm} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
