"""The kinds of sentence the Python API takes, turned into maltpy's ``Sentence`` and back.

A sentence given to ``Model.parse`` or ``maltpy.learn`` is one of:

- maltpy's own ``conll.Sentence`` (what ``maltpy.read_conll`` gives), parsed in place;
- a ``conllu.TokenList`` (the PyPI ``conllu`` package's); a parse is a copy of it with head and
  deprel set on each word, its metadata, multiword tokens and empty nodes kept, so that
  ``serialize()`` gives the CoNLL-U text ``maltpy parse`` writes; it is parsed as a CoNLL-U
  file's sentence is (one root with graph.single_root auto, whatever the model's format);
- a list of tokens, each a form (a str) or a mapping with any of form, lemma, upos (or cpostag),
  xpos (or postag), feats (a str, or a mapping such as conllu's) and, to learn from, head and
  deprel; a parse is a list of new dicts, the token's keys (``{"form": ...}`` for a str) with
  "head" and "deprel" set; it is parsed as a sentence of the model's format.

A parse given back also holds the tags the model's taggers predicted (``Parser.set_tagging``):
lemma, upos, xpos and feats set where the parse changed them (a TokenList's feats as a mapping).

Learning checks gold trees as a CoNLL file's are checked: each sentence goes through the
reader (``ConllReader``), so a bad head or label is the error the command line would give, with
the sentence's number for the file and the word's line within it.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from ..errors import MaltpyError
from .conll import DEPREL, FEATS, HEAD, LEMMA, UPOS, XPOS, ConllReader, Sentence, format_sentence

Back = Callable[[Sentence], Any]  # a parsed Sentence, as the kind the caller gave


def is_token_list(item: Any) -> bool:
    """A ``conllu.TokenList`` (without importing conllu, which is optional)."""
    return type(item).__module__.startswith("conllu") and hasattr(item, "serialize") and hasattr(item, "metadata")


def field_text(value: Any) -> str:
    """One CoNLL field: None and "" are "_"; a mapping (conllu's feats) is ``k=v|k=v``; a list of
    (relation, head) pairs (conllu's deps) is ``head:relation|...``."""
    if value is None or value == "":
        return "_"
    if isinstance(value, Mapping):
        return "|".join(k if v == "" else f"{k}={'_' if v is None else v}" for k, v in value.items()) or "_"
    if isinstance(value, list):
        return "|".join(f"{head}:{relation}" for relation, head in value) or "_"
    return str(value)


def _fields(token: Any, i: int, number: int, gold: bool, where: str) -> list[str]:
    """The ten CoNLL fields of token ``i`` of sentence ``number`` (given to ``where``)."""
    t = {"form": token} if isinstance(token, str) else token
    if not isinstance(t, Mapping):
        raise TypeError(f"sentence {number}, token {i}: a token is a str or a mapping, not {type(token).__name__}")
    fields = [
        str(i), t.get("form"), t.get("lemma"), t.get("upos", t.get("cpostag")), t.get("xpos", t.get("postag")),
        t.get("feats"), t.get("head") if gold else None, t.get("deprel") if gold else None, t.get("deps"),
        t.get("misc"),
    ]  # fmt: skip
    fields = [field_text(f) for f in fields]
    if any(ch in f for f in fields for ch in "\t\n\r"):
        raise MaltpyError(f"sentence {number}, token {i}: values cannot hold tabs or line breaks", where)
    return fields


def _words(item: Any, number: int, gold: bool, where: str) -> list[list[str]]:
    """The words of a token list or TokenList, as CoNLL-U fields (a TokenList's multiword tokens
    and empty nodes are not words, and are left out)."""
    if is_token_list(item):
        item = [t for t in item if isinstance(t["id"], int)]
    elif isinstance(item, (str, bytes)):
        raise TypeError(f"sentence {number} is a string; a sentence is a list of tokens")
    elif not isinstance(item, Iterable):
        raise TypeError(f"sentence {number}: a sentence is a list of tokens, not {type(item).__name__}")
    return [_fields(token, i, number, gold, where) for i, token in enumerate(item, 1)]


def as_sentence(item: Any, number: int, data_format: str) -> tuple[Sentence, Back]:
    """A sentence to parse as maltpy's Sentence (a TokenList's in CoNLL-U, any other list of
    tokens in the model's ``data_format``), and how to give its parse back as the kind the
    caller gave."""
    if isinstance(item, Sentence):
        return item, _same
    if not is_token_list(item) and isinstance(item, Iterable) and not isinstance(item, (str, bytes)):
        item = list(item)  # read once for the words, once more for the parse given back
    words = _words(item, number, gold=False, where="Model.parse")
    if not words:
        raise MaltpyError(f"sentence {number} has no tokens", "Model.parse")
    if is_token_list(item):  # CoNLL-U's, whatever the model's format (graph.single_root: auto)
        return Sentence(words, "conllu", number), lambda parsed: _token_list_parse(item, parsed)
    sentence = Sentence(words, data_format, number)
    return sentence, lambda parsed: _dicts_parse(item, parsed)


def _same(parsed: Sentence) -> Sentence:
    return parsed


#: The tag columns a parse may have filled in (the model's taggers), by a token's keys: the first
#: key is the one a token given without it gets.
TAG_KEYS = ((LEMMA, ("lemma",)), (UPOS, ("upos", "cpostag")), (XPOS, ("xpos", "postag")), (FEATS, ("feats",)))


def _tags(token: Mapping, word: list[str], feats_mapping: bool) -> dict[str, Any]:
    """The token's tags that the parse ``word`` changed (its taggers predicted them), by the key
    the token has for each (a new token: lemma, upos, xpos, feats); FEATS as a mapping with
    ``feats_mapping`` (conllu's), else as its text."""
    changed = {}
    for column, keys in TAG_KEYS:
        key = next((k for k in keys if k in token), keys[0])
        if field_text(token.get(key)) == word[column]:
            continue  # as given (a mapping of feats too)
        value = word[column]
        if column == FEATS and feats_mapping:
            value = None if value == "_" else dict(f.partition("=")[::2] for f in value.split("|"))
        changed[key] = value
    return changed


def _token_list_parse(item: Any, parsed: Sentence) -> Any:
    """A copy of the TokenList with each word's head and deprel from ``parsed``, and the tags its
    taggers predicted."""
    copy = type(item)([type(t)(t) for t in item], item.metadata)
    words = iter(parsed.words)
    for token in copy:
        if isinstance(token["id"], int):
            word = next(words)
            token.update(_tags(token, word, feats_mapping=True))
            token["head"], token["deprel"] = int(word[HEAD]), word[DEPREL]
    return copy


def _dicts_parse(item: list, parsed: Sentence) -> list[dict]:
    """Each token of ``item`` as a new dict with head, deprel and the tags predicted."""
    out = []
    for t, w in zip(item, parsed.words):
        token = {"form": t} if isinstance(t, str) else t
        out.append({**token, **_tags(token, w, isinstance(token.get("feats"), Mapping)),
                    "head": int(w[HEAD]), "deprel": w[DEPREL]})  # fmt: skip
    return out


def gold_sentences(items: Iterable[Any], name: str = "<sentences>") -> Iterator[Sentence]:
    """Sentences to learn from, each checked by the CoNLL reader as a file's would be; an error
    names ``name``, sentence N, and the line of the word within it (``name`` sentence N:LINE)."""
    if isinstance(items, (str, bytes)):
        raise TypeError("learning from sentences takes an iterable of sentences; a str is a path only")
    for number, item in enumerate(items, 1):
        if isinstance(item, Sentence):
            text, data_format = format_sentence(item), item.format
        else:
            words, data_format = _words(item, number, gold=True, where=name), "conllu"
            if not words:
                raise MaltpyError("a sentence with no tokens", f"{name} sentence {number}")
            text = format_sentence(Sentence(words, data_format, number))
        reader = ConllReader(io.BytesIO(text.encode("utf-8")), f"{name} sentence {number}", data_format)
        yield from reader
