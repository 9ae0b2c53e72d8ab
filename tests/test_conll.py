import io
import json
from pathlib import Path

import pytest
from conftest import DATA, EXAMPLE, requires_shared

from maltpy.conll import DEPREL, FORM, HEAD, ConllReader, format_sentence
from maltpy.errors import MaltpyError

MALFORMED = Path(__file__).parent / "data" / "malformed"
CASES = json.loads((MALFORMED / "cases.json").read_text())

CONLLX = (
    "1\tDogs\tdog\tNOUN\tNNS\t_\t2\tnsubj\t_\t_\n"
    "2\tbark\tbark\tVERB\tVBP\t_\t0\troot\t_\t_\n"
    "\n"
    "1\tYes\tyes\tINTJ\tUH\t_\t0\troot\t_\t_\n"
    "\n"
)
CONLLU = (
    "# sent_id = 1\n"
    "# text = I don't.\n"
    "1\tI\tI\tPRON\tPRP\t_\t2\tnsubj\t2:nsubj\t_\n"
    "2-3\tdon't\t_\t_\t_\t_\t_\t_\t_\tSpaceAfter=No\n"
    "2\tdo\tdo\tAUX\tVBP\t_\t0\troot\t0:root\t_\n"
    "3\tn't\tnot\tPART\tRB\t_\t2\tadvmod\t2:advmod\t_\n"
    "3.1\tdo\tdo\tVERB\tVB\t_\t_\t_\t2:conj\t_\n"
    "4\t.\t.\tPUNCT\t.\t_\t2\tpunct\t2:punct\t_\n"
    "\n"
)


def read(data: bytes | str, name: str = "<test>", format: str = "auto") -> tuple[str, list]:
    if isinstance(data, str):
        data = data.encode("utf-8")
    reader = ConllReader(io.BytesIO(data), name, format)
    return reader.format, list(reader)


def rewrite(path: Path, to: str | None = None, postag_from: str = "xpos") -> bytes:
    with open(path, "rb") as f:
        return "".join(format_sentence(s, to, postag_from) for s in ConllReader(f, str(path))).encode("utf-8")


# --- the real treebanks ------------------------------------------------------------------------


@requires_shared
@pytest.mark.parametrize("path", sorted(DATA.glob("ud/*/*.conllu")), ids=lambda p: p.name)
def test_conllu_files_are_reproduced_byte_for_byte(path):
    assert rewrite(path) == path.read_bytes()


@requires_shared
@pytest.mark.parametrize(
    "path",
    sorted(DATA.glob("conllx/*.conllx")) + sorted(DATA.glob("maltparser-examples/swemalt-mini/gold/*.conll")),
    ids=lambda p: p.name,
)
def test_conllx_files_are_reproduced_byte_for_byte(path):
    expected = path.read_bytes()
    if not expected.endswith(b"\n\n"):  # sv-stb-dep-mini-train.conll lacks its final empty line
        expected += b"\n"
    assert rewrite(path) == expected


@requires_shared
@pytest.mark.parametrize("path", sorted(DATA.glob("conllx/*.conllx")), ids=lambda p: p.name)
def test_conllu_to_conllx_makes_the_shared_conllx_files(path):
    # ../shared/data/conllx was made from the UD files with UPOS in both POS columns.
    source = next(DATA.glob(f"ud/*/{path.stem}.conllu"))
    assert rewrite(source, "conllx", postag_from="upos") == path.read_bytes()


@requires_shared
def test_format_is_detected_from_content():
    for path in DATA.glob("ud/*/*.conllu"):
        with open(path, "rb") as f:
            assert ConllReader(f, "<stdin>").format == "conllu", path
    for path in list(DATA.glob("conllx/*.conllx")) + list(DATA.glob("maltparser-examples/*.conll")):
        with open(path, "rb") as f:
            assert ConllReader(f, "<stdin>").format == "conllx", path


def test_the_example_treebank_is_well_formed_conllu():
    for name, sentences in (("en-train.conllu", 40), ("en-test.conllu", 12)):
        fmt, sents = read((EXAMPLE / name).read_bytes(), name)
        assert fmt == "conllu" and len(sents) == sentences
        assert all(s.heads is not None for s in sents)


# --- small cases -------------------------------------------------------------------------------


def test_words_and_other_lines():
    fmt, (s,) = read(CONLLU)
    assert fmt == "conllu"
    assert [w[FORM] for w in s.words] == ["I", "do", "n't", "."]
    assert s.heads == [-1, 2, 0, 2, 2]
    assert s.labels[1:] == ["nsubj", "root", "advmod", "punct"]
    assert [pos for pos, _ in s.extra] == [0, 0, 1, 3]
    assert format_sentence(s) == CONLLU


def test_an_unparsed_sentence_has_no_heads():
    _, (s,) = read("1\tHi\thi\tINTJ\tUH\t_\t_\t_\t_\t_\n")
    assert s.heads is None and s.words[0][DEPREL] == "_"


def test_crlf_a_missing_final_blank_line_and_a_bom_are_accepted():
    _, expected = read(CONLLX)
    for variant in (CONLLX.replace("\n", "\r\n"), CONLLX.rstrip("\n"), CONLLX[:-1], "\ufeff" + CONLLX):
        fmt, sents = read(variant)
        assert fmt == "conllx"
        assert [s.words for s in sents] == [s.words for s in expected]


def test_an_empty_file_is_zero_sentences():
    assert read(b"") == ("conllx", [])


def test_multiple_roots_are_a_tree():
    # CoNLL-X and MaltParser's output allow several words headed by the root.
    _, (s,) = read("1\ta\ta\tX\tX\t_\t0\tROOT\t_\t_\n2\tb\tb\tX\tX\t_\t0\tROOT\t_\t_\n")
    assert s.heads == [-1, 0, 0]


def test_conversions_between_the_formats():
    _, (s,) = read(CONLLU)
    assert format_sentence(s, "conllx") == (
        "1\tI\tI\tPRON\tPRP\t_\t2\tnsubj\t_\t_\n"
        "2\tdo\tdo\tAUX\tVBP\t_\t0\troot\t_\t_\n"
        "3\tn't\tnot\tPART\tRB\t_\t2\tadvmod\t_\t_\n"
        "4\t.\t.\tPUNCT\t.\t_\t2\tpunct\t_\t_\n\n"
    )
    assert format_sentence(s, "conllx", postag_from="upos").startswith("1\tI\tI\tPRON\tPRON\t")
    _, (x, _) = read(CONLLX.replace("\t_\t_\n", "\t2\tdep\n", 1))
    assert format_sentence(x, "conllu").startswith("1\tDogs\tdog\tNOUN\tNNS\t_\t2\tnsubj\t_\t_\n")


def test_forcing_a_format():
    fmt, _ = read(CONLLX, format="conllu")
    assert fmt == "conllu"
    with pytest.raises(MaltpyError, match="comment line in CoNLL-X"):
        read(CONLLU, format="conllx")
    with pytest.raises(MaltpyError, match="multiword token, which CoNLL-X has not"):
        read("1-2\tdon't\t_\t_\t_\t_\t_\t_\t_\t_\n" + CONLLX, format="conllx")


def test_detection_falls_back_to_the_file_extension():
    plain = "1\tHi\thi\tINTJ\tUH\t_\t0\troot\t_\t_\n"
    assert read(plain, "x.conllu")[0] == "conllu"
    assert read(plain, "x.conll")[0] == "conllx"
    assert read(plain, "<stdin>")[0] == "conllx"
    assert read(plain.replace("\t_\n", "\tSpaceAfter=No\n"), "<stdin>")[0] == "conllu"


@pytest.mark.parametrize("name", sorted(CASES))
def test_malformed_input_is_an_error_naming_file_and_line(name):
    line, fragment = CASES[name]
    with pytest.raises(MaltpyError) as caught:
        read((MALFORMED / name).read_bytes(), name)
    assert (caught.value.file, caught.value.line) == (name, line)
    assert fragment in caught.value.message


def test_heads_must_be_integers_in_range_even_when_ids_are_right():
    bad = CONLLX.replace("\t2\tnsubj", "\t3\tnsubj")
    with pytest.raises(MaltpyError, match="HEAD 3 is out of range") as caught:
        read(bad, "f")
    assert caught.value.line == 1
    assert read(CONLLX)[1][0].words[0][HEAD] == "2"
