"""The feature space of MaltOptimizer's third phase: the candidate features, in MaltParser's
feature language, and those the oracle shows never vary (Ballesteros and Nivre 2012)."""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Sequence

from ..config import config_from_dict
from ..data.conll import Sentence
from ..features import load_feature_model
from ..transition import SYSTEMS
from .analysis import Analysis
from .trials import Setting

DISTANCE_BINS = "0|1|2|3|4|5|6|7|8|9|10"
VALENCY_BINS = "0|1|2|3|4|5|6"


def readable(feature: str) -> str:
    """One spelling of a feature: no blanks, a blank after each comma (the default models' files
    and the candidates below are compared in it)."""
    return re.sub(r"\s+", "", feature).replace(",", ", ")


def _col(column: str, address: str) -> str:
    kind = "OutputColumn" if column == "DEPREL" else "InputColumn"
    return f"{kind}({column}, {address})"


def feature_groups(algorithm: str, analysis: Analysis) -> list[tuple[str, list[str]]]:
    """Phase 3's forward candidates for ``algorithm``, in groups tried in order: each group's
    features are tried one at a time against the current model (see ``Search.greedy``).

    The space is MaltOptimizer's (part-of-speech and word-form windows, lemma and morphology of the
    focus words, structure around them, conjunctions of tags, forms and labels, distance and
    valency), plus the suffixes of the issue; the windows are each family's
    (``TransitionSystem.focus``, ``context``)."""
    system = SYSTEMS[algorithm]
    a, b = system.focus
    context = system.context
    tag, other = analysis.tag, analysis.other_tag
    focus = (a, b)
    deps = [f"{side}({x})" for side in ("ldep", "rdep") for x in focus]  # varying() drops the ones always empty
    groups: list[tuple[str, list[str]]] = [
        ("part-of-speech window", [_col(tag, x) for x in context] + [_col(tag, f"head({a})")]),
        ("word-form window", [_col("FORM", x) for x in focus + context[:4]] + [_col("FORM", f"head({a})")]),
    ]
    if analysis.uses(other):
        groups.append((f"{other} of the top items", [_col(other, x) for x in focus + context[:2]]))
    if analysis.uses("LEMMA"):
        groups.append(("LEMMA of the top items", [_col("LEMMA", x) for x in focus + context[:2]]))
    if analysis.uses("FEATS"):
        groups.append((
            "FEATS of the top items",
            [f"Split({_col('FEATS', x)}, \\|)" for x in focus + context[:2]] + [_col("FEATS", x) for x in focus],
        ))  # fmt: skip
    groups.append(("suffixes of FORM", [f"Suffix({_col('FORM', x)}, {n})" for n in (3, 2) for x in focus]
                   + [f"Suffix({_col('FORM', context[0])}, 3)"]))  # fmt: skip
    groups.append((
        "structure around the top items",
        [_col(tag, d) for d in deps] + [_col("DEPREL", d) for d in deps] + [_col("FORM", d) for d in deps]
        + [_col("DEPREL", a), _col("DEPREL", f"head({a})"), _col(tag, f"head(head({a}))")],
    ))  # fmt: skip
    merges = [
        f"Merge({_col(tag, a)}, {_col('FORM', b)})",
        f"Merge({_col('FORM', a)}, {_col(tag, b)})",
        f"Merge({_col('FORM', a)}, {_col('FORM', b)})",
        f"Merge3({_col(tag, a)}, {_col(tag, b)}, {_col('DEPREL', f'ldep({b})')})",
        f"Merge3({_col(tag, b)}, {_col('DEPREL', f'ldep({b})')}, {_col('DEPREL', f'rdep({b})')})",
        f"Merge({_col(tag, b)}, {_col(tag, context[0])})",
        f"Merge({_col(tag, a)}, {_col(tag, f'head({a})')})",
    ]  # fmt: skip
    if analysis.uses("LEMMA"):
        merges += [f"Merge({_col(tag, a)}, {_col('LEMMA', b)})", f"Merge({_col('LEMMA', a)}, {_col(tag, b)})"]
    if analysis.uses("FEATS"):
        merges += [f"Merge({_col('FEATS', a)}, {_col('FEATS', b)})", f"Merge({_col(tag, a)}, {_col('FEATS', b)})"]
    groups.append(("conjunctions (Merge, Merge3)", merges))
    groups.append((
        "distance and valency",
        [f"Distance({a}, {b}, {DISTANCE_BINS})"]
        + [f"NumOf({x}, {side}, {VALENCY_BINS})" for side in ("ldeps", "rdeps") for x in focus],
    ))  # fmt: skip
    return [(name, list(dict.fromkeys(readable(c) for c in candidates))) for name, candidates in groups]


def wider_groups(algorithm: str, analysis: Analysis) -> list[tuple[str, list[str]]]:
    """The candidates of the rounds after the first (when the budget allows them): the windows
    one or two words wider, lexical and morphological pairs, and one step deeper in the tree."""
    system = SYSTEMS[algorithm]
    a, b = system.focus
    context, further = system.context, system.further
    tag = analysis.tag
    wide = context[2:] + further
    words = [_col(tag, x) for x in further] + [_col("FORM", x) for x in wide] + [f"Suffix({_col('FORM', x)}, 3)"
                                                                              for x in context[:2]]  # fmt: skip
    pairs = [
        f"Merge3({_col(tag, a)}, {_col(tag, b)}, {_col(tag, context[0])})",
        f"Merge({_col(tag, a)}, {_col('DEPREL', a)})",
        f"Merge({_col('FORM', a)}, {_col('DEPREL', f'ldep({a})')})",
        f"Merge({_col(tag, b)}, {_col('FORM', context[0])})",
    ]
    deeper = [_col(tag, f"ldep(ldep({a}))"), _col(tag, f"rdep(rdep({a}))"), _col(tag, f"head({b})"),
              _col("FORM", f"head(head({a}))"), _col(tag, f"ldep({context[0]})")]  # fmt: skip
    if analysis.uses("LEMMA"):
        words += [_col("LEMMA", x) for x in wide] + [_col("LEMMA", f"head({a})")]
        pairs += [f"Merge({_col('LEMMA', a)}, {_col('LEMMA', b)})"]
    if analysis.uses("FEATS"):
        words += [f"Split({_col('FEATS', x)}, \\|)" for x in wide + (f"head({a})",)]
        pairs += [f"Merge({_col('FEATS', a)}, {_col(tag, b)})", f"Merge({_col('FEATS', a)}, {_col('DEPREL', a)})"]
        deeper += [f"Split({_col('FEATS', f'ldep({a})')}, \\|)", f"Split({_col('FEATS', f'ldep({b})')}, \\|)"]
    groups = [("wider windows", words), ("more conjunctions", pairs), ("deeper structure", deeper)]
    return [(name, list(dict.fromkeys(readable(c) for c in candidates))) for name, candidates in groups]


#: Sentences of the training data the oracle walks to find the candidates that never vary.
VARYING_SAMPLE = 300


def varying(candidates: Sequence[str], setting: Setting, sentences: Sequence[Sentence],
            data_format: str) -> set[str]:  # fmt: skip
    """The candidates whose value is not the same in every configuration the oracle passes on
    the first VARYING_SAMPLE training sentences. A feature that never varies for the algorithm
    (the head of a stack word in the stack systems, whose words get their head as they leave it;
    the contexts of covproj) tells the learner nothing, and a trial of it would only measure noise."""
    from ..data.pseudoproj import DeprelOf, projectivize
    from ..models.parser import columns_of
    from ..transition import system_for
    from ..transition.base import Gold, replay_oracle

    if not candidates:
        return set()
    groups = setting.groups
    with tempfile.TemporaryDirectory(prefix="maltpy-optimize-") as folder:
        groups.setdefault("guide", {})["features"] = path = os.path.join(folder, "candidates.txt")
        with open(path, "w", encoding="utf-8") as f:
            f.write("".join(line + "\n" for line in candidates))
        config = config_from_dict(groups, "maltpy optimize")
        pproj = config.pproj
        deprel_of = DeprelOf(pproj) if pproj.marks_labels else None
        fm = load_feature_model(path, config.singlemalt.parsing_algorithm, config.guide.learner, data_format,
                                config.singlemalt.null_value, deprel_of)  # fmt: skip
    order = [readable(s.text) for s in fm.specs]  # MaltParser's order, not the file's
    system = system_for(config, learning=True)
    seen: list[set] = [set() for _ in order]
    for sentence in sentences[:VARYING_SAMPLE]:
        heads, labels = sentence.heads, sentence.labels
        if pproj.active:
            lifted = projectivize(heads, labels, pproj)
            heads, labels = lifted.heads, lifted.labels
        columns, c = columns_of(sentence), system.initial(len(sentence))
        for _, _, asked in replay_oracle(system, Gold(heads, labels), c):
            if asked:
                for values, value in zip(seen, fm.extract(c, columns)):
                    if len(values) < 2:
                        values.add(repr(value))
    return {feature for feature, values in zip(order, seen) if len(values) > 1}


def default_features(algorithm: str, learner: str, data_format: str, folder: str | None = None) -> tuple[str, ...]:
    """The default feature model of the algorithm, learner and format (or of the defaults'
    ``folder``, ud, where it has the algorithm's), one line per feature."""
    fm = load_feature_model(None, algorithm, learner, data_format, "one", folder=folder)
    return tuple(readable(s.text) for s in sorted(fm.specs, key=lambda s: s.line))
