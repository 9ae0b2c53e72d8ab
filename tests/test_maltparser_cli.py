"""MaltParser's own command line (``maltpy -c NAME -m parse -i IN -o OUT``): the same bytes as
MaltParser's parse with its .mco, and as ``maltpy learn`` / ``maltpy parse`` with the same flags."""

import gzip
import json
import os
import shutil

import pytest
from conftest import DATA, SHARED, SWEMALT, assert_one_line_error, requires_shared, run_in_process, run_maltpy

from maltpy.cli import main

MCO = SHARED / "reference" / "maltparser-mco" / "sv-nivreeager-liblinear-malt1.9.2.mco"
MCO_HEAD_PATH = MCO.with_name("sv-nivreeager-pp_head_path-liblinear-malt1.9.2.mco")  # saved: -pp head+path
MCO_TEST = SWEMALT / "gold" / "sv-stb-dep-mini-test.conll"  # MANIFEST.tsv's test file of MCO
EXAMPLES = DATA / "maltparser-examples"
TRAIN, TEST = EXAMPLES / "talbanken05_train.conll", EXAMPLES / "talbanken05_test.conll"
FLAGS = ("-a", "stacklazy", "-pp", "path", "-lo", "-c 0.5")


@pytest.fixture(scope="module")
def mco_parse() -> bytes:
    """The parse MaltParser 1.9.2 made of MCO_TEST with MCO."""
    return gzip.decompress(MCO.with_name(MCO.name.replace(".mco", ".parsed.conll.gz")).read_bytes())


@pytest.fixture(scope="module")
def learned(tmp_path_factory):
    """``maltpy learn`` with FLAGS on TRAIN, and ``maltpy parse`` of TEST with that model."""
    folder = tmp_path_factory.mktemp("maltpy-learned")
    assert run_maltpy("learn", "-q", "-i", TRAIN, "-m", folder / "tal.mpm", *FLAGS).returncode == 0
    parsed = run_maltpy("parse", "-m", folder / "tal.mpm", "-i", TEST)
    assert parsed.returncode == 0
    return folder / "tal.mpm", parsed.stdout


def _stage_mco(folder, name="swe"):
    """MCO copied into ``folder`` as NAME.mco (its folder inside the zip keeps MCO's name)."""
    shutil.copy(MCO, folder / f"{name}.mco")


@requires_shared
def test_parse_with_maltparsers_model_by_its_configuration_name(tmp_path, mco_parse):
    _stage_mco(tmp_path)
    result = run_maltpy("-c", "swe", "-m", "parse", "-i", MCO_TEST, "-o", "out.conll", cwd=tmp_path)
    assert result.returncode == 0 and result.stdout == b"" and result.stderr == b""  # no banner
    assert (tmp_path / "out.conll").read_bytes() == mco_parse


@requires_shared
def test_working_directory_standard_streams_long_names_and_ignored_learning_flags(tmp_path, mco_parse):
    models = tmp_path / "models"
    models.mkdir()
    _stage_mco(models)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = run_maltpy("--threads", "1", "--config-name=swe", "--config-workingdir", models, "-a", "stackproj",
                        "--config-flowchart=parse", input=MCO_TEST.read_bytes(), cwd=elsewhere)  # fmt: skip
    assert result.returncode == 0 and result.stdout == mco_parse
    # MaltParser lets the model's saved -a win; maltpy too, saying so
    assert result.stderr == b"maltpy: warning: -m parse does not use -a: ignored\n"
    assert os.listdir(elsewhere) == []


@requires_shared
def test_learn_then_parse_is_maltpy_learn_and_parse_with_the_same_flags(tmp_path, learned):
    model, parsed = learned
    learn = run_maltpy("-c", "tal", "-m", "learn", "-i", TRAIN, "-if", "conllx.xml", *FLAGS, "-v", "off", cwd=tmp_path)
    assert learn.returncode == 0 and learn.stdout == learn.stderr == b""
    assert os.listdir(tmp_path) == ["tal.mpm"]
    info = json.loads(run_maltpy("info", "--json", "-m", tmp_path / "tal.mpm").stdout)
    assert info["algorithm"] == "stacklazy" and info["pseudo_projective"]["marking_strategy"] == "path"
    parse = run_maltpy("-c", "tal", "-m", "parse", "-i", TEST, "-o", "out.conll", cwd=tmp_path)
    assert parse.returncode == 0 and parse.stderr == b""
    assert (tmp_path / "out.conll").read_bytes() == parsed


@requires_shared
def test_an_option_file_under_the_command_line(tmp_path, learned):
    _, parsed = learned
    (tmp_path / "opts.xml").write_text(f"""<?xml version="1.0" encoding="UTF-8"?>
<experiment>
  <optioncontainer>
    <optiongroup groupname="config">
      <option name="name" value="tal"/>
      <option name="flowchart" value="learn"/>
    </optiongroup>
    <optiongroup groupname="singlemalt"><option name="parsing_algorithm" value="nivreeager"/></optiongroup>
    <optiongroup groupname="pproj"><option name="marking_strategy" value="path"/></optiongroup>
    <optiongroup groupname="lib"><option name="options" value="-c 0.5"/></optiongroup>
    <optiongroup groupname="input"><option name="infile" value="{TRAIN}"/></optiongroup>
  </optioncontainer>
</experiment>
""")
    learn = run_maltpy("-f", "opts.xml", "-a", "stacklazy", "-v", "error", cwd=tmp_path)  # -a over the file's
    assert learn.returncode == 0 and learn.stderr == b""
    parse = run_maltpy("-c", "tal", "-i", TEST, cwd=tmp_path)
    assert parse.returncode == 0 and parse.stdout == parsed


@requires_shared
def test_the_newer_of_name_mco_and_name_mpm(tmp_path, learned, mco_parse):
    model, parsed = learned
    _stage_mco(tmp_path)
    shutil.copy(model, tmp_path / "swe.mpm")
    os.utime(tmp_path / "swe.mco", (1e9, 1e9))
    result = run_maltpy("-c", "swe", "-i", TEST, cwd=tmp_path)
    assert result.returncode == 0 and result.stdout == parsed
    assert result.stderr == b"maltpy: warning: both swe.mpm and swe.mco: taking the newer, swe.mpm (not swe.mco)\n"
    os.utime(tmp_path / "swe.mpm", (1e9 - 1, 1e9 - 1))
    result = run_maltpy("-c", "swe.mco", "-i", MCO_TEST, cwd=tmp_path)  # NAME.mco names NAME, as in MaltParser
    assert result.returncode == 0 and result.stdout == mco_parse
    assert b"taking the newer, swe.mco" in result.stderr


@requires_shared
def test_proj_and_deproj_modes(tmp_path):
    proj = run_maltpy(
        "-c", "pp", "-m", "proj", "-pp", "head", "-i", TRAIN, "-o", "proj.conll", "-v", "off", cwd=tmp_path
    )
    assert proj.returncode == 0 and proj.stderr == b""
    assert (tmp_path / "proj.conll").read_bytes() == run_maltpy("proj", "-pp", "head", "-i", TRAIN).stdout
    assert (tmp_path / "proj.conll").read_bytes() != TRAIN.read_bytes()  # arcs were lifted
    deproj = run_maltpy("-c", "pp", "-m", "deproj", "-pp", "head", "-i", "proj.conll", "-v", "off", cwd=tmp_path)
    assert deproj.returncode == 0 and deproj.stdout == TRAIN.read_bytes()


@pytest.mark.parametrize(
    "args, message",
    [
        (["-c", "swe", "-zz", "1"], "-zz: not one of MaltParser's flags"),
        (["-c", "swe", "-lv", "silent"], "-lv (lib-verbosity): a MaltParser option maltpy does not take"),
        (["-c", "swe", "--bogus-name=1"], "--bogus-name: not one of MaltParser's options"),
        (["--format=conllx", "-c", "swe"], "--format is ambiguous"),
        (["-c", "swe", "swe"], "swe: not an option"),
        (["-c", "swe", "-i"], "-i needs a value"),
        (["-m", "parse", "-i", "x"], "no configuration name"),
        (["-c", "nowhere/swe"], "no model nowhere/swe.mco or nowhere/swe.mpm"),
        (["-c", "swe", "-w", "nowhere"], "-w nowhere: no such folder"),
        (["-c", "swe", "-m", "unpack"], "-m unpack: MaltParser's unpack mode has no maltpy counterpart"),
        (["-c", "swe", "-m", "frobnicate"], "-m frobnicate: not one of MaltParser's modes"),
        (["-c", "swe", "-m", "deproj"], "-m deproj needs the marking strategy: no swe.mco or swe.mpm saved one"),
        (["-m", "deproj"], "-m deproj needs -c NAME (the marking strategy NAME.mco saved) or -pp"),
        (["-c", "swe", "-m", "info", "-a", "bogus"], "singlemalt.parsing_algorithm: 'bogus' is not one of"),
        (["-c", "swe", "-if", "malttab"], "-if malttab: maltpy reads and writes conllx and conllu only"),
        (["-c", "swe", "-ic", "ISO-8859-1"], "-ic ISO-8859-1: maltpy reads and writes UTF-8 only"),
        (["-c", "swe", "-if", "conllx", "-of", "conllu.xml"], "-of conllu.xml: maltpy writes in the input's format"),
        (["-c", "swe", "-v", "loud"], "-v loud: not one of off"),
    ],
)
def test_errors_are_one_line_and_status_2(capfd, monkeypatch, tmp_path, args, message):
    monkeypatch.chdir(tmp_path)  # where no model is
    assert main(args) == 2
    out, err = capfd.readouterr()
    assert out == "" and err == f"maltpy: error: command line: {err.split(': ', 3)[3]}" and err.count("\n") == 1
    assert err.startswith(f"maltpy: error: command line: {message}"), err


def test_maltpys_own_command_lines_stay_maltpys(capfd):
    assert main(["--version"]) == 0 and capfd.readouterr().out.startswith("maltpy, version")
    assert main(["--threads", "1", "--help"]) == 0 and "Commands:" in capfd.readouterr().out
    assert main(["frobnicate"]) == 2 and "No such command" in capfd.readouterr().err


@requires_shared
def test_deproj_takes_the_marking_strategy_the_configuration_saved(tmp_path, learned):
    # MaltParser's deproj mode reads -pp from NAME.mco's saved options, over the command line's
    # (a saved option wins there); the strategy matters: head+path's marks read as path's are not
    # these trees
    shutil.copy(MCO_HEAD_PATH, tmp_path / "hp.mco")
    shutil.copy(learned[0], tmp_path / "tal.mpm")  # maltpy's, learned with -pp path
    for strategy, name, other in (("head+path", "hp", "baseline"), ("path", "tal", "head")):
        projected = tmp_path / f"{name}.proj.conll"
        assert run_in_process("proj", "-q", "-pp", strategy, "-i", TRAIN, "-o", projected).returncode == 0
        assert run_in_process("deproj", "-q", "-pp", other, "-i", projected).stdout != TRAIN.read_bytes()
        result = run_in_process("-c", name, "-w", tmp_path, "-m", "deproj", "-i", projected, "-v", "off")
        assert result.returncode == 0 and result.stderr == b"" and result.stdout == TRAIN.read_bytes()
        result = run_in_process("-c", name, "-w", tmp_path, "-m", "deproj", "-pp", other, "-i", projected, "-v", "off")
        assert result.stdout == TRAIN.read_bytes()
        assert result.stderr == b"maltpy: warning: -m deproj does not use -pp: ignored\n"


OPTION_FILE = """<?xml version="1.0" encoding="UTF-8"?>
<experiment>
  <optioncontainer>
    <optiongroup groupname="config">
      <option name="name" value="{name}"/>
    </optiongroup>
    <optiongroup groupname="{group}">
      <option name="{option}" value="{value}"/>
    </optiongroup>
  </optioncontainer>
</experiment>
"""


@pytest.mark.parametrize(
    "mode, group, option, value, message",
    [
        ("learn", "singlemalt", "parsing_algorithm", "bogus", "singlemalt.parsing_algorithm: 'bogus' is not one of"),
        ("learn", "nivre", "allow_root", "maybe", "nivre.allow_root: expected true or false, not 'maybe'"),
        ("learn", "lib", "options", "-s 99", "lib.options: -s 99 is outside 0..1"),  # libsvm's, -l on the command line
        ("parse", "nivre", "enforce_tree", "maybe", "nivre.enforce_tree: expected true or false"),
        ("proj", "pproj", "marking_strategy", "headpath", "pproj.marking_strategy: 'headpath' is not one of"),
        ("deproj", "pproj", "marking_strategy", "headpath", "pproj.marking_strategy: 'headpath' is not one of"),
        ("learn", "input", "format", "malttab", "input-format malttab: maltpy reads and writes conllx and conllu"),
    ],
)
def test_an_option_files_bad_value_is_reported_at_its_file_and_line(tmp_path, mode, group, option, value, message):
    path = tmp_path / "options.xml"
    path.write_text(OPTION_FILE.format(name="tal", group=group, option=option, value=value))
    result = run_in_process("-f", path, "-m", mode, "-l", "libsvm", "-i", TRAIN, "-w", tmp_path)
    assert message in assert_one_line_error(result, f"{path}:8: ")
    assert os.listdir(tmp_path) == ["options.xml"]


def test_a_configuration_name_from_an_option_file_is_its_files(tmp_path):
    path = tmp_path / "options.xml"
    path.write_text(OPTION_FILE.format(name="nowhere", group="nivre", option="enforce_tree", value="true"))
    result = run_in_process("-f", path, "-w", tmp_path, "-i", TRAIN)
    message = f"no model {tmp_path / 'nowhere.mco'} or {tmp_path / 'nowhere.mpm'}"
    assert assert_one_line_error(result, f"{path}:5: ") == f"maltpy: error: {path}:5: {message}\n"


def test_an_option_file_that_is_a_directory(tmp_path):
    result = run_in_process("-f", tmp_path)
    message = assert_one_line_error(result, f"{tmp_path}: ")
    assert message == f"maltpy: error: {tmp_path}: is a directory, not an option file\n"


@requires_shared
def test_parse_modes_time_options_are_checked_against_the_models_algorithm(tmp_path):
    """-cd and -nt in parse mode are read by the model's algorithm or not, not by -a's default:
    -cd on a covnonproj .mco was refused ("nivreeager ignores it"), and -cd or -nt from an option
    file with a stacklazy .mco was blamed on the command line or on nivreeager."""
    sentences = MCO_TEST.read_bytes().split(b"\n\n")
    text = b"\n\n".join(sentences[:20]) + b"\n\n"
    shutil.copy(MCO.with_name("sv-covnonproj-liblinear-malt1.9.2.mco"), tmp_path / "cov.mco")
    shutil.copy(MCO.with_name("sv-stacklazy-liblinear-malt1.9.2.mco"), tmp_path / "lazy.mco")
    bounded = run_in_process("-c", "cov", "-m", "parse", "-cd", "1", "-w", tmp_path, input=text)
    assert bounded.returncode == 0, bounded.stderr
    assert bounded.stdout == run_in_process("parse", "-m", tmp_path / "cov.mco", "-cd", "1", input=text).stdout
    path = tmp_path / "options.xml"
    given = (("covington", "max_degree", "1", "-cd"), ("nivre", "enforce_tree", "true", "-nt"))
    for group, option, value, flag in given:
        path.write_text(OPTION_FILE.format(name="lazy", group=group, option=option, value=value))
        result = run_in_process("-f", path, "-w", tmp_path, "-o", tmp_path / "out.conll", input=text)
        message = assert_one_line_error(result, f"{path}:8: {group}.{option} ({flag}) is an option of ")
        assert message.endswith("; stacklazy ignores it\n")
    assert not (tmp_path / "out.conll").exists()
