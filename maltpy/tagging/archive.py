"""The taggers in a model archive: data only, every part checked when read.

The manifest's entry ``taggers``:

    {"version": 1, "heldout": how the held-out accuracies were measured,
     "taggers": [{"column": "UPOS", "learner": "liblinear", "options": {...}, "instances": n,
                  "heldout_accuracy": 0.95 or null, "features": [feature texts],
                  "classifier": "taggers/UPOS.npz", "table": "taggers/UPOS.table.npz",
                  "data": "taggers/UPOS.json"}, ...]}

A tagger both ways has ``"backward"``: the entry of its right-to-left tagger of the same column
and classes (members ``taggers/UPOS.backward...``); an archive without it tags left to right.
``data`` holds the vocabulary of each base (its values in the order of their codes, 1 up; the
bases in order of first use by the features), the classes (values, or LEMMA's edit scripts as
lists), LEMMA's lexicon and, for a tagger with Tags features, ``seen`` (each form in lower case
and the classes seen with it, joined by a tab); ``table`` the keys of every feature seen in
training (``keys``, the templates' in turn, ``sizes`` of each); ``classifier`` the learner's own
member. Reading compiles the feature texts again (a text that is not a tagger's feature, or a
column out of order, is damage), and checks every size, order and range against the others: a
crafted archive is a MaltpyError ``damaged model: ...``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np

from ..data.columns import INDEX, LEMMA
from ..data.conll import valid_label
from ..errors import MaltpyError, cut, require
from ..learners.base import Sized
from ..models.archive import npz_bytes
from .columns import TAGGED, column_name
from .features import MAX_KEY, SEPARATOR, FeatureTable, _radix, compile_template, reads_tags
from .lemmas import valid_script
from .tagger import ColumnTagger

VERSION = 1
MAX_FEATURES = 1_000  # feature texts of one tagger
MAX_TEXT = 2_000  # characters of one feature text


def taggers_to_archive(taggers) -> tuple[dict, dict[str, bytes]]:
    """The manifest entry and members of ``taggers`` (a Taggers)."""
    entries, members = [], {}
    for t in taggers.taggers:
        entry = _entry(t, column_name(t.column), members)
        if t.backward is not None:
            entry["backward"] = _entry(t.backward, f"{column_name(t.column)}.backward", members)
        entries.append(entry)
    entry = {"version": VERSION, "heldout": taggers.heldout, "taggers": entries}
    if taggers.tokenizer is not None:
        entry["tokenizer"], more = taggers.tokenizer.to_archive("taggers/tokenizer")
        members.update(more)
    return entry, members


def _entry(t, name: str, members: dict[str, bytes]) -> dict:
    """The manifest entry of one tagger, its members (``taggers/NAME...``) put in ``members``."""
    classifier = f"taggers/{name}.{t.classifier.suffix}"
    table, data = f"taggers/{name}.table.npz", f"taggers/{name}.json"
    members[classifier] = t.classifier.to_bytes()
    members[table] = npz_bytes(keys=np.concatenate(t.table.keys).astype(np.int64),
                               sizes=np.array([len(k) for k in t.table.keys], dtype=np.int64))  # fmt: skip
    bases = _bases(t.table.templates)
    vocabularies = [sorted(t.table.vocabularies[b], key=t.table.vocabularies[b].__getitem__) for b in bases]
    classes = [list(c) for c in t.classes] if t.column == LEMMA else t.classes
    stored = {"vocabularies": vocabularies, "classes": classes, "lexicon": t.lexicon}
    if t.seen:
        stored["seen"] = t.seen
    members[data] = json.dumps(stored, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return {
        "column": column_name(t.column), "learner": t.learner,
        "options": {k: v for k, v in t.options.items() if not isinstance(v, dict)},
        "instances": t.instances, "heldout_accuracy": t.heldout_accuracy,
        "features": [template.text for template in t.table.templates],
        "classifier": classifier, "table": table, "data": data,
    }  # fmt: skip


def _bases(templates) -> list[tuple]:
    """The bases the templates read, in order of first use."""
    return list(dict.fromkeys(part.base for template in templates for part in template.parts))


def taggers_from_archive(cls, archive, entry: object):
    """The Taggers (``cls``) of the manifest entry, every part checked."""
    with _damaged(archive):
        tokenizer = tokenizer_from_archive(archive, entry)  # the entry's version checked first
        require(isinstance(entry.get("heldout"), str) and len(entry["heldout"]) <= MAX_TEXT, "a bad held-out scheme")
        items = entry.get("taggers")
        require(isinstance(items, list) and all(isinstance(e, dict) for e in items), "taggers that are not a list")
        shared: dict[tuple, dict[str, int]] = {}  # equal vocabularies read once, shared as learned
        taggers = [_tagger(archive, item, shared) for item in items]
        columns = [t.column for t in taggers]
        require(columns == sorted(set(columns), key=TAGGED.index), "taggers' columns twice or out of order")
        return cls(taggers, entry["heldout"], tokenizer)


def tokenizer_from_archive(archive, entry: object):
    """The tokenizer of the taggers' manifest entry, read alone (the main process of ``parse -if
    text --jobs`` and ``maltpy tokenize`` need no tagger), checked as the taggers are; None if
    the entry has none."""
    with _damaged(archive):
        require(isinstance(entry, dict) and entry.get("version") == VERSION, "taggers of an unknown version")
        if "tokenizer" not in entry:
            return None
        from ..tokenizing.tokenizer import Tokenizer

        return Tokenizer.from_archive(archive, entry["tokenizer"])


@contextmanager
def _damaged(archive) -> Iterator[None]:
    """Any fault found reading the taggers' part of ``archive`` as one MaltpyError ``damaged
    model: a tagger: ...``."""
    try:
        yield
    except MaltpyError as e:
        if e.message.startswith("damaged model"):
            raise
        raise MaltpyError(f"damaged model: a tagger: {cut(e.message)}", archive.path) from None
    except ValueError as e:
        raise MaltpyError(f"damaged model: a tagger: {cut(e)}", archive.path) from None
    except (KeyError, TypeError, IndexError, AttributeError, RecursionError, OverflowError) as e:
        raise MaltpyError(f"damaged model: a tagger: {type(e).__name__}: {cut(e)}", archive.path) from None


def _tagger(archive, item: dict, shared: dict[tuple, dict[str, int]], backward: bool = False) -> ColumnTagger:
    """One tagger of the entry, checked against its members; with its ``backward`` one (the same
    column's, right to left), if it has one, whose classes must be its own."""
    from ..learners import LEARNERS
    from ..learners.options import parse_learner_options

    column = INDEX.get(item.get("column")) if isinstance(item.get("column"), str) else None
    require(column in TAGGED, f"an unknown column {cut(item.get('column'), 20)!r}")
    learner = item.get("learner")
    require(learner in LEARNERS and not LEARNERS[learner].symbolic, f"an unknown learner {cut(learner, 20)!r}")
    require(isinstance(item.get("options"), dict), "options that are not a mapping")
    try:
        options = parse_learner_options(item["options"], learner)
    except ValueError as e:
        raise ValueError(f"learner options: {e}") from None
    require(type(item.get("instances")) is int and item["instances"] >= 0, "a bad instance count")
    accuracy = item.get("heldout_accuracy")
    require(accuracy is None or (type(accuracy) in (int, float) and 0 <= accuracy <= 1), "a bad held-out accuracy")
    texts = item.get("features")
    require(isinstance(texts, list) and 0 < len(texts) <= MAX_FEATURES
            and all(isinstance(t, str) and len(t) <= MAX_TEXT for t in texts), "bad feature texts")  # fmt: skip
    readable = TAGGED[: TAGGED.index(column)]
    templates = [compile_template(text, column, readable, "feature", None) for text in texts]
    require(len({t.text for t in templates}) == len(templates), "a feature twice")
    for name in ("classifier", "table", "data"):
        require(isinstance(item.get(name), str), f"no {name} member")
    data = json.loads(archive.text(item["data"]))
    require(isinstance(data, dict), "tagger data that is not a mapping")
    vocabularies = _vocabularies(data.get("vocabularies"), _bases(templates), shared)
    classes = _classes(data.get("classes"), column)
    lexicon = _lexicon(data.get("lexicon"), column)
    seen = _seen(data.get("seen", {}), classes, reads_tags(templates, column))
    for template in templates:
        _radix(template, vocabularies)  # ValueError if its keys could overflow
    table = FeatureTable(templates, vocabularies, _keys(archive, item["table"], templates, vocabularies), column)
    kind = LEARNERS[learner].classifier()
    classifier = kind.from_archive(archive, item["classifier"], Sized(table.size), len(classes), options)
    tagger = ColumnTagger(column, table, classes, classifier, learner, options, item["instances"], lexicon,
                          accuracy, seen)  # fmt: skip
    if "backward" in item:
        tagger.backward = _backward(archive, item["backward"], tagger, shared, backward)
    return tagger


def _backward(archive, item: object, forward: ColumnTagger, shared: dict, nested: bool) -> ColumnTagger:
    """The right-to-left tagger of ``forward`` (tagging both ways), checked as a tagger is and
    against ``forward``: the same column, learner, options and classes."""
    name = column_name(forward.column)
    require(not nested and forward.column != LEMMA, "a tagger both ways of LEMMA, or right to left twice")
    require(isinstance(item, dict) and item.get("column") == name,
            f"a right-to-left tagger of {name} that is not a mapping of the column {name}")  # fmt: skip
    try:
        tagger = _tagger(archive, item, shared, backward=True)
    except MaltpyError as e:
        raise ValueError(f"the right-to-left tagger of {name}: {e.message.removeprefix('damaged model: ')}") from None
    except ValueError as e:
        raise ValueError(f"the right-to-left tagger of {name}: {cut(e)}") from None
    except (KeyError, TypeError, IndexError, AttributeError, OverflowError) as e:
        raise ValueError(f"the right-to-left tagger of {name}: {type(e).__name__}: {cut(e)}") from None
    require(tagger.learner == forward.learner and tagger.options == forward.options
            and set(tagger.classes) == set(forward.classes),
            f"a right-to-left tagger of {name} with another learner, options or classes")  # fmt: skip
    return tagger


def _vocabularies(stored: object, bases: list[tuple], shared: dict[tuple, dict[str, int]]) -> dict[tuple, dict]:
    """Each base's vocabulary, checked; one equal to another tagger's of the base is that one
    (``shared``), so that a batch codes its words once for both (``features.Batch.coded``)."""
    require(isinstance(stored, list) and len(stored) == len(bases), "vocabularies that are not the features'")
    out = {}
    for base, values in zip(bases, stored):
        require(isinstance(values, list) and all(isinstance(v, str) for v in values), "a vocabulary of non-text")
        known = shared.get(base)
        if known is not None and len(known) == len(values) and list(known) == values:
            out[base] = known
            continue
        vocabulary = {v: i for i, v in enumerate(values, 1)}
        require(len(vocabulary) == len(values), "a value twice in a vocabulary")
        if known is None:
            shared[base] = vocabulary
        out[base] = vocabulary
    return out


def _classes(stored: object, column: int) -> list:
    require(isinstance(stored, list) and stored, "no classes")
    if column == LEMMA:
        require(all(valid_script(c) and all(valid_label(s) for s in c[2::2] if s) for c in stored),
                "a class that is not an edit script")  # fmt: skip
        classes = [tuple(c) for c in stored]
    else:
        require(all(isinstance(c, str) and valid_label(c) for c in stored), "a class that is not CoNLL field text")
        classes = list(stored)
    require(len(set(classes)) == len(classes), "a class twice")
    return classes


def _lexicon(stored: object, column: int) -> dict[str, str]:
    require(isinstance(stored, dict), "a lexicon that is not a mapping")
    require(column == LEMMA or not stored, "a lexicon for a column other than LEMMA")
    require(all(isinstance(v, str) and valid_label(v) for v in stored.values()), "a lexicon of non-lemmas")
    return stored


def _seen(stored: object, classes: list, reads: bool) -> dict[str, str]:
    """The Tags features' lexicon: forms in lower case, each with classes joined by a tab; only
    for a tagger that has such features (``reads``)."""
    require(isinstance(stored, dict), "a lexicon of Tags that is not a mapping")
    require(reads or not stored, "a lexicon of Tags without a Tags feature")
    known = set(classes)
    require(all(isinstance(f, str) and isinstance(v, str) and v
                and all(c in known for c in v.split(SEPARATOR)) for f, v in stored.items()),
            "a lexicon of Tags whose values are not the tagger's classes")  # fmt: skip
    return stored


def _keys(archive, name: str, templates, vocabularies) -> list[np.ndarray]:
    """Each template's keys, ascending, within the keys its parts can make."""
    a = archive.arrays(name, ("keys", "sizes"))
    keys, sizes = a["keys"], a["sizes"]
    require(keys.dtype.kind in "iu" and sizes.dtype.kind in "iu" and keys.ndim == 1 and sizes.ndim == 1,
            "feature keys of the wrong types")  # fmt: skip
    require(len(sizes) == len(templates) and (sizes >= 0).all() and int(sizes.sum()) == len(keys),
            "feature keys that do not fit the features")  # fmt: skip
    keys = keys.astype(np.int64)
    out, start = [], 0
    for template, size in zip(templates, sizes.tolist()):
        part = keys[start : start + size]
        start += size
        top = 1
        for p in template.parts:
            top *= len(vocabularies[p.base]) + 1
        require(top <= MAX_KEY, "a feature of too many values")
        require(not len(part) or (int(part[0]) >= 0 and int(part[-1]) < top and (np.diff(part) > 0).all()),
                "feature keys out of order or out of range")  # fmt: skip
        out.append(part)
    return out
