"""``maltpy tag`` (a model's taggers fill the tag columns of CoNLL input, without parsing) and
``--tag``, which says when a model's taggers tag (``maltpy parse`` and ``maltpy tag`` take it)."""

from __future__ import annotations

from collections.abc import Callable

import click

from ..data.conll import QUIET_SECONDS, format_sentence
from ..errors import MaltpyError
from ..files import atomic_output, read_conll
from .common import format_option, progress_bar

MODES = ("missing", "always", "never")  # maltpy.tagging.MODES, here without importing the taggers
BATCH_SENTENCES = 1000  # sentences tagged at a time


def tag_option() -> Callable[[Callable], Callable]:
    """``--tag MODE``: which tag columns the model's taggers predict before it parses."""
    return click.option(
        "--tag",
        "tagging",
        type=click.Choice(MODES),
        default="missing",
        show_default=True,
        help="The model's taggers (maltpy learn learns them with the parser) predict each tag column (UPOS, XPOS, "
        "FEATS, LEMMA) they can that is empty (all _) in a sentence (missing), every one they can whatever the input "
        "holds (always), or none (never).",
    )


@click.command("tag")
@click.option("-m", "--model", "model_path", metavar="FILE", required=True, help="A model made by maltpy learn.")
@click.option("-i", "--input", "input_path", metavar="FILE", help="Input (default: standard input).")
@click.option("-o", "--output", "output_path", metavar="FILE", help="Output (default: standard output).")
@format_option()
@tag_option()
@click.option("-q", "--quiet", is_flag=True, help="No progress bar (it shows only on a terminal).")
def tag_command(model_path: str, input_path: str | None, output_path: str | None, format_: str, tagging: str,
                quiet: bool) -> None:  # fmt: skip
    """Tag CoNLL-X or CoNLL-U input with a model's taggers, without parsing: the tag columns they
    predict are filled in (--tag), every other column and line is written as it was read.

    \b
    Example:
      maltpy tag -m en.mpm -i tokens.conllu -o tagged.conllu
    """
    from ..load import load

    model = load(model_path)
    if model.taggers is None:
        raise MaltpyError("the model has no taggers (learn one with them: maltpy learn, tagger.columns)", model_path)
    with read_conll(input_path, format_, blind=True) as reader, atomic_output(output_path) as out:
        bar = progress_bar(reader, "tagged", quiet, output_path)
        batch: list = []
        for sentence in reader:
            batch.append(sentence)
            if len(batch) >= BATCH_SENTENCES or not reader.pending(QUIET_SECONDS):
                _write(model.taggers, batch, tagging, out, bar)
                batch = []
        _write(model.taggers, batch, tagging, out, bar)
    if bar:
        bar.close()


def _write(taggers, batch: list, tagging: str, out, bar) -> None:
    """The sentences of ``batch`` tagged (``Taggers.tag``) and written to ``out``."""
    if not batch:
        return
    taggers.tag(batch, tagging)
    out.write("".join(format_sentence(s) for s in batch).encode("utf-8"))
    out.flush()
    if bar:
        bar.add(sum(len(s) for s in batch), batch[-1].line)
