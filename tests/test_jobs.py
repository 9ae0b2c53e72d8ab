"""``maltpy parse --jobs N``: the same bytes as ``--jobs 1``, the same errors, clean ends."""

import concurrent.futures
import os
import re
import signal
import subprocess
import sys
import time

import pytest
from conftest import (
    DATA,
    EXAMPLE,
    as_from_a_terminal,
    assert_one_line_error,
    parses_while_the_pipe_stays_open,
    requires_shared,
    run_in_process,
    run_maltpy,
)

import maltpy.data.lines as lines_module
import maltpy.errors
import maltpy.run.jobs as jobs_module
from maltpy.data.conll import ConllReader

pytestmark = requires_shared
CONLLX, UD = DATA / "conllx", DATA / "ud"
# Runs maltpy with batches of at most the number of bytes given first and its input read 4 kB at
# a time, so that a small file makes many batches and every worker has several in flight.
SMALL_BATCHES = "import sys, maltpy.data.lines, maltpy.run.jobs; maltpy.data.lines._BLOCK_BYTES = 1 << 12; "
SMALL_BATCHES += "maltpy.run.jobs.BATCH_BYTES = int(sys.argv.pop(1)); from maltpy.cli import main; sys.exit(main())"

CASES = {  # name: (learning options, test file, parsing options, how --jobs reads it)
    "nivreeager-liblinear-conllx": (
        ["-i", CONLLX / "sv_talbanken-ud-dev.conllx"], CONLLX / "sv_talbanken-ud-test.conllx", [], "small batches"),
    "covnonproj-bounded-conllu-multiword-tokens": (
        ["-a", "covnonproj", "-i", UD / "UD_English-ParTUT" / "en_partut-ud-dev.conllu"],
        UD / "UD_English-ParTUT" / "en_partut-ud-test.conllu", ["-cd", "1"], "pipe"),
    "nivreeager-libsvm-pseudo-projective": (
        ["-l", "libsvm", "-pp", "head+path", "-i", UD / "UD_English-ParTUT" / "en_partut-ud-dev.conllu"],
        UD / "UD_English-ParTUT" / "en_partut-ud-test.conllu", [], "small batches"),
}  # fmt: skip


@pytest.fixture(scope="module")
def learned(tmp_path_factory):
    """A model of each case, learned when a test first asks for it."""
    folder, made = tmp_path_factory.mktemp("jobs-models"), {}

    def model(case: str):
        if case not in made:
            path = folder / f"{case}.mpm"
            result = run_maltpy("learn", "-q", "-tc", "none", *CASES[case][0], "-m", path)
            assert result.returncode == 0, result.stderr
            made[case] = path
        return made[case]

    return model


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid``."""
    found = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rpartition(")")[2].split()
        except (OSError, ValueError):
            continue
        if fields and int(fields[1]) == pid:
            found.append(int(entry))
    return sorted(found)


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.parametrize("case", CASES)
def test_jobs_write_the_bytes_of_one_process(learned, tmp_path, case):
    model, (_, test, options, how) = learned(case), CASES[case]
    one = run_maltpy("parse", "-m", model, "-i", test, *options)
    assert one.returncode == 0 and one.stderr == b"", one.stderr
    if how == "small batches":  # dozens of batches from a file, two in flight on each worker
        result = run_in_small_batches(15_000, "parse", "-m", model, "-i", test, "-o", tmp_path / "out", "--jobs", 2,
                                      *options)  # fmt: skip
        assert result.returncode == 0 and result.stderr == b"", result.stderr
        assert (tmp_path / "out").read_bytes() == one.stdout
    else:  # standard input from a pipe, workers started as batches come (-q: no warning if 3 is above the cores)
        result = run_maltpy("parse", "-q", "-m", model, "--jobs", 3, *options, input=test.read_bytes())
        assert result.returncode == 0 and result.stderr == b"", result.stderr
        assert result.stdout == one.stdout


def run_in_small_batches(batch_bytes: int, *args, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", SMALL_BATCHES, str(batch_bytes), *map(str, args)],
                          capture_output=True, timeout=600, env=env and {**os.environ, **env})  # fmt: skip


def word_lines(lines: list[bytes], start: int) -> list[int]:
    """The numbers (0-based) of the word lines of the sentence after ``start``."""
    first = next(n for n in range(start, len(lines)) if lines[n] and not lines[n - 1])
    return list(range(first, lines.index(b"", first)))


def with_a_fault(lines: list[bytes], fault: str) -> tuple[list[bytes], int, str]:
    """en_lines test with a fault 2/5 into the file: (its lines, the 0-based number of the line
    reported, what the message says about it)."""
    words = word_lines(lines, 8000)
    later = word_lines(lines, 9000)
    if fault == "columns":
        lines[words[2]] = lines[words[2]].replace(b"\t", b" ", 1)
        return lines, words[2], "expected 10 tab-separated columns, found 9"
    if fault == "two empty lines":
        lines.insert(words[-1] + 1, b"")
        return lines, words[-1] + 2, "empty line where a sentence should begin"
    if fault == "not UTF-8":
        lines[words[1]] = lines[words[1]].replace(b"\t", b"\t\xff", 1)
        return lines, words[1], "not UTF-8 text: byte 0xff at column"
    if fault == "a line too long, after a fault":  # the main process meets the long line, a worker the fault
        lines[words[2]] = lines[words[2]].replace(b"\t", b" ", 1)
        lines[later[3]] += b"x" * 5000
        return lines, words[2], "expected 10 tab-separated columns, found 9"
    if fault == "a line too long, in a sentence with a fault":  # the sentence's lines are checked first
        lines[words[1]] = lines[words[1]].replace(b"\t", b" ", 1)
        lines[words[3]] += b"x" * 5000
        return lines, words[1], "expected 10 tab-separated columns, found 9"
    assert fault == "a line too long"
    lines[words[3]] += b"x" * 5000
    return lines, words[3], "a line longer than 4000 bytes"


FAULTS = ["columns", "two empty lines", "not UTF-8", "a line too long", "a line too long, after a fault",
          "a line too long, in a sentence with a fault"]  # fmt: skip


@pytest.mark.parametrize("fault", FAULTS)
def test_a_fault_mid_file_is_the_same_error_and_leaves_no_output(example_model, tmp_path, fault):
    lines, number, message = with_a_fault((CONLLX / "en_lines-ud-test.conllx").read_bytes().split(b"\n"), fault)
    bad = tmp_path / "bad.conllx"
    bad.write_bytes(b"\n".join(lines))
    errors = []
    for jobs in (1, 2):
        result = run_in_small_batches(25_000, "parse", "-m", example_model, "-i", bad, "-o", tmp_path / "out",
                                      "--jobs", jobs, env={"MALTPY_MAX_LINE_BYTES": "4000"})  # fmt: skip
        errors.append(assert_one_line_error(result, f"{bad}:{number + 1}: {message}"))
    assert errors[0] == errors[1]
    assert os.listdir(tmp_path) == ["bad.conllx"]


def test_a_worker_stopped_by_an_input_error_is_that_error_not_its_end(example_model, tmp_path):
    """The worker of the 4th of 10 batches stops at its first line's fault while the main process
    sends it the 6th (bigger than a pipe holds): the error is the fault's line, as with --jobs 1,
    not "worker 2 stopped"."""
    text = (CONLLX / "en_lines-ud-test.conllx").read_bytes() * 3
    size = len(text) // 10
    start = text.index(b"\n\n", 3 * size) + 2  # the first sentence of the 4th batch
    bad = tmp_path / "bad.conllx"
    bad.write_bytes(text[:start] + text[start:].replace(b"\t", b" ", 1))
    line = text.count(b"\n", 0, start) + 1
    for jobs in (1, 2):
        result = run_in_small_batches(size, "parse", "-m", example_model, "-i", bad, "-o", tmp_path / "out",
                                      "--jobs", jobs)  # fmt: skip
        assert_one_line_error(result, f"{bad}:{line}: expected 10 tab-separated columns, found 9")


def test_jobs_read_a_byte_order_mark_and_crlf_line_ends_as_one_process_does(example_model, tmp_path):
    text = (CONLLX / "en_lines-ud-test.conllx").read_bytes()
    crlf = tmp_path / "crlf.conllx"
    crlf.write_bytes(b"\xef\xbb\xbf" + text.replace(b"\n", b"\r\n"))
    one = run_maltpy("parse", "-m", example_model, "-i", crlf)
    assert one.returncode == 0 and one.stdout.startswith(b"1\t"), one.stderr
    result = run_in_small_batches(35_000, "parse", "-m", example_model, "-i", crlf, "--jobs", 2)
    assert result.returncode == 0 and result.stderr == b"", result.stderr
    assert result.stdout == one.stdout


@pytest.mark.parametrize("jobs", [2, 3])
@pytest.mark.parametrize("batch_bytes", [40_000, 300, 1 << 30])
def test_a_file_is_cut_into_even_batches_a_multiple_of_the_workers_in_number(monkeypatch, jobs, batch_bytes):
    """Each batch ends after an empty line, the batches together are the file, none is longer
    than BATCH_BYTES unless it is one sentence longer than that (300 bytes: most are); when every
    sentence is shorter, their number is a multiple of ``jobs``, their sizes within a sentence of
    each other."""
    path = UD / "UD_English-ParTUT" / "en_partut-ud-test.conllu"
    monkeypatch.setattr(jobs_module, "BATCH_BYTES", batch_bytes)
    monkeypatch.setattr(lines_module, "_BLOCK_BYTES", 1 << 12)
    with open(path, "rb") as stream:
        batches = list(jobs_module._batches(ConllReader(stream, str(path), blind=True), jobs))
    text = path.read_bytes()
    assert b"".join(t for _, t, _, _ in batches) == text
    assert all(t.endswith(b"\n\n") and not quiet and error is None for _, t, quiet, error in batches)
    assert [first for first, _, _, _ in batches] == [1 + text.count(b"\n", 0, text.index(t)) for _, t, _, _ in batches]
    assert all(len(t) <= batch_bytes or t.count(b"\n\n") == 1 for _, t, _, _ in batches)
    longest = max(map(len, text.split(b"\n\n")))
    if batch_bytes < longest:
        assert sum(t.count(b"\n\n") == 1 for _, t, _, _ in batches) > len(batches) / 2
    else:
        assert len(batches) % jobs == 0 and len(batches) >= jobs
        sizes = [len(t) for _, t, _, _ in batches]
        assert max(sizes) - min(sizes) <= 2 * longest


def test_model_errors_come_first_and_usage_errors_are_clicks(example_model, tmp_path):
    damaged, bad = tmp_path / "damaged.mpm", tmp_path / "bad.conllx"
    damaged.write_bytes(b"PK\x03\x04 not a zip archive")
    bad.write_text("1\tno\ttabs enough\n")
    for jobs in ("1", "2"):  # the model is checked before the input, with workers as without
        run = run_in_process if jobs == "1" else run_maltpy  # one process and no workers: main here will do
        assert_one_line_error(run("parse", "-m", damaged, "-i", bad, "--jobs", jobs), f"{damaged}: ")
    assert_one_line_error(run_maltpy("parse", "-m", damaged, "--jobs", "2", input=b""), f"{damaged}: ")
    assert_one_line_error(run_maltpy("parse", "-m", example_model, "-cd", "1", "--jobs", "2", input=b""),
                          "command line: -cd: bounds covnonproj only")  # fmt: skip
    for jobs in ("0", "-3"):  # click's refusals, by main in this process: a process's status and stderr
        err = assert_one_line_error(run_in_process("parse", "-m", example_model, "--jobs", jobs), "command line: ")
        assert f"Invalid value for '-j' / '--jobs': {jobs} is not in the range 1<=x<=1024" in err


@pytest.mark.parametrize("jobs", [1, 2])
@pytest.mark.parametrize("unbuffered", ["", "1"])
def test_a_closed_pipe_ends_the_run_with_141(example_model, tmp_path, jobs, unbuffered):
    """Also with an unbuffered standard output, whose writes to a pipe whose reader has gone take
    a part of the bytes before the next fails."""
    big = tmp_path / "big.conllx"
    big.write_bytes((CONLLX / "en_lines-ud-test.conllx").read_bytes() * 3)
    command = f"cat '{big}' | '{sys.executable}' -m maltpy parse --jobs {jobs} -m '{example_model}' | head -n 1"
    pipeline = subprocess.run(["bash", "-c", f"{command}; exit ${{PIPESTATUS[1]}}"], capture_output=True, timeout=60,
                              env={**os.environ, "PYTHONUNBUFFERED": unbuffered})  # fmt: skip
    assert pipeline.returncode == 141 and pipeline.stderr == b"", pipeline
    assert pipeline.stdout.startswith(b"1\t")


def start_parse(model, source, out, *options, preexec=as_from_a_terminal) -> tuple[subprocess.Popen, list[int]]:
    """A --jobs 2 parse of ``source`` into ``out`` in batches of 2000 lines, once it has written its first
    batch; its workers. ``preexec`` sets the signals' dispositions."""
    command = [sys.executable, "-c", SMALL_BATCHES, "100000", "parse", "--jobs", "2", "-m", model, "-i", source]
    process = subprocess.Popen([*command, "-o", out, *options], stderr=subprocess.PIPE, preexec_fn=preexec)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not any(p.stat().st_size for p in out.parent.glob(f".{out.name}.*")):
        assert process.poll() is None, process.stderr.read()
        time.sleep(0.02)
    workers = children(process.pid)
    assert len(workers) == 2
    return process, workers


@pytest.mark.parametrize("signum, status", [(signal.SIGTERM, 143), (signal.SIGINT, 130), (signal.SIGHUP, 129)])
def test_a_signal_mid_run_stops_every_worker_and_leaves_no_output(example_model, tmp_path, signum, status):
    big, out = tmp_path / "big.conllx", tmp_path / "out" / "parsed.conllx"
    big.write_bytes((CONLLX / "en_lines-ud-test.conllx").read_bytes() * 6)
    out.parent.mkdir()
    process, workers = start_parse(example_model, big, out)
    process.send_signal(signum)
    _, err = process.communicate(timeout=60)
    assert process.returncode == status, err
    assert b"Traceback" not in err and err.count(b"\n") <= 2, err
    assert not any(alive(pid) for pid in workers)
    assert list(out.parent.iterdir()) == []


def test_nohup_keeps_a_parse_going_through_a_hangup(example_model, tmp_path):
    # nohup starts a command with SIGHUP ignored: maltpy leaves it so, and the parse ends whole
    big, out = tmp_path / "big.conllx", tmp_path / "out" / "parsed.conllx"
    big.write_bytes((CONLLX / "en_lines-ud-test.conllx").read_bytes() * 6)
    out.parent.mkdir()

    def nohup():
        as_from_a_terminal()
        signal.signal(signal.SIGHUP, signal.SIG_IGN)

    process, _ = start_parse(example_model, big, out, preexec=nohup)
    process.send_signal(signal.SIGHUP)
    _, err = process.communicate(timeout=120)
    assert process.returncode == 0 and err == b"", err
    assert out.read_bytes().count(b"\n\n") == big.read_bytes().count(b"\n\n")


def test_a_killed_worker_is_one_line_and_stops_the_others(example_model, tmp_path):
    big, out = tmp_path / "big.conllx", tmp_path / "out" / "parsed.conllx"
    big.write_bytes((CONLLX / "en_lines-ud-test.conllx").read_bytes() * 6)
    out.parent.mkdir()
    process, workers = start_parse(example_model, big, out)
    os.kill(workers[1], signal.SIGKILL)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 2, err
    assert re.fullmatch(rf"maltpy: error: parsing worker [12] of 2 \(process {workers[1]}\) was killed by SIGKILL\n",
                        err.decode()), err  # fmt: skip
    assert not any(alive(pid) for pid in workers)
    assert list(out.parent.iterdir()) == []


def test_a_writer_gets_its_parses_while_the_pipe_stays_open(example_model):
    text = (EXAMPLE / "en-test.conllu").read_bytes()
    three = b"\n\n".join(text.split(b"\n\n")[:3]) + b"\n\n"
    out = parses_while_the_pipe_stays_open("parse", "-m", example_model, "--jobs", "2", text=three, sentences=3,
                                           seconds=30)  # fmt: skip
    assert out == run_maltpy("parse", "-m", example_model, input=three).stdout


def test_jobs_are_bounded_by_the_cores_and_the_memory_with_a_warning(monkeypatch):
    said = []
    monkeypatch.setattr(jobs_module, "usable_cores", lambda: 4)
    monkeypatch.setattr(jobs_module, "available_memory", lambda: 1000 << 20)
    assert jobs_module.bound_jobs(3, 100 << 20, said.append) == 3 and said == []
    assert jobs_module.bound_jobs(1024, 100 << 20, said.append) == 4
    assert said == ["--jobs 1024 lowered to 4: 4 cores"]
    assert jobs_module.bound_jobs(4, 400 << 20, said.append) == 2
    assert said[-1] == "--jobs 4 lowered to 2: memory for 2 of about 400 MB each (1000 MB available)"
    assert jobs_module.bound_jobs(4, 4000 << 20, None) == 1  # at least one, and no one told
    monkeypatch.setattr(jobs_module, "available_memory", lambda: None)  # unknown: the cores alone
    assert jobs_module.bound_jobs(8, 4000 << 20, None) == 4


def test_a_small_input_gets_no_more_workers_than_batches(example_model, tmp_path, monkeypatch):
    monkeypatch.setattr(jobs_module, "usable_cores", lambda: 4)
    monkeypatch.setattr(jobs_module, "available_memory", lambda: None)
    test, model = EXAMPLE / "en-test.conllu", str(example_model)
    assert jobs_module.workers_for(1024, model, [str(test)], None) == 1  # one batch: maltpy's own process parses
    assert jobs_module.workers_for(1024, model, [None, str(test)], None) == 4  # a pipe: started as batches come
    big = tmp_path / "big.conllx"
    big.write_bytes((CONLLX / "en_lines-ud-test.conllx").read_bytes() * 9)  # 9 MB: two batches
    assert jobs_module.workers_for(1024, model, [str(big)], None) == 2
    assert jobs_module.workers_for(1024, model, [str(big), str(test)], None) == 2


def test_jobs_1024_on_a_small_input_parse_as_one_process_does(example_model):
    test = EXAMPLE / "en-test.conllu"
    one = run_maltpy("parse", "-m", example_model, "-i", test)
    for source in ({"input": None}, {"input": test.read_bytes()}):  # a file, a pipe
        arguments = ["parse", "-m", example_model, "--jobs", "1024"] + (["-i", test] if source["input"] is None else [])
        result = run_maltpy(*arguments, **source)
        assert result.returncode == 0 and result.stdout == one.stdout, result.stderr
        warning = re.fullmatch(r"maltpy: warning: --jobs 1024 lowered to ([0-9]+): [^\n]*(cores?|memory)[^\n]*\n",
                               result.stderr.decode())  # fmt: skip
        assert warning and 1 <= int(warning[1]) <= len(os.sched_getaffinity(0)), result.stderr
        quiet = run_maltpy(*arguments, "-q", **source)
        assert quiet.returncode == 0 and quiet.stdout == one.stdout and quiet.stderr == b""


def test_a_worker_starts_when_a_batch_comes_for_it(example_model):
    """From a pipe whose writer has sent one sentence and waits for its parse: one worker runs."""
    text = (EXAMPLE / "en-test.conllu").read_bytes()
    one = text.split(b"\n\n")[0] + b"\n\n"
    process = subprocess.Popen([sys.executable, "-m", "maltpy", "parse", "-q", "--jobs", "2", "-m", example_model],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
    try:
        process.stdin.write(one)
        process.stdin.flush()
        assert process.stdout.read1(1 << 16).startswith(b"# sent_id")
        assert len(children(process.pid)) == 1
    finally:
        process.stdin.close()
        process.wait(timeout=60)
    assert process.returncode == 0, process.stderr.read()


def test_the_main_process_imports_no_numpy(example_model):
    # It only reads, cuts and writes (jobs.py): NumPy's load, and its thread settings, are the
    # workers'. maltpy's command line reads its options' choices without it, blend's too.
    report = ("import sys; from maltpy.cli import main; s = main();"
              " sys.stderr.write(str('numpy' in sys.modules)); sys.exit(s)")
    text = (EXAMPLE / "en-test.conllu").read_bytes()
    result = subprocess.run([sys.executable, "-c", report, "parse", "-q", "--jobs", "2", "-m", example_model],
                            input=text, capture_output=True, timeout=600)  # fmt: skip
    assert result.returncode == 0 and result.stdout == run_maltpy("parse", "-m", example_model, input=text).stdout
    assert result.stderr == b"False"


# A sitecustomize module (on PYTHONPATH, imported as every process starts) that makes each load
# of a model warn twice: a MaltpyWarning, and a RuntimeWarning as a library might give.
LOADS_WARN = """
import warnings

import maltpy.load
from maltpy.errors import MaltpyWarning

_load = maltpy.load.load


def _warning_load(*args, **kwargs):
    warnings.warn("the model was loaded", MaltpyWarning)
    warnings.warn("a library's warning", RuntimeWarning)
    return _load(*args, **kwargs)


maltpy.load.load = _warning_load
"""


def test_a_warning_of_the_workers_is_shown_once_as_the_main_process_shows_its_own(tmp_path):
    """Warnings given while a model loads (or parses) in --jobs workers go to the main process,
    which shows each once, as it shows its own: what --jobs 1 says. Each worker printed its
    own, raw."""
    (tmp_path / "sitecustomize.py").write_text(LOADS_WARN)
    env = {"PYTHONPATH": os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")]))}
    model = DATA.parent / "reference" / "maltparser-mco" / "sv-nivreeager-liblinear-malt1.9.2.mco"
    test = DATA / "maltparser-examples" / "swemalt-mini" / "input" / "sv-stb-dep-mini-test-blind.conll"
    one, two = (run_in_small_batches(15_000, "parse", "-m", model, "-i", test, "-o", tmp_path / f"{jobs}.conll",
                                     "--jobs", jobs, env=env) for jobs in (1, 2))  # fmt: skip
    assert one.returncode == 0 and two.returncode == 0, two.stderr
    assert (tmp_path / "1.conll").read_bytes() == (tmp_path / "2.conll").read_bytes()
    said = one.stderr.decode().splitlines()  # the MaltpyWarning as maltpy shows it, the other as Python does
    assert said[0] == "maltpy: warning: the model was loaded" and len(said) == 3, said
    assert said[1].endswith("sitecustomize.py:12: RuntimeWarning: a library's warning"), said
    assert [line for line in two.stderr.splitlines() if b" lowered to " not in line] == one.stderr.splitlines()


def _fails(message: str, line: int) -> None:
    raise maltpy.errors.MaltpyError(message, "in a worker", line)


def _warns(value: int) -> int:
    import warnings

    warnings.warn("a task's warning", RuntimeWarning, stacklevel=1)
    return value


def test_tasks_run_functions_in_worker_processes_and_stop_at_once():
    # optimize's pool: functions and their arguments go to worker processes of parse's kind,
    # values and exceptions come back; stop() kills the workers, failing what runs or waits
    from maltpy.run.processes import Tasks

    tasks = Tasks(2)
    try:
        assert [f.result() for f in [tasks.submit(pow, 2, n) for n in range(6)]] == [1, 2, 4, 8, 16, 32]
        assert tasks.submit(os.getpid).result() != os.getpid()
        assert len(tasks.processes) == 2  # no more workers than asked
        with pytest.warns(RuntimeWarning, match="a task's warning") as warned:  # once, from every worker
            assert [f.result() for f in [tasks.submit(_warns, n) for n in range(4)]] == [0, 1, 2, 3]
        assert len(warned) == 1
        error = tasks.submit(_fails, "a bad trial", 7).exception()
        assert isinstance(error, maltpy.errors.MaltpyError) and (error.message, error.line) == ("a bad trial", 7)
        running = [tasks.submit(time.sleep, 60) for _ in range(3)]
        tasks.stop()
        assert all(isinstance(f.exception(timeout=0), concurrent.futures.BrokenExecutor) for f in running)
        assert all(p.returncode is not None for p in tasks.processes)
        with pytest.raises(concurrent.futures.BrokenExecutor):
            tasks.submit(pow, 2, 2)
    finally:
        tasks.stop()


def test_a_task_worker_that_dies_breaks_the_pool():
    from maltpy.run.processes import Tasks

    tasks = Tasks(1)
    try:
        dying, waiting = tasks.submit(os._exit, 3), tasks.submit(pow, 2, 2)
        assert "stopped with status 3" in str(dying.exception())
        assert isinstance(waiting.exception(), concurrent.futures.BrokenExecutor)
    finally:
        tasks.shutdown()
