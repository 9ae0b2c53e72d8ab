"""What ``maltpy eval`` and ``maltpy view`` print and write: score tables as text, the same as
JSON, the HTML report, and the choice of the sentences to draw.

The report is one HTML file that needs nothing else: the files compared, the scores of each
system, the p values if asked for, a table and a bar chart for each grouping, and the drawings
of the chosen sentences (see ``draw``). Only the sentences to draw are held (``SentencePicker``:
the N worst in a bounded heap, in the one pass that scores the files, so that standard input is
read once like any file), and each drawing is written as it is made (``Drawings``).
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Sequence
from typing import BinaryIO

from ..data.conll import Sentence
from ..errors import MaltpyError, cut, quote
from .aligned import ALIGNED_METRICS, WORD_METRICS, AlignedCounts
from .conll18 import CONLL18_METRICS, Conll18Counts
from .draw import (
    HTML_END,
    bar_chart,
    escape,
    figure,
    html_start,
    legend_svg,
    sentence_svg,
    sentence_trees,
    svg_document,
    system_key,
    table,
)
from .scores import TREE_GROUPINGS, GroupCounts, Scores, is_punctuation, value_order
from .tags import TAG_METRICS


def _columns(header: Sequence[str], rows: Sequence[Sequence[str]]) -> list[str]:
    """A text table: the first column left-aligned, the others right-aligned."""
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    return [
        "  ".join(f"{c:<{w}}" if i == 0 else f"{c:>{w}}" for i, (c, w) in enumerate(zip(row, widths))).rstrip()
        for row in [header, *rows]
    ]


def score_table(scores: Sequence[Scores], gold: str, systems: Sequence[str], punct: str, per_label: bool) -> str:
    """The overall scores as text (one system: with the counts; several: side by side)."""
    first = scores[0]
    lines = [f"gold         {gold}"]
    if len(scores) == 1:
        lines.append(f"system       {systems[0]}")
    else:
        lines += [f"system {k:<5} {name}" for k, name in enumerate(systems, 1)]
    lines += [
        f"punctuation  {'included' if punct == 'include' else 'excluded'}",
        f"sentences    {first.sentences}",
        f"tokens       {first.tokens}",
        "",
    ]
    if len(scores) == 1:
        lines += [
            "metric   score  correct    total",
            f"LAS     {figure(first.las):>6} {first.right_both:>8} {first.tokens:>8}",
            f"UAS     {figure(first.uas):>6} {first.right_head:>8} {first.tokens:>8}",
            f"LA      {figure(first.la):>6} {first.right_label:>8} {first.tokens:>8}",
            f"EM      {figure(first.em):>6} {first.exact:>8} {first.sentences:>8}",
        ]
    else:
        header = ["metric", *(f"[{k}]" for k in range(1, len(scores) + 1))]
        rows = [[m, *(figure(getattr(s, m.lower())) for s in scores)] for m in ("LAS", "UAS", "LA", "EM")]
        lines += _columns(header, rows)
    if per_label:
        for k, s in enumerate(scores, 1):
            width = max([5] + [len(label) for label in s.per_label])
            title = "" if len(scores) == 1 else f"per label, system [{k}]"
            lines += ["", *([title] if title else []),
                      f"{'label':<{width}}     gold   system  correct  precision   recall        F"]  # fmt: skip
            for label, counts in sorted(s.per_label.items()):
                d = counts.as_dict()
                lines.append(
                    f"{label:<{width}} {d['gold']:>8} {d['system']:>8} {d['correct']:>8} "
                    f"{figure(d['precision']):>10} {figure(d['recall']):>8} {figure(d['f1']):>8}"
                )
    return "\n".join(lines)


def group_rows(scores: Sequence[Scores], grouping: str) -> list[tuple[str, int, list[list[float | None]]]]:
    """For each value of ``grouping``, in table order: its gold tokens, and each system's LAS, UAS
    and LA over them (and, for a grouping the tree decides, LAS precision over the system's own)."""
    fields = ["LAS", "UAS", "LA"] + (["precision"] if grouping in TREE_GROUPINGS else [])
    rows = []
    for value in value_order(grouping, {v for s in scores for v in s.by[grouping]}):
        counts = [s.by[grouping].get(value, GroupCounts()).as_dict(True) for s in scores]
        rows.append((value, counts[0]["tokens"], [[d[f] for f in fields] for d in counts]))
    return rows


def group_tables(scores: Sequence[Scores], groupings: Sequence[str]) -> str:
    """A table for each grouping (see ``group_rows``)."""
    out = []
    several = len(scores) > 1
    for grouping in groupings:
        metrics = ["LAS", "UAS", "LA"] + (["prec"] if grouping in TREE_GROUPINGS else [])
        header = [grouping, "tokens"]
        for k in range(1, len(scores) + 1):
            header += [f"{m}[{k}]" if several else m for m in metrics]
        rows = [[value, str(tokens), *(figure(x) for figures in per_system for x in figures)]
                for value, tokens, per_system in group_rows(scores, grouping)]  # fmt: skip
        out += ["", f"by {grouping}", *_columns(header, rows)]
    return "\n".join(out)


def p_value(p: float) -> str:
    """A p value as text: four decimals, or two significant digits below 0.001 (never 0: the
    test's p is at least 1 / (samples + 1))."""
    return f"{p:.4f}" if p >= 0.001 else f"{p:.2g}"


def conll18_table(scores: Sequence[Scores]) -> str:
    """The CoNLL 2018 shared task's metrics of each system."""
    several = len(scores) > 1
    header = ["CoNLL 2018", *(f"F1[{k}]" if several else "F1" for k in range(1, len(scores) + 1))]
    figures = [s.conll18.as_dict() for s in scores]
    rows = [[metric, *(figure(f[metric]) for f in figures)] for metric in CONLL18_METRICS]
    return "\n" + "\n".join(_columns(header, rows) + conll18_notes([s.conll18 for s in scores]))


def conll18_notes(counts: Sequence[Conll18Counts | AlignedCounts]) -> list[str]:
    """Why CLAS, MLAS and BLEX are low or 0 where a file's relations are not UD's: a line for the
    gold file and for each system that has such words (none if every relation is UD's); ``counts``
    are each system's CoNLL 2018 counts."""
    sides = [("gold", counts[0].not_ud_as_dict()["gold"])]
    sides += [("system" if len(counts) == 1 else f"[{k}]", c.not_ud_as_dict()["system"])
              for k, c in enumerate(counts, 1)]  # fmt: skip
    words = counts[0].counts["UAS"][1]
    lines = []
    for name, relations in sides:
        if not relations:
            continue
        count = sum(relations.values())
        listed = ", ".join(f"{rel} {n}" for rel, n in list(relations.items())[:8])
        more = f", {len(relations) - 8} more" if len(relations) > 8 else ""
        share = f"all {words}" if count == words else f"{count} of {words}"
        lines.append(f"  {name + ':':<7} {share} words have a relation that is not UD's ({listed}{more})")
    if lines:
        lines.insert(0, "note: CLAS, MLAS and BLEX count only the words of UD's content relations (v2's set; "
                        "subtypes aside):")  # fmt: skip
    if lines and not counts[0].counts["CLAS"][1]:
        lines.append("  no gold word has a content relation: CLAS, MLAS and BLEX are F1 over no words (0.00)")
    return lines


# --- files tokenized differently: the CoNLL 2018 metrics of aligned words, alone -----------------


def aligned_table(scores: Sequence[Scores], gold: str, systems: Sequence[str]) -> str:
    """The CoNLL 2018 metrics of systems tokenized otherwise than the gold (see ``aligned``): one
    system's with the script's counts, several side by side."""
    counts = [s.aligned for s in scores]
    lines = [f"gold         {gold}"]
    if len(scores) == 1:
        lines.append(f"system       {systems[0]}")
    else:
        lines += [f"system {k:<5} {name}" for k, name in enumerate(systems, 1)]
    lines += [f"tokenization differs, first at {_place(counts[0].difference)}",
              "words        aligned through the text, as the CoNLL 2018 shared task's script aligns them",
              ""]  # fmt: skip
    figures = [c.as_dict() for c in counts]
    if len(scores) == 1:
        header = ["CoNLL 2018", "F1", "correct", "gold", "system", "aligned"]
        rows = [[m, figure(figures[0][m]), *map(str, counts[0].counts[m][:3]),
                 str(counts[0].counts[m][3]) if m in WORD_METRICS else ""] for m in ALIGNED_METRICS]  # fmt: skip
    else:
        header = ["CoNLL 2018", *(f"F1[{k}]" for k in range(1, len(scores) + 1))]
        rows = [[m, *(figure(f[m]) for f in figures)] for m in ALIGNED_METRICS]
    return "\n".join(lines + _columns(header, rows) + conll18_notes(counts))


def _place(error: MaltpyError) -> str:
    """Where an error is, as a message names it: FILE:LINE."""
    return f"{quote(error.file)}:{error.line}"


def aligned_json(scores: Sequence[Scores], gold: str, systems: Sequence[str]) -> dict:
    """``aligned_table`` as JSON: for one system, ``tokenization`` (differs), ``conll18`` (F1 of
    each metric), ``conll18_counts`` and ``conll18_not_ud``; for several, ``gold``,
    ``tokenization`` and ``systems``, a list of such objects, each with its ``system``."""

    def scores_of(c: AlignedCounts) -> dict:
        return {"conll18": c.as_dict(), "conll18_counts": c.counts_as_dict(), "conll18_not_ud": c.not_ud_as_dict()}

    if len(scores) == 1:
        return {"tokenization": "differs", **scores_of(scores[0].aligned)}
    return {"gold": gold, "tokenization": "differs",
            "systems": [{"system": name, **scores_of(s.aligned)} for name, s in zip(systems, scores)]}  # fmt: skip


def aligned_report(scores: Sequence[Scores], gold: str, systems: Sequence[str]) -> str:
    """The HTML report of systems tokenized otherwise than the gold: the files, the metrics in a
    table and a bar chart, and a note that drawn trees need files tokenized alike."""
    figures = [s.aligned.as_dict() for s in scores]
    files = [("gold", gold)] + [(f"[{k}]", name) for k, name in enumerate(systems, 1)]
    rows = [[f"[{k}] {name}", *(f[m] for m in ALIGNED_METRICS)] for k, (name, f) in enumerate(zip(systems, figures), 1)]
    totals = scores[0].aligned.counts
    chart = bar_chart([(m, f"{totals[m][1]} gold", [f[m] for f in figures]) for m in ALIGNED_METRICS],
                      "F1 (%) of each system; at the right, the gold tokens, sentences or words")  # fmt: skip
    note = ('<p class="note">The files are tokenized differently: their words are aligned through the text, as '
            "the CoNLL 2018 shared task's script aligns them, and each metric is F1 over every word, punctuation "
            "included. The trees are drawn only for files tokenized alike.</p>")  # fmt: skip
    return "".join([
        html_start(f"maltpy evaluation: {gold}"), "<h1>maltpy evaluation</h1>",
        table(["", "file"], files, names=2, cls="files"), note, "<h2>CoNLL 2018</h2>",
        table(["system", *ALIGNED_METRICS], rows), system_key(systems), chart, HTML_END,
    ])  # fmt: skip


def tags_differ(scores: Sequence[Scores]) -> bool:
    """Whether a system's tag columns differ from the gold's anywhere: then ``eval`` reports the
    tagging accuracies of every system (files alike in them, as a parser writes its input's, show
    nothing new)."""
    return any(s.tags.differ for s in scores)


def tag_table(scores: Sequence[Scores]) -> str:
    """The CoNLL 2018 shared task's tagging accuracies of each system (see ``tags``)."""
    words = scores[0].tags.words
    lines = ["", f"tags (CoNLL 2018's accuracies, over all {words} words, punctuation included)"]
    if len(scores) == 1:
        figures = scores[0].tags.as_dict()
        rows = [[m, figure(figures[m]), str(scores[0].tags.right[m]), str(words)] for m in TAG_METRICS]
        return "\n".join(lines + _columns(["metric", "score", "correct", "total"], rows))
    figures = [s.tags.as_dict() for s in scores]
    rows = [[m, *(figure(f[m]) for f in figures)] for m in TAG_METRICS]
    return "\n".join(lines + _columns(["metric", *(f"[{k}]" for k in range(1, len(scores) + 1))], rows))


def significance_text(result: dict) -> str:
    return (
        f"\nsignificance  paired approximate randomization over sentences, {result['samples']} samples, "
        f"seed {result['seed']}\nLAS difference  p = {p_value(result['LAS'])}\n"
        f"UAS difference  p = {p_value(result['UAS'])}"
    )


def eval_json(scores: Sequence[Scores], gold: str, systems: Sequence[str], punct: str, per_label: bool,
              significance: dict | None, groupings: Sequence[str]) -> dict:  # fmt: skip
    """For one system, its scores as the keys of the object; for several, a list of them under
    ``systems``, each with its file under ``system``. Of the groupings counted, ``groupings``.
    The tagging accuracies, under ``tags``, if the files' tag columns differ (``tags_differ``)."""

    tags = tags_differ(scores)

    def scores_of(s: Scores) -> dict:
        d = s.as_dict(per_label)
        if tags:
            d["tags"] = s.tags.json()
        if "by" in d:
            d["by"] = {g: values for g, values in d["by"].items() if g in groupings}
            if not d["by"]:
                del d["by"]
        return d

    if len(scores) == 1:
        result = scores_of(scores[0])
        result["punct"] = punct
        return result
    result = {"gold": gold, "punct": punct, "systems": []}
    for name, s in zip(systems, scores):
        result["systems"].append({"system": name, **scores_of(s)})
    if significance is not None:
        result["significance"] = significance
    return result


# --- choosing and drawing sentences --------------------------------------------------------------


class SentencePicker:
    """Keeps, while scoring streams, the sentences to draw: the ``worst`` N by LAS (the mean of the
    systems'; more wrong words first among equals, then the earlier) and those named by ID (a
    sent_id, or a sentence's number in the file counted from 1)."""

    def __init__(self, worst: int, ids: Sequence[str]) -> None:
        self.worst = worst
        self.ids = list(dict.fromkeys(ids))
        #: the IDs that can be sentence numbers, as numbers
        self.numbers = {i: int(i) for i in self.ids if re.fullmatch(r"[0-9]{1,12}", i)}
        self._heap: list[tuple] = []
        self._by_sent_id: dict[str, tuple] = {}
        self._by_number: dict[int, tuple] = {}
        self.sentences = 0

    def watch(self, number: int, gold: Sentence, systems: list[Sentence], scores: list[Scores]) -> None:
        self.sentences = number
        kept = (number, gold, systems)
        if self.ids:
            sent_id = (gold if gold is not None else systems[0]).sent_id
            if sent_id in self.ids:
                self._by_sent_id.setdefault(sent_id, kept)
            if number in self.numbers.values():
                self._by_number[number] = kept
        if not self.worst:
            return
        counts = [s.sentence_counts[-1] for s in scores]
        if not counts[0][0]:
            return  # no word scored (all punctuation, left out)
        las = sum(right / words for words, right, _ in counts) / len(counts)
        wrong = sum(words - right for words, right, _ in counts)
        item = (-las, wrong, -number, kept)
        if len(self._heap) < self.worst:
            heapq.heappush(self._heap, item)
        elif item[:3] > self._heap[0][:3]:
            heapq.heapreplace(self._heap, item)

    def chosen(self, where: str) -> list[tuple[int, Sentence, list[Sentence]]]:
        """The sentences named (in the order named), then the worst (worst first); an ID that
        names no sentence is a MaltpyError."""
        out: dict[int, tuple] = {}
        for sentence_id in self.ids:
            number = self.numbers.get(sentence_id)
            kept = self._by_sent_id.get(sentence_id)
            if kept is None and number is not None:
                kept = self._by_number.get(number)
            if kept is None:
                raise MaltpyError(
                    f"no sentence has sent_id {cut(repr(sentence_id), 80)}"
                    + (f", and there are {self.sentences} sentences" if number is not None else ""),
                    where,
                )
            out.setdefault(kept[0], kept)
        for item in sorted(self._heap, key=lambda i: (-i[0], -i[1], -i[2])):
            out.setdefault(item[3][0], item[3])
        return list(out.values())


def draw_sentence(number: int, gold: Sentence | None, systems: Sequence[tuple[str, Sentence]], gold_name: str,
                  exclude_punct: bool = False, legend: bool = False) -> str:  # fmt: skip
    """The drawing of one sentence (an ``<svg>`` element): its gold tree and each system's."""
    first = gold if gold is not None else systems[0][1]
    title = f"sentence {number}"
    if first.sent_id:
        title += f" ({first.sent_id})"
    title += f", line {first.line}, {len(first)} words"
    scored = [not is_punctuation(w) for w in gold.words] if exclude_punct and gold is not None else None
    trees = sentence_trees(gold, systems, gold_name, scored)
    return sentence_svg(first.words, trees, title, legend=legend)


def report_start(scores: Sequence[Scores], gold: str, systems: Sequence[str], punct: str,
                 significance: dict | None, drawings: bool) -> str:  # fmt: skip
    """The HTML report of ``maltpy eval --html`` up to the drawn sentences (``Drawings`` adds
    them), with the heading and legend of the drawings if there are ``drawings``."""
    first = scores[0]
    body = [html_start(f"maltpy evaluation: {gold}"), "<h1>maltpy evaluation</h1>"]
    files = [("gold", gold)] + [(f"[{k}]", name) for k, name in enumerate(systems, 1)]
    body.append(table(["", "file"], files, names=2, cls="files"))
    body.append(
        f'<p class="note">{first.sentences} sentences, {first.tokens} tokens scored; punctuation '
        f"{'included' if punct == 'include' else 'excluded'}.</p>"
    )
    body.append("<h2>Scores</h2>")
    header = ["system", "LAS", "UAS", "LA", "EM", "right (LAS)", "right (UAS)", "tokens"]
    rows = [
        [f"[{k}] {name}", s.las, s.uas, s.la, s.em, s.right_both, s.right_head, s.tokens]
        for k, (name, s) in enumerate(zip(systems, scores), 1)
    ]
    body.append(table(header, rows))
    over = {"EM": f"{first.sentences} sentences"}  # the others are over the scored words
    summary = [(m, over.get(m, f"{first.tokens} tokens"), [getattr(s, m.lower()) for s in scores])
               for m in ("LAS", "UAS", "LA", "EM")]  # fmt: skip
    chart = bar_chart(summary, "score (%) of each system; at the right, the words or sentences scored")
    body.append(system_key(systems) + chart)
    if tags_differ(scores):
        body.append(tags_html(scores, systems))
    if significance is not None:
        body.append("<h2>Significance</h2>")
        body.append(table(["difference of [1] and [2]", "p"], [["LAS", p_value(significance["LAS"])],
                                                              ["UAS", p_value(significance["UAS"])]]))  # fmt: skip
        body.append(
            f'<p class="note">Paired approximate randomization over sentences: {significance["samples"]} samples, '
            f"seed {significance['seed']}; p = (r + 1) / (samples + 1).</p>"
        )
    for grouping in first.by:
        grouped = group_rows(scores, grouping)
        body.append(f"<h2>By {escape(grouping)}</h2>")
        header = [grouping, "tokens"]
        for k in range(1, len(scores) + 1):
            header += [f"LAS [{k}]", f"UAS [{k}]", f"LA [{k}]"]
            if grouping in TREE_GROUPINGS:
                header.append(f"precision [{k}]")
        rows = [
            [value, tokens, *(x for figures in per_system for x in figures)] for value, tokens, per_system in grouped
        ]
        chart = bar_chart([(value, str(tokens), [figures[0] for figures in per_system])
                           for value, tokens, per_system in grouped if tokens],
                          "LAS (%) of each system; at the right, the gold tokens")  # fmt: skip
        body.append(f'<div class="group"><div>{table(header, rows)}</div><div>{chart}</div></div>')
    if drawings:
        body += ["<h2>Sentences</h2>", legend_html(punctuation_scored=punct == "include")]
    return "".join(body)


def tags_html(scores: Sequence[Scores], systems: Sequence[str]) -> str:
    """The report's section of the tagging accuracies: a table and a bar chart."""
    words = scores[0].tags.words
    figures = [s.tags.as_dict() for s in scores]
    rows = [
        [f"[{k}] {name}", *(f[m] for m in TAG_METRICS), words] for k, (name, f) in enumerate(zip(systems, figures), 1)
    ]
    chart = bar_chart([(m, f"{words} words", [f[m] for f in figures]) for m in TAG_METRICS],
                      "accuracy (%) of each system; at the right, the words scored")  # fmt: skip
    note = ('<p class="note">As the CoNLL 2018 shared task scores tags, over every word, punctuation included: '
            "UFeats compares the universal features in any order, AllTags is UPOS, XPOS and UFeats right, "
            "and a gold lemma _ is right whatever the system's.</p>")  # fmt: skip
    return "<h2>Tags</h2>" + table(["system", *TAG_METRICS, "words"], rows) + note + system_key(systems) + chart


def legend_html(punctuation_scored: bool) -> str:
    """The colours' legend above the drawn sentences of an HTML page."""
    return f"<div>{legend_svg(punctuation_scored)}</div>"


class Drawings:
    """The drawn sentences of ``view`` and ``eval --html`` on their way to ``out``: on an HTML page
    (``start``, the page before them), each is written as it is drawn, so that a page of many is
    never held whole; an SVG file (no ``start``) gives its size before its drawings and so keeps
    them, as the UTF-8 they are written in, until ``close``, which ends either."""

    def __init__(self, out: BinaryIO, start: str | None) -> None:
        self.out = out
        self.svg: list[bytes] | None = None if start is not None else []
        if start is not None:
            out.write(start.encode("utf-8"))

    def add(self, drawing: str) -> None:
        if self.svg is None:
            self.out.write(f'<div class="drawing">{drawing}</div>'.encode())
        else:
            self.svg.append(drawing.encode("utf-8"))

    def close(self) -> None:
        for part in [HTML_END.encode("utf-8")] if self.svg is None else svg_document(self.svg):
            self.out.write(part)
