import csv
import gzip
import io
import json
import random
from collections import Counter
from pathlib import Path

import pytest
from conftest import DATA, REFERENCE, SWEMALT, assert_one_line_error, conll_columns, requires_shared, run_maltpy

from maltpy.data.conll import ConllReader
from maltpy.errors import MaltpyError
from maltpy.evaluation.report import p_value
from maltpy.evaluation.scores import (
    approximate_randomization,
    attachment_scores,
    evaluate,
    is_punctuation,
    significance,
)


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


# --- grouped scores, several systems, significance ------------------------------------------------


def independent_groups(gold_path, system_path):
    """{grouping: {value: (tokens, LAS)}} for deprel, arc-length and sentence-length, counted from
    the columns, with MaltEval's bins written out here again."""

    def length_bin(head, dep):
        if head == 0:
            return "to_root"
        return {1: "1", 2: "2"}.get(abs(head - dep), "3-6" if abs(head - dep) <= 6 else "7-...")

    def sentence_bin(n):
        return next((f"{lo}-{lo + 9}" for lo in (1, 11, 21, 31, 41) if n <= lo + 9), "51-...")

    counts = {"deprel": {}, "arc-length": {}, "sentence-length": {}}
    for g, s in zip(conll_columns(gold_path), conll_columns(system_path), strict=True):
        for dep, (a, b) in enumerate(zip(g, s, strict=True), 1):
            right = a[6] == b[6] and a[7] == b[7]
            for grouping, value in (("deprel", a[7]), ("arc-length", length_bin(int(a[6]), dep)),
                                    ("sentence-length", sentence_bin(len(g)))):  # fmt: skip
                tokens, good = counts[grouping].get(value, (0, 0))
                counts[grouping][value] = (tokens + 1, good + right)
    return {
        grouping: {v: (n, round(100 * good / n, 2)) for v, (n, good) in values.items()}
        for grouping, values in counts.items()
    }


@requires_shared
def test_grouped_scores_of_maltparser_output_against_an_independent_count():
    gold = SWEMALT / "gold" / "sv-stb-dep-mini-test.conll"
    parsed = SWEMALT / "parsed" / "sv-stb-dep-mini-test-parsed.conll"
    result = run_maltpy("eval", gold, parsed, "--by", "deprel", "--by", "arc-length", "--by", "sentence-length",
                        "--json")  # fmt: skip
    assert result.returncode == 0, result.stderr
    by = json.loads(result.stdout)["by"]
    expected = independent_groups(gold, parsed)
    for grouping, values in expected.items():
        got = {v: (d["tokens"], d["LAS"]) for v, d in by[grouping].items() if d["tokens"]}
        assert got == values, grouping
    assert list(by["arc-length"]) == ["to_root", "1", "2", "3-6", "7-..."]
    assert set(by["sentence-length"]) <= {"1-10", "11-20", "21-30", "31-40", "41-50", "51-..."}
    assert sum(d["tokens"] for d in by["deprel"].values()) == 2651
    # a label the parser gives but the gold file has not: counted for precision only
    assert all(d["tokens"] == 0 for label, d in by["deprel"].items() if label not in expected["deprel"])


def test_grouped_by_direction_projectivity_and_depth_by_hand():
    # gold: 3 the root, 3 -> 1 -> 2 -> 4; the arc 2 -> 4 spans word 3, which 2 does not dominate: non-projective.
    # The system attaches every word to 3.
    gold = line(1, "a", 3, "x") + line(2, "b", 1, "y") + line(3, "c", 0, "root") + line(4, "d", 2, "z") + "\n"
    system = line(1, "a", 3, "x") + line(2, "b", 3, "y") + line(3, "c", 0, "root") + line(4, "d", 3, "z") + "\n"
    groupings = ("arc-direction", "projectivity", "depth")
    (s,) = evaluate(sentences(gold), [sentences(system)], "g", ["s"], by=groupings)
    by = s.as_dict()["by"]
    assert {v: (d["tokens"], d["LAS"]) for v, d in by["arc-direction"].items()} == {
        "left": (2, 0.0),  # words 2 and 4: their heads to their left, as MaltEval's ArcDirection has it
        "right": (1, 100.0),  # word 1, head 3 to its right
        "to_root": (1, 100.0),
    }
    assert by["arc-direction"]["right"]["system_tokens"] == 2 and by["arc-direction"]["left"]["system_tokens"] == 1
    assert {v: d["tokens"] for v, d in by["projectivity"].items()} == {"Proj": 3, "Non-proj": 1}
    assert by["projectivity"]["Non-proj"]["system_tokens"] == 0
    assert {v: (d["tokens"], d["LAS"]) for v, d in by["depth"].items()} == {  # MaltEval's: 0 on the root
        "0": (1, 100.0),
        "1": (1, 100.0),
        "2": (1, 0.0),
        "3": (1, 0.0),
    }
    assert by["depth"]["1"]["system_tokens"] == 3 and by["depth"]["1"]["precision"] == round(100 / 3, 2)


def independent_p(first, second, samples, seed):
    """Approximate randomization as Yeh (2000) states it, written plainly: swap each sentence's pair
    with probability 1/2, count the shuffles at least as far apart as the observed totals."""
    rng = random.Random(seed)
    observed = abs(sum(first) - sum(second))
    at_least = 0
    for _ in range(samples):
        a = b = 0
        for x, y in zip(first, second):
            if rng.random() < 0.5:
                x, y = y, x
            a += x
            b += y
        at_least += abs(a - b) >= observed
    return (at_least + 1) / (samples + 1)


@requires_shared
def test_significance_agrees_with_an_independent_implementation():
    gold = DATA / "conllx" / "da_ddt-ud-test.conllx"
    outputs = REFERENCE / "outputs"
    texts = [gzip.open(outputs / f"da_ddt-{a}-liblinear.conll.gz", "rt", encoding="utf-8").read()
             for a in ("planar", "2planar")]  # fmt: skip
    systems = [conll_columns(io.StringIO(t)) for t in texts]
    golds = conll_columns(gold)
    las = [[sum(a[6] == b[6] and a[7] == b[7] for a, b in zip(g, s)) for g, s in zip(golds, sys)] for sys in systems]
    uas = [[sum(a[6] == b[6] for a, b in zip(g, s)) for g, s in zip(golds, sys)] for sys in systems]
    with gzip.open(outputs / "da_ddt-planar-liblinear.conll.gz", "rb") as a, \
         gzip.open(outputs / "da_ddt-2planar-liblinear.conll.gz", "rb") as b:  # fmt: skip
        scores = evaluate(sentences(open(gold, encoding="utf-8").read()), [ConllReader(a, "a"), ConllReader(b, "b")],
                          "g", ["a", "b"])  # fmt: skip
    result = significance(*scores, samples=10_000, seed=7)
    expected = {"LAS": independent_p(*las, 10_000, 7), "UAS": independent_p(*uas, 10_000, 7)}
    assert abs(result["LAS"] - expected["LAS"]) <= 0.02 and abs(result["UAS"] - expected["UAS"]) <= 0.02
    assert 0.1 < expected["UAS"] < 0.5 and expected["LAS"] < 0.01  # a difference that is, and one that is not
    assert (result["samples"], result["seed"]) == (10_000, 7)
    assert significance(*scores, samples=2_000, seed=7) == significance(*scores, samples=2_000, seed=7)


@requires_shared
def test_a_system_against_itself_has_p_one_and_several_systems_line_up(tmp_path):
    gold = SWEMALT / "gold" / "sv-stb-dep-mini-test.conll"
    parsed = SWEMALT / "parsed" / "sv-stb-dep-mini-test-parsed.conll"
    result = run_maltpy("eval", gold, parsed, parsed, "--significance", "--samples", "500", "--json")
    assert result.returncode == 0, result.stderr
    d = json.loads(result.stdout)
    assert d["significance"] == {"LAS": 1.0, "UAS": 1.0, "samples": 500, "seed": 1}
    assert [s["system"] for s in d["systems"]] == [str(parsed)] * 2
    assert d["systems"][0]["LAS"] == d["systems"][1]["LAS"] == 72.88
    text = run_maltpy("eval", gold, parsed, gold, "--by", "arc-length", "--significance").stdout.decode()
    assert "LAS[2]" in text and "p = " in text
    assert_one_line_error(run_maltpy("eval", gold, parsed, "--significance"), "command line: --significance compares")


def test_a_p_value_is_never_zero():
    # every sentence better in the first system: only the shuffles that swap all or none are as far apart
    p = approximate_randomization([5] * 60, [0] * 60, samples=20_000, seed=3)
    assert p == 1 / 20_001
    assert p_value(p) == "5e-05" and p_value(0.25) == "0.2500"


# --- the CoNLL 2018 shared task's metrics ----------------------------------------------------------


def perturbed(text: str, seed: int) -> str:
    """A system's file made from a gold CoNLL-U text, the same every time for a seed: some words
    move up to their grandparent (never the root: the tree keeps its one root), some change their
    relation, its subtype, UPOS, features or lemma. Comments, multiword tokens and empty nodes
    stay as they are."""
    rng = random.Random(seed)
    relations = ("nmod", "obl", "dep", "amod", "det", "case", "advmod", "conj")
    out = []
    for block in text.split("\n\n"):
        lines = [line.split("\t") for line in block.split("\n")]
        words = [f for f in lines if len(f) == 10 and f[0].isdigit()]
        heads = [0] + [int(f[6]) for f in words]
        for d, f in enumerate(words, 1):
            if heads[d] and heads[heads[d]] and rng.random() < 0.12:
                heads[d] = heads[heads[d]]
                f[6] = str(heads[d])
            if heads[d] and rng.random() < 0.08:
                f[7] = rng.choice(relations)
            elif heads[d] and rng.random() < 0.05:
                f[7] = f[7].split(":")[0] + ":x"  # a subtype: the shared task's LAS does not see it
            if rng.random() < 0.04:
                f[3] = "X"
            if f[5] != "_" and rng.random() < 0.06:
                f[5] = "|".join(f[5].split("|")[1:]) or "_"
            if rng.random() < 0.04:
                f[2] = rng.choice(("_", f[1].lower() + "x"))
        out.append("\n".join("\t".join(f) for f in lines))
    return "\n\n".join(out)


def conll18_reference():
    """The figures of the CoNLL 2018 shared task's script (conll18_ud_eval.py, 2018-06-25, run
    outside this repository) for each gold file and its ``perturbed`` system file."""
    path = Path(__file__).parent / "data" / "conll18_reference.tsv"
    return list(csv.DictReader(open(path, encoding="utf-8"), delimiter="\t"))


@requires_shared
@pytest.mark.parametrize("row", conll18_reference(), ids=lambda r: r["gold"].split("/")[-1])
def test_conll18_metrics_are_the_shared_task_scripts(tmp_path, row):
    gold = DATA / row["gold"]
    system = tmp_path / "system.conllu"
    system.write_text(perturbed(gold.read_text(encoding="utf-8"), int(row["seed"])), encoding="utf-8")
    result = run_maltpy("eval", gold, system, "--conll18", "--json")
    assert result.returncode == 0, result.stderr
    got = json.loads(result.stdout)["conll18"]
    assert got == {metric: float(row[metric]) for metric in ("UAS", "LAS", "CLAS", "MLAS", "BLEX")}
    assert got["LAS"] > json.loads(result.stdout)["LAS"]  # the subtypes it ignores


def test_conll18_figures_round_as_the_script_prints_them():
    # a chain of 160 words, 23 of them attached right: F1 = 14.375 exactly, which the script prints 14.37
    gold = "".join(line(i, f"w{i}", i - 1, "nsubj") for i in range(1, 161)) + "\n"
    system = "".join(line(i, f"w{i}", i - 1 if i <= 23 else (i + 1 if i < 160 else 0), "nsubj") for i in range(1, 161))
    (s,) = evaluate(sentences(gold), [sentences(system + "\n")], "g", ["s"], conll18=True)
    assert s.conll18.as_dict()["UAS"] == 14.37


@requires_shared
def test_conll18_says_which_relations_are_not_uds():
    # swemalt-mini has Talbanken05's labels (SS, OO, ROOT ...): no word is a UD content word
    gold = SWEMALT / "gold" / "sv-stb-dep-mini-test.conll"
    parsed = SWEMALT / "parsed" / "sv-stb-dep-mini-test-parsed.conll"
    result = run_maltpy("eval", gold, parsed, "--conll18", "--json")
    assert result.returncode == 0, result.stderr
    got = json.loads(result.stdout)
    assert [got["conll18"][m] for m in ("CLAS", "MLAS", "BLEX")] == [0.0, 0.0, 0.0]
    for side, path in (("gold", gold), ("system", parsed)):
        relations = Counter(w[7].split(":")[0] for s in conll_columns(path) for w in s)
        assert got["conll18_not_ud"][side] == relations and "ROOT" in relations
    text = run_maltpy("eval", gold, parsed, "--conll18").stdout.decode()
    note = text.split("\nnote: ", 1)[1]
    assert note.startswith("CLAS, MLAS and BLEX count only the words of UD's content relations")
    assert "gold:   all 2651 words have a relation that is not UD's (PA 323, " in note
    assert "system: all 2651 words" in note and "no gold word has a content relation" in note


@requires_shared
def test_conll18_notes_a_system_with_some_relations_not_uds(tmp_path):
    # a UD gold file, and a system that writes UD v1's dobj and nsubjpass for some words
    gold = DATA / "ud" / "UD_English-LinES" / "en_lines-ud-test.conllu"
    v1 = tmp_path / "v1.conllu"
    v1.write_text(gold.read_text("utf-8").replace("\tobj\t", "\tdobj\t").replace("\tnsubj:pass\t", "\tnsubjpass\t"))
    words = [w for s in conll_columns(gold) for w in s]
    expected = {"dobj": sum(w[7] == "obj" for w in words), "nsubjpass": sum(w[7] == "nsubj:pass" for w in words)}
    result = run_maltpy("eval", gold, gold, v1, "--conll18", "--json")
    first, second = json.loads(result.stdout)["systems"]
    assert first["conll18_not_ud"] == {"gold": {}, "system": {}} and first["conll18"]["CLAS"] == 100.0
    assert second["conll18_not_ud"] == {"gold": {}, "system": expected} and 0 < second["conll18"]["CLAS"] < 100
    text = run_maltpy("eval", gold, gold, v1, "--conll18").stdout.decode()
    (note,) = [line for line in text.splitlines() if "not UD's (" in line]
    count = expected["dobj"] + expected["nsubjpass"]
    assert note == (f"  [2]:    {count} of {len(words)} words have a relation that is not UD's "
                    f"(dobj {expected['dobj']}, nsubjpass {expected['nsubjpass']})")  # fmt: skip
    assert "no gold word" not in text
    assert "note:" not in run_maltpy("eval", gold, gold, "--conll18").stdout.decode()
