"""maltpy.nltk.MaltParser against NLTK's own MaltParser demo and against ``maltpy parse``: the
calls of nltk.parse.malt.MaltParser, no Java, no temporary files."""

from __future__ import annotations

import os

import pytest
from conftest import EN_LINES_UD, run_maltpy
from nltk.parse.dependencygraph import DependencyGraph
from nltk.parse.malt import taggedsents_to_conll
from nltk.tag import DefaultTagger, UnigramTagger

import maltpy
from maltpy.nltk import MaltParser

# NLTK's demo (nltk/parse/malt.py): two training graphs, two sentences, and the trees it prints
DG1 = ("1 John _ NNP _ _ 2 SUBJ _ _\n2 sees _ VB _ _ 0 ROOT _ _\n3 a _ DT _ _ 4 SPEC _ _\n"
       "4 dog _ NN _ _ 2 OBJ _ _\n5 . _ . _ _ 2 PUNCT _ _\n")  # fmt: skip
DG2 = "1 John _ NNP _ _ 2 SUBJ _ _\n2 walks _ VB _ _ 0 ROOT _ _\n3 . _ . _ _ 2 PUNCT _ _\n"


def test_nltks_demo_trains_and_parses_as_nltk_shows(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    mp = MaltParser()
    mp.train([DependencyGraph(DG1), DependencyGraph(DG2)], verbose=False)
    sent1, sent2 = ["John", "sees", "Mary", "."], ["John", "walks", "a", "dog", "."]
    assert str(mp.parse_one(sent1).tree()) == "(sees John Mary .)"
    assert str(mp.parse_one(sent2).tree()) == "(walks John (dog a) .)"
    parsed_sents = mp.parse_sents([sent1, sent2])
    assert str(next(next(parsed_sents)).tree()) == "(sees John Mary .)"
    assert str(next(next(parsed_sents)).tree()) == "(walks John (dog a) .)"
    assert os.listdir(tmp_path) == []  # no temporary files, no model written where none was named


def en_lines_tagger() -> UnigramTagger:
    """A tagger of en_lines' own UPOS tags, trained on its training file (NLTK's pos_tag needs
    data downloaded; the model needs the tags it was trained on)."""
    train = maltpy.read_conll(EN_LINES_UD / "en_lines-ud-train.conllu")
    return UnigramTagger([[(w[1], w[3]) for w in s.words] for s in train], backoff=DefaultTagger("NOUN"))


@pytest.mark.parametrize("as_model", [False, True])
def test_parses_are_maltpy_parses_of_the_same_input(en_lines_model, tmp_path, as_model):
    tagger = en_lines_tagger()
    model = maltpy.load_model(en_lines_model) if as_model else str(en_lines_model)
    mp = MaltParser(model_filename=model, tagger=tagger.tag)
    sent1 = "I shot an elephant in my pajamas .".split()
    sent2 = "Time flies like banana .".split()
    graphs = [mp.parse_one(sent1), *(next(g) for g in mp.parse_sents([sent1, sent2]))]
    tagged = [tagger.tag(s) for s in (sent1, sent1, sent2)]
    graphs += [next(g) for g in mp.parse_tagged_sents(tagged)]
    # maltpy parse, on the CoNLL text NLTK's wrapper writes for MaltParser (less the second empty
    # line it puts after each sentence, which maltpy's reader refuses)
    text = "".join(taggedsents_to_conll(tagged)).replace("\n\n\n", "\n\n")
    (tmp_path / "in.conll").write_text(text, encoding="utf-8")
    # the model learned from CoNLL-U, so the wrapper's sentences are CoNLL-U's: one root, as UD wants
    result = run_maltpy("parse", "-m", en_lines_model, "-i", tmp_path / "in.conll", "-o", tmp_path / "out.conll",
                        "-gsr", "true")  # fmt: skip
    assert result.returncode == 0, result.stderr.decode()
    expected = [[(int(w[6]), w[7]) for w in s.words] for s in maltpy.read_conll(tmp_path / "out.conll")]
    got = [[(g.nodes[i]["head"], g.nodes[i]["rel"]) for i in range(1, len(g.nodes))] for g in graphs]
    assert got == expected * 2
    # NLTK's wrapper reads the root relation as "null", which no model gives: its graphs have no root
    root = next(i for i, (head, _) in enumerate(got[0], 1) if head == 0)
    assert graphs[0].root["address"] == root and graphs[0].tree().label() == sent1[root - 1]


def test_train_from_file_saves_where_named(tmp_path):
    named = tmp_path / "ex.mpm"
    mp = MaltParser(model_filename=named, learner="libsvm")
    mp.train_from_file(os.path.join(os.path.dirname(maltpy.__file__), "example", "en-train.conllu"))
    assert maltpy.load_model(named).config.guide.learner == "libsvm"
    assert MaltParser(named).parse_one(["Dogs", "bark", "."]) is not None
    with pytest.raises(maltpy.MaltpyError, match="call train"):
        MaltParser(tmp_path / "none.mpm").parse_one(["a"])
