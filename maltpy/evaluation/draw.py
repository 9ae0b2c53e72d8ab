"""Dependency trees drawn as SVG, and the HTML report of ``maltpy eval --html``.

A sentence is drawn as a stack of panels, one per tree: the gold tree first, then each system's.
A panel holds the words in a row, each with its tag below it, and the tree's arcs above them:
an arc leaves the middle of its head, ends in an arrowhead at the middle of its dependent, and
carries its label at its top; an arc from the root comes straight down from the top of the
panel. An arc is drawn one level above the highest arc within its span, so that nested arcs do
not cross. Against the gold tree, a system's arc is coloured by what is wrong with it: its head
(red), its label only (orange) or nothing (grey); a word left out of scoring is pale. A system
whose tags (UPOS) are not the gold's has its own under its words, the wrong ones in red.

Everything is plain SVG and HTML written as XML (no script, no font or image fetched): the
files open in any browser, parse with any XML parser, and each arc carries its dependent, head
and status as ``data-`` attributes, so that a program can read the drawing back.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from xml.sax import saxutils

from ..data.conll import CPOSTAG, DEPREL, FORM, HEAD, Sentence

#: Colours of arcs by status, and what the legend calls them.
COLOURS = {
    "gold": "#1f5fa8",
    "correct": "#666666",
    "head": "#d62728",
    "label": "#e07b00",
    "unscored": "#c8c8c8",
    "plain": "#333333",
}
LEGEND = {
    "gold": "gold tree",
    "correct": "right head and label",
    "head": "wrong head",
    "label": "right head, wrong label",
    "unscored": "not scored (punctuation)",
}
#: Colours of systems in the report's charts.
SYSTEM_COLOURS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22")

SVG = "http://www.w3.org/2000/svg"
FONT = "font-family:DejaVu Sans,Verdana,Arial,sans-serif"
CHAR = 7.6  # the width of a character of 13px text, about
WIDE_CHAR = 13.0  # of an East Asian wide character
GAP = 18.0  # between words
MARGIN = 10.0
LEVEL = 20.0  # height of one level of arcs
CAPTION = 18.0  # height of a panel's caption
WORDS = 34.0  # height of the form and tag lines


_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def escape(text: str) -> str:
    """``text`` as XML character data: markup escaped, and the characters XML 1.0 cannot hold (a
    reader's noncharacters U+FFFE and U+FFFF, a file name's undecodable bytes) as U+FFFD."""
    return saxutils.escape(_NOT_XML.sub("\ufffd", text))


def text_width(text: str, char: float = CHAR) -> float:
    """About how wide ``text`` is drawn in pixels (no font is at hand to measure it)."""
    width = 0.0
    for c in text:
        if unicodedata.combining(c):
            continue
        width += char * WIDE_CHAR / CHAR if unicodedata.east_asian_width(c) in "WF" else char
    return width


@dataclass(slots=True)
class Tree:
    """One tree of a sentence drawn: its caption, heads and labels (indexed from 1, see
    ``tree``), the colour status of each word's arc, and what it is (gold or system k)."""

    caption: str
    heads: list[int]
    labels: list[str]
    statuses: list[str]
    role: str  # "gold" or "system"
    system: int = 0
    #: the system's own tags where they are not the gold's (None: the words' tags), and which are wrong
    tags: list[str] | None = None
    wrong_tags: list[bool] | None = None


def compare(gold: Sentence, system: Sentence, scored: Sequence[bool] | None = None) -> list[str]:
    """The status of each of ``system``'s arcs against ``gold``: correct, head, label or
    unscored (index 0 is the root's, unused)."""
    out = [""]
    for i, (gw, sw) in enumerate(zip(gold.words, system.words)):
        if scored is not None and not scored[i]:
            out.append("unscored")
        elif gw[HEAD] != sw[HEAD]:
            out.append("head")
        elif gw[DEPREL] != sw[DEPREL]:
            out.append("label")
        else:
            out.append("correct")
    return out


def sentence_trees(gold: Sentence | None, systems: Sequence[tuple[str, Sentence]], gold_name: str = "gold",
                   scored: Sequence[bool] | None = None) -> list[Tree]:  # fmt: skip
    """The panels of one sentence: the gold tree (if any) and each system's, coloured against it."""
    trees = []
    if gold is not None:
        trees.append(Tree(f"gold: {gold_name}", gold.heads, gold.labels, ["gold"] * (len(gold) + 1), "gold"))
    for k, (name, sentence) in enumerate(systems, 1):
        if gold is not None:
            statuses = compare(gold, sentence, scored)
            counted = [s for s in statuses[1:] if s != "unscored"]
            right = counted.count("correct")
            las = f"{100 * right / len(counted):.1f}" if counted else "n/a"
            caption = f"{name}: LAS {las} ({right}/{len(counted)})"
        else:
            statuses, caption = ["plain"] * (len(sentence) + 1), name
        tree = Tree(caption, sentence.heads, sentence.labels, statuses, "system", k)
        if gold is not None and sentence.column(CPOSTAG) != gold.column(CPOSTAG):
            tree.tags = sentence.column(CPOSTAG)
            tree.wrong_tags = [a != b for a, b in zip(tree.tags, gold.column(CPOSTAG))]
        trees.append(tree)
    return trees


def arc_levels(heads: list[int]) -> list[int]:
    """The level of each word's arc (0 for an arc from the root): one above the highest arc whose
    span lies within its own.

    The arcs are taken by the right end of their span, and at one right end by the left end
    from the right: an arc then comes after every arc within its span, and those are the arcs
    taken so far that begin at its left end or after it. The highest level among them is read
    from a Fenwick tree over left ends (highest from a place to the end), so that a long
    sentence costs per arc what a short one does."""
    n = len(heads) - 1
    spans = sorted((max(heads[d], d), -min(heads[d], d), d) for d in range(1, n + 1) if heads[d] > 0)
    level = [0] * (n + 1)
    highest = [0] * (n + 2)  # a Fenwick tree of the highest level by n + 1 - left end
    for _, lo, d in spans:
        i, top = n + 1 + lo, 0  # lo is minus the left end: the arcs from it to the right
        while i > 0:
            top = max(top, highest[i])
            i -= i & -i
        level[d] = top + 1
        i = n + 1 + lo
        while i <= n + 1:
            highest[i] = max(highest[i], level[d])
            i += i & -i
    return level


def sentence_svg(words: Sequence[Sequence[str]], trees: Sequence[Tree], title: str = "",
                 legend: bool = False) -> str:  # fmt: skip
    """One sentence's drawing as an ``<svg>`` element."""
    forms = [w[FORM] for w in words]
    tags = [w[CPOSTAG] for w in words]
    x, centres = MARGIN, [0.0]
    for form, *column in zip(forms, tags, *(tree.tags for tree in trees if tree.tags)):  # each panel's tags
        width = max(text_width(form), *(text_width(tag, CHAR * 0.85) for tag in column), 14.0)
        centres.append(x + width / 2)
        x += width + GAP
    captions = [text_width(tree.caption, CHAR * 0.93) for tree in trees]
    width = max(
        x - GAP + MARGIN, text_width(title, CHAR * 1.08) + 2 * MARGIN, max(captions, default=0) + 2 * MARGIN, 200.0
    )
    parts: list[str] = []
    y = MARGIN
    if title:
        parts.append(_text(MARGIN, y + 13, title, size=14, weight="bold", cls="title"))
        y += 24
    for tree in trees:
        y = _panel(parts, tree, forms, tags, centres, y)
    if legend:
        statuses = [s for s in LEGEND if any(s in t.statuses for t in trees)]
        y, legend_width = _legend(parts, statuses, y)
        width = max(width, legend_width)
    height = y + MARGIN
    return (
        f'<svg xmlns="{SVG}" class="sentence" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" style="{FONT}">' + "".join(parts) + "</svg>"
    )


def _panel(parts: list[str], tree: Tree, forms: list[str], tags: list[str], centres: list[float], top: float) -> float:
    """Draw one tree's panel from ``top``; return where it ends."""
    levels = arc_levels(tree.heads)
    highest = max(levels, default=0)
    parts.append(_text(MARGIN, top + 13, tree.caption, size=12, colour="#555555", cls="caption"))
    roof = top + CAPTION
    base = roof + (highest + 1) * LEVEL + 10  # where arcs meet the words
    parts.append(f'<g class="tree" data-tree="{tree.role}" data-system="{tree.system}">')
    for d in range(1, len(tree.heads)):
        h, status = tree.heads[d], tree.statuses[d]
        colour = COLOURS[status]
        dx = centres[d]
        if h == 0:
            path = f"M {dx:.1f} {roof:.1f} L {dx:.1f} {base:.1f}"
            label_x, label_y, anchor = dx + 4, roof + 10, "start"
        else:
            hx = centres[h]
            rise = levels[d] * LEVEL
            control = base - rise / 0.75  # a cubic whose two controls are at c peaks at 3/4 of c
            path = f"M {hx:.1f} {base:.1f} C {hx:.1f} {control:.1f} {dx:.1f} {control:.1f} {dx:.1f} {base:.1f}"
            label_x, label_y, anchor = (hx + dx) / 2, base - rise - 3, "middle"
        what = {"head": "wrong head", "label": "wrong label", "unscored": "not scored"}.get(status, "")
        tip = f"{forms[d - 1]} ({d}) ← {'root' if h == 0 else f'{forms[h - 1]} ({h})'}: {tree.labels[d]}"
        parts.append(
            f'<path class="arc" data-dependent="{d}" data-head="{h}" data-status="{status}" '
            f'd="{path}" fill="none" stroke="{colour}" stroke-width="{2 if status in ("head", "label") else 1.3}">'
            f"<title>{escape(tip + (f' — {what}' if what else ''))}</title></path>"
            f'<polygon class="arrow" points="{dx:.1f},{base:.1f} {dx - 3.5:.1f},{base - 8:.1f} '
            f'{dx + 3.5:.1f},{base - 8:.1f}" fill="{colour}"/>'
        )
        parts.append(_text(label_x, label_y, tree.labels[d], size=11, colour=colour, anchor=anchor, cls="label",
                           weight="bold" if status in ("head", "label") else None))  # fmt: skip
    parts.append("</g>")
    wrong = tree.wrong_tags or [False] * len(forms)
    for i, (form, tag) in enumerate(zip(forms, tree.tags or tags), 1):
        parts.append(_text(centres[i], base + 15, form, size=13, anchor="middle", cls="word", data_id=i))
        parts.append(_text(centres[i], base + 29, tag, size=10, colour=COLOURS["head"] if wrong[i - 1] else "#777777",
                           anchor="middle", cls="tag wrong" if wrong[i - 1] else "tag"))  # fmt: skip
    return base + WORDS + 6


def _legend(parts: list[str], statuses: Sequence[str], top: float) -> tuple[float, float]:
    x = MARGIN
    parts.append('<g class="legend">')
    for status in statuses:
        colour = COLOURS[status]
        parts.append(f'<line x1="{x:.1f}" y1="{top + 8:.1f}" x2="{x + 22:.1f}" y2="{top + 8:.1f}" '
                     f'stroke="{colour}" stroke-width="3"/>')  # fmt: skip
        parts.append(_text(x + 28, top + 12, LEGEND[status], size=11, cls="legend-text"))
        x += 40 + text_width(LEGEND[status], CHAR * 0.85)
    parts.append("</g>")
    return top + 20, x + MARGIN


def _text(x: float, y: float, text: str, size: int, colour: str = "#000000", anchor: str = "start",
          cls: str = "", weight: str | None = None, data_id: int | None = None) -> str:  # fmt: skip
    extra = f' font-weight="{weight}"' if weight else ""
    extra += f' data-id="{data_id}"' if data_id is not None else ""
    return (f'<text class="{cls}" x="{x:.1f}" y="{y:.1f}" font-size="{size}" fill="{colour}" '
            f'text-anchor="{anchor}"{extra}>{escape(text)}</text>')  # fmt: skip


def svg_document(drawings: Sequence[bytes]) -> Iterator[bytes]:
    """Several sentences' drawings (standalone ``<svg>`` elements, as UTF-8) stacked in one SVG
    file, given in parts to be written one after the other."""
    sizes = [_size(svg) for svg in drawings]
    width, height = max((w for w, _ in sizes), default=0.0), sum(h for _, h in sizes)
    yield (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<svg xmlns="{SVG}" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}"><rect width="100%" height="100%" fill="#ffffff"/>'
    ).encode()
    y = 0.0
    for svg, (_, h) in zip(drawings, sizes):
        yield svg.replace(b"<svg ", f'<svg y="{y:.0f}" '.encode(), 1)
        y += h
    yield b"</svg>\n"


def _size(svg: bytes) -> tuple[float, float]:
    head = svg[: svg.index(b">")]
    width = float(head.split(b' width="', 1)[1].split(b'"', 1)[0])
    height = float(head.split(b' height="', 1)[1].split(b'"', 1)[0])
    return width, height


# --- the HTML page -------------------------------------------------------------------------------

STYLE = """
body { font-family: DejaVu Sans, Verdana, Arial, sans-serif; margin: 24px; color: #222; max-width: 1400px; }
h1 { font-size: 22px; } h2 { font-size: 18px; margin-top: 32px; border-bottom: 1px solid #ccc; }
h3 { font-size: 14px; margin: 20px 0 4px; }
table { border-collapse: collapse; font-size: 13px; margin: 8px 0; }
th, td { padding: 3px 10px; text-align: right; border-bottom: 1px solid #eee; }
th { background: #f4f4f4; } td.name, th.name { text-align: left; }
.files td { text-align: left; } .note { color: #666; font-size: 12px; }
.group { display: flex; flex-wrap: wrap; gap: 24px; align-items: flex-start; }
.drawing { overflow-x: auto; border: 1px solid #e4e4e4; margin: 6px 0 18px; padding: 4px; }
.swatch { display: inline-block; width: 12px; height: 12px; vertical-align: middle; margin-right: 4px; }
"""


def html_start(title: str) -> str:
    """An HTML page up to its body's content, which ``HTML_END`` follows."""
    return (
        '<!DOCTYPE html>\n<html xmlns="http://www.w3.org/1999/xhtml" lang="en"><head><meta charset="utf-8"/>'
        f"<title>{escape(title)}</title><style>{STYLE}</style></head><body>"
    )


HTML_END = "</body></html>\n"


def table(header: Sequence[str], rows: Sequence[Sequence[object]], names: int = 1, cls: str = "") -> str:
    """An HTML table; the first ``names`` columns are left-aligned names."""

    def cell(tag: str, i: int, value: object) -> str:
        text = figure(value) if value is None or isinstance(value, float) else str(value)
        cls = ' class="name"' if i < names else ""
        return f"<{tag}{cls}>{escape(text)}</{tag}>"

    out = [f"<table{f' class={saxutils.quoteattr(cls)}' if cls else ''}><tr>"]
    out += [cell("th", i, h) for i, h in enumerate(header)]
    out.append("</tr>")
    for row in rows:
        out.append("<tr>" + "".join(cell("td", i, v) for i, v in enumerate(row)) + "</tr>")
    out.append("</table>")
    return "".join(out)


def figure(score: float | None) -> str:
    """A score as every table and chart of eval writes it: two decimals, n/a over no words."""
    return "n/a" if score is None else f"{score:.2f}"


#: The gridlines of a bar chart, in percent.
TICKS = (0, 25, 50, 75, 100)


def bar_chart(rows: Sequence[tuple[str, str, Sequence[float | None]]], title: str) -> str:
    """Horizontal bars, 0-100, gridlines with their values below: for each (name, what it counts,
    score of each system) a bar per system, annotated with its score as the tables write it, and
    the count at the right."""
    name_width = max([text_width(name, CHAR * 0.9) for name, _, _ in rows] + [40.0]) + 8
    bar = 300.0
    value_width = text_width("100.00", CHAR * 0.8) + 8  # room for the annotation of a full bar
    count_width = max([text_width(count, CHAR * 0.8) for _, count, _ in rows] + [0.0])
    systems = max((len(scores) for _, _, scores in rows), default=1)
    bar_height = 12.0 if systems == 1 else 9.0
    row_height = systems * (bar_height + 2) + 6
    width = name_width + bar + value_width + count_width + 8
    bottom = 22 + len(rows) * row_height  # where the bars end and the gridlines' values go
    height = bottom + 16
    parts = [_text(name_width, 12, title, size=11, colour="#555555", cls="chart-title")]
    for tick in TICKS:
        tx = name_width + bar * tick / 100
        parts.append(f'<line class="grid" x1="{tx:.1f}" y1="18" x2="{tx:.1f}" y2="{bottom:.1f}" stroke="#e4e4e4"/>')
        parts.append(_text(tx, bottom + 12, str(tick), size=10, colour="#777777", anchor="middle", cls="tick"))
    y = 22.0
    for name, count, scores in rows:
        parts.append(_text(name_width - 6, y + row_height / 2 + 2, name, size=11, anchor="end", cls="value"))
        for k, score in enumerate(scores):
            by = y + 2 + k * (bar_height + 2)
            length = bar * (score or 0.0) / 100
            colour = SYSTEM_COLOURS[k % len(SYSTEM_COLOURS)]
            parts.append(f'<rect class="bar" x="{name_width:.1f}" y="{by:.1f}" width="{length:.1f}" '
                         f'height="{bar_height:.1f}" fill="{colour}"><title>{escape(name)}: '
                         f"{figure(score)}</title></rect>")  # fmt: skip
            parts.append(_text(name_width + length + 4, by + bar_height - 2, figure(score), size=10,
                               colour="#333333", cls="score"))  # fmt: skip
        parts.append(_text(width - 4, y + row_height / 2 + 2, count, size=10, colour="#777777", anchor="end",
                           cls="count"))  # fmt: skip
        y += row_height
    return (f'<svg xmlns="{SVG}" class="chart" width="{width:.0f}" height="{height:.0f}" '
            f'viewBox="0 0 {width:.0f} {height:.0f}" style="{FONT}">' + "".join(parts) + "</svg>")  # fmt: skip


def system_key(names: Sequence[str]) -> str:
    """The colour of each system in the charts, as HTML."""
    return "<p>" + " ".join(
        f'<span class="swatch" style="background:{SYSTEM_COLOURS[k % len(SYSTEM_COLOURS)]}"></span>'
        f"[{k + 1}] {escape(name)}&#160;&#160;"
        for k, name in enumerate(names)
    ) + "</p>"  # fmt: skip


def legend_svg(punctuation_scored: bool) -> str:
    """The colours' legend of the drawn sentences: "not scored (punctuation)" only where it is left
    out (``eval --punct exclude``)."""
    statuses = [s for s in LEGEND if s != "unscored" or not punctuation_scored]
    parts: list[str] = []
    _, width = _legend(parts, statuses, 0.0)
    return (
        f'<svg xmlns="{SVG}" class="legend" width="{width:.0f}" height="22" style="{FONT}">' + "".join(parts) + "</svg>"
    )
