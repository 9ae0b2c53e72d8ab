"""Standard streams and file permissions, as every command meets them: a command started with
standard input, output or error closed (``<&-``, ``>&-``, ``2>&-``), or with standard output on a
full device, ends with one error line and status 2, or works; a file maltpy may not read or a
folder it may not write is named, with why."""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys

import pytest
from conftest import EXAMPLE, assert_one_line_error, run_maltpy

TRAIN, TEST = EXAMPLE / "en-train.conllu", EXAMPLE / "en-test.conllu"


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, str]:
    """A model of the example treebank and two files of TiMBL's columns."""
    folder = tmp_path_factory.mktemp("streams")
    model = folder / "en.mpm"
    assert run_maltpy("learn", "-q", "-i", TRAIN, "-m", model).returncode == 0
    (folder / "train.col").write_text("a b X\na c Y\nb c X\n")
    (folder / "test.col").write_text("a b X\nb b Y\n")
    return {"model": str(model), "train_col": str(folder / "train.col"), "test_col": str(folder / "test.col")}


# Each command reading its input from a file and writing its result on standard output.
TO_STDOUT = {
    "parse": ["parse", "-m", "{model}", "-i", TEST],
    "eval": ["eval", TEST, TEST],
    "view": ["view", "-i", TEST],
    "convert": ["convert", "--to", "conllx", "-i", TEST],
    "oracle": ["oracle", "-i", TEST],
    "proj": ["proj", "-pp", "head", "-i", TEST],
    "deproj": ["deproj", "-pp", "head", "-i", TEST],
    "info": ["info", "-m", "{model}"],
    "config": ["config", "-a", "stackeager"],
    "knn": ["knn", "-f", "{train_col}", "-t", "{test_col}"],
    "parse --jobs": ["parse", "--jobs", "2", "-m", "{model}", "-i", TEST],
}
# Each command reading standard input when no file is given.
FROM_STDIN = {
    "learn": ["learn", "-m", "{out}"],
    "parse": ["parse", "-m", "{model}", "-o", "{out}"],
    "parse --jobs": ["parse", "--jobs", "2", "-m", "{model}", "-o", "{out}"],
    "eval": ["eval", TEST, "-"],
    "view": ["view", "-o", "{out}.svg"],
    "convert": ["convert", "--to", "conllx", "-o", "{out}"],
    "oracle": ["oracle"],
    "proj": ["proj", "-pp", "head", "-o", "{out}"],
    "deproj": ["deproj", "-pp", "head", "-o", "{out}"],
}


def run(arguments: list, files: dict, tmp_path, closed: int | None = None, stdout=subprocess.PIPE):
    """maltpy with the arguments (``{model}``, ``{out}`` ... filled in), standard stream ``closed``
    closed as the shell's ``<&-`` closes it."""
    names = {**files, "out": str(tmp_path / "out")}
    args = [str(a).format(**names) for a in arguments]
    return subprocess.run([sys.executable, "-m", "maltpy", *args], stdin=subprocess.DEVNULL, stdout=stdout,
                          stderr=subprocess.PIPE, preexec_fn=None if closed is None else lambda: os.close(closed),
                          timeout=300)  # fmt: skip


@pytest.mark.parametrize("command", FROM_STDIN)
def test_a_command_that_reads_a_closed_standard_input_says_so(files, tmp_path, command):
    result = run(FROM_STDIN[command], files, tmp_path, closed=0)
    assert_one_line_error(result, "<stdin>: standard input is closed")
    assert result.stdout == b"" and os.listdir(tmp_path) == []  # no model, no output


@pytest.mark.parametrize("command", ["parse", "info", "config", "knn"])
def test_a_command_works_with_standard_input_closed_when_it_does_not_read_it(files, tmp_path, command):
    result = run(TO_STDOUT[command], files, tmp_path, closed=0)
    assert result.returncode == 0 and result.stdout.endswith(b"\n") and b"error" not in result.stderr, result.stderr


@pytest.mark.parametrize("command", TO_STDOUT)
def test_a_result_for_a_closed_standard_output_is_an_error_not_lost(files, tmp_path, command):
    assert_one_line_error(run(TO_STDOUT[command], files, tmp_path, closed=1), "<stdout>: standard output is closed")


def test_a_closed_standard_output_stops_a_command_before_its_work(files, tmp_path):
    report = tmp_path / "report.html"  # eval writes its report, then its scores on standard output
    result = run(["eval", TEST, TEST, "--html", report], files, tmp_path, closed=1)
    assert_one_line_error(result, "<stdout>: standard output is closed")
    assert not report.exists()


@pytest.mark.parametrize("command", TO_STDOUT)
def test_a_result_on_a_full_device_is_an_error_naming_standard_output(files, tmp_path, command):
    with open("/dev/full", "wb") as full:
        result = run(TO_STDOUT[command], files, tmp_path, stdout=full)
    assert_one_line_error(result, "<stdout>: cannot write: No space left on device")


def test_learn_writes_its_model_with_standard_output_closed(files, tmp_path):
    result = run(["learn", "-i", TRAIN, "-m", "{out}"], files, tmp_path, closed=1)
    assert result.returncode == 0 and (tmp_path / "out").stat().st_size > 0, result.stderr


@pytest.mark.parametrize("command", TO_STDOUT)
def test_with_standard_error_closed_a_command_writes_its_result_alone(files, tmp_path, command):
    result = run(TO_STDOUT[command], files, tmp_path, closed=2)
    assert result.returncode == 0 and result.stdout.endswith(b"\n") and b"maltpy:" not in result.stdout


@pytest.mark.parametrize("arguments", [["eval", TEST, "absent.conllu"], ["parse", "-m", "{model}", "--no-such"],
                                       ["learn", "-i", TRAIN, "-m", "{out}", "-F", "absent.txt"]])  # fmt: skip
def test_with_standard_error_closed_an_error_is_the_status_alone(files, tmp_path, arguments):
    result = run(arguments, files, tmp_path, closed=2)
    assert result.returncode == 2 and result.stdout == b"" and os.listdir(tmp_path) == []  # not on stdout


def without_root_powers() -> None:
    """A ``preexec_fn``: the root user, whom file permissions do not stop, gives up the powers that
    let it past them (the capabilities DAC_OVERRIDE and DAC_READ_SEARCH, dropped from the bounding
    set that its next program starts with), so that a file of mode 000 is unreadable to it too."""
    if os.geteuid() == 0:
        libc = ctypes.CDLL(None, use_errno=True)
        for capability in (1, 2):  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH
            if libc.prctl(24, capability, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
                raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP)")


def test_a_file_maltpy_may_not_read_or_a_folder_it_may_not_write_says_permission_denied(files, tmp_path):
    model, closed, shut = tmp_path / "m.mpm", tmp_path / "closed", tmp_path / "shut"
    model.write_bytes(open(files["model"], "rb").read())
    closed.write_text("guide:\n  learner: liblinear\n")
    shut.mkdir()
    for path in (model, closed):
        path.chmod(0)
    shut.chmod(0o555)
    cases = [  # arguments, what the error line starts with
        (["parse", "-m", model, "-i", TEST], f"{model}: cannot read model file: Permission denied"),
        (["info", "-m", model], f"{model}: cannot read model file: Permission denied"),
        (["parse", "--jobs", "2", "-m", model, "-i", TEST], f"{model}: cannot read model file: Permission denied"),
        (["learn", "-c", closed, "-i", TRAIN, "-m", tmp_path / "x.mpm"], f"{closed}: cannot read config file"),
        (["learn", "-F", closed, "-i", TRAIN, "-m", tmp_path / "x.mpm"], f"{closed}: cannot read feature model"),
        (["convert", "--to", "conllx", "-i", closed], f"{closed}: cannot read file: Permission denied"),
        (["eval", TEST, closed], f"{closed}: cannot read file: Permission denied"),
        (["learn", "-i", TRAIN, "-m", shut / "x.mpm"], f"{shut / 'x.mpm'}: cannot write: the folder {shut} is not"),
        (["convert", "--to", "conllx", "-i", TEST, "-o", shut / "x"], f"{shut / 'x'}: cannot write: the folder"),
        (["learn", "-i", TRAIN, "-m", tmp_path / "x.mpm", "--save-instances", shut], f"{shut / 'main.col'}: cannot"),
        (["optimize", "-i", TRAIN, "-o", shut / "opt"], f"{shut / 'opt'}: cannot make the output folder: Permission"),
    ]
    for arguments, expected in cases:
        result = subprocess.run([sys.executable, "-m", "maltpy", *map(str, arguments)], capture_output=True,
                                preexec_fn=without_root_powers, timeout=300)  # fmt: skip
        assert_one_line_error(result, expected)
    piped = subprocess.run([sys.executable, "-m", "maltpy", "parse", "--jobs", "2", "-m", model],
                           input=TEST.read_bytes(), capture_output=True, preexec_fn=without_root_powers,
                           timeout=300)  # fmt: skip
    assert_one_line_error(piped, f"{model}: cannot read model file: Permission denied")
    assert os.listdir(shut) == [] and sorted(os.listdir(tmp_path)) == ["closed", "m.mpm", "shut"]


def test_messages_that_a_full_standard_error_drops_change_no_status(files, tmp_path):
    cases = [["learn", "-i", TRAIN, "-m", "{out}"], ["proj", "-pp", "head", "-i", TEST, "-o", "{out}"],
             ["knn", "-f", "{train_col}", "-t", "{test_col}", "-o", "{out}"],
             ["parse", "--jobs", "1024", "-m", "{model}", "-i", TEST, "-o", "{out}"]]  # fmt: skip
    for arguments in cases:
        with open("/dev/full", "wb") as full:
            names = {**files, "out": str(tmp_path / "out")}
            result = subprocess.run([sys.executable, "-m", "maltpy", *(str(a).format(**names) for a in arguments)],
                                    stderr=full, timeout=300)  # fmt: skip
        assert result.returncode == 0 and (tmp_path / "out").stat().st_size > 0, arguments
        (tmp_path / "out").unlink()
    with open("/dev/full", "wb") as full:
        assert subprocess.run([sys.executable, "-m", "maltpy", "eval", TEST, tmp_path / "absent"], stderr=full,
                              timeout=300).returncode == 2  # fmt: skip
