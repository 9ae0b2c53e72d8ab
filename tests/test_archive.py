"""The model archive (archive.py): what maltpy writes, maltpy reads back, however far deflate
packs it; and what maltpy reads of one archive, its members and their arrays, and a blend's member
archives, spends one budget (MALTPY_MAX_ARCHIVE_BYTES). Damaged and crafted archives, bombs among
them: test_damaged_models.py."""

from __future__ import annotations

import io
import zipfile

import numpy as np
import pytest
from conftest import DATA, EXAMPLE, SHARED, SWEMALT, SWEMALT_TRAIN, conll_columns, requires_shared, run_maltpy

import maltpy
from maltpy.archive import ARCHIVE_VARIABLE, Archive, npz_bytes, write_archive
from maltpy.blend import Blend, Weights, write_blend
from maltpy.errors import MaltpyError

CONLLX = DATA / "conllx"
SWEMALT_TEST = SWEMALT / "gold" / "sv-stb-dep-mini-test.conll"


def declared(path) -> dict[str, tuple[int, int]]:
    """Each member of the zip at ``path``, and each array member of its .npz members (named
    ``member/array.npy``): (the size it declares, its compressed size), read with zipfile alone."""
    sizes = {}
    with zipfile.ZipFile(path) as z:
        for info in z.infolist():
            sizes[info.filename] = info.file_size, info.compress_size
            if info.filename.endswith(".npz"):
                with zipfile.ZipFile(io.BytesIO(z.read(info))) as arrays:
                    for inner in arrays.infolist():
                        sizes[f"{info.filename}/{inner.filename}"] = inner.file_size, inner.compress_size
    return sizes


def sentences(path, n: int) -> str:
    """The first ``n`` sentences of a CoNLL file, as text."""
    return "\n\n".join(path.read_text(encoding="utf-8").split("\n\n")[:n]) + "\n\n"


def test_what_deflate_packs_as_far_as_it_goes_is_read(tmp_path):
    # zlib packs zeros 1028:1, just under deflate's most, 1032:1 (archive.MAX_RATIO)
    zeros = np.zeros(1 << 21)  # 16 MB
    path = tmp_path / "zeros.mpm"
    write_archive(str(path), {}, {"zeros.bin": zeros.tobytes(), "zeros.npz": npz_bytes(zeros=zeros)})
    archive = Archive(str(path))
    try:
        assert archive.member("zeros.bin") == zeros.tobytes()
        assert np.array_equal(archive.arrays("zeros.npz", ("zeros",))["zeros"], zeros)
    finally:
        archive.close()
    sizes = declared(path)
    assert all(sizes[name][0] > 1000 * sizes[name][1] for name in ("zeros.bin", "zeros.npz/zeros.npy"))


@requires_shared
def test_a_knn_covnonproj_model_loads_and_parses_as_learned(tmp_path):
    # the instance base's class counts, nearly all 1, pack 210:1
    model = maltpy.learn(CONLLX / "en_lines-ud-test.conllx", algorithm="covnonproj", learner="knn")
    path = tmp_path / "m.mpm"
    model.save(path)
    size, packed = declared(path)["classifiers/000.npz/counts.npy"]
    assert size > 1 << 20 and size > 200 * packed  # what maltpy refused to read once (over 100:1)
    test = sentences(CONLLX / "en_lines-ud-dev.conllx", 3)
    assert maltpy.load_model(path).parse_conll(test) == model.parse_conll(test)


@requires_shared
def test_a_liblinear_model_of_dense_weights_loads_and_parses(tmp_path):
    # -s 0, 2 and 7 give every feature a weight for every class: the column indices repeat
    # 0..classes-1 and pack 226:1. Learned by the command line, which keeps NumPy's products to
    # one thread (threads.py): in the test's process OpenBLAS's threads spin beside busy processes.
    path, parsed = tmp_path / "m.mpm", tmp_path / "parsed.conll"
    assert run_maltpy("learn", "-q", "-i", SWEMALT_TRAIN, "-m", path, "-lo", "-s 2").returncode == 0
    size, packed = declared(path)["classifiers/000.npz/indices.npy"]
    assert size > 1 << 20 and size > 200 * packed  # what maltpy refused to read once (over 100:1)
    result = run_maltpy("parse", "-m", path, "-i", SWEMALT_TEST, "-o", parsed)
    assert result.returncode == 0, result.stderr.decode()
    gold, system = conll_columns(SWEMALT_TEST), conll_columns(parsed)
    right = sum(g[6:8] == s[6:8] for x, y in zip(gold, system, strict=True) for g, s in zip(x, y, strict=True))
    assert right > 0.65 * sum(map(len, gold))  # LAS 68.9; MaltParser's default solver (-s 4) 69.6


def test_everything_read_of_one_archive_spends_one_budget(example_model, monkeypatch):
    # the example's LIBLINEAR model reads every member and every array once
    total = sum(size for size, _ in declared(example_model).values())
    largest = max(size for size, _ in declared(example_model).values())
    assert largest < total // 2  # each read alone is well within a budget of total - 1
    monkeypatch.setenv(ARCHIVE_VARIABLE, str(total))
    maltpy.load_model(example_model)
    monkeypatch.setenv(ARCHIVE_VARIABLE, str(total - 1))
    with pytest.raises(MaltpyError, match=f"more than the .* maltpy reads of one model \\({ARCHIVE_VARIABLE} allows"):
        maltpy.load_model(example_model)


def test_a_blends_members_spend_the_blends_budget(example_model, tmp_path, monkeypatch):
    member = maltpy.load_model(example_model)
    path = tmp_path / "blend.mpm"
    write_blend(str(path), Blend([member] * 3, Weights.equal(3), "non-projective", {}))
    alone = sum(size for size, _ in declared(example_model).values())
    monkeypatch.setenv(ARCHIVE_VARIABLE, str(2 * alone))
    maltpy.load_model(example_model)  # one member alone is within the budget; three are not
    with pytest.raises(MaltpyError, match=ARCHIVE_VARIABLE):
        maltpy.load_model(path)
    monkeypatch.delenv(ARCHIVE_VARIABLE)
    text = (EXAMPLE / "en-test.conllu").read_text(encoding="utf-8")
    assert maltpy.load_model(path).parse_conll(text) == member.parse_conll(text)


@requires_shared
def test_a_blends_member_is_a_maltpy_archive_not_an_mco(example_model, tmp_path):
    # an .mco is read within a budget of its own (MALTPY_MAX_MCO_BYTES), which a blend of 64 of
    # them would multiply; maltpy writes a blend's members as its own archives
    path = tmp_path / "blend.mpm"
    write_blend(str(path), Blend([maltpy.load_model(example_model)] * 2, Weights.equal(2), "non-projective", {}))
    with zipfile.ZipFile(path) as z:
        files = {name: z.read(name) for name in z.namelist()}
    files["members/00.mpm"] = (
        SHARED / "reference" / "maltparser-mco" / "sv-nivreeager-liblinear-malt1.9.2.mco"
    ).read_bytes()
    with zipfile.ZipFile(path, "w") as z:
        for name, data in files.items():
            z.writestr(name, data)
    with pytest.raises(MaltpyError, match="members/00.mpm: damaged model: manifest.json is missing"):
        maltpy.load_model(path)


def test_a_model_that_is_no_regular_file_is_one_error_line(tmp_path):
    """An archive is read by seeking in it: a device or a pipe named as a model is refused before
    zipfile reads it (/dev/zero made zipfile's search for the end record run out of memory)."""
    from conftest import assert_one_line_error

    out = tmp_path / "out.conllu"
    result = run_maltpy("parse", "-m", "/dev/zero", "-i", EXAMPLE / "en-test.conllu", "-o", out)
    assert "not a regular file" in assert_one_line_error(result, "/dev/zero")
    assert not out.exists()
    big = tmp_path / "big.conllx"  # two batches: --jobs looks into the model before any worker loads it
    big.write_bytes((DATA / "conllx" / "en_lines-ud-test.conllx").read_bytes() * 6)
    jobs = run_maltpy("parse", "-m", "/dev/zero", "-i", big, "-o", out, "--jobs", "2")
    assert "not a regular file" in assert_one_line_error(jobs, "/dev/zero")
    assert not out.exists()
    blend = run_maltpy("blend", "-q", "-i", EXAMPLE / "en-train.conllu", "-m", tmp_path / "b.mpm", "--weights", "equal",
                       "--member", "-m /dev/zero")  # fmt: skip
    assert_one_line_error(blend, "/dev/zero")
    assert not (tmp_path / "b.mpm").exists()
