"""Parsing direction (``-pd right-to-left``, maltpy.data.direction): a model learned and used with each
sentence reversed, its trees mapped back.

The reference here is the definition itself, written from the text alone: a right-to-left
parser is a left-to-right one given the sentences word n first (``reversed_text``), its trees
read back the same way. Real treebanks throughout: swemalt-mini (MaltParser's example, CoNLL-X,
21 of its 428 training trees non-projective) and UD English (CoNLL-U, comments and multiword
tokens).
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from conftest import DATA, EXAMPLE, SWEMALT, SWEMALT_TRAIN, requires_shared, run_maltpy
from test_batch import parse_both_ways
from test_damaged_models import with_manifest
from test_jobs import run_in_small_batches

from maltpy.api import learn
from maltpy.config import FLAGS, Config, load_config
from maltpy.data.conll import ConllReader
from maltpy.data.direction import Reading, mirrored, reversed_sentence
from maltpy.data.tree import is_projective
from maltpy.errors import MaltpyError
from maltpy.evaluation.scores import attachment_scores
from maltpy.models.parser import Model
from maltpy.transition import SYSTEMS
from maltpy.transition.oracle import oracle_statistics
from maltpy.transition.planar import is_planar, is_two_planar

SWEMALT_TEST = SWEMALT / "gold" / "sv-stb-dep-mini-test.conll"
PARTUT_TEST = DATA / "ud" / "UD_English-ParTUT" / "en_partut-ud-test.conllu"
R2L = "right-to-left"
#: the trees each system's oracle rebuilds (TransitionSystem.projective, .planar)
BUILDS = {name: (is_projective if system.projective else {"planar": is_planar, "2planar": is_two_planar}.get(name))
          for name, system in SYSTEMS.items()}  # fmt: skip


def reversed_text(text: str) -> str:
    """CoNLL-X text with each sentence's words in reverse order: word i of n numbered n + 1 - i,
    its HEAD too (0 stays 0). Its own inverse, so it also reads a parse of the reversed text back."""
    sentences = []
    for block in text.strip("\n").split("\n\n"):
        rows = [line.split("\t") for line in block.split("\n")]
        n = len(rows)
        for row in rows:
            row[0] = str(n + 1 - int(row[0]))
            row[6] = row[6] if row[6] in ("0", "_") else str(n + 1 - int(row[6]))
        sentences.append("".join("\t".join(row) + "\n" for row in reversed(rows)))
    return "\n".join(sentences) + "\n"


def root_word_text(text: str) -> str:
    """CoNLL-X text with a word after each sentence's last that stands for the root, as the module
    defines it: #ROOT# from FORM to FEATS, headed by the root with the label ROOT (MaltParser's
    -grl), and heading the words the root heads. ``root_word_back`` reads a parse of it back."""
    sentences = []
    for block in text.strip("\n").split("\n\n"):
        rows = [line.split("\t") for line in block.split("\n")]
        n = len(rows)
        for row in rows:
            row[6] = str(n + 1) if row[6] == "0" else row[6]
        rows.append([str(n + 1)] + ["#ROOT#"] * 5 + ["0", "ROOT", "_", "_"])
        sentences.append("".join("\t".join(row) + "\n" for row in rows))
    return "\n".join(sentences) + "\n"


def root_word_back(parsed: str) -> str:
    sentences = []
    for block in parsed.strip("\n").split("\n\n"):
        rows = [line.split("\t") for line in block.split("\n")][:-1]
        for row in rows:
            row[6] = "0" if row[6] == str(len(rows) + 1) else row[6]
        sentences.append("".join("\t".join(row) + "\n" for row in rows))
    return "\n".join(sentences) + "\n"


def config(*flags: str) -> Config:
    """The configuration of these command-line flags (-a covnonproj -pd right-to-left ...)."""
    return load_config(None, {FLAGS[f.removeprefix("-")]: v for f, v in zip(flags[::2], flags[1::2])})


def first_sentences(path: Path, count: int) -> str:
    return "\n\n".join(path.read_text(encoding="utf-8").split("\n\n")[:count]) + "\n\n"


def reader(text: str, name: str = "text") -> ConllReader:
    return ConllReader(io.BytesIO(text.encode("utf-8")), name, "conllx")


def heads_of(text: str) -> list[list[int]]:
    return [[-1] + [int(line.split("\t")[6]) for line in block.split("\n")] for block in text.strip().split("\n\n")]


def is_tree(heads: list[int]) -> bool:
    """Every word reaches the root 0 by its heads, each a word number or 0."""
    n = len(heads) - 1
    for d in range(1, n + 1):
        seen, h = 0, d
        while h != 0 and seen <= n:
            if not 0 <= heads[h] <= n:
                return False
            h, seen = heads[h], seen + 1
        if h != 0:
            return False
    return True


def las(gold: Path, parsed: str) -> float:
    """LAS of the ``parsed`` text (CoNLL-X or CoNLL-U, as the file ``gold``) against ``gold``."""
    with open(gold, "rb") as g:
        parsed_reader = ConllReader(io.BytesIO(parsed.encode("utf-8")), "parsed")
        return attachment_scores(ConllReader(g, "gold"), parsed_reader, "gold", "parsed").las


def test_the_mirror_of_a_tree_and_the_reversed_view_of_a_sentence():
    # Nivre (2009), Fig. 1: "A hearing is scheduled on the issue today ."
    heads = [-1, 2, 3, 0, 3, 2, 7, 5, 4, 3]
    labels = ["", "DET", "SBJ", "ROOT", "VG", "NMOD", "DET", "PC", "ADV", "P"]
    back = mirrored(heads, labels)
    assert back == ([-1, 7, 6, 5, 3, 8, 7, 0, 7, 8], ["", "P", "ADV", "PC", "DET", "NMOD", "VG", "ROOT", "SBJ", "DET"])
    assert mirrored(*back) == (heads, labels)
    # read right to left with the root last: the mirror, and word 10 standing for the root
    reading = Reading(backward=True, root_last=True)
    read = reading.tree(heads, labels, "ROOT")
    assert read == ([-1, 7, 6, 5, 3, 8, 7, 10, 7, 8, 0], [*back[1], "ROOT"])
    assert reading.back(*read) == (heads, labels)
    assert Reading(root_last=True).tree(heads, labels, "R") == ([*heads[:3], 10, *heads[4:], 0], [*labels, "R"])
    assert Reading().tree(heads, labels, "R") == Reading().back(heads, labels) == (heads, labels)
    text = "# a comment\n1-2\tA hearing\t_\t_\t_\t_\t_\t_\t_\t_\n" + "".join(
        f"{i}\tw{i}\t_\tX\tX\t_\t{h}\t{lab}\t_\t_\n" for i, (h, lab) in enumerate(zip(heads[1:], labels[1:]), 1)
    )
    sentence = next(iter(ConllReader(io.BytesIO((text + "\n").encode()), "fig1", "conllu")))
    view = reversed_sentence(sentence)
    assert [w[0] for w in view.words] == [str(i) for i in range(1, 10)]
    assert [w[1] for w in view.words] == [f"w{i}" for i in range(9, 0, -1)]
    assert (view.heads, view.labels) == back
    assert view.extra == [] and view.line == sentence.line == 1 and view.format == "conllu"
    assert sentence.heads == heads and sentence.words[0][1] == "w1"  # the sentence itself untouched
    read = reading.sentence(sentence, "ROOT")
    assert [w[:6] + w[7:] for w in read.words[:9]] == [w[:6] + w[7:] for w in view.words]
    assert (read.heads, read.labels) == reading.tree(heads, labels, "ROOT")
    assert read.words[9] == ["10", *["#ROOT#"] * 5, "0", "ROOT", "_", "_"]


@requires_shared
@pytest.mark.parametrize("root", ["start", "end"])
@pytest.mark.parametrize("algorithm", SYSTEMS)
def test_the_oracle_right_to_left_rebuilds_each_tree_its_system_builds(algorithm, root):
    text = SWEMALT_TRAIN.read_text(encoding="utf-8")
    gold = heads_of(text)
    rebuilt: list[list[int]] = []
    flags = ("-a", algorithm, "-pd", R2L, "-rp", root)
    stats = oracle_statistics(config(*flags), reader(text), "t", lambda s: rebuilt.append(s.heads))
    builds = BUILDS[algorithm]
    for heads, again in zip(gold, rebuilt, strict=True):
        assert is_tree(again)
        if builds is None or builds(heads):
            assert again == heads
    built = sum(builds is None or builds(h) for h in gold)
    # read last, the root is a word's place in the planar system's stack: a tree whose root arc
    # crosses another arc may be built too (1 of swemalt's)
    assert stats["rebuilt"] == built or root == "start" and algorithm == "planar" and stats["rebuilt"] > built
    # the oracle really ran right to left: its transitions are the left-to-right oracle's over the
    # reversed sentences, with the root at their end if it is at the sentence's start
    flipped = {"start": "end", "end": "start"}[root]
    reverse = oracle_statistics(config("-a", algorithm, "-rp", flipped), reader(reversed_text(text)), "reversed")
    assert stats["root_position"] == root and reverse["root_position"] == flipped
    assert (stats["transitions"], stats["swaps"]) == (reverse["transitions"], reverse["swaps"])


@requires_shared
def test_the_oracle_with_pseudo_projective_parsing_right_to_left():
    # projectivized in the sentence's order either way (the same lifts), and a projective tree is
    # rebuilt in either direction: the same trees come back deprojectivized
    text = SWEMALT_TRAIN.read_text(encoding="utf-8")
    both = [oracle_statistics(config("-pp", "head", "-pd", d), reader(text), "t") for d in ("left-to-right", R2L)]
    for key in ("lifted_sentences", "lifted_arcs", "nonprojective", "sentences", "rebuilt"):
        assert both[0][key] == both[1][key]
    assert both[1]["lifted_sentences"] > 0 and both[0]["transitions"] != both[1]["transitions"]


LEARNED = [(a, "liblinear") for a in SYSTEMS] + [("nivreeager", "libsvm"), ("stacklazy", "knn")]


@requires_shared
@pytest.mark.parametrize("algorithm, learner", LEARNED, ids=[f"{a}-{b}" for a, b in LEARNED])
def test_a_right_to_left_model_is_a_left_to_right_one_of_the_reversed_sentences(algorithm, learner):
    # A right-to-left model learned from a treebank parses as a left-to-right model learned from
    # its reversed sentences parses them, its trees read back: every algorithm (the arrays form
    # for Nivre's systems, the per-sentence path for the others) and every learner. The root at
    # the sentence's start is at the reversed sentences' end.
    size = 50 if learner == "libsvm" else 80  # any treebank has the property; LIBSVM's training grows fast
    train, test = first_sentences(SWEMALT_TRAIN, size), first_sentences(SWEMALT_TEST, 40)
    backward = learn(reader(train), algorithm=algorithm, learner=learner, parsing_direction=R2L)
    forward = learn(reader(reversed_text(train)), algorithm=algorithm, learner=learner, root_position="end")
    assert backward.classes.items == forward.classes.items
    for key in ("sentences", "tokens", "nonprojective_sentences", "instances"):
        assert backward.statistics[key] == forward.statistics[key]
    parsed = backward.parse_conll(test)
    assert parsed == reversed_text(forward.parse_conll(reversed_text(test)))
    assert all(is_tree(h) for h in heads_of(parsed))


ROOT_AT_END = [("nivreeager", "left-to-right"), ("covnonproj", "left-to-right"), ("nivrestandard", R2L)]


@requires_shared
@pytest.mark.parametrize("algorithm, direction", ROOT_AT_END)
def test_the_root_at_the_end(algorithm, direction):
    # Left to right, a root at the end is read last, as a word that stands for it after the last
    # word (root_word_text; the arrays form and the per-sentence path); right to left, it is read
    # first, as node 0 of the reversed sentence (as right-to-left models read before the option).
    train, test = first_sentences(SWEMALT_TRAIN, 80), first_sentences(SWEMALT_TEST, 40)
    model = learn(reader(train), algorithm=algorithm, parsing_direction=direction, root_position="end")
    parsed = model.parse_conll(test)
    if direction == R2L:
        forward = learn(reader(reversed_text(train)), algorithm=algorithm)
        assert parsed == reversed_text(forward.parse_conll(reversed_text(test)))
    else:
        rooted = learn(reader(root_word_text(train)), algorithm=algorithm)
        assert parsed == root_word_back(rooted.parse_conll(root_word_text(test)))
        assert parsed != learn(reader(train), algorithm=algorithm).parse_conll(test)  # the place is used
    assert all(is_tree(h) for h in heads_of(parsed))


@pytest.fixture(scope="module")
def swemalt_models(tmp_path_factory):
    """nivreeager with LIBLINEAR (MaltParser's defaults) learned on swemalt-mini left-to-right and
    right-to-left, saved: {direction: path}."""
    if not DATA.is_dir():
        pytest.skip(f"shared data not found at {DATA}")
    folder = tmp_path_factory.mktemp("direction")
    paths = {}
    for direction in ("left-to-right", R2L):
        paths[direction] = folder / f"{direction}.mpm"
        learn(SWEMALT_TRAIN, parsing_direction=direction).save(paths[direction])
    return paths


def unmapped(parsed: str) -> str:
    """A right-to-left parse as it would be written if its trees were not mapped back: each
    sentence's words given the heads and labels of the reversed sentence's words in their places."""
    sentences = []
    for block in parsed.strip("\n").split("\n\n"):
        rows = [line.split("\t") for line in block.split("\n")]
        heads, labels = mirrored([-1] + [int(r[6]) for r in rows], [""] + [r[7] for r in rows])
        sentences.append("".join("\t".join(r[:6] + [str(h), lab] + r[8:]) + "\n"
                                 for r, h, lab in zip(rows, heads[1:], labels[1:])))  # fmt: skip
    return "\n".join(sentences) + "\n"


@requires_shared
def test_right_to_left_parses_about_as_well_and_differently(swemalt_models):
    gold = SWEMALT_TEST.read_text(encoding="utf-8")
    forward, backward = (Model.load(swemalt_models[d]).parse_conll(gold) for d in ("left-to-right", R2L))
    assert backward != forward  # the direction is used
    assert all(is_tree(h) for h in heads_of(backward))
    # Reading the sentence from its other end, a parser sees other contexts at each decision and
    # errs elsewhere, but it learns from the same trees: the two directions of MaltBlender's
    # members are a few points apart (Hall et al. 2007). A parse whose trees were not mapped back
    # scores tens of points lower, far under the floor of 5 points below left-to-right.
    floor = las(SWEMALT_TEST, forward) - 5
    assert las(SWEMALT_TEST, backward) > floor
    assert las(SWEMALT_TEST, unmapped(backward)) < floor - 20


@requires_shared
def test_the_arrays_form_and_the_per_sentence_path_parse_right_to_left_alike(swemalt_models):
    batch, one_by_one = parse_both_ways(swemalt_models[R2L], SWEMALT_TEST.read_bytes())
    assert batch == one_by_one
    assert batch == Model.load(swemalt_models[R2L]).parse_conll(SWEMALT_TEST.read_text(encoding="utf-8"))


@requires_shared
def test_the_direction_through_the_archive(swemalt_models, tmp_path):
    test = SWEMALT_TEST.read_text(encoding="utf-8")
    backward = Model.load(swemalt_models[R2L])
    assert backward.config.singlemalt.parsing_direction == R2L and backward.describe()["parsing_direction"] == R2L
    again = Model.load("again", backward.to_bytes())
    assert again.parse_conll(test) == backward.parse_conll(test)
    info = run_maltpy("info", "-m", swemalt_models[R2L]).stdout.decode()
    assert "direction          right-to-left, the root at the start" in info
    assert "parsing_direction: right-to-left" in info and "root_position: start" in info
    # an archive written before the option existed has no such key: left-to-right
    old = without_key(swemalt_models["left-to-right"], tmp_path / "old.mpm", "parsing_direction")
    before = Model.load(old)
    assert before.config.singlemalt.parsing_direction == "left-to-right"
    assert before.parse_conll(test) == Model.load(swemalt_models["left-to-right"]).parse_conll(test)
    # one made right to left before singlemalt.root_position existed read the root first, as a
    # right-to-left model with the root at the end does now
    end = tmp_path / "end.mpm"
    learn(SWEMALT_TRAIN, parsing_direction=R2L, root_position="end").save(end)
    before = Model.load(without_key(end, tmp_path / "old-r2l.mpm", "root_position"))
    assert before.config.singlemalt.root_position == "end"
    assert before.parse_conll(test) == Model.load(end).parse_conll(test) != backward.parse_conll(test)
    assert Model.load(without_key(swemalt_models["left-to-right"], tmp_path / "l2r.mpm",
                                  "root_position")).config.singlemalt.root_position == "start"  # fmt: skip


def without_key(model: Path, out: Path, key: str) -> Path:
    """A copy of the archive ``model`` whose configuration lacks singlemalt.``key``, as archives
    written before the option existed."""
    with_manifest(model, out, lambda manifest: manifest["config"]["singlemalt"].pop(key))
    return out


@requires_shared
def test_jobs_and_standard_input_write_the_bytes_of_one_process(swemalt_models, tmp_path):
    model = swemalt_models[R2L]
    one = run_maltpy("parse", "-m", model, "-i", SWEMALT_TEST)
    assert one.returncode == 0 and one.stderr == b"", one.stderr
    assert one.stdout.decode() == Model.load(model).parse_conll(SWEMALT_TEST.read_text(encoding="utf-8"))
    result = run_in_small_batches(15_000, "parse", "-m", model, "-i", SWEMALT_TEST, "-o", tmp_path / "out",
                                  "--jobs", 2)  # fmt: skip
    assert result.returncode == 0 and result.stderr == b"", result.stderr
    assert (tmp_path / "out").read_bytes() == one.stdout
    piped = run_maltpy("parse", "-m", model, input=SWEMALT_TEST.read_bytes())
    assert piped.returncode == 0 and piped.stdout == one.stdout


@requires_shared
def test_conllu_lines_come_back_in_place_and_one_root(tmp_path):
    # MaltParser's defaults: the ud profile's model would read XPOS, which en_partut's tagset differs in
    model = learn(EXAMPLE / "en-train.conllu", parsing_direction=R2L, profile="maltparser")
    for test in (EXAMPLE / "en-test.conllu", PARTUT_TEST):
        out = tmp_path / test.name
        model.parse_file(test, out)
        given = test.read_text(encoding="utf-8").split("\n")
        parsed = out.read_text(encoding="utf-8").split("\n")
        assert len(parsed) == len(given)
        roots = 0
        for a, b in zip(given, parsed):
            fields = a.split("\t")
            if len(fields) == 10 and fields[0].isdigit():  # a word: all but HEAD and DEPREL as given
                assert b.split("\t")[:6] + b.split("\t")[8:] == fields[:6] + fields[8:]
                roots += b.split("\t")[6] == "0"
            else:  # comments, multiword tokens, empty nodes, the empty lines: untouched
                assert b == a
        with open(test, "rb") as f:
            assert roots == len(list(ConllReader(f, test.name)))  # one root a sentence (graph.single_root auto)
    # the API's token lists and conllu TokenLists take the same way through Model.parse
    import conllu

    text = (EXAMPLE / "en-test.conllu").read_text(encoding="utf-8")
    with open(EXAMPLE / "en-test.conllu", "rb") as f:
        sentences = list(ConllReader(f, "en-test"))
    tokens = [[{"form": w[1], "lemma": w[2], "upos": w[3], "xpos": w[4], "feats": w[5]} for w in s.words]
              for s in sentences]  # fmt: skip
    heads = [s.heads[1:] for s in model.parse(sentences)]
    assert [[t["head"] for t in parsed] for parsed in model.parse(tokens)] == heads
    token_lists = model.parse(conllu.parse(text))
    assert [[t["head"] for t in parsed if isinstance(t["id"], int)] for parsed in token_lists] == heads


def test_errors_name_the_lines_of_the_sentence_as_given():
    # a gold label holding a pseudo-projective mark, after a comment and a multiword token
    text = ("# sent_id = 1\n1\tA\t_\tX\tX\t_\t2\tdet\t_\t_\n2\tdog\t_\tX\tX\t_\t0\troot\t_\t_\n\n"
            "# sent_id = 2\n1-2\tIt's\t_\t_\t_\t_\t_\t_\t_\t_\n1\tIt\t_\tX\tX\t_\t3\tnsubj\t_\t_\n"
            "2\t's\t_\tX\tX\t_\t3\tcop|x\t_\t_\n3\tred\t_\tX\tX\t_\t0\troot\t_\t_\n\n")  # fmt: skip
    lines = []
    for direction in ("left-to-right", R2L):
        with pytest.raises(MaltpyError) as e:
            learn(ConllReader(io.BytesIO(text.encode()), "t.conllu"), parsing_direction=direction,
                  marking_strategy="head")  # fmt: skip
        lines.append((e.value.file, e.value.line))
    assert lines == [("t.conllu", 8), ("t.conllu", 8)]
