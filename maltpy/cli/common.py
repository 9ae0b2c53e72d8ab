"""What the commands share: their options (``-c`` and MaltParser's flags, ``--format``) and
their messages on stderr (warnings, progress lines and bars)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

import click

from ..config import COLUMN_NAMES, FLAGS, OPTIONS, default_config, load_config
from ..data.conll import FORMATS
from ..errors import printable
from ..files import is_std
from ..learners import LEARNERS

FORMAT_CHOICE = click.Choice(("auto",) + FORMATS)


def config_options(*groups: str, config_file: bool = True) -> Callable[[Callable], Callable]:
    """Add ``-c FILE`` (unless not ``config_file``) and MaltParser's flag of every option in
    ``groups`` (all if none given): ``-a``, ``-l``, ``-F``, ``-nr`` ..."""
    return lambda command: _add_config_options(command, groups, config_file)


def _add_config_options(command: Callable, groups: tuple[str, ...], config_file: bool) -> Callable:
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
    if not config_file:
        return command
    return click.option(
        "-c", "--config", "config_path", metavar="FILE",
        help="YAML configuration file (default: none, MaltParser 1.9.2's defaults); the flags override it.",
    )(command)  # fmt: skip


_METAVARS = {"bool": "BOOL", "int": "N", "str": "TEXT", "label": "LABEL", "choice": "NAME", "path": "FILE",
             "column": "COLUMN", "address": "ADDRESS", "liboptions": "OPTIONS",
             "tagcolumns": "COLUMNS"}  # fmt: skip


def _values(group: str, name: str, option) -> str:
    """What an option takes and its default, as its help says them."""
    default = default_config().to_dict()[group][name]
    if option.kind == "choice":
        return f"one of {', '.join(option.choices)} (default: {default})"
    if option.kind == "bool":
        return f"true or false (default: {str(default).lower()})"
    if option.kind == "int":
        most = "" if option.maximum is None else f", at most {option.maximum}"
        return f"an integer, at least {option.minimum}{most} (default: {'none' if default is None else default})"
    if option.kind == "column":
        return f"one of {', '.join(COLUMN_NAMES)} (default: none, no data split)"
    if option.kind == "address":
        return "an address such as Input[0] or head(Stack[0]) (default: none, no data split)"
    if option.kind == "tagcolumns":
        return f"default: {default}"
    if (group, name) == ("tagger", "features"):
        return "default: the taggers' own feature models"
    if group == "tagger" and option.optional:
        return "default: none"
    if option.kind == "path":
        return "default: MaltParser's default feature model for the algorithm, learner and input format"
    if option.kind == "liboptions":
        flags = "; ".join(f"{name}: {' '.join('-' + f for f in learner.options)}" for name, learner in LEARNERS.items())
        return f"flags of the learner ({flags}) (default: the learner's defaults, as maltpy config prints them)"
    return f"default: {default}"


def config_source(kwargs: dict) -> tuple[str | None, dict]:
    """The configuration file named by ``-c`` (None) and the command line's option flags (the
    overrides of ``config.load_config``), taken from a command's ``kwargs``."""
    overrides = {}
    for group, name in FLAGS.values():
        value = kwargs.pop(f"cfg_{group}_{name}", None)
        if value is not None:
            overrides[(group, name)] = value
    return kwargs.pop("config_path", None), overrides


def config_from(kwargs: dict) -> object:
    """The Config named by ``-c`` with the command line's option flags applied over it."""
    return load_config(*config_source(kwargs))


def format_option(what: str = "Input format", text: bool = False) -> Callable[[Callable], Callable]:
    """``--format``/``-if``: the CoNLL format of the input, as every command that reads CoNLL takes
    it; ``text``: raw text too (``-if text``, tokenized by the model's tokenizer)."""
    return click.option(
        "--format",
        "-if",
        "format_",
        type=click.Choice(("auto", *FORMATS, "text")) if text else FORMAT_CHOICE,
        default="auto",
        show_default=True,
        help=f"{what}: auto decides from the first lines, then the file name (MaltParser's -if)"
        + ("; text: raw text, paragraphs separated by empty lines, tokenized by the model's tokenizer."
           if text else "."),  # fmt: skip
    )


def warn(message: str) -> None:
    """One warning line on stderr."""
    ProgressBar.clear()
    click.echo(f"maltpy: warning: {printable(message)}", err=True)


def progress_line(message: str, final: bool = False) -> None:
    """A progress message on stderr: rewritten in place on a terminal, only the final one otherwise."""
    message = printable(message)  # a name in it cannot start a line of its own
    if sys.stderr.isatty():
        click.echo(f"\r\033[Kmaltpy: {message}", err=True, nl=final)
    elif final:
        click.echo(f"maltpy: {message}", err=True)


class ProgressBar:
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
        ProgressBar.showing = True

    @staticmethod
    def clear() -> None:
        if ProgressBar.showing:
            sys.stderr.write("\r\033[K")
            ProgressBar.showing = False

    def close(self) -> None:
        ProgressBar.showing = False
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


def progress_bar(reader, verb: str, quiet: bool, output_path: str | None) -> ProgressBar | None:
    """A progress bar if stderr is a terminal and the output does not go to that terminal."""
    if quiet or not sys.stderr.isatty() or (is_std(output_path) and sys.stdout.isatty()):
        return None
    return ProgressBar(reader, verb)


class SearchBar:
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
        ProgressBar.showing = True
