"""Blended parsing (the blend package): the combination of the members' trees, the weights, the
blend's archive, `maltpy blend` and `maltpy combine`, on real data."""

from __future__ import annotations

import json
import os
import re
import zipfile
from pathlib import Path

import numpy as np
import pytest
from conftest import (
    EXAMPLE,
    ROOT,
    SWEMALT,
    SWEMALT_HELD_OUT,
    SWEMALT_TRAIN,
    assert_one_line_error,
    conll_columns,
    first_sentences,
    requires_shared,
    run_in_process,
    run_maltpy,
)
from in_process import call_main
from test_damaged_models import with_manifest

from maltpy import blend
from maltpy.blend import Weights, combine, costs, features
from maltpy.blend.features import arc_features
from maltpy.blend.model import MAX_MEMBERS
from maltpy.blend.scorer import ArcScorer
from maltpy.data.conll import Sentence
from maltpy.data.tree import find_cycle
from maltpy.errors import MaltpyError
from maltpy.load import load

GOLD = SWEMALT / "gold"
HELD_OUT = SWEMALT_HELD_OUT  # the blend's (conftest.swemalt_blend)
TEST = GOLD / "sv-stb-dep-mini-test-01.conll"


def tree(heads: list[int], labels) -> tuple[list[int], list[str]]:
    return [-1] + heads, [""] + list(labels)


# --- combining trees -------------------------------------------------------------------------------


def test_the_members_tree_where_they_agree():
    t = tree([2, 0, 2], ["nsubj", "root", "obj"])
    heads, labels = combine([t, t, t], ["NOUN", "VERB", "NOUN"], Weights.equal(3), False, False)
    assert (heads, labels) == t


def test_the_heavier_members_arc_wins_and_labels_come_from_its_voters():
    # member 0 (weight 0.9) hangs word 3 on word 2; members 1 and 2 (0.4 each) on word 1
    a = tree([2, 0, 2], ["nsubj", "root", "obj"])
    b = tree([2, 0, 1], ["nsubj", "root", "nmod"])
    weights = Weights("model", (0.9, 0.4, 0.4), ({}, {}, {}))
    heads, labels = combine([a, b, b], ["NOUN", "VERB", "NOUN"], weights, False, False)
    assert heads == [-1, 2, 0, 2] and labels[3] == "obj"
    equal = combine([a, b, b], ["NOUN", "VERB", "NOUN"], Weights.equal(3), False, False)
    assert equal == b


def test_a_label_tie_goes_to_the_member_listed_first():
    a = tree([2, 0], ["nsubj", "root"])
    b = tree([2, 0], ["obj", "root"])
    assert combine([a, b], ["NOUN", "VERB"], Weights.equal(2), False, False)[1][1] == "nsubj"
    assert combine([b, a], ["NOUN", "VERB"], Weights.equal(2), False, False)[1][1] == "obj"


def test_one_root_when_the_members_give_several_and_its_label_from_their_roots():
    # both members leave words 1 and 3 on the root; one root must keep one, labelled as a root word
    t = tree([0, 1, 0], ["root", "obj", "root"])
    heads, labels = combine([t, t], ["VERB", "NOUN", "VERB"], Weights.equal(2), False, True)
    assert sum(h == 0 for h in heads[1:]) == 1
    on_root = heads.index(0)
    assert labels[on_root] == "root"
    several = combine([t, t], ["VERB", "NOUN", "VERB"], Weights.equal(2), False, False)
    assert several == t


def test_a_cycle_of_votes_becomes_a_tree_and_projective_when_asked():
    # each member's tree is a tree; each word's most voted head makes the cycle 1 -> 2 -> 3 -> 1
    a, b, c = tree([2, 3, 0], "xyz"), tree([0, 3, 1], "xyz"), tree([2, 0, 1], "xyz")
    assert find_cycle([-1, 2, 3, 1]) is not None
    for projective in (False, True):
        heads, _ = combine([a, b, c], ["X", "Y", "Z"], Weights.equal(3), projective, False)
        assert find_cycle(heads) is None and heads[0] == -1 and heads in ([-1, 2, 3, 0], [-1, 0, 3, 1], [-1, 2, 0, 1])


def test_weights_by_tag_are_held_out_accuracy_smoothed_toward_the_whole():
    gold = [Sentence([["1", "a", "_", "N", "N", "_", "2", "nsubj", "_", "_"],
                      ["2", "b", "_", "V", "V", "_", "0", "root", "_", "_"]])]  # fmt: skip
    right, wrong = tree([2, 0], ["nsubj", "root"]), tree([2, 0], ["obj", "root"])
    w = Weights.estimate("pos", gold, [[right], [wrong]])
    assert w.overall == (1.0, 0.5)
    assert w.by_tag[1]["N"] == pytest.approx((0 + 5 * 0.5) / (1 + 5)) and w.by_tag[1]["V"] == pytest.approx(3.5 / 6)
    assert w.votes(["N", "unseen"]).tolist() == [[1.0, 1.0], [pytest.approx(2.5 / 6), 0.5]]


def test_the_learned_scorer_prefers_the_member_that_was_right_on_held_out_text():
    # member 0 is always right on the held-out words, member 1 always wrong: the scorer learns to
    # trust member 0 where they disagree, whatever the tags
    words = [[str(i), "w", "_", tag, tag, "_", "0", "root", "_", "_"] for i, tag in enumerate("NVNV", 1)]
    gold_heads = [2, 0, 2, 2]
    for w, h in zip(words, gold_heads):
        w[6], w[7] = str(h), "root" if h == 0 else "dep"
    gold = [Sentence([list(w) for w in words]) for _ in range(30)]
    right = tree(gold_heads, ["root" if h == 0 else "dep" for h in gold_heads])
    wrong = tree([0, 1, 0, 3], ["root", "dep", "root", "dep"])
    weights = Weights.estimate("learned", gold, [[right] * 30, [wrong] * 30])
    assert combine([wrong, right], list("NVNV"), Weights.estimate("learned", gold, [[wrong] * 30, [right] * 30]),
                   False, False)[0] == right[0]  # fmt: skip
    assert combine([right, wrong], list("NVNV"), weights, False, False)[0] == right[0]
    restored = Weights.from_json(json.loads(json.dumps(weights.as_json())), 2)
    assert combine([right, wrong], list("NVNV"), restored, False, False) == combine(
        [right, wrong], list("NVNV"), weights, False, False
    )


def sentence(tags: str, heads: list[int], feats: list[str] | None = None) -> Sentence:
    feats = feats or ["_"] * len(tags)
    return Sentence([[str(i), "w", "_", t, t, f, str(h), "root" if h == 0 else "dep", "_", "_"]
                     for i, (t, f, h) in enumerate(zip(tags, feats, heads), 1)])  # fmt: skip


@pytest.mark.parametrize("signal", ["label", "context", "case"])
def test_the_learned_scorer_reads_the_members_labels_and_the_tags_and_features_around_an_arc(signal):
    # Member 0 always hangs word 3 on word 2, member 1 on word 1; each is right on half the
    # held-out sentences, so which member proposes an arc tells nothing. What tells is the label
    # member 0 gives its arc ("good" where it is right), or the tag of the word after word 3 (X
    # where member 0 is right), or word 3's case (Acc where member 0 is right): the scorer must
    # follow it.
    def members(right: bool) -> tuple[list, list[str], list[str]]:
        tags = "NVN" + ("X" if right or signal != "context" else "Y")
        label = "good" if right or signal != "label" else "bad"
        case = "Case=Acc" if right or signal != "case" else "Case=Gen"
        trees = [tree([2, 0, 2, 2], ["dep", "root", label, "dep"]), tree([2, 0, 1, 2], "dxdd")]
        return trees, list(tags), ["_", "_", case, "_"]

    gold, parses = [], [[], []]
    for k in range(40):
        trees, tags, feats = members(right=k % 2 == 0)
        gold.append(sentence("".join(tags), trees[0][0][1:] if k % 2 == 0 else trees[1][0][1:], feats))
        for m in (0, 1):
            parses[m].append(trees[m])
    weights = Weights.estimate("learned", gold, parses)
    for right in (True, False):
        trees, tags, feats = members(right)
        assert combine(trees, tags, weights, False, False, feats)[0][3] == (2 if right else 1)


def test_the_learned_label_scorer_reads_the_dependents_case():
    # Both members hang word 1 on word 2, member 0 as nsubj, member 1 as obj; each is right on
    # half the held-out sentences. Word 1's case tells which: nsubj where it is Nom, obj where Acc.
    # Voting gives member 0's label either way (a tie goes to the member listed first).
    trees = [tree([2, 0], ["nsubj", "root"]), tree([2, 0], ["obj", "root"])]
    gold, parses = [], [[], []]
    for k in range(40):
        case, label = ("Case=Nom", "nsubj") if k % 2 == 0 else ("Case=Acc", "obj")
        held_out = sentence("NV", [2, 0], [case, "_"])
        held_out.words[0][7] = label
        gold.append(held_out)
        for m in (0, 1):
            parses[m].append(trees[m])
    weights = Weights.estimate("learned", gold, parses)
    assert weights.labeler is not None
    assert combine(trees, ["N", "V"], weights, False, False, ["Case=Nom", "_"])[1][1] == "nsubj"
    assert combine(trees, ["N", "V"], weights, False, False, ["Case=Acc", "_"])[1][1] == "obj"
    # stored and read back, it chooses alike; weights stored without one (an archive made before
    # the label scorer) vote
    restored = Weights.from_json(json.loads(json.dumps(weights.as_json())), 2)
    assert combine(trees, ["N", "V"], restored, False, False, ["Case=Acc", "_"])[1][1] == "obj"
    stored = weights.as_json()
    del stored["labeler"]
    assert combine(trees, ["N", "V"], Weights.from_json(stored, 2), False, False, ["Case=Acc", "_"])[1][1] == "nsubj"
    with pytest.raises(ValueError):
        Weights.from_json({**Weights.estimate("pos", gold, parses).as_json(), "labeler": stored["scorer"]}, 2)


def test_arc_features_name_each_proposed_arc_once():
    a, b = tree([2, 0, 2], "xyz"), tree([3, 0, 2], "xyz")
    arcs = [(h, d) for h, d, _ in arc_features([a, b], ["N", "V", "N"])]
    assert sorted(arcs) == [(0, 2), (2, 1), (2, 3), (3, 1)]


# --- on real data ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def members(swemalt_blend_members) -> list[Path]:
    """conftest's three members: arc-eager, and Covington's non-projective algorithm both ways."""
    return swemalt_blend_members


@pytest.fixture(scope="module")
def member_parses(members, tmp_path_factory) -> dict[Path, list[Path]]:
    """Each member's parse of the test file and of the held-out file: {file: [parse by each]}."""
    folder = tmp_path_factory.mktemp("member_parses")
    parses: dict[Path, list[Path]] = {TEST: [], HELD_OUT: []}
    for k, m in enumerate(members):
        for source, into in parses.items():
            out = folder / f"{source.stem}-{k}.conll"
            result = run_maltpy("parse", "-q", "-m", m, "-i", source, "-o", out)
            assert result.returncode == 0, result.stderr.decode()
            into.append(out)
    return parses


@pytest.fixture(scope="module")
def blended(swemalt_blend) -> Path:
    """conftest's blend of the three, weighed on HELD_OUT."""
    return swemalt_blend


@pytest.fixture(scope="module")
def blend_parse(blended) -> bytes:
    """``maltpy parse`` of the test file with the blend, to stdout."""
    result = run_maltpy("parse", "-m", blended, "-i", TEST)
    assert result.returncode == 0, result.stderr.decode()
    return result.stdout


@requires_shared
def test_without_held_out_text_each_fold_is_parsed_by_the_members_learned_from_the_other(monkeypatch):
    # The weights come from every training sentence, once, parsed by members that did not learn
    # from it; the members then learn from all of them.
    from maltpy import blend
    from maltpy.data.conll import ConllReader
    from maltpy.models import learn as learning

    with open(SWEMALT_TRAIN, "rb") as f:
        sentences = list(ConllReader(f, "train", "conllx"))[:60]
    learned_from: list[list[str]] = []
    real_learn = learning.learn_parser  # a blend's members learn the parser alone

    def learn(config, given, data_format, name):
        given = list(given)
        learned_from.append([s.words[0][1] + str(len(s)) for s in given])
        return real_learn(config, iter(given), data_format, name)

    weighed: list = []
    real_estimate = Weights.estimate
    monkeypatch.setattr("maltpy.models.learn.learn_parser", learn)
    monkeypatch.setattr(Weights, "estimate", lambda kind, gold, parses: weighed.append((gold, parses))
                        or real_estimate(kind, gold, parses))  # fmt: skip
    members = [blend.Member.parse(f, "test") for f in ("-a nivreeager", "-a nivreeager -pd right-to-left")]
    treebank = blend.Treebank(lambda: iter(sentences), "train", "conllx")
    model = blend.learn_blend(treebank, members, "learned", "non-projective")
    gold, parses = weighed[0]
    assert sorted(map(id, gold)) == sorted(map(id, sentences))  # each sentence once
    assert all(len(p) == len(sentences) for p in parses)
    every = [s.words[0][1] + str(len(s)) for s in sentences]
    # each fold left out in turn, by each member; then all, by each
    assert learned_from == [every[1::2], every[1::2], every[::2], every[::2], every, every]
    assert model.statistics["held_out"] == "the treebank in 2 folds"


def untimed(archive: bytes) -> dict:
    """An archive's files, its members' too, but the seconds their learning took (which differ
    from one run to the next)."""
    import io

    files = {}
    with zipfile.ZipFile(io.BytesIO(archive)) as z:
        for name in z.namelist():
            data = z.read(name)
            if name.endswith(".mpm"):
                files[name] = untimed(data)
            elif name == "manifest.json":
                manifest = json.loads(data)
                for key in ("seconds_features", "seconds_training"):
                    manifest.get("training", {}).pop(key, None)
                files[name] = manifest
            else:
                files[name] = data
    return files


@requires_shared
@pytest.mark.parametrize("held_out", [None, SWEMALT_HELD_OUT])
def test_members_learn_in_worker_processes_into_the_same_blend(held_out, tmp_path):
    """``maltpy blend --jobs 2``: the members learn and parse the held-out text (or the folds) in
    two worker processes, and the archive is the same bytes (the first 150 training sentences:
    the workers' part is the same on any treebank)."""
    members = [blend.Member.parse(f, "test") for f in ("-a nivreeager", "-a nivrestandard -pd right-to-left")]
    held = blend.Treebank.of_file(str(held_out)) if held_out else None
    train = tmp_path / "train.conll"
    train.write_text(first_sentences(SWEMALT_TRAIN, 150), encoding="utf-8")
    said: list[str] = []
    one, two = (blend.learn_blend(blend.Treebank.of_file(str(train)), members, "learned", "non-projective",
                                  held, said.append, jobs).to_bytes() for jobs in (1, 2))  # fmt: skip
    assert untimed(one) == untimed(two)
    assert any(line.startswith("learning 2 members") and line.endswith("in 2 processes") for line in said)


@requires_shared
def test_a_member_that_fails_in_a_worker_is_the_error_of_one_process(tmp_path):
    missing = tmp_path / "missing.mpm"
    args = ["blend", "-i", SWEMALT_TRAIN, "-m", tmp_path / "b.mpm", "--held-out", SWEMALT_HELD_OUT,
            "--member", "-a nivreeager", "--member", f"-m {missing}"]  # fmt: skip
    one, two = run_maltpy(*args), run_maltpy(*args, "--jobs", "2", "-q")
    assert_one_line_error(one, f"{missing}:")
    assert two.returncode == 2 and two.stderr == one.stderr.splitlines(keepends=True)[-1]
    assert not (tmp_path / "b.mpm").exists()


@requires_shared
def test_a_learning_process_that_dies_is_one_error(monkeypatch):
    """A worker of ``maltpy blend --jobs`` killed (out of memory, a signal): one error naming the
    member, and the other workers stopped."""
    import concurrent.futures

    from maltpy.run import processes

    stopped = []

    class Dying:
        def __init__(self, jobs):
            pass

        def submit(self, function, *args):
            future = concurrent.futures.Future()
            killed = "a worker process (process 7) was killed by SIGKILL"
            future.set_exception(concurrent.futures.BrokenExecutor(killed))
            return future

        def stop(self):
            stopped.append(True)

    monkeypatch.setattr(processes, "Tasks", Dying)
    members = [blend.Member.parse(f, "test") for f in ("-a nivreeager", "-a covnonproj")]
    with pytest.raises(MaltpyError) as caught:
        blend.learn_blend(blend.Treebank.of_file(str(SWEMALT_TRAIN)), members, "learned", "non-projective", jobs=2)
    assert caught.value.message == ("member 1 of 2 (-a nivreeager): its learning process failed (BrokenExecutor: a "
                                    "worker process (process 7) was killed by SIGKILL)")  # fmt: skip
    assert stopped == [True]


def las(gold: Path, parsed: bytes) -> float:
    g = conll_columns(gold)
    s = conll_columns(parsed.decode("utf-8").splitlines(keepends=True))
    right = sum(a[6] == b[6] and a[7] == b[7] for x, y in zip(g, s) for a, b in zip(x, y))
    return 100 * right / sum(len(x) for x in g)


@requires_shared
def test_a_blend_parses_into_trees_above_each_of_its_members(member_parses, blend_parse):
    assert conll_columns(blend_parse.decode().splitlines(keepends=True))
    for sentence in conll_columns(blend_parse.decode().splitlines(keepends=True)):
        assert find_cycle([-1] + [int(w[6]) for w in sentence]) is None
    alone = [las(TEST, parse.read_bytes()) for parse in member_parses[TEST]]
    assert las(TEST, blend_parse) > max(alone), (las(TEST, blend_parse), alone)


@requires_shared
def test_combine_of_the_members_parses_is_the_blend(member_parses, blend_parse):
    """`maltpy combine` of the members' parses, weighed by their parses of the held-out file,
    writes the blend's bytes (the issue's acceptance)."""
    test_parses, held_parses = member_parses[TEST], member_parses[HELD_OUT]
    combined = run_maltpy("combine", *test_parses, "--weights-from", HELD_OUT, *held_parses)
    assert combined.returncode == 0, combined.stderr.decode()
    assert combined.stdout == blend_parse
    pos = run_maltpy("combine", "--weights", "pos", *test_parses, "--weights-from", HELD_OUT, *held_parses)
    assert pos.returncode == 0 and pos.stdout != combined.stdout  # the weighting is really used


@requires_shared
def test_every_way_in_gives_the_blends_parse(blended, blend_parse, tmp_path):
    from maltpy import load_model

    by_file = blend_parse
    assert run_maltpy("parse", "-m", blended, input=TEST.read_bytes()).stdout == by_file
    jobs = run_maltpy("parse", "-m", blended, "-i", TEST, "--jobs", "2")
    assert jobs.returncode == 0 and jobs.stdout == by_file
    model = load_model(str(blended))
    assert model.parse_conll(TEST.read_text(encoding="utf-8")) == by_file.decode()
    copy = tmp_path / "copy.mpm"
    model.save(copy)
    assert run_maltpy("parse", "-m", copy, "-i", TEST).stdout == by_file
    info = run_maltpy("info", "-m", blended)
    assert info.returncode == 0 and b"blend of           3 members" in info.stdout
    assert json.loads(run_maltpy("info", "--json", "-m", blended).stdout)["blend"]["members"] == 3


@requires_shared
def test_a_damaged_blend_is_one_error_line(blended, tmp_path):
    with zipfile.ZipFile(blended) as z:
        members = {name: z.read(name) for name in z.namelist()}
    manifest = json.loads(members["manifest.json"])

    def damaged(change) -> Path:
        m = json.loads(json.dumps(manifest))
        files = dict(members)
        change(m, files)
        path = tmp_path / "damaged.mpm"
        with zipfile.ZipFile(path, "w") as z:
            for name, data in {**files, "manifest.json": json.dumps(m).encode()}.items():
                z.writestr(name, data)
        return path

    cases = {
        "nan weight": lambda m, f: m["blend"]["weights"]["overall"].__setitem__(0, float("nan")),
        "weight above 1": lambda m, f: m["blend"]["weights"]["overall"].__setitem__(0, 2),
        "a member missing": lambda m, f: f.pop(m["blend"]["members"][1]),
        "a member twice": lambda m, f: m["blend"]["members"].__setitem__(1, m["blend"]["members"][0]),
        "too few weights": lambda m, f: m["blend"]["weights"]["overall"].pop(),
        "no scorer": lambda m, f: m["blend"]["weights"].pop("scorer"),
        "scorer lengths": lambda m, f: m["blend"]["weights"]["scorer"]["coef"].pop(),
        "scorer inf": lambda m, f: m["blend"]["weights"]["scorer"].__setitem__("intercept", 1e999),
        "labeler lengths": lambda m, f: m["blend"]["weights"]["labeler"]["coef"].pop(),
        "labeler not a mapping": lambda m, f: m["blend"]["weights"].__setitem__("labeler", []),
        "unknown decoder": lambda m, f: m["blend"].__setitem__("decoder", "greedy"),
        "a member not a model": lambda m, f: f.__setitem__(m["blend"]["members"][0], b"not a zip"),
        "a blend in a blend": lambda m, f: f.__setitem__(m["blend"]["members"][0], blended.read_bytes()),
        "members not a list": lambda m, f: m["blend"].__setitem__("members", "all"),
    }
    for name, change in cases.items():
        path = damaged(change)
        result = run_in_process("parse", "-m", path, "-i", TEST)  # a process's stderr and status
        err = assert_one_line_error(result, str(path))
        assert "damaged model" in err or "not a maltpy model" in err, (name, err)


@requires_shared
def test_combine_refuses_files_that_do_not_line_up(member_parses, tmp_path):
    parsed, other = member_parses[TEST][0], member_parses[HELD_OUT][0]
    assert_one_line_error(run_maltpy("combine", parsed, other), str(other))
    # the other refusals by main in this process: a process's status and stderr
    err = assert_one_line_error(
        run_in_process("combine", parsed, parsed, "--weights-from", HELD_OUT, other), "command line"
    )
    assert "3 files, not 2" in err
    assert_one_line_error(run_in_process("combine", parsed), "command line")
    assert_one_line_error(run_in_process("combine", "--weights", "pos", parsed, parsed), "command line")
    out, blind = tmp_path / "out.conll", GOLD.parent / "input" / "sv-stb-dep-mini-test-blind-01.conll"
    assert_one_line_error(run_in_process("combine", parsed, blind, "-o", out), str(GOLD.parent / "input"))
    assert not out.exists()


@requires_shared
def test_blend_option_errors_are_one_line(members, tmp_path):
    out = tmp_path / "b.mpm"
    cases = [
        (["--member", "-a nosuch"], "command line"),
        (["--member", "-x 1"], "command line"),
        (["--member", f"-m {members[0]}"], "command line"),  # a given model needs --held-out to be weighed
        (["--member", "-a nivreeager -m x.mpm"], "command line"),
    ]
    for k, (args, where) in enumerate(cases):  # the first as a process, the others by main in this one
        run = run_maltpy if k == 0 else run_in_process
        assert_one_line_error(run("blend", "-q", "-i", SWEMALT_TRAIN, "-m", out, *args), where)
        assert not out.exists()
    config = tmp_path / "blend.yaml"
    config.write_text("blend:\n  weights: loud\n")
    assert_one_line_error(run_in_process("blend", "-q", "-i", SWEMALT_TRAIN, "-m", out, "-c", config), str(config))


@requires_shared
def test_a_treebank_that_cannot_be_read_twice_is_refused_before_learning(tmp_path):
    """A blend reads its treebank and held-out file more than once (and --jobs workers open
    them by name): a FIFO, a process substitution or standard input is one error line, as
    ``optimize`` gives (files.check_rereadable), where a FIFO hung on its second open and a
    process substitution seemed to hold no held-out sentences."""
    out, fifo = tmp_path / "b.mpm", tmp_path / "fifo"
    os.mkfifo(fifo)  # no writer: a second open would wait for ever
    member = ("--member", "-a nivreeager")
    for args in (["-i", fifo], ["-i", SWEMALT_TRAIN, "--held-out", fifo]):
        err = assert_one_line_error(call_main("blend", "-q", *args, "-m", out, *member, timeout=60), f"{fifo}: ")
        assert err.endswith("not a regular file: a blend reads it more than once\n")
    read, write = os.pipe()  # what <(cat train.conll) gives: a pipe named /dev/fd/N
    try:
        os.write(write, SWEMALT_TRAIN.read_bytes()[:30_000])
        os.close(write)
        assert_one_line_error(call_main("blend", "-q", "-i", f"/dev/fd/{read}", "-m", out, *member, timeout=60),
                              f"/dev/fd/{read}: not a regular file")  # fmt: skip
    finally:
        os.close(read)
    result = call_main("blend", "-q", "-i", "-", "-m", out, *member, input=SWEMALT_TRAIN.read_bytes(), timeout=60)
    assert "standard input can be read only once" in assert_one_line_error(result, "<stdin>: ")
    assert not out.exists()


@requires_shared
def test_a_blend_of_more_members_than_an_archive_holds_is_refused_before_learning(members, tmp_path):
    """What write_blend writes, read_blend reads: no more than MAX_MEMBERS members, refused
    before any member learns (65 members learned for 22 s, then the archive was refused)."""
    out, many = tmp_path / "b.mpm", MAX_MEMBERS + 1
    err = assert_one_line_error(run_in_process("blend", "-q", "-i", SWEMALT_TRAIN, "-m", out,
                                               *["--member", "-a nivreeager"] * many), "command line: ")  # fmt: skip
    assert err.endswith(f"a blend has at most {MAX_MEMBERS} members, not {many}\n")
    config = tmp_path / "blend.yaml"
    config.write_text("blend:\n  members:\n" + "    - -a nivreeager\n" * many)
    assert_one_line_error(run_in_process("blend", "-q", "-i", SWEMALT_TRAIN, "-m", out, "-c", config), f"{config}: ")
    assert not out.exists()
    model = load(members[0])
    with pytest.raises(MaltpyError, match=f"at most {MAX_MEMBERS} members"):
        blend.Blend([model] * many, Weights.equal(many), "non-projective", {}).save(out)
    assert not out.exists()


@requires_shared
def test_a_blends_config_file_is_read_as_learns(tmp_path):
    """``blend -c`` reads its YAML as ``learn -c`` does (config.read_config_file): a key given
    twice, anchors and tags are errors at their line, and a file name it gives (held_out, a
    member's -c) is taken from the file's folder."""
    out = tmp_path / "b.mpm"
    folder = tmp_path / "configs"
    folder.mkdir()
    cases = {
        "twice": ("blend:\n  members: ['-a nivreeager']\n  members: ['-a covnonproj']\n",
                  ":3: key 'members' is given twice"),
        "anchor": ("blend:\n  members: &m ['-a nivreeager']\n", ":2: YAML anchors (&) are not allowed"),
        "tag": ("blend:\n  weights: !!python/name:os.system equal\n", ":2: YAML tags (!) are not allowed"),
        "group": ("learn:\n  members: ['-a nivreeager']\n", ":1: unknown option group 'learn' (groups: blend)"),
        "key": ("blend:\n  member: ['-a nivreeager']\n", ":2: unknown key blend.member"),
        "members": ("blend:\n  members: -a nivreeager\n", ":2: blend.members: a list of members"),
        "held_out": ("blend:\n  held_out: held-out.conll\n  members: ['-a nivreeager']\n",
                     f"{folder / 'held-out.conll'}: no such file"),
    }  # fmt: skip
    for name, (text, said) in cases.items():
        config = folder / f"{name}.yaml"
        config.write_text(text)
        err = assert_one_line_error(run_in_process("blend", "-q", "-i", SWEMALT_TRAIN, "-m", out, "-c", config),
                                    f"{config}" if name != "held_out" else "")  # fmt: skip
        assert said in err, name
        assert "\\n" not in err
    assert not out.exists()


@requires_shared
def test_a_member_that_fails_to_learn_is_named(tmp_path):
    out = tmp_path / "b.mpm"
    result = run_in_process("blend", "-q", "-i", SWEMALT_TRAIN, "-m", out, "--weights", "equal", "--member",
                            "-a nivreeager", "--member", '-l libsvm -lo "-wXX 2"')  # fmt: skip
    err = assert_one_line_error(result, f"{SWEMALT_TRAIN}: ")
    assert 'member 2 of 2 (-l libsvm -lo "-wXX 2"): lib.options: -wXX: the treebank gives no such class' in err
    assert not out.exists()


@requires_shared
def test_combine_names_what_it_cannot_read(tmp_path):
    parsed = SWEMALT / "parsed" / "sv-stb-dep-mini-test-parsed-00.conll"
    err = assert_one_line_error(run_in_process("combine", "-", "-", input=parsed.read_bytes()), "command line: ")
    assert "only one of the files can be standard input" in err
    empty = tmp_path / "empty.conll"
    empty.touch()
    err = assert_one_line_error(run_in_process("combine", parsed, parsed, "--weights-from", empty, empty, empty),
                                f"{empty}: ")  # fmt: skip
    assert "gold file is empty" in err


def test_a_member_names_the_flag_at_fault():
    """A flag of maltpy learn that a member does not take was called "no flag of maltpy learn";
    a flag given twice was "not pairs of a flag and its value"."""
    cases = {
        "-a nivreeager -i train.conll": "-i is not a member's flag (maltpy learn's option flags and -c FILE",
        "-a mst --save-instances d": "--save-instances is not a member's flag",
        "-a nivreeager -a stacklazy": "-a is given twice",
        "-nr false -a nivreeager -nr true": "-nr is given twice",
        "-a nivreeager -nr": "not pairs of a flag and its value",
    }
    for text, said in cases.items():
        with pytest.raises(MaltpyError, match=re.escape(f"member {text!r}: {said}")):
            blend.Member.parse(text, "test")


@requires_shared
def test_a_file_read_once_named_twice_is_refused(tmp_path):
    """A FIFO or a process substitution named twice (as GOLD and a system, or twice as a
    system): its second open waited for ever for a writer, or read nothing and blamed the file
    for ending early. Refused before anything is opened, as standard input named twice is."""
    parsed = SWEMALT / "parsed" / "sv-stb-dep-mini-test-parsed-00.conll"
    fifo, out = tmp_path / "fifo", tmp_path / "c.conll"
    os.mkfifo(fifo)  # no writer: an open would wait for ever
    for args in ([fifo, fifo], [parsed, parsed, "--weights-from", fifo, fifo, fifo]):
        result = call_main("combine", *args, "-o", out, timeout=60)
        assert_one_line_error(result, f"{fifo}: named twice, and not a regular file")
    result = call_main("eval", fifo, fifo, timeout=60)
    assert_one_line_error(result, f"{fifo}: named twice, and not a regular file")
    read, write = os.pipe()  # what <(cat parsed.conll) gives: a pipe named /dev/fd/N
    try:
        os.write(write, parsed.read_bytes()[:30_000])
        os.close(write)
        result = call_main("combine", f"/dev/fd/{read}", f"/dev/fd/{read}", "-o", out, timeout=60)
        assert_one_line_error(result, f"/dev/fd/{read}: named twice")
    finally:
        os.close(read)
    assert not out.exists()


def test_scorer_of_one_class_scores_every_proposed_arc_alike():
    scorer = ArcScorer.fit([(["a"], True), (["b"], True)])
    t = tree([2, 0], ["x", "root"])
    scores = scorer.scores([t], ["N", "V"])
    assert scores[2, 1] == scores[0, 2] and scores[1, 2] < scores[2, 1] and np.isfinite(scores).all()


def test_estimate_needs_held_out_words():
    with pytest.raises(MaltpyError):
        Weights.estimate("pos", [], [[], []])


# A blend's parse with --jobs N, the main process allowed six cores and batches of BATCH_BYTES
# (argv[1]) bytes: teams of workers, each with its share of the members (jobs.py).
TEAMS = "import sys, maltpy.run.jobs; maltpy.run.jobs.usable_cores = lambda: 6; "
TEAMS += "maltpy.run.jobs.BATCH_BYTES = int(sys.argv.pop(1)); from maltpy.cli import main; sys.exit(main())"


def run_in_teams(batch_bytes: int, *args, input: bytes | None = None):
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-c", TEAMS, str(batch_bytes), *map(str, args)], input=input,
                          capture_output=True, timeout=600)  # fmt: skip


@requires_shared
def test_a_blends_batches_are_a_share_for_the_workers(blended, members, tmp_path, monkeypatch):
    """A blend's members each parse every sentence: --jobs cuts a file its members take long over
    into batches (jobs.batch_limit: a share of a single model's bytes, by the members each worker
    of a team parses with), where one model's file stays one batch; its workers go in teams, a
    team of two even for a file of one batch."""
    from maltpy.run import jobs

    monkeypatch.setattr(jobs, "usable_cores", lambda: 6)
    monkeypatch.setattr(jobs, "available_memory", lambda: None)
    monkeypatch.setattr(jobs, "BATCH_BYTES", 60_000)
    big = tmp_path / "big.conll"
    big.write_bytes(TEST.read_bytes() * 3)  # 58 kB: one batch of a model, two of a team of two's
    six, one = jobs.model_members(str(blended)), jobs.model_members(str(members[0]))
    assert jobs.batch_limit(six) == 20_000 and jobs.batch_limit(one) == 60_000
    assert jobs.batch_limit(six, 2) == 30_000 and jobs.batch_limit(six, 3) == 60_000
    assert jobs.workers_for(4, str(members[0]), [str(big)], None) == 1
    assert jobs.workers_for(2, str(blended), [str(TEST)], None) == 2  # one batch: one team of two
    assert jobs.workers_for(6, str(blended), [str(big)], None) == 4  # two batches: two teams
    assert jobs.workers_for(5, str(blended), [None], None) == 5  # a pipe: teams of two and three
    # a learned scorer can make a blend's manifest megabytes long (en_lines': 1.7 MB); it is a
    # blend all the same
    long = tmp_path / "long.mpm"
    with_manifest(blended, long, lambda manifest: manifest["training"].update(padding="x" * (2 << 20)))
    assert jobs.batch_limit(jobs.model_members(str(long))) == 20_000


def test_teams_and_shares():
    from maltpy.run.jobs import team_sizes

    assert team_sizes(1, 6) == [1] and team_sizes(2, 6) == [2] and team_sizes(3, 6) == [3]
    assert team_sizes(5, 6) == [2, 3] and team_sizes(6, 6) == [2, 2, 2] and team_sizes(4, 1) == [1, 1, 1, 1]
    assert team_sizes(3, 2) == [2]  # no worker without a member
    six = ["nivreeager", "nivreeager", "nivrestandard", "nivrestandard", "covnonproj", "covnonproj"]
    assert costs.shares(six, 2) == [[0, 2, 5], [1, 3, 4]]  # a Covington member and two of Nivre's each
    assert costs.shares(six, 3) == [[0, 1, 2, 3], [4], [5]]
    assert costs.shares([None] * 5, 2) == [[0, 2, 4], [1, 3]]  # an archive that does not say
    for workers in (1, 2, 3, 6):
        split = costs.shares(six, workers)
        assert sorted(k for share in split for k in share) == list(range(6)) and 0 in split[0]
        assert all(split)


@requires_shared
@pytest.mark.parametrize("jobs", [2, 5])
def test_teams_write_the_bytes_of_one_process(blended, blend_parse, tmp_path, jobs):
    """--jobs 2: one team of two, each worker with its share of the three members, exchanging
    their trees, each combining a part of each batch; 5: teams of two and of three (one member
    each) taking the batches in turn (batches of 3 kB: about 20 of the file), from a file and
    from a pipe."""
    big = tmp_path / "big.conll"
    big.write_bytes(TEST.read_bytes() * 3)
    one = run_maltpy("parse", "-q", "-m", blended, "-i", big)
    assert one.returncode == 0
    for batch_bytes in (30_000, 3_000):
        result = run_in_teams(batch_bytes, "parse", "-m", blended, "-i", big, "--jobs", jobs)
        assert result.returncode == 0 and result.stderr == b"" and result.stdout == one.stdout, result.stderr
    piped = run_in_teams(3_000, "parse", "-m", blended, "--jobs", jobs, input=big.read_bytes())
    assert piped.returncode == 0 and piped.stdout == one.stdout, piped.stderr
    if jobs == 2:  # a blend made before archives named their members' algorithms: every worker loads all
        old = tmp_path / "old.mpm"
        with_manifest(blended, old, lambda manifest: manifest["blend"].pop("algorithms"))
        result = run_in_teams(3_000, "parse", "-m", old, "-i", big, "--jobs", 2)
        assert result.returncode == 0 and result.stdout == one.stdout, result.stderr


@requires_shared
def test_a_teams_errors_are_one_process_errors(blended, tmp_path):
    """An input error, and a damaged member, with a team of workers: the message --jobs 1 gives."""
    lines = (TEST.read_bytes() * 4).split(b"\n")
    lines[200] = lines[200].replace(b"\t", b" ", 1) if lines[200] else lines[201].replace(b"\t", b" ", 1)
    bad = tmp_path / "bad.conll"
    bad.write_bytes(b"\n".join(lines))
    one = run_maltpy("parse", "-m", blended, "-i", bad, "-o", tmp_path / "one")
    two = run_in_teams(6_000, "parse", "-m", blended, "-i", bad, "-o", tmp_path / "two", "--jobs", 2)
    assert "expected 10 tab-separated columns" in assert_one_line_error(one, f"{bad}:")
    assert two.returncode == 2 and two.stderr == one.stderr
    assert not (tmp_path / "one").exists() and not (tmp_path / "two").exists()
    # the blend says a member is of another algorithm than it is: damaged, in every worker
    lying = tmp_path / "lying.mpm"
    with_manifest(blended, lying, lambda manifest: manifest["blend"]["algorithms"].reverse())
    for result in (run_maltpy("parse", "-m", lying, "-i", TEST),
                   run_in_teams(6_000, "parse", "-m", lying, "-i", TEST, "--jobs", 2)):  # fmt: skip
        err = assert_one_line_error(result, f"{lying}: damaged model: member members/00.mpm is nivreeager, not ")
        assert err.endswith("not covnonproj as the blend says\n")


def test_a_scorer_keeps_what_an_archive_can_hold(monkeypatch):
    # A treebank's tag or FEATS can make a feature name longer than an archive keeps, and a big
    # treebank more features: the scorer leaves out the long names and keeps the most frequent,
    # so that the archive it goes into loads.
    long_name = "df=Case=" + "x" * 500
    rows = [(["n=2", long_name, "rare", "common"], True), (["n=1", "common"], False), (["n=2", "common"], False)]
    monkeypatch.setattr("maltpy.blend.scorer.MAX_FEATURES", 2)
    scorer = ArcScorer.fit(rows)
    assert list(scorer.index) == ["n=2", "common"]
    again = ArcScorer.from_json(json.loads(json.dumps(scorer.as_json())))
    assert again.index == scorer.index and list(again.coef) == list(scorer.coef)


def test_features_without_values_as_conll_x_writes_them():
    assert features._feature_pairs("gen=utr|num=sin") == {"gen": "utr", "num": "sin"}
    assert features._feature_pairs("utr|sin|ind") == {"utr": "", "sin": "", "ind": ""}
    assert features._feature_pairs("_") == {}


def test_the_shipped_fast_blend_learns_the_members_its_file_names(tmp_path):
    # configs/blends/ud-fast.yaml (README, "Accuracy: the levers"): on en_lines LAS 84.95 in 5.9 s
    model_path = tmp_path / "fast.mpm"
    result = run_maltpy("blend", "-q", "-c", ROOT / "configs" / "blends" / "ud-fast.yaml", "-i",
                        EXAMPLE / "en-train.conllu", "-m", model_path)  # fmt: skip
    assert result.returncode == 0, result.stderr.decode()
    model = load(str(model_path))
    settings = [(c.defaults.profile, c.singlemalt.parsing_algorithm, c.singlemalt.parsing_direction,
                 c.pproj.marking_strategy, m.feature_model.source, c.lib.options["c"])
                for m, c in ((m, m.config) for m in model.members)]  # fmt: skip
    lexical, ud = "default: liblinear/ud-lexical/nivrestandard.txt", "default: liblinear/ud/nivreeager.txt"
    assert settings == [("ud-lexical", "nivrestandard", "left-to-right", "none", lexical, 0.1),
                        ("ud-lexical", "nivrestandard", "right-to-left", "none", lexical, 0.1),
                        ("ud", "nivreeager", "left-to-right", "none", ud, 0.1),
                        ("ud", "nivreeager", "right-to-left", "none", ud, 0.1)]  # fmt: skip
    test = (EXAMPLE / "en-test.conllu").read_text(encoding="utf-8")
    assert run_maltpy("parse", "-m", model_path, input=test.encode()).stdout.decode() == model.parse_conll(test)
