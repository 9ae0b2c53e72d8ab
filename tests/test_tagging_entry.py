"""Taggers learned with the parser, through every entry point (issue 46): the same untagged tokens
give the same tags and trees from a file, standard input, --jobs, the API's token lists and
TokenLists, NLTK's drop-in and Dask; a model without taggers refuses untagged input in one line
(exit 2); the archives of every kind keep the taggers; the configuration's group tagger."""

from __future__ import annotations

import conllu
import pytest
from conftest import EXAMPLE, assert_one_line_error, learned, run_in_process, run_maltpy

import maltpy
from maltpy.config import config_from_dict, default_config, load_config
from maltpy.data.conll import FEATS, FORM, HEAD, LEMMA, UPOS, XPOS
from maltpy.errors import MaltpyError
from maltpy.load import load

TAGS = (LEMMA, UPOS, XPOS, FEATS)


def blanked(text: str) -> str:
    """CoNLL text with LEMMA, UPOS, XPOS, FEATS, HEAD and DEPREL blanked: tokens alone."""
    out = []
    for line in text.splitlines():
        fields = line.split("\t")
        if len(fields) == 10:
            fields[2:8] = ["_"] * 6
            line = "\t".join(fields)
        out.append(line)
    return "\n".join(out) + "\n"


@pytest.fixture(scope="module")
def untagged(tmp_path_factory):
    path = tmp_path_factory.mktemp("untagged") / "en-test-untagged.conllu"
    path.write_text(blanked((EXAMPLE / "en-test.conllu").read_text(encoding="utf-8")), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def untagged_model(tmp_path_factory):
    """The example treebank's model without taggers (tagger.columns none)."""
    return learned(tmp_path_factory, "en-no-taggers.mpm", "-i", EXAMPLE / "en-train.conllu", "-tc", "none")


def words_of(text: str) -> list[list[list[str]]]:
    """The words of CoNLL text, sentence by sentence, each its fields (not multiword tokens' or
    empty nodes' lines)."""
    return [[line.split("\t") for line in block.splitlines() if line.split("\t")[0].isdigit()]
            for block in text.strip().split("\n\n")]  # fmt: skip


def reference(example_model, untagged) -> list[list[list[str]]]:
    result = run_in_process("parse", "-m", example_model, "-i", untagged)
    assert result.returncode == 0, result.stderr
    return words_of(result.stdout.decode("utf-8"))


def test_the_model_has_taggers_and_info_and_learn_say_them(example_model):
    model = load(example_model)
    assert model.taggers is not None and set(model.taggers.columns) == set(TAGS)
    assert model.statistics["taggers"] == ["UPOS", "XPOS", "FEATS", "LEMMA"]
    info = run_in_process("info", "-m", example_model).stdout.decode("utf-8")
    assert "taggers (" in info and "held-out accuracy" in info
    assert all(f"\n  {name} " in info for name in ("UPOS", "XPOS", "FEATS", "LEMMA"))


def test_every_entry_point_gives_the_same_tags_and_trees(example_model, untagged):
    expected = reference(example_model, untagged)
    assert all(w[UPOS] != "_" and w[HEAD] != "_" for s in expected for w in s)
    assert sum(w[LEMMA] != "_" for s in expected for w in s) > 0.9 * sum(map(len, expected))
    text = untagged.read_bytes()
    stdin = run_in_process("parse", "-m", example_model, input=text)
    assert words_of(stdin.stdout.decode("utf-8")) == expected
    jobs = run_maltpy("parse", "-m", example_model, "-i", untagged, "--jobs", "2")
    assert jobs.returncode == 0, jobs.stderr
    assert words_of(jobs.stdout.decode("utf-8")) == expected
    model = maltpy.load_model(example_model)
    forms = [[w[FORM] for w in s] for s in expected]
    for parsed, gold in zip(model.parse(forms), expected):  # the API's lists of tokens
        assert [t["head"] for t in parsed] == [int(w[HEAD]) for w in gold]
        assert [(t.get("lemma", "_"), t.get("upos", "_"), t.get("xpos", "_")) for t in parsed] == [
            (w[LEMMA], w[UPOS], w[XPOS]) for w in gold
        ]
    token_lists = conllu.parse(text.decode("utf-8"))
    for parsed, gold in zip(model.parse(token_lists), expected):  # conllu's TokenLists
        assert words_of(parsed.serialize()) == [gold]


def test_nltk_and_dask_give_the_same(example_model, untagged):
    pytest.importorskip("nltk")
    dask_bag = pytest.importorskip("dask.bag")
    import dask

    import maltpy.dask as md
    from maltpy.nltk import MaltParser

    expected = reference(example_model, untagged)
    forms = [[w[FORM] for w in s] for s in expected]
    graphs = [next(g) for g in MaltParser(model_filename=str(example_model)).parse_sents(forms)]
    for graph, gold in zip(graphs, expected):
        rows = [line.split("\t") for line in graph.to_conll(10).strip().splitlines()]
        assert [(r[3], r[6]) for r in rows] == [(w[UPOS], w[HEAD]) for w in gold]
    with dask.config.set(scheduler="synchronous"):
        parsed = md.parse_bag(dask_bag.from_sequence(forms, npartitions=2), str(example_model)).compute()
    assert [[(t.get("upos"), t["head"]) for t in s] for s in parsed] == [
        [(w[UPOS], int(w[HEAD])) for w in s] for s in expected
    ]
    import pandas as pd

    rows = pd.DataFrame({"sent_id": [k for k, s in enumerate(forms) for _ in s], "form": sum(forms, []),
                         "upos": [None] * sum(map(len, forms))})  # fmt: skip
    frame = md.parse_partition(rows, str(example_model))
    assert frame["upos"].tolist() == [w[UPOS] for s in expected for w in s]
    assert frame["head"].tolist() == [int(w[HEAD]) for s in expected for w in s]


def test_gold_tags_are_kept(example_model):
    """Gold-tagged input keeps its tags (--tag missing predicts only the columns a sentence has
    empty), and --tag never parses it as it is."""
    gold = (EXAMPLE / "en-test.conllu").read_text(encoding="utf-8")
    missing = run_in_process("parse", "-m", example_model, "-i", EXAMPLE / "en-test.conllu")
    never = run_in_process("parse", "-m", example_model, "-i", EXAMPLE / "en-test.conllu", "--tag", "never")
    given = words_of(gold)
    for parsed in (missing, never):
        assert [[w[:6] for w in s] for s in words_of(parsed.stdout.decode("utf-8"))] == [
            [w[:6] for w in s] for s in given
        ]
    assert missing.stdout == never.stdout


def test_tag_tags_without_parsing(example_model, untagged, tmp_path):
    expected = reference(example_model, untagged)
    out = tmp_path / "tagged.conllu"
    result = run_in_process("tag", "-m", example_model, "-i", untagged, "-o", out)
    assert result.returncode == 0, result.stderr
    tagged = words_of(out.read_text(encoding="utf-8"))
    assert [[[w[c] for c in TAGS] for w in s] for s in tagged] == [[[w[c] for c in TAGS] for w in s] for s in expected]
    assert all(w[HEAD] == "_" for s in tagged for w in s)


def test_untagged_input_to_a_model_without_taggers_is_one_line_exit_2(untagged_model, untagged):
    result = run_in_process("parse", "-m", untagged_model, "-i", untagged)
    err = assert_one_line_error(result, f"{untagged}:3: ")
    assert "has no UPOS (all _)" in err and "no tagger" in err
    assert_one_line_error(run_in_process("tag", "-m", untagged_model, "-i", untagged), f"{untagged_model}: ")
    with pytest.raises(MaltpyError, match="has no UPOS"):
        list(maltpy.load_model(untagged_model).parse([["Dogs", "bark", "."]]))
    tagged = run_in_process("parse", "-m", untagged_model, "-i", EXAMPLE / "en-test.conllu")
    assert tagged.returncode == 0, tagged.stderr


def test_a_maltparser_model_refuses_untagged_input_by_its_symbol_tables():
    """An .mco keeps its training treebank's values of the columns it reads in its symbol tables:
    da_ddt's reads POSTAG, which never held _ there."""
    from conftest import SHARED

    mco = SHARED / "reference" / "maltparser-mco" / "da_ddt-nivreeager-liblinear-malt1.7.2.mco"
    model = maltpy.load_model(mco)
    assert XPOS in model.tag_values and "_" not in model.tag_values[XPOS]
    with pytest.raises(MaltpyError, match="has no XPOS"):
        model.parse_conll("1\tHunde\t_\t_\t_\t_\t_\t_\t_\t_\n2\tgør\t_\t_\t_\t_\t_\t_\t_\t_\n\n")
    assert model.parse_conll("1\tHunde\t_\tN\tNC\t_\t_\t_\t_\t_\n2\tgør\t_\tV\tVA\t_\t_\t_\t_\t_\n\n")


def test_every_kind_of_archive_keeps_its_taggers(tmp_path):
    train = EXAMPLE / "en-train.conllu"
    result = run_in_process("learn", "-q", "-i", train, "-a", "mst", "-mi", "1", "-tc", "upos", "-m", tmp_path / "g")
    assert result.returncode == 0, result.stderr
    assert load(tmp_path / "g").taggers.columns == (UPOS,)
    result = run_in_process("blend", "-q", "-i", train, "--member", "-a nivreeager", "--member", "-a nivrestandard",
                            "--weights", "equal", "-tc", "upos,lemma", "-m", tmp_path / "b.mpm")  # fmt: skip
    assert result.returncode == 0, result.stderr
    blend = load(tmp_path / "b.mpm")
    assert blend.taggers.columns == (UPOS, LEMMA) and all(m.taggers is None for m in blend.members)
    parsed = list(blend.parse([["Dogs", "bark", "."]]))[0]
    assert all(t["upos"] != "_" for t in parsed)


def test_a_jackknife_is_recorded_and_the_parser_learns_from_predicted_tags(tmp_path):
    result = run_in_process("learn", "-q", "-i", EXAMPLE / "en-train.conllu", "-tc", "upos", "-tj", "3", "-m",
                            tmp_path / "j.mpm")  # fmt: skip
    assert result.returncode == 0, result.stderr
    model = load(tmp_path / "j.mpm")
    assert model.statistics["tagger_jackknife"] == 3 and model.statistics["taggers"] == ["UPOS"]
    assert model.taggers.columns == (UPOS,)


def test_the_group_tagger(tmp_path):
    assert default_config().tagger.columns == "auto"
    assert load_config(None, {("tagger", "columns"): "Lemma,CPOSTAG"}).tagger.columns == "upos,lemma"
    for flags, message in ((["-tc", "upos,pos"], "is not a column a tagger predicts"),
                           (["-tj", "1"], "1 fold"), (["-tc", "none", "-tj", "5"], "no tagger is learned"),
                           (["-to", "-q 3"], "tagger.options (-to)"),
                           (["-tb", "upos,lemma"], "LEMMA is tagged one way"),
                           (["-tb", "deprel"], "a comma list of upos, xpos, feats"),
                           (["-tc", "upos", "-tb", "xpos"], "xpos has no tagger")):  # fmt: skip
        err = assert_one_line_error(run_in_process("config", *flags), "command line: ")
        assert message in err
    assert default_config().tagger.both_ways == "auto"
    assert load_config(None, {("tagger", "both_ways"): "FEATS,upos"}).tagger.both_ways == "upos,feats"
    before = default_config().to_dict()
    del before["tagger"]["both_ways"]  # an archive made before it: its taggers tag one way
    assert config_from_dict(before, "old.mpm").tagger.both_ways == "none"
    old = default_config().to_dict()
    del old["tagger"]  # an archive made before the group
    assert config_from_dict(old, "old.mpm") == default_config()


def test_maltparser_command_line_learns_no_taggers(tmp_path):
    result = run_maltpy("-c", "plain", "-m", "learn", "-i", EXAMPLE / "en-train.conllu", "-v", "off", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    model = load(tmp_path / "plain.mpm")
    assert model.taggers is None and model.config.tagger.columns == "none"
