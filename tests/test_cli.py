import json
import os
import re
import signal
import stat
import subprocess
import sys
import time
import zipfile
from collections import Counter
from pathlib import Path

import pytest
from conftest import (
    DATA,
    EXAMPLE,
    SWEMALT,
    as_from_a_terminal,
    assert_one_line_error,
    parses_while_the_pipe_stays_open,
    requires_shared,
    run_in_process,
    run_maltpy,
)

import maltpy

MALFORMED = Path(__file__).parent / "data" / "malformed"
CASES = json.loads((MALFORMED / "cases.json").read_text())


def test_help_lists_every_command_with_its_summary():
    from maltpy.cli import cli

    result = run_maltpy("--help")
    assert result.returncode == 0 and result.stdout.startswith(b"Usage: maltpy [OPTIONS] COMMAND")
    listed = dict(line.split(None, 1) for line in result.stdout.decode().split("Commands:")[1].strip().splitlines())
    assert sorted(listed) == sorted(cli.commands)
    assert all(len(summary) > 10 for summary in listed.values())


def test_version_and_the_console_script():
    result = run_maltpy("--version")
    assert result.stdout.decode().strip() == f"maltpy, version {maltpy.__version__}"
    script = Path(sys.executable).parent / "maltpy"
    if script.exists():  # installed with pip: the console script is there too
        assert subprocess.run([script, "--help"], capture_output=True).returncode == 0


def test_usage_errors_are_one_line_too():
    assert_one_line_error(run_maltpy("eval", "only-one-file"), "command line: Missing argument")
    # the others by main in this process: a process's status and stderr, without a start each
    assert_one_line_error(run_in_process("convert", "--to", "xml"), "command line: Invalid value")
    assert_one_line_error(run_in_process("frobnicate"), "command line: No such command")
    assert_one_line_error(run_in_process("parse", "-m", "m.mpm", "--bogus"), "command line: No such option")
    assert_one_line_error(run_in_process("eval", "-", "-"), "command line: only one of GOLD and SYSTEM")
    assert_one_line_error(run_in_process("convert", "-i", "", "--to", "conllu"), "command line: the file name is empty")
    no_command = run_maltpy()
    assert no_command.returncode == 2 and b"Commands:" in no_command.stderr and not no_command.stdout


def test_eval_on_the_example_treebank():
    gold = EXAMPLE / "en-test.conllu"
    result = run_maltpy("eval", "--json", gold, gold)
    scores = json.loads(result.stdout)
    assert result.returncode == 0 and result.stderr == b""
    assert scores == {
        "LAS": 100.0,
        "UAS": 100.0,
        "LA": 100.0,
        "EM": 100.0,
        "tokens": 102,
        "sentences": 12,
        "punct": "include",
    }


@requires_shared
def test_eval_json_acceptance_command():
    gold = SWEMALT / "gold" / "sv-stb-dep-mini-test.conll"
    parsed = SWEMALT / "parsed" / "sv-stb-dep-mini-test-parsed.conll"
    result = run_maltpy("eval", "--json", gold, parsed)
    scores = json.loads(result.stdout)
    # counted here, straight from the columns of the two files
    g = [line.split("\t") for line in gold.read_text("utf-8").splitlines() if line]
    p = [line.split("\t") for line in parsed.read_text("utf-8").splitlines() if line]
    assert [x[1] for x in g] == [x[1] for x in p]
    n = len(g)
    assert scores["tokens"] == n == 2651 and scores["sentences"] == 230
    assert scores["LAS"] == round(100 * sum(a[6] == b[6] and a[7] == b[7] for a, b in zip(g, p)) / n, 2)
    assert scores["UAS"] == round(100 * sum(a[6] == b[6] for a, b in zip(g, p)) / n, 2)
    assert scores["LA"] == round(100 * sum(a[7] == b[7] for a, b in zip(g, p)) / n, 2)


@requires_shared
def test_eval_text_per_label_and_punctuation():
    gold = DATA / "conllx" / "la_perseus-ud-test.conllx"
    result = run_maltpy("eval", "--punct", "exclude", "--per-label", gold, gold)
    out = result.stdout.decode()
    assert result.returncode == 0
    assert "punctuation  excluded" in out and "LAS     100.00" in out
    assert "\nnsubj " in out and "precision" in out


@requires_shared
def test_eval_reads_one_side_from_stdin():
    gold = SWEMALT / "gold" / "sv-stb-dep-mini-test.conll"
    parsed = SWEMALT / "parsed" / "sv-stb-dep-mini-test-parsed.conll"
    piped = run_maltpy("eval", "--json", gold, "-", input=parsed.read_bytes())
    direct = run_maltpy("eval", "--json", gold, parsed)
    assert json.loads(piped.stdout) == json.loads(direct.stdout)


def test_eval_of_files_that_do_not_line_up(tmp_path):
    gold = EXAMPLE / "en-test.conllu"
    text = gold.read_text("utf-8")
    shorter = tmp_path / "short.conllu"
    shorter.write_text(text[: text.rindex("# sent_id")], "utf-8")
    err = assert_one_line_error(run_maltpy("eval", gold, shorter), f"{gold}:")
    assert "sentence 12 has no counterpart there" in err
    changed = tmp_path / "changed.conllu"
    changed.write_text(text.replace("\tbus\t", "\ttram\t"), "utf-8")
    err = assert_one_line_error(run_maltpy("eval", gold, changed), f"{changed}:")
    assert "sentence 7 does not line up" in err and "'tram' here, 'bus' there" in err


@pytest.mark.parametrize("name", sorted(CASES))
def test_malformed_input_makes_convert_and_eval_fail_cleanly(tmp_path, name):
    # by main in this process (the runs check the reader's messages through the command line, as
    # a process gives them); convert and eval run as processes in the tests around this one
    line, fragment = CASES[name]
    bad = tmp_path / name
    bad.write_bytes((MALFORMED / name).read_bytes())
    out = tmp_path / "out.conll"
    err = assert_one_line_error(run_in_process("convert", "-i", bad, "-o", out, "--to", "conllu"), f"{bad}:{line}: ")
    assert fragment in err
    assert sorted(os.listdir(tmp_path)) == [name]  # no output, no temporary file left behind
    good = EXAMPLE / "en-test.conllu"
    assert_one_line_error(run_in_process("eval", bad, good), f"{bad}:{line}: ")
    assert_one_line_error(run_in_process("eval", good, bad), f"{bad}:{line}: ")


def test_a_malformed_file_is_one_error_line_from_a_process_too(tmp_path):
    # the runs above, as processes, for one case of each command
    name = sorted(CASES)[0]
    line, fragment = CASES[name]
    bad = tmp_path / name
    bad.write_bytes((MALFORMED / name).read_bytes())
    err = assert_one_line_error(run_maltpy("convert", "-i", bad, "-o", tmp_path / "out", "--to", "conllu"),
                                f"{bad}:{line}: ")  # fmt: skip
    assert fragment in err and sorted(os.listdir(tmp_path)) == [name]
    assert_one_line_error(run_maltpy("eval", EXAMPLE / "en-test.conllu", bad), f"{bad}:{line}: ")


def test_a_failed_convert_keeps_the_old_output(tmp_path):
    out = tmp_path / "out.conllu"
    out.write_text("precious\n")
    bad = MALFORMED / "head-cycle.conllx"
    assert_one_line_error(run_maltpy("convert", "-i", bad, "-o", out, "--to", "conllu"), str(bad))
    assert out.read_text() == "precious\n" and os.listdir(tmp_path) == ["out.conllu"]


def test_missing_and_unwritable_paths(tmp_path):
    assert_one_line_error(
        run_maltpy("convert", "-i", tmp_path / "absent", "--to", "conllu"), f"{tmp_path / 'absent'}: no such file"
    )
    assert_one_line_error(run_maltpy("convert", "-i", tmp_path, "--to", "conllu"), f"{tmp_path}: is a directory")
    target = tmp_path / "no" / "such" / "dir" / "out.conllu"
    assert_one_line_error(
        run_maltpy("convert", "-i", EXAMPLE / "en-test.conllu", "-o", target, "--to", "conllu"),
        f"{target}: cannot write",
    )


def test_convert_in_a_pipeline_and_in_place(tmp_path):
    source = EXAMPLE / "en-train.conllu"
    result = run_maltpy("convert", "--to", "conllu", input=source.read_bytes())
    assert result.returncode == 0 and result.stdout == source.read_bytes() and result.stderr == b""
    copy = tmp_path / "copy.conllu"
    copy.write_bytes(source.read_bytes())
    assert run_maltpy("convert", "-i", copy, "-o", copy, "--to", "conllx").returncode == 0
    text = copy.read_text("utf-8")
    assert "# sent_id" not in text and "\n2-3\t" not in text and "\n5.1\t" not in text
    assert text.count("\n\n") == 40


def test_a_closed_pipe_is_not_an_error_message(tmp_path):
    big = tmp_path / "big.conllu"
    big.write_bytes((EXAMPLE / "en-train.conllu").read_bytes() * 200)
    pipeline = subprocess.run(
        f"'{sys.executable}' -m maltpy convert -i '{big}' --to conllu | head -n 1",
        shell=True,
        capture_output=True,
    )
    assert pipeline.stdout == b"# sent_id = maltpy-example-train-01\n"
    assert pipeline.stderr == b""


def test_a_parse_into_a_closed_pipe_exits_141_in_silence(example_model, tmp_path):
    # `maltpy parse -m M -i BIG | head -n 1`, BIG over 100,000 tokens: the status is the 141 the
    # README documents (click alone would exit 1), nothing on stderr
    big = tmp_path / "big.conllu"
    text = (EXAMPLE / "en-train.conllu").read_bytes()
    big.write_bytes(text * (100_000 // sum(1 for line in text.splitlines() if line[:1].isdigit()) + 1))
    parse = f"parse -m '{example_model}' -i '{big}'"
    for command in (parse, f"proj -i '{big}' -pp head", f"convert -i '{big}' --to conllx"):
        pipeline = subprocess.run(
            ["bash", "-c", f"'{sys.executable}' -m maltpy {command} | head -n 1 >/dev/null; exit ${{PIPESTATUS[0]}}"],
            capture_output=True,
        )  # fmt: skip
        assert pipeline.returncode == 141 and pipeline.stderr == b"", (command, pipeline)


def test_config_command(tmp_path):
    result = run_maltpy("config", "-a", "nivrestandard", "-l", "libsvm", "-lo", "-c 0.5", "-nr", "false")
    out = result.stdout.decode()
    assert result.returncode == 0
    assert "parsing_algorithm: nivrestandard" in out and "learner: libsvm" in out and "c: 0.5" in out
    assert "allow_root: false" in out
    bad = tmp_path / "bad.yaml"
    bad.write_text("nivre:\n  allow_reduce: sometimes\n")
    err = assert_one_line_error(run_maltpy("config", "-c", bad), f"{bad}:2: ")
    assert "nivre.allow_reduce" in err


def test_output_to_a_device_or_through_a_link(tmp_path):
    # /dev/null stays the device (renaming a file onto it would replace it); a link stays a link
    # and its target is written
    source = EXAMPLE / "en-test.conllu"
    assert run_maltpy("convert", "-i", source, "-o", "/dev/null", "--to", "conllu").returncode == 0
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    target, link = tmp_path / "target.conllu", tmp_path / "link.conllu"
    target.write_text("old\n")
    link.symlink_to(target)
    assert run_maltpy("convert", "-i", source, "-o", link, "--to", "conllu").returncode == 0
    assert link.is_symlink() and target.read_bytes() == source.read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.conllu", "target.conllu"]
    assert_one_line_error(run_maltpy("convert", "-i", source, "-o", "", "--to", "conllu"), "command line: the output")


def test_a_line_without_end_is_one_line_error_in_bounded_memory(tmp_path):
    # -i /dev/zero: one endless line; refused at MALTPY_MAX_LINE_BYTES (1 MB unless set)
    assert_one_line_error(run_maltpy("convert", "-i", "/dev/zero", "--to", "conllu"), "/dev/zero:1: a line longer than")
    long = tmp_path / "long.conllu"
    long.write_bytes(b"1\t" + b"a" * 2_000_000 + b"\t_\t_\t_\t_\t0\troot\t_\t_\n\n")
    assert_one_line_error(run_maltpy("convert", "-i", long, "--to", "conllu"), f"{long}:1: a line longer than 1048576")
    allowed = subprocess.run([sys.executable, "-m", "maltpy", "convert", "-i", long, "--to", "conllu"],
                             capture_output=True, env={**os.environ, "MALTPY_MAX_LINE_BYTES": "3000000"})  # fmt: skip
    assert allowed.returncode == 0 and allowed.stdout == long.read_bytes(), allowed.stderr


@pytest.mark.parametrize("signum, status", [(15, 143), (1, 129)])
def test_sigterm_or_sighup_mid_parse_leaves_the_folder_as_it_was(example_model, tmp_path, signum, status):
    big, out = tmp_path / "big.conllu", tmp_path / "out" / "parsed.conllu"
    # some seconds of parsing, so that the signal comes mid-parse, not as the process ends
    big.write_bytes((EXAMPLE / "en-train.conllu").read_bytes() * 2000)
    out.parent.mkdir()
    process = subprocess.Popen([sys.executable, "-m", "maltpy", "parse", "-m", example_model, "-i", big, "-o", out],
                               stderr=subprocess.PIPE, preexec_fn=as_from_a_terminal)  # fmt: skip
    deadline = time.monotonic() + 60
    while not any(out.parent.iterdir()) and time.monotonic() < deadline:  # the partial output is there
        time.sleep(0.05)
    time.sleep(1)
    os.kill(process.pid, signum)
    _, err = process.communicate(timeout=60)
    assert process.returncode == status, err
    assert list(out.parent.iterdir()) == [] and b"Traceback" not in err


def test_learn_checks_its_model_path_first_and_never_writes_over_its_treebank(tmp_path):
    train = tmp_path / "train.conllu"
    train.write_bytes((EXAMPLE / "en-train.conllu").read_bytes())
    link = tmp_path / "link.conllu"
    link.symlink_to(train)
    for model in (train, link):
        assert_one_line_error(run_maltpy("learn", "-i", train, "-m", model), f"{model}: is also the input")
    assert_one_line_error(run_maltpy("learn", "-i", link, "-m", train), f"{train}: is also the input")
    assert train.read_bytes() == (EXAMPLE / "en-train.conllu").read_bytes()
    # the model's folder is checked before the treebank is read (here: an endless one)
    missing = tmp_path / "absent" / "m.mpm"
    assert_one_line_error(
        run_maltpy("learn", "-i", "/dev/zero", "-m", missing), f"{missing}: cannot write: no such folder"
    )
    assert_one_line_error(run_maltpy("learn", "-i", train, "-m", tmp_path), f"{tmp_path}: is a directory")
    # a device is written as it is
    assert run_maltpy("learn", "-q", "-i", train, "-m", "/dev/null").returncode == 0
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_output_to_dev_stdout_and_a_process_substitution(tmp_path):
    source = EXAMPLE / "en-test.conllu"
    result = run_maltpy("convert", "-i", source, "-o", "/dev/stdout", "--to", "conllu")
    assert result.returncode == 0 and result.stdout == source.read_bytes()
    pipeline = subprocess.run(
        ["bash", "-c", f"'{sys.executable}' -m maltpy convert -i '{source}' --to conllu -o >(cat > o); wait"],
        capture_output=True,
        cwd=tmp_path,
    )  # fmt: skip
    assert pipeline.returncode == 0, pipeline.stderr
    deadline = time.monotonic() + 10
    while (tmp_path / "o").read_bytes() != source.read_bytes() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert (tmp_path / "o").read_bytes() == source.read_bytes()


@pytest.mark.parametrize("source", ["en-test.conllu", "conllx"])
def test_a_writer_gets_its_parses_while_the_pipe_stays_open(example_model, source):
    # a program writes three sentences, keeps the pipe open, and reads their parses
    text = (EXAMPLE / "en-test.conllu").read_bytes()
    if source == "conllx":  # no comments: the format is decided from what has come
        text = b"\n".join(line for line in text.split(b"\n") if not line.startswith(b"#"))
    three = b"\n\n".join(text.split(b"\n\n")[:3]) + b"\n\n"
    parses_while_the_pipe_stays_open("parse", "-m", example_model, text=three, sentences=3, seconds=5)


def test_config_refuses_what_learn_would_refuse(tmp_path):
    missing = tmp_path / "missing.xml"
    assert_one_line_error(run_maltpy("config", "-F", missing), f"{missing}: no such feature model file")
    bad = tmp_path / "bad.txt"
    bad.write_text("InputColumn(POSTAG, Stack[0])\nSplit(InputColumn(FEATS, Input[0]), [^|]+)\n")
    assert_one_line_error(run_in_process("config", "-F", bad), f"{bad}:2: bad feature")
    assert_one_line_error(run_in_process("config", "-lo", "-e 0"), "command line: lib.options: -e 0")


def test_read_and_write_errors_name_their_file(tmp_path):
    source = EXAMPLE / "en-test.conllu"
    for command in (["convert", "-i", source, "--to", "conllu"], ["learn", "-q", "-i", EXAMPLE / "en-train.conllu"]):
        flag = "-m" if command[0] == "learn" else "-o"
        assert_one_line_error(run_maltpy(*command, flag, "/dev/full"), "/dev/full: cannot write: No space left")
    assert_one_line_error(
        run_maltpy("convert", "-i", "/proc/self/mem", "--to", "conllu"), "/proc/self/mem:1: cannot read"
    )


@requires_shared
def test_sigterm_during_libsvm_training_stops_learn(tmp_path):
    # LIBSVM trains in C and calls back into Python only to print: a signal handled there was
    # lost, and learn went on to write its model and exit 0
    model = tmp_path / "m.mpm"
    train = DATA / "conllx" / "da_ddt-ud-dev.conllx"
    command = [sys.executable, "-m", "maltpy", "learn", "-q", "-l", "libsvm", "-i", train, "-m", model]
    process = subprocess.Popen(command, stderr=subprocess.PIPE, preexec_fn=as_from_a_terminal)
    time.sleep(4)  # features take about 1.5 s of the 7, training the rest
    process.send_signal(15)
    _, err = process.communicate(timeout=120)
    assert process.returncode == 143, err
    assert list(tmp_path.iterdir()) == []


def test_output_paths_that_cannot_be_files(tmp_path):
    source = EXAMPLE / "en-test.conllu"
    folder = tmp_path / "absent"
    assert_one_line_error(run_maltpy("convert", "-i", source, "--to", "conllu", "-o", f"{folder}/"), f"{folder}/: is a")
    loop = tmp_path / "loop1"
    loop.symlink_to(tmp_path / "loop2")
    (tmp_path / "loop2").symlink_to(loop)
    assert_one_line_error(run_maltpy("convert", "-i", source, "--to", "conllu", "-o", loop), f"{loop}: cannot write")
    assert loop.is_symlink() and not folder.exists()


def test_thread_defaults_leave_the_users_settings_alone(monkeypatch):
    # one thread for parsing, the libraries' own count for learning, passive waits; what the
    # user set stays, unless --threads says otherwise
    from maltpy.run.threads import THREAD_VARIABLES, set_threads

    for name in (*THREAD_VARIABLES, "OMP_WAIT_POLICY"):
        monkeypatch.delenv(name, raising=False)
    set_threads(None)
    assert [os.environ[n] for n in THREAD_VARIABLES] == ["1", "1", "1"] and os.environ["OMP_WAIT_POLICY"] == "PASSIVE"
    monkeypatch.delenv("OMP_NUM_THREADS")
    monkeypatch.setenv("OMP_WAIT_POLICY", "ACTIVE")
    set_threads(None, learning=True)
    assert "OMP_NUM_THREADS" not in os.environ and os.environ["OMP_WAIT_POLICY"] == "ACTIVE"
    set_threads(3)
    assert [os.environ[n] for n in THREAD_VARIABLES] == ["3", "3", "3"]
    assert_one_line_error(run_maltpy("--threads", "0", "info", "-m", "x.mpm"), "command line: Invalid value")


def _options_without_choices_or_default():
    """Each option of each command whose help names no default, or not all its choices."""
    import click

    from maltpy.cli import cli
    from maltpy.config import OPTIONS

    choices_of = {f"-{o.flag}": o.choices for o in OPTIONS.values() if o.kind == "choice"}
    top = click.Context(cli, info_name="maltpy")
    missing = []
    for name, command in [("maltpy", cli), *cli.commands.items()]:
        ctx = top if command is cli else click.Context(command, info_name=name, parent=top)
        for param in command.params:
            if not isinstance(param, click.Option) or param.is_flag or param.hidden:
                continue
            record = " ".join(param.get_help_record(ctx))
            choices = param.type.choices if isinstance(param.type, click.Choice) else ()
            choices = choices or next((choices_of[o] for o in param.opts if o in choices_of), ())
            if not ("default" in record.lower() or "[required]" in record) or any(c not in record for c in choices):
                missing.append((name, param.opts[0], record))
    return missing


def test_every_option_of_every_command_names_its_choices_and_default():
    from maltpy.cli import cli

    # eval, view, convert, convert-model, learn, parse, optimize, info, oracle, proj, deproj, knn, config,
    # blend, combine, tag, tokenize
    assert len(cli.commands) == 17
    assert _options_without_choices_or_default() == []
    for command in cli.commands:  # by main in this process (maltpy --help runs as a process above)
        result = run_in_process(command, "--help")
        assert result.returncode == 0 and f"Usage: maltpy {command}".encode() in result.stdout
    learn = run_in_process("learn", "--help").stdout.decode()
    assert "nivreeager, nivrestandard, covproj, covnonproj" in learn and "(default: nivreeager)" in learn
    assert "standard input" in run_in_process("eval", "--help").stdout.decode()


def test_format_and_if_are_the_same_option_everywhere(tmp_path):
    """Every command that reads CoNLL takes its format as --format and as -if (by main in this
    process: the commands' options are what is checked; each command runs as a process elsewhere)."""
    gold = EXAMPLE / "en-test.conllu"
    as_x = tmp_path / "en.conllx"
    assert run_in_process("convert", "-if", "conllu", "-i", gold, "--to", "conllx", "-o", as_x).returncode == 0
    for flag in ("-if", "--format"):
        assert run_in_process("eval", flag, "conllx", as_x, as_x).returncode == 0
        assert run_in_process("view", flag, "conllx", "-i", as_x, "--first", "1").returncode == 0
        assert run_in_process("oracle", flag, "conllx", "-i", as_x).returncode == 0
        assert run_in_process("config", flag, "conllx").stdout.decode().count("format: conllx") == 1
        assert run_in_process("proj", flag, "conllx", "-i", as_x, "-pp", "head", "-q").returncode == 0
        # the format is a promise about the file: conllu input read as CoNLL-X is an error at its first comment
        assert_one_line_error(run_in_process("eval", flag, "conllx", gold, gold), f"{gold}:1:")


def _under_a_terminal(args, stdout_too):
    """Run maltpy with stderr (and stdout, if ``stdout_too``) on a pseudo-terminal: what the terminal
    shows, and what stdout got if it was not the terminal."""
    import pty

    leader, follower = pty.openpty()
    out = subprocess.PIPE if not stdout_too else follower
    process = subprocess.Popen([sys.executable, "-m", "maltpy", *map(str, args)], stdin=subprocess.DEVNULL,
                               stdout=out, stderr=follower)  # fmt: skip
    os.close(follower)
    shown = b""
    while True:
        try:
            chunk = os.read(leader, 1 << 16)
        except OSError:  # the terminal's other end closed: the process is done with it
            break
        if not chunk:
            break
        shown += chunk
    piped = process.stdout.read() if process.stdout else b""
    process.wait(timeout=60)
    os.close(leader)
    assert process.returncode == 0, shown
    return shown.decode("utf-8", "replace"), piped


def test_progress_bar_on_a_terminal_never_shares_a_line_with_the_output(tmp_path):
    source = EXAMPLE / "en-train.conllu"
    shown, piped = _under_a_terminal(["convert", "-i", source, "--to", "conllx"], stdout_too=False)
    assert "maltpy: converted" in shown and " tokens" in shown and piped.startswith(b"1\t")
    shown, _ = _under_a_terminal(["convert", "-i", source, "--to", "conllx", "-q", "-o", tmp_path / "o"], False)
    assert "maltpy" not in shown
    shown, _ = _under_a_terminal(["convert", "-i", source, "--to", "conllx"], stdout_too=True)
    assert "maltpy" not in shown and "\r" not in shown.replace("\r\n", "\n") and shown.startswith("1\t")


def test_info_lists_the_features_in_the_files_order(tmp_path):
    features = tmp_path / "f.txt"
    lines = ["InputColumn(POSTAG, Stack[0])", "InputColumn(FORM, Input[0])", "OutputColumn(DEPREL, Stack[0])",
             "InputColumn(CPOSTAG, Input[1])"]  # fmt: skip
    features.write_text("\n".join(lines) + "\n")
    model = tmp_path / "m.mpm"
    assert run_maltpy("learn", "-i", EXAMPLE / "en-train.conllu", "-F", features, "-m", model, "-q").returncode == 0
    info = run_maltpy("info", "-m", model).stdout.decode()
    listed = info.split("in the file's order):\n", 1)[1].split("\n\n", 1)[0].split("\n")
    assert listed == ["  " + line.replace(" ", "") for line in lines]


def test_an_output_is_never_the_file_standard_input_reads(tmp_path):
    copy = tmp_path / "test.conllu"
    copy.write_bytes((EXAMPLE / "en-test.conllu").read_bytes())
    with open(copy, "rb") as stdin:
        result = subprocess.run([sys.executable, "-m", "maltpy", "convert", "--to", "conllx", "-o", copy], stdin=stdin,
                                capture_output=True)  # fmt: skip
    assert_one_line_error(result, f"{copy}: is also standard input")
    assert copy.read_bytes() == (EXAMPLE / "en-test.conllu").read_bytes()


# --- friction a new user meets ----------------------------------------------------------------------


def test_parse_takes_one_file_without_i(example_model, tmp_path):
    """``maltpy parse -m M FILE``, as the usage line suggests: one input, parsed to stdout."""
    test = EXAMPLE / "en-test.conllu"
    alone = run_maltpy("parse", "-m", example_model, test)
    with_i = run_maltpy("parse", "-m", example_model, "-i", test)
    assert alone.returncode == 0 and alone.stderr == b"", alone.stderr.decode()
    assert alone.stdout == with_i.stdout and alone.stdout.count(b"\n\n") == len(list(maltpy.read_conll(test)))
    to_file = run_maltpy("parse", "-m", example_model, test, "-o", tmp_path / "out.conllu")
    assert to_file.returncode == 0 and (tmp_path / "out.conllu").read_bytes() == with_i.stdout


def test_output_dir_is_made_as_mkdir_p_would(example_model, tmp_path):
    test = EXAMPLE / "en-test.conllu"
    expected = run_maltpy("parse", "-m", example_model, "-i", test).stdout
    for n, extra in enumerate(([], ["--jobs", "2"])):
        folder = tmp_path / f"run{n}" / "parsed"
        result = run_maltpy("parse", "-m", example_model, test, "--output-dir", f"{folder}/", *extra)
        assert result.returncode == 0, result.stderr.decode()
        assert (folder / "en-test.conllu").read_bytes() == expected
    (tmp_path / "a-file").write_text("x")
    result = run_maltpy("parse", "-m", example_model, test, "--output-dir", tmp_path / "a-file")
    assert_one_line_error(result, f"{tmp_path / 'a-file'}: is not a folder")
    result = run_maltpy("parse", "-m", example_model, tmp_path / "missing.conllu", "--output-dir", tmp_path / "new")
    assert_one_line_error(result, f"{tmp_path / 'missing.conllu'}: ")
    assert not (tmp_path / "new").exists()  # nothing made when the inputs are wrong
    instances = tmp_path / "deep" / "instances"
    result = run_maltpy("learn", "-q", "-l", "knn", "-i", EXAMPLE / "en-train.conllu", "-m", tmp_path / "k.mpm",
                        "--save-instances", instances)  # fmt: skip
    assert result.returncode == 0 and (instances / "main.col").is_file(), result.stderr.decode()


def test_a_model_written_to_a_pipe(tmp_path):
    """``maltpy learn -m - | cat > m.mpm``: a zip made in memory, then written (a pipe cannot seek)."""
    command = (f"{sys.executable} -m maltpy learn -q -i {EXAMPLE / 'en-train.conllu'} -m - | cat > "
               f"{tmp_path / 'piped.mpm'}")  # fmt: skip
    result = subprocess.run(["bash", "-o", "pipefail", "-c", command], capture_output=True)
    assert result.returncode == 0 and result.stderr == b"", result.stderr.decode()
    assert run_maltpy("learn", "-q", "-i", EXAMPLE / "en-train.conllu", "-m", tmp_path / "file.mpm").returncode == 0
    test = EXAMPLE / "en-test.conllu"
    parsed = [run_maltpy("parse", "-m", tmp_path / name, "-i", test).stdout for name in ("piped.mpm", "file.mpm")]
    assert parsed[0] == parsed[1] and parsed[0].count(b"\n\n") == len(list(maltpy.read_conll(test)))


@requires_shared
def test_learns_progress_counts_as_it_goes_in_proper_english(tmp_path):
    """The progress line counts instances as they are made (not "0 instances" to the end), and
    the summary says "1 sentence" and "1 classifier", not "1 sentences" and "1 classifier(s)"."""
    train = DATA / "conllx" / "en_lines-ud-test.conllx"  # over a thousand sentences: a few seconds of learning
    shown, _ = _under_a_terminal(["learn", "-i", train, "-m", tmp_path / "m.mpm", "-tc", "none"], stdout_too=False)
    updates = [part.strip() for part in shown.replace("\x1b[K", "").split("\r") if part.strip()]
    counting = [u for u in updates if "sentences" in u and "instances" in u and "learned" not in u]
    assert counting, updates
    assert not any(" 0 instances" in u for u in updates), updates
    assert "from 1,121 sentences (37,495 instances, 1 classifier)" in updates[-1], updates[-1]
    one = tmp_path / "one.conllu"
    one.write_text("1\tDogs\tdog\tNOUN\tNNS\t_\t2\tnsubj\t_\t_\n2\tbark\tbark\tVERB\tVBP\t_\t0\troot\t_\t_\n\n")
    result = run_maltpy("learn", "-i", one, "-m", tmp_path / "one.mpm")
    err = result.stderr.decode()
    assert result.returncode == 0 and "from 1 sentence (3 instances, 1 classifier)" in err, err
    assert "(s)" not in err


def _one_root_lines(model) -> list[str]:
    info = run_maltpy("info", "-m", model).stdout.decode()
    return info.split("\none root", 1)[1].split("\n\n", 1)[0].split("\n")[1:]


@requires_shared
def test_info_says_how_one_root_is_labelled_whatever_the_treebank_gave(tmp_path):
    talbanken = DATA / "maltparser-examples" / "talbanken05_train.conll"
    sentences = [s for s in talbanken.read_text("utf-8").split("\n\n") if s.strip()]

    def learned(name, change):
        """A model of Talbanken05 (CoNLL-X, its own labels), each word's columns changed first."""
        path = tmp_path / f"{name}.conll"
        path.write_text("\n\n".join("\n".join("\t".join(change(line.split("\t"))) for line in s.split("\n"))
                                    for s in sentences) + "\n\n")  # fmt: skip
        assert run_maltpy("learn", "-q", "-i", path, "-m", tmp_path / f"{name}.mpm").returncode == 0
        return tmp_path / f"{name}.mpm"

    # each tag's most frequent label below a root word, counted here from the columns
    below: dict[str, Counter] = {}
    for s in sentences:
        words = [line.split("\t") for line in s.split("\n")]
        for w in words:
            if w[6] != "0" and words[int(w[6]) - 1][6] == "0":
                below.setdefault(w[3], Counter())[w[7]] += 1
    most = sum(below.values(), Counter()).most_common(1)[0][0]
    tags = ", ".join(f"{tag} {c.most_common(1)[0][0]}" for tag, c in sorted(below.items()))
    assert _one_root_lines(learned("tagged", lambda w: w)) == [
        "  the root word labelled ROOT",
        f"  any other word on the root put below it, labelled by tag: {tags}; other tags {most}",
    ]
    no_tags = learned("untagged", lambda w: w[:3] + ["_", "_"] + w[5:])
    assert _one_root_lines(no_tags)[1] == (
        f"  any other word on the root put below it, labelled {most} (the training treebank has no tags)"
    )
    flat = learned("flat", lambda w: w[:6] + ["0", "ROOT"] + w[8:])  # no word below a root word
    assert _one_root_lines(flat)[1] == (
        "  any other word on the root put below it, labelled dep (the training treebank has no word below a root word)"
    )
    # an archive made before models kept their treebank's root labels: UD's, and said so
    old = tmp_path / "old.mpm"
    with zipfile.ZipFile(no_tags) as source, zipfile.ZipFile(old, "w") as made:
        for name in source.namelist():
            data = source.read(name)
            if name == "manifest.json":
                manifest = json.loads(data)
                del manifest["roots"]
                data = json.dumps(manifest).encode()
            made.writestr(name, data)
    assert _one_root_lines(old) == [
        "  the root word labelled root",
        "  any other word on the root put below it, labelled by tag: PUNCT punct; other tags parataxis",
        "  (UD's labels: the model was made before maltpy kept its treebank's)",
    ]
    assert json.loads(run_maltpy("info", "-m", old, "--json").stdout)["roots_learned"] is False
    assert json.loads(run_maltpy("info", "-m", flat, "--json").stdout)["roots_learned"] is True


# Names that could forge a second error line, or make a terminal show something else.
FORGING_NAMES = {
    "newline": "a\nmaltpy: error: forged",
    "carriage return": "a\rmaltpy: error: forged",
    "tab": "a\tb",
    "escape sequence": "\x1b[2J\x1b[31mred",
    "bidirectional override": "a\u202eb",
    "backspace": "abc\x08\x08\x08xyz",
}


def assert_quoted(result: subprocess.CompletedProcess, path, then: str) -> None:
    """One error line that begins with ``path`` in Python's quotes, then ``then``; no control character."""
    err = assert_one_line_error(result, repr(str(path)) + then)
    assert err[:-1].isprintable(), err


@pytest.mark.parametrize("kind", FORGING_NAMES)
def test_a_file_name_reaches_an_error_line_quoted(tmp_path, kind):
    bad = tmp_path / FORGING_NAMES[kind]  # a file with a fault on its line 2
    bad.write_text("# sent_id = 1\n1\tno\ttabs enough\n")
    run = run_maltpy if kind == "newline" else run_in_process  # one as a process, the others by main here
    assert_quoted(run("convert", "--to", "conllx", "-i", bad), bad, ":2: expected 10 tab-separated columns")


def test_every_command_quotes_the_file_names_of_its_errors(tmp_path):
    # by main in this process: a process's status and stderr, without a start each
    name = tmp_path / "no\tsuch" / "a\nmaltpy: error: \x1b[31mforged"
    for arguments, then in [
        (["parse", "-m", name], ": no such model file"),
        (["info", "-m", name], ": no such model file"),
        (["learn", "-i", EXAMPLE / "en-train.conllu", "-m", name], ": cannot write: no such folder"),
        (["eval", EXAMPLE / "en-test.conllu", name], ": no such file"),
        (["view", "-i", EXAMPLE / "en-test.conllu", "--gold", name], ": no such file"),
        (["oracle", "-i", name], ": no such file"),
        (["deproj", "-pp", "head", "-i", name], ": no such file"),
        (["config", "-c", name], ": no such config file"),
        (["config", "-F", name], ": no such feature model file"),
        (["optimize", "-i", name, "-o", tmp_path / "opt"], ": no such file"),
        (["knn", "-f", name, "-t", name], ": no such file"),
    ]:
        assert_quoted(run_in_process(*arguments), name, then)
    # a name inside a message is quoted as well
    converted = run_in_process("convert", "--to", "conllx", "-i", EXAMPLE / "en-test.conllu", "-o", name)
    err = assert_one_line_error(converted, repr(str(name)))
    assert f"no such folder {repr(str(name.parent))}" in err and err[:-1].isprintable(), err
    # and so is a name in another line on stderr: learn's summary (as a process)
    model = tmp_path / "m\nmaltpy: error: \x1b[31mforged.mpm"
    learned = run_maltpy("learn", "-i", EXAMPLE / "en-train.conllu", "-m", model)
    summary = learned.stderr.decode()
    assert learned.returncode == 0 and summary.endswith(f"-> {repr(str(model))}\n") and summary.count("\n") == 1


def test_sigint_prints_one_line_and_no_empty_one_when_stderr_is_not_a_terminal(example_model):
    one = b"\n\n".join((EXAMPLE / "en-test.conllu").read_bytes().split(b"\n\n")[:1]) + b"\n\n"
    process = subprocess.Popen([sys.executable, "-m", "maltpy", "parse", "-m", example_model], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               preexec_fn=as_from_a_terminal)  # fmt: skip
    process.stdin.write(one)
    process.stdin.flush()
    assert process.stdout.read1(1 << 16).startswith(b"# sent_id")  # parsed: maltpy waits for more input
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130 and err == b"maltpy: interrupted\n", err


def test_every_package_of_maltpy_is_installed():
    # pyproject.toml lists maltpy's packages one by one: a folder missing there (cli/, optimize/)
    # is left out of a wheel, and `maltpy` fails to start from a regular install
    root = Path(maltpy.__file__).parent
    text = (root.parent / "pyproject.toml").read_text(encoding="utf-8")
    listed = set(re.findall(r'"([\w.]+)"', re.search(r"^packages = \[(.*?)\]", text, re.M | re.S).group(1)))
    found = {".".join(p.parent.relative_to(root.parent).parts) for p in root.rglob("__init__.py")}
    assert found <= listed
