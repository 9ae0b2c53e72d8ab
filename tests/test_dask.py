"""maltpy.dask and ``maltpy parse --scheduler`` on a LocalCluster of two worker processes: the
first 300 sentences of en_lines test parsed as files, as a bag in 1 and 3 partitions and as a
DataFrame in 1, 3 and 30 (of some 190 rows each; partitions cut sentences), each identical to
``maltpy parse`` of the whole file, whose sentences are parsed each on its own."""

from __future__ import annotations

import gzip
import os
import zipfile

import pandas as pd
import pytest
from conftest import EN_LINES_UD, SHARED, SWEMALT, run_maltpy

import maltpy
from maltpy.conll import DEPREL, HEAD

dask_bag = pytest.importorskip("dask.bag")
dask_dataframe = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")
md = pytest.importorskip("maltpy.dask")

SENTENCES = 300


def first_sentences(text: str) -> str:
    return "".join(block + "\n\n" for block in text.split("\n\n")[:SENTENCES])


@pytest.fixture(scope="module")
def test_file(tmp_path_factory):
    """The first sentences of en_lines test."""
    path = tmp_path_factory.mktemp("dask") / "en_lines-ud-test.conllu"
    path.write_text(first_sentences((EN_LINES_UD / "en_lines-ud-test.conllu").read_text(encoding="utf-8")))
    return path


@pytest.fixture(scope="module")
def expected(en_lines_parsed, tmp_path_factory):
    """Their parse: the first sentences of ``maltpy parse`` of the whole file."""
    path = tmp_path_factory.mktemp("dask") / "parsed.conllu"
    path.write_text(first_sentences(en_lines_parsed.read_text(encoding="utf-8")))
    return path


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            yield client


def words(path) -> pd.DataFrame:
    rows = [
        {"sent_id": f"s{n}", "id": int(w[0]), "form": w[1], "lemma": w[2], "upos": w[3], "xpos": w[4], "feats": w[5]}
        for n, s in enumerate(maltpy.read_conll(path))
        for w in s.words
    ]
    return pd.DataFrame(rows)


def arcs(path) -> list[tuple[int, str]]:
    return [(int(w[HEAD]), w[DEPREL]) for s in maltpy.read_conll(path) for w in s.words]


def test_files(client, en_lines_model, test_file, expected, tmp_path):
    (tmp_path / "in").mkdir()
    (tmp_path / "out").mkdir()
    inputs = []
    for name in ("a.conllu", "b.conllu", "c.conllu"):
        (tmp_path / "in" / name).write_bytes(test_file.read_bytes())
        inputs.append(tmp_path / "in" / name)
    outputs = md.parse_files(inputs, en_lines_model, tmp_path / "out")
    assert outputs == [str(tmp_path / "out" / n) for n in ("a.conllu", "b.conllu", "c.conllu")]
    for output in outputs:
        assert open(output, "rb").read() == expected.read_bytes()
    # the command line, against the same cluster
    (tmp_path / "cli").mkdir()
    address = client.scheduler.address
    result = run_maltpy("parse", "-m", en_lines_model, "-i", *inputs, "--output-dir", tmp_path / "cli",
                        "--scheduler", address)  # fmt: skip
    assert result.returncode == 0, result.stderr.decode()
    for name in ("a.conllu", "b.conllu", "c.conllu"):
        assert (tmp_path / "cli" / name).read_bytes() == expected.read_bytes()


def test_files_with_maltparsers_model_and_a_model_over_16_mb(client, tmp_path):
    """An .mco is shipped and parsed as maltpy's archives are, into its release's bytes; a model
    file is shipped whatever its size (16 MB bounds a configuration file, not a model)."""
    mco = SHARED / "reference" / "maltparser-mco" / "sv-nivreeager-liblinear-malt1.5.2.mco"
    test = SWEMALT / "gold" / "sv-stb-dep-mini-test.conll"
    (tmp_path / "out").mkdir()
    (output,) = md.parse_files([test], mco, tmp_path / "out")
    assert open(output, "rb").read() == gzip.decompress(mco.with_name(mco.stem + ".parsed.conll.gz").read_bytes())
    big = tmp_path / "big.mco"  # the same model with a member of 17 MB it does not read
    with zipfile.ZipFile(mco) as z, zipfile.ZipFile(big, "w") as out:
        for item in z.infolist():
            out.writestr(item, z.read(item))
        out.writestr(f"{z.namelist()[0].split('/')[0]}/padding.ins", os.urandom(17 << 20))
    assert md.model_bytes(big).data == big.read_bytes()


def test_a_blend_parses_on_the_cluster_as_here(client, swemalt_blend, tmp_path):
    """A blend (maltpy blend; the session's, of three members with a learned scorer) is shipped
    and parsed as a model is: the bytes maltpy parse writes."""
    blend, test = swemalt_blend, SWEMALT / "gold" / "sv-stb-dep-mini-test.conll"
    (tmp_path / "out").mkdir()
    (output,) = md.parse_files([test], blend, tmp_path / "out")
    here = run_maltpy("parse", "-m", blend, "-i", test).stdout
    assert open(output, "rb").read() == here
    os.remove(output)
    assert md.parse_files([test], maltpy.load_model(str(blend)), tmp_path / "out") == [output]  # shipped as bytes
    assert open(output, "rb").read() == here


def test_an_input_error_reaches_the_client_with_its_line(client, en_lines_model, tmp_path):
    bad = tmp_path / "bad.conllu"
    bad.write_text("1\tDogs\t_\tNOUN\t_\t_\t_\t_\t_\t_\n2\tbark\n\n", encoding="utf-8")
    (tmp_path / "out").mkdir()
    with pytest.raises(maltpy.MaltpyError) as caught:
        md.parse_files([bad], en_lines_model, tmp_path / "out")
    assert (caught.value.file, caught.value.line) == (str(bad), 2)
    assert list((tmp_path / "out").iterdir()) == []


@pytest.mark.parametrize("partitions", [1, 3])  # a bag's items are whole sentences: one partition, or several
def test_bag_of_texts_and_of_token_lists(client, en_lines_model, test_file, expected, partitions):
    texts = [text + "\n\n" for text in test_file.read_text(encoding="utf-8").split("\n\n") if text.strip()]
    parsed = md.parse_bag(dask_bag.from_sequence(texts, npartitions=partitions), en_lines_model).compute()
    assert "".join(parsed) == expected.read_text(encoding="utf-8")
    tokens = [[{"form": w[1], "lemma": w[2], "upos": w[3], "xpos": w[4], "feats": w[5]} for w in s.words]
              for s in maltpy.read_conll(test_file)]  # fmt: skip
    model = maltpy.load_model(en_lines_model)  # a Model goes to the workers as its bytes
    parsed = md.parse_bag(dask_bag.from_sequence(tokens, npartitions=partitions), model).compute()
    assert [(t["head"], t["deprel"]) for s in parsed for t in s] == arcs(expected)


@pytest.mark.parametrize("partitions", [1, 3, 30])  # whole, or cut within sentences: few and many cuts
def test_dataframe_whatever_the_partitions(client, en_lines_model, test_file, expected, partitions):
    table = words(test_file)
    ddf = dask_dataframe.from_pandas(table, npartitions=partitions)
    parsed = md.parse_dataframe(ddf, en_lines_model)
    assert list(parsed.columns) == [*table.columns, "head", "deprel"]  # declared, before any run
    result = parsed.compute()
    assert len(result) == len(table) and (result["form"].tolist() == table["form"].tolist())
    assert list(zip(result["head"].tolist(), result["deprel"].tolist())) == arcs(expected)


def test_partition_function_takes_batches_that_cut_sentences(en_lines_model, test_file, expected):
    # as Spark's mapInPandas hands them: batches of rows, a sentence cut between two of them
    table = words(test_file)
    batches = (table.iloc[i : i + 1000] for i in range(0, len(table), 1000))
    parsed = pd.concat(list(md.parse_partition(batches, str(en_lines_model))))
    assert list(zip(parsed["head"].tolist(), parsed["deprel"].tolist())) == arcs(expected)
    whole = md.parse_partition(table, str(en_lines_model))
    assert whole["head"].tolist() == parsed["head"].tolist()
    with pytest.raises(maltpy.MaltpyError, match="its ids are not 1, 2"):
        md.parse_partition(table.iloc[1:40], str(en_lines_model))
