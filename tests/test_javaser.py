"""The bounded Java serialization reader (maltpy.javaser) on MaltParser's own model files, and on
crafted streams: each departure from the grammar or the bounds is a StreamError, quickly."""

from __future__ import annotations

import struct
import zipfile

import numpy as np
import pytest
from conftest import SHARED, requires_shared

from maltpy import javaser
from maltpy.javaser import StreamError, read_stream

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
            assert len(rows) == f["nr_feature"]
            assert all(r is None or 0 < len(r) <= f["nr_class"] for r in rows)  # trailing zeros cut
            assert len({id(r) for r in rows}) < len(rows)
            seen.add("rows")
    assert seen == {"flat", "rows"}


@requires_shared
def test_every_feature_map_and_libsvm_model_reads():
    maps = 0
    for _, _, data in streams(".map", "nivreeager-libsvm-split"):
        (fmap,) = read_stream(data, MODEL_CLASSES)
        assert fmap.class_name == "org.maltparser.ml.lib.FeatureMap"
        pairs = fmap.fields["map"].annotations[1:]  # after the block of capacity and size
        assert len(pairs) % 2 == 0 and pairs
        assert {p.class_name for p in pairs[0::2]} == {"java.lang.Long"}
        columns = [p.fields["value"] for p in pairs[1::2]]
        assert len(set(columns)) == len(columns) and min(columns) > 0
        maps += 1
    models = 0
    for _, _, data in streams(".libsvm.moo", "nivreeager-libsvm-split"):
        (model,) = read_stream(data, MODEL_CLASSES)
        assert model.class_name == "org.maltparser.ml.lib.MaltLibsvmModel"
        models += 1
    assert maps == models and maps > len(RELEASES)  # a data split: several classifiers a release


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
