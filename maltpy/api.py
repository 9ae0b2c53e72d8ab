"""The Python API's functions: learn a parser, read and write CoNLL files.

    import maltpy
    model = maltpy.learn("en-train.conllu", algorithm="stacklazy", learner="libsvm")
    model.save("en.mpm")
    model = maltpy.load_model("en.mpm")
    for parsed in model.parse([["Dogs", "bark", "."]]):
        print(parsed)                   # [{'form': 'Dogs', 'head': 2, 'deprel': ...}, ...]
    maltpy.write_conll(model.parse(maltpy.read_conll("test.conllu")), "parsed.conllu")

Every error a user can cause is a ``maltpy.MaltpyError``, whose text is the line the command
line prints after ``maltpy: error:``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from .config import OPTIONS, Config, config_from_dict, load_config, with_profile
from .data.conll import ConllReader, Sentence, format_sentence
from .data.sentences import gold_sentences, is_token_list
from .errors import MaltpyError
from .files import atomic_output
from .files import read_conll as _reader
from .models.base import Parser
from .models.learn import learn as _learn

#: ``maltpy.learn``'s keyword options: each key of the YAML groups by its own name where no other
#: group has it (``learner``, ``parsing_algorithm``, ``root_label``), as ``group_key`` always
#: (``nivre_allow_root``), and ``algorithm`` for ``singlemalt.parsing_algorithm``.
OPTION_NAMES: dict[str, tuple[str, str]] = {}
for _group, _key in OPTIONS:
    OPTION_NAMES[f"{_group}_{_key}".replace("2planar", "twoplanar")] = (_group, _key)
for _group, _key in OPTIONS:  # the parser's options by their names; the taggers' as tagger_key alone
    if _group != "tagger" and sum(k == _key for g, k in OPTIONS if g != "tagger") == 1:
        OPTION_NAMES.setdefault(_key, (_group, _key))
OPTION_NAMES["algorithm"] = ("singlemalt", "parsing_algorithm")
WHERE = "maltpy.learn"  # how an error in learn's options names its place


def learn(treebank: str | os.PathLike | Iterable[Any], config: str | os.PathLike | Mapping | None = None,
          **options: Any) -> Parser:  # fmt: skip
    """Induce a parser from gold trees, as ``maltpy learn`` does.

    ``treebank``: a CoNLL-X or CoNLL-U file's path, or an iterable of sentences (maltpy's
    ``Sentence``, ``conllu.TokenList``, or lists of token mappings with head and deprel; see
    ``maltpy.data.sentences``). ``config``: a YAML file's path or the same settings as a mapping
    ({"guide": {"learner": "libsvm"}}); None for MaltParser's defaults. ``options`` override
    it, each named as in the YAML (``learner="libsvm"``, ``algorithm="stacklazy"``,
    ``options="-c 0.5"`` or ``lib_options={"c": 0.5}``, ``nivre_allow_root=False``; see
    OPTION_NAMES; ``algorithm="mst", order=2`` for graph-based parsing). Returns the model (a
    ``Model``, or a ``graph.model.GraphModel`` for ``mst``); its ``save(path)`` writes it."""
    settings = _config(config, options)

    def profiled(data_format: str) -> Config:  # the profile, once the treebank's format is known
        if isinstance(config, Mapping):  # settings as a file gives them: MaltParser's unless they say ud
            given = {(group, key): value for group, values in config.items() for key, value in values.items()}
            return with_profile(settings, None if settings.defaults.profile == "ud" else "<config>",
                                {**given, **_overrides(options)}, data_format, WHERE)  # fmt: skip
        path = None if config is None else os.fspath(config)
        return with_profile(settings, path, _overrides(options), data_format, WHERE)

    if isinstance(treebank, (str, os.PathLike)):
        with _reader(os.fspath(treebank), settings.input.format) as reader:
            return _learn(profiled(reader.format), reader, reader.format, reader.name)
    if isinstance(treebank, ConllReader):
        return _learn(profiled(treebank.format), treebank, treebank.format, treebank.name)
    if isinstance(treebank, (bytes, Mapping)) or not isinstance(treebank, Iterable):
        raise TypeError(f"a treebank is a path or an iterable of sentences, not {type(treebank).__name__}")
    sentences = gold_sentences(treebank)
    first = next(sentences, None)
    if first is None:
        raise MaltpyError("no training instances: the treebank has no sentences", "<sentences>")
    return _learn(profiled(first.format), _chain(first, sentences), first.format, "<sentences>")


def _chain(first: Sentence, rest: Iterator[Sentence]) -> Iterator[Sentence]:
    yield first
    yield from rest


def _overrides(options: Mapping[str, Any]) -> dict[tuple[str, str], Any]:
    """``maltpy.learn``'s options by their configuration keys."""
    overrides = {}
    for name, value in options.items():
        key = OPTION_NAMES.get(name)
        if key is None:
            known = ", ".join(sorted(n for n, (_, key) in OPTION_NAMES.items() if n in (key, "algorithm")))
            raise MaltpyError(f"unknown option {name!r} (options: {known}, or group_key)", WHERE)
        overrides[key] = value
    return overrides


def _config(config: str | os.PathLike | Mapping | None, options: Mapping[str, Any]) -> Config:
    """The settings of ``config`` with ``options`` over them (the profile still to decide)."""
    overrides = _overrides(options)
    if config is None or isinstance(config, (str, os.PathLike)):
        return load_config(None if config is None else os.fspath(config), overrides, given=WHERE)
    if not isinstance(config, Mapping):
        raise TypeError(f"config is a YAML file's path or a mapping, not {type(config).__name__}")
    data = {group: dict(values) if isinstance(values, Mapping) else values for group, values in config.items()}
    for (group, key), value in overrides.items():
        if not isinstance(data.setdefault(group, {}), dict):
            break  # config_from_dict says what is wrong with the group
        data[group][key] = value
    return config_from_dict(data, "<config>", check_use=True)


def read_conll(path: str | os.PathLike, format: str = "auto") -> Iterator[Sentence]:
    """The sentences of a CoNLL-X or CoNLL-U file, one at a time (read as it is iterated; the
    file is closed at its end). ``format``: conllx, conllu or auto (decided from the file)."""
    with _reader(os.fspath(path), format) as reader:
        yield from reader


def write_conll(sentences: Iterable[Any], path: str | os.PathLike, format: str | None = None) -> None:
    """Write sentences as CoNLL text to ``path`` (whole or not at all; "-" is standard output):
    maltpy's Sentences in ``format`` (default: each its own), or conllu TokenLists."""
    with atomic_output(os.fspath(path)) as out:
        for sentence in sentences:
            if isinstance(sentence, Sentence):
                text = format_sentence(sentence, format)
            elif is_token_list(sentence):
                text = sentence.serialize()
            else:
                raise TypeError(
                    f"write_conll writes maltpy Sentences or conllu TokenLists, not {type(sentence).__name__}"
                )
            out.write(text.encode("utf-8"))
