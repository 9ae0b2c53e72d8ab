"""The ``maltpy`` command: parses options, calls the library, maps errors to exit statuses.

Exit statuses: 0 success; 2 a user error (bad input, bad config, bad usage), reported as one
line ``maltpy: error: FILE:LINE: message`` on stderr; 130 interrupted; 141 output pipe closed.
Standard output carries nothing but the command's result.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
import warnings
from collections.abc import Callable
from contextlib import ExitStack, nullcontext

import click

from . import __version__
from .config import (
    COLUMN_NAMES,
    FLAGS,
    LEARNER_OPTIONS,
    OPTIMIZE_ROUNDS,
    OPTIMIZE_THRESHOLD,
    OPTIONS,
    default_config,
    dump_config,
    load_config,
)
from .conll import FORMATS, format_sentence
from .errors import MaltpyError, MaltpyWarning, counted, cut, printable, quote
from .evaluate import GROUPINGS, evaluate
from .evaluate import significance as compare_systems
from .files import (
    atomic_output,
    check_output_path,
    hold_standard_streams,
    is_std,
    make_folder,
    open_file,
    read_conll,
    standard_output,
    write_result,
)
from .oracle import oracle_statistics, oracle_table
from .pseudoproj import (
    COVERED_ROOTS,
    LIFTING_ORDERS,
    MARKING_STRATEGIES,
    Encoding,
    check_unmarked,
    deprojectivize,
    projectivize,
)
from .threads import set_threads
from .vocabulary import python_warning

FORMAT_CHOICE = click.Choice(("auto",) + FORMATS)


def config_options(*groups: str) -> Callable[[Callable], Callable]:
    """Add ``-c FILE`` and MaltParser's flag of every option in ``groups`` (all if none given):
    ``-a``, ``-l``, ``-F``, ``-nr`` ..."""
    return lambda command: _add_config_options(command, groups)


def _add_config_options(command: Callable, groups: tuple[str, ...]) -> Callable:
    for (group, name), option in reversed(OPTIONS.items()):
        if groups and group not in groups:
            continue
        names = [f"-{option.flag}"] + (["--format"] if (group, name) == ("input", "format") else [])
        command = click.option(
            *names,
            f"cfg_{group}_{name}",
            metavar=_METAVARS[option.kind],
            default=None,
            help=f"{group}.{name}: {option.help}; {_values(group, name, option)}.",
        )(command)
    return click.option(
        "-c", "--config", "config_path", metavar="FILE",
        help="YAML configuration file (default: none, MaltParser 1.9.2's defaults); the flags override it.",
    )(command)  # fmt: skip


_METAVARS = {"bool": "BOOL", "int": "N", "str": "TEXT", "label": "LABEL", "choice": "NAME", "path": "FILE",
             "column": "COLUMN", "address": "ADDRESS", "liboptions": "OPTIONS"}  # fmt: skip


def _values(group: str, name: str, option) -> str:
    """What an option takes and its default, as its help says them."""
    default = default_config().to_dict()[group][name]
    if option.kind == "choice":
        return f"one of {', '.join(option.choices)} (default: {default})"
    if option.kind == "bool":
        return f"true or false (default: {str(default).lower()})"
    if option.kind == "int":
        return f"an integer, at least {option.minimum} (default: {'none' if default is None else default})"
    if option.kind == "column":
        return f"one of {', '.join(COLUMN_NAMES)} (default: none, no data split)"
    if option.kind == "address":
        return "an address such as Input[0] or head(Stack[0]) (default: none, no data split)"
    if option.kind == "path":
        return "default: MaltParser's default feature model for the algorithm, learner and input format"
    if option.kind == "liboptions":
        flags = "; ".join(
            f"{learner}: {' '.join('-' + f for f in flags)}" for learner, flags in LEARNER_OPTIONS.items()
        )
        return f"flags of the learner ({flags}) (default: the learner's defaults, as maltpy config prints them)"
    return f"default: {default}"


def config_from(kwargs: dict) -> object:
    """The Config named by ``-c`` with the command line's option flags applied over it."""
    overrides = {}
    for group, name in FLAGS.values():
        value = kwargs.pop(f"cfg_{group}_{name}", None)
        if value is not None:
            overrides[(group, name)] = value
    return load_config(kwargs.pop("config_path", None), overrides)


class _Signalled(BaseException):
    """SIGTERM or SIGHUP arrived: unwinds like Ctrl-C, so that partial outputs are removed."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _on_signal(signum, frame) -> None:
    raise _Signalled(signum)


class _PipeClosed(Exception):
    """The reader of standard output went away; raised past click, which would exit 1 on it."""


class _Interrupted(BaseException):
    """Ctrl-C (SIGINT); raised past click, which would print an empty line on stderr first."""


class _Group(click.Group):
    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            raise _PipeClosed() from None
        except KeyboardInterrupt:
            raise _Interrupted() from None


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="maltpy")
@click.option(
    "--threads",
    type=click.IntRange(1, 1024),
    metavar="N",
    help="Threads of the numeric libraries (BLAS, LIBSVM's OpenMP). Default: 1 for parsing, "
    "the cores for learning; a thread waits without spinning.",
)
@click.pass_context
def cli(ctx: click.Context, threads: int | None) -> None:
    """maltpy: data-driven dependency parsing in the MaltParser mould.

    Inputs and outputs are CoNLL-X or CoNLL-U files; '-' (or no -i/-o) means standard
    input/output.
    """
    set_threads(threads, learning=ctx.invoked_subcommand == "learn")


def format_option(what: str = "Input format") -> Callable[[Callable], Callable]:
    """``--format``/``-if``: the CoNLL format of the input, as every command that reads CoNLL takes it."""
    return click.option(
        "--format",
        "-if",
        "format_",
        type=FORMAT_CHOICE,
        default="auto",
        show_default=True,
        help=f"{what}: auto decides from the first lines, then the file name (MaltParser's -if).",
    )


@cli.command("eval")
@click.argument("gold")
@click.argument("systems", nargs=-1, required=True, metavar="SYSTEM [SYSTEM]...")
@click.option(
    "--by",
    "groupings",
    multiple=True,
    type=click.Choice(GROUPINGS),
    help="Also score the words grouped by their gold value (MaltEval's GroupBy); may be repeated. "
    "MaltEval's keys: arc-length to_root, 1, 2, 3-6, 7-...; arc-direction left (the head to the left), right, "
    "to_root; projectivity Proj, Non-proj; depth 0 (on the root), 1, ...; sentence-length in tens: 1-10, ..., "
    "51-.... Default: no grouping.",
)
@click.option(
    "--punct",
    type=click.Choice(("include", "exclude")),
    default="include",
    show_default=True,
    help="Score punctuation tokens (PUNCT tag or punctuation-only form) or leave them out.",
)
@click.option("--per-label", is_flag=True, help="Add precision, recall and F per dependency label.")
@click.option(
    "--conll18",
    is_flag=True,
    help="Add the CoNLL 2018 shared task's UAS, LAS, CLAS, MLAS and BLEX (F1, as conll18_ud_eval.py defines "
    "them; over every word, whatever --punct says).",
)
@click.option(
    "--significance",
    is_flag=True,
    help="With two systems: the p values of their LAS and UAS difference, by paired approximate "
    "randomization over sentences.",
)
@click.option("--samples", type=click.IntRange(1, 10_000_000), default=10_000, show_default=True, metavar="N",
              help="Samples of the randomization test.")  # fmt: skip
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), default=1, show_default=True, metavar="N",
              help="Seed of the randomization test: the same seed, the same p.")  # fmt: skip
@click.option(
    "--html",
    "html_path",
    metavar="FILE",
    help="Also write a report to FILE: one self-contained HTML page with the scores, a table and a bar "
    "chart for each grouping (all of them if no --by), and the drawn trees of chosen sentences. "
    "Default: no report.",
)
@click.option("--show", type=click.IntRange(0, 10_000), metavar="N",
              help="The report draws the N sentences worst by LAS (default: 10).")  # fmt: skip
@click.option("--sentence", "sentence_ids", multiple=True, metavar="ID",
              help="The report also draws this sentence: its sent_id, or its number in the file counted from 1; "
              "may be repeated. Default: none.")  # fmt: skip
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of tables.")
@format_option("Format of the files")
def eval_command(gold: str, systems: tuple[str, ...], groupings: tuple[str, ...], punct: str, per_label: bool,
                 conll18: bool, significance: bool, samples: int, seed: int, html_path: str | None, show: int | None,
                 sentence_ids: tuple[str, ...], as_json: bool, format_: str) -> None:  # fmt: skip
    """Attachment scores of each SYSTEM against GOLD: LAS, UAS, LA and exact match (EM).

    Several systems are scored side by side. Either GOLD or one SYSTEM may be '-', standard
    input. With --by, the words are also grouped by their value in GOLD (for the groupings the
    tree decides, "prec" is LAS over the words a system puts in the group); --json prints
    them under "by".

    \b
    Examples:
      maltpy eval gold.conllu parsed.conllu --punct exclude --per-label
      maltpy eval gold.conllu a.conllu b.conllu --by deprel --by arc-length
      maltpy eval gold.conllu a.conllu b.conllu --significance --html report.html --show 20
    """
    from .report import (
        Drawings,
        SentencePicker,
        conll18_table,
        draw_sentence,
        eval_json,
        group_tables,
        report_start,
        score_table,
        significance_text,
    )

    standard_output()  # the scores go there: closed, an error before the work
    paths = [gold, *systems]
    if sum(is_std(p) for p in paths) > 1:
        raise MaltpyError("only one of GOLD and SYSTEM can be standard input", "command line")
    if significance and len(systems) != 2:
        raise MaltpyError(f"--significance compares exactly two systems, not {len(systems)}", "command line")
    asked = tuple(dict.fromkeys(groupings))
    if html_path is not None:
        if html_path == "-":
            raise MaltpyError("--html needs a file: standard output has the scores", "command line")
        check_output_path(html_path, tuple(paths))
    elif sentence_ids or show is not None:
        flag = "--sentence" if sentence_ids else "--show"
        raise MaltpyError(f"{flag} chooses sentences for the --html report; give --html FILE", "command line")
    groupings = asked or (GROUPINGS if html_path is not None else ())
    picker = SentencePicker(10 if show is None else show, sentence_ids) if html_path is not None else None
    exclude = punct == "exclude"
    with ExitStack() as stack:
        g = stack.enter_context(read_conll(gold, format_))
        readers = [stack.enter_context(read_conll(path, format_)) for path in systems]
        names = [r.name for r in readers]
        scores = evaluate(g, readers, g.name, names, exclude, groupings, picker.watch if picker else None, conll18)
    tested = compare_systems(scores[0], scores[1], samples, seed) if significance else None
    if html_path is not None:
        chosen = picker.chosen(g.name)  # the only sentences held: the N worst and those named
        labels = [f"[{k}] {n}" for k, n in enumerate(names, 1)]
        with atomic_output(html_path) as out:
            drawings = Drawings(out, report_start(scores, g.name, names, punct, tested, bool(chosen)))
            for number, gs, ss in chosen:
                drawings.add(draw_sentence(number, gs, list(zip(labels, ss)), g.name, exclude))
            drawings.close()
    if as_json:
        write_result(json.dumps(eval_json(scores, g.name, names, punct, per_label, tested, asked), ensure_ascii=False))
        return
    text = score_table(scores, g.name, names, punct, per_label)
    if conll18:
        text += "\n" + conll18_table(scores)
    if asked:
        text += "\n" + group_tables(scores, asked)
    if tested is not None:
        text += "\n" + significance_text(tested)
    write_result(text)


@cli.command("view")
@click.option("-i", "--input", "input_path", metavar="FILE", help="The parsed file to draw (default: standard input).")
@click.option("--gold", "gold_path", metavar="FILE",
              help="Draw its tree above each sentence and colour the input's arcs against it "
              "(default: none).")  # fmt: skip
@click.option("--sentence", "sentence_ids", multiple=True, metavar="ID",
              help="Draw this sentence: its sent_id, or its number in the file counted from 1; may be repeated. "
              "Default: the first --first sentences.")  # fmt: skip
@click.option("--first", type=click.IntRange(1, 100_000), default=20, show_default=True, metavar="N",
              help="With no --sentence: draw the first N sentences.")  # fmt: skip
@click.option("-o", "--output", "output_path", metavar="FILE",
              help="OUT.svg (one SVG) or OUT.html (a page); default: SVG on standard output.")  # fmt: skip
@format_option("Format of the files")
def view_command(input_path: str | None, gold_path: str | None, sentence_ids: tuple[str, ...], first: int,
                 output_path: str | None, format_: str) -> None:  # fmt: skip
    """Draw dependency trees: each sentence's words in a row with its arcs above them.

    With --gold, the gold tree is drawn above the input's, and the input's arcs are coloured by
    what is wrong with them: head (red), label only (orange), nothing (grey). Each arc carries
    its dependent, head and status as data- attributes.

    \b
    Examples:
      maltpy view -i parsed.conllu --gold gold.conllu --sentence 12 -o s12.svg
      maltpy view -i train.conllu --first 50 -o trees.html
    """
    from .draw import escape, html_start
    from .report import Drawings, SentencePicker, draw_sentence, legend_html

    if not is_std(output_path):
        check_output_path(output_path, (input_path, gold_path))
    else:
        standard_output()
    html = output_path is not None and output_path.lower().endswith((".html", ".htm"))
    if not is_std(output_path) and not html and not output_path.lower().endswith(".svg"):
        raise MaltpyError("the output must end in .svg or .html", output_path)
    if is_std(input_path) and is_std(gold_path) and gold_path is not None:
        raise MaltpyError("only one of -i and --gold can be standard input", "command line")
    picker = SentencePicker(0, sentence_ids)  # with --sentence: holds the sentences named, drawn at the end
    with ExitStack() as stack:
        reader = stack.enter_context(read_conll(input_path, format_))
        g = stack.enter_context(read_conll(gold_path, format_)) if gold_path is not None else None
        out = stack.enter_context(atomic_output(output_path))
        start = None
        if html:
            start = html_start(f"maltpy view: {reader.name}") + f"<h1>{escape(reader.name)}</h1>"
            start += legend_html(punctuation_scored=True) if g is not None else ""
        drawings = Drawings(out, start)

        def draw(number: int, gold, systems) -> None:
            drawings.add(draw_sentence(number, gold, [(reader.name, systems[0])], g.name if g else "",
                                       legend=not html))  # fmt: skip

        def watch(number: int, gold, systems, scores) -> None:
            if sentence_ids:
                picker.watch(number, gold, systems, scores)
            elif number <= first:  # drawn as read: the first N are never held together
                draw(number, gold, systems)

        if g is not None:
            evaluate(g, [reader], g.name, [reader.name], watch=watch)
        else:
            for number, sentence in enumerate(reader, 1):
                if sentence.heads is None:
                    raise MaltpyError("sentence is not parsed (HEAD is _); nothing to draw", reader.name,
                                      sentence.line)  # fmt: skip
                watch(number, None, [sentence], None)
        for number, gold, systems in picker.chosen(g.name if g else reader.name) if sentence_ids else ():
            draw(number, gold, systems)
        drawings.close()


@cli.command("convert")
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
        bar = _progress_bar(reader, "converted", quiet, output_path)
        for sentence in reader:
            out.write(format_sentence(sentence, to_format, postag_from).encode("utf-8"))
            if bar:
                bar.add(len(sentence), sentence.line)
    if bar:
        bar.close()


@cli.command("learn")
@config_options()
@click.option("-i", "--input", "input_path", metavar="FILE", help="Training treebank (default: standard input).")
@click.option("-m", "--model", "model_path", metavar="FILE", required=True, help="The model archive to write.")
@click.option("-q", "--quiet", is_flag=True, help="No progress or summary on stderr.")
@click.option(
    "--save-instances",
    "instances_path",
    metavar="DIR",
    help="Also write each classifier's training instances to DIR/<classifier>.col, TiMBL's columns format "
    "(default: not written).",
)
def learn_command(input_path: str | None, model_path: str, quiet: bool, instances_path: str | None,
                  **kwargs: object) -> None:  # fmt: skip
    """Induce a parser from a treebank (MaltParser's learning mode) and write the model archive.

    With no -c, MaltParser's defaults: nivreeager, liblinear, its default feature model for
    the algorithm, learner and input format. The flags override the configuration.

    \b
    Example:
      maltpy learn -c configs/nivreeager-libsvm.yaml -i train.conllu -m en.mpm
    """
    from .parser import learn

    config = config_from(kwargs)
    check_output_path(model_path, (input_path,))
    say = None if quiet else _progress_line
    started = time.perf_counter()
    with read_conll(input_path, config.input.format) as reader:
        model = learn(config, reader, reader.format, reader.name, say, instances_path)
    model.save(model_path)
    if not quiet:
        s = model.statistics
        _progress_line(
            f"learned {config.singlemalt.parsing_algorithm} with {config.guide.learner} from "
            f"{counted(s['sentences'], 'sentence')} ({counted(s['instances'], 'instance')}, "
            f"{counted(len(model.guide.all_models()), 'classifier')}) in {time.perf_counter() - started:.1f}s "
            f"-> {'standard output' if is_std(model_path) else quote(model_path)}",
            final=True,
        )


@cli.command("optimize")
@click.option("-i", "--input", "train", metavar="FILE", required=True, help="Training treebank (gold trees).")
@click.option("-d", "--dev", metavar="FILE", help="Score each trial on this dev file (default: a split of -i).")
@click.option("--folds", type=click.IntRange(2, 100), metavar="K",
              help="Score each trial by K-fold cross-validation on -i (default: a seeded 80/20 split of -i, "
              "or 5 folds below 30,000 tokens).")  # fmt: skip
@click.option("-o", "--output-dir", "out_dir", metavar="DIR", required=True,
              help="Where config.yaml, features.txt and the trial log trials.jsonl go.")  # fmt: skip
@click.option("--budget", type=click.FloatRange(0.1, 100_000), default=60, show_default=True, metavar="MINUTES",
              help="Bound on the whole search: no trial starts that would end after it.")  # fmt: skip
@click.option(
    "--jobs",
    type=click.IntRange(1, 256),
    metavar="N",
    help="Trials run at once, each in its own process (default: the cores this process may use); no more than "
    "the cores and the available memory take, with a warning (about 64 MB and 100 times the treebank's bytes a trial).",
)
@click.option("--seed", type=click.IntRange(0, 2**31 - 1), default=1, show_default=True, metavar="N",
              help="Seed of the split into folds or held-out part; a search is the same for a seed.")  # fmt: skip
@click.option("--resume", is_flag=True, help="Continue the search whose trial log is in DIR, reusing its trials.")
@click.option("--rounds", type=click.IntRange(1, 20), default=OPTIMIZE_ROUNDS, show_default=True, metavar="N",
              help="Rounds of phases 3 and 4 at most: a later round (wider features) runs while the budget lasts "
              "and the round before kept a change.")  # fmt: skip
@click.option(
    "--threshold",
    type=click.FloatRange(0, 100),
    default=OPTIMIZE_THRESHOLD,
    show_default=True,
    metavar="LAS",
    help="Least gain in LAS points that keeps a change of the feature model or learner.",
)
@click.option("-l", "--learner", type=click.Choice(("liblinear", "libsvm")), default="liblinear", show_default=True,
              help="The learner to tune (LIBSVM's trials take many times longer).")  # fmt: skip
@click.option(
    "--scheduler",
    metavar="ADDRESS",
    help="Run the trials on this Dask cluster's workers, which must see the files at the same paths "
    "(default: none, in --jobs processes here).",
)
@format_option()
@click.option("-q", "--quiet", is_flag=True, help="No progress or summary on stderr.")
def optimize_command(train: str, dev: str | None, folds: int | None, out_dir: str, budget: float, jobs: int | None,
                     seed: int, resume: bool, rounds: int, threshold: float, learner: str, scheduler: str | None,
                     format_: str, quiet: bool) -> None:  # fmt: skip
    """Search for the best configuration of a treebank, as MaltOptimizer does for MaltParser.

    Phase 1 analyses the data; phase 2 tries every algorithm (with pseudo-projective encodings
    and root options), phase 3 selects features backward and forward in MaltParser's feature
    language, phase 4 tunes the learner's C. Writes DIR/config.yaml and DIR/features.txt, which
    'maltpy learn -c DIR/config.yaml' takes, and DIR/trials.jsonl, a log of every trial.

    \b
    Example:
      maltpy optimize -i train.conllu -o opt/ --budget 60
      maltpy learn -c opt/config.yaml -i train.conllu -m tuned.mpm
    """
    from .jobs import bound_jobs, usable_cores
    from .optimize import optimize, summary_table, trial_bytes

    asked = usable_cores() if jobs is None else jobs
    # here, as many trial processes as the cores and the memory take (a warning if --jobs asks more)
    jobs = asked if scheduler else bound_jobs(asked, trial_bytes(train, dev, learner), None if quiet or jobs is None
                                              else _warn)  # fmt: skip
    if os.path.exists(out_dir) and not os.path.isdir(out_dir):
        raise MaltpyError("is not a folder; -o names the folder the search writes to", out_dir)
    bar = None if quiet or not sys.stderr.isatty() else _SearchBar(budget)
    say = None if quiet else (lambda message: (_ProgressBar.clear(), click.echo(f"maltpy: {printable(message)}",
                                                                                err=True)))  # fmt: skip
    best, summary, baseline = optimize(train, out_dir, dev, folds, budget, jobs, seed, resume, threshold, learner,
                                       scheduler, format_, rounds, say, bar.show if bar else None)  # fmt: skip
    _ProgressBar.clear()
    if not quiet:
        click.echo(summary_table(summary, baseline, best), err=True)
        config_path = quote(os.path.join(out_dir, "config.yaml"))
        click.echo(f"maltpy: wrote {config_path} (LAS {best.las:.2f}); "
                   f"learn with: maltpy learn -c {config_path} -i {quote(train)} -m MODEL", err=True)  # fmt: skip


class _SearchBar:
    """The search's progress on a terminal's stderr: phase, trials, best LAS, the budget spent."""

    def __init__(self, budget: float) -> None:
        self.budget = 60 * budget

    def show(self, search) -> None:
        elapsed = time.monotonic() - search.started
        share = min(1.0, elapsed / self.budget)
        best = max((r["las"] for r in search.cache.values() if isinstance(r.get("las"), (int, float))), default=None)
        text = (
            f"phase {search.phase}: trial {search.trials}, best trial {best if best is None else f'{best:.2f}'} "
            f"{_bar(share)} {_clock(elapsed)} of {_clock(self.budget)}  {search.last_note}"
        )
        click.echo(f"\r\033[Kmaltpy: {text[:200]}", err=True, nl=False)
        _ProgressBar.showing = True


@cli.command("parse")
@click.option("-q", "--quiet", is_flag=True,
              help="No progress bar (it shows only on a terminal) and no warning about the input on stderr.")
@click.option("-m", "--model", "model_path", metavar="FILE", required=True, help="A model made by maltpy learn.")
@click.option("-i", "--input", "input_path", metavar="FILE", help="Input (default: standard input); files may follow.")
@click.argument("more_inputs", nargs=-1, metavar="[FILE]...")
@click.option("-o", "--output", "output_path", metavar="FILE", help="Output (default: standard output).")
@click.option(
    "--output-dir",
    "output_dir",
    metavar="DIR",
    help="Write each input's parse to DIR (made if need be) under the input's name (for several inputs; "
    "default: none, -o).",
)
@click.option(
    "--scheduler",
    metavar="ADDRESS",
    help="Parse the files across the Dask cluster of this scheduler (needs maltpy[dask] and --output-dir; "
    "default: none, parse here).",
)
@format_option()
@click.option(
    "-cd",
    "--max-degree",
    "max_degree",
    type=click.IntRange(min=0),
    metavar="D",
    help="covnonproj: bound the degree of non-projectivity at D (default: the model's setting).",
)
@click.option(
    "-nt",
    "--enforce-tree",
    "enforce_tree",
    type=click.BOOL,
    metavar="BOOL",
    help="nivreeager: UNSHIFT words left without a head when the input is used up, so that every word "
    "takes its head from a transition (MaltParser's -nt): true or false (default: the model's setting).",
)
@click.option(
    "-gsr",
    "--single-root",
    "single_root",
    type=click.Choice(("auto", "true", "false")),
    help="One word on the root, labelled as the training treebank labels root words (auto: if the input or "
    "the training treebank is CoNLL-U); default: the model's setting (graph.single_root).",
)
@click.option(
    "-j",
    "--jobs",
    type=click.IntRange(1, 1024),
    default=1,
    show_default=True,
    metavar="N",
    help="Parse in N worker processes, each with the model loaded; the output is the same bytes. No more than the "
    "cores, the available memory and the input's batches take (a warning if the cores or memory lower N).",
)
def parse_command(quiet: bool, model_path: str, input_path: str | None, more_inputs: tuple[str, ...],
                  output_path: str | None, output_dir: str | None, scheduler: str | None, format_: str,
                  max_degree: int | None, enforce_tree: bool | None, single_root: str | None,
                  jobs: int) -> None:  # fmt: skip
    """Parse CoNLL-X or CoNLL-U input with a model (MaltParser's parsing mode).

    HEAD and DEPREL are filled in; every other column and line is written as it was read,
    in the input's format. Works in pipelines: maltpy parse -m m.mpm < in.conllu > out.conllu.
    A column holding far more values the model never saw than its training treebank's held-out
    text does (another tagset?) gets one warning line on stderr (-q: none).

    \b
    Example:
      maltpy parse -m en.mpm -i test.conllu -o parsed.conllu
      maltpy parse -m en.mpm -i big.conllu -o parsed.conllu --jobs 2
      maltpy parse -m en.mpm -i a.conllu b.conllu c.conllu --output-dir parsed/ --jobs 2
      maltpy parse -m en.mpm -i a.conllu b.conllu --output-dir parsed/ --scheduler tcp://host:8786
    """
    from .jobs import Workers, load_model, workers_for

    if quiet:
        warnings.simplefilter("ignore", MaltpyWarning)
    inputs = [path for path in (input_path, *more_inputs) if path is not None]  # -i FILE, or FILE alone
    if len(inputs) > 1 or output_dir is not None or scheduler is not None:
        _parse_files(model_path, inputs or ["-"], output_dir, scheduler, format_, max_degree, enforce_tree, jobs,
                     output_path, single_root, quiet)  # fmt: skip
        return
    input_path = inputs[0] if inputs else None
    if jobs > 1:
        jobs = workers_for(jobs, model_path, [input_path], None if quiet else _warn)
    if jobs > 1:
        with Workers(model_path, max_degree, enforce_tree, jobs, single_root) as workers:
            with read_conll(input_path, format_, blind=True) as reader, atomic_output(output_path) as out:
                bar = _progress_bar(reader, "parsed", quiet, output_path)
                workers.parse(reader, out, bar.add if bar else None, python_warning(reader.name))
    else:
        model = load_model(model_path, max_degree, enforce_tree, single_root)
        with read_conll(input_path, format_, blind=True) as reader, atomic_output(output_path) as out:
            bar = _progress_bar(reader, "parsed", quiet, output_path)
            for sentence in model.parse(reader):
                out.write(format_sentence(sentence).encode("utf-8"))
                if bar:
                    bar.add(len(sentence), sentence.line)
                if not reader.pending():  # the writer waits: hand it what is parsed
                    out.flush()
    if bar:
        bar.close()


def _parse_files(model_path: str, inputs: list[str | None], output_dir: str | None, scheduler: str | None,
                 format_: str, max_degree: int | None, enforce_tree: bool | None, jobs: int,
                 output_path: str | None, single_root: str | None, quiet: bool) -> None:  # fmt: skip
    """``maltpy parse -i F1 F2 ... --output-dir D``: each file to D under its name, in turn,
    with --jobs workers (the model loaded once in each), or across a Dask cluster."""
    from .jobs import Workers, load_model, workers_for

    if output_dir is None:
        raise MaltpyError("several inputs (or --scheduler) need --output-dir DIR", "command line")
    if output_path is not None:
        raise MaltpyError("-o and --output-dir exclude each other", "command line")
    if any(is_std(path) for path in inputs):
        raise MaltpyError("--output-dir needs the inputs as files (-i FILE ...), not standard input", "command line")
    outputs = [os.path.join(output_dir, os.path.basename(path)) for path in inputs]
    named: dict[str, str] = {}
    for path, output in zip(inputs, outputs):
        if output in named:
            raise MaltpyError(f"has the same name as {quote(named[output])}; both would go to {quote(output)}", path)
        named[output] = path
        open_file(path).close()  # every input there before any work
    make_folder(output_dir, "folder for the parsed files")
    for output in outputs:
        check_output_path(output, tuple(inputs))
    if scheduler is not None:
        try:
            from .dask import parse_with_scheduler
        except ImportError as e:
            raise MaltpyError(f"--scheduler needs Dask ({e}): pip install 'maltpy[dask]'", "command line") from None
        # the model is checked here, before the cluster sees it; unchanged by an option, the
        # file's bytes go (the workers may know them)
        model = load_model(model_path, max_degree, enforce_tree, single_root)
        unchanged = max_degree is None and enforce_tree is None and single_root is None
        parse_with_scheduler(scheduler, inputs, model_path if unchanged else model, output_dir)
        return
    if jobs > 1:
        jobs = workers_for(jobs, model_path, inputs, None if quiet else _warn)
    if jobs > 1:
        with Workers(model_path, max_degree, enforce_tree, jobs, single_root) as workers:
            for path, output in zip(inputs, outputs):
                with read_conll(path, format_, blind=True) as reader, atomic_output(output) as out:
                    workers.parse(reader, out, warn=python_warning(reader.name))
        return
    model = load_model(model_path, max_degree, enforce_tree, single_root)
    for path, output in zip(inputs, outputs):
        model.parse_file(path, output, format_)


@cli.command("info")
@click.option("-m", "--model", "model_path", metavar="FILE", required=True, help="A model made by maltpy learn.")
@click.option("--json", "as_json", is_flag=True, help="Print the model's manifest summary as JSON.")
def info_command(model_path: str, as_json: bool) -> None:
    """Describe a model: configuration, feature model, labels, classifiers, training statistics."""
    from .parser import Model

    standard_output()
    model = Model.load(model_path)
    summary = model.describe()
    if as_json:
        write_result(json.dumps(summary, ensure_ascii=False, indent=1))
        return
    labels = summary["labels"]
    lines = [
        f"model              {model_path}",
        f"algorithm          {summary['algorithm']}",
        f"learner            {summary['learner']}",
        f"trained on         {summary['data_format']} ({summary['training'].get('treebank', '?')})",
        f"pseudo-projective  {_describe_pproj(model.config.pproj)}",
        f"input columns      {_describe_vocabulary(summary['vocabulary'])}",
        "",
        "configuration:",
        *("  " + line for line in dump_config(model.config).splitlines()),
        "",
        f"feature model ({model.feature_model.source}, {len(model.feature_model)} features, in the file's order):",
        *("  " + model.feature_model.specs[i].text for i in model.feature_model.file_order),
        "",
        f"labels ({len(labels)}): {' '.join(labels)}",
        f"classes ({len(summary['classes'])}): {' '.join(summary['classes'])}",
        *_describe_single_root(model),
        "",
        "classifiers:",
        "  name                 kind       instances  classes  features  size",
        *(
            f"  {c['name']:<20} {c['kind']:<10} {c['instances']:>9} {c['classes']:>8} {c['features']:>9}  {c['size']}"
            for c in summary["classifiers"]
        ),
        "",
        "training:",
        *(f"  {k:<24} {v}" for k, v in summary["training"].items()),
    ]
    write_result("\n".join(lines))


def _describe_vocabulary(vocabulary: dict | None) -> str:
    """The columns the features read, as training saw them (see maltpy.vocabulary)."""
    if vocabulary is None:
        return "not kept (a model made before maltpy kept them: no check of the input's values)"
    columns = [
        f"{name} {counted(c['values'], 'value')}"
        + (f" ({c['unseen']:.1%} unseen in held-out text)" if c["unseen"] is not None else "")
        for name, c in vocabulary["columns"].items()
    ]
    same = "; the same tag in both tag columns of every word (read: the column holding it)" if vocabulary[
        "same_tags"] else ""
    return ", ".join(columns) + same


def _describe_single_root(model) -> list[str]:
    """When and how the model gives a sentence one root (graph.single_root; see the README's "One
    root"), and the labels it learned for that from its training treebank's root words."""
    setting = model.config.graph.single_root
    if setting == "false":
        return [f"one root ({setting}): no, several words may be on the root, as MaltParser leaves them"]
    learned = "CoNLL-U" if model.data_format == "conllu" else "CoNLL-X"
    when = "every sentence" if setting == "true" or learned == "CoNLL-U" else "CoNLL-U input only"
    if setting == "auto":
        when += f" (learned from {learned})"
    how = "constrained in the transitions, then a final step" if model.rooted_system is not model.system else (
        "a final step")  # fmt: skip
    roots = model.roots
    tags = sorted(roots.under.items())
    if not tags:
        below = f"{roots.under_default} (the training treebank has no word below a root word)"
    elif {tag for tag, _ in tags} == {"_"}:
        below = f"{roots.under['_']} (the training treebank has no tags)"
    else:
        below = f"by tag: {', '.join(f'{t} {label}' for t, label in tags)}; other tags {roots.under_default}"
    return [
        f"one root ({setting}): {when}; {how}",
        f"  the root word labelled {roots.root}",
        f"  any other word on the root put below it, labelled {below}",
        *([] if model.roots_learned else ["  (UD's labels: the model was made before maltpy kept its treebank's)"]),
    ]


def _describe_pproj(pproj) -> str:
    if not pproj.active:
        return "no"
    return (f"marking strategy {pproj.marking_strategy}, covered root {pproj.covered_root}, "
            f"lifting order {pproj.lifting_order}")  # fmt: skip


def _warn(message: str) -> None:
    """One warning line on stderr."""
    _ProgressBar.clear()
    click.echo(f"maltpy: warning: {printable(message)}", err=True)


def _progress_line(message: str, final: bool = False) -> None:
    """A progress message on stderr: rewritten in place on a terminal, only the final one otherwise."""
    message = printable(message)  # a name in it cannot start a line of its own
    if sys.stderr.isatty():
        click.echo(f"\r\033[Kmaltpy: {message}", err=True, nl=final)
    elif final:
        click.echo(f"maltpy: {message}", err=True)


class _ProgressBar:
    """On a terminal's stderr: how much of the input is read, the tokens done, tokens/s and the
    time left, redrawn at most ten times a second; a summary line at the end. A message that comes
    while it is drawn (an error, an interruption) first clears its line (``clear``)."""

    showing = False  # a bar is on the terminal's last line

    def __init__(self, reader, verb: str) -> None:
        self.reader = reader
        self.verb = verb
        self.tokens = 0
        self.started = self.shown = time.perf_counter()

    def add(self, tokens: int, line: int | None = None) -> None:
        self.tokens += tokens
        now = time.perf_counter()
        if now - self.shown < 0.1:
            return
        self.shown = now
        elapsed = now - self.started
        rate = f"{self.tokens / max(elapsed, 1e-9):,.0f} tokens/s"
        share = self.reader.share_read(line)
        if share is None:
            text = f"{self.verb} {self.tokens:,} tokens  {rate}"
        else:
            left = elapsed * (1 - share) / share if share > 0.01 and elapsed > 1 else None  # once it can tell
            text = (f"{self.verb} {_bar(share)} {100 * share:3.0f}%  {self.tokens:,} tokens  "
                    f"{rate}  {_clock(left)} left")  # fmt: skip
        click.echo(f"\r\033[Kmaltpy: {text}", err=True, nl=False)
        _ProgressBar.showing = True

    @staticmethod
    def clear() -> None:
        if _ProgressBar.showing:
            sys.stderr.write("\r\033[K")
            _ProgressBar.showing = False

    def close(self) -> None:
        _ProgressBar.showing = False
        elapsed = time.perf_counter() - self.started
        click.echo(f"\r\033[Kmaltpy: {self.verb} {self.tokens:,} tokens in {elapsed:.1f}s "
                   f"({self.tokens / max(elapsed, 1e-9):,.0f} tokens/s)", err=True)  # fmt: skip


def _bar(share: float) -> str:
    """A share done, 0 to 1, as a bar of 30 characters."""
    done = int(share * 30)
    return f"[{'#' * done}{'.' * (30 - done)}]"


def _clock(seconds: float | None) -> str:
    if seconds is None:
        return "?:??"
    seconds = int(seconds + 0.5)
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}" if seconds >= 3600 else (
        f"{seconds // 60}:{seconds % 60:02d}")  # fmt: skip


def _progress_bar(reader, verb: str, quiet: bool, output_path: str | None) -> _ProgressBar | None:
    """A progress bar if stderr is a terminal and the output does not go to that terminal."""
    if quiet or not sys.stderr.isatty() or (is_std(output_path) and sys.stdout.isatty()):
        return None
    return _ProgressBar(reader, verb)


@cli.command("oracle")
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
    -nr, -ne, -cr, -cs, -cd, -prh, -pcon, -pacy, -pcov, -2pr, -grl). With pseudo-projective parsing (-pp,
    -pcr, -plo) the oracle runs over the projectivized trees, as learning does, it also
    prints the sentences and arcs lifted, and a tree counts as rebuilt when its rebuilt
    tree, deprojectivized, is the gold tree.

    \b
    Example:
      maltpy oracle -a stacklazy -i la_perseus-ud-train.conllu --json
    """
    standard_output()  # the counts (or the trees) go there
    config = config_from(kwargs)
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


@cli.command("proj")
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
        _progress_line(f"projectivized {sentences} sentences: {summary}", final=True)


@cli.command("deproj")
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
        _progress_line(f"deprojectivized {sentences} sentences: {moved} arcs moved", final=True)


@cli.command("knn")
@click.option("-f", "train_path", metavar="FILE", required=True, help="Training instances, TiMBL's columns format.")
@click.option("-t", "test_path", metavar="FILE", required=True, help="Test instances, the same format.")
@click.option("-o", "output_path", metavar="FILE", help="Output (default: standard output).")
@click.option("-k", "k", metavar="N", default="1", show_default=True, help="Nearest distances that vote.")
@click.option("-m", "metric", metavar="M|O", default="O", show_default=True, help="Metric: MVDM or Overlap.")
@click.option("-L", "limit", metavar="N", default="1", show_default=True,
              help="MVDM for values seen at least N times, Overlap below.")  # fmt: skip
@click.option("-d", "decay", metavar="Z|ID|IL|ED:a[:b]", default="Z", show_default=True,
              help="Votes weighted: equally, by inverse distance, inverse linear, exponential decay.")  # fmt: skip
@click.option("-w", "weighting", metavar="0..4", default="1", show_default=True,
              help="Feature weights: none, gain ratio, information gain, chi-square, shared variance.")  # fmt: skip
def knn_command(train_path: str, test_path: str, output_path: str | None, k: str, metric: str, limit: str,
                decay: str, weighting: str) -> None:  # fmt: skip
    """Classify instances with the k-NN learner, as TiMBL's IB1 does (timbl -f TRAIN -t TEST -o OUT).

    The files are in TiMBL's columns format: one instance a line, its feature values and then its
    class, separated by blanks. Each test instance is written back with the class maltpy gives
    appended, as timbl -o writes it; accuracy and speed go to stderr. The defaults are timbl's,
    so that the same options give timbl's answers; the settings of the MaltParser paper (Nivre
    et al. 2007), learn -l knn's defaults, are -k 5 -m M -L 3 -d ID.

    \b
    Example:
      maltpy knn -f train.col -t test.col -k 5 -m M -L 3 -d ID -o test.out
    """
    from .columns import read_columns, timbl_echo, write_columns
    from .config import parse_learner_options
    from .learners.knn import Settings, experiment

    if is_std(output_path):
        standard_output()
    given = {"k": k, "m": metric, "L": limit, "d": decay, "w": weighting}
    try:
        options = parse_learner_options(given, "knn")
    except ValueError as e:
        raise MaltpyError(str(e), "command line") from None
    train = read_columns(train_path)
    if not train:
        raise MaltpyError("no instances to learn from", train_path)
    test = read_columns(test_path, len(train[0]))
    started = time.perf_counter()
    answers = experiment(train, test, options)
    seconds = time.perf_counter() - started
    with atomic_output(output_path) as out:
        write_columns(out, (timbl_echo(row) + [answer] for row, answer in zip(test, answers)))
    right = sum(row[-1] == answer for row, answer in zip(test, answers))
    accuracy = f"{100 * right / len(test):.2f}%" if test else "n/a"
    _progress_line(
        f"knn {Settings.from_options(options).describe()}: {len(train)} training instances, {len(test)} tested, "
        f"{right} correct ({accuracy}), {seconds:.2f}s ({len(test) / max(seconds, 1e-9):.0f} instances/s)",
        final=True,
    )


@cli.command("config")
@config_options()
def config_command(**kwargs: object) -> None:
    """Check a configuration and print it in full: every option, defaults filled in.

    Option groups and names are MaltParser's; so are the flags that override the file.

    \b
    Example:
      maltpy config -c configs/nivreeager-libsvm.yaml -a stackeager
    """
    standard_output()
    config = config_from(kwargs)
    if config.guide.features is not None:  # checked as learn checks it: a setting learn would refuse is refused here
        from .features import FeatureModel
        from .features.spec import read_feature_model

        algorithm = config.singlemalt.parsing_algorithm
        specs = read_feature_model(config.guide.features, algorithm)
        if config.input.format != "auto":  # and against the treebank's format, when it is given
            FeatureModel(specs, algorithm, config.singlemalt.null_value, config.guide.features).check_columns(
                config.input.format
            )
    write_result(dump_config(config), end="")


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    hold_standard_streams()
    if not (sys.argv[1:] if argv is None else argv):
        with cli.make_context("maltpy", ["--help"], resilient_parsing=True) as ctx:
            click.echo(cli.get_help(ctx), err=True)
        return 2
    for name in ("SIGTERM", "SIGHUP"):  # not one ignored when we started: nohup's SIGHUP runs on
        if hasattr(signal, name) and signal.getsignal(getattr(signal, name)) != signal.SIG_IGN:
            signal.signal(getattr(signal, name), _on_signal)
    try:
        with warnings.catch_warnings():  # the filters and the display are the command's, and put back after it
            warnings.showwarning = _show_warning
            warnings.simplefilter("always", MaltpyWarning)  # each is given once already (vocabulary.Watch)
            status = cli.main(args=argv, prog_name="maltpy", standalone_mode=False)
    except _Signalled as e:
        _ProgressBar.clear()
        _say(f"maltpy: terminated by {signal.Signals(e.signum).name}")
        return 128 + e.signum
    except MaltpyError as e:
        return _fail(str(e))
    except click.UsageError as e:
        command = e.ctx.command_path if e.ctx else "maltpy"
        return _fail(f"command line: {e.format_message()} (see '{command} --help')")
    except click.ClickException as e:
        return _fail(f"command line: {e.format_message()}")
    except (click.Abort, KeyboardInterrupt, _Interrupted):
        # on a terminal, below the ^C it echoed (or over the progress bar, which is cleared)
        start = "" if _ProgressBar.showing or not sys.stderr.isatty() else "\n"
        _ProgressBar.clear()
        _say(f"{start}maltpy: interrupted")
        return 130
    except (BrokenPipeError, _PipeClosed):
        # The reader of our output went away (as `maltpy parse ... | head` does): stop quietly.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141
    except OSError as e:
        where = f"{quote(e.filename)}: " if e.filename else ""
        return _fail(f"{where}{e.strerror or e}")
    return status if isinstance(status, int) else 0  # --help and --version return 0


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """Python's warnings as the command line shows them: a MaltpyWarning (input unlike the
    model's training data) as one line, ``maltpy: warning: ...``; any other as Python does."""
    if not issubclass(category, MaltpyWarning):
        _python_show_warning(message, category, filename, lineno, file, line)
        return
    _warn(str(message))


_python_show_warning = warnings.showwarning


def _fail(message: str) -> int:
    _ProgressBar.clear()
    _say(f"maltpy: error: {cut(printable(message), 1000)}")  # click's messages too: one line, bounded
    return 2


def _say(line: str) -> None:
    """A last line on stderr; if it cannot be written (a full disk), the status alone tells."""
    try:
        print(line, file=sys.stderr, flush=True)
    except OSError:
        pass
