"""The bounded Java serialization reader (maltpy.mco.javaser) on MaltParser's own model files, and on
crafted streams: each departure from the grammar or the bounds is a StreamError, quickly."""

from __future__ import annotations

import struct
import zipfile

import numpy as np
import pytest
from conftest import SHARED, requires_shared

from maltpy.mco import javaser
from maltpy.mco.javaser import StreamError, read_stream

MCO = SHARED / "reference" / "maltparser-mco"
MODEL_CLASSES = frozenset({
    "org.maltparser.ml.lib.MaltLiblinearModel", "org.maltparser.ml.lib.MaltLibsvmModel",
    "org.maltparser.ml.lib.FeatureMap", "org.maltparser.core.helper.HashMap",
    "de.bwaldvogel.liblinear.SolverType", "liblinear.SolverType",
    "libsvm.svm_node", "libsvm.svm_parameter",
})  # fmt: skip


RELEASES = ("1.5.2", "1.7.2", "1.8.1", "1.9.2")


def streams(suffix: str, config: str):
    """The members ending in ``suffix`` of the da_ddt model of ``config`` of each release."""
    for mco in [MCO / f"da_ddt-{config}-malt{release}.mco" for release in RELEASES]:
        with zipfile.ZipFile(mco) as z:
            for name in z.namelist():
                if name.endswith(suffix):
                    yield mco.name, name, z.read(name)


@requires_shared
def test_every_liblinear_model_of_every_release_reads():
    seen = set()
    for mco, _, data in streams(".liblinear.moo", "nivreeager-liblinear"):
        (model,) = read_stream(data, MODEL_CLASSES)
        f = model.fields
        assert model.class_name == "org.maltparser.ml.lib.MaltLiblinearModel"
        assert f["nr_class"] == len(f["labels"]) > 1 and f["solverType"].constant == "MCSVM_CS"
        if "malt1.5" in mco:  # 1.5: one flat array of nr_feature x nr_class weights
            assert isinstance(f["w"], np.ndarray) and f["w"].shape == (f["nr_feature"] * f["nr_class"],)
            seen.add("flat")
        else:  # later: a row per feature, equal rows written once and referred back to
            rows = f["w"]
            assert isinstance(rows, javaser.Rows) and len(rows) == f["nr_feature"]
            lengths, values = rows.gathered()
            assert (lengths > 0).all() and (lengths <= f["nr_class"]).all()  # trailing zeros cut
            first = {}  # each own row's first element
            for i, own in enumerate(rows.source.tolist()):
                first.setdefault(own, i)
            shared = [i for i, own in enumerate(rows.source.tolist()) if first[own] != i]
            assert len(first) == len(rows.starts) < len(rows) and shared  # equal rows written once
            for i in shared[:50]:
                assert rows.row(i).tolist() == rows.row(first[int(rows.source[i])]).tolist()
            assert len(values) == lengths.sum() and np.isfinite(values).all()
            seen.add("rows")
    assert seen == {"flat", "rows"}


def plain(value):
    """A stream's contents as plain data, a run of objects (javaser.Records) as its objects."""
    if isinstance(value, javaser.Records):
        period = len(value.classes)
        return [(value.classes[k], {name.partition(".")[2]: row[name].item() for name in value.values.dtype.names
                                    if name.startswith(f"{k}.")}, [])
                for row in value.values for k in range(period)]  # fmt: skip
    if isinstance(value, javaser.JavaObject):
        return [(value.class_name, {k: plain(v) for k, v in value.fields.items()}, items(value.annotations))]
    if isinstance(value, list):
        return items(value)
    if isinstance(value, np.ndarray):
        return value.tolist()
    return value


def items(values: list) -> list:
    """``plain`` of each of ``values``, an object as its one item, a run as its objects."""
    out = []
    for v in values:
        out.extend(plain(v) if isinstance(v, (javaser.Records, javaser.JavaObject)) else [plain(v)])
    return out


@requires_shared
def test_every_feature_map_reads_as_object_by_object(monkeypatch):
    """A map's run of Long and Integer objects in turn reads what reading each alone reads."""
    maps = streams(".map", "nivreeager-libsvm-split")
    fast = {(mco, name): read_stream(data, MODEL_CLASSES) for mco, name, data in maps}
    for (fmap,) in fast.values():
        assert fmap.class_name == "org.maltparser.ml.lib.FeatureMap"
        assert any(isinstance(a, javaser.Records) for a in fmap.fields["map"].annotations)
        pairs = plain(fmap.fields["map"])[0][2][1:]  # after the block of capacity and size
        assert len(pairs) % 2 == 0 and pairs
        assert {c for c, _, _ in pairs[0::2]} == {"java.lang.Long"}
        columns = [f["value"] for _, f, _ in pairs[1::2]]
        assert len(set(columns)) == len(columns) and min(columns) > 0
    monkeypatch.setattr(javaser._Reader, "run", lambda self, limit: None)
    for (mco, name), contents in fast.items():
        slow = read_stream(zipfile.ZipFile(MCO / mco).read(name), MODEL_CLASSES)
        assert plain(slow) == plain(contents), (mco, name)
    assert len(fast) > len(RELEASES)  # a data split: several classifiers a release


@requires_shared
def test_every_libsvm_model_reads():
    models = 0
    for _, _, data in streams(".libsvm.moo", "nivreeager-libsvm-split"):
        (model,) = read_stream(data, MODEL_CLASSES)
        f = model.fields
        assert model.class_name == "org.maltparser.ml.lib.MaltLibsvmModel"
        vectors, coef = f["SV"], f["sv_coef"]
        assert isinstance(vectors, javaser.ObjectRows) and len(vectors) == f["l"] == sum(f["nSV"])
        assert (np.diff(vectors.ptr) > 0).all() and vectors.ptr[-1] == len(vectors.values)
        assert (vectors.values["index"] > 0).all() and (vectors.values["value"] == 1.0).all()  # binary features
        lengths, values = coef.gathered()
        assert len(coef) == f["nr_class"] - 1 and (lengths == f["l"]).all() and np.isfinite(values).all()
        models += 1
    assert models > len(RELEASES)


def test_a_back_reference_into_a_run_is_refused():
    longs = b"".join(b"\x73\x71" + struct.pack(">iq", 0x7E0000 + 2, n) for n in range(1, 12))  # 11 in a run
    long = class_desc("java.lang.Long", b"\x00\x01" + b"J" + utf("value"), super_=NUMBER)
    first = b"\x73" + long + struct.pack(">q", 0)
    objects = b"\x75" + class_desc("[Ljava.lang.Object;") + struct.pack(">i", 12) + first + longs
    # handles: 0 the array class, 1 the array, 2 Long, 3 Number, 4 the first Long, 5.. the run's
    (array,) = read_stream(stream(objects), frozenset())
    assert isinstance(array[1], javaser.Records) and len(array[1]) == 11
    assert array[1].values["0.value"].tolist() == list(range(1, 12))
    with pytest.raises(StreamError, match="one of many of its class"):
        read_stream(stream(objects, b"\x71" + struct.pack(">i", 0x7E0000 + 9)), frozenset())


# --- crafted streams ------------------------------------------------------------------------------


def utf(text: str) -> bytes:
    raw = text.encode()
    return struct.pack(">H", len(raw)) + raw


def class_desc(name: str, fields: bytes = b"\x00\x00", flags: int = 0x02, super_: bytes = b"\x70") -> bytes:
    return b"\x72" + utf(name) + struct.pack(">qB", 1, flags) + fields + b"\x78" + super_


def stream(*contents: bytes) -> bytes:
    return b"\xac\xed\x00\x05" + b"".join(contents)


INT_FIELD = b"\x00\x01" + b"I" + utf("value")
NUMBER = class_desc("java.lang.Number")
BOX = stream(b"\x73" + class_desc("java.lang.Integer", INT_FIELD, super_=NUMBER) + b"\x00\x00\x00\x07")


def test_a_well_formed_stream_reads():
    (box,) = read_stream(BOX, frozenset())
    assert box.class_name == "java.lang.Integer" and box.fields == {"value": 7}
    doubles = stream(b"\x75" + class_desc("[D") + struct.pack(">i", 2) + struct.pack(">dd", 1.5, -2.0))
    assert read_stream(doubles, frozenset())[0].tolist() == [1.5, -2.0]


@pytest.mark.parametrize("data, message", [
    (b"\xac\xed\x00\x04", "not a Java serialization stream"),
    (stream(b"\x73" + class_desc("java.lang.Runtime")), "class 'java.lang.Runtime' is not one of a model's"),
    (stream(b"\x75" + class_desc("[D") + struct.pack(">i", 2**31 - 1)), "longer than the stream"),
    (stream(b"\x75" + class_desc("[Ljava.lang.Object;") + struct.pack(">i", 10**9)), "longer than the stream"),
    (stream(b"\x75" + class_desc("[D") + struct.pack(">i", -1)), "longer than the stream"),
    (stream(b"\x71" + struct.pack(">i", 0x7E0000 + 5)), "back-reference to object 5, of 0"),
    (stream(b"\x73" + b"\x71" + struct.pack(">i", 0x7E0000)), "back-reference to object 0, of 0"),
    (stream(b"\x79"), "is not data"),  # TC_RESET
    (stream(b"\x7b"), "is not data"),  # TC_EXCEPTION
    (stream(b"\x7d"), "a class where data was expected"),  # a proxy class
    (stream(b"\x73" + class_desc("java.lang.Integer", flags=0x04)), "externalizable"),
    (stream(b"\x73" + class_desc("java.lang.Integer", b"\x00\x01" + b"Q" + utf("x"))), "field type"),
    (stream(b"\x74" + struct.pack(">H", 2) + b"\xff\xfe"), "not UTF-8"),
], ids=["magic", "class", "huge array", "huge object array", "negative length", "reference", "reference as class",
        "reset", "exception", "proxy", "externalizable", "field type", "bad text"])  # fmt: skip
def test_a_crafted_stream_is_a_stream_error(data, message):
    with pytest.raises(StreamError, match=message):
        read_stream(data, frozenset())


def test_every_truncation_of_a_real_stream_is_a_stream_error():
    whole = BOX
    for n in (*range(4), *range(5, len(whole))):  # the magic alone is an empty stream
        with pytest.raises(StreamError):
            read_stream(whole[:n], frozenset())


def test_deep_nesting_is_refused_at_its_bound():
    # arrays of arrays of ... of objects: each level one content deeper
    level = b"\x75" + class_desc("[Ljava.lang.Object;") + struct.pack(">i", 1)
    ref = b"\x75\x71" + struct.pack(">i", 0x7E0000) + struct.pack(">i", 1)  # the same class again
    deep = stream(level + ref * (javaser.MAX_DEPTH + 5) + b"\x70")
    with pytest.raises(StreamError, match="nested deeper"):
        read_stream(deep, frozenset())


def test_a_class_that_is_its_own_super_class_is_read_once():
    # a cycle in the hierarchy would loop a reader that follows super classes to their end
    own = class_desc("java.lang.Integer", INT_FIELD, super_=b"\x71" + struct.pack(">i", 0x7E0000))
    (box,) = read_stream(stream(b"\x73" + own + b"\x00\x00\x00\x02"), frozenset())
    assert box.fields == {"value": 2}
