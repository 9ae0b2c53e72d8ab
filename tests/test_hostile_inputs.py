"""Hostile configurations, options and inputs to ``maltpy learn``: each is one line
``maltpy: error: WHERE...``, exit 2, no traceback, no model file, in bounded memory and time,
and refused before any training. (Damaged model archives: test_damaged_models.py.)

The cases run by the command line's main one after another in one fresh process that reports its
peak memory as each ends (tests/in_process.py), one of them in a process of its own too."""

from __future__ import annotations

import pytest
from conftest import EXAMPLE, run_maltpy_measured, run_maltpy_measured_together

TRAIN = EXAMPLE / "en-train.conllu"
PEAK_LIMIT_KB = 500 * 1024


def alias_bomb() -> str:
    lines = ["lib:", "  options:", '    a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"    a{i}: &a{i} [{', '.join(['*a' + str(i - 1)] * 9)}]" for i in range(1, 10)]
    return "\n".join(lines) + "\n"


# name: (config file text or None, extra arguments, what the message starts with after "maltpy: error: ")
CASES = {
    "yaml-alias-bomb": (alias_bomb(), [], "{config}:3: YAML anchors"),
    "yaml-python-tag": ("guide: !!python/object/apply:os.system ['true']\n", [], "{config}:1: YAML tags"),
    "yaml-custom-tag": ("guide:\n  learner: !custom libsvm\n", [], "{config}:2: YAML tags"),
    "yaml-merge-key": ("guide:\n  <<: {learner: libsvm}\n", [], "{config}:2: YAML merge keys"),
    "yaml-huge-value": ("singlemalt:\n  parsing_algorithm: " + "x" * 1_000_000 + "\n", [], "{config}:2: singlemalt"),
    "yaml-deep": (
        "guide: " + "[" * 5000 + "]" * 5000 + "\n",
        [],
        "{config}:1: not a configuration: YAML nested too deeply",
    ),
    "yaml-deep-blocks": (
        "guide:\n" + "".join("  " * i + f"k{i}:\n" for i in range(1, 3000)),
        [],
        "{config}:33: not a configuration: YAML nested too deeply",
    ),
    "liblinear-c-0": (None, ["-lo", "-c 0"], "command line: lib.options: -c 0 must be greater than 0"),
    "liblinear-e-0": (None, ["-lo", "-e 0"], "command line: lib.options: -e 0 must be greater than 0"),
    "libsvm-c-0": (None, ["-l", "libsvm", "-lo", "-c 0"], "command line: lib.options: -c 0"),
    "libsvm-e-0": (None, ["-l", "libsvm", "-lo", "-e 0"], "command line: lib.options: -e 0"),
    "libsvm-m-0": (None, ["-l", "libsvm", "-lo", "-m 0"], "command line: lib.options: -m 0"),
    "libsvm-degree": (None, ["-l", "libsvm", "-lo", "-d 1000000"], "command line: lib.options: -d 1000000"),
    # options LIBSVM itself finds unusable on the data: one line naming the options, no model
    "libsvm-nu-infeasible": (None, ["-l", "libsvm", "-lo", "-s 1"], "lib.options (-s 1 "),
    "libsvm-kernel-overflow": (None, ["-l", "libsvm", "-lo", "-d 20 -g 100"], "lib.options (-s 0 -t 1 -d 20 -g 100.0"),
    "liblinear-solver-9": (None, ["-lo", "-s 9"], "command line: lib.options: -s 9"),
    "split-foreign-address": (None, ["-d", "POSTAG", "-s", "Lookahead[0]"], "command line: guide.data_split_structure"),
    "split-bad-address": (None, ["-d", "POSTAG", "-s", "Input[x]"], "command line: guide.data_split_structure"),
    "root-label-tab": (None, ["-grl", "a\tb"], "command line: graph.root_label"),
    "root-label-newline": (None, ["-grl", "a\nb"], "command line: graph.root_label"),
    "features-dev-zero": (None, ["-F", "/dev/zero"], "/dev/zero: the feature model file is larger than"),
    "features-missing": (None, ["-F", "/nonexistent/f.xml"], "/nonexistent/f.xml: no such feature model file"),
    "features-regex-split": (None, ["-F", "{regex}"], "{regex}:1: bad feature"),
    "features-deep": (None, ["-F", "{deep}"], "{deep}:1: bad feature"),
    "input-dev-zero": (None, ["-i", "/dev/zero"], "/dev/zero:1: a line longer than"),
    "model-over-treebank": (None, ["-m", str(TRAIN)], f"{TRAIN}: is also the input"),
    "model-in-missing-folder": (None, ["-m", "/nonexistent/dir/m.mpm"], "/nonexistent/dir/m.mpm: cannot write"),
}


def arguments_of(case: str, folder) -> tuple[list, dict]:
    """The case's ``maltpy learn`` arguments, its files made in ``folder``; and the names its
    message may hold."""
    text, extra, _ = CASES[case]
    config = folder / "c.yaml"
    regex, deep = folder / "regex.txt", folder / "deep.txt"
    regex.write_text("Split(InputColumn(FEATS, Stack[0]), [^!]*[^!]*[^!]*[^!]*[^!]*!)\n")
    deep.write_text("Merge(" * 50_000 + "InputColumn(POSTAG, Stack[0])" + ", InputColumn(POSTAG, Stack[0]))" * 50_000)
    names = {"config": config, "regex": regex, "deep": deep}
    arguments = ["-i", TRAIN, "-m", folder / "m.mpm"]
    if text is not None:
        config.write_text(text)
        arguments += ["-c", config]
    arguments += [a.format(**names) for a in extra]
    if "-i" in extra or "-m" in extra:  # the case's own input or model replaces the default
        for flag in ("-i", "-m"):
            if flag in extra:
                at = arguments.index(flag)
                del arguments[at : at + 2]
    return arguments, names


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Each case's ``maltpy learn``, the cases one after another by the command line's main in one
    fresh process that measures itself: {case: (its folder, the names in its message, its run)}.
    A case's peak is that process's when the case ended, no less than its own alone would be."""
    folders, names, arguments = {}, {}, []
    for case in CASES:
        folders[case] = tmp_path_factory.mktemp("hostile")
        args, names[case] = arguments_of(case, folders[case])
        arguments.append(["learn", *args])
    results = run_maltpy_measured_together(arguments, timeout=600)
    return {case: (folders[case], names[case], result) for case, result in zip(CASES, results)}


@pytest.mark.parametrize("case", list(CASES))
def test_a_hostile_configuration_or_option_is_refused_before_training(runs, case):
    folder, names, result = runs[case]
    expected = CASES[case][2]
    err_lines = result.stderr.decode("utf-8", "replace").splitlines()
    err, status = "\n".join(err_lines), result.returncode
    assert status == 2 and len(err_lines) == 1 and "Traceback" not in err, err
    assert err.startswith("maltpy: error: " + expected.format(**names)), err
    assert len(err) < 800, err
    assert not (folder / "m.mpm").exists() and TRAIN.read_bytes().startswith(b"# sent_id")
    assert result.peak_kb < PEAK_LIMIT_KB, f"peak {result.peak_kb} kB"  # and no hang: runs' hang_s


def test_a_hostile_option_is_refused_by_a_process_of_its_own(tmp_path):
    # the runs above, for one case, as a process alone: what a user meets
    arguments, names = arguments_of("yaml-alias-bomb", tmp_path)
    result = run_maltpy_measured("learn", *arguments, timeout=120)
    err = result.stderr.decode("utf-8", "replace")
    assert result.returncode == 2 and err.count("\n") == 1, err
    assert err.startswith("maltpy: error: " + CASES["yaml-alias-bomb"][2].format(**names)), err
    assert not (tmp_path / "m.mpm").exists()
    assert result.peak_kb < PEAK_LIMIT_KB, result.peak_kb  # and no hang: the timeout
