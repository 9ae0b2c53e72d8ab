import csv
import gzip
import io

import pytest
from conftest import DATA, REFERENCE, SWEMALT, requires_shared

from maltpy.conll import ConllReader
from maltpy.errors import MaltpyError
from maltpy.evaluate import attachment_scores, is_punctuation


def sentences(data: str, name: str = "f") -> list:
    return list(ConllReader(io.BytesIO(data.encode()), name))


def line(i, form, head, rel, upos="X"):
    return f"{i}\t{form}\t_\t{upos}\t{upos}\t_\t{head}\t{rel}\t_\t_\n"


GOLD = (
    line(1, "Dogs", 2, "nsubj", "NOUN")
    + line(2, "bark", 0, "root")
    + line(3, "!", 2, "punct", "PUNCT")
    + "\n"
    + line(1, "Yes", 0, "root")
    + line(2, "«", 1, "punct", "SYM")
    + "\n"
)
SYSTEM = (
    line(1, "Dogs", 2, "obj", "NOUN")
    + line(2, "bark", 0, "root")
    + line(3, "!", 1, "punct", "PUNCT")
    + "\n"
    + line(1, "Yes", 0, "root")
    + line(2, "«", 1, "punct", "SYM")
    + "\n"
)


def test_scores_by_hand():
    s = attachment_scores(sentences(GOLD), sentences(SYSTEM), "g", "s")
    assert (s.tokens, s.sentences) == (5, 2)
    assert (s.right_both, s.right_head, s.right_label, s.exact) == (3, 4, 4, 1)
    assert (s.las, s.uas, s.la, s.em) == (60.0, 80.0, 80.0, 50.0)
    assert s.per_label["nsubj"].as_dict() == {
        "gold": 1,
        "system": 0,
        "correct": 0,
        "precision": None,
        "recall": 0.0,
        "f1": None,
    }
    assert s.per_label["punct"].as_dict()["precision"] == 50.0


def test_punctuation_is_excluded_by_tag_or_by_form():
    # '«' is tagged SYM but is Unicode punctuation (Pi), so it goes too, as in eval.pl
    s = attachment_scores(sentences(GOLD), sentences(SYSTEM), "g", "s", exclude_punct=True)
    assert (s.tokens, s.right_both, s.exact) == (3, 2, 1)
    assert is_punctuation(["1", "...", "_", "X"]) and not is_punctuation(["1", "$", "_", "SYM"])


def test_files_that_do_not_line_up_name_the_first_sentence_that_differs():
    with pytest.raises(MaltpyError, match=r"sentence 2 does not line up with g:5: 1 words here, 2 there") as e:
        attachment_scores(
            sentences(GOLD, "g"), sentences(SYSTEM.replace(line(2, "«", 1, "punct", "SYM"), ""), "s"), "g", "s"
        )
    assert (e.value.file, e.value.line) == ("s", 5)
    with pytest.raises(MaltpyError, match=r"word 2 is 'barks' here, 'bark' there"):
        attachment_scores(sentences(GOLD), sentences(SYSTEM.replace("bark", "barks")), "g", "s")
    with pytest.raises(MaltpyError, match=r"s ends after 1 sentences; sentence 2 has no counterpart") as e:
        attachment_scores(sentences(GOLD), sentences(SYSTEM.split("\n\n")[0] + "\n"), "g", "s")
    assert (e.value.file, e.value.line) == ("g", 5)
    with pytest.raises(MaltpyError, match="not parsed"):
        unparsed = "".join(line(i, f, "_", "_") for i, f in ((1, "Dogs"), (2, "bark"), (3, "!"))) + "\n"
        attachment_scores(sentences(GOLD.split("\n\n")[0] + "\n"), sentences(unparsed), "g", "s")


def independent_count(gold_path, system_lines):
    """LAS/UAS/LA/EM over all tokens, counted straight from the columns."""

    def blocks(lines):
        out, cur = [], []
        for raw in lines:
            raw = raw.rstrip("\n")
            if raw:
                cur.append(raw.split("\t"))
            elif cur:
                out.append(cur)
                cur = []
        return out + ([cur] if cur else [])

    gold = blocks(open(gold_path, encoding="utf-8"))
    system = blocks(system_lines)
    n = las = uas = la = em = 0
    for g, s in zip(gold, system, strict=True):
        whole = True
        for a, b in zip(g, s, strict=True):
            n += 1
            las += a[6] == b[6] and a[7] == b[7]
            uas += a[6] == b[6]
            la += a[7] == b[7]
            whole &= a[6] == b[6] and a[7] == b[7]
        em += whole
    return {
        k: round(100 * v / d, 2) for k, v, d in (("LAS", las, n), ("UAS", uas, n), ("LA", la, n), ("EM", em, len(gold)))
    }


@requires_shared
def test_swemalt_mini_parsed_output_against_an_independent_count():
    gold = SWEMALT / "gold" / "sv-stb-dep-mini-test.conll"
    parsed = SWEMALT / "parsed" / "sv-stb-dep-mini-test-parsed.conll"
    with open(gold, "rb") as g, open(parsed, "rb") as p:
        s = attachment_scores(ConllReader(g, str(gold)), ConllReader(p, str(parsed)), "g", "p")
    expected = independent_count(gold, open(parsed, encoding="utf-8"))
    assert {k: v for k, v in s.as_dict().items() if k in expected} == expected
    assert s.tokens == 2651 and s.sentences == 230


def reference_rows():
    if not REFERENCE.is_dir():
        return []
    return list(csv.DictReader(open(REFERENCE / "scores.tsv", encoding="utf-8"), delimiter="\t"))


@requires_shared
@pytest.mark.parametrize("row", reference_rows(), ids=lambda r: r["name"])
def test_maltparser_outputs_score_as_the_reference_says(row):
    # The reference scored all tokens, and without punctuation by the PUNCT tag alone.
    gold = DATA / row["test"]
    output = gzip.open(REFERENCE / "outputs" / f"{row['name']}.conll.gz", "rb")
    with open(gold, "rb") as g, output:
        s = attachment_scores(ConllReader(g, str(gold)), ConllReader(output, row["name"]), "g", "s")
    assert (s.las, s.uas, s.la, s.em) == tuple(float(row[k]) for k in ("LAS", "UAS", "LA", "EM"))


@requires_shared
@pytest.mark.parametrize(
    "row", [r for r in reference_rows() if r["name"].startswith("la_perseus")], ids=lambda r: r["name"]
)
def test_without_punctuation_as_the_reference_on_latin(row):
    # The reference left out words tagged PUNCT; in the Latin test set those are exactly the words
    # whose form is all punctuation, so --punct exclude must give the reference's figures there.
    gold = DATA / row["test"]
    words = [w for sent in ConllReader(open(gold, "rb"), str(gold)) for w in sent.words]
    assert [w for w in words if is_punctuation(w)] == [w for w in words if w[3] == "PUNCT"]
    with open(gold, "rb") as g, gzip.open(REFERENCE / "outputs" / f"{row['name']}.conll.gz", "rb") as output:
        s = attachment_scores(ConllReader(g, str(gold)), ConllReader(output, "s"), "g", "s", exclude_punct=True)
    assert (s.las, s.uas) == (float(row["LAS_nopunct"]), float(row["UAS_nopunct"]))
