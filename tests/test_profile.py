"""The defaults' profile (``-P``, defaults.profile; config.with_profile): plain learning on a
CoNLL-U treebank takes the defaults measured best on UD treebanks, everything else MaltParser's."""

from __future__ import annotations

import pytest
from conftest import DATA, EXAMPLE, SWEMALT_TRAIN, run_maltpy
from test_direction import las

import maltpy

TRAIN = EXAMPLE / "en-train.conllu"
TEST = EXAMPLE / "en-test.conllu"


def settings(model) -> tuple[str, str, str, str]:
    c = model.config
    return c.defaults.profile, c.singlemalt.parsing_algorithm, c.pproj.marking_strategy, model.feature_model.source


def test_plain_learning_on_conllu_takes_the_ud_profile_and_parses_better_than_maltparsers_defaults(tmp_path):
    ud = maltpy.learn(TRAIN, tagger_columns="none")
    assert settings(ud) == ("ud", "nivrestandard", "head", "default: liblinear/ud/nivrestandard.txt")
    assert ud.config.tagger.jackknife == 0  # measured no better with predicted tags (config.with_profile)
    malt = maltpy.learn(TRAIN, tagger_columns="none", profile="maltparser")
    assert settings(malt) == ("maltparser", "nivreeager", "none", "default: liblinear/conllu/nivreeager.txt")
    # the command line gives the same model as the API
    result = run_maltpy("learn", "-q", "-tc", "none", "-i", TRAIN, "-m", tmp_path / "ud.mpm")
    assert result.returncode == 0, result.stderr.decode()
    test = TEST.read_text(encoding="utf-8")
    assert maltpy.load_model(tmp_path / "ud.mpm").parse_conll(test) == ud.parse_conll(test)
    assert maltpy.load_model(tmp_path / "ud.mpm").config.defaults.profile == "ud"


def test_the_flags_override_the_profile_and_a_graph_algorithm_gets_no_pseudo_projective_default():
    eager = maltpy.learn(TRAIN, tagger_columns="none", algorithm="nivreeager")
    assert settings(eager) == ("ud", "nivreeager", "head", "default: liblinear/ud/nivreeager.txt")
    plain = maltpy.learn(TRAIN, tagger_columns="none", marking_strategy="none")
    assert settings(plain)[1:3] == ("nivrestandard", "none")
    covington = maltpy.learn(TRAIN, tagger_columns="none", algorithm="covnonproj")
    assert settings(covington) == ("ud", "covnonproj", "head", "default: liblinear/ud/covnonproj.txt")
    planar = maltpy.learn(TRAIN, tagger_columns="none", algorithm="planar")  # no ud model: MaltParser's
    assert settings(planar) == ("ud", "planar", "head", "default: liblinear/conllu/planar.txt")
    mst = maltpy.learn(TRAIN, tagger_columns="none", algorithm="mst", mst_iters=1)
    assert mst.config.defaults.profile == "ud" and mst.config.pproj.marking_strategy == "none"


def test_a_configuration_file_a_mapping_conllx_and_maltparsers_command_line_keep_maltparsers_defaults(tmp_path):
    config = tmp_path / "c.yaml"
    config.write_text("guide:\n  learner: liblinear\n", encoding="utf-8")
    assert settings(maltpy.learn(TRAIN, config, tagger_columns="none"))[:3] == ("maltparser", "nivreeager", "none")
    mapping = maltpy.learn(TRAIN, {"guide": {"learner": "liblinear"}}, tagger_columns="none")
    assert settings(mapping)[:3] == ("maltparser", "nivreeager", "none")
    asked = maltpy.learn(TRAIN, {"defaults": {"profile": "ud"}}, tagger_columns="none")
    assert settings(asked)[:3] == ("ud", "nivrestandard", "head")
    conllx = DATA / "conllx" / "da_ddt-ud-dev.conllx"
    if not conllx.exists():
        pytest.skip(f"shared data not found at {DATA}")
    head = "\n\n".join(conllx.read_text(encoding="utf-8").split("\n\n")[:60]) + "\n\n"
    (tmp_path / "da.conllx").write_text(head, encoding="utf-8")
    assert settings(maltpy.learn(tmp_path / "da.conllx", tagger_columns="none"))[:3] == (
        "maltparser", "nivreeager", "none")  # fmt: skip
    result = run_maltpy("-c", "m", "-i", TRAIN, "-m", "learn", cwd=tmp_path)  # MaltParser's command line
    assert result.returncode == 0, result.stderr.decode()
    malt = maltpy.load_model(tmp_path / "m.mpm")
    assert settings(malt)[:3] == ("maltparser", "nivreeager", "none") and malt.taggers is None


def test_a_bad_profile_is_one_line():
    result = run_maltpy("learn", "-P", "spacy", "-i", TRAIN, "-m", "-")
    assert result.returncode == 2 and result.stderr.decode().count("\n") == 1
    assert "defaults.profile" in result.stderr.decode()


def test_a_blend_of_a_conllu_treebank_takes_the_ud_profile_in_its_default_members(tmp_path):
    from maltpy.blend.learn import DEFAULT_MEMBERS, UD_MEMBERS
    from maltpy.cli.blending import default_members

    assert default_members(str(TRAIN), "auto", None) == [f"{m} -P ud" for m in DEFAULT_MEMBERS + UD_MEMBERS]
    assert default_members(str(TRAIN), "auto", "blend.yaml") == list(DEFAULT_MEMBERS)  # a configuration: as it says
    if SWEMALT_TRAIN.exists():
        assert default_members(str(SWEMALT_TRAIN), "auto", None) == list(DEFAULT_MEMBERS)  # CoNLL-X: MaltParser's
    result = run_maltpy("blend", "-q", "-tc", "none", "-i", TRAIN, "-m", tmp_path / "b.mpm")
    assert result.returncode == 0, result.stderr.decode()
    members = maltpy.load_model(tmp_path / "b.mpm").members
    eager = [m for m in members if m.config.singlemalt.parsing_algorithm == "nivreeager"]
    assert eager and all(settings(m)[0] == "ud" and "/ud/" in settings(m)[3] for m in eager)
    assert all(m.config.pproj.marking_strategy == "path" for m in eager)  # the member's own flags stand


def test_the_ud_lexical_profile_takes_its_model_and_c_where_it_has_them_and_the_ud_profiles_elsewhere(tmp_path):
    lexical = maltpy.learn(TRAIN, tagger_columns="none", profile="ud-lexical")
    model_file = "default: liblinear/ud-lexical/nivrestandard.txt"
    assert settings(lexical) == ("ud-lexical", "nivrestandard", "head", model_file)
    assert lexical.config.lib.options["c"] == 0.05 and lexical.config.lib.options["s"] == 4
    eager = maltpy.learn(TRAIN, tagger_columns="none", profile="ud-lexical", algorithm="nivreeager")
    assert settings(eager) == ("ud-lexical", "nivreeager", "head", "default: liblinear/ud/nivreeager.txt")
    given = maltpy.learn(TRAIN, tagger_columns="none", profile="ud-lexical", options="-c 0.2")
    assert given.config.lib.options["c"] == 0.2  # a flag overrides the profile's value
    svm = maltpy.learn(TRAIN, tagger_columns="none", profile="ud-lexical", learner="libsvm")
    assert svm.config.lib.options == maltpy.learn(TRAIN, tagger_columns="none", learner="libsvm").config.lib.options
    result = run_maltpy("learn", "-q", "-tc", "none", "-P", "ud-lexical", "-i", TRAIN, "-m", tmp_path / "lex.mpm")
    assert result.returncode == 0, result.stderr.decode()
    test = TEST.read_text(encoding="utf-8")
    assert maltpy.load_model(tmp_path / "lex.mpm").parse_conll(test) == lexical.parse_conll(test)


def test_the_ud_lexical_profile_parses_danish_above_the_ud_profile():
    # da_ddt dev -> test, gold tags: the ud profile 76.10, ud-lexical 77.10 (README)
    danish = DATA / "ud" / "UD_Danish-DDT"
    train, test = danish / "da_ddt-ud-dev.conllu", danish / "da_ddt-ud-test.conllu"
    if not train.exists():
        pytest.skip(f"shared data not found at {DATA}")
    model = maltpy.learn(train, tagger_columns="none", profile="ud-lexical")
    assert las(test, model.parse_conll(test.read_text(encoding="utf-8"))) > 76.10 + 0.5
