"""maltpy eval and maltpy view: scores of parses against gold trees, and drawings of trees."""

from __future__ import annotations

import json
from contextlib import ExitStack

import click

from ..errors import MaltpyError
from ..evaluation.scores import GROUPINGS, evaluate
from ..evaluation.scores import significance as compare_systems
from ..files import atomic_output, check_output_path, check_read_once, is_std, read_conll, standard_output, write_result
from .common import format_option


@click.command("eval")
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
    "them; over every word, whatever --punct says). Files whose words differ (a parse of raw text) are then "
    "scored as that script scores them, and only so: words aligned through the text (which must be the same, "
    "spaces aside), Tokens, Sentences and Words F1, and the tag metrics and those five over the aligned words.",
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

    Where a SYSTEM's tag columns (LEMMA, UPOS, XPOS, FEATS) differ from GOLD's anywhere, also
    the tagging accuracies UPOS, XPOS, UFeats, AllTags and Lemmas, as the CoNLL 2018 shared
    task's script defines them, over every word ("tags" in --json).

    Several systems are scored side by side. Either GOLD or one SYSTEM may be '-', standard
    input. With --by, the words are also grouped by their value in GOLD (for the groupings the
    tree decides, "prec" is LAS over the words a system puts in the group); --json prints
    them under "by". With --conll18, files whose words differ (a parse of raw text) are scored
    as the CoNLL 2018 shared task's script scores them: words aligned through the text.

    \b
    Examples:
      maltpy eval gold.conllu parsed.conllu --punct exclude --per-label
      maltpy eval gold.conllu a.conllu b.conllu --by deprel --by arc-length
      maltpy eval gold.conllu a.conllu b.conllu --significance --html report.html --show 20
    """
    from ..evaluation.report import (
        Drawings,
        SentencePicker,
        conll18_table,
        draw_sentence,
        eval_json,
        group_tables,
        report_start,
        score_table,
        significance_text,
        tag_table,
        tags_differ,
    )

    standard_output()  # the scores go there: closed, an error before the work
    paths = [gold, *systems]
    if sum(is_std(p) for p in paths) > 1:
        raise MaltpyError("only one of GOLD and SYSTEM can be standard input", "command line")
    check_read_once(paths)
    if significance and len(systems) != 2:
        raise MaltpyError(f"--significance compares exactly two systems, not {len(systems)}", "command line")
    asked = tuple(dict.fromkeys(groupings))
    check_report_options(html_path, show, sentence_ids, paths)
    groupings = asked or (GROUPINGS if html_path is not None else ())
    picker = SentencePicker(10 if show is None else show, sentence_ids) if html_path is not None else None
    exclude = punct == "exclude"
    with ExitStack() as stack:
        g = stack.enter_context(read_conll(gold, format_))
        readers = [stack.enter_context(read_conll(path, format_)) for path in systems]
        names = [r.name for r in readers]
        scores = evaluate(g, readers, g.name, names, exclude, groupings, picker.watch if picker else None, conll18)
    if any(s.aligned for s in scores):
        flags = {"--by": asked, "--per-label": per_label, "--significance": significance}
        aligned_output(scores, g.name, names, [flag for flag, given in flags.items() if given], html_path, as_json)
        return
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
    if tags_differ(scores):
        text += "\n" + tag_table(scores)
    if conll18:
        text += "\n" + conll18_table(scores)
    if asked:
        text += "\n" + group_tables(scores, asked)
    if tested is not None:
        text += "\n" + significance_text(tested)
    write_result(text)


def check_report_options(html_path: str | None, show: int | None, sentence_ids: tuple[str, ...],
                         paths: list[str]) -> None:  # fmt: skip
    """--html names a file to write (not one of ``paths``); --show and --sentence go with it."""
    if html_path is not None:
        if html_path == "-":
            raise MaltpyError("--html needs a file: standard output has the scores", "command line")
        check_output_path(html_path, tuple(paths))
    elif sentence_ids or show is not None:
        flag = "--sentence" if sentence_ids else "--show"
        raise MaltpyError(f"{flag} chooses sentences for the --html report; give --html FILE", "command line")


def aligned_output(scores: list, gold: str, names: list[str], needs_words: list[str], html_path: str | None,
                   as_json: bool) -> None:  # fmt: skip
    """What ``eval --conll18`` gives of systems tokenized otherwise than the gold: their aligned
    scores (see ``evaluation.aligned``) as a table or JSON, and as the --html report; an option
    that needs the words to line up (``needs_words``) is an error at their first difference."""
    from ..evaluation.report import aligned_json, aligned_report, aligned_table

    if needs_words:
        difference = next(s.aligned.difference for s in scores if s.aligned)
        raise MaltpyError(f"{difference.message}; {needs_words[0]} needs the words to line up (--conll18 alone "
                          "scores files tokenized differently)", difference.file, difference.line)  # fmt: skip
    if html_path is not None:
        with atomic_output(html_path) as out:
            out.write(aligned_report(scores, gold, names).encode("utf-8"))
    if as_json:
        write_result(json.dumps(aligned_json(scores, gold, names), ensure_ascii=False))
    else:
        write_result(aligned_table(scores, gold, names))


@click.command("view")
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
    from ..evaluation.draw import escape, html_start
    from ..evaluation.report import Drawings, SentencePicker, draw_sentence, legend_html

    if not is_std(output_path):
        check_output_path(output_path, (input_path, gold_path))
    else:
        standard_output()
    html = output_path is not None and output_path.lower().endswith((".html", ".htm"))
    if not is_std(output_path) and not html and not output_path.lower().endswith(".svg"):
        raise MaltpyError("the output must end in .svg or .html", output_path)
    if is_std(input_path) and is_std(gold_path) and gold_path is not None:
        raise MaltpyError("only one of -i and --gold can be standard input", "command line")
    check_read_once([input_path, gold_path])
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
