"""maltpy convert, oracle, proj and deproj: commands over treebanks."""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import nullcontext

import click

from ..config import Config, idle_option
from ..data.conll import FORMATS, format_sentence
from ..data.pseudoproj import (
    COVERED_ROOTS,
    LIFTING_ORDERS,
    MARKING_STRATEGIES,
    Encoding,
    check_unmarked,
    deprojectivize,
    projectivize,
)
from ..errors import MaltpyError
from ..files import atomic_output, is_std, read_conll, standard_output, write_result
from ..graph import is_graph_based
from ..transition.oracle import oracle_statistics, oracle_table
from .common import config_from, config_options, format_option, progress_bar, progress_line


@click.command("convert")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar on stderr (it shows only on a terminal).")
@click.option("-i", "--input", "input_path", metavar="FILE", help="Input file (default: standard input).")
@click.option("-o", "--output", "output_path", metavar="FILE", help="Output file (default: standard output).")
@click.option("--to", "to_format", type=click.Choice(FORMATS), required=True, help="Output format.")
@format_option()
@click.option(
    "--postag-from",
    type=click.Choice(("xpos", "upos")),
    default="xpos",
    show_default=True,
    help="CoNLL-U to CoNLL-X: the CoNLL-U column that fills POSTAG.",
)
def convert_command(
    quiet: bool, input_path: str | None, output_path: str | None, to_format: str, format_: str, postag_from: str
) -> None:
    """Convert between CoNLL-X and CoNLL-U.

    Reading a file and writing it in its own format reproduces it (line ends become LF).
    CoNLL-U to CoNLL-X drops comments, multiword-token lines and empty nodes and blanks
    PHEAD/PDEPREL; CoNLL-X to CoNLL-U blanks DEPS/MISC.

    \b
    Example:
      maltpy convert -i en_lines-ud-train.conllu -o en_lines-ud-train.conllx --to conllx --postag-from upos
    """
    with read_conll(input_path, format_) as reader, atomic_output(output_path) as out:
        bar = progress_bar(reader, "converted", quiet, output_path)
        for sentence in reader:
            out.write(format_sentence(sentence, to_format, postag_from).encode("utf-8"))
            if bar:
                bar.add(len(sentence), sentence.line)
    if bar:
        bar.close()


@click.command("oracle")
@config_options("singlemalt", "nivre", "covington", "multiplanar", "planar", "2planar", "graph", "input", "pproj")
@click.option("-i", "--input", "input_path", metavar="FILE", help="Gold treebank (default: standard input).")
@click.option(
    "-o", "--output", "output_path", metavar="FILE", help="Write the rebuilt trees here (default: not written)."
)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of a table.")
def oracle_command(input_path: str | None, output_path: str | None, as_json: bool, **kwargs: object) -> None:
    """Replay a transition system's oracle over every gold tree and rebuild the trees.

    Prints sentences, tokens, non-projective sentences, planar and 2-planar sentences (the
    root's arcs counted), sentences rebuilt exactly (heads and labels), transitions,
    transitions per token and swaps (2planar: switches). A projective system rebuilds what it
    can of a non-projective tree; planar and 2planar also print how many of the trees of
    their class are rebuilt. The algorithm and its options come from -c and the flags (-a,
    -nr, -ne, -cr, -cs, -cd, -prh, -pcon, -pacy, -pcov, -2pr, -grl); with -pd right-to-left the
    oracle replays each tree reversed and maps it back. With pseudo-projective parsing (-pp,
    -pcr, -plo) the oracle runs over the projectivized trees, as learning does, it also
    prints the sentences and arcs lifted, and a tree counts as rebuilt when its rebuilt
    tree, deprojectivized, is the gold tree.

    \b
    Example:
      maltpy oracle -a stacklazy -i la_perseus-ud-train.conllu --json
    """
    standard_output()  # the counts (or the trees) go there
    config = config_from(kwargs)
    if is_graph_based(config.singlemalt.parsing_algorithm):
        raise MaltpyError(f"{config.singlemalt.parsing_algorithm} is graph-based: it has no transitions, so no oracle "
                          "(its learning compares whole trees)", "command line")  # fmt: skip
    writing = output_path is not None
    with (
        read_conll(input_path, config.input.format) as reader,
        atomic_output(output_path) if writing else nullcontext() as out,
    ):
        write = (lambda sentence: out.write(format_sentence(sentence).encode("utf-8"))) if writing else None
        stats = oracle_statistics(config, reader, reader.name, write)
    # the trees have standard output, the counts standard error
    show = (lambda text: click.echo(text, err=True)) if writing and is_std(output_path) else write_result
    show(json.dumps(stats) if as_json else oracle_table(stats))


def _pproj_options(command: Callable) -> Callable:
    for option in reversed((
        click.option("-i", "--input", "input_path", metavar="FILE", help="Input (default: standard input)."),
        click.option("-o", "--output", "output_path", metavar="FILE", help="Output (default: standard output)."),
        format_option(),
        click.option("-pp", "--marking-strategy", type=click.Choice(MARKING_STRATEGIES), required=True,
                     help="The label encoding (MaltParser's -pp)."),
        click.option("-q", "--quiet", is_flag=True, help="No summary on stderr."),
    )):  # fmt: skip
        command = option(command)
    return command


@click.command("proj")
@_pproj_options
@click.option("-pcr", "--covered-root", type=click.Choice(COVERED_ROOTS), default="none", show_default=True,
              help="Words on the root inside a non-root arc (MaltParser's -pcr).")  # fmt: skip
@click.option("-plo", "--lifting-order", type=click.Choice(LIFTING_ORDERS), default="shortest", show_default=True,
              help="The arc lifted first (MaltParser's -plo).")  # fmt: skip
def proj_command(input_path: str | None, output_path: str | None, format_: str, marking_strategy: str,
                 quiet: bool, covered_root: str, lifting_order: str) -> None:  # fmt: skip
    """Projectivize a treebank (Nivre & Nilsson 2005; MaltParser's -m proj).

    Lifts each non-projective arc to the head's head until the tree is projective and marks
    the lifts in DEPREL in MaltParser's syntax: head d|h, path d| and d%, head+path d|h and
    d%; baseline lifts without marks. Every other column and line is written as it was read.

    \b
    Example:
      maltpy proj -i train.conllx -o train.proj.conllx --marking-strategy head+path
    """
    encoding = Encoding(marking_strategy, covered_root, lifting_order)
    for name in ("covered_root", "lifting_order"):  # as a configuration refuses them, when they would do nothing
        idle = idle_option(("pproj", name), getattr(encoding, name), Config(pproj=encoding))
        if idle is not None:
            raise MaltpyError(idle, "command line")
    sentences = lifted_sentences = lifted_arcs = 0
    with read_conll(input_path, format_) as reader, atomic_output(output_path) as out:
        for sentence in reader:
            heads = sentence.heads
            if heads is None:
                raise MaltpyError("projectivizing needs trees, but HEAD is _", reader.name, sentence.line)
            check_unmarked(sentence, encoding, reader.name)
            lifted = projectivize(heads, sentence.labels, encoding)
            sentence.set_arcs(lifted.heads, lifted.labels)
            out.write(format_sentence(sentence).encode("utf-8"))
            sentences += 1
            lifted_sentences += lifted.lifted > 0
            lifted_arcs += lifted.lifted
    if not quiet:
        summary = f"{lifted_arcs} arcs lifted in {lifted_sentences} sentences"
        progress_line(f"projectivized {sentences} sentences: {summary}", final=True)


@click.command("deproj")
@_pproj_options
def deproj_command(input_path: str | None, output_path: str | None, format_: str, marking_strategy: str,
                   quiet: bool) -> None:  # fmt: skip
    """Deprojectivize a treebank by its labels' marks (MaltParser's -m deproj).

    Each arc whose label says it was lifted is lowered to the node the label names, searched
    breadth-first below its head; the marks are taken off the labels. A label ending in |null
    marks a covered root (-pcr left/right/head), which goes back to the root. Needs only the
    file and the encoding it was made with.

    \b
    Example:
      maltpy deproj -i parsed.conllx -o parsed.deproj.conllx --marking-strategy head+path
    """
    encoding = Encoding(marking_strategy, "head")  # any covered-root option that writes |null marks
    sentences = moved = 0
    with read_conll(input_path, format_) as reader, atomic_output(output_path) as out:
        for sentence in reader:
            heads = sentence.heads
            if heads is None:
                raise MaltpyError("deprojectivizing needs trees, but HEAD is _", reader.name, sentence.line)
            new_heads, labels = deprojectivize(heads, sentence.labels, encoding)
            sentence.set_arcs(new_heads, labels)
            out.write(format_sentence(sentence).encode("utf-8"))
            sentences += 1
            moved += sum(a != b for a, b in zip(heads, new_heads))
    if not quiet:
        progress_line(f"deprojectivized {sentences} sentences: {moved} arcs moved", final=True)
