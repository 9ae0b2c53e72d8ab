"""maltpy.dask and ``maltpy parse --scheduler`` on a LocalCluster of two worker processes of two
threads each (as a ``dask worker`` has several: tasks in one process share its model): the first
300 sentences of en_lines test parsed as files, as a bag in 1 and 3 partitions and as a DataFrame
in 1, 3 and 30 (of some 190 rows each; partitions cut sentences), each identical to ``maltpy
parse`` of the whole file, whose sentences are parsed each on its own. Without a cluster, Dask's
threaded scheduler (its default for DataFrames): a DataFrame in 1 to 50 partitions, cut by rows,
by index values and by bytes of CSV; and the frames that cannot be parsed, each one error."""

from __future__ import annotations

import gzip
import os
import zipfile

import pandas as pd
import pytest
from conftest import EN_LINES_UD, SHARED, SWEMALT, run_maltpy

import maltpy
from maltpy.data.conll import DEPREL, HEAD

dask = pytest.importorskip("dask")
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
    with distributed.LocalCluster(n_workers=2, threads_per_worker=2, processes=True, dashboard_address=None) as cluster:
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
    # as Spark's mapInPandas hands them: batches of rows, each indexed from 0, a sentence cut between two of them
    table = words(test_file)
    batches = (table.iloc[i : i + 1000].reset_index(drop=True) for i in range(0, len(table), 1000))
    parsed = pd.concat(list(md.parse_partition(batches, str(en_lines_model))))
    assert list(zip(parsed["head"].tolist(), parsed["deprel"].tolist())) == arcs(expected)
    whole = md.parse_partition(table, str(en_lines_model))
    assert whole["head"].tolist() == parsed["head"].tolist()
    with pytest.raises(maltpy.MaltpyError, match="its word 1 has the id 2; a sentence is one run"):
        md.parse_partition(table.iloc[1:40], str(en_lines_model))


SWEEP = 60  # sentences: some 900 rows, so that 50 partitions put sentences across three or more
CUTS = [*range(1, 11), 13, 19, 28, 50]  # partition counts: every one from 1 to 50 costs half a minute of Dask


@pytest.fixture(scope="module")
def sweep(test_file, expected):
    """The words of the first SWEEP sentences, their parse, and the model as shipped."""
    table = words(test_file)
    table = table[table["sent_id"].isin([f"s{n}" for n in range(SWEEP)])]
    return table, arcs(expected)[: len(table)]


def parsed_arcs(ddf, model) -> list[tuple[int, str]]:
    result = md.parse_dataframe(ddf, model).compute()
    assert result.index.tolist() == ddf.index.compute().tolist()  # its rows, in their order
    return list(zip(result["head"].tolist(), result["deprel"].tolist()))


def test_dataframe_cut_anywhere(en_lines_model, sweep, tmp_path):
    """Every cut gives the parse of the uncut frame: partitions of rows (from_pandas) from 1 to 50,
    some wholly inside a sentence; partitions cut at index values of a frame whose index repeats;
    a CSV's partitions, cut at bytes. Under Dask's threaded scheduler, its default for DataFrames,
    whose tasks parse at once with one model (the cluster's DataFrame test cut within sentences
    too, but its workers had one thread each: no two tasks ever shared a model)."""
    table, expected = sweep
    shipped = md.model_bytes(en_lines_model)
    with dask.config.set({"scheduler": "threads", "num_workers": 4, "dataframe.convert-string": False}):
        for n in CUTS:
            ddf = dask_dataframe.from_pandas(table, npartitions=n)
            assert parsed_arcs(ddf, shipped) == expected, n
        # some of the 50 partitions lie wholly inside a sentence, read by the partitions on both sides
        assert sum(p["sent_id"].nunique() == 1 for p in dask.compute(*ddf.to_delayed())) > 3
        # two documents, their sent_ids and indexes each from 0: a sent_id comes again, as another sentence
        half = table["sent_id"].isin([f"s{n}" for n in range(SWEEP // 2)])
        renumbered = {f"s{n}": f"s{n - SWEEP // 2}" for n in range(SWEEP // 2, SWEEP)}
        second = table[~half].assign(sent_id=table[~half]["sent_id"].map(renumbered))
        both = pd.concat([table[half].reset_index(drop=True), second.reset_index(drop=True)])
        assert both.index.has_duplicates and set(second["sent_id"]) <= set(table[half]["sent_id"])
        assert parsed_arcs(dask_dataframe.from_pandas(both, npartitions=7, sort=False), shipped) == expected
        table.to_csv(tmp_path / "words.csv", index=False)
        ddf = dask_dataframe.read_csv(tmp_path / "words.csv", blocksize=3000, keep_default_na=False)
        assert ddf.npartitions > 10
        assert parsed_arcs(ddf, shipped) == expected


def test_a_frame_that_cannot_be_parsed_is_one_error(en_lines_model, sweep):
    """A frame without a column it needs is refused at once, before anything runs; a row without
    a sent_id, a sentence whose rows are not together (a frame that from_pandas sorted by an index
    not in word order) and ids that are not the words' are a MaltpyError naming the sentence, in
    however many partitions (each partition checks the sentences it parses)."""
    table, _ = sweep
    shipped = md.model_bytes(en_lines_model)
    with pytest.raises(maltpy.MaltpyError, match=r"^maltpy.dask: a DataFrame of words needs the column sent_id \("):
        md.parse_dataframe(dask_dataframe.from_pandas(table.drop(columns="sent_id"), npartitions=3), shipped)
    with pytest.raises(maltpy.MaltpyError, match="needs the columns sent_id and form"):
        md.parse_partition(table[["id", "lemma"]], shipped)
    with pytest.raises(maltpy.MaltpyError, match="needs the column form"):
        list(md.parse_partition(iter([table.iloc[:10], table.iloc[10:].drop(columns="form")]), shipped))
    with pytest.raises(TypeError, match="a Dask DataFrame, not DataFrame"):
        md.parse_dataframe(table, shipped)
    no_sent_id = table.assign(sent_id=table["sent_id"].where(table.index != 123))
    by_position = table.set_index(table["id"] * 1000 + table.index)  # each sentence's first words first
    multiword = table.astype({"id": object})
    multiword.loc[40, "id"] = "3-4"
    rule = r"; a sentence is one run of consecutive rows with its sent_id, their ids 1, 2, \.\.\. in order$"
    with dask.config.set({"scheduler": "threads", "dataframe.convert-string": False}):
        for n in (1, 7):
            with pytest.raises(maltpy.MaltpyError, match=r"^maltpy.dask: the row at index 123 has no sent_id$"):
                md.parse_dataframe(dask_dataframe.from_pandas(no_sent_id, npartitions=n), shipped).compute()
            apart = r"^maltpy.dask: sentence 's\d+': its word 1 has the id \d+"
            with pytest.raises(maltpy.MaltpyError, match=apart + rule):
                md.parse_dataframe(dask_dataframe.from_pandas(by_position, npartitions=n), shipped).compute()
            where = f"sentence '{table['sent_id'][40]}': its word {table['id'][40]} has the id '3-4'"
            with pytest.raises(maltpy.MaltpyError, match=f"^maltpy.dask: {where}" + rule):
                md.parse_dataframe(dask_dataframe.from_pandas(multiword, npartitions=n), shipped).compute()
    # ids as numbers, as text, or as floats (as a column with a gap reads) are the words' ids
    heads = md.parse_partition(table, shipped)["head"].tolist()
    for ids in (table["id"].astype(str), table["id"].astype(float)):
        assert md.parse_partition(table.assign(id=ids), shipped)["head"].tolist() == heads


def test_missing_values_and_numbered_sentences_under_dasks_default_string_columns(en_lines_model, sweep):
    """Dask turns text columns into strings by default, whose missing value is pandas' NA: a
    missing lemma or form was a TypeError ("boolean value of NA is ambiguous"); it is "_", as a
    missing value of an object column is. A numeric sent_id is named as its number, not as
    NumPy's ``np.int64(39)``."""
    table, _ = sweep
    shipped = md.model_bytes(en_lines_model)
    gaps = table.astype({"form": object, "lemma": object})
    gaps.loc[gaps.index[3], "form"] = None
    gaps.loc[gaps.index[[5, 40]], "lemma"] = None
    filled = table.astype({"form": object, "lemma": object})
    filled.loc[filled.index[3], "form"] = "_"
    filled.loc[filled.index[[5, 40]], "lemma"] = "_"
    with dask.config.set({"scheduler": "threads", "dataframe.convert-string": True}):
        ddf = dask_dataframe.from_pandas(gaps, npartitions=3)
        assert str(ddf["lemma"].dtype) != "object"  # pandas' strings, with NA
        assert parsed_arcs(ddf, shipped) == list(zip(*md.parse_partition(filled, shipped)[["head", "deprel"]].T.values))
        numbered = table.assign(sent_id=table["sent_id"].str[1:].astype(int))
        by_position = numbered.set_index(numbered["id"] * 1000 + numbered.index)
        with pytest.raises(maltpy.MaltpyError, match=r"^maltpy.dask: sentence \d+: its word 1 has the id \d+;"):
            md.parse_dataframe(dask_dataframe.from_pandas(by_position, npartitions=2), shipped).compute()
