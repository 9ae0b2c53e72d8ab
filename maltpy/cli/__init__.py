"""The ``maltpy`` command: parses options, calls the library, maps errors to exit statuses.

Exit statuses: 0 success; 2 a user error (bad input, bad config, bad usage), reported as one
line ``maltpy: error: FILE:LINE: message`` on stderr; 130 interrupted; 141 output pipe closed.
Standard output carries nothing but the command's result.
"""

from __future__ import annotations

import os
import signal
import sys
import time
import warnings

import click

from ..config import dump_config, load_config, with_profile
from ..data.conll import format_sentence
from ..data.vocabulary import python_warning
from ..errors import MaltpyError, MaltpyWarning, cut, printable, quote
from ..files import (
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
from ..graph import TRANSITION_OPTIONS, is_graph_based
from ..run.threads import set_threads
from ..tokenizing.reader import open_reader
from ..version import __version__
from .blending import blend_command, combine_command
from .common import (
    ProgressBar,
    config_from,
    config_options,
    config_source,
    format_option,
    progress_bar,
    progress_line,
    warn,
)
from .evaluation import eval_command, view_command
from .maltparser import maltpy_arguments
from .models import convert_model_command, info_command, knn_command, optimize_command
from .tagging import tag_command, tag_option, tokenize_command
from .treebanks import convert_command, deproj_command, oracle_command, proj_command


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
    input/output. MaltParser's own command line works too: maltpy -c NAME -m parse -i IN -o OUT
    (the README's "For MaltParser users").
    """
    set_threads(threads, learning=ctx.invoked_subcommand in ("learn", "blend"))


for _command in (blend_command, combine_command, convert_command, convert_model_command, deproj_command, eval_command,
                 info_command, knn_command, optimize_command, oracle_command, proj_command, tag_command,
                 tokenize_command,
                 view_command):  # fmt: skip
    cli.add_command(_command)


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
    from ..models.learn import learn
    from ..models.tags import taggers_summary

    path, overrides = config_source(kwargs)
    config = load_config(path, overrides)
    if instances_path is not None and is_graph_based(config.singlemalt.parsing_algorithm):
        raise MaltpyError(f"--save-instances writes the instances of a transition-based parser's classifiers; "
                          f"{TRANSITION_OPTIONS[('guide', 'learner')]}", "command line")  # fmt: skip
    check_output_path(model_path, (input_path,))
    say = None if quiet else progress_line
    started = time.perf_counter()
    with read_conll(input_path, config.input.format) as reader:
        config = with_profile(config, path, overrides, reader.format)
        model = learn(config, reader, reader.format, reader.name, say, instances_path)
    model.save(model_path)
    if not quiet:
        progress_line(
            f"learned {model.summary()}{taggers_summary(model.taggers)} in {time.perf_counter() - started:.1f}s "
            f"-> {'standard output' if is_std(model_path) else quote(model_path)}",
            final=True,
        )


@cli.command("parse")
@click.option(
    "-q",
    "--quiet",
    is_flag=True,
    help="No progress bar (it shows only on a terminal) and no warning about the input on stderr.",
)
@click.option("-m", "--model", "model_path", metavar="FILE", required=True, help="A model made by maltpy learn.")
@click.option("-i", "--input", "input_path", metavar="FILE", help="Input (default: standard input); files may follow.")
@click.argument("more_inputs", nargs=-1, metavar="[FILE]...")
@click.option("-o", "--output", "output_path", metavar="FILE", help="Output (default: standard output).")
@click.option(
    "--output-dir",
    "output_dir",
    metavar="DIR",
    help="Write each input's parse to DIR (made if need be) under the input's name (-if text: as NAME.conllu; for "
    "several inputs; "
    "default: none, -o).",
)
@click.option(
    "--scheduler",
    metavar="ADDRESS",
    help="Parse the files across the Dask cluster of this scheduler (needs maltpy[dask] and --output-dir; "
    "default: none, parse here).",
)
@format_option(text=True)
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
@tag_option()
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
                  max_degree: int | None, enforce_tree: bool | None, single_root: str | None, tagging: str,
                  jobs: int) -> None:  # fmt: skip
    """Parse CoNLL-X or CoNLL-U input with a model (MaltParser's parsing mode).

    HEAD and DEPREL are filled in, and the tag columns the model's taggers predict where the input
    has none (--tag); every other column and line is written as it was read, in the input's
    format. Works in pipelines: maltpy parse -m m.mpm < in.conllu > out.conllu. Raw text (-if
    text: paragraphs separated by empty lines) is split into sentences and tokens by the tokenizer
    the model learned from its treebank's text, and written as CoNLL-U (as maltpy tokenize writes
    it, tagged and parsed). A column holding far more values the model never saw than its training
    treebank's held-out text does (another tagset?) gets one warning line on stderr (-q: none).

    \b
    Example:
      maltpy parse -m en.mpm -i test.conllu -o parsed.conllu
      maltpy parse -m en.mpm -i big.conllu -o parsed.conllu --jobs 2
      maltpy parse -m en.mpm -if text -i story.txt -o parsed.conllu
      maltpy parse -m en.mpm -i a.conllu b.conllu c.conllu --output-dir parsed/ --jobs 2
      maltpy parse -m en.mpm -i a.conllu b.conllu --output-dir parsed/ --scheduler tcp://host:8786
    """
    from ..run.jobs import Workers, workers_for

    if quiet:
        warnings.simplefilter("ignore", MaltpyWarning)
    inputs = [path for path in (input_path, *more_inputs) if path is not None]  # -i FILE, or FILE alone
    if len(inputs) > 1 or output_dir is not None or scheduler is not None:
        _parse_files(model_path, inputs or ["-"], output_dir, scheduler, format_, max_degree, enforce_tree, jobs,
                     output_path, single_root, quiet, tagging)  # fmt: skip
        return
    input_path = inputs[0] if inputs else None
    if jobs > 1:
        jobs = workers_for(jobs, model_path, [input_path], None if quiet else warn)
    if jobs > 1:
        with Workers(model_path, max_degree, enforce_tree, jobs, single_root, tagging) as workers:
            with open_reader(input_path, format_, _tokenizer_alone(model_path)) as reader, \
                    atomic_output(output_path) as out:  # fmt: skip
                bar = progress_bar(reader, "parsed", quiet, output_path)
                workers.parse(reader, out, bar.add if bar else None, python_warning(reader.name))
    else:
        from ..load import load_model  # imports NumPy: not in the main process of --jobs
        from ..tokenizing.reader import tokenizer_of

        model = load_model(model_path, max_degree, enforce_tree, single_root, tagging=tagging)
        tokenizer = lambda: tokenizer_of(model, model_path)  # noqa: E731
        with open_reader(input_path, format_, tokenizer) as reader, atomic_output(output_path) as out:
            bar = progress_bar(reader, "parsed", quiet, output_path)
            for sentence in model.parse(reader):
                out.write(format_sentence(sentence).encode("utf-8"))
                if bar:
                    bar.add(len(sentence), sentence.line)
                if not reader.pending():  # the writer waits: hand it what is parsed
                    out.flush()
    if bar:
        bar.close()


def _tokenizer_alone(model_path: str):
    """What gives the tokenizer of the model, read alone (the main process of --jobs tokenizes)."""

    def tokenizer():
        from ..load import load_tokenizer

        return load_tokenizer(model_path)

    return tokenizer


def _parse_files(model_path: str, inputs: list[str | None], output_dir: str | None, scheduler: str | None,
                 format_: str, max_degree: int | None, enforce_tree: bool | None, jobs: int,
                 output_path: str | None, single_root: str | None, quiet: bool, tagging: str) -> None:  # fmt: skip
    """``maltpy parse -i F1 F2 ... --output-dir D``: each file to D under its name, in turn,
    with --jobs workers (the model loaded once in each), or across a Dask cluster."""
    from ..run.jobs import Workers, workers_for

    if output_dir is None:
        raise MaltpyError("several inputs (or --scheduler) need --output-dir DIR", "command line")
    if output_path is not None:
        raise MaltpyError("-o and --output-dir exclude each other", "command line")
    if any(is_std(path) for path in inputs):
        raise MaltpyError("--output-dir needs the inputs as files (-i FILE ...), not standard input", "command line")
    # raw text parsed is CoNLL-U: story.txt to DIR/story.conllu
    names = [os.path.splitext(os.path.basename(p))[0] + ".conllu" if format_ == "text" else os.path.basename(p)
             for p in inputs]  # fmt: skip
    outputs = [os.path.join(output_dir, name) for name in names]
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
            from ..dask import parse_with_scheduler
        except ImportError as e:
            raise MaltpyError(f"--scheduler needs Dask ({e}): pip install 'maltpy[dask]'", "command line") from None
        from ..load import load_model

        if format_ == "text":
            raise MaltpyError("-if text with --scheduler: tokenize first (maltpy tokenize), then parse the CoNLL-U "
                              "files on the cluster", "command line")  # fmt: skip
        if tagging != "missing":  # the cluster's workers load the archive, which keeps no tagging mode
            raise MaltpyError(f"--tag {tagging} with --scheduler: the cluster's workers tag as the model does "
                              "(missing)", "command line")  # fmt: skip
        # the model is checked here, before the cluster sees it; unchanged by an option, the
        # file's bytes go (the workers may know them)
        model = load_model(model_path, max_degree, enforce_tree, single_root, tagging=tagging)
        unchanged = max_degree is None and enforce_tree is None and single_root is None and tagging == "missing"
        parse_with_scheduler(scheduler, inputs, model_path if unchanged else model, output_dir)
        return
    if jobs > 1:
        jobs = workers_for(jobs, model_path, inputs, None if quiet else warn)
    if jobs > 1:
        with Workers(model_path, max_degree, enforce_tree, jobs, single_root, tagging) as workers:
            for path, output in zip(inputs, outputs):
                with open_reader(path, format_, _tokenizer_alone(model_path)) as reader, atomic_output(output) as out:
                    workers.parse(reader, out, warn=python_warning(reader.name))
        return
    from ..load import load_model

    model = load_model(model_path, max_degree, enforce_tree, single_root, tagging=tagging)
    if format_ == "text":  # a model without a tokenizer is the model's fault, not the inputs'
        from ..tokenizing.reader import tokenizer_of

        tokenizer_of(model, model_path)
    for path, output in zip(inputs, outputs):
        model.parse_file(path, output, format_)


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
        from ..features import FeatureModel
        from ..features.spec import read_feature_model

        algorithm = config.singlemalt.parsing_algorithm
        specs = read_feature_model(config.guide.features, algorithm)
        if config.input.format != "auto":  # and against the treebank's format, when it is given
            FeatureModel(specs, algorithm, config.singlemalt.null_value, config.guide.features).check_columns(
                config.input.format
            )
    write_result(dump_config(config), end="")


def _maltparser_start(args: list[str]) -> int | None:
    """Where MaltParser's command line (``-c NAME -m MODE ...``) starts in ``args``, past a
    leading --threads N; None if ``args`` is maltpy's own (a command, --version, -h, --help)."""
    start = 2 if args[:1] == ["--threads"] else 1 if args[:1] and args[0].startswith("--threads=") else 0
    if start >= len(args) or not args[start].startswith("-"):
        return None
    own = {name for param in cli.get_params(cli.make_context("maltpy", [], resilient_parsing=True))
           for name in param.opts}  # fmt: skip
    return None if args[start].partition("=")[0] in own else start


def main(argv: list[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    hold_standard_streams()
    args = sys.argv[1:] if argv is None else list(argv)
    if not args:
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
            start = _maltparser_start(args)
            if start is not None:
                args = args[:start] + maltpy_arguments(args[start:])
            status = cli.main(args=args, prog_name="maltpy", standalone_mode=False)
    except _Signalled as e:
        ProgressBar.clear()
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
        start = "" if ProgressBar.showing or not sys.stderr.isatty() else "\n"
        ProgressBar.clear()
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
    warn(str(message))


_python_show_warning = warnings.showwarning


def _fail(message: str) -> int:
    ProgressBar.clear()
    _say(f"maltpy: error: {cut(printable(message), 1000)}")  # click's messages too: one line, bounded
    return 2


def _say(line: str) -> None:
    """A last line on stderr; if it cannot be written (a full disk), the status alone tells."""
    try:
        print(line, file=sys.stderr, flush=True)
    except OSError:
        pass
