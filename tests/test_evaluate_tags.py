"""maltpy eval's tagging accuracies (UPOS, XPOS, UFeats, AllTags, Lemmas) against the CoNLL 2018
shared task's script: real treebanks with tags altered word by word, their figures counted here
from the columns and pinned as the script gave them (conll18_ud_eval.py -c, 2018-06-25, run by
hand outside this repository)."""

import io
import json
import xml.etree.ElementTree as ET

import pytest
from conftest import DATA, EXAMPLE, requires_shared, run_in_process

from maltpy.data.conll import ConllReader
from maltpy.evaluation.report import draw_sentence
from maltpy.evaluation.scores import evaluate

UD = DATA / "ud"
METRICS = ("UPOS", "XPOS", "UFeats", "AllTags", "Lemmas")


def altered(text: str) -> tuple[str, str]:
    """A gold and a system file made from a treebank's text, the same every time: the k-th word
    of the file (counting every word, across sentences) has, in the system's file, its UPOS
    changed (k % 37 == 1) or made _ (k % 53 == 8), its XPOS changed (k % 41 == 2), its FEATS
    reversed (k % 23 == 3: the same universal features), a language-specific feature added
    (k % 29 == 4: ExtPos=ADP where FEATS is _), a universal one dropped (k % 31 == 5: Number=Sing
    where FEATS is _) or FEATS made _ (k % 59 == 9), its lemma changed (k % 43 == 6), its
    relation made dep (k % 17 == 10) or its head moved to its grandparent (k % 19 == 11, not the
    root); and its lemma _ in the gold's and zzz in the system's (k % 47 == 7). Comments,
    multiword tokens and empty nodes stay as they are."""
    gold_blocks, system_blocks = [], []
    k = 0
    for block in text.split("\n\n"):
        lines = [line.split("\t") for line in block.split("\n")]
        words = [f for f in lines if len(f) == 10 and f[0].isdigit()]
        heads = [0] + [int(f[6]) for f in words]
        gold, system = [list(f) for f in lines], [list(f) for f in lines]
        for g, s in zip(gold, system):
            if len(g) != 10 or not g[0].isdigit():
                continue
            k += 1
            upos, xpos, lemma, feats, head = g[3], g[4], g[2], g[5], heads[int(g[0])]
            if k % 37 == 1:
                s[3] = "SYM" if upos == "X" else "X"
            if k % 53 == 8:
                s[3] = "_"
            if k % 41 == 2:
                s[4] = xpos + "x"
            if k % 23 == 3:
                s[5] = "|".join(reversed(feats.split("|")))
            if k % 29 == 4:
                s[5] = "ExtPos=ADP" if feats == "_" else feats + "|Zzz=Yes"
            if k % 31 == 5:
                s[5] = "Number=Sing" if feats == "_" else "|".join(feats.split("|")[1:]) or "_"
            if k % 59 == 9:
                s[5] = "_"
            if k % 43 == 6:
                s[2] = lemma + "x"
            if k % 47 == 7:
                g[2], s[2] = "_", "zzz"
            if k % 17 == 10:
                s[7] = "dep"
            if k % 19 == 11 and head and heads[head]:
                s[6] = str(heads[head])
        gold_blocks.append("\n".join("\t".join(f) for f in gold))
        system_blocks.append("\n".join("\t".join(f) for f in system))
    return "\n\n".join(gold_blocks), "\n\n".join(system_blocks)


#: UD v2's universal features, as the shared task lists them
UNIVERSAL = {
    "PronType", "NumType", "Poss", "Reflex", "Foreign", "Abbr", "Gender", "Animacy", "Number", "Case", "Definite",
    "Degree", "VerbForm", "Mood", "Tense", "Aspect", "Voice", "Evident", "Polarity", "Person", "Polite",
}  # fmt: skip


def counted(gold: str, system: str) -> dict[str, int]:
    """The words right by each metric, counted here from the word lines of the two texts."""

    def words(text):
        return [f for f in (line.split("\t") for line in text.split("\n")) if len(f) == 10 and f[0].isdigit()]

    def universal(feats):
        return {f for f in feats.split("|") if f.split("=")[0] in UNIVERSAL}

    right = dict.fromkeys(METRICS, 0)
    for g, s in zip(words(gold), words(system), strict=True):
        tags = [g[3] == s[3], g[4] == s[4], universal(g[5]) == universal(s[5])]
        for metric, ok in zip(METRICS, [*tags, all(tags), g[2] in ("_", s[2])]):
            right[metric] += ok
    return right


#: conll18_ud_eval.py -c on ``altered`` (words right of each metric, of all words; UAS .. BLEX as F1)
SCRIPT = {
    "UD_English-LinES/en_lines-ud-dev.conllu": {
        "words": 21637, "UPOS": 20654, "XPOS": 21109, "UFeats": 20723, "AllTags": 19302, "Lemmas": 21143,
        "figures": {"UPOS": 95.46, "XPOS": 97.56, "UFeats": 95.78, "AllTags": 89.21, "Lemmas": 97.72},
        "conll18": {"UAS": 96.16, "LAS": 90.51, "CLAS": 89.06, "MLAS": 71.37, "BLEX": 87.11},
    },
    "UD_Swedish-Talbanken/sv_talbanken-ud-dev.conllu": {
        "words": 9797, "UPOS": 9352, "XPOS": 9558, "UFeats": 9375, "AllTags": 8733, "Lemmas": 9574,
        "figures": {"UPOS": 95.46, "XPOS": 97.56, "UFeats": 95.69, "AllTags": 89.14, "Lemmas": 97.72},
        "conll18": {"UAS": 96.43, "LAS": 90.79, "CLAS": 89.33, "MLAS": 73.25, "BLEX": 87.14},
    },
}  # fmt: skip


def sentences(text: str, name: str) -> list:
    return list(ConllReader(io.BytesIO(text.encode()), name))


@requires_shared
@pytest.mark.parametrize("treebank", sorted(SCRIPT), ids=lambda t: t.split("/")[-1])
def test_tag_accuracies_are_the_shared_task_scripts(treebank):
    # en_lines dev has multiword tokens, sv_talbanken dev empty nodes: neither is a word here
    gold, system = altered((UD / treebank).read_text(encoding="utf-8"))
    (s,) = evaluate(sentences(gold, "g"), [sentences(system, "s")], "g", ["s"], conll18=True)
    expected = SCRIPT[treebank]
    assert s.tags.words == expected["words"] == s.tokens
    assert s.tags.right == {m: expected[m] for m in METRICS} == counted(gold, system)
    assert s.tags.as_dict() == expected["figures"]
    assert s.conll18.as_dict() == expected["conll18"]  # the tree's metrics agree with it as well


def row(i, form, lemma, upos, xpos, feats, head, rel):
    return f"{i}\t{form}\t{lemma}\t{upos}\t{xpos}\t{feats}\t{head}\t{rel}\t_\t_\n"


# gold: a multiword token (3-4) and an empty node (2.1); the system has neither
GOLD = (
    "# sent_id = 1\n"
    + row(1, "I", "I", "PRON", "PRP", "Case=Nom|Number=Sing|Person=1|PronType=Prs", 5, "nsubj")
    + row(2, "said", "say", "VERB", "VBD", "Mood=Ind|Tense=Past|VerbForm=Fin", 0, "root")
    + "2.1\tsaid\tsay\tVERB\tVBD\t_\t_\t_\t2:conj\t_\n"
    + "3-4\tdon't\t_\t_\t_\t_\t_\t_\t_\t_\n"
    + row(3, "do", "do", "AUX", "VBP", "Mood=Ind|Tense=Pres|VerbForm=Fin", 5, "aux")
    + row(4, "n't", "not", "PART", "RB", "Polarity=Neg", 5, "advmod")
    + row(5, "go", "_", "VERB", "VB", "VerbForm=Inf", 2, "ccomp")
    + row(6, ".", ".", "PUNCT", ".", "_", 2, "punct")
    + "\n"
)
SYSTEM = (
    "# sent_id = 1\n"
    # the universal features in another order, with a language-specific one: UFeats right
    + row(1, "I", "I", "PRON", "PRP", "PronType=Prs|Person=1|Number=Sing|Case=Nom|Typo=Yes", 5, "nsubj")
    + row(2, "said", "said", "VERB", "VBD", "Mood=Ind|Tense=Past|VerbForm=Fin", 0, "root")  # lemma wrong
    + row(3, "do", "do", "AUX", "VBP", "Mood=Ind|VerbForm=Fin", 5, "aux")  # Tense missing
    + row(4, "n't", "not", "ADV", "RB", "Polarity=Neg", 5, "advmod")  # UPOS wrong
    + row(5, "go", "go", "VERB", "VB", "_", 2, "ccomp")  # any lemma right for a gold _; FEATS _ wrong
    + row(6, ".", "_", "PUNCT", "_", "ExtPos=X", 2, "punct")  # _ lemma and XPOS wrong; no universal feature
    + "\n"
)


def test_multiword_tokens_empty_nodes_and_underscores_as_the_script_counts_them():
    (s,) = evaluate(sentences(GOLD, "g"), [sentences(SYSTEM, "s")], "g", ["s"], conll18=True)
    # conll18_ud_eval.py -c: UPOS 5, XPOS 5, UFeats 4, AllTags 2, Lemmas 4 of 6 words; MLAS 2 and BLEX 3 of 4
    assert s.tags.words == 6 and s.tags.right == {"UPOS": 5, "XPOS": 5, "UFeats": 4, "AllTags": 2, "Lemmas": 4}
    assert s.tags.right == counted(GOLD, SYSTEM) and s.tags.differ
    assert s.tags.as_dict() == {"UPOS": 83.33, "XPOS": 83.33, "UFeats": 66.67, "AllTags": 33.33, "Lemmas": 66.67}
    assert s.conll18.as_dict() == {"UAS": 100.0, "LAS": 100.0, "CLAS": 100.0, "MLAS": 50.0, "BLEX": 75.0}


def test_eval_reports_the_tags_in_text_json_and_report_when_they_differ(tmp_path):
    gold, system, report = tmp_path / "gold.conllu", tmp_path / "system.conllu", tmp_path / "report.html"
    gold.write_text(GOLD, encoding="utf-8")
    system.write_text(SYSTEM, encoding="utf-8")
    text = run_in_process("eval", gold, system).stdout.decode()
    assert text.split("\n\n")[2].splitlines() == [
        "tags (CoNLL 2018's accuracies, over all 6 words, punctuation included)",
        "metric   score  correct  total",
        "UPOS     83.33        5      6",
        "XPOS     83.33        5      6",
        "UFeats   66.67        4      6",
        "AllTags  33.33        2      6",
        "Lemmas   66.67        4      6",
    ]
    result = run_in_process("eval", gold, system, "--json", "--punct", "exclude", "--html", report)
    assert json.loads(result.stdout)["tags"] == {  # over every word, whatever --punct says
        "UPOS": 83.33, "XPOS": 83.33, "UFeats": 66.67, "AllTags": 33.33, "Lemmas": 66.67,
        "words": 6, "correct": {"UPOS": 5, "XPOS": 5, "UFeats": 4, "AllTags": 2, "Lemmas": 4},
    }  # fmt: skip
    page = ET.fromstring(report.read_text(encoding="utf-8").split("\n", 1)[1])
    xhtml = "{http://www.w3.org/1999/xhtml}"
    assert ["".join(h.itertext()) for h in page.iter(f"{xhtml}h2")][:2] == ["Scores", "Tags"]
    tables = [[["".join(c.itertext()) for c in r] for r in t.iter(f"{xhtml}tr")] for t in page.iter(f"{xhtml}table")]
    assert tables[2] == [["system", *METRICS, "words"], [f"[1] {system}", "83.33", "83.33", "66.67", "33.33",
                                                         "66.67", "6"]]  # fmt: skip


def test_files_alike_in_their_tags_print_as_before(tmp_path):
    # another tree, the same tags: eval says what it said before it knew tags
    gold = EXAMPLE / "en-test.conllu"
    text = gold.read_text(encoding="utf-8")
    moved = tmp_path / "moved.conllu"
    moved.write_text(text.replace("\t7\tcase\t", "\t3\tcase\t"), encoding="utf-8")
    result = run_in_process("eval", gold, moved, "--json")
    assert set(json.loads(result.stdout)) == {"LAS", "UAS", "LA", "EM", "tokens", "sentences", "punct"}
    assert json.loads(result.stdout)["UAS"] < 100
    out = run_in_process("eval", gold, moved, "--conll18").stdout.decode()
    assert "tags (" not in out and "UPOS" not in out
    report = tmp_path / "report.html"
    assert run_in_process("eval", gold, moved, "--html", report).returncode == 0
    assert "<h2>Tags</h2>" not in report.read_text(encoding="utf-8")
    # one word's features in another order: the columns differ, so the figures are there, all 100
    permuted = tmp_path / "permuted.conllu"
    permuted.write_text(text.replace("Definite=Def|PronType=Art", "PronType=Art|Definite=Def", 1), encoding="utf-8")
    systems = json.loads(run_in_process("eval", gold, moved, permuted, "--json").stdout)["systems"]
    assert [s["tags"]["UFeats"] for s in systems] == [100.0, 100.0] and systems[0]["tags"]["words"] == 102
    out = run_in_process("eval", gold, moved, permuted).stdout.decode()
    assert "\nUFeats   100.00  100.00\n" in out


def test_a_drawn_systems_panel_has_its_own_tags_the_wrong_ones_marked():
    svg = "{http://www.w3.org/2000/svg}"
    (gold,), (system,) = sentences(GOLD, "g"), sentences(SYSTEM, "s")
    for systems, expected in (([system], ["PRON", "VERB", "AUX", "ADV", "VERB", "PUNCT"]),
                              ([gold], ["PRON", "VERB", "AUX", "PART", "VERB", "PUNCT"])):  # fmt: skip
        drawing = ET.fromstring(draw_sentence(1, gold, [("s", s) for s in systems], "g"))
        tags = [t for t in drawing.iter(f"{svg}text") if "tag" in t.get("class").split()]
        assert [t.text for t in tags] == ["PRON", "VERB", "AUX", "PART", "VERB", "PUNCT"] + expected
        assert [t.get("class") == "tag wrong" for t in tags] == [False] * 9 + [expected[3] == "ADV"] + [False] * 2
