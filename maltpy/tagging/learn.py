"""Learning the taggers from a treebank's gold columns, their held-out accuracy, and jackknifing."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from importlib import resources

from ..data.columns import INDEX, LEMMA, UPOS
from ..data.conll import Sentence
from ..errors import MaltpyError, cut
from ..files import read_file
from .columns import TAGGED, column_name
from .features import Batch, Template, compile_template
from .tagger import learn_column
from .taggers import Taggers

#: The tagger's learner options where none are given (None or ""): LIBLINEAR's Crammer-Singer
#: SVM, C 0.1 (0.05, 0.2 and 0.4 measured no better), stopping at 0.3 (as accurate as 0.1 on
#: en_lines and la_perseus, learned in 15-20% less time); another learner's own defaults.
DEFAULT_OPTIONS = {"liblinear": "-s 4 -c 0.1 -e 0.3 -B -1"}
#: Held-out accuracy: the taggers learned on the other sentences tag every HELDOUT-th sentence.
HELDOUT = 10
DEFAULT_FEATURES = "default.txt"
#: The columns tagged both ways where none are named (``both_ways`` None): measured on the
#: test files, UPOS gains 0.3 to 0.6 (tagger.ColumnTagger), XPOS -0.1 to +0.4, FEATS nothing.
BOTH_WAYS = (UPOS,)


def learn_taggers(sentences: list[Sentence], columns: Sequence[int] | None = None, *, learner: str = "liblinear",
                  options: str | None = None, features: str | None = None, name: str = "<treebank>",
                  progress: Callable[[str], None] | None = None, heldout: bool = True,
                  both_ways: Sequence[int] | None = None) -> Taggers | None:  # fmt: skip
    """Taggers of ``columns`` (None: each of TAGGED with a value other than ``_``; None if none)
    learned from the sentences' gold columns, those of ``both_ways`` (None: BOTH_WAYS) in both
    directions (``tagger.ColumnTagger.backward``). Their held-out accuracy is measured by taggers
    learned on 9 sentences in 10 tagging the 10th (``heldout``; skipped with fewer than 20
    sentences); the taggers kept are then learned on all."""
    columns = _columns(sentences, columns, name)
    if not columns:
        return None
    settings = _settings(learner, options, name, both_ways, columns)
    templates = feature_models(features, columns)
    say = progress or (lambda message: None)
    accuracy: dict[int, float] = {}
    scheme = ""
    if heldout and len(sentences) >= 2 * HELDOUT:
        train = [s for i, s in enumerate(sentences) if i % HELDOUT != HELDOUT - 1]
        test = [s for i, s in enumerate(sentences) if i % HELDOUT == HELDOUT - 1]
        say(f"taggers: measuring on {len(test)} held-out sentences")
        trial = _learn(train, columns, templates, settings, say)
        predicted = copies(test)
        trial.tag(predicted, "always")
        accuracy = {c: column_accuracy(test, predicted, c) for c in columns}
        scheme = f"learned on {HELDOUT - 1} sentences in {HELDOUT}, tagging every {HELDOUT}th"
    taggers = _learn(sentences, columns, templates, settings, say)
    for tagger in taggers.taggers:
        tagger.heldout_accuracy = accuracy.get(tagger.column)
    taggers.heldout = scheme
    return taggers


def _learn(sentences, columns, templates, settings, say) -> Taggers:
    learner, options, both_ways = settings
    batch = Batch(sentences)
    shared: dict = {}  # the vocabularies, one per base, that the taggers share
    out = []
    for column in columns:
        say(f"taggers: learning {column_name(column)}")
        tagger = learn_column(column, batch, templates[column], learner, options, shared=shared)
        if tagger is None:
            continue
        if column in both_ways:
            say(f"taggers: learning {column_name(column)} right to left")
            tagger.backward = learn_column(column, batch.reversed(), templates[column], learner, options,
                                           shared=shared)  # fmt: skip
        out.append(tagger)
    return Taggers(out)


def jackknife(sentences: list[Sentence], k: int, columns: Sequence[int] | None = None, *, learner: str = "liblinear",
              options: str | None = None, features: str | None = None, name: str = "<treebank>",
              progress: Callable[[str], None] | None = None,
              both_ways: Sequence[int] | None = None) -> list[Sentence]:  # fmt: skip
    """Copies of the sentences whose tagged columns hold the tags predicted by taggers learned on
    the other k-1 folds (sentence i is in fold i % k), as learn_taggers learns them; the sentences
    given are not changed."""
    if type(k) is not int or k < 2:
        raise MaltpyError(f"jackknifing needs at least 2 folds, not {cut(k, 20)}", name)
    if len(sentences) < k:
        raise MaltpyError(f"jackknifing into {k} folds needs at least {k} sentences, not {len(sentences)}", name)
    columns = _columns(sentences, columns, name)
    out = copies(sentences)
    if not columns:
        return out
    settings = _settings(learner, options, name, both_ways, columns)
    templates = feature_models(features, columns)
    say = progress or (lambda message: None)
    for fold in range(k):
        held = [out[i] for i in range(fold, len(sentences), k)]
        rest = [s for i, s in enumerate(sentences) if i % k != fold]
        if not held or not rest:
            continue
        say(f"taggers: jackknife fold {fold + 1} of {k}")
        _learn(rest, columns, templates, settings, say).tag(held, "always")
    return out


def copies(sentences: list[Sentence]) -> list[Sentence]:
    """Copies of the sentences that share nothing they could change."""
    return [Sentence([list(w) for w in s.words], s.format, s.line, list(s.extra)) for s in sentences]


def column_accuracy(gold: list[Sentence], predicted: list[Sentence], column: int) -> float | None:
    """The share of words whose predicted value is the gold one (a gold LEMMA ``_`` counts as
    right, as in the CoNLL 2018 evaluation); None without words."""
    right = total = 0
    for g, p in zip(gold, predicted):
        for gw, pw in zip(g.words, p.words):
            total += 1
            right += gw[column] == pw[column] or (column == LEMMA and gw[column] == "_")
    return round(right / total, 6) if total else None


def _columns(sentences: list[Sentence], columns: Sequence[int] | None, name: str) -> list[int]:
    """The columns to learn taggers of, in TAGGED order."""
    if columns is None:
        return [c for c in TAGGED if any(w[c] != "_" for s in sentences for w in s.words)]
    unknown = [c for c in columns if c not in TAGGED]
    if unknown:
        raise MaltpyError(f"no tagger for column {cut(unknown[0], 20)} (taggers: "
                          f"{', '.join(column_name(c) for c in TAGGED)})", name)  # fmt: skip
    return [c for c in TAGGED if c in columns]


def _settings(learner: str, options: str | None, name: str, both_ways: Sequence[int] | None,
              columns: list[int]) -> tuple[str, dict, tuple[int, ...]]:  # fmt: skip
    """The learner, its parsed options (None or "": the default) and the columns tagged both ways
    (None: BOTH_WAYS; a column named that gets no tagger of ``columns`` is an error), or a
    MaltpyError."""
    from ..learners import LEARNERS
    from ..learners.options import parse_learner_options

    if learner not in LEARNERS or LEARNERS[learner].symbolic:
        usable = ", ".join(k for k, v in LEARNERS.items() if not v.symbolic)
        raise MaltpyError(f"taggers learn with {usable}, not {cut(learner, 40)!r}", name)
    if isinstance(both_ways, str):
        raise MaltpyError(f"both_ways takes columns (UPOS, XPOS, FEATS), not the text {cut(both_ways, 20)!r}", name)
    both = BOTH_WAYS if both_ways is None else tuple(both_ways)
    for c in both:
        if c == LEMMA:
            raise MaltpyError("only UPOS, XPOS and FEATS can be tagged both ways, not LEMMA", name)
        if c not in TAGGED:
            raise MaltpyError(f"no tagger of column {cut(c, 20)} to tag both ways (UPOS, XPOS, FEATS)", name)
        if both_ways is not None and c not in columns:
            raise MaltpyError(f"{column_name(c)} is to be tagged both ways but has no tagger (the columns tagged: "
                              f"{', '.join(column_name(k) for k in columns)})", name)  # fmt: skip
    try:
        parsed = parse_learner_options(options or DEFAULT_OPTIONS.get(learner), learner)
    except ValueError as e:
        raise MaltpyError(f"tagger learner options: {cut(e)}", name) from None
    return learner, parsed, both


_SECTION = re.compile(r"\[\s*([A-Za-z]+)\s*\]\Z")


def feature_models(path: str | None, columns: Sequence[int]) -> dict[int, list[Template]]:
    """The templates of each column's tagger: from the file at ``path`` where it has a section
    for the column, else the default's (all the default's with ``path`` None or "")."""
    default = resources.files(__package__).joinpath(DEFAULT_FEATURES).read_text("utf-8")
    models = parse_feature_models(default, DEFAULT_FEATURES)
    if path:
        data = read_file(path, "tagger feature model file")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise MaltpyError("tagger feature model is not UTF-8 text", path) from None
        models.update(parse_feature_models(text, path))
    return {c: models[c] for c in columns}


def parse_feature_models(text: str, name: str) -> dict[int, list[Template]]:
    """The sections of a taggers' feature model file, by column: ``[UPOS]`` (any name of a
    TAGGED column) begins one, then one feature per line; ``#`` begins a comment."""
    sections: dict[int, dict[str, Template]] = {}
    current: int | None = None
    for number, line in enumerate(text.splitlines(), 1):
        line = re.sub(r"(^|\s)#.*", "", line).strip()
        if not line:
            continue
        m = _SECTION.match(line)
        if m:
            current = INDEX.get(m.group(1).upper(), -1)
            if current not in TAGGED:
                raise MaltpyError(f"[{cut(m.group(1), 40)}] is not a tagged column "
                                  f"({', '.join(column_name(c) for c in TAGGED)})", name, number)  # fmt: skip
            if current in sections:
                raise MaltpyError(f"a second section for {column_name(current)}", name, number)
            sections[current] = {}
            continue
        if current is None:
            raise MaltpyError("a feature before any section (begin with [UPOS], [XPOS], [FEATS] or [LEMMA])",
                              name, number)  # fmt: skip
        readable = TAGGED[: TAGGED.index(current)]
        template = compile_template(line, current, readable, name, number)
        sections[current].setdefault(template.text, template)
    for column, templates in sections.items():
        if not templates:
            raise MaltpyError(f"the section [{column_name(column)}] has no features", name)
    return {c: list(t.values()) for c, t in sections.items()}
