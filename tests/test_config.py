from pathlib import Path

import pytest
from conftest import ROOT

from maltpy.config import default_config, dump_config, load_config
from maltpy.errors import MaltpyError
from maltpy.learners.options import parse_learner_options


def write(tmp_path: Path, text: str) -> str:
    path = tmp_path / "run.yaml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_defaults_are_maltparser_1_9_2s():
    c = default_config()
    assert c.singlemalt.parsing_algorithm == "nivreeager"
    assert c.guide.learner == "liblinear" and c.guide.features is None
    assert c.guide.data_split_threshold == 50 and c.guide.data_split_column is None
    assert dict(c.lib.options) == {"s": 4, "c": 0.1, "e": 0.1, "B": -1.0}
    assert (c.nivre.allow_root, c.nivre.allow_reduce) == (True, False)
    assert (c.covington.allow_root, c.covington.allow_shift, c.covington.max_degree) == (True, False, None)
    assert c.graph.root_label == "ROOT"
    assert (c.pproj.marking_strategy, c.pproj.covered_root, c.pproj.lifting_order) == ("none", "none", "shortest")


def test_libsvm_defaults_are_maltparsers():
    options = parse_learner_options("", "libsvm")
    assert {k: options[k] for k in "stdgrce"} == {"s": 0, "t": 1, "d": 2, "g": 0.2, "r": 0.0, "c": 1.0, "e": 1.0}


def test_libsvm_class_weights_by_name(tmp_path):
    weights = {"RE": 2.0, "LA~nsubj": 0.5, "RA~acl_relcl": 3.0}
    assert parse_learner_options("-c 1 -wRE 2 -wLA~nsubj 0.5 -wRA~acl:relcl 3", "libsvm")["w"] == {
        **{k: v for k, v in weights.items() if k != "RA~acl_relcl"}, "RA~acl:relcl": 3.0}  # fmt: skip
    assert parse_learner_options({"w": weights}, "libsvm")["w"] == weights  # a label with _ needs a mapping
    assert parse_learner_options({"wRE": 2, "c": 1}, "libsvm")["w"] == {"RE": 2.0}
    assert parse_learner_options("", "libsvm")["w"] == {}
    assert parse_learner_options("-w 3", "knn")["w"] == 3  # TiMBL's -w, feature weighting, is another option
    # what `maltpy config` prints reads back the same
    c = load_config(None, {("guide", "learner"): "libsvm", ("lib", "options"): "-wRE 2 -wLA~nsubj 0.5"})
    assert load_config(write(tmp_path, dump_config(c))) == c


@pytest.mark.parametrize("path", sorted((ROOT / "configs").glob("*.yaml")), ids=lambda p: p.name)
def test_shipped_configs_say_what_their_names_say(path, tmp_path):
    """Each shipped config is named ALGORITHM-LEARNER (maltparser-defaults.yaml: every option at
    MaltParser 1.9.2's default; nivre2008-libsvm.yaml: the paper's settings, tested below), sets
    what its name says, and reads back the same from what `maltpy config` prints of it."""
    c = load_config(str(path))
    if path.stem == "maltparser-defaults":
        assert c == default_config()
    elif path.stem != "nivre2008-libsvm":
        algorithm, learner = path.stem.split("-")
        assert (c.singlemalt.parsing_algorithm, c.guide.learner) == (algorithm, learner)
    assert load_config(write(tmp_path, dump_config(c))) == c


def test_the_papers_config():
    c = load_config(str(ROOT / "configs" / "nivre2008-libsvm.yaml"))
    assert c.guide.learner == "libsvm" and c.lib.options["c"] == 0.5 and c.lib.options["e"] == 1.0
    assert (c.guide.data_split_column, c.guide.data_split_structure) == ("POSTAG", "Input[0]")


def test_a_file_and_command_line_overrides(tmp_path):
    path = write(
        tmp_path,
        "singlemalt:\n  parsing_algorithm: covnonproj\ncovington:\n  allow_shift: true\n"
        "guide:\n  learner: libsvm\n  features: models/my.xml\nlib:\n  options: {c: 0.5}\n",
    )
    c = load_config(path)
    assert c.singlemalt.parsing_algorithm == "covnonproj" and c.covington.allow_shift is True
    assert c.lib.options["c"] == 0.5 and c.lib.options["t"] == 1
    assert c.guide.features == str(tmp_path / "models" / "my.xml")  # relative to the config's folder
    c = load_config(
        path,
        {
            ("singlemalt", "parsing_algorithm"): "stacklazy",
            ("covington", "allow_shift"): "false",
            ("lib", "options"): "-c_0.25_-e_0.5",
            ("guide", "features"): "x.xml",
        },
    )
    assert c.singlemalt.parsing_algorithm == "stacklazy" and c.covington.allow_shift is False
    assert (c.lib.options["c"], c.lib.options["e"]) == (0.25, 0.5)
    assert c.guide.features == "x.xml"  # from the command line: as given


@pytest.mark.parametrize(
    "text, line, message",
    [
        ("nivre:\n  allow_rooot: true\n", 2, "unknown key nivre.allow_rooot"),
        ("nivrre:\n  allow_root: true\n", 1, "unknown option group 'nivrre'"),
        ("nivre:\n  allow_root: 3\n", 2, "nivre.allow_root: expected true or false, not 3"),
        ("nivre:\n  allow_root: 'true'\n", 2, "nivre.allow_root: expected true or false"),
        ("guide:\n  learner: svm\n", 2, "guide.learner: 'svm' is not one of"),
        ("guide:\n  data_split_threshold: many\n", 2, "guide.data_split_threshold: expected an integer"),
        ("guide:\n  data_split_threshold: -1\n", 2, "must be at least 0"),
        ("guide:\n  data_split_column: POSTAG\n", 2, "a data split needs both"),
        ("guide:\n  data_split_column: TAG\n  data_split_structure: Input[0]\n", 2, "'TAG' is not a column name"),
        ("guide:\n  data_split_column: POSTAG\n  data_split_structure: Input(0)\n", 3, "is not an address"),
        ("singlemalt:\n  parsing_algorithm: 3planar\n", 2, "'3planar' is not one of"),
        ("singlemalt:\n  parsing_algorithm: [nivreeager]\n", 2, "expected a single value"),
        ("covington:\n  max_degree: 1.5\n", 2, "covington.max_degree: expected an integer"),
        ("lib:\n  options: '-c'\n", 2, "every flag needs a value"),
        ("lib:\n  options: '-t 1'\n", 2, "-t is not a liblinear option"),
        ("lib:\n  options: '-c -1'\n", 2, "-c -1 must be greater than 0"),
        ("lib:\n  options: {c: fast}\n", 2, "-c takes a number"),
        ("guide:\n  learner: libsvm\nlib:\n  options: '-d 2.5'\n", 4, "-d takes an integer"),
        ("guide:\n  learner: libsvm\n  learner: liblinear\n", 3, "key 'learner' is given twice"),
        ("lib:\n  options:\n    c: 0.1\n    c: 0.2\n", 4, "key 'c' is given twice"),
        ("guide:\n  learner: libsvm\nlib:\n  options: {w: {RE: 2, RE: 3}}\n", 4, "key 'RE' is given twice"),
        ("guide: [1, 2\n", 2, "not valid YAML"),
        ("- nivre\n", 1, "the file must be a mapping"),
        ("graph:\n  root_label: ''\n", 2, "graph.root_label: '' is empty"),
        ('graph:\n  root_label: "a\\tb"\n', 2, "is not a label CoNLL can hold"),
        ("graph:\n  root_label: ' a'\n", 2, "has surrounding blanks"),
        # hostile YAML: nothing a configuration needs, refused before it is built
        ("lib:\n  options: &a [x, x]\nguide: *a\n", 2, "YAML anchors (&) are not allowed"),
        ("guide: !!python/object:os.system\n  learner: x\n", 1, "YAML tags (!) are not allowed"),
        ("guide:\n  learner: !custom libsvm\n", 2, "YAML tags (!) are not allowed"),
        ("guide:\n  <<: {learner: libsvm}\n", 2, "YAML merge keys (<<) are not allowed"),
        # learner options that train nothing are refused before training
        ("lib:\n  options: '-c 0'\n", 2, "-c 0 must be greater than 0"),
        ("lib:\n  options: '-e 0'\n", 2, "-e 0 must be greater than 0"),
        ("guide:\n  learner: libsvm\nlib:\n  options: '-c 0'\n", 4, "-c 0 must be greater than 0"),
        ("guide:\n  learner: libsvm\nlib:\n  options: '-e 0'\n", 4, "-e 0 must be greater than 0"),
        ("guide:\n  learner: libsvm\nlib:\n  options: '-m 0'\n", 4, "-m 0 must be greater than 0"),
        # LIBSVM's class weights: a class by name, a positive weight, once
        ("guide:\n  learner: libsvm\nlib:\n  options: '-w1 2'\n", 4, "-w1: LIBSVM's class numbers are maltpy's own"),
        ("guide:\n  learner: libsvm\nlib:\n  options: '-wRE 0'\n", 4, "-wRE 0 must be greater than 0"),
        ("guide:\n  learner: libsvm\nlib:\n  options: '-wRE'\n", 4, "'-wRE' needs a weight"),
        ("guide:\n  learner: libsvm\nlib:\n  options: '-wRE 2 -wRE 3'\n", 4, "-wRE is given twice"),
        ("guide:\n  learner: libsvm\nlib:\n  options: {w: {re: 2}}\n", 4, "-wre: not a class"),
        ("guide:\n  learner: libsvm\nlib:\n  options: {w: 2}\n", 4, "-w takes a mapping of classes"),
        ("lib:\n  options: '-wRE 2'\n", 2, "-wRE is not a liblinear option"),
        # the split address is checked against the algorithm, as feature addresses are
        (
            "guide:\n  data_split_column: POSTAG\n  data_split_structure: Lookahead[0]\n",
            3,
            "Lookahead[...] is not an address of nivreeager",
        ),
    ],
)
def test_errors_name_file_line_and_key(tmp_path, text, line, message):
    path = write(tmp_path, text)
    with pytest.raises(MaltpyError) as caught:
        load_config(path)
    assert (caught.value.file, caught.value.line) == (path, line)
    assert message in caught.value.message


def test_command_line_errors_say_so():
    with pytest.raises(MaltpyError, match="singlemalt.parsing_algorithm") as caught:
        load_config(None, {("singlemalt", "parsing_algorithm"): "arcswift"})
    assert caught.value.file == "command line"


def test_an_empty_file_is_all_defaults(tmp_path):
    assert load_config(write(tmp_path, "# nothing\n")) == default_config()


def test_missing_config_file(tmp_path):
    with pytest.raises(MaltpyError, match="no such config file"):
        load_config(str(tmp_path / "absent.yaml"))


def test_an_alias_bomb_is_refused_in_bounded_time_and_message(tmp_path):
    # "billion laughs": nine levels of nine aliases would expand to 9**9 items in a message
    lines = ["lib:", "  options:", '    a0: &a0 ["lol"]']
    lines += [f"    a{i}: &a{i} [{', '.join(['*a' + str(i - 1)] * 9)}]" for i in range(1, 10)]
    with pytest.raises(MaltpyError, match="YAML anchors") as caught:
        load_config(write(tmp_path, "\n".join(lines) + "\n"))
    assert len(str(caught.value)) < 300


def test_an_unbounded_value_is_cut_in_the_message(tmp_path):
    with pytest.raises(MaltpyError) as caught:
        load_config(write(tmp_path, "singlemalt:\n  parsing_algorithm: " + "x" * 100_000 + "\n"))
    assert "is not one of" in str(caught.value) and len(str(caught.value)) < 700


def test_single_root_takes_yaml_booleans_and_its_words(tmp_path):
    from maltpy.config import load_config

    for text, expected in (("false", "false"), ("true", "true"), ("auto", "auto"), ("'false'", "false")):
        path = tmp_path / "c.yaml"
        path.write_text(f"graph:\n  single_root: {text}\n")
        assert load_config(str(path)).graph.single_root == expected


HUGE = "9" * 5000  # more digits than Python turns into an int by default
DEEP = "head(" * 1000 + "Stack[0]" + ")" * 1000
SPLIT = "guide:\n  data_split_column: POSTAG\n  data_split_structure: "


@pytest.mark.parametrize("text, line, message", [
    (SPLIT + "Input[99999999999999999999999]\n", 3, "is larger than 2147483647"),
    (SPLIT + f"Stack[{HUGE}]\n", 3, "is larger than 2147483647"),
    (SPLIT + DEEP + "\n", 3, "address functions nested more than 32 deep"),
    (SPLIT + "Stack[0] Input[0]\n", 3, "unexpected"),
    ("guide:\n  data_split_threshold: 99999999999999999999999\n", 2, "must be at most 2147483647"),
    (f"guide:\n  data_split_threshold: {HUGE}\n", 2, "not a value a configuration holds"),
    (f"covington:\n  max_degree: {HUGE}\n", 2, "not a value a configuration holds"),
    (f"lib:\n  options: {{c: {HUGE}}}\n", 2, "not a value a configuration holds"),
    (f"lib:\n  options: '-s {HUGE}'\n", 2, "-s 999999999999999999999999999999... is outside 0..7"),
    (f"guide:\n  learner: knn\nlib:\n  options: {{k: '{HUGE}'}}\n", 4, "is outside 1..100000"),
])  # fmt: skip
def test_a_number_or_address_beyond_its_bound_names_file_line_and_key(tmp_path, text, line, message):
    path = write(tmp_path, text)
    with pytest.raises(MaltpyError) as caught:
        load_config(path)
    assert (caught.value.file, caught.value.line) == (path, line)
    assert message in caught.value.message and len(str(caught.value)) < 1000


def test_the_same_bounds_on_the_command_line():
    for flag, value, message in [
        (("guide", "data_split_structure"), "Input[99999999999999999999999]", "is larger than 2147483647"),
        (("guide", "data_split_structure"), DEEP, "nested more than 32 deep"),
        (("guide", "data_split_threshold"), HUGE, "must be at most 2147483647, not 999"),
        (("covington", "max_degree"), "2147483648", "must be at most 2147483647, not 2147483648"),
        (("lib", "options"), f"-c 0.1 -s {HUGE}", "is outside 0..7"),
    ]:
        overrides = {flag: value, ("guide", "data_split_column"): "POSTAG"}
        if flag != ("guide", "data_split_structure"):
            overrides[("guide", "data_split_structure")] = "Input[0]"
        with pytest.raises(MaltpyError) as caught:
            load_config(None, overrides)
        assert caught.value.file == "command line" and message in caught.value.message, caught.value
    # the address grammar is the feature language's: what a feature may read, a data split may
    assert load_config(None, {("guide", "data_split_column"): "POSTAG",
                              ("guide", "data_split_structure"): "rdep2(Stack[2147483647])"}) is not None  # fmt: skip


def test_learn_and_config_refuse_them_in_one_line(tmp_path):
    from conftest import EXAMPLE, assert_one_line_error, run_in_process, run_maltpy

    train = EXAMPLE / "en-train.conllu"
    for k, structure in enumerate(("Input[99999999999999999999999]", DEEP)):
        for command in (["learn", "-i", train, "-m", tmp_path / "m.mpm"], ["config"]):
            run = run_maltpy if k == 0 else run_in_process  # the first as processes, the others by main here
            result = run(*command, "-d", "POSTAG", "-s", structure)
            assert_one_line_error(result, "command line: guide.data_split_structure: ")
    assert_one_line_error(run_in_process("config", "-c", write(tmp_path, f"guide:\n  data_split_threshold: {HUGE}\n")),
                          f"{tmp_path / 'run.yaml'}:2: not a value")  # fmt: skip
    assert not (tmp_path / "m.mpm").exists()


@pytest.mark.parametrize("structure", [
    "rdep2(Stack[0])", "rdep2 ( Stack [ 0 ] )", "panc(pldesc(Input[1]))", "Left[0]", "foo(Stack[0])",
    "head(Stack[0)", "Stack[0] Input[0]", "InputColumn(POSTAG, Stack[0])",
])  # fmt: skip
def test_a_data_split_structure_is_any_address_a_feature_may_read(structure):
    # MaltParser's -s takes an address expression, the one a feature gives InputColumn: the data
    # split and the feature model read it by one grammar, and refuse the same ones.
    from maltpy.features.spec import parse_feature_model

    try:
        parse_feature_model(f"InputColumn(POSTAG, {structure})".encode(), "f.txt", "nivreeager")
        as_feature = None
    except MaltpyError as e:
        as_feature = e.message
    overrides = {("guide", "data_split_column"): "POSTAG", ("guide", "data_split_structure"): structure}
    try:
        config = load_config(None, overrides)
        as_split = None
    except MaltpyError as e:
        as_split = e.message
    assert (as_split is None) == (as_feature is None), (as_split, as_feature)
    if as_split is None:
        assert config.guide.data_split_structure == structure
    elif "is not an address of" in as_feature:  # the same words for an address of another algorithm
        assert as_split.endswith(as_feature.partition("): ")[2])


# --- options an algorithm would ignore (issue 44, items 3, 7 and 8) ------------------------------

#: A value other than the default for every option that not every algorithm reads (config.USED_BY),
#: and what makes it do something where it is read (the options it acts on).
IGNORABLE = {
    ("singlemalt", "null_value"): ("none", {}),
    ("singlemalt", "parsing_direction"): ("right-to-left", {}),
    ("singlemalt", "root_position"): ("end", {}),
    ("guide", "features"): ("features.xml", {}),
    ("guide", "learner"): ("libsvm", {}),
    ("lib", "options"): ("-c 0.5", {}),
    ("guide", "oracle"): ("dynamic", {}),
    ("guide", "data_split_column"): ("POSTAG", {("guide", "data_split_structure"): "Input[0]"}),
    ("guide", "data_split_structure"): ("Input[0]", {("guide", "data_split_column"): "POSTAG"}),
    ("guide", "data_split_threshold"): ("10", {("guide", "data_split_column"): "POSTAG",
                                               ("guide", "data_split_structure"): "Input[0]"}),
    ("mst", "order"): ("2", {}),
    ("mst", "decode_type"): ("non-proj", {}),
    ("mst", "training_k"): ("2", {("mst", "decode_type"): "non-proj"}),
    ("mst", "iters"): ("3", {}),
    ("mst", "loss_type"): ("nopunc", {}),
    ("nivre", "allow_root"): ("false", {}),
    ("nivre", "allow_reduce"): ("true", {}),
    ("nivre", "enforce_tree"): ("true", {}),
    ("covington", "allow_root"): ("false", {}),
    ("covington", "allow_shift"): ("true", {}),
    ("covington", "max_degree"): ("1", {}),
    ("covington", "bound_in_training"): ("true", {("covington", "max_degree"): "1"}),
    ("multiplanar", "planar_root_handling"): ("relaxed", {}),
    ("planar", "acyclicity"): ("false", {}),
    ("planar", "no_covered_roots"): ("true", {}),
    ("planar", "connectedness"): ("reduceonly", {}),
    ("2planar", "reduceonswitch"): ("true", {}),
}  # fmt: skip


def test_every_option_an_algorithm_ignores_is_refused_naming_it_unless_at_its_default():
    from maltpy.config import FLAGS, OPTIONS, USED_BY
    from maltpy.transition import SYSTEMS

    assert set(IGNORABLE) == set(USED_BY)  # the table covers every option some algorithm ignores
    algorithm = ("singlemalt", "parsing_algorithm")
    defaults = default_config().to_dict()
    for key, (value, companions) in IGNORABLE.items():
        name = f"{key[0]}.{key[1]} (-{OPTIONS[key].flag})"
        for other in (*SYSTEMS, "mst"):
            if other in USED_BY[key]:  # read: taken (a data split at an address of the algorithm's)
                address = f"{SYSTEMS[other].base_addresses[0]}[0]" if other in SYSTEMS else None
                given = {k: address if v == "Input[0]" else v for k, v in {key: value, **companions}.items()}
                assert load_config(None, {algorithm: other, **given})
                continue
            with pytest.raises(MaltpyError) as caught:
                load_config(None, {algorithm: other, key: value})
            assert caught.value.file == "command line" and caught.value.message.startswith(f"{name}"), caught.value
            assert other in caught.value.message or "-a mst" in caught.value.message
            if key != ("lib", "options"):  # at its default it changes nothing: taken
                default = defaults[key[0]][key[1]]
                assert load_config(None, {algorithm: other, key: "" if default is None else str(default).lower()})
    # lib.options' default is the learner's; -l liblinear is the default learner
    assert load_config(None, {algorithm: "mst", ("lib", "options"): "-s 4 -c 0.1", ("guide", "learner"): "liblinear"})
    assert FLAGS["mo"] == ("mst", "order")


@pytest.mark.parametrize("flags, message", [
    (["-T", "10"], "guide.data_split_threshold (-T): there is no data split (-d, -s)"),
    (["-a", "covnonproj", "-cdt", "true"], "covington.bound_in_training (-cdt): there is no bound (-cd)"),
    (["-plo", "deepest"], "pproj.lifting_order (-plo): nothing is lifted without a marking strategy (-pp)"),
    (["-pcr", "ignore"], "pproj.covered_root (-pcr): ignore leaves covered roots"),
])  # fmt: skip
def test_an_option_left_with_nothing_to_do_is_refused(flags, message):
    from conftest import assert_one_line_error, run_in_process

    assert_one_line_error(run_in_process("config", *flags), f"command line: {message}")
    companions = {"-T": ["-d", "POSTAG", "-s", "Input[0]"], "-cdt": ["-cd", "1"], "-plo": ["-pp", "head"],
                  "-pcr": ["-pp", "head"]}  # fmt: skip
    assert run_in_process("config", *flags, *companions[flags[-2]]).returncode == 0
    if flags[0] in ("-plo", "-pcr"):  # maltpy proj (and MaltParser's -m proj) alike
        train = ROOT / "maltpy" / "example" / "en-train.conllu"
        assert_one_line_error(run_in_process("proj", "-pp", "none", *flags, "-i", train), f"command line: {message}")
        assert run_in_process("proj", "-pp", "head", *flags, "-i", train).returncode == 0


@pytest.mark.parametrize("learner, ignored, acts", [
    ("libsvm", "-t 0 -g 0.5", "-t 2 -g 0.5"),  # gamma: not the linear kernel's
    ("libsvm", "-t 2 -d 3", "-t 1 -d 3"),  # degree: the polynomial kernel's only
    ("libsvm", "-t 2 -r 1", "-t 3 -r 1"),  # coef0: the polynomial and sigmoid kernels'
    ("libsvm", "-s 1 -c 2", "-s 0 -c 2"),  # C: not nu-SVC's
    ("libsvm", "-s 1 -wRE 2", "-s 0 -wRE 2"),  # class weights scale C
    ("libsvm", "-n 0.3", "-s 1 -n 0.3"),  # nu: nu-SVC's only
    ("libsvm", "-p 0.2", "-p 0.1"),  # the regressions' epsilon: taken at its default only
    ("libsvm", "-b 1", "-b 0"),  # the probability model, never read
    ("knn", "-m O -L 2", "-m M -L 2"),  # MVDM's threshold
])  # fmt: skip
def test_a_learner_option_the_others_leave_unread_is_refused(tmp_path, learner, ignored, acts):
    # LIBSVM and TiMBL take these and change nothing: refused as the algorithms' options are,
    # from the flags and a file alike, unless the option holds its default
    from conftest import assert_one_line_error, run_in_process

    flag = next(f for f in ignored.split() if f.startswith("-") and f[1] not in "st" and f != "-m")
    result = run_in_process("config", "-l", learner, "-lo", ignored)
    assert_one_line_error(result, f"command line: lib.options: {flag}")
    assert f"{learner} would ignore it" in result.stderr.decode()
    assert run_in_process("config", "-l", learner, "-lo", acts).returncode == 0
    config = tmp_path / "c.yaml"
    config.write_text(f"guide:\n  learner: {learner}\nlib:\n  options: \"{ignored}\"\n", encoding="utf-8")
    assert_one_line_error(run_in_process("config", "-c", config), f"{config}:4: lib.options: {flag}")


def test_a_data_split_or_ignored_option_is_one_error_at_every_entry_point(tmp_path, monkeypatch):
    # MSTParser's models have no data split: once a traceback (KeyError: 'mst' in features/spec.py)
    from conftest import SHARED, assert_one_line_error, run_in_process

    monkeypatch.chdir(tmp_path)
    train = SHARED / "data" / "maltparser-examples" / "talbanken05_train.conll"
    split = "guide.data_split_column (-d): a data split is not defined for MSTParser's graph-based models"
    yaml_file = write(tmp_path, "singlemalt:\n  parsing_algorithm: mst\nguide:\n  data_split_column: POSTAG\n"
                                "  data_split_structure: Input[0]\n")  # fmt: skip
    flags = ["-a", "mst", "-d", "POSTAG", "-s", "Input[0]"]
    for args, where in [
        (["learn", *flags, "-i", train, "-m", "x.mpm"], "command line: "),
        (["config", *flags], "command line: "),
        (["learn", "-c", yaml_file, "-i", train, "-m", "x.mpm"], f"{yaml_file}:4: "),
        (["config", "-c", yaml_file], f"{yaml_file}:4: "),
        (["-c", "x", "-m", "learn", *flags, "-i", train], "command line: "),
        (["blend", "-i", train, "-m", "b.mpm", "--member", " ".join(flags)], "command line: member "),
    ]:  # fmt: skip
        assert split in assert_one_line_error(run_in_process(*args), where)
    # a transition system's option with another algorithm, MST's with a transition system, alike
    for flags, message in [(["-a", "stacklazy", "-mo", "2"], "mst.order (-mo) is an option of mst; stacklazy"),
                           (["-a", "nivrestandard", "-ne", "true"], "nivre.allow_reduce (-ne) is an option of "),
                           (["-a", "mst", "-l", "knn"], "guide.learner (-l): -a mst learns its weights by MIRA"),
                           (["-a", "mst", "-nt", "true"], "nivre.enforce_tree (-nt) is an option of nivreeager")]:
        for args in (["learn", *flags, "-i", train, "-m", "x.mpm"], ["-c", "x", "-m", "learn", *flags, "-i", train],
                     ["blend", "-i", train, "-m", "b.mpm", "--member", " ".join(flags)]):  # fmt: skip
            assert message in assert_one_line_error(run_in_process(*args), "command line: ")
    assert list(tmp_path.iterdir()) == [Path(yaml_file)]  # no model, no blend


def test_mst_errors_blame_the_option_not_the_treebank(tmp_path):
    from conftest import SHARED, assert_one_line_error, run_in_process

    train = SHARED / "data" / "maltparser-examples" / "talbanken05_train.conll"
    transition_model = ROOT / "feature_models" / "liblinear" / "conllx" / "nivreeager.txt"
    for features in (tmp_path / "missing.xml", transition_model):
        result = run_in_process("learn", "-a", "mst", "-F", features, "-i", train, "-m", tmp_path / "x.mpm")
        assert_one_line_error(result, "command line: guide.features (-F): -a mst has MSTParser's features")
    result = run_in_process("learn", "-a", "mst", "-mo", "2", "-mk", "3", "-i", train, "-m", tmp_path / "x.mpm")
    assert_one_line_error(result, "command line: mst.training_k (-mk) 3 with mst.order (-mo) 2 and mst.decode_type "
                                  "(-mdt) proj needs the k best trees")  # fmt: skip
    config = write(tmp_path, "singlemalt:\n  parsing_algorithm: mst\nmst:\n  order: 2\n  training_k: 3\n")
    assert_one_line_error(run_in_process("learn", "-c", config, "-i", train, "-m", tmp_path / "x.mpm"),
                          f"{config}:5: mst.training_k (-mk) 3")  # fmt: skip
    result = run_in_process("learn", "-a", "mst", "--save-instances", tmp_path / "inst", "-i", train,
                            "-m", tmp_path / "x.mpm")  # fmt: skip
    assert_one_line_error(result, "command line: --save-instances writes the instances of a transition-based")
    assert list(tmp_path.iterdir()) == [Path(config)]  # no model, no instance folder
