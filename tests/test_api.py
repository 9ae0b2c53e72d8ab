"""The Python API (maltpy.learn, Model.parse, parse_file, read_conll, write_conll) against the
command line: the same treebank and test file give the same models and the same parses, whatever
kind of sentence is given (maltpy's, conllu's TokenList, lists of tokens) and however batched."""

from __future__ import annotations

import concurrent.futures
import pickle

import conllu
import pytest
from conftest import EN_LINES_UD, EXAMPLE, run_maltpy

import maltpy
from maltpy.data.conll import DEPREL, HEAD
from maltpy.errors import MaltpyError

TEST = EN_LINES_UD / "en_lines-ud-test.conllu"


def arcs(path) -> list[list[tuple[int, str]]]:
    return [[(int(w[HEAD]), w[DEPREL]) for w in s.words] for s in maltpy.read_conll(path)]


def test_token_lists_of_conllu_parse_as_the_command_line(en_lines_model, en_lines_parsed):
    model = maltpy.load_model(en_lines_model)
    text = TEST.read_text(encoding="utf-8")
    sentences = conllu.parse(text)
    assert any(not isinstance(t["id"], int) for s in sentences for t in s)  # multiword tokens to keep
    parsed = list(model.parse(sentences))
    assert all(isinstance(p, conllu.TokenList) for p in parsed)
    # the file with HEAD and DEPREL filled in: comments, multiword tokens and the rest kept
    assert "".join(p.serialize() for p in parsed) == en_lines_parsed.read_text(encoding="utf-8")
    assert "".join(s.serialize() for s in sentences) == text  # parses are copies: the input is untouched


@pytest.mark.parametrize("batch_size, n", [(None, None), (1, 20), (7, 60), (100_000, None)])
def test_lists_of_tokens_parse_as_the_command_line(en_lines_model, en_lines_parsed, batch_size, n):
    # a batch is parsed a step at a time for all its sentences: small batches take long (see README)
    model = maltpy.load_model(en_lines_model)
    sentences = [
        [{"form": w[1], "lemma": w[2], "upos": w[3], "xpos": w[4], "feats": w[5]} for w in s.words]
        for s in maltpy.read_conll(TEST)
    ][:n]
    parsed = list(model.parse(iter(sentences), batch_size=batch_size))
    assert [[(t["head"], t["deprel"]) for t in p] for p in parsed] == arcs(en_lines_parsed)[:n]
    assert parsed[0][0]["form"] == sentences[0][0]["form"] and "head" not in sentences[0][0]


def test_threads_sharing_a_model_get_its_parses(en_lines_model):
    """One Model, parsing in four threads at once (Dask's threaded scheduler, a web server's thread
    pool): each thread's sentences get the parses they get alone (a batch in a model's arrays form
    keeps its configurations in the model: threads take turns, a batch each)."""
    model = maltpy.load_model(en_lines_model)
    sentences = [[{"form": w[1], "upos": w[3], "xpos": w[4]} for w in s.words] for s in maltpy.read_conll(TEST)]
    parts = [sentences[k:160:4] for k in range(4)]

    def parse(part):
        return [[(t["head"], t["deprel"]) for t in p] for p in model.parse(part, batch_size=8)]

    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        assert list(pool.map(parse, parts)) == [parse(part) for part in parts]


def test_feats_as_a_mapping_and_forms_alone(en_lines_model):
    model = maltpy.load_model(en_lines_model)
    text = "".join(s.serialize() for s in conllu.parse(TEST.read_text(encoding="utf-8"))[:50])
    expected = [[(t["head"], t["deprel"]) for t in s] for s in conllu.parse(model.parse_conll(text))]
    as_dicts = [[{k: t[k] for k in ("form", "lemma", "upos", "xpos", "feats")} for t in s if isinstance(t["id"], int)]
                for s in conllu.parse(text)]  # fmt: skip
    assert isinstance(as_dicts[0][0]["feats"], (dict, type(None)))
    got = [[(t["head"], t["deprel"]) for t in p] for p in model.parse(as_dicts)]
    expected = [[a for a, t in zip(e, s) if isinstance(t["id"], int)] for e, s in zip(expected, conllu.parse(text))]
    assert got == expected
    # forms alone: a model without taggers refuses them (one with: tests/test_tagging_entry.py)
    with pytest.raises(MaltpyError, match="has no UPOS"):
        next(model.parse([["Dogs", "bark", "."]]))
    # a sentence may be any iterable of tokens, read once
    assert next(model.parse([iter(as_dicts[0])])) == next(model.parse([as_dicts[0]]))


def test_parse_file_and_write_conll_are_the_command_lines(en_lines_model, en_lines_parsed, tmp_path):
    model = maltpy.load_model(en_lines_model)
    model.parse_file(TEST, tmp_path / "a.conllu")
    assert (tmp_path / "a.conllu").read_bytes() == en_lines_parsed.read_bytes()
    maltpy.write_conll(model.parse(maltpy.read_conll(TEST)), tmp_path / "b.conllu")
    assert (tmp_path / "b.conllu").read_bytes() == en_lines_parsed.read_bytes()
    with pytest.raises(maltpy.MaltpyError, match="refusing to write over it"):
        model.parse_file(TEST, TEST)


def test_learn_from_a_path_a_mapping_and_sentences_is_maltparsers_learn(tmp_path):
    train = EXAMPLE / "en-train.conllu"
    result = run_maltpy(
        "learn", "-q", "-P", "maltparser", "-a", "stacklazy", "-l", "libsvm", "-i", train, "-m", tmp_path / "cli.mpm"
    )
    assert result.returncode == 0, result.stderr.decode()
    cli = maltpy.load_model(tmp_path / "cli.mpm")
    by_path = maltpy.learn(train, algorithm="stacklazy", learner="libsvm", profile="maltparser")
    by_mapping = maltpy.learn(train, {"singlemalt": {"parsing_algorithm": "stacklazy"}}, learner="libsvm")
    by_lists = maltpy.learn(
        [
            [{k: t[k] for k in ("form", "lemma", "upos", "xpos", "feats", "head", "deprel")} for t in s
             if isinstance(t["id"], int)]
            for s in conllu.parse(train.read_text(encoding="utf-8"))
        ],
        algorithm="stacklazy", learner="libsvm", profile="maltparser",
    )  # fmt: skip
    by_token_lists = maltpy.learn(conllu.parse(train.read_text(encoding="utf-8")), algorithm="stacklazy",
                                  learner="libsvm", profile="maltparser")  # fmt: skip
    for model in (by_path, by_mapping, by_lists, by_token_lists):
        assert model.config.singlemalt.parsing_algorithm == "stacklazy" and model.config.guide.learner == "libsvm"
        assert model.guide.master.classifier.text == cli.guide.master.classifier.text
    by_path.save(tmp_path / "api.mpm")
    test = (EXAMPLE / "en-test.conllu").read_text(encoding="utf-8")
    assert maltpy.load_model(tmp_path / "api.mpm").parse_conll(test) == cli.parse_conll(test)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: maltpy.learn(EXAMPLE / "en-train.conllu", algoritm="x"), "unknown option 'algoritm' (options: acyc"),
        (lambda: maltpy.learn(EXAMPLE / "en-train.conllu", algoritm="x"), "parsing_direction, planar_root_handling"),
        (lambda: maltpy.learn(EXAMPLE / "en-train.conllu", algorithm="arcswift"), "maltpy.learn: singlemalt"),
        (lambda: maltpy.learn([[{"form": "a", "head": 5, "deprel": "x"}]]), "<sentences> sentence 1:1: "),
        (lambda: maltpy.learn([[{"form": "a", "head": 0, "deprel": "root"}], []]), "<sentences> sentence 2: "),
        (lambda: maltpy.learn([]), "no training instances"),
        (lambda: maltpy.learn("/nonexistent.conllu"), "no such file"),
        (lambda: maltpy.load_model(EXAMPLE / "en-train.conllu"), "not a maltpy model"),
        # user errors in what is given to parse: MaltpyError, not ValueError
        (lambda: list(_example_model().parse([["Dogs", "bark"], []])), "Model.parse: sentence 2 has no tokens"),
        (lambda: list(_example_model().parse([["Dogs\tcats", "bark"]])), "sentence 1, token 1: values cannot hold"),
        (lambda: list(_example_model().parse([[{"form": "a\nb"}]])), "sentence 1, token 1: values cannot hold"),
        (lambda: list(_example_model().parse([[{"form": "a", "upos": "X\rY"}]])), "values cannot hold tabs"),
        (lambda: maltpy.learn([[{"form": "a\tb", "head": 0, "deprel": "root"}]]), "<sentences>: sentence 1, token 1"),
        (lambda: list(_example_model().parse([["a"]], batch_size=0)), "Model.parse: batch_size is a number"),
        (lambda: list(_example_model().parse([["a"]], batch_size=-3)), "at least 1, not -3"),
        (lambda: list(_example_model().parse([["a"]], batch_size=2.5)), "at least 1, not 2.5"),
        (lambda: _example_model().parse_conll("1\ta\n", format="conll"), "unknown format 'conll'"),
        (lambda: list(maltpy.read_conll(EXAMPLE / "en-test.conllu", format="UD")), "unknown format 'UD'"),
        (lambda: _example_model().bound_degree(-1), "a degree bound is a whole number"),
        (lambda: _example_model().bound_degree(1), "bounds covnonproj only"),
        (lambda: _example_model().set_single_root("yes"), "single_root is auto, true or false"),
        (lambda: _example_model().set_enforce_tree(1), "enforce_tree is true or false"),
    ],
)
def test_errors_are_maltpy_errors_with_the_command_lines_text(call, message):
    with pytest.raises(maltpy.MaltpyError) as caught:
        call()
    assert message in str(caught.value)
    copy = pickle.loads(pickle.dumps(caught.value))  # as a Dask worker's error reaches its client
    assert (str(copy), copy.file, copy.line) == (str(caught.value), caught.value.file, caught.value.line)


def _example_model() -> maltpy.Model:
    """A small model, learned once."""
    global _EXAMPLE_MODEL
    if _EXAMPLE_MODEL is None:
        _EXAMPLE_MODEL = maltpy.learn(EXAMPLE / "en-train.conllu")
    return _EXAMPLE_MODEL


_EXAMPLE_MODEL = None


def test_wrong_kinds_are_type_errors(en_lines_model):
    model = maltpy.load_model(en_lines_model)
    with pytest.raises(TypeError, match="parse_conll"):
        list(model.parse("Dogs bark ."))
    with pytest.raises(TypeError, match="a token is a str or a mapping"):
        list(model.parse([[1, 2]]))
