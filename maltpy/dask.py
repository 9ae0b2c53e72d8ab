"""Parsing across a Dask cluster: files, bags of sentences, and DataFrames of tokens. Needs
``pip install 'maltpy[dask]'``.

    from dask.distributed import Client
    import maltpy.dask
    client = Client("tcp://scheduler:8786")
    maltpy.dask.parse_files(["a.conllu", "b.conllu"], "en.mpm", "parsed/")
    parsed = maltpy.dask.parse_bag(bag_of_sentences, "en.mpm")
    parsed = maltpy.dask.parse_dataframe(tokens, "en.mpm")        # adds head and deprel

The model (a path, read where this is called, or a ``maltpy.Model``) travels to the workers as
its archive's bytes and is loaded once per worker process, whatever the number of tasks, and
kept there (``_MODELS``, by the bytes' digest). Nothing here starts processes or threads: the
cluster's workers do the work, one task at a time per worker thread.

Results do not depend on the partitioning, nor on the scheduler: tasks that share a worker
process share its model, and take turns with it a batch at a time (``Parser.parse``). A bag's
element is a whole sentence. A DataFrame holds one row per word, in order, with columns sent_id
and form, and any of id, lemma, upos, xpos, feats; those of the tag columns it has are given
back with the model's taggers' predictions where a sentence has them empty (None, NaN or _). A
sentence is a run of consecutive rows with one sent_id: a sent_id may come again further on, as
another sentence (documents numbered each from 1, concatenated), and with an id column every run
is checked to be numbered 1, 2, ... in order, so that the rows of a sentence that are not
together (a frame sorted by something else; ``dd.from_pandas`` sorts by the index unless given
``sort=False``) are an error naming it, never
a parse of its pieces. Partitions may cut anywhere (``from_pandas`` at index values, ``read_csv``
at bytes): each partition reads the rows of its first and last sentences that lie in the
partitions before and after it (``_carry`` and ``_ahead`` pass them along), parses, and keeps
its own rows. ``parse_partition`` is the pandas function for one partition (or a stream of
batches, as Spark's ``mapInPandas`` gives them). A frame the model cannot read (a column
missing, a sent_id missing, ids out of order, a value with a tab) is a ``MaltpyError`` naming
the problem and the sentence.
"""

from __future__ import annotations

import hashlib
import io
import numbers
import os
import threading
from collections.abc import Iterable, Iterator
from typing import Any

import dask
import pandas as pd

from .data.columns import GIVEN, WIDTH
from .data.conll import DEPREL, FEATS, HEAD, LEMMA, UPOS, XPOS, ConllReader, Sentence, format_sentence
from .errors import MaltpyError, cut, quote
from .files import make_folder, read_file
from .load import load
from .models.base import Parser
from .models.parser import Model

#: The input's columns: the sentence's id, then the columns a parser is given (ID is optional),
#: by their CoNLL-U names in lower case.
COLUMNS = ("sent_id", *(column.conllu.lower() for column in GIVEN))
REQUIRED = ("sent_id", "form")
#: The tag columns a parse gives back, by name: the taggers' predictions where they were empty.
TAG_NAMES = {"lemma": LEMMA, "upos": UPOS, "xpos": XPOS, "feats": FEATS}
_MODELS: dict[str, Model] = {}  # in each worker process: the models loaded, by digest, oldest first
KEEP = 4  # models kept loaded in a worker process
MAX_MODEL_BYTES = 4 << 30  # a model file shipped (loading bounds what it holds: archive.py, mco/container.py)
_LOCK = threading.Lock()


class ModelBytes:
    """A model archive's bytes, shipped to the workers, loaded once per process (``model()``)."""

    def __init__(self, data: bytes, name: str) -> None:
        self.data, self.name = data, name
        self.digest = hashlib.sha256(data).hexdigest()

    def model(self) -> Model:
        with _LOCK:  # one load per process, however many threads ask at once
            model = _MODELS.get(self.digest)
            if model is None:
                model = load(self.name, self.data)
                while len(_MODELS) >= KEEP:
                    del _MODELS[next(iter(_MODELS))]
                _MODELS[self.digest] = model
            return model


def model_bytes(model: str | os.PathLike | Model | ModelBytes) -> ModelBytes:
    """The model to ship: a path (read here), a Model, or a ModelBytes already made."""
    if isinstance(model, ModelBytes):
        return model
    if isinstance(model, Parser):
        return ModelBytes(model.to_bytes(), "<model>")
    if isinstance(model, (str, os.PathLike)):
        path = os.fspath(model)
        return ModelBytes(read_file(path, "model file", MAX_MODEL_BYTES), path)
    raise TypeError(f"a model is a path or a maltpy.Model, not {type(model).__name__}")


def _client():
    from distributed import get_client

    try:
        return get_client()
    except ValueError:
        raise MaltpyError("no Dask client: make one first (dask.distributed.Client(...))", "maltpy.dask") from None


# --- files -------------------------------------------------------------------------------------


def parse_files(paths: Iterable[str | os.PathLike], model, output_dir: str | os.PathLike, client=None) -> list[str]:
    """Parse each CoNLL file on the cluster of ``client`` (default: the current
    ``dask.distributed`` client) into ``output_dir`` under its own name, each written whole or
    not at all by a worker: the paths (made absolute here) must be the workers' too. Returns the
    output paths, in the order given."""
    paths = [os.fspath(p) for p in paths]
    output_dir = os.fspath(output_dir)
    outputs = [os.path.join(output_dir, os.path.basename(p)) for p in paths]
    _check_outputs(paths, outputs, output_dir)
    client = client or _client()
    shipped = client.scatter(model_bytes(model), broadcast=True)
    futures = [
        client.submit(_parse_file, shipped, os.path.abspath(p), os.path.abspath(o), pure=False)
        for p, o in zip(paths, outputs)
    ]
    client.gather(futures)
    return outputs


def parse_with_scheduler(address: str, paths: list[str], model, output_dir: str) -> list[str]:
    """``maltpy parse --scheduler ADDRESS``: parse_files with a client of that scheduler."""
    from distributed import Client

    try:
        client = Client(address, timeout="30s", set_as_default=False)
    except (OSError, TimeoutError, ValueError) as e:
        raise MaltpyError(f"cannot reach the Dask scheduler: {cut(e)}", address) from None
    with client:
        return parse_files(paths, model, output_dir, client)


def _check_outputs(paths: list[str], outputs: list[str], output_dir: str) -> None:
    seen: dict[str, str] = {}
    for path, output in zip(paths, outputs):
        if output in seen:
            raise MaltpyError(
                f"has the same name as {quote(seen[output])}; both would be written to {quote(output)}", path
            )
        seen[output] = path
    make_folder(output_dir, "folder for the parsed files")


def _parse_file(shipped: ModelBytes, path: str, output: str) -> str:
    shipped.model().parse_file(path, output)
    return output


# --- bags --------------------------------------------------------------------------------------


def parse_bag(bag, model):
    """A Dask bag of sentences, parsed: each element a list of tokens (parsed as
    ``Model.parse`` does: a list of dicts with head and deprel), a ``conllu.TokenList``, or a
    sentence's CoNLL text (parsed to its text with HEAD and DEPREL filled in)."""
    shipped = dask.delayed(model_bytes(model), pure=True)
    return bag.map_partitions(_parse_bag_partition, shipped)


def _parse_bag_partition(sentences: Iterable[Any], shipped: ModelBytes) -> list:
    """The partition's sentences parsed together, as one batch (the texts read as files are)."""
    model = shipped.model()
    sentences = list(sentences)
    read: list[Any] = []  # each element as sentences to parse: a text's, or the element itself
    for n, element in enumerate(sentences, 1):
        if isinstance(element, str):
            reader = ConllReader(io.BytesIO(element.encode("utf-8")), f"<bag element {n}>", blind=True)
            read.append(list(reader))
        else:
            read.append([element])
    parsed = iter(model.parse([s for group in read for s in group]))
    out = []
    for element, group in zip(sentences, read):
        done = [next(parsed) for _ in group]
        out.append("".join(map(format_sentence, done)) if isinstance(element, str) else done[0])
    return out


# --- DataFrames ----------------------------------------------------------------------------------


def parse_dataframe(ddf, model):
    """A Dask DataFrame of words (see the module's note), with ``head`` (int64) and ``deprel``
    added; lazy, its schema declared, its partitions and their rows those of ``ddf``."""
    import dask.dataframe as dd

    if not isinstance(ddf, dd.DataFrame):
        raise TypeError(f"parse_dataframe takes a Dask DataFrame, not {type(ddf).__name__} (pandas: parse_partition)")
    _check_columns(ddf.columns)
    shipped = dask.delayed(model_bytes(model), pure=True)
    parts = ddf.to_delayed()
    n = len(parts)
    carries: list[Any] = []  # the open sentence's rows at the end of each partition
    for i, part in enumerate(parts):
        carries.append(dask.delayed(_carry)(carries[i - 1] if i else None, part))
    aheads: list[Any] = [None] * n  # the first sentence's rows from each partition on
    for i in reversed(range(n)):
        aheads[i] = dask.delayed(_ahead)(parts[i], aheads[i + 1] if i + 1 < n else None)
    parsed = [
        dask.delayed(_parse_rows)(
            shipped, carries[i - 1] if i else None, parts[i], aheads[i + 1] if i + 1 < n else None
        )
        for i in range(n)
    ]
    return dd.from_delayed(parsed, meta=output_meta(ddf._meta), divisions=ddf.divisions, verify_meta=False)


def output_meta(meta: pd.DataFrame) -> pd.DataFrame:
    """The output's schema: the input's columns, then head (int64) and deprel (object)."""
    return meta.assign(head=pd.Series([], dtype="int64"), deprel=pd.Series([], dtype=object))


def _check_columns(columns: Iterable[Any]) -> None:
    columns = list(columns)
    missing = [c for c in REQUIRED if c not in columns]
    if missing:
        raise MaltpyError(f"a DataFrame of words needs the column{'s' * (len(missing) > 1)} {' and '.join(missing)} "
                          f"(it has {cut(', '.join(map(str, columns)) or 'none', 200)})", "maltpy.dask")  # fmt: skip


def _runs(sent_ids: pd.Series) -> list[int]:
    """Where each run of equal sent_ids starts, and the end: [0, s1, s2, ..., len]."""
    missing = sent_ids.isna().to_numpy()
    if missing.any():
        label = sent_ids.index[missing.argmax()]
        raise MaltpyError(f"the row at index {_shown(label)} has no sent_id", "maltpy.dask")
    values = sent_ids.tolist()
    return [0, *(i for i in range(1, len(values)) if values[i] != values[i - 1]), len(values)]


def _first(rows: pd.DataFrame | None) -> Any:
    return rows["sent_id"].iloc[0] if rows is not None and len(rows) else _NOTHING


def _last(rows: pd.DataFrame | None) -> Any:
    return rows["sent_id"].iloc[-1] if rows is not None and len(rows) else _NOTHING


_NOTHING = object()  # the sent_id of no rows, equal to none


def _carry(before: pd.DataFrame | None, part: pd.DataFrame) -> pd.DataFrame | None:
    if not len(part):
        return before
    start = _runs(part["sent_id"])[-2]
    if start == 0 and _last(before) == _first(part):  # the whole partition goes on with it
        return pd.concat([before, part])
    return part.iloc[start:]


def _ahead(part: pd.DataFrame, after: pd.DataFrame | None) -> pd.DataFrame | None:
    if not len(part):
        return after
    end = _runs(part["sent_id"])[1]
    if end == len(part) and _first(after) == _last(part):
        return pd.concat([part, after])
    return part.iloc[:end]


def _parse_rows(shipped: ModelBytes, before: pd.DataFrame | None, part: pd.DataFrame,
                after: pd.DataFrame | None) -> pd.DataFrame:  # fmt: skip
    """The partition's rows with head and deprel, its first and last sentences made whole with
    the rows ``before`` and ``after`` it that continue them."""
    if not len(part):
        return output_meta(part)
    left = before if _last(before) == _first(part) else None
    right = after if _first(after) == _last(part) else None
    whole = pd.concat([x for x in (left, part, right) if x is not None])
    parsed = _parse_words(shipped.model(), whole)
    start = 0 if left is None else len(left)
    return _with_arcs(part, {name: values[start : start + len(part)] for name, values in parsed.items()})


def _with_arcs(rows: pd.DataFrame, parsed: dict[str, list]) -> pd.DataFrame:
    """``rows`` with head and deprel, and the tag columns they have with the model's taggers'
    predictions where they were empty (each in its dtype: the schema is the input's)."""
    tags = {name: pd.Series(values, index=rows.index, dtype=rows[name].dtype)
            for name, values in parsed.items() if name in TAG_NAMES}  # fmt: skip
    return rows.assign(**tags, head=pd.Series(parsed["head"], index=rows.index, dtype="int64"),
                       deprel=pd.Series(parsed["deprel"], index=rows.index, dtype=object))  # fmt: skip


def parse_partition(rows: pd.DataFrame | Iterable[pd.DataFrame], model) -> pd.DataFrame | Iterator[pd.DataFrame]:
    """Words (a pandas DataFrame of whole sentences, see the module's note) with head and
    deprel added; given an iterator of DataFrames (Spark's ``mapInPandas`` batches, which may cut
    a sentence), an iterator of parsed DataFrames, each sentence whole in one of them.
    ``model``: a path (loaded once per process), a Model, or ModelBytes."""
    loaded = _loaded(model)
    if isinstance(rows, pd.DataFrame):
        return _with_arcs(rows, _parse_words(loaded, rows))
    return _parse_batches(rows, loaded)


def _parse_batches(batches: Iterable[pd.DataFrame], model: Model) -> Iterator[pd.DataFrame]:
    held: pd.DataFrame | None = None  # the last sentence of the batches so far, which may go on
    for batch in batches:
        _check_columns(batch.columns)
        if not len(batch):
            continue
        rows = batch if held is None else pd.concat([held, batch])
        cut = _runs(rows["sent_id"])[-2]
        held = rows.iloc[cut:]
        if cut:
            yield parse_partition(rows.iloc[:cut], model)
    if held is not None and len(held):
        yield parse_partition(held, model)


def _check_ids(ids: list[Any], where: str) -> None:
    """A sentence's ids are 1, 2, ... in order: as numbers (1 or 1.0, as a column with a gap
    reads) or as their text ("1")."""
    for k, value in enumerate(ids, 1):
        number = isinstance(value, numbers.Real) and not isinstance(value, bool)
        if not (value == k if number else str(value) == str(k)):
            raise MaltpyError(f"{where}: its word {k} has the id {cut(_shown(value), 30)}; a sentence is one run "
                              "of consecutive rows with its sent_id, their ids 1, 2, ... in order",
                              "maltpy.dask")  # fmt: skip


_PATHS: dict[tuple, Model] = {}


def _loaded(model) -> Model:
    if isinstance(model, Parser):
        return model
    if isinstance(model, ModelBytes):
        return model.model()
    path = os.fspath(model)
    with _LOCK:
        try:
            stat = os.stat(path)
            key = (os.path.realpath(path), stat.st_mtime_ns, stat.st_size)
        except OSError:
            key = (path,)
        if key not in _PATHS:
            _PATHS[key] = load(path)
        return _PATHS[key]


def _text(column: pd.Series | None, n: int) -> list[str]:
    if column is None:
        return ["_"] * n
    return ["_" if _missing(v) or v == "" else str(v) for v in column.tolist()]


def _missing(value: Any) -> bool:
    """None, NaN, or pandas' NA (a string column's missing value, as Dask converts object columns
    to strings by default), whose ``!=`` is NA, not a truth value."""
    return value is None or value is pd.NA or (isinstance(value, float) and value != value)


def _shown(value: Any) -> str:
    """A sent_id or id as a message shows it: NumPy's scalars as the numbers they hold, not
    ``np.int64(39)``."""
    return cut(repr(value.item() if hasattr(value, "item") and hasattr(value, "dtype") else value), 60)


def _parse_words(model: Model, rows: pd.DataFrame) -> dict[str, list]:
    """Heads and labels of the words of ``rows``, sentence by sentence (runs of sent_id), and the
    values of the tag columns ``rows`` has, with the model's taggers' predictions."""
    _check_columns(rows.columns)
    n = len(rows)
    columns = [_text(rows.get(c), n) for c in COLUMNS[2:]]  # form, lemma, upos, xpos, feats
    blank = ["_"] * (WIDTH - len(GIVEN))  # HEAD to MISC
    ids = rows["id"].tolist() if "id" in rows.columns else None
    runs = _runs(rows["sent_id"])
    sentences = []
    for start, end in zip(runs, runs[1:]):
        words = [[str(k - start + 1), *(c[k] for c in columns), *blank] for k in range(start, end)]
        where = f"sentence {_shown(rows['sent_id'].iloc[start])}"
        if ids is not None:
            _check_ids(ids[start:end], where)
        if any(ch in f for w in words for f in w for ch in "\t\n\r"):
            raise MaltpyError(f"{where}: values cannot hold tabs or line breaks", "maltpy.dask")
        sentences.append(Sentence(words, model.data_format, len(sentences) + 1))
    given = {name: rows[name].tolist() for name in TAG_NAMES if name in rows.columns}
    out: dict[str, list] = {"head": [], "deprel": [], **{name: [] for name in given}}
    for parsed in model.parse(sentences):
        out["head"].extend(int(w[HEAD]) for w in parsed.words)
        out["deprel"].extend(w[DEPREL] for w in parsed.words)
        for name in given:
            out[name].extend(w[TAG_NAMES[name]] for w in parsed.words)
    for name, values in given.items():  # a value as given (None, NaN) where the parse left it
        texts = _text(rows[name], n)
        out[name] = [v if p == t else p for v, t, p in zip(values, texts, out[name])]
    return out
