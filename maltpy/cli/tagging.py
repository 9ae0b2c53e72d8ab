"""``maltpy tag`` (a model's taggers fill the tag columns of CoNLL input, without parsing),
``maltpy tokenize`` (its tokenizer splits raw text into sentences and tokens) and ``--tag``, which
says when a model's taggers tag (``maltpy parse`` and ``maltpy tag`` take it)."""

from __future__ import annotations

from collections.abc import Callable

import click

from ..data.conll import QUIET_SECONDS, format_sentence
from ..errors import MaltpyError
from ..files import atomic_output
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
@format_option(text=True)
@tag_option()
@click.option("-q", "--quiet", is_flag=True, help="No progress bar (it shows only on a terminal).")
def tag_command(model_path: str, input_path: str | None, output_path: str | None, format_: str, tagging: str,
                quiet: bool) -> None:  # fmt: skip
    """Tag CoNLL-X or CoNLL-U input with a model's taggers, without parsing: the tag columns they
    predict are filled in (--tag), every other column and line is written as it was read. Raw
    text (-if text) is tokenized by the model's tokenizer first, as maltpy tokenize writes it.

    \b
    Example:
      maltpy tag -m en.mpm -i tokens.conllu -o tagged.conllu
      maltpy tag -m en.mpm -if text -i story.txt -o tagged.conllu
    """
    from ..load import load
    from ..tokenizing.reader import open_reader, tokenizer_of

    model = load(model_path)
    if model.taggers is None:
        raise MaltpyError("the model has no taggers (learn one with them: maltpy learn, tagger.columns)", model_path)
    tokenizer = lambda: tokenizer_of(model, model_path)  # noqa: E731
    with open_reader(input_path, format_, tokenizer) as reader, atomic_output(output_path) as out:
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


@click.command("tokenize")
@click.option("-m", "--model", "model_path", metavar="FILE", required=True, help="A model made by maltpy learn.")
@click.option("-i", "--input", "input_path", metavar="FILE", help="Raw text (default: standard input).")
@click.option("-o", "--output", "output_path", metavar="FILE", help="Output (default: standard output).")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar (it shows only on a terminal).")
def tokenize_command(model_path: str, input_path: str | None, output_path: str | None, quiet: bool) -> None:
    """Split raw text into sentences and tokens with the tokenizer a model learned from its
    treebank's text (maltpy learn learns it with the taggers from a CoNLL-U treebank's # text
    lines), and write them as CoNLL-U: # sent_id, # text, FORM, multiword tokens and their words,
    SpaceAfter=No; no tags, no tree. Paragraphs are separated by empty lines; on a pipe, a
    paragraph also ends where the input pauses after a line, so that each line typed is answered.

    \b
    Example:
      maltpy tokenize -m en.mpm -i story.txt -o tokens.conllu
      echo 'She did not go. It rained.' | maltpy tokenize -m en.mpm
    """
    from ..load import load_tokenizer
    from ..tokenizing.reader import TEXT, open_reader

    with open_reader(input_path, TEXT, lambda: load_tokenizer(model_path)) as reader, \
            atomic_output(output_path) as out:  # fmt: skip
        bar = progress_bar(reader, "tokenized", quiet, output_path)
        for sentence in reader:
            out.write(format_sentence(sentence).encode("utf-8"))
            if bar:
                bar.add(len(sentence), sentence.line)
            if not reader.pending():
                out.flush()
    if bar:
        bar.close()
