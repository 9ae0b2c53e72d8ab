"""The model archive (archive.py): what maltpy writes, maltpy reads back, however far deflate
packs it; and what maltpy reads of one archive, its members and their arrays, and a blend's member
archives, spends one budget (MALTPY_MAX_ARCHIVE_BYTES). Damaged and crafted archives, bombs among
them: test_damaged_models.py."""

from __future__ import annotations

import io
import struct
import zipfile

import numpy as np
import pytest
from conftest import DATA, EXAMPLE, SHARED, SWEMALT, SWEMALT_TRAIN, conll_columns, requires_shared, run_maltpy

import maltpy
from maltpy.blend import Blend, Weights, write_blend
from maltpy.errors import MaltpyError
from maltpy.files import MAX_MEMBERS
from maltpy.models.archive import ARCHIVE_VARIABLE, Archive, npz_bytes, write_archive

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
    assert run_maltpy("learn", "-q", "-tc", "none", "-i", SWEMALT_TRAIN, "-m", path, "-lo", "-s 2").returncode == 0
    size, packed = declared(path)["classifiers/000.npz/indices.npy"]
    assert size > 1 << 20 and size > 200 * packed  # what maltpy refused to read once (over 100:1)
    result = run_maltpy("parse", "-m", path, "-i", SWEMALT_TEST, "-o", parsed)
    assert result.returncode == 0, result.stderr.decode()
    gold, system = conll_columns(SWEMALT_TEST), conll_columns(parsed)
    right = sum(g[6:8] == s[6:8] for x, y in zip(gold, system, strict=True) for g, s in zip(x, y, strict=True))
    assert right > 0.65 * sum(map(len, gold))  # LAS 68.9; MaltParser's default solver (-s 4) 69.6


@pytest.mark.parametrize("solver", ["0", "2", "7"])
def test_dense_liblinear_weights_are_read_back_as_learned(tmp_path, solver):
    # -s 0 (logistic regression), -s 2 (SVM, primal) and -s 7 (logistic regression, dual) give
    # every feature a weight for every class: the column indices pack over 200:1, past the 100:1
    # the reader once took for a bomb, so that maltpy wrote models it refused
    model = maltpy.learn(EXAMPLE / "en-train.conllu", options=f"-s {solver}")
    path = tmp_path / "m.mpm"
    model.save(path)
    size, packed = declared(path)["classifiers/000.npz/indices.npy"]
    assert size > 200 * packed
    test = (EXAMPLE / "en-test.conllu").read_text(encoding="utf-8")
    assert maltpy.load_model(path).parse_conll(test) == model.parse_conll(test)


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


def test_a_model_cut_short_is_a_damaged_model_not_another_file(example_model, tmp_path):
    """A .mpm cut short (a copy stopped, a download broken) begins as a zip does: a damaged
    model, as a cut .mco is, where it was "not a maltpy model"."""
    data = example_model.read_bytes()
    cut_short = tmp_path / "cut.mpm"
    for size in (100, len(data) // 2, len(data) - 10):
        cut_short.write_bytes(data[:size])
        with pytest.raises(MaltpyError, match=r": damaged model: a zip archive that cannot be read \(.*cut short\?\)$"):
            Archive(str(cut_short))
    cut_short.write_bytes(b"1\tno\t_\n")
    with pytest.raises(MaltpyError, match=r": not a maltpy model \(not a zip archive"):
        Archive(str(cut_short))


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


def many_members(count: int, declared: int) -> bytes:
    """A zip of ``count`` empty members whose end record declares ``declared`` (a zip64 end record
    where that is past 0xFFFF): zipfile lists what the central directory holds, whatever the end
    record says."""
    names = [b"%07d" % i for i in range(count)]
    local = b"".join(struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 0, 0, 0, 0, 0, 0, 7, 0) + name for name in names)
    directory = b"".join(struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0,
                                     37 * i) + name for i, name in enumerate(names))  # fmt: skip
    end = b""
    if declared > 0xFFFF:
        at = len(local) + len(directory)
        end = struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, declared, declared, len(directory), len(local))
        end += struct.pack("<IIQI", 0x07064B50, 0, at, 1)
    short = min(declared, 0xFFFF)
    return local + directory + end + struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, short, short, len(directory),
                                                 len(local), 0)  # fmt: skip


@pytest.fixture
def listed(monkeypatch) -> list[int]:
    """The number of members of each zip whose central directory zipfile lists from here on."""
    counts = []
    real = zipfile.ZipFile._RealGetContents

    def listing(self) -> None:
        real(self)
        counts.append(len(self.filelist))

    monkeypatch.setattr(zipfile.ZipFile, "_RealGetContents", listing)
    return counts


@pytest.mark.parametrize(
    "count, declared, message",
    [
        (3, 1_000_000, "1000000 members"),  # as many as its zip64 end record declares
        # as many as its central directory holds, whatever its end record declares
        (MAX_MEMBERS + 20_000, 5, f"a central directory of {53 * (MAX_MEMBERS + 20_000)} bytes, room for"),
    ],
)
def test_a_zip_of_more_members_than_a_model_has_is_refused_before_they_are_listed(
    example_model, tmp_path, listed, count, declared, message
):
    zip_bytes = many_members(count, declared)
    assert len(zipfile.ZipFile(io.BytesIO(zip_bytes)).namelist()) == count  # zipfile alone lists them all
    many = tmp_path / "many.mpm"
    many.write_bytes(zip_bytes)
    with pytest.raises(MaltpyError, match=f"not a maltpy model \\({message}.*maltpy reads {MAX_MEMBERS} at most"):
        Archive(str(many))
    # as a blend's member, which is read as a maltpy archive (a model named alone may be an .mco,
    # whose reader counts the same way)
    blend = tmp_path / "blend.mpm"
    write_blend(str(blend), Blend([maltpy.load_model(example_model)] * 2, Weights.equal(2), "non-projective", {}))
    with zipfile.ZipFile(blend) as z:
        files = {name: z.read(name) for name in z.namelist()}
    files["members/01.mpm"] = zip_bytes
    with zipfile.ZipFile(blend, "w") as z:
        for name, data in files.items():
            z.writestr(name, data)
    for model in (many, blend):
        listed.clear()
        with pytest.raises(MaltpyError, match=message):
            maltpy.load_model(model)
        # the blend's own members, and its first member's (22 with its taggers and tokenizer)
        assert max(listed, default=0) < 30
    from maltpy.run.jobs import model_bytes  # --jobs looks into a model before any worker loads it

    listed.clear()
    assert model_bytes(str(many)) == 0 and listed == []


def test_an_npz_member_of_more_arrays_than_maltpy_writes_is_refused_before_they_are_listed(
    example_model, tmp_path, listed
):
    with zipfile.ZipFile(example_model) as z:
        files = {name: z.read(name) for name in z.namelist()}
    files["classifiers/000.npz"] = many_members(3, 1_000_000)
    path = tmp_path / "m.mpm"
    with zipfile.ZipFile(path, "w") as z:
        for name, data in files.items():
            z.writestr(name, data)
    listed.clear()
    with pytest.raises(MaltpyError, match=r"classifiers/000.npz is not a NumPy archive \(1000000 members"):
        maltpy.load_model(path)
    assert max(listed) == len(files)  # the model's own members alone


def test_loading_pauses_the_garbage_collector_and_leaves_it_as_it_found_it(example_model, monkeypatch):
    import gc

    from maltpy import load as loading

    seen = []
    read = loading.read_transition_model
    monkeypatch.setattr(loading, "read_transition_model", lambda archive: seen.append(gc.isenabled()) or read(archive))
    assert gc.isenabled()
    maltpy.load_model(example_model)
    assert seen == [False] and gc.isenabled()
    gc.disable()
    try:
        maltpy.load_model(example_model)
        assert seen == [False, False] and not gc.isenabled()  # a caller's pause is left as it was
    finally:
        gc.enable()
