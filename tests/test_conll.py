import io
import json
import os
from pathlib import Path

import pytest
from conftest import DATA, EXAMPLE, requires_shared

from maltpy.data import conll, lines
from maltpy.data.conll import DEPREL, FORM, HEAD, ConllReader, format_sentence
from maltpy.errors import MaltpyError
from maltpy.files import PipeReader

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


# --- reading fast: whole blocks and whole sentences, the same as line by line ----------------


def outcome(data: bytes, format: str = "auto", blind: bool = False, stream=None) -> list:
    """What reading gives: each sentence's parts, then the error (message, line) if any."""
    seen = []
    try:
        for s in ConllReader(stream or io.BytesIO(data), "<test>", format, blind):
            seen.append((s.words, s.format, s.line, s.extra))
    except MaltpyError as e:
        seen.append((e.message, e.line))
    return seen


def line_by_line(monkeypatch, data: bytes, format: str = "auto", blind: bool = False) -> list:
    with monkeypatch.context() as m:
        m.setattr(ConllReader, "_whole", lambda self, lines, first: None)
        return outcome(data, format, blind)


class Trickle:
    """A stream that gives its bytes a few at a time, as a pipe may."""

    def __init__(self, data: bytes) -> None:
        self.data, self.pos, self.sizes = data, 0, [1, 2, 3, 5, 7]

    def read1(self, size: int) -> bytes:
        n = min(size, self.sizes[self.pos % len(self.sizes)])
        piece = self.data[self.pos : self.pos + n]
        self.pos += len(piece)
        return piece


def test_the_blanks_beyond_ascii_are_those_python_strips():
    # conll._WIDE_BLANK stands for str.strip() in the whole-sentence check
    blanks = {c for c in map(chr, range(0x80, 0x110000)) if c.isspace()}
    assert max(blanks) < "\u3001"
    assert {c for c in map(chr, range(0x80, 0x3001)) if conll._WIDE_BLANK.match(c)} == blanks


@requires_shared
@pytest.mark.parametrize(
    "path",
    [
        DATA / "ud/UD_English-LinES/en_lines-ud-test.conllu",
        DATA / "ud/UD_Latin-Perseus/la_perseus-ud-test.conllu",
        DATA / "conllx/sv_talbanken-ud-dev.conllx",
        DATA / "maltparser-examples/swemalt-mini/input/sv-stb-dep-mini-test-blind-00.conll",
    ],
    ids=lambda p: p.name,
)
def test_sentences_checked_whole_are_those_checked_line_by_line(monkeypatch, path):
    data = path.read_bytes()
    assert outcome(data, blind=True) == line_by_line(monkeypatch, data, blind=True)


def test_a_damaged_sentence_is_refused_whole_as_line_by_line(monkeypatch):
    # every one-character change to small sentences: the same sentences, or the same error
    pieces = ["\t", " ", "\n", "#", "-", ".", "0", "1", "2", "_", "\xa0", "\u3000"]
    mwt = "1-2\tdon't\t_\t_\t_\t_\t_\t_\t_\t_\n"
    for text, format in (
        (CONLLU, "conllu"),
        (CONLLX, "conllx"),
        (mwt + CONLLX.replace("\t_\t_\n", "\t_\t2\n"), "conllu"),
    ):
        for i in range(len(text)):
            for damaged in [text[:i] + text[i + 1 :]] + [text[:i] + piece + text[i:] for piece in pieces]:
                data = damaged.encode("utf-8")
                assert outcome(data, format) == line_by_line(monkeypatch, data, format), damaged
    blind = "1\tHi\thi\tINTJ\tUH\t_\n2\t!\t!\tPUNCT\t.\t_\t1\tpunct\t_\t_\n"
    for i in range(len(blind)):
        for piece in ("", "\t", "1"):
            data = (blind[:i] + piece + blind[i + 1 :]).encode("utf-8")
            assert outcome(data, "conllx", True) == line_by_line(monkeypatch, data, "conllx", True)


def test_blocks_end_anywhere(monkeypatch):
    # read a few bytes at a time, or in blocks of a few bytes: the same sentences and errors
    variants = [CONLLU * 3, CONLLX.replace("\n", "\r\n"), "\ufeff" + CONLLX.rstrip("\n"), CONLLX + "1\tx\xff"]
    for text in variants:
        data = text.encode("utf-8", "surrogateescape") if "\xff" not in text else text[:-1].encode() + b"\xff"
        expected = outcome(data)
        assert outcome(data, stream=Trickle(data)) == expected
        for size in (1, 2, 5, 64):
            monkeypatch.setattr(lines, "_BLOCK_BYTES", size)
            assert outcome(data) == expected


def test_an_earlier_fault_is_named_before_a_later_undecodable_line(monkeypatch):
    # line 6 lacks a column, line 7 is not UTF-8, and line 7 comes in a later block
    data = CONLLX.encode() + b"1\ta\ta\tX\tX\t_\t0\troot\t_\n2\t\xff\tb\tX\tX\t_\t1\tdep\t_\t_\n"
    monkeypatch.setattr(lines, "_BLOCK_BYTES", len(data) - 10)
    sentences = []
    with pytest.raises(MaltpyError) as caught:
        for s in ConllReader(io.BytesIO(data), "<test>", "conllx"):
            sentences.append(s)
    assert len(sentences) == 2 and caught.value.line == 6 and "found 9" in caught.value.message
    with pytest.raises(MaltpyError, match="not UTF-8") as caught:
        read(data.replace(b"\troot\t_\n", b"\troot\t_\t_\n"), format="conllx")
    assert caught.value.line == 7
    with pytest.raises(MaltpyError, match="not UTF-8") as caught:  # found while deciding the format
        read(data)
    assert caught.value.line == 7


def test_the_line_length_limit_counts_bytes_up_to_the_line_feed(monkeypatch):
    monkeypatch.setenv("MALTPY_MAX_LINE_BYTES", "40")
    word = "1\tHi\thi\tINTJ\tUH\t_\t0\troot\t_\t_"
    for end in ("\n", "\r\n", ""):
        for size in (40, 41):
            line = word.replace("Hi", "H" * (size - len(word) + 2), 1)
            data = (CONLLX + line + end).encode()
            if size + (end == "\r\n") <= 40:
                assert len(read(data)[1]) == 3
            else:
                with pytest.raises(MaltpyError, match="a line longer than 40 bytes") as caught:
                    read(data)
                assert caught.value.line == 6


@pytest.mark.parametrize("value, bound", [("9" * 5000, 1 << 62), ("99999999999999999999999", 1 << 62), ("0040", 40),
                                          ("\u00b2", 1 << 20), ("\u0664\u0660", 1 << 20), ("0", 1 << 20),
                                          ("-5", 1 << 20), ("1e9", 1 << 20)])  # fmt: skip
def test_a_bound_from_the_environment_is_read_whatever_it_holds(monkeypatch, value, bound):
    # a number of more digits than Python turns into an int, or digits that are not ASCII's
    monkeypatch.setenv("MALTPY_MAX_LINE_BYTES", value)
    monkeypatch.setenv("MALTPY_MAX_MANIFEST_BYTES", value)
    from maltpy.models.archive import max_manifest_bytes

    assert lines.max_line_bytes() == bound
    assert max_manifest_bytes() == (16 << 20 if bound == 1 << 20 else bound)


def test_a_reader_on_a_pipe_tells_whether_more_input_is_ready():
    # what has been read ahead counts as ready; an open pipe with nothing written is not
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, CONLLU.encode() * 2)
        reader = ConllReader(PipeReader(read_end), "<stdin>")
        sentences = iter(reader)
        next(sentences)
        assert reader.pending()
        next(sentences)
        assert not reader.pending()
        os.write(write_end, CONLLU.encode()[:20])
        assert reader.pending(0.5)
        os.write(write_end, CONLLU.encode()[20:])
        os.close(write_end)
        write_end = None
        assert [len(s) for s in sentences] == [4] and reader.pending()
    finally:
        os.close(read_end)
        if write_end is not None:
            os.close(write_end)
