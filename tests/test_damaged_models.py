"""Model archives are untrusted input: each kind of damage or crafting, made from a real model,
is one line ``maltpy: error: MODEL: damaged model...`` (or ``not a maltpy model``), exit 2, no
traceback, no output file, and bounded memory and time.

Each case is run as ``maltpy parse -m BAD -i TEST -o OUT`` by the command line's main, the cases
one after another in one fresh process that reports its peak memory (``resource``) as each ends,
so that nothing else counts and each case's peak is bounded by what is reported for it, with a
budget of BUDGET bytes for what is read of one archive (MALTPY_MAX_ARCHIVE_BYTES): a bomb within
deflate's ratio (1 GB at 230:1 here) is refused by the budget, before it is inflated; a header that
declares more than deflate makes, by the ratio.
"""

from __future__ import annotations

import io
import json
import os
import zipfile
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from conftest import EXAMPLE, run_maltpy, run_maltpy_measured, run_maltpy_measured_together

from maltpy.models.archive import ARCHIVE_VARIABLE

TEST = EXAMPLE / "en-test.conllu"
PEAK_LIMIT_KB = 500 * 1024
BUDGET = 256 << 20  # bytes read of one archive (the models here hold less than 1 MB)


@pytest.fixture(scope="module")
def models(tmp_path_factory, example_model):
    """Small real models of each learner, learned from the shipped example."""
    folder = tmp_path_factory.mktemp("models")
    made = {"liblinear": example_model}  # MaltParser's default learner
    for learner in ("libsvm", "knn"):
        made[learner] = folder / f"{learner}.mpm"
        result = run_maltpy(
            "learn", "-q", "-P", "maltparser", "-l", learner, "-i", EXAMPLE / "en-train.conllu", "-m", made[learner]
        )
        assert result.returncode == 0, result.stderr
    return made


def members(model) -> dict[str, bytes]:
    with zipfile.ZipFile(model) as z:
        return {name: z.read(name) for name in z.namelist()}


def write_zip(path, files: dict[str, bytes]) -> None:
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for name, data in files.items():
            z.writestr(name, data)


def with_manifest(model, path, change) -> None:
    files = members(model)
    manifest = json.loads(files["manifest.json"])
    change(manifest)
    files["manifest.json"] = json.dumps(manifest).encode()
    write_zip(path, files)


def with_arrays(model, path, change) -> None:
    files = members(model)
    name = next(n for n in files if n.endswith(".npz"))
    with np.load(io.BytesIO(files[name])) as data:
        arrays = {key: data[key] for key in data.files}
    change(arrays)
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)
    files[name] = buffer.getvalue()
    write_zip(path, files)


def with_member(model, path, name_ending, change) -> None:
    files = members(model)
    name = next(n for n in files if n.endswith(name_ending))
    files[name] = change(files[name])
    write_zip(path, files)


def lib_options(manifest, **options) -> None:
    manifest["config"]["lib"]["options"].update(options)


#: Bombs are deflated at level 1, twice as fast as the default and still 230 times smaller than
#: what they hold (1 GB in about 4.6 MB).
BOMB_LEVEL = 1


def bomb(path, model, member_ending, size=1 << 30) -> None:
    """The model with one member (the manifest, or the classifier) replaced by ``size`` blanks,
    streamed through deflate."""
    files = members(model)
    target = next(n for n in files if n.endswith(member_ending))
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=BOMB_LEVEL) as z:
        for name, data in files.items():
            if name != target:
                z.writestr(name, data)
                continue
            with z.open(name, "w", force_zip64=True) as f:
                chunk = b" " * (1 << 24)
                for _ in range(size // len(chunk)):
                    f.write(chunk)


def inner_bomb(path, model, zeros: dict[str, tuple[str, int]]) -> None:
    """The classifier's .npz with the arrays ``zeros`` (name: (type, length)) of zeros, streamed
    through deflate, declared as such."""
    files = members(model)
    name = next(n for n in files if n.endswith(".npz"))
    with np.load(io.BytesIO(files[name])) as data:
        arrays = {key: data[key] for key in data.files}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=BOMB_LEVEL) as z:
        for key, array in arrays.items():
            if key not in zeros:
                z.writestr(f"{key}.npy", _npy(array))
                continue
            header = io.BytesIO()
            descr, n = zeros[key]
            np.lib.format.write_array_header_1_0(header, {"descr": descr, "fortran_order": False, "shape": (n,)})
            with z.open(f"{key}.npy", "w", force_zip64=True) as f:
                f.write(header.getvalue())
                chunk = bytes(1 << 24)
                for _ in range(n * np.dtype(descr).itemsize // len(chunk)):
                    f.write(chunk)
    files[name] = buffer.getvalue()
    write_zip(path, files)


def declaring(data: bytes, name_ending: str, ratio: int) -> bytes:
    """The zip ``data`` with its member whose name ends in ``name_ending`` declaring ``ratio``
    times its compressed size (under 4 GB), in its local header and its central directory entry:
    a header that lies, its data unchanged."""
    raw = bytearray(data)
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        info = next(i for i in z.infolist() if i.filename.endswith(name_ending))
    size = (ratio * info.compress_size).to_bytes(4, "little")
    raw[info.header_offset + 22 : info.header_offset + 26] = size
    name = info.filename.encode()
    entry = raw.find(b"PK\x01\x02")
    while raw[entry + 46 : entry + 46 + int.from_bytes(raw[entry + 28 : entry + 30], "little")] != name:
        entry = raw.find(b"PK\x01\x02", entry + 4)
    raw[entry + 24 : entry + 28] = size
    return bytes(raw)


def lying_classifier(path, model) -> None:
    write_zip(path, members(model))
    path.write_bytes(declaring(path.read_bytes(), ".npz", 2000))


def lying_array(path, model) -> None:
    files = members(model)
    name = next(n for n in files if n.endswith(".npz"))
    files[name] = declaring(files[name], "data.npy", 2000)
    write_zip(path, files)


def _npy(array) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array)
    return buffer.getvalue()


def flip_bytes(data: bytes) -> bytes:
    middle = len(data) // 2
    return data[:middle] + bytes(b ^ 0xFF for b in data[middle : middle + 64]) + data[middle + 64 :]


def flipped_archive(path, model) -> None:
    """A stretch of the classifier member's compressed bytes flipped in the archive file itself."""
    raw = bytearray(model.read_bytes())
    with zipfile.ZipFile(model) as z:
        info = next(i for i in z.infolist() if i.filename.endswith(".npz"))
    start = info.header_offset + 30 + len(info.filename) + len(info.extra) + info.compress_size // 2
    raw[start : start + 64] = bytes(b ^ 0xFF for b in raw[start : start + 64])
    path.write_bytes(bytes(raw))


def set_first(key, value):
    def change(arrays):
        arrays[key] = arrays[key].copy()
        arrays[key][0] = value

    return change


def deep_manifest(path, model) -> None:
    files = members(model)
    text = files["manifest.json"].decode()
    files["manifest.json"] = (text[:-1] + ',"deep":' + "[" * 100_000 + "]" * 100_000 + "}").encode()
    write_zip(path, files)


def long_number_manifest(path, model) -> None:
    files = members(model)
    text = files["manifest.json"].decode()
    files["manifest.json"] = text.replace('"labels":[', '"labels":[' + "9" * 100_000 + ",", 1).encode()
    write_zip(path, files)


def encrypted_flag(path, model) -> None:
    """The classifier member marked as encrypted (general purpose flag bit 0)."""
    raw = bytearray(model.read_bytes())
    with zipfile.ZipFile(model) as z:
        infos = [i for i in z.infolist() if i.filename.endswith(".npz")]
    for info in infos:
        raw[info.header_offset + 6] |= 1
    # and in the central directory
    cd = raw.rfind(b"PK\x01\x02")
    while cd != -1:
        name_len = int.from_bytes(raw[cd + 28 : cd + 30], "little")
        if raw[cd + 46 : cd + 46 + name_len].endswith(b".npz"):
            raw[cd + 8] |= 1
        cd = raw.rfind(b"PK\x01\x02", 0, cd)
    path.write_bytes(bytes(raw))


def drop_last_feature(m):
    m["models"][0]["features"].pop()


def first_class(m, value):
    m["classes"][0] = value


CASES = {
    # the file as a whole
    "not-a-zip": lambda p, ms: p.write_bytes(b"not a zip file\n" * 100),
    "empty": lambda p, ms: p.write_bytes(b""),
    "truncated": lambda p, ms: p.write_bytes(ms["liblinear"].read_bytes()[: ms["liblinear"].stat().st_size // 2]),
    "flipped-bytes": lambda p, ms: flipped_archive(p, ms["liblinear"]),
    "encrypted-member": lambda p, ms: encrypted_flag(p, ms["liblinear"]),
    "manifest-bomb": lambda p, ms: bomb(p, ms["liblinear"], "manifest.json"),
    "classifier-bomb": lambda p, ms: bomb(p, ms["liblinear"], ".npz"),
    "npz-member-bomb": lambda p, ms: inner_bomb(p, ms["liblinear"], {"data": ("<f8", 1 << 27)}),  # 1 GB
    "libsvm-text-bomb": lambda p, ms: bomb(p, ms["libsvm"], ".libsvm"),
    # arrays each within the budget (160 MB), not together: the first is read, the second refused
    "arrays-beyond-the-budget": lambda p, ms: inner_bomb(
        p, ms["liblinear"], {"data": ("<f8", 20 << 20), "indices": ("<i4", 40 << 20)}
    ),
    "classifier-declaring-more-than-deflate-makes": lambda p, ms: lying_classifier(p, ms["liblinear"]),
    "npz-member-declaring-more-than-deflate-makes": lambda p, ms: lying_array(p, ms["liblinear"]),
    # the manifest
    "manifest-missing": lambda p, ms: write_zip(
        p, {n: d for n, d in members(ms["liblinear"]).items() if n != "manifest.json"}
    ),
    "manifest-not-json": lambda p, ms: with_member(ms["liblinear"], p, "manifest.json", lambda d: d[:-10]),
    "manifest-deep": lambda p, ms: deep_manifest(p, ms["liblinear"]),
    "manifest-long-number": lambda p, ms: long_number_manifest(p, ms["liblinear"]),
    "manifest-a-list": lambda p, ms: with_member(ms["liblinear"], p, "manifest.json", lambda d: b"[1, 2]"),
    "format-version": lambda p, ms: with_manifest(ms["liblinear"], p, lambda m: m.update(format_version=[[1] * 10**5])),
    "label-out-of-range": lambda p, ms: with_manifest(
        ms["liblinear"], p, lambda m: m["models"][0]["labels"].__setitem__(0, 10**6)
    ),
    "label-negative": lambda p, ms: with_manifest(
        ms["liblinear"], p, lambda m: m["models"][0]["labels"].__setitem__(0, -1)
    ),
    "label-not-int": lambda p, ms: with_manifest(
        ms["liblinear"], p, lambda m: m["models"][0]["labels"].__setitem__(0, "0")
    ),
    "no-models": lambda p, ms: with_manifest(ms["liblinear"], p, lambda m: m.update(models=[])),
    "models-not-list": lambda p, ms: with_manifest(ms["liblinear"], p, lambda m: m.update(models={"a": 1})),
    "split-name-without-split": lambda p, ms: with_manifest(
        ms["liblinear"], p, lambda m: m["models"][0].update(name="split:NOUN")
    ),
    "feature-map-short": lambda p, ms: with_manifest(ms["liblinear"], p, drop_last_feature),
    "feature-map-bad-key": lambda p, ms: with_manifest(
        ms["liblinear"], p, lambda m: m["models"][0]["features"].__setitem__(0, [99, "x"])
    ),
    "positions-out-of-range": lambda p, ms: with_manifest(
        ms["liblinear"], p, lambda m: m["models"][0]["positions"].append(500)
    ),
    "feature-model-garbage": lambda p, ms: with_manifest(
        ms["liblinear"], p, lambda m: m["feature_model"].update(text="InputColumn(((")
    ),
    "feature-order-not-a-permutation": lambda p, ms: with_manifest(
        ms["liblinear"], p, lambda m: m["feature_model"].update(file_order=[0] * len(m["feature_model"]["file_order"]))
    ),
    "feature-order-of-strings": lambda p, ms: with_manifest(
        ms["liblinear"], p, lambda m: m["feature_model"].update(file_order="0 1 2")
    ),
    "roots-not-a-mapping": lambda p, ms: with_manifest(ms["liblinear"], p, lambda m: m.update(roots=["root"])),
    "roots-label-with-a-tab": lambda p, ms: with_manifest(
        ms["liblinear"], p, lambda m: m["roots"].update(root="ro\tot")
    ),
    "roots-label-a-lone-surrogate": lambda p, ms: with_manifest(
        ms["liblinear"], p, lambda m: m["roots"]["under"].update(NOUN="\ud800")
    ),
    "roots-label-a-control-character": lambda p, ms: with_manifest(
        ms["liblinear"], p, lambda m: m["roots"].update(default="de\x0bp")
    ),
    "roots-of-too-many-tags": lambda p, ms: with_manifest(
        ms["liblinear"], p, lambda m: m["roots"].update(under={f"T{i}": "dep" for i in range(20_000)})
    ),
    "feature-model-fewer": lambda p, ms: with_manifest(
        ms["liblinear"], p, lambda m: m["feature_model"].update(text="InputColumn(FORM, Stack[0])")
    ),
    "split-regex-in-model": lambda p, ms: with_manifest(
        ms["liblinear"],
        p,
        lambda m: m["feature_model"].update(
            text=m["feature_model"]["text"] + "\nSplit(InputColumn(FEATS, Stack[0]), [^!]*[^!]*[^!]*[^!]*[^!]*[^!]*!)\n"
        ),
    ),
    "feature-model-deep": lambda p, ms: with_manifest(
        ms["liblinear"],
        p,
        lambda m: m["feature_model"].update(
            text="Merge(" * 100_000 + "InputColumn(POSTAG, Stack[0])" + ", InputColumn(POSTAG, Stack[0]))" * 100_000
        ),
    ),
    "feature-model-huge": lambda p, ms: with_manifest(
        ms["liblinear"], p, lambda m: m["feature_model"].update(text="InputColumn(POSTAG, Stack[0])\n" * 200_000)
    ),
    "unknown-transition": lambda p, ms: with_manifest(ms["liblinear"], p, lambda m: first_class(m, "XX")),
    "label-with-tab": lambda p, ms: with_manifest(ms["liblinear"], p, lambda m: m["classes"].append("RA~a\tb")),
    "class-twice": lambda p, ms: with_manifest(ms["liblinear"], p, lambda m: m["classes"].append(m["classes"][0])),
    "arc-without-label": lambda p, ms: with_manifest(ms["liblinear"], p, lambda m: m["classes"].append("LA")),
    "kind-mismatch": lambda p, ms: with_manifest(ms["liblinear"], p, lambda m: m["models"][0].update(kind="libsvm")),
    "classifier-missing": lambda p, ms: with_manifest(
        ms["liblinear"], p, lambda m: m["models"][0].update(file="nowhere.npz")
    ),
    "bad-config": lambda p, ms: with_manifest(ms["liblinear"], p, lambda m: m["config"].update(x={"y": 1})),
    "data-format": lambda p, ms: with_manifest(ms["liblinear"], p, lambda m: m.update(data_format="malttab")),
    # the LIBLINEAR weights
    "csr-indices-out-of-range": lambda p, ms: with_arrays(ms["liblinear"], p, set_first("indices", 10**6)),
    "csr-indices-negative": lambda p, ms: with_arrays(ms["liblinear"], p, set_first("indices", -5)),
    "csr-indptr-backwards": lambda p, ms: with_arrays(
        ms["liblinear"], p, lambda a: a.update(indptr=a["indptr"][::-1].copy())
    ),
    "csr-indptr-short": lambda p, ms: with_arrays(ms["liblinear"], p, lambda a: a.update(indptr=a["indptr"][:-5])),
    "csr-shape": lambda p, ms: with_arrays(ms["liblinear"], p, lambda a: a.update(shape=a["shape"] + 7)),
    "weights-nan": lambda p, ms: with_arrays(ms["liblinear"], p, set_first("data", np.nan)),
    "weights-strings": lambda p, ms: with_arrays(ms["liblinear"], p, lambda a: a.update(data=a["data"].astype(str))),
    "intercept-length": lambda p, ms: with_arrays(ms["liblinear"], p, lambda a: a.update(intercept=np.zeros(3))),
    "array-missing": lambda p, ms: with_arrays(ms["liblinear"], p, lambda a: a.pop("indptr")),
    # the LIBSVM model text
    "libsvm-index-beyond-width": lambda p, ms: with_member(
        ms["libsvm"], p, ".libsvm", lambda d: d.replace(b" 1:1", b" 99999999:1", 1)
    ),
    "libsvm-nr-class": lambda p, ms: with_member(
        ms["libsvm"], p, ".libsvm", lambda d: d.replace(b"nr_class ", b"nr_class 1", 1)
    ),
    "libsvm-garbage-number": lambda p, ms: with_member(
        ms["libsvm"], p, ".libsvm", lambda d: d.replace(b"rho ", b"rho x", 1)
    ),
    "libsvm-kernel": lambda p, ms: with_member(
        ms["libsvm"], p, ".libsvm", lambda d: d.replace(b"kernel_type polynomial", b"kernel_type precomputed", 1)
    ),
    "libsvm-huge-degree": lambda p, ms: with_member(
        ms["libsvm"], p, ".libsvm", lambda d: d.replace(b"degree 2", b"degree 999999999", 1)
    ),
    "libsvm-weight-negative": lambda p, ms: with_manifest(ms["libsvm"], p, lambda m: lib_options(m, w={"RE": -1})),
    "libsvm-weights-not-mapping": lambda p, ms: with_manifest(ms["libsvm"], p, lambda m: lib_options(m, w=[1, 2])),
    "libsvm-weights-many": lambda p, ms: with_manifest(
        ms["libsvm"], p, lambda m: lib_options(m, w={f"LA~x{i}": 1 for i in range(200_000)})
    ),
    "libsvm-truncated-sv": lambda p, ms: with_member(ms["libsvm"], p, ".libsvm", lambda d: d[: len(d) // 2]),
    "libsvm-extreme-gamma": lambda p, ms: with_member(
        ms["libsvm"], p, ".libsvm", lambda d: d.replace(b"gamma 0.2", b"gamma 1e300", 1)
    ),
    "liblinear-extreme-weights": lambda p, ms: with_arrays(ms["liblinear"], p, set_first("data", 1e308)),
    "statistics-nan": lambda p, ms: with_member(
        ms["liblinear"], p, "manifest.json", lambda d: d.replace(b'"training":{', b'"training":{"x":NaN,', 1)
    ),
    "manifest-too-large": lambda p, ms: with_manifest(
        ms["liblinear"], p, lambda m: m["training"].update(x=os.urandom(9 << 20).hex())
    ),
    # the vocabulary: the values of the columns the features read (vocabulary.json)
    "vocabulary-missing": lambda p, ms: write_zip(
        p, {n: d for n, d in members(ms["liblinear"]).items() if n != "vocabulary.json"}
    ),
    "vocabulary-elsewhere": lambda p, ms: with_manifest(ms["liblinear"], p, lambda m: m.update(vocabulary="../x")),
    "vocabulary-not-json": lambda p, ms: with_member(ms["liblinear"], p, "vocabulary.json", lambda d: d[:-3]),
    "vocabulary-deep": lambda p, ms: with_member(
        ms["liblinear"], p, "vocabulary.json", lambda d: b"[" * 100_000 + b"]" * 100_000
    ),
    "vocabulary-bomb": lambda p, ms: bomb(p, ms["liblinear"], "vocabulary.json"),
    "vocabulary-column-unknown": lambda p, ms: with_member(
        ms["liblinear"], p, "vocabulary.json", lambda d: d.replace(b'"column":1,', b'"column":6,', 1)
    ),
    "vocabulary-share-not-a-share": lambda p, ms: with_member(
        ms["liblinear"], p, "vocabulary.json", lambda d: d.replace(b'"unseen":0.', b'"unseen":7', 1)
    ),
    "vocabulary-values-not-text": lambda p, ms: with_member(
        ms["liblinear"], p, "vocabulary.json", lambda d: d.replace(b'"values":[', b'"values":[1,', 1)
    ),
    "vocabulary-same-tags-not-bool": lambda p, ms: with_member(
        ms["liblinear"], p, "vocabulary.json", lambda d: d.replace(b'"same_tags":false', b'"same_tags":0', 1)
    ),
    # the k-NN instance base
    "knn-symbol-out-of-range": lambda p, ms: with_arrays(
        ms["knn"], p, lambda a: a["instances"].__setitem__((0, 0), 10**6)
    ),
}


#: The bound that refuses a case, as its message names it.
REFUSED_BY = {
    "manifest-bomb": "MALTPY_MAX_MANIFEST_BYTES",
    "classifier-bomb": ARCHIVE_VARIABLE,
    "npz-member-bomb": ARCHIVE_VARIABLE,
    "libsvm-text-bomb": ARCHIVE_VARIABLE,
    "vocabulary-bomb": ARCHIVE_VARIABLE,
    "arrays-beyond-the-budget": ARCHIVE_VARIABLE,
    "classifier-declaring-more-than-deflate-makes": "more than deflate makes",
    "npz-member-declaring-more-than-deflate-makes": "more than deflate makes",
}


@pytest.fixture(scope="module")
def damaged_runs(models, tmp_path_factory):
    """Each case's model made in a folder of its own and parsed (``maltpy parse -m BAD -i TEST -o
    OUT``) with the budget BUDGET, the runs one after another by the command line's main in one
    fresh process that measures itself: {case: (its folder, its run)}. A case's peak is that
    process's when the case ended, no less than the case's peak in a process of its own."""
    folder = tmp_path_factory.mktemp("damaged")
    places, runs = {}, []
    for case in CASES:
        places[case] = folder / f"case{len(places)}"
        places[case].mkdir()
        runs.append(["parse", "-m", places[case] / "bad.mpm", "-i", TEST, "-o", places[case] / "out.conllu"])
    with ThreadPoolExecutor(2) as pool:  # deflating the bombs takes most of the time, without the GIL
        list(pool.map(lambda case: CASES[case](places[case] / "bad.mpm", models), CASES))
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setenv(ARCHIVE_VARIABLE, str(BUDGET))
        results = run_maltpy_measured_together(runs, timeout=600)
    return {case: (places[case], result) for case, result in zip(CASES, results)}


@pytest.mark.parametrize("case", list(CASES))
def test_a_damaged_model_is_one_line_error_in_bounded_memory_and_time(damaged_runs, case):
    place, result = damaged_runs[case]
    bad = place / "bad.mpm"
    err_lines = result.stderr.decode("utf-8", "replace").splitlines()
    err, status = "\n".join(err_lines), result.returncode
    assert status == 2, err
    assert "Traceback" not in err and len(err_lines) == 1, err
    assert err.startswith(tuple(f"maltpy: error: {bad}: {what}" for what in ("damaged model", "not a maltpy model",
                                                                           "model format version"))), err  # fmt: skip
    assert len(err) < 600, err
    assert REFUSED_BY.get(case, "") in err, err
    assert [p.name for p in place.iterdir()] == ["bad.mpm"]  # no output, no temporary file
    assert result.peak_kb < PEAK_LIMIT_KB, f"peak {result.peak_kb} kB"  # and no hang: damaged_runs' hang_s


def test_the_undamaged_models_parse(models, tmp_path):
    # the cases above are damage, not a reader that refuses everything
    for learner, model in models.items():
        result = run_maltpy("parse", "-m", model, "-i", TEST, "-o", tmp_path / f"{learner}.conllu")
        assert result.returncode == 0, result.stderr
        assert (tmp_path / f"{learner}.conllu").stat().st_size > 0


def test_a_libsvm_model_of_many_classes_parses_in_bounded_memory(models, tmp_path):
    # LIBSVM's one-vs-one model has k(k-1)/2 decisions per instance: with a crafted 1,000
    # classes (a 12 KB archive), the class x pair tables once took 8 GB
    k = 1000
    files = members(models["libsvm"])
    manifest = json.loads(files["manifest.json"])
    manifest["classes"] = manifest["classes"] + [f"LA~x{i}" for i in range(k)]
    base = len(manifest["classes"]) - k
    entry = manifest["models"][0]
    entry["labels"] = [base + i for i in range(k)]
    header = "\n".join(["svm_type c_svc", "kernel_type polynomial", "degree 2", "gamma 0.2", "coef0 0",
                        f"nr_class {k}", "total_sv 1", "rho " + " ".join(["0"] * (k * (k - 1) // 2)),
                        "label " + " ".join(map(str, range(k))), "nr_sv 1" + " 0" * (k - 1), "SV"])  # fmt: skip
    sv = " ".join(["0.5"] * (k - 1)) + " 1:1\n"
    name = next(n for n in files if n.endswith(".libsvm"))
    files[name] = (header + "\n" + sv).encode()
    files["manifest.json"] = json.dumps(manifest).encode()
    big = tmp_path / "big.mpm"
    write_zip(big, files)
    result = run_maltpy_measured("parse", "-m", big, "-i", TEST, "-o", tmp_path / "out.conllu")
    assert result.returncode == 0 and result.stderr == b"", result.stderr
    assert result.peak_kb < PEAK_LIMIT_KB, f"peak {result.peak_kb} kB"


def test_a_merge_key_of_many_separators_parses_in_bounded_time(models, tmp_path):
    # The arrays form cuts each Merge key into its parts at every "~": a crafted key of 20,000
    # of them has 200 million cuts. Such a model is parsed by the per-sentence path instead.
    def tildes(m):
        features = m["feature_model"]["text"].splitlines()
        merge3 = next(i for i, text in enumerate(features) if text.startswith("Merge3"))
        key = next(key for key in m["models"][0]["features"] if key[0] == merge3)
        key[1] = "~" * 20_000

    crafted = tmp_path / "tildes.mpm"
    with_manifest(models["liblinear"], crafted, tildes)
    result = run_maltpy_measured("parse", "-m", crafted, "-i", TEST, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.count(b"\n\n") == TEST.read_bytes().count(b"\n\n")  # within the timeout: no hang
