"""The k-NN learner: TiMBL's answers, its rules on small cases, the search, and k-NN in learn/parse."""

import io
import json
import random
import re
import shutil
import subprocess
import tracemalloc
import zipfile

import numpy as np
import pytest
from conftest import (
    DATA,
    EXAMPLE,
    ROOT,
    SHARED,
    assert_one_line_error,
    requires_shared,
    run_in_process,
    run_maltpy,
)

import maltpy
from maltpy.data.conll import ConllReader
from maltpy.data.tree import find_cycle
from maltpy.learners.knn import EPSILON, FAR, Knn, experiment
from maltpy.learners.options import parse_learner_options
from maltpy.learners.timbl_columns import instance_file_name, read_columns

TIMBL = SHARED / "reference" / "timbl"
LATIN_TRAIN = TIMBL / "la_perseus-nivreeager.train.col"
LATIN_TEST = TIMBL / "la_perseus-nivreeager.test.col"
CONLLX = DATA / "conllx"
CRAFTED = ROOT / "tests" / "data" / "knn"  # instance files aimed at edge cases (scripts/knn_grid.py made them)
requires_timbl = pytest.mark.skipif(shutil.which("timbl") is None,
                                    reason="timbl is not installed (Debian: apt-get install timbl)")  # fmt: skip


def columns(text: str) -> list[list[str]]:
    return [line.split() for line in text.strip().splitlines()]


def answers(train: str, test: str, options: str) -> list[str]:
    return experiment(columns(train), columns(test), parse_learner_options(options, "knn"))


def agreement(ours: list[str], theirs: list[str]) -> float:
    assert len(ours) == len(theirs)
    return sum(a == b for a, b in zip(ours, theirs)) / len(theirs)


def timbl_answers(train, test, options: str, out) -> list[str]:
    """The classes ``timbl -f train -t test`` gives with maltpy's options (``-k 5 ...``)."""
    flags = options.split()
    result = subprocess.run(["timbl", "-f", train, "-t", test, *[f + v for f, v in zip(flags[::2], flags[1::2])],
                             "-o", out], capture_output=True, timeout=600)  # fmt: skip
    assert result.returncode == 0, result.stderr.decode()
    return [line.rpartition(" ")[2] for line in open(out, encoding="utf-8").read().splitlines()]


# --- TiMBL 6.5's own answers, kept beside the instances --------------------------------------------


@requires_shared
@pytest.mark.parametrize("options", ["k5-mM-L3-dID", "k5-mM-L3-dID-w0", "k5-mO-dID"])
def test_maltpy_knn_gives_timbls_answers(tmp_path, options):
    out = tmp_path / "out"
    flags = ["-" + part[0] + " " + part[1:] for part in options.split("-")]
    result = run_maltpy("knn", "-f", LATIN_TRAIN, "-t", LATIN_TEST, *" ".join(flags).split(), "-o", out)
    assert result.returncode == 0, result.stderr.decode()
    assert result.stderr.decode().count("\n") == 1 and "6276 tested" in result.stderr.decode()
    ours = out.read_text().splitlines()
    theirs = (TIMBL / f"la_perseus-nivreeager.test.{options}.out").read_text().splitlines()
    test = LATIN_TEST.read_text().splitlines()
    # each line: the test instance as it was, then the class, as timbl -o writes it
    assert all(line.rpartition(" ")[0] == instance for line, instance in zip(ours, test))
    assert agreement([x.rpartition(" ")[2] for x in ours], [x.rpartition(" ")[2] for x in theirs]) >= 0.999


# --- TiMBL's rules, on cases worked out by hand -----------------------------------------------------


def test_k_counts_distances_not_neighbours():
    # -w0 -mO: every mismatch costs 1 ("v" was never seen: it mismatches everything). From "p v",
    # three instances are at distance 1 and one at 2: with k = 1 the three vote together.
    train = "p q A\np r B\np s B\nt u A\n"
    assert answers(train, "p v ?", "-k 1 -m O -w 0 -d Z") == ["B"]


def test_a_tie_goes_to_the_class_more_frequent_in_training():
    # two instances at each of the distances 1, 2 and 3, one A and one B: with k = 2, A and B tie,
    # and tie again with k = 3; B, seen more often in training (two more at distance 4), wins,
    # though A comes first
    train = "p p p q A\np p p r B\np p s q A\np p s r B\np s s q A\np s s r B\ns s s q B\ns s s r B\n"
    assert answers(train, "p p p z ?", "-k 2 -m O -w 0 -d Z") == ["B"]


def test_a_tie_is_settled_by_one_more_distance():
    # k = 1: A and B tie at distance 1, and A is more frequent in training; but at distance 2
    # there are two B: with k = 2 B wins alone, and so TiMBL answers B
    train = "p p q A\np p r B\np s t B\np s u B\ns s t A\ns s u A\ns s w A\n"
    assert answers(train, "p p v ?", "-k 1 -m O -w 0 -d Z") == ["B"]


def test_inverse_distance_and_inverse_linear_votes():
    # one A at distance 1, three B at distance 2
    train = "p q A\nr s B\nr t B\nr u B\n"
    query = "p v ?"
    assert answers(train, query, "-k 2 -m O -w 0 -d Z") == ["B"]  # 3 votes to 1
    assert answers(train, query, "-k 2 -m O -w 0 -d ID") == ["B"]  # 3/2 > 1/1
    assert answers(train, query, "-k 2 -m O -w 0 -d IL") == ["A"]  # the furthest distance weighs 0
    assert answers(train, query, "-k 2 -m O -w 0 -d ED:2") == ["A"]  # 3 exp(-4) < exp(-2)


def test_unknown_values_mismatch_and_mvdm_needs_l_occurrences():
    # "z" was never seen: it mismatches every value, so only the second feature decides
    train = "a x A\nb x A\na y B\nb y B\nb y B\n"
    assert answers(train, "z x ?", "-k 1 -m M -L 1 -w 0 -d Z") == ["A"]
    # MVDM: "b" (twice with C) is like "c" (three times with C) and unlike "a" (twice with A);
    # with L = 2 the query's "c" matches "b" closely; with L = 3 "b" is too rare for MVDM
    train = "a A\na A\nb C\nb C\nc C\nc C\nc C\n"
    knn = Knn.fit(np.array([[0], [0], [1], [1], [2], [2], [2]], dtype=np.int32),
                  np.array([0, 0, 1, 1, 1, 1, 1]), 2, parse_learner_options("-L 2 -w 0", "knn"))  # fmt: skip
    assert knn.delta(0, np.array([2]), np.array([1]))[0] == 0.0
    assert knn.delta(0, np.array([2]), np.array([0]))[0] == 1.0
    strict = Knn.fit(np.array([[0], [1], [2]], dtype=np.int32), np.array([0, 1, 1]), 2,
                     parse_learner_options("-L 3 -w 0", "knn"))  # fmt: skip
    assert strict.delta(0, np.array([2]), np.array([1]))[0] == 1.0
    assert answers(train, "c ?", "-k 1 -m M -L 2 -w 0") == ["C"]


def test_under_mvdm_an_unknown_value_matches_a_feature_of_one_value():
    # the first feature has one value, "o": under MVDM timbl puts the never-seen "z" at distance
    # 0 from it (a table lookup that finds nothing), under Overlap at 1. From "z a": the X at 0
    # and three Y at 1 (MVDM), or at 1 and 2 (Overlap), whatever -L is; by inverse distance
    # 1/epsilon beats 3/1, but 1/1 does not beat 3/2
    train = "o a X\no b Y\no b Y\no b Y\n"
    assert answers(train, "z a ?", "-k 2 -m M -L 100 -d ID -w 0") == ["X"]
    assert answers(train, "z a ?", "-k 2 -m M -L 1 -d ID -w 0") == ["X"]
    assert answers(train, "z a ?", "-k 2 -m O -d ID -w 0") == ["Y"]


def test_distances_a_rounding_apart_are_one_as_timbl_meets_them():
    # three instances at 2/3 and one and two units in the last place above, which is half of
    # epsilon there. timbl's BestArray::addResult puts an instance at the first distance less
    # than epsilon from its own, a distance being the first met at it: met from the middle one,
    # the three are one distance; met from the lowest, the highest is a distance of its own
    knn = Knn.fit(np.array([[0], [1], [2]], dtype=np.int32), np.array([0, 1, 0]), 2,
                  parse_learner_options("-k 1 -w 0", "knn"))  # fmt: skip
    low = 2 / 3
    middle, high = np.nextafter(low, 1), np.nextafter(np.nextafter(low, 1), 1)
    assert high - low == EPSILON
    rows, distance = np.array([0, 1, 2]), np.array([middle, low, high])
    place, counts = knn.timbl_places(np.array([3]), rows, distance)  # met in the order of the values
    assert place.tolist() == [middle, FAR] and counts.tolist() == [[2, 1], [0, 0]]
    knn.meeting_order = [np.array([1, 0, 2])]  # the second value's string came first
    place, counts = knn.timbl_places(np.array([3]), rows, distance)
    assert place.tolist() == [low, high] and counts.tolist() == [[1, 1], [1, 0]]


# --- the search finds every neighbour ---------------------------------------------------------------


def brute_force_neighbours(knn: Knn, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The neighbours from every stored instance, without the search."""
    n = len(knn.instances)
    query = np.repeat(np.arange(len(X)), n)
    rows = np.tile(np.arange(n), len(X))
    distance = knn.distances(X[query], knn.instances[rows])
    return knn.neighbours(query, rows, distance, X)


@requires_shared
@pytest.mark.parametrize("options", ["-k 5 -m M -L 3 -d ID", "-k 3 -m O -w 0", "-k 1 -m M -L 1 -w 3", "-k 7 -w 2"])
def test_the_search_misses_no_neighbour(options):
    train, test = columns(LATIN_TRAIN.read_text()), columns(LATIN_TEST.read_text())
    tables = [{} for _ in range(len(train[0]) - 1)]
    X = np.array([[t.setdefault(v, len(t)) for t, v in zip(tables, row)] for row in train], dtype=np.int32)
    classes = {c: i for i, c in enumerate(dict.fromkeys(row[-1] for row in train))}
    knn = Knn.fit(X, np.array([classes[row[-1]] for row in train]), len(classes), parse_learner_options(options, "knn"))
    # 32 of the 40 hold a value never seen; under MVDM, 19 meet distances less than epsilon apart
    queries = random.Random(7).sample(test, 40)
    Q = np.array([[t.get(v, -1) for t, v in zip(tables, row)] for row in queries], dtype=np.int32)
    query, rows = knn.index.candidates(Q)
    found = knn.neighbours(query, rows, knn.distances(Q[query], knn.instances[rows]), Q)
    expected = brute_force_neighbours(knn, Q)
    assert np.array_equal(found[0], expected[0]) and np.array_equal(found[1], expected[1])
    assert (found[0][:, 0] < FAR).all()


# --- TiMBL itself, where it is installed, on instances of other treebanks --------------------------


@pytest.fixture(scope="module")
def danish_instances(tmp_path_factory):
    """Instances of covnonproj on Danish (other features than the Latin ones above): the training
    instances of da_ddt dev, and 200 instances of da_ddt test in the same encoding (timbl takes
    28 ms an instance under MVDM here)."""
    folder = tmp_path_factory.mktemp("instances")
    for part in ("dev", "test"):
        result = run_maltpy("learn", "-q", "-a", "covnonproj", "-l", "knn", "-tc", "none",
                            "-i", CONLLX / f"da_ddt-ud-{part}.conllx", "-m", folder / f"{part}.mpm",
                            "--save-instances", folder / part)  # fmt: skip
        assert result.returncode == 0, result.stderr.decode()
    test = (folder / "test" / "main.col").read_text().splitlines()
    (folder / "test.col").write_text("\n".join(random.Random(3).sample(test, 200)) + "\n")
    return folder / "dev" / "main.col", folder / "test.col"


@requires_shared
@requires_timbl
@pytest.mark.parametrize(
    "options",
    # MVDM with the paper's settings, and Overlap; scripts/knn_grid.py runs every combination of
    # TiMBL's grid on four treebanks' instances (timbl takes minutes on them)
    ["-k 5 -m M -L 3 -d ID -w 1", "-k 7 -m O -d IL -w 1"],
)
def test_maltpy_knn_agrees_with_timbl(tmp_path, danish_instances, options):
    train, test = danish_instances
    ours = tmp_path / "maltpy.out"
    theirs = timbl_answers(train, test, options, tmp_path / "timbl.out")
    result = run_maltpy("knn", "-f", train, "-t", test, *options.split(), "-o", ours)
    assert result.returncode == 0, result.stderr.decode()
    assert agreement([line.rpartition(" ")[2] for line in ours.read_text().splitlines()], theirs) >= 0.999


#: A part of scripts/knn_grid.py's grid: every weighting, every kind of vote, k = 1, 3, 7, Overlap
#: and MVDM with timbl's -L and the paper's.
GRID_SAMPLE = [
    "-k 1 -m O -d Z -w 0", "-k 3 -m M -L 3 -d ID -w 0", "-k 7 -m M -L 1 -d Z -w 0", "-k 7 -m M -L 3 -d IL -w 1",
    "-k 1 -m M -L 1 -d ED:1 -w 2", "-k 7 -m M -L 3 -d ED:1 -w 3", "-k 3 -m O -d ED:0.5:0.5 -w 4",
    "-k 3 -m M -L 1 -d ED:2:1.5 -w 1", "-k 7 -m O -d ID -w 4", "-k 1 -m M -L 3 -d IL -w 3",
]  # fmt: skip


@requires_timbl
@pytest.mark.parametrize("options", GRID_SAMPLE)
def test_maltpy_knn_agrees_with_timbl_on_crafted_instances(tmp_path, options):
    for train in sorted(CRAFTED.glob("*.train")):
        test = train.with_suffix(".test")
        theirs = timbl_answers(train, test, options, tmp_path / "out")
        rows = read_columns(str(train))
        ours = experiment(rows, read_columns(str(test), len(rows[0])), parse_learner_options(options, "knn"))
        assert ours == theirs, f"{train.stem}: lines {[i + 1 for i, (a, b) in enumerate(zip(ours, theirs)) if a != b]}"


@requires_shared
@requires_timbl
@pytest.mark.parametrize("options", GRID_SAMPLE)
def test_maltpy_knn_agrees_with_timbl_on_a_real_sample(tmp_path, options):
    # the first 3000 Latin training instances and the first 300 test instances (timbl is quick on them)
    train, test = tmp_path / "train.col", tmp_path / "test.col"
    train.write_text("".join(LATIN_TRAIN.read_text(encoding="utf-8").splitlines(True)[:3000]), encoding="utf-8")
    test.write_text("".join(LATIN_TEST.read_text(encoding="utf-8").splitlines(True)[:300]), encoding="utf-8")
    theirs = timbl_answers(train, test, options, tmp_path / "out")
    rows = read_columns(str(train))
    ours = experiment(rows, read_columns(str(test), len(rows[0])), parse_learner_options(options, "knn"))
    assert agreement(ours, theirs) >= 0.999


@requires_timbl
@pytest.mark.parametrize("options", ["", "-k 7 -m M -d ED:1 -w 3", "-k 1 -m O -w 0"])
def test_maltpy_knn_takes_timbls_defaults(tmp_path, options):
    # the same options, the same answers: what is not given is timbl's default (-k 1 -m O -L 1
    # -d Z), not the paper's (-L 3 -d ID, which differ on these files under MVDM and on ties)
    for name in ("hapax", "ties"):
        train, test, out = CRAFTED / f"{name}.train", CRAFTED / f"{name}.test", tmp_path / "out"
        theirs = timbl_answers(train, test, options, tmp_path / "timbl.out")
        result = run_maltpy("knn", "-f", train, "-t", test, *options.split(), "-o", out)
        assert result.returncode == 0, result.stderr.decode()
        assert [line.rpartition(" ")[2] for line in out.read_text().splitlines()] == theirs, name


# --- learning and parsing with k-NN -------------------------------------------------------------------


def assert_trees(data: bytes, sentences: int) -> None:
    parsed = list(ConllReader(io.BytesIO(data), "parsed"))
    assert len(parsed) == sentences
    for s in parsed:
        assert s.heads is not None and find_cycle(s.heads) is None and min(s.heads[1:]) >= 0


@requires_shared
# covnonproj's run (half a minute) with its bar: scripts/bench_knn.py parse
@pytest.mark.parametrize("algorithm, bar", [("nivreeager", 39.0)])
def test_latin_learns_and_parses_with_knn(tmp_path, algorithm, bar):
    model, parsed = tmp_path / "m.mpm", tmp_path / "parsed.conllx"
    train, test = CONLLX / "la_perseus-ud-train.conllx", CONLLX / "la_perseus-ud-test.conllx"
    learned = run_maltpy("learn", "-q", "-a", algorithm, "-l", "knn", "-tc", "none", "-i", train, "-m", model)
    assert learned.returncode == 0
    result = run_maltpy("parse", "-m", model, "-i", test, "-o", parsed)
    assert result.returncode == 0, result.stderr.decode()
    assert_trees(parsed.read_bytes(), 939)
    scores = json.loads(run_maltpy("eval", "--json", test, parsed).stdout)
    assert scores["LAS"] >= bar


@pytest.fixture(scope="module")
def example_knn(tmp_path_factory):
    folder = tmp_path_factory.mktemp("knn")
    result = run_maltpy("learn", "-q", "-P", "maltparser", "-l", "knn", "-i", EXAMPLE / "en-train.conllu",
                        "-m", folder / "en.mpm", "--save-instances", folder / "instances", "-tc", "none")  # fmt: skip
    assert result.returncode == 0, result.stderr.decode()
    return folder


def test_the_knn_archive_holds_the_instance_base(example_knn, tmp_path):
    model = example_knn / "en.mpm"
    with zipfile.ZipFile(model) as z:
        manifest = json.loads(z.read("manifest.json"))
        entry = manifest["models"][0]
        assert entry["kind"] == "knn" and entry["file"].endswith(".npz")
        with np.load(io.BytesIO(z.read(entry["file"])), allow_pickle=False) as arrays:
            assert sorted(arrays.files) == ["classes", "counts", "indptr", "instances"]
            assert all(arrays[key].dtype.kind == "i" for key in arrays.files)
            assert arrays["counts"].sum() == entry["instances"]
    info = run_maltpy("info", "-m", model).stdout.decode()
    assert "learner            knn" in info and "distinct instances (-k 5 -m M -L 3 -d ID -w 1)" in info
    text = (EXAMPLE / "en-test.conllu").read_text()
    parsed = run_maltpy("parse", "-m", model, input=text.encode())
    assert parsed.returncode == 0 and maltpy.load_model(str(model)).parse_conll(text) == parsed.stdout.decode()
    scores = json.loads(run_maltpy("eval", "--json", EXAMPLE / "en-test.conllu", "-", input=parsed.stdout).stdout)
    assert scores["LAS"] > 70


def test_knn_with_a_data_split(tmp_path):
    # one classifier per frequent part of speech of Input[0], and a master for the rest; a
    # classifier that saw one class only weighs every feature 0 (its gain ratio is 0)
    model = tmp_path / "split.mpm"
    result = run_maltpy("learn", "-q", "-l", "knn", "-d", "POSTAG", "-s", "Input[0]", "-T", "20", "-i",
                        EXAMPLE / "en-train.conllu", "-m", model)  # fmt: skip
    assert result.returncode == 0, result.stderr.decode()
    info = json.loads(run_maltpy("info", "--json", "-m", model).stdout)
    assert len(info["classifiers"]) > 3 and {c["kind"] for c in info["classifiers"]} == {"knn"}
    parsed = run_maltpy("parse", "-m", model, "-i", EXAMPLE / "en-test.conllu")
    assert parsed.returncode == 0, parsed.stderr.decode()
    assert_trees(parsed.stdout, 12)
    scores = json.loads(run_maltpy("eval", "--json", EXAMPLE / "en-test.conllu", "-", input=parsed.stdout).stdout)
    assert scores["LAS"] > 70


def with_item(array: np.ndarray, index: int, value) -> np.ndarray:
    array[index] = value
    return array


def rewritten(model, tmp_path, change) -> str:
    """A copy of ``model`` with its k-NN arrays changed by ``change(arrays)``."""
    out = tmp_path / "changed.mpm"
    with zipfile.ZipFile(model) as src, zipfile.ZipFile(out, "w") as dst:
        for name in src.namelist():
            data = src.read(name)
            if name.endswith(".npz"):
                with np.load(io.BytesIO(data)) as arrays:
                    arrays = {key: arrays[key] for key in arrays.files}
                change(arrays)
                buffer = io.BytesIO()
                np.savez(buffer, **arrays)
                data = buffer.getvalue()
            dst.writestr(name, data)
    return out


@pytest.mark.parametrize(
    "change",
    [
        lambda a: a["instances"].__setitem__((0, 0), 10**6),  # a symbol no table has
        lambda a: a["instances"].__setitem__((0, 0), -1),
        lambda a: a["counts"].__setitem__(0, 0),
        lambda a: a["classes"].__setitem__(0, 999),
        lambda a: a.__setitem__("indptr", a["indptr"][:-1]),
        lambda a: a.__setitem__("instances", a["instances"][:, :3]),
        lambda a: a.__setitem__("instances", a["instances"].astype(float)),
        lambda a: a.__setitem__("indptr", with_item(a["indptr"].astype(np.uint64), 1, 10**6)),  # wraps in a diff
        lambda a: a.__setitem__("indptr", with_item(a["indptr"].astype(np.int16), 1, 20000)),
        lambda a: a.__setitem__("indptr", with_item(a["indptr"].astype(np.uint64), 1, 2**64 - 1)),
        lambda a: a["counts"].__setitem__(slice(0, 3), 2**62),  # their sum overflows
    ],
    ids=["symbol", "negative", "count", "class", "indptr", "width", "type", "uint64", "int16", "max", "overflow"],
)
def test_a_damaged_instance_base_is_a_one_line_error(example_knn, tmp_path, change):
    damaged = rewritten(example_knn / "en.mpm", tmp_path, change)
    assert_one_line_error(run_in_process("parse", "-m", damaged, input=b""), f"{damaged}: damaged model")


def npy_declaring(shape: tuple, dtype: str = "<i8") -> bytes:
    """An .npy file whose header declares an array of ``shape`` and holds nothing more."""
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, {"descr": dtype, "fortran_order": False, "shape": shape})
    return buffer.getvalue()


@pytest.mark.parametrize(
    "members",
    [{"instances.npy": npy_declaring((10**13,))}, {"instances.npy": b""}, {"instances.npy": b"\x93NUMPY"},
     {"instances.npy": b"not an array"}],
    ids=["huge-header", "empty", "truncated", "not-npy"],
)  # fmt: skip
def test_an_array_is_checked_before_it_is_read(example_knn, tmp_path, members):
    model = tmp_path / "m.mpm"
    with zipfile.ZipFile(example_knn / "en.mpm") as src, zipfile.ZipFile(model, "w") as dst:
        for name in src.namelist():
            data = src.read(name)
            if name.endswith(".npz"):
                with zipfile.ZipFile(io.BytesIO(data)) as inner, zipfile.ZipFile(buffer := io.BytesIO(), "w") as out:
                    for member in inner.namelist():
                        out.writestr(member, members.get(member, inner.read(member)))
                data = buffer.getvalue()
            dst.writestr(name, data)
    err = assert_one_line_error(run_in_process("parse", "-m", model, input=b""), f"{model}: damaged model")
    assert "is not a NumPy archive" in err


def test_an_unused_array_is_not_read(example_knn, tmp_path):
    # a large extra member (a bomb, compressed) is never decompressed: only the arrays used are read
    model = tmp_path / "m.mpm"
    with zipfile.ZipFile(example_knn / "en.mpm") as src, zipfile.ZipFile(model, "w") as dst:
        for name in src.namelist():
            data = src.read(name)
            if name.endswith(".npz"):
                with np.load(io.BytesIO(data)) as arrays:
                    kept = {key: arrays[key] for key in arrays.files}
                buffer = io.BytesIO()
                np.savez_compressed(buffer, **kept, junk=np.zeros(200_000_000, dtype=np.uint8))
                data = buffer.getvalue()
            dst.writestr(name, data)
    tracemalloc.start()  # NumPy reports its allocations to it
    try:
        maltpy.load_model(str(model))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 50_000_000  # far below the junk's 200 MB


def test_save_instances_writes_timbl_columns(example_knn, tmp_path):
    lines = (example_knn / "instances" / "main.col").read_text().splitlines()
    manifest = json.loads(zipfile.ZipFile(example_knn / "en.mpm").read("manifest.json"))
    assert len(lines) == manifest["training"]["instances"]
    assert {len(line.split(" ")) for line in lines} == {len(manifest["models"][0]["positions"]) + 1}
    assert {line.rpartition(" ")[2] for line in lines} <= set(manifest["classes"])
    # with a data split, one file per classifier; the liblinear learner writes them too
    folder = tmp_path / "split"
    result = run_maltpy("learn", "-q", "-d", "POSTAG", "-s", "Input[0]", "-T", "40", "-i", EXAMPLE / "en-train.conllu",
                        "-m", tmp_path / "m.mpm", "--save-instances", folder)  # fmt: skip
    assert result.returncode == 0, result.stderr.decode()
    manifest = json.loads(zipfile.ZipFile(tmp_path / "m.mpm").read("manifest.json"))
    names = sorted(p.name for p in folder.iterdir())
    assert names == sorted(instance_file_name(m["name"]) for m in manifest["models"]) and "master.col" in names
    assert "split:NN.col" in names and instance_file_name("split:a/b c") == "split:a%2Fb%20c.col"
    for m in manifest["models"]:
        rows = (folder / instance_file_name(m["name"])).read_text().splitlines()
        assert len(rows) == m["instances"] and {len(r.split(" ")) for r in rows} == {len(m["positions"]) + 1}


def test_values_are_written_as_blank_free_fields():
    from maltpy.learners.timbl_columns import column_text

    assert column_text("New York") == "New%20York" and column_text("50%") == "50%25"
    assert column_text(("a|b", "c")) == "a%7Cb|c" and column_text(None) == "%00" and column_text(3) == "3"
    assert column_text("#null#") == "#null#" and column_text(",") == "%2C" and column_text("a\\b") == "a%5Cb"


def test_columns_are_read_and_echoed_as_timbl_does(tmp_path):
    # fields are separated by spaces and tabs only (a no-break space is part of a value); a
    # byte-order mark belongs to the first value; the echo doubles backslashes, as timbl -o does
    train, test, out = tmp_path / "train.col", tmp_path / "test.col", tmp_path / "out"
    train.write_text("\ufeffa X\nb\u00a0c\tY\nb Z\n", encoding="utf-8")
    test.write_text("a X\nb\u00a0c Y\nq\\r Y\n", encoding="utf-8")
    assert run_maltpy("knn", "-f", train, "-t", test, "-o", out, "-k", "1", "-m", "O", "-w", "0").returncode == 0
    # "a" is not the training file's first value (that is BOM + "a"): unknown, it ties with all
    assert out.read_text(encoding="utf-8").splitlines() == ["a X X", "b\u00a0c Y Y", "q\\\\r Y X"]
    # a first line with as many commas as blanks is C4.5 to timbl: refused, not read otherwise
    c45 = tmp_path / "c45.col"
    c45.write_text("a,b c,d X\n")
    assert_one_line_error(run_in_process("knn", "-f", c45, "-t", test), f"{c45}:1: as many commas as blanks")


def test_knn_options_in_timbls_letters():
    assert parse_learner_options("", "knn") == {"k": 5, "m": "M", "L": 3, "d": "ID", "w": 1}
    assert parse_learner_options("-k7 -mo -L5 -dED:2:1 -w0", "knn") == {"k": 7, "m": "O", "L": 5, "d": "ED:2:1", "w": 0}
    assert parse_learner_options({"k": 3, "d": "il"}, "knn")["d"] == "IL"
    bad = {"-m J": "-m takes M or O", "-d ED": "-d takes Z, ID, IL or ED:a", "-k 0": "outside 1..100000",
           "-d ED:" + "9" * 400: "-d takes Z, ID, IL or ED:a",  # a weight of infinity
           "-w 5": "outside 0..4", "-c 1": "-c is not a knn option"}  # fmt: skip
    for options, message in bad.items():
        with pytest.raises(ValueError, match=re.escape(message)):
            parse_learner_options(options, "knn")


def test_maltpy_knn_errors_are_one_line(tmp_path):
    train, test, out = tmp_path / "train.col", tmp_path / "test.col", tmp_path / "out"
    train.write_text("a b X\n\nc d Y\n")
    test.write_text("a b X\n")
    assert run_maltpy("knn", "-f", train, "-t", test, "-o", out, "-k", "1").returncode == 0
    assert out.read_text() == "a b X X\n"
    out.unlink()
    assert_one_line_error(run_maltpy("knn", "-f", train, "-t", test, "-m", "J"), "command line: -m takes M or O")
    # the other errors by main in this process: a process's status and stderr, without a start each
    ragged = tmp_path / "ragged.col"
    ragged.write_text("a b X\nc Y\n")
    assert_one_line_error(run_in_process("knn", "-f", ragged, "-t", test, "-o", out),
                          f"{ragged}:2: 1 features and a class")  # fmt: skip
    wide = tmp_path / "wide.col"
    wide.write_text("\na b c X\n")
    assert_one_line_error(run_in_process("knn", "-f", train, "-t", wide, "-o", out),
                          f"{wide}:2: 3 features and a class")  # fmt: skip
    assert_one_line_error(run_in_process("knn", "-f", tmp_path / "none", "-t", test), f"{tmp_path / 'none'}: no such")
    empty = tmp_path / "empty.col"
    empty.write_text("\n")
    assert_one_line_error(run_in_process("knn", "-f", empty, "-t", test), f"{empty}: no instances")
    binary = tmp_path / "binary.col"
    binary.write_bytes(b"a b \xff\n")
    assert_one_line_error(run_in_process("knn", "-f", binary, "-t", test), f"{binary}:1: not UTF-8")
    assert not out.exists()
