"""``maltpy eval --conll18`` on files whose tokenizations differ (evaluation/aligned.py): every
figure is the CoNLL 2018 shared task's script's (conll18_ud_eval.py v1.2, 2018-06-25, run with
``-c`` and ``-v`` outside this repository on the very files these tests write): its counts
(correct, gold, system, aligned) and its F1 as it prints it."""

import io
import json
import re
import xml.dom.minidom

import pytest
from conftest import DATA, assert_one_line_error, requires_shared, run_in_process

from maltpy.data.conll import ConllReader
from maltpy.evaluation.aligned import ALIGNED_METRICS, WORD_METRICS, Alignment
from maltpy.evaluation.scores import evaluate


def word(i, form, head, rel, upos="X", lemma="_", feats="_"):
    return f"{i}\t{form}\t{lemma}\t{upos}\t{upos}\t{feats}\t{head}\t{rel}\t_\t_\n"


def mwt(first, last, form):
    return f"{first}-{last}\t{form}" + "\t_" * 8 + "\n"


def sentences(text, name):
    return list(ConllReader(io.BytesIO(text.encode()), name, "conllu"))


def aligned(gold, system):
    (scores,) = evaluate(sentences(gold, "g"), [sentences(system, "s")], "g", ["s"], conll18=True)
    return scores.aligned


#: Hand-made pairs: (gold, system) CoNLL-U texts, the same text spaces aside, tokenized otherwise.
CASES = {
    # "cannot" split in two, "1 000" (a no-break space inside) split at it; "." on an unaligned head,
    # and "go"'s functional child "can" aligned with nothing (MLAS)
    "split tokens": (
        word(1, "I", 3, "nsubj", "PRON", "I") + word(2, "cannot", 3, "aux", "AUX", "can", "VerbForm=Fin")
        + word(3, "go", 0, "root", "VERB", "go") + word(4, "1\u00a0000", 3, "obj", "NUM", "1000")
        + word(5, ".", 3, "punct", "PUNCT", ".") + "\n",
        word(1, "I", 4, "nsubj", "PRON", "I") + word(2, "can", 4, "aux", "AUX", "can", "VerbForm=Fin")
        + word(3, "not", 4, "advmod", "PART", "not") + word(4, "go", 0, "root", "VERB", "go")
        + word(5, "1", 6, "nummod", "NUM", "1") + word(6, "000", 4, "obj", "NUM", "000")
        + word(7, ".", 3, "punct", "PUNCT", ".") + "\n",
    ),
    # "New" "York" merged into one token with a space inside; "." on the merged (unaligned) word
    "merged tokens": (
        word(1, "New", 2, "compound", "PROPN", "New") + word(2, "York", 4, "nsubj", "PROPN", "York")
        + word(3, "is", 4, "cop", "AUX", "be") + word(4, "big", 0, "root", "ADJ", "big")
        + word(5, ".", 4, "punct", "PUNCT", ".") + "\n",
        word(1, "New York", 3, "nsubj", "PROPN", "New York") + word(2, "is", 3, "cop", "AUX", "be")
        + word(3, "big", 0, "root", "ADJ", "big") + word(4, ".", 1, "punct", "PUNCT", ".") + "\n",
    ),
    # the gold's multiword token "del" (de + el), one word in the system
    "gold multiword token, system without": (
        word(1, "Vengo", 0, "root", "VERB", "venir") + mwt(2, 3, "del") + word(2, "de", 4, "case", "ADP", "de")
        + word(3, "el", 4, "det", "DET", "el") + word(4, "mercado", 1, "obl", "NOUN", "mercado")
        + word(5, ".", 1, "punct", "PUNCT", ".") + "\n",
        word(1, "Vengo", 0, "root", "VERB", "venir") + word(2, "del", 3, "case", "ADP", "del")
        + word(3, "mercado", 1, "obl", "NOUN", "mercado") + word(4, ".", 1, "punct", "PUNCT", ".") + "\n",
    ),
    # "al" expanded a + el in the gold, A + l in the system (A aligns with a, case aside; l with
    # nothing); "del" alike; "dáselo" one word in the gold, three in the system's multiword token
    "different expansions": (
        word(1, "Voy", 0, "root", "VERB", "ir") + mwt(2, 3, "al") + word(2, "a", 4, "case", "ADP", "a")
        + word(3, "el", 4, "det", "DET", "el") + word(4, "mercado", 1, "obl", "NOUN", "mercado")
        + mwt(5, 6, "del") + word(5, "de", 7, "case", "ADP", "de") + word(6, "el", 7, "det", "DET", "el")
        + word(7, "pueblo", 4, "nmod", "NOUN", "pueblo") + word(8, "y", 9, "cc", "CCONJ", "y")
        + word(9, "dáselo", 1, "conj", "VERB", "dar") + word(10, ".", 1, "punct", "PUNCT", ".") + "\n",
        word(1, "Voy", 0, "root", "VERB", "ir") + mwt(2, 3, "al") + word(2, "A", 4, "case", "ADP", "a")
        + word(3, "l", 4, "det", "DET", "el") + word(4, "mercado", 1, "obl", "NOUN", "mercado")
        + mwt(5, 6, "del") + word(5, "de", 7, "case", "ADP", "de") + word(6, "el", 7, "det", "DET", "el")
        + word(7, "pueblo", 4, "nmod", "NOUN", "pueblo") + word(8, "y", 9, "cc", "CCONJ", "y")
        + mwt(9, 11, "dáselo") + word(9, "da", 1, "conj", "VERB", "dar") + word(10, "se", 9, "iobj", "PRON", "se")
        + word(11, "lo", 9, "obj", "PRON", "lo") + word(12, ".", 1, "punct", "PUNCT", ".") + "\n",
    ),
    # three gold sentences, two system ones whose boundary falls elsewhere; "We" on the wrong head
    "sentence boundaries moved": (
        word(1, "It", 2, "nsubj", "PRON") + word(2, "rains", 0, "root", "VERB") + word(3, ".", 2, "punct", "PUNCT")
        + "\n" + word(1, "We", 2, "nsubj", "PRON") + word(2, "stay", 0, "root", "VERB")
        + word(3, "home", 2, "advmod", "ADV") + word(4, ".", 2, "punct", "PUNCT")
        + "\n" + word(1, "Fine", 0, "root", "ADJ") + word(2, ".", 1, "punct", "PUNCT") + "\n",
        word(1, "It", 2, "nsubj", "PRON") + word(2, "rains", 0, "root", "VERB") + word(3, ".", 2, "punct", "PUNCT")
        + word(4, "We", 2, "nsubj", "PRON") + "\n" + word(1, "stay", 0, "root", "VERB")
        + word(2, "home", 1, "advmod", "ADV") + word(3, ".", 1, "punct", "PUNCT")
        + word(4, "Fine", 1, "parataxis", "ADJ") + word(5, ".", 4, "punct", "PUNCT") + "\n",
    ),
    # sentences 1 to 3 have the same words (2 with the gold's multiword token "isn't" as two
    # tokens in the system, and tags and a relation of UD v1 that differ), 4 splits "tomorrow",
    # 5 is alike again
    "alike, then not": (
        word(1, "I", 4, "nsubj", "PRON") + mwt(2, 3, "don't") + word(2, "do", 4, "aux", "AUX")
        + word(3, "n't", 4, "advmod", "PART") + word(4, "know", 0, "root", "VERB") + word(5, ".", 4, "punct", "PUNCT")
        + "\n" + word(1, "It", 4, "nsubj", "PRON") + mwt(2, 3, "isn't") + word(2, "is", 4, "cop", "AUX")
        + word(3, "n't", 4, "advmod", "PART") + word(4, "late", 0, "root", "ADJ") + word(5, ".", 4, "punct", "PUNCT")
        + "\n" + word(1, "Go", 0, "root", "VERB") + word(2, "!", 1, "punct", "PUNCT")
        + "\n" + word(1, "Call", 0, "root", "VERB") + word(2, "tomorrow", 1, "obl:tmod", "NOUN")
        + word(3, ".", 1, "punct", "PUNCT") + "\n" + word(1, "Bye", 0, "root", "INTJ") + word(2, ".", 1, "punct")
        + "\n",
        word(1, "I", 4, "nsubj", "PRON") + mwt(2, 3, "don't") + word(2, "do", 4, "aux", "AUX")
        + word(3, "n't", 4, "neg", "PART") + word(4, "know", 0, "root", "VERB") + word(5, ".", 4, "punct", "PUNCT")
        + "\n" + word(1, "It", 4, "nsubj", "PRON") + word(2, "is", 4, "cop", "AUX")
        + word(3, "n't", 4, "advmod", "PART") + word(4, "late", 0, "root", "ADV") + word(5, ".", 4, "punct", "PUNCT")
        + "\n" + word(1, "Go", 0, "root", "VERB") + word(2, "!", 1, "punct", "PUNCT")
        + "\n" + word(1, "Call", 0, "root", "VERB") + word(2, "tomor", 1, "obl", "NOUN")
        + word(3, "row", 2, "goeswith", "NOUN") + word(4, ".", 1, "punct", "PUNCT")
        + "\n" + word(1, "Bye", 0, "root", "INTJ") + word(2, ".", 1, "punct") + "\n",
    ),
    # the script's choices, one a sentence: of two subsequences equally long, the one that passes
    # over the gold word first (y with y, not x with x); a head aligned with nothing is no root;
    # a system word before a gold multiword token is passed over before the multiword span
    # (abc aligns with nothing); a multiword token taken in stretches the span, the system's or
    # the gold's (d with d, twice); a word that ends past the span is not in it (cd with nothing);
    # a gold lemma _ is right whatever the system's; of two words that start together but end
    # apart, the gold one is passed over first (so c aligns with nothing); before a system
    # multiword token, one gold word is passed over, the next is in the span (b, not in it,
    # aligns with nothing; e aligns across a sentence boundary)
    "the script's choices": (
        mwt(1, 2, "xy") + word(1, "x", 0, "root", "NOUN") + word(2, "y", 1, "dep", "ADJ") + "\n"
        + word(1, "It", 2, "nsubj", "PRON") + word(2, "rains", 0, "root", "VERB") + word(3, ".", 2, "punct") + "\n"
        + word(1, "ab", 0, "root") + mwt(2, 3, "cd") + word(2, "abc", 1, "dep") + word(3, "d", 1, "dep") + "\n"
        + mwt(1, 3, "abc") + word(1, "a", 0, "root") + word(2, "b", 1, "dep") + word(3, "c", 1, "dep")
        + word(4, "d", 1, "dep") + "\n" + word(1, "ab", 0, "root") + mwt(2, 3, "cd") + word(2, "c", 1, "dep")
        + word(3, "d", 1, "dep") + "\n" + mwt(1, 3, "abc") + word(1, "a", 0, "root") + word(2, "b", 1, "dep")
        + word(3, "cd", 1, "dep") + word(4, "d", 1, "dep") + "\n" + word(1, "Yes", 0, "root", "INTJ") + "\n"
        + word(1, "a", 0, "root") + mwt(2, 3, "bc") + word(2, "b", 1, "dep") + word(3, "c", 1, "dep")
        + word(4, "de", 1, "dep") + "\n" + word(1, "a", 0, "root") + word(2, "b", 1, "dep") + word(3, "c", 1, "dep")
        + "\n" + word(1, "d", 0, "root") + word(2, "e", 1, "dep") + "\n",
        mwt(1, 2, "xy") + word(1, "y", 0, "root", "ADJ") + word(2, "x", 1, "dep", "VERB") + "\n"
        + word(1, "I", 0, "root", "PRON") + word(2, "t", 1, "goeswith") + word(3, "rains", 1, "root", "VERB")
        + word(4, ".", 3, "punct") + "\n" + word(1, "abc", 0, "root") + word(2, "d", 1, "dep") + "\n"
        + word(1, "ab", 0, "root") + mwt(2, 3, "cd") + word(2, "c", 1, "dep") + word(3, "d", 1, "dep") + "\n"
        + mwt(1, 3, "abc") + word(1, "a", 0, "root") + word(2, "b", 1, "dep") + word(3, "c", 1, "dep")
        + word(4, "d", 1, "dep") + "\n" + word(1, "ab", 0, "root") + word(2, "cd", 1, "dep") + "\n"
        + word(1, "Yes", 0, "root", "INTJ", "yes") + "\n" + word(1, "abc", 0, "root") + mwt(2, 3, "de")
        + word(2, "c", 1, "dep") + word(3, "e", 1, "dep") + "\n" + word(1, "abc", 0, "root") + "\n"
        + mwt(1, 2, "de") + word(1, "b", 0, "root") + word(2, "e", 1, "dep") + "\n",
    ),
}  # fmt: skip


#: conll18_ud_eval.py -c and -v on each of CASES (written to files as they are here): for each metric
#: of ALIGNED_METRICS, (correct, gold, system[, aligned]) and its F1 as printed.
SCRIPT = {
    "split tokens": (
        [(3, 5, 7), (1, 1, 1), (3, 5, 7, 3), (3, 5, 7, 3), (3, 5, 7, 3), (3, 5, 7, 3), (3, 5, 7, 3), (3, 5, 7, 3),
         (2, 5, 7, 3), (2, 5, 7, 3), (2, 3, 5, 2), (1, 3, 5, 2), (2, 3, 5, 2)],
        [50.0, 100.0, 50.0, 50.0, 50.0, 50.0, 50.0, 50.0, 33.33, 33.33, 50.0, 25.0, 50.0],
    ),
    "merged tokens": (
        [(3, 5, 4), (1, 1, 1), (3, 5, 4, 3), (3, 5, 4, 3), (3, 5, 4, 3), (3, 5, 4, 3), (3, 5, 4, 3), (3, 5, 4, 3),
         (2, 5, 4, 3), (2, 5, 4, 3), (1, 3, 2, 1), (1, 3, 2, 1), (1, 3, 2, 1)],
        [66.67, 100.0, 66.67, 66.67, 66.67, 66.67, 66.67, 66.67, 44.44, 44.44, 40.0, 40.0, 40.0],
    ),
    "gold multiword token, system without": (
        [(4, 4, 4), (1, 1, 1), (3, 5, 4, 3), (3, 5, 4, 3), (3, 5, 4, 3), (3, 5, 4, 3), (3, 5, 4, 3), (3, 5, 4, 3),
         (3, 5, 4, 3), (3, 5, 4, 3), (2, 2, 2, 2), (1, 2, 2, 2), (2, 2, 2, 2)],
        [100.0, 100.0, 66.67, 66.67, 66.67, 66.67, 66.67, 66.67, 66.67, 66.67, 100.0, 50.0, 100.0],
    ),
    "different expansions": (
        [(8, 8, 8), (1, 1, 1), (8, 10, 12, 8), (8, 10, 12, 8), (8, 10, 12, 8), (8, 10, 12, 8), (8, 10, 12, 8),
         (8, 10, 12, 8), (7, 10, 12, 8), (7, 10, 12, 8), (3, 4, 6, 3), (2, 4, 6, 3), (3, 4, 6, 3)],
        [100.0, 100.0, 72.73, 72.73, 72.73, 72.73, 72.73, 72.73, 63.64, 63.64, 60.0, 40.0, 60.0],
    ),
    "sentence boundaries moved": (
        [(9, 9, 9), (0, 3, 2), (9, 9, 9, 9), (9, 9, 9, 9), (9, 9, 9, 9), (9, 9, 9, 9), (9, 9, 9, 9), (9, 9, 9, 9),
         (7, 9, 9, 9), (7, 9, 9, 9), (4, 6, 6, 6), (4, 6, 6, 6), (4, 6, 6, 6)],
        [100.0, 0.0, 100.0, 100.0, 100.0, 100.0, 100.0, 100.0, 77.78, 77.78, 66.67, 66.67, 66.67],
    ),
    "alike, then not": (
        [(13, 15, 17), (5, 5, 5), (16, 17, 18, 16), (15, 17, 18, 16), (15, 17, 18, 16), (16, 17, 18, 16),
         (15, 17, 18, 16), (16, 17, 18, 16), (16, 17, 18, 16), (15, 17, 18, 16), (8, 10, 10, 9), (7, 10, 10, 9),
         (8, 10, 10, 9)],
        [81.25, 100.0, 91.43, 85.71, 85.71, 91.43, 85.71, 91.43, 91.43, 85.71, 80.0, 70.0, 80.0],
    ),
    "the script's choices": (
        [(5, 21, 18), (10, 10, 10), (10, 29, 24, 10), (10, 29, 24, 10), (10, 29, 24, 10), (10, 29, 24, 10),
         (10, 29, 24, 10), (10, 29, 24, 10), (2, 29, 24, 10), (2, 29, 24, 10), (1, 28, 23, 9), (1, 28, 23, 9),
         (1, 28, 23, 9)],
        [25.64, 100.0, 37.74, 37.74, 37.74, 37.74, 37.74, 37.74, 7.55, 7.55, 3.92, 3.92, 3.92],
    ),
}  # fmt: skip


def script_counts(counts):
    """``AlignedCounts`` as the script's -c has them: no aligned words for Tokens and Sentences."""
    return [tuple(c if m in WORD_METRICS else c[:3]) for m, c in counts.counts.items()]


@pytest.mark.parametrize("name", CASES)
def test_each_figure_is_the_scripts(name):
    counts = aligned(*CASES[name])
    assert list(counts.counts) == list(ALIGNED_METRICS)
    assert script_counts(counts) == SCRIPT[name][0]
    assert list(counts.as_dict().values()) == SCRIPT[name][1]


def test_pairs_tokenized_alike_before_the_first_difference_count_as_the_script_counts_them():
    # in "alike, then not", the system's UD v1 relation neg is in a sentence before the tokens part
    counts = aligned(*CASES["alike, then not"])
    assert counts.not_ud_as_dict() == {"gold": {}, "system": {"neg": 1}}
    assert (counts.difference.file, counts.difference.line) == ("s", 17)
    assert counts.difference.message.startswith("sentence 4 does not line up with g:18: 4 words here, 3 there")


def test_a_file_of_any_length_is_aligned_in_the_memory_of_a_few_sentences():
    gold, system = CASES["sentence boundaries moved"]
    alignment = Alignment("g", "s")
    files = iter(sentences(gold * 300, "g")), iter(sentences(system * 300, "s"))
    held = 0
    while (side := alignment.wanted()) is not None:
        alignment.add(side, next(files[side], None))
        held = max(held, sum(len(f.words) for f in alignment.files))
    assert 0 < held <= 20  # of 5,400 words
    # the script's counts on the files repeated are its counts on the pair, 300 times
    assert script_counts(alignment.result()) == [
        tuple(300 * n for n in c) for c in SCRIPT["sentence boundaries moved"][0]
    ]


def write_case(tmp_path, name):
    gold, system = tmp_path / "gold.conllu", tmp_path / "system.conllu"
    gold.write_text(CASES[name][0], encoding="utf-8")
    system.write_text(CASES[name][1], encoding="utf-8")
    return gold, system


def test_eval_prints_the_aligned_figures_as_a_table_and_as_json(tmp_path):
    gold, system = write_case(tmp_path, "split tokens")
    result = run_in_process("eval", gold, system, "--conll18", "--json")
    assert result.returncode == 0, result.stderr
    got = json.loads(result.stdout)
    assert got["tokenization"] == "differs" and "LAS" not in got
    assert list(got["conll18"].values()) == SCRIPT["split tokens"][1]
    counts = [tuple(c.values()) for c in got["conll18_counts"].values()]
    assert counts == SCRIPT["split tokens"][0]
    text = run_in_process("eval", gold, system, "--conll18").stdout.decode()
    assert f"tokenization differs, first at {system}:1\n" in text
    assert re.search(r"\nTokens +50\.00 +3 +5 +7\n", text)
    assert re.search(r"\nMLAS +25\.00 +1 +3 +5 +2\n", text)


def test_several_systems_are_aligned_side_by_side(tmp_path):
    gold, system = write_case(tmp_path, "alike, then not")
    got = json.loads(run_in_process("eval", gold, system, gold, system, "--conll18", "--json").stdout)
    first, itself, again = got["systems"]
    assert got["tokenization"] == "differs" and first == again
    assert list(first["conll18"].values()) == SCRIPT["alike, then not"][1]
    assert set(itself["conll18"].values()) == {100.0}
    text = run_in_process("eval", gold, system, gold, "--conll18").stdout.decode()
    assert re.search(r"\nSentences +100\.00 +100\.00\n", text)
    assert "  [1]:    1 of 17 words have a relation that is not UD's (neg 1)" in text


def test_the_html_report_says_the_trees_need_files_tokenized_alike(tmp_path):
    gold, system = write_case(tmp_path, "merged tokens")
    report = tmp_path / "report.html"
    result = run_in_process("eval", gold, system, "--conll18", "--html", report, "--show", "3")
    assert result.returncode == 0, result.stderr
    page = report.read_text(encoding="utf-8")
    xml.dom.minidom.parseString(page)  # the report is written as XML
    assert "The trees are drawn only for files tokenized alike." in page and "<svg" in page
    assert "<td>66.67</td>" in page and 'class="drawing"' not in page


def test_files_tokenized_alike_are_scored_as_before(tmp_path):
    # the same words, a multiword token written in one file only: word i is word i, as before
    gold, system = write_case(tmp_path, "alike, then not")
    words_alike = (
        CASES["alike, then not"][0]
        .replace("tomorrow", "tomor")
        .replace(word(3, ".", 1, "punct", "PUNCT"), word(3, "row", 2, "goeswith") + word(4, ".", 1, "punct", "PUNCT"))
    )
    gold.write_text(words_alike, encoding="utf-8")
    got = json.loads(run_in_process("eval", gold, system, "--conll18", "--json").stdout)
    assert "tokenization" not in got and list(got["conll18"]) == ["UAS", "LAS", "CLAS", "MLAS", "BLEX"]
    assert (got["LAS"], got["tokens"]) == (88.89, 18)


def test_texts_that_differ_are_one_line_naming_both_files(tmp_path):
    gold, system = write_case(tmp_path, "merged tokens")
    system.write_text(CASES["merged tokens"][1].replace("big", "bog"), encoding="utf-8")
    err = assert_one_line_error(run_in_process("eval", gold, system, "--conll18"), f"{system}:3: ")
    assert "gold.conllu:4 (spaces aside): 'og.' here, 'ig.' there; the CoNLL 2018 evaluation aligns" in err
    system.write_text(CASES["merged tokens"][1] + word(1, "More", 0, "root") + "\n", encoding="utf-8")
    err = assert_one_line_error(run_in_process("eval", gold, system, "--conll18"), f"{system}:6: ")
    assert f"the text goes on with 'More' where {gold} ends" in err
    gold.write_text(CASES["merged tokens"][0] + word(1, "More", 0, "root") + "\n", encoding="utf-8")
    system.write_text(CASES["merged tokens"][1], encoding="utf-8")
    err = assert_one_line_error(run_in_process("eval", gold, system, "--conll18"), f"{gold}:7: ")
    assert f"the text goes on with 'More' where {system} ends" in err


def test_what_needs_the_words_to_line_up_is_an_error_at_their_first_difference(tmp_path):
    gold, system = write_case(tmp_path, "alike, then not")
    for flag in (["--by", "deprel"], ["--per-label"], ["--significance"]):
        args = ["eval", gold, system, *([system] if flag == ["--significance"] else []), "--conll18", *flag]
        err = assert_one_line_error(run_in_process(*args), f"{system}:17: sentence 4 does not line up")
        assert f"; {flag[0]} needs the words to line up" in err
    bye = word(1, "Bye", 0, "root", "INTJ") + word(2, ".", 1, "punct")
    unparsed = word(1, "Bye", "_", "root", "INTJ") + word(2, ".", "_", "punct")
    system.write_text(CASES["alike, then not"][1].replace(bye, unparsed), encoding="utf-8")
    err = assert_one_line_error(run_in_process("eval", gold, system, "--conll18"), f"{system}:22: ")
    assert "sentence is not parsed (HEAD is _)" in err


# --- a slice of a real treebank, retokenized ---------------------------------------------------


def conllu_sentences(text):
    """Each sentence of a CoNLL-U text: its word lines' fields, and its multiword tokens as
    {first word: [last word, form]} (words counted from 0); comments and empty nodes left out."""
    out = []
    for block in text.strip("\n").split("\n\n"):
        rows, ranges = [], {}
        for line in block.split("\n"):
            fields = line.split("\t")
            if "-" in fields[0] and not line.startswith("#"):
                first, last = map(int, fields[0].split("-"))
                ranges[first - 1] = [last - 1, fields[1]]
            elif fields[0].isdigit():
                rows.append(fields)
        out.append((rows, ranges))
    return out


def renumber(rows, heads):
    for k, (row, head) in enumerate(zip(rows, heads), 1):
        row[0], row[6] = str(k), str(head)


def merge_words(rows, i):
    """Words i and i + 1 (from 0) become one; the one left takes the other's head if that one was
    its ancestor."""
    heads = [int(r[6]) for r in rows]
    gone, x = i + 2, heads[i]
    while x and x != gone:
        x = heads[x - 1]
    if x == gone:
        heads[i] = heads[i + 1]
    rows[i][1] += rows[i + 1][1]
    del rows[i + 1], heads[i + 1]
    renumber(rows, [i + 1 if h == gone else h - (h > gone) for h in heads])


def split_word(rows, i):
    """Word i (from 0) becomes two halves, the second attached to the first (goeswith)."""
    form = rows[i][1]
    rows[i][1] = form[: len(form) // 2]
    heads = [int(r[6]) for r in rows]
    heads = [h + (h > i + 1) for h in heads[: i + 1]] + [i + 1] + [h + (h > i + 1) for h in heads[i + 1 :]]
    rows.insert(i + 1, ["0", form[len(form) // 2 :], "_", "X", "_", "_", "0", "goeswith", "_", "_"])
    renumber(rows, heads)


def split_sentence(rows, at):
    """Two sentences, words before ``at`` and from it; in each, the first word whose head is
    outside becomes the root and takes the others whose heads are outside."""
    parts = []
    for low, high in ((0, at), (at, len(rows))):
        part = [list(r) for r in rows[low:high]]
        heads = [int(r[6]) for r in part]
        inside = [low < h <= high for h in heads]
        root = inside.index(False)
        part[root][7] = "root"
        heads = [h - low if ok else 0 if k == root else root + 1 for k, (h, ok) in enumerate(zip(heads, inside))]
        renumber(part, heads)
        parts.append((part, {}))
    return parts


def shift(ranges, after, by):
    """Move the multiword tokens after word ``after`` by ``by`` words."""
    moved = {first: ranges.pop(first) for first in [f for f in ranges if f > after]}
    ranges.update({first + by: [last + by, form] for first, (last, form) in moved.items()})


def retokenized(text):
    """A system file made from a gold one: in every fourth sentence from the second, its second
    and third words merged (no multiword token among them); from the third, its longest word of
    four characters or more (in none) split in two; sentences 11 and 12 joined, sentence 21
    split in the middle (boundaries moved); the first multiword-token line dropped; every
    seventh word's relation made dep (the roots' aside), every fifth UPOS X, every eleventh
    lemma and thirteenth FEATS _."""
    sentences = conllu_sentences(text)
    for k, (rows, ranges) in enumerate(sentences):
        taken = {d for first, (last, _) in ranges.items() for d in range(first, last + 1)}
        if k % 4 == 1 and len(rows) > 3 and not taken & {1, 2}:
            merge_words(rows, 1)
            shift(ranges, 1, -1)
        if k % 4 == 2:
            free = [d for d in range(len(rows)) if d not in taken and len(rows[d][1]) >= 4]
            if free:
                i = max(free, key=lambda d: len(rows[d][1]))
                split_word(rows, i)
                shift(ranges, i, 1)
    first_range = next(k for k, (_, ranges) in enumerate(sentences) if ranges)
    del sentences[first_range][1][min(sentences[first_range][1])]
    (a, _), (b, _) = sentences[10], sentences[11]
    root = next(int(r[0]) for r in a if r[6] == "0")
    next(r for r in b if r[6] == "0")[7] = "parataxis"
    renumber(a + b, [int(r[6]) for r in a] + [int(r[6]) + len(a) if r[6] != "0" else root for r in b])
    sentences[10:12] = [(a + b, {})]
    sentences[20:21] = split_sentence(sentences[20][0], len(sentences[20][0]) // 2)
    lines, counted = [], 0
    for rows, ranges in sentences:
        for d, row in enumerate(rows):
            if d in ranges:
                lines.append(mwt(d + 1, ranges[d][0] + 1, ranges[d][1]).rstrip("\n"))
            counted += 1
            if counted % 7 == 0 and row[6] != "0":
                row[7] = "dep"
            for every, column, value in ((5, 3, "X"), (11, 2, "_"), (13, 5, "_")):
                row[column] = value if counted % every == 0 else row[column]
            lines.append("\t".join(row))
        lines.append("")
    return "\n".join(lines) + "\n"


@requires_shared
def test_a_retokenized_slice_of_en_lines_scores_as_the_script(tmp_path):
    text = (DATA / "ud" / "UD_English-LinES" / "en_lines-ud-dev.conllu").read_text(encoding="utf-8")
    gold, system = tmp_path / "gold.conllu", tmp_path / "system.conllu"
    gold.write_text("\n\n".join(text.split("\n\n")[50:80]) + "\n\n", encoding="utf-8")  # 3 multiword tokens
    system.write_text(retokenized(gold.read_text(encoding="utf-8")), encoding="utf-8")
    result = run_in_process("eval", gold, system, "--conll18", "--json")
    assert result.returncode == 0, result.stderr
    got = json.loads(result.stdout)
    # conll18_ud_eval.py -c and -v on these two files
    assert [tuple(c.values()) for c in got["conll18_counts"].values()] == [
        (623, 647, 647), (27, 30, 30), (627, 650, 649, 627), (505, 650, 649, 627), (627, 650, 649, 627),
        (592, 650, 649, 627), (475, 650, 649, 627), (569, 650, 649, 627), (599, 650, 649, 627),
        (520, 650, 649, 627), (294, 367, 412, 351), (169, 367, 412, 351), (263, 367, 412, 351),
    ]  # fmt: skip
    assert list(got["conll18"].values()) == [
        96.29, 90.0, 96.54, 77.75, 96.54, 91.15, 73.13, 87.61, 92.22, 80.06, 75.48, 43.39, 67.52
    ]  # fmt: skip
