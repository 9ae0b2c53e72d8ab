"""MaltParser's own model files (.mco) parse in maltpy into the bytes of the release that wrote
them: every reference model of ../shared/reference/maltparser-mco (1.5.2, 1.7.2, 1.8.1, 1.9.2;
LIBLINEAR and LIBSVM, a data split, pseudo-projective labels, five algorithms), read as it is
and converted to a maltpy archive, and through each entry point."""

from __future__ import annotations

import gzip
import shutil

import pytest
from conftest import SHARED, requires_shared, run_maltpy

import maltpy
from maltpy.api import read_conll, write_conll
from maltpy.models.parser import Model

MCO = SHARED / "reference" / "maltparser-mco"


def manifest() -> list[tuple[str, str]]:
    """(model, test file) of every reference model."""
    if not (MCO / "MANIFEST.tsv").is_file():
        return []
    lines = (MCO / "MANIFEST.tsv").read_text().splitlines()
    return [tuple(line.split("\t")) for line in lines if line]


MODELS = manifest()


def expected(model: str) -> bytes:
    return gzip.decompress((MCO / model.replace(".mco", ".parsed.conll.gz")).read_bytes())


def test_every_release_and_configuration_is_a_reference():
    if not MODELS:
        pytest.skip(f"no reference models at {MCO}")
    names = [m for m, _ in MODELS]
    for release in ("1.5.2", "1.7.2", "1.8.1", "1.9.2"):
        assert sum(f"-malt{release}." in n for n in names) >= 5, release
    assert len(names) == len(list(MCO.glob("*.mco"))) >= 46


@requires_shared
@pytest.mark.parametrize("model, test_file", MODELS, ids=[m for m, _ in MODELS])
def test_an_mco_parses_into_its_releases_bytes_as_it_is_and_converted(tmp_path, model, test_file):
    test = (MCO / test_file).resolve()
    want = expected(model)
    parser = maltpy.load_model(str(MCO / model))
    assert parser.statistics["maltparser_version"] == model.rsplit("-malt", 1)[1][: -len(".mco")]
    parser.parse_file(test, tmp_path / "mco.conll")
    assert (tmp_path / "mco.conll").read_bytes() == want
    converted = Model.load("converted.mpm", parser.to_bytes())
    converted.parse_file(test, tmp_path / "converted.conll")
    assert (tmp_path / "converted.conll").read_bytes() == want


@requires_shared
def test_the_command_line_takes_an_mco_everywhere_a_model_goes(tmp_path):
    model = MCO / "sv-nivreeager-pp_head_path-liblinear-malt1.7.2.mco"
    test = (MCO / dict(MODELS)[model.name]).resolve()
    want = expected(model.name)
    r = run_maltpy("parse", "-m", model, "-i", test, "-o", tmp_path / "file.conll")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "file.conll").read_bytes() == want
    r = run_maltpy("parse", "-m", model, input=test.read_bytes())  # a pipe
    assert r.returncode == 0 and r.stdout == want, r.stderr
    r = run_maltpy("parse", "-m", model, "-i", test, "-o", tmp_path / "jobs.conll", "--jobs", "2")
    assert r.returncode == 0 and (tmp_path / "jobs.conll").read_bytes() == want, r.stderr
    r = run_maltpy("convert-model", model, "-o", tmp_path / "sv.mpm")
    assert r.returncode == 0 and r.stdout == b"", r.stderr
    r = run_maltpy("parse", "-m", tmp_path / "sv.mpm", "-i", test)
    assert r.returncode == 0 and r.stdout == want, r.stderr
    r = run_maltpy("info", "-m", model)
    assert r.returncode == 0, r.stderr
    assert b"written by MaltParser 1.7.2" in r.stdout and b"pproj marking_strategy" in r.stdout
    assert b"marking strategy head+path" in r.stdout


@requires_shared
def test_an_mco_in_the_api_gives_the_same_trees_as_its_file(tmp_path):
    """CoNLL text, token dicts and the renamed file give what the file gives (the folder in the
    archive keeps the name it was learned as; MaltParser itself would not find it renamed)."""
    model = MCO / "da_ddt-stacklazy-liblinear-malt1.9.2.mco"
    test = (MCO / dict(MODELS)[model.name]).resolve()
    want = expected(model.name)
    renamed = tmp_path / "danish.mco"
    shutil.copy(model, renamed)
    parser = maltpy.load_model(str(renamed))
    text = test.read_text("utf-8")
    assert parser.parse_conll(text).encode("utf-8") == want
    sentences = list(read_conll(test))
    tokens = [[{"id": w[0], "form": w[1], "lemma": w[2], "upos": w[3], "xpos": w[4], "feats": w[5]}
               for w in s.words] for s in sentences[:40]]  # fmt: skip
    heads = parser.parse_tokens(tokens)
    parsed = list(parser.parse(read_conll(test)))
    assert heads == [[(h, lab) for h, lab in zip(s.heads[1:], s.labels[1:])] for s in parsed[:40]]
    write_conll(parsed, str(tmp_path / "out.conll"))
    assert (tmp_path / "out.conll").read_bytes() == want


@requires_shared
def test_nltk_parses_with_an_mco_as_its_maltparser_does():
    """nltk.parse.malt.MaltParser's call, a MaltParser folder and an .mco (model_filename), on
    the tagged test sentences: the trees of the file's parse."""
    pytest.importorskip("nltk")
    from maltpy.nltk import MaltParser

    model = MCO / "sv-nivreeager-liblinear-malt1.9.2.mco"
    test = (MCO / dict(MODELS)[model.name]).resolve()
    mp = MaltParser("maltparser-1.9.2", model_filename=str(model))
    sentences = list(read_conll(test))[:25]
    tagged = [[(w[1], w[4]) for w in s.words] for s in sentences]
    graphs = [next(parses) for parses in mp.parse_tagged_sents(tagged)]
    want = [s for s in read_conll_text(expected(model.name))][:25]
    for graph, parsed in zip(graphs, want):
        got = [(graph.nodes[i]["head"], graph.nodes[i]["rel"]) for i in range(1, len(graph.nodes))]
        assert got == parsed


def read_conll_text(data: bytes) -> list[list[tuple[int, str]]]:
    """(head, label) of each word of each sentence of CoNLL text."""
    out = []
    for block in data.decode("utf-8").strip("\n").split("\n\n"):
        out.append([(int(line.split("\t")[6]), line.split("\t")[7]) for line in block.split("\n")])
    return out


@requires_shared
def test_the_columns_maltparsers_data_format_ignores_are_written_as_it_writes_them(tmp_path):
    """MaltParser writes the columns its data format marks IGNORE (CoNLL-X's PHEAD and PDEPREL,
    CoNLL-U's DEPS and MISC) as their default, _, whatever the input held there: with an .mco
    and its converted archive maltpy does too; with its own models it leaves them as they were."""
    model = MCO / "sv-nivreeager-liblinear-malt1.9.2.mco"
    test = (MCO / dict(MODELS)[model.name]).resolve()
    filled = tmp_path / "filled.conll"
    filled.write_text("".join(line if line.count("\t") != 9 else "\t".join(line.split("\t")[:8] + ["0", "xx\n"])
                              for line in test.read_text("utf-8").splitlines(True)), "utf-8")  # fmt: skip
    parser = maltpy.load_model(str(model))
    assert parser.ignored_columns == {8: "_", 9: "_"}
    for each in (parser, Model.load("converted.mpm", parser.to_bytes())):
        each.parse_file(filled, tmp_path / "out.conll")
        assert (tmp_path / "out.conll").read_bytes() == expected(model.name)
    own = Model.load("own.mpm", parser.to_bytes())
    own.ignored_columns = {}  # a maltpy model's: the input's columns stay
    own.parse_file(filled, tmp_path / "own.conll")
    assert all(line.endswith("\t0\txx") for line in (tmp_path / "own.conll").read_text("utf-8").splitlines() if line)
