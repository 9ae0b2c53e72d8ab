"""Shared paths and helpers for the tests.

Real data lives in ../shared beside the project (or where MALTPY_SHARED points); tests that need
it skip, saying so, only when that folder is absent.
"""

from __future__ import annotations

import csv
import fcntl
import importlib.util
import io
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

# One OpenMP thread for the whole suite, set before anything imports LIBSVM or NumPy: LIBSVM's
# threads would wait, spinning, between rows, and the suite's processes share two cores on CI.
os.environ.setdefault("OMP_NUM_THREADS", "1")

import pytest  # noqa: E402
from in_process import call_main  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("MALTPY_SHARED", ROOT.parent / "shared"))
DATA = SHARED / "data"
REFERENCE = SHARED / "reference" / "maltparser-1.9.2"
EXAMPLE = ROOT / "maltpy" / "example"
SWEMALT = DATA / "maltparser-examples" / "swemalt-mini"
SWEMALT_TRAIN = SWEMALT / "gold" / "sv-stb-dep-mini-train.conll"
SWEMALT_HELD_OUT = SWEMALT / "gold" / "sv-stb-dep-mini-test-00.conll"


def pytest_configure(config) -> None:
    """Compile maltpy's modules once, before the workers start (not in an xdist worker): the
    suite starts some hundreds of maltpy processes, and where PYTHONDONTWRITEBYTECODE is set
    (as on this project's machines) or the checkout is fresh, each would compile every module
    it imports from source again, some 0.15 s a process (a minute of the suite on two cores).
    An installed wheel has its bytecode from the installer; an editable install has none."""
    if not hasattr(config, "workerinput"):
        import compileall

        compileall.compile_dir(str(ROOT / "maltpy"), quiet=1, workers=1)


def _bench_script(name: str):
    """A module of scripts/ (which is no package), for the helpers the tests share with it."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


#: One sentence of at least n tokens made of real ones (scripts/bench_long_sentences.py).
long_sentence = _bench_script("bench_long_sentences").long_sentence

requires_shared = pytest.mark.skipif(
    not DATA.is_dir(), reason=f"shared data not found at {DATA} (clone the project beside ../shared)"
)


def as_from_a_terminal() -> None:
    """A ``preexec_fn``: the stopping signals at their defaults, as a terminal starts a command.
    The tests may run under nohup or a script's ``cmd &``, which ignore SIGHUP or SIGINT, and a
    process keeps an ignored signal ignored (maltpy honours nohup)."""
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, signal.SIG_DFL)


def run_maltpy(*args: str, input: bytes | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """Run ``python -m maltpy`` as a user would, capturing bytes."""
    return subprocess.run(
        [sys.executable, "-m", "maltpy", *map(str, args)], input=input, capture_output=True, cwd=cwd, timeout=600
    )


# Runs its arguments as a command, then prints the command's stdout and stderr lengths, its
# status and its peak resident memory in kB (Linux's ru_maxrss), then stdout and stderr.
_MEASURE = (
    "import resource, subprocess, sys; r = subprocess.run(sys.argv[1:], capture_output=True);"
    "print(len(r.stdout), len(r.stderr), r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss);"
    "sys.stdout.flush(); sys.stdout.buffer.write(r.stdout + r.stderr)"
)


@dataclass
class Measured:
    returncode: int
    stdout: bytes
    stderr: bytes
    peak_kb: int  # the peak memory of maltpy's process alone
    seconds: float


def run_maltpy_measured(*args: str, timeout: float = 300) -> Measured:
    """Run ``python -m maltpy`` in a fresh wrapper process that measures its one child's memory."""
    started = time.perf_counter()
    wrapper = subprocess.run([sys.executable, "-c", _MEASURE, sys.executable, "-m", "maltpy", *map(str, args)],
                             capture_output=True, timeout=timeout)  # fmt: skip
    seconds = time.perf_counter() - started
    head, _, rest = wrapper.stdout.partition(b"\n")
    out_length, err_length, status, peak = map(int, head.split())
    return Measured(status, rest[:out_length], rest[out_length : out_length + err_length], peak, seconds)


def run_in_process(*args: str, input: bytes | None = None) -> subprocess.CompletedProcess:
    """``maltpy ARGS`` by the command line's main in the test's process, with what a process of it
    would take and give on its standard streams (tests/in_process.py): for the many runs that
    check a message, where a process start would add half a second to each."""
    return call_main(*args, input=input, timeout=600)


def run_maltpy_measured_together(runs: list[list], timeout: float = 600, hang_s: float = 120) -> list[Measured]:
    """Each of ``runs`` (argument lists of ``maltpy``) by the command line's main, in turn, in one
    fresh process that measures itself (tests/in_process.py): each run's status, stdout, stderr
    and wall time, and as its ``peak_kb`` the process's peak memory when the run ended. That
    peak bounds the run's own: in a process of its own, the run would have started from no more
    memory than this process held when it began. A run still going after ``hang_s`` seconds is
    stopped and given status -1: a bound that catches hangs, not a measure of speed."""
    with tempfile.TemporaryDirectory() as folder:
        runs_path, results_path = Path(folder) / "runs.json", Path(folder) / "results.json"
        runs_path.write_text(json.dumps([[str(a) for a in args] for args in runs]), encoding="utf-8")
        command = [sys.executable, Path(__file__).parent / "in_process.py", runs_path, results_path, str(hang_s)]
        process = subprocess.run(command, capture_output=True, stdin=subprocess.DEVNULL, timeout=timeout)
        assert process.returncode == 0 and results_path.exists(), process.stderr.decode("utf-8", "replace")
        results = json.loads(results_path.read_text(encoding="utf-8"))
    return [Measured(r["status"], r["stdout"].encode("latin-1"), r["stderr"].encode("latin-1"), r["peak_kb"],
                     r["seconds"]) for r in results]  # fmt: skip


def parses_while_the_pipe_stays_open(*args: str, text: bytes, sentences: int, seconds: float) -> bytes:
    """``maltpy ARGS`` given ``sentences`` sentences on a pipe it keeps open: what it writes
    before the pipe closes (waiting at most ``seconds`` for every sentence's parse), checked to
    have come while the process was still waiting for more, and the run to end well."""
    process = subprocess.Popen([sys.executable, "-m", "maltpy", *map(str, args)],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
    try:
        started = time.monotonic()
        process.stdin.write(text)
        process.stdin.flush()
        out = b""
        while out.count(b"\n\n") < sentences and time.monotonic() - started < seconds:
            if select.select([process.stdout], [], [], 0.1)[0]:
                out += os.read(process.stdout.fileno(), 1 << 16)
        assert out.count(b"\n\n") == sentences, (out, time.monotonic() - started)
        assert process.poll() is None  # still waiting for more
    finally:
        process.stdin.close()
        process.wait(timeout=30)
    assert process.returncode == 0, process.stderr.read()
    return out


def assert_one_line_error(result: subprocess.CompletedProcess, where: str) -> str:
    """Exit status 2 and exactly one stderr line, ``maltpy: error: <where>...``, no traceback."""
    err = result.stderr.decode("utf-8")
    assert result.returncode == 2, err
    assert "Traceback" not in err
    assert err.endswith("\n") and err.count("\n") == 1, err
    assert err.startswith(f"maltpy: error: {where}"), err
    return err


def first_sentences(path: Path, count: int) -> str:
    """The first ``count`` sentences of a CoNLL file, as its text: real data for the claims that
    need no whole treebank."""
    return "\n\n".join(path.read_text(encoding="utf-8").split("\n\n")[:count]).rstrip("\n") + "\n\n"


def conll_columns(source) -> list[list[list[str]]]:
    """The sentences of a CoNLL file (a path, or an iterable of lines) as lists of the columns of
    their word lines, read straight from the text: for counts made independently of maltpy."""
    lines = open(source, encoding="utf-8") if isinstance(source, (str, os.PathLike)) else source
    out, current = [], []
    for raw in lines:
        raw = raw.rstrip("\n")
        if raw and not raw.startswith("#"):
            fields = raw.split("\t")
            if fields[0].isdigit():  # not a multiword token (3-4) or an empty node (8.1)
                current.append(fields)
        elif not raw and current:
            out.append(current)
            current = []
    return out + ([current] if current else [])


def made_once(tmp_path_factory, name: str, make) -> Path:
    """The file ``name`` that ``make(path)`` writes, made once in a run of the suite: in a folder
    that the run's worker processes share (pytest-xdist's, the parent of each worker's own), the
    first worker to ask makes it while the others wait for it, then read it. A ``make`` that
    fails leaves no file, and the next to ask tries again."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent
    folder = root / "made-once"
    folder.mkdir(exist_ok=True)
    path = folder / name
    with open(folder / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the lock file closes
        if not path.exists():
            part = folder / f"part-{os.getpid()}-{name}"
            make(part)
            part.rename(path)
    return path


def learned(tmp_path_factory, name: str, *args) -> Path:
    """``maltpy learn -q ARGS -m MODEL``, made once in a run of the suite (made_once)."""

    def make(path: Path) -> None:
        result = run_maltpy("learn", "-q", *args, "-m", path)
        assert result.returncode == 0, result.stderr.decode()

    return made_once(tmp_path_factory, name, make)


@pytest.fixture(scope="session")
def example_model(tmp_path_factory) -> Path:
    """``maltpy learn`` of the shipped example treebank with MaltParser's defaults (``-P
    maltparser``, not the ud profile plain learning gives CoNLL-U), its taggers too, learned once
    for the tests that parse with a small model."""
    return learned(tmp_path_factory, "en.mpm", "-i", EXAMPLE / "en-train.conllu", "-P", "maltparser")


EN_LINES_UD = DATA / "ud" / "UD_English-LinES"


@pytest.fixture(scope="session")
def en_lines_model(tmp_path_factory) -> Path:
    """A LIBLINEAR model of en_lines (UD, CoNLL-U) with MaltParser's defaults, learned once for the
    API, NLTK and Dask tests, which parse gold-tagged text: without taggers (their learning would double the fixture's
    time; tests/test_tagging_entry.py crosses the entry points with the example model's)."""
    if not DATA.is_dir():
        pytest.skip(f"shared data not found at {DATA}")
    return learned(tmp_path_factory, "en_lines.mpm", "-i", EN_LINES_UD / "en_lines-ud-train.conllu", "-tc", "none",
                   "-P", "maltparser")  # fmt: skip


@pytest.fixture(scope="session")
def en_lines_parsed(en_lines_model, tmp_path_factory) -> Path:
    """``maltpy parse`` of en_lines test with that model: what every API must give."""

    def make(path: Path) -> None:
        result = run_maltpy("parse", "-m", en_lines_model, "-i", EN_LINES_UD / "en_lines-ud-test.conllu", "-o", path)
        assert result.returncode == 0, result.stderr.decode()

    return made_once(tmp_path_factory, "en_lines-ud-test.conllu", make)


@pytest.fixture(scope="session")
def swemalt_model(tmp_path_factory):
    """``maltpy learn`` of swemalt-mini's training file, as MaltParser's reference runs learned
    it (its defaults, the algorithm and learner named, no taggers: the test files are tagged): a
    function (algorithm, learner) -> the model's path, each model learned once in a session for
    every test that reads it."""
    if not DATA.is_dir():
        pytest.skip(f"shared data not found at {DATA}")

    def model(algorithm: str, learner: str) -> Path:
        return learned(tmp_path_factory, f"swemalt-{algorithm}-{learner}.mpm", "-i", SWEMALT_TRAIN, "-a", algorithm,
                       "-l", learner, "-tc", "none")  # fmt: skip

    return model


@pytest.fixture(scope="session")
def swemalt_blend_members(tmp_path_factory, swemalt_model) -> list[Path]:
    """Three models of swemalt-mini's training file: arc-eager, and Covington's non-projective
    algorithm both ways (LIBLINEAR, the default; the first two are swemalt_model's)."""
    path = learned(tmp_path_factory, "swemalt-covnonproj-right-to-left.mpm", "-a", "covnonproj", "-pd", "right-to-left",
                   "-i", SWEMALT_TRAIN, "-tc", "none")  # fmt: skip
    return [swemalt_model("nivreeager", "liblinear"), swemalt_model("covnonproj", "liblinear"), path]


@pytest.fixture(scope="session")
def swemalt_blend(swemalt_blend_members, tmp_path_factory) -> Path:
    """``maltpy blend`` of those three members, weighed (learned, the default) on the held-out
    file SWEMALT_HELD_OUT: learned once for the blend and Dask tests."""
    args = [a for m in swemalt_blend_members for a in ("--member", f"-m {m}")]

    def make(path: Path) -> None:
        result = run_maltpy("blend", "-q", "-i", SWEMALT_TRAIN, "-m", path, "--held-out", SWEMALT_HELD_OUT, *args)
        assert result.returncode == 0, result.stderr.decode()

    return made_once(tmp_path_factory, "swemalt-blend.mpm", make)


# --- learning and parsing the reference's treebanks (test_parser, test_maltparser_parity) --------------

TEST = SWEMALT / "gold" / "sv-stb-dep-mini-test.conll"
BLIND = SWEMALT / "input" / "sv-stb-dep-mini-test-blind.conll"


def reference(name: str) -> dict:
    rows = csv.DictReader(open(REFERENCE / "scores.tsv", encoding="utf-8"), delimiter="\t")
    return next(r for r in rows if r["name"] == name)


def learn_and_parse(tmp_path, train, test, *options: str) -> tuple[bytes, dict]:
    model = tmp_path / "m.mpm"
    result = run_maltpy("learn", "-q", "-P", "maltparser", "-tc", "none", "-i", train, "-m", model, *options)
    assert result.returncode == 0, result.stderr.decode()
    return parse_and_score(tmp_path, model, test)


def parse_and_score(tmp_path, model, test) -> tuple[bytes, dict]:
    """The model's parse of ``test`` and its scores against the gold file (TEST for BLIND)."""
    parsed = tmp_path / "parsed.conll"
    result = run_maltpy("parse", "-m", model, "-i", test, "-o", parsed)
    assert result.returncode == 0, result.stderr.decode()
    scores = json.loads(run_maltpy("eval", "--json", test if "blind" not in str(test) else TEST, parsed).stdout)
    return parsed.read_bytes(), scores


def assert_trees(data: bytes, expected_sentences: int) -> None:
    """Every sentence a well-formed tree: the strict reader checks IDs, heads in range and
    cycles; here also that every word has a head and a label."""
    from maltpy.data.conll import ConllReader
    from maltpy.data.tree import find_cycle

    sentences = list(ConllReader(io.BytesIO(data), "parsed"))
    assert len(sentences) == expected_sentences
    for s in sentences:
        heads = s.heads
        assert heads is not None and find_cycle(heads) is None and min(heads[1:]) >= 0
        assert all(label not in ("", "_") for label in s.labels[1:])


# --- parse: formats, pipelines, determinism --------------------------------------------------------
