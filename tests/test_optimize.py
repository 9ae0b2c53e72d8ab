"""``maltpy optimize``: the search's phases on real data (the shipped example treebank, 3-fold
cross-validation), its outputs as ``maltpy learn`` takes them, its determinism across --jobs, its
resumption from the trial log, its budget, and its refusals. The accuracy it reaches on the shared
treebanks is measured by scripts/bench_optimize.py, beside MaltParser's defaults."""

from __future__ import annotations

import io
import json
import os
import re
import resource
import signal
import subprocess
import sys
import tempfile
import time

import pytest
from conftest import (
    DATA,
    EXAMPLE,
    as_from_a_terminal,
    assert_one_line_error,
    requires_shared,
    run_in_process,
    run_maltpy,
)

from maltpy.config import FLAGS, config_from_dict, default_config, load_config
from maltpy.data.columns import FORM
from maltpy.data.conll import ConllReader
from maltpy.data.tree import is_projective, nonprojective_arcs
from maltpy.features import load_feature_model
from maltpy.optimize import BASELINE_FEATURES, _base_setting, optimize, root_options
from maltpy.optimize.analysis import Analysis, analyse
from maltpy.optimize.candidates import default_features, feature_groups, readable, varying, wider_groups
from maltpy.optimize.trials import Data, read_sentences, splits_of, tag_splits
from maltpy.tagging import TAGGED
from maltpy.transition import SYSTEMS

TRAIN = EXAMPLE / "en-train.conllu"
TEST = EXAMPLE / "en-test.conllu"


def records(out) -> list[dict]:
    lines = (out / "trials.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines[1:]]


def trials(out) -> list[dict]:
    return [r for r in records(out) if "phase_end" not in r]


#: The module's search: 3-fold cross-validation, and two rounds of phases 3 and 4, with two jobs
#: (the default 5 folds and third round run the same code again: the search takes less than half
#: the time, 6.8 s against 14.8). A search resumed from its log is scored the same way (FOLDS).
FOLDS = ["--folds", "3"]
SEARCH = [*FOLDS, "--rounds", "2", "--jobs", "2", "--budget", "10"]


@pytest.fixture(scope="module")
def searched(tmp_path_factory):
    """One search of the example treebank (SEARCH)."""
    out = tmp_path_factory.mktemp("search") / "opt"
    r = run_maltpy("optimize", "-i", TRAIN, "-o", out, *SEARCH)
    assert r.returncode == 0, r.stderr.decode()
    return out, r


def test_search_writes_a_config_that_learn_takes(searched, tmp_path):
    out, r = searched
    stderr = r.stderr.decode()
    assert r.stdout == b""
    for phase in ("phase 1, data analysis", "2 algorithm", "3 features", "4 learner", "MaltParser's default"):
        assert phase in stderr
    config = load_config(str(out / "config.yaml"))
    assert config.guide.features == str(out / "features.txt")
    logged = trials(out)
    best = max(t["las"] for t in logged if t["las"] is not None)
    assert f"LAS {best:.2f}" in (out / "config.yaml").read_text()
    # the chosen setting is a logged trial: same algorithm, same feature lines
    chosen = next(t for t in logged if t["las"] == best)
    assert config.singlemalt.parsing_algorithm == chosen["config"]["singlemalt"]["parsing_algorithm"]
    lines = [x for x in (out / "features.txt").read_text().splitlines() if not x.startswith("#")]
    assert lines == chosen["features"]
    # learn and parse with it, from another folder: the feature file is found beside the config
    model = tmp_path / "tuned.mpm"
    assert run_maltpy("learn", "-c", out / "config.yaml", "-i", TRAIN, "-m", model, cwd=tmp_path).returncode == 0
    assert run_maltpy("parse", "-m", model, "-i", TEST, "-o", tmp_path / "p.conllu").returncode == 0


def test_every_phase_runs_and_keeps_only_what_gains(searched):
    out, _ = searched
    logged = trials(out)
    phases = [t["phase"] for t in logged]
    assert phases[0] == "2 algorithm" and "3 features" in phases and "4 learner" in phases
    algorithms = {t["config"]["singlemalt"]["parsing_algorithm"] for t in logged if t["phase"] == "2 algorithm"}
    assert algorithms == {*SYSTEMS, "mst"}  # the example has non-projective arcs: all nine, and MST
    assert any("pproj" in t["config"] for t in logged)
    assert all(t["words"] == 349 for t in logged)  # 3 folds: every word scored once
    # each trial's LAS is its counts'
    for t in logged:
        assert t["las"] == round(100 * t["correct"] / t["words"], 4)
    # a CoNLL-U treebank: phase 2 starts from the ud profile's models (plain learn's), and
    # MaltParser's default, the baseline, is tried beside them
    ud = next(t for t in logged if t["what"] == "nivreeager")
    assert ud["features"] == list(default_features("nivreeager", "liblinear", "conllu", "ud"))
    baseline = next(t for t in logged if t["what"] == f"nivreeager {BASELINE_FEATURES}")
    assert baseline["features"] == list(default_features("nivreeager", "liblinear", "conllu"))
    assert baseline["features"] != ud["features"]
    assert max(t["las"] for t in logged) > baseline["las"]
    # each phase's summary: it starts where the one before ended, and keeps only logged trials' scores
    ends = [r for r in records(out) if "phase_end" in r]
    names = [r["phase_end"] for r in ends]
    assert names[:3] == ["2 algorithm", "3 features", "4 learner"] and names[-1] == "5 blend"
    ends = ends[:-1]  # the blend's phase: test_the_blend_phase
    # a later round, up to --rounds (2), after a round that kept a change
    assert names[3:-1] in ([], ["3 features, round 2", "4 learner, round 2"])
    for i in range(3, len(ends), 2):
        assert ends[i - 2]["kept"] or ends[i - 1]["kept"]
    assert ends[0]["start_las"] == baseline["las"]
    for before, after in zip(ends, ends[1:]):
        assert after["start_las"] == before["las"] <= after["las"]
    scores = {t["las"] for t in logged}
    assert all(r["las"] in scores for r in ends)


def test_the_blend_phase(searched, tmp_path):
    """Phase 5 blends the best setting, both ways, with maltpy blend's default members of the
    treebank (a CoNLL-U one's nine, under the ud-lexical profile), scored as a trial on the same folds; kept
    (blend.yaml, which maltpy blend takes) only if it scores above the best single setting."""
    from maltpy.optimize.blending import default_members

    out, r = searched
    end = [x for x in records(out) if x.get("phase_end") == "5 blend"][0]
    best = [x for x in records(out) if "phase_end" in x][-2]["las"]
    assert end["start_las"] == best and 0 < end["las"] <= 100
    chosen = load_config(str(out / "config.yaml")).singlemalt.parsing_algorithm
    defaults = default_members(True)
    assert len(defaults) == 9 and all(flags.endswith(" -P ud-lexical") for flags in defaults)
    assert end["members"] == [chosen, f"{chosen} right-to-left", *defaults]
    assert (out / "blend.yaml").exists() == (end["las"] > best) == bool(end["kept"])
    assert re.search(rb"phase 5 keeps \d+\.\d min of the budget for its blend", r.stderr)
    if end["las"] > best:
        model = tmp_path / "blend.mpm"
        learned = run_maltpy("blend", "-q", "-c", out / "blend.yaml", "-i", TRAIN, "-m", model, cwd=tmp_path)
        assert learned.returncode == 0, learned.stderr.decode()
        assert json.loads(run_maltpy("info", "--json", "-m", model).stdout)["blend"]["members"] == 11


#: A smaller search than the module's (2 folds, one round, no blend), for the ways of running one.
#: MaltParser's feature models (-P maltparser), fewer than the ud profile's to eliminate backward
#: (the module's search has the ud start): half the trials of phase 3.
SMALL = {"folds": 2, "rounds": 1, "budget": 10, "blend": False, "profile": "maltparser"}
SMALL_FLAGS = ["--folds", "2", "--rounds", "1", "--budget", "10", "--no-blend", "-P", "maltparser"]


@pytest.fixture(scope="module")
def small_search(tmp_path_factory):
    """The small search with one job: what two jobs and a Dask cluster must decide too."""
    out = tmp_path_factory.mktemp("small") / "one"
    r = run_maltpy("optimize", "-i", TRAIN, *SMALL_FLAGS, "-o", out, "--jobs", "1", "-q")
    assert r.returncode == 0 and r.stderr == b"", r.stderr.decode()
    return out


def test_the_same_search_with_one_job(small_search, tmp_path):
    """Decisions come from the scores in a fixed order: one job or two, the same result."""
    r = run_maltpy("optimize", "-i", TRAIN, *SMALL_FLAGS, "-o", tmp_path / "2", "--jobs", "2", "-q")
    assert r.returncode == 0 and r.stderr == b"", r.stderr.decode()
    one, two = small_search, tmp_path / "2"
    assert (one / "config.yaml").read_text() == (two / "config.yaml").read_text()
    assert (one / "features.txt").read_text() == (two / "features.txt").read_text()
    # the same trials with the same scores (logged as they end: in another order with two jobs)
    assert len(trials(one)) > 20
    assert sorted((t["key"], t["las"]) for t in trials(one)) == sorted((t["key"], t["las"]) for t in trials(two))


def test_resume_reuses_the_log_and_ends_where_an_uncut_search_ends(searched, tmp_path):
    out, _ = searched
    cut = tmp_path / "cut"
    cut.mkdir()
    lines = (out / "trials.jsonl").read_text().splitlines(keepends=True)
    kept = lines[: len(lines) // 2] + [lines[len(lines) // 2][:40]]  # a search killed while writing
    (cut / "trials.jsonl").write_text("".join(kept))
    # phase 5, the last, is no trial to reuse: test_the_blend_phase has it
    r = run_maltpy("optimize", "-i", TRAIN, "-o", cut, "--resume", *SEARCH, "--no-blend", "-q")
    assert r.returncode == 0, r.stderr.decode()
    assert (cut / "config.yaml").read_text() == (out / "config.yaml").read_text()
    resumed = (cut / "trials.jsonl").read_text().splitlines(keepends=True)
    # the cut line is gone; the trials before it are kept as they were and not run again (the
    # log would hold them twice), the ones from it on are run as the uncut search ran them
    assert resumed[: len(kept) - 1] == kept[:-1]
    keys = [json.loads(x).get("key") for x in resumed[1:]], [json.loads(x).get("key") for x in lines[1:]]
    assert sorted(filter(None, keys[0])) == sorted(filter(None, keys[1]))
    # each phase summed up once, as in the uncut search's log
    phases = [[json.loads(x)["phase_end"] for x in log if "phase_end" in x] for log in (resumed, lines)]
    assert sorted(phases[0]) == sorted(p for p in phases[1] if p != "5 blend")


def test_refusals(searched, tmp_path):
    # after the first, by main in this process: a process's status and stderr, without a start each
    out, _ = searched
    again = run_maltpy("optimize", "-i", TRAIN, "-o", out, "--budget", "1")
    assert again.returncode == 2 and b"--resume" in again.stderr and b"Traceback" not in again.stderr
    other = run_in_process("optimize", "-i", TRAIN, "-o", out, "--resume", *FOLDS, "--seed", "2", "--budget", "1")
    assert other.returncode == 2 and b"seed" in other.stderr
    tagged = run_in_process("optimize", "-i", TRAIN, "-o", out, "--resume", *FOLDS, "--tags", "own", "--budget", "1")
    assert tagged.returncode == 2 and b"tags" in tagged.stderr  # its trials were scored on gold tags
    jackknifed = run_in_process("optimize", "-i", TRAIN, "-o", tmp_path / "j", "-tj", "2")
    assert jackknifed.returncode == 2 and b"--tags own" in jackknifed.stderr
    folds = run_in_process("optimize", "-i", TRAIN, "-o", tmp_path / "k", *FOLDS, "--tags", "own", "-tj", "100")
    assert folds.returncode == 2 and b"-tj 100" in folds.stderr and not (tmp_path / "k").exists()
    both = run_in_process("optimize", "-i", TRAIN, "-d", TEST, "--folds", "3", "-o", tmp_path / "x")
    assert both.returncode == 2 and b"exclude" in both.stderr
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "trials.jsonl").write_text('{"log": 1}\nnot json\n')
    bad = run_in_process("optimize", "-i", TRAIN, "-o", tmp_path / "bad", "--resume")
    assert bad.returncode == 2
    assert bad.stderr.decode().startswith(f"maltpy: error: {tmp_path / 'bad' / 'trials.jsonl'}:1:")
    unparsed = tmp_path / "blind.conllu"
    unparsed.write_text("1\tDogs\tdog\tNOUN\tNNS\t_\t_\t_\t_\t_\n\n")
    blind = run_in_process("optimize", "-i", unparsed, "-o", tmp_path / "y")
    assert blind.returncode == 2 and blind.stderr.decode().startswith(f"maltpy: error: {unparsed}:1: ")
    assert not (tmp_path / "y" / "config.yaml").exists()


def test_with_its_own_tags_a_trial_parses_what_the_model_will_parse():
    """--tags own: each held-out part tagged by taggers learned on its training part, scored
    against its gold trees; with -tj 2, the training part's tags jackknifed, its trees gold."""
    sentences, fmt = read_sentences(str(TRAIN))
    gold = splits_of(sentences, None, 2, 1, fmt)
    splits = splits_of(sentences, None, 2, 1, fmt)
    tag_splits(splits, Data(str(TRAIN), "", None, None, 2, 1, fmt, "own", 2))
    for split, before in zip(splits, gold):
        assert split.dev == before.dev  # the gold, to score against
        parsed = list(ConllReader(io.BytesIO(split.dev_text), "held-out", fmt, blind=True))
        assert [s.column(FORM) for s in parsed] == [s.column(FORM) for s in before.dev]
        for column in TAGGED:
            predicted = [w[column] for s in parsed for w in s.words]
            truth = [w[column] for s in before.dev for w in s.words]
            wrong = sum(p != t for p, t in zip(predicted, truth))
            assert set(predicted) != {"_"} and 0 < wrong < len(truth) / 2  # a small treebank's taggers: mostly right
        assert [s.heads for s in split.train] == [s.heads for s in before.train]
        jackknifed = [w[c] for s in split.train for w in s.words for c in TAGGED]
        assert jackknifed != [w[c] for s in before.train for w in s.words for c in TAGGED]
    # without -tj the parser learns on the training part's own tags
    plain = splits_of(sentences, None, 2, 1, fmt)
    tag_splits(plain, Data(str(TRAIN), "", None, None, 2, 1, fmt, "own", 0))
    assert all(a.train == b.train and a.dev_text != b.dev_text for a, b in zip(plain, gold))


def test_a_search_on_its_own_tags_writes_a_config_that_learns_as_it_scored(tmp_path):
    out = tmp_path / "opt"
    r = run_maltpy("optimize", "-i", TRAIN, "-o", out, "--folds", "2", "--rounds", "1", "--no-blend", "--jobs", "1",
                   "--tags", "own", "-tj", "2", "--budget", "0.1")  # fmt: skip
    assert r.returncode == 0, r.stderr.decode()
    header = json.loads((out / "trials.jsonl").read_text().splitlines()[0])
    assert (header["tags"], header["jackknife"]) == ("own", 2)
    assert "taggers learned on the rest" in r.stderr.decode()
    config = load_config(str(out / "config.yaml"))
    assert config.tagger.jackknife == 2 and config.tagger.columns == "auto"


def test_a_budget_too_small_for_every_phase_still_leaves_the_best_so_far(tmp_path):
    # the least budget optimize takes, 6 s: phase 2 ends, phase 3 is cut, phase 4 skipped (phase 5
    # keeps what one of the five folds' blends takes, if it fits)
    r = run_maltpy("optimize", "-i", TRAIN, "-o", tmp_path / "o", "--jobs", "1", "--budget", "0.1")
    assert r.returncode == 0, r.stderr.decode()
    assert re.search(rb"skipped, the budget (left beside phase 5's share )?is spent", r.stderr)
    config = load_config(str(tmp_path / "o" / "config.yaml"))
    assert config.singlemalt.parsing_algorithm in SYSTEMS


def test_the_time_kept_for_the_blend_is_taken_from_the_phases_before_and_given_back():
    """Search.reserve: the seconds ``tasks`` are expected to take (the slowest recent task's, run
    ``jobs`` at a time) come off the deadline, which release gives back; nothing is kept where it
    would not fit before the deadline anyway."""
    from types import SimpleNamespace

    from maltpy.optimize.search import Search

    now = time.monotonic()
    search = Search(None, 2, SimpleNamespace(jobs=2), now + 100, None, {}, 0.5, None)
    assert search.reserve(8, jobs=1) == 0.0 and search.deadline == now + 100  # no task timed yet
    search.task_seconds = [2.0, 5.0, 3.0]
    assert search.time_for(30) and not search.time_for(30, jobs=1)  # 15 rounds of 5 s, or 30
    assert search.reserve(8, jobs=1) == 40.0 and search.deadline == pytest.approx(now + 60)
    assert not search.time_for(30)  # 75 s no longer fit in what the phases before have
    search.out_of_time = True  # as evaluate leaves it at their deadline
    assert search.release() == 40.0
    assert search.deadline == pytest.approx(now + 100) and search.reserved == 0.0 and not search.out_of_time
    assert search.reserve(40, jobs=1) == 0.0 and search.deadline == pytest.approx(now + 100)  # 200 s: never fits


def test_the_blend_is_scored_on_as_many_folds_as_the_budget_allows():
    """blending.blend_splits: all the splits where their blends fit in the time left; else as
    many as fit in half of it; else one where it fits; else none. A dev file (one split) is
    blended where it fits, as before."""
    from types import SimpleNamespace

    from maltpy.optimize.blending import blend_splits, blend_tasks
    from maltpy.optimize.search import Search
    from maltpy.optimize.trials import Result, Setting

    best = Result(Setting.make({"singlemalt": {"parsing_algorithm": "nivreeager"}}, []), 60.0)
    members = 4 * (2 + 9)  # the best both ways and the nine default members, 4 tasks each
    assert blend_tasks(SimpleNamespace(splits=5), best, None, True) == 5 * members
    assert blend_tasks(SimpleNamespace(splits=5), best, None, True, 2) == 2 * (members + 1)  # + the single again
    for splits, seconds_left, expected in ((5, 300, 5), (5, 200, 2), (5, 60, 1), (5, 40, 0), (1, 50, 1), (1, 40, 0)):
        now = time.monotonic()
        search = Search(None, splits, SimpleNamespace(jobs=1), now + seconds_left, None, {}, 0.5, None)
        search.task_seconds = [1.0]
        assert blend_splits(search, best, None, True) == expected, (splits, seconds_left)


def _analysis(**columns: float) -> Analysis:
    filled = {"LEMMA": 1.0, "CPOSTAG": 1.0, "POSTAG": 1.0, "FEATS": 1.0, "UPOSTAG": 1.0, "XPOSTAG": 1.0, **columns}
    return Analysis("conllx", 1, 1, 1, 1, filled, True, True, {}, 0)


@pytest.mark.parametrize("algorithm", list(SYSTEMS))
@pytest.mark.parametrize("data_format", ["conllx", "conllu"])
def test_every_candidate_feature_is_a_feature_of_the_algorithm(algorithm, data_format):
    analysis = _analysis()
    analysis.format = data_format
    lines = list(default_features(algorithm, "liblinear", data_format))
    for _, candidates in feature_groups(algorithm, analysis):
        assert candidates and len(set(candidates)) == len(candidates)
        lines += candidates
    with tempfile.NamedTemporaryFile("w", suffix=".txt") as f:
        f.write("\n".join(lines) + "\n")
        f.flush()
        model = load_feature_model(f.name, algorithm, "liblinear", data_format, "one")
    assert {readable(s.text) for s in model.specs} == set(lines)  # each read as written (a repeated one once)


def test_columns_without_information_give_no_candidates():
    analysis = _analysis(LEMMA=0.0, FEATS=0.1)
    analysis.two_tags = False
    text = repr(feature_groups("nivreeager", analysis))
    assert "LEMMA" not in text and "FEATS" not in text and "CPOSTAG" not in text
    assert "FEATS" in repr(feature_groups("nivreeager", _analysis()))


@requires_shared
def test_data_analysis_of_a_real_treebank():
    path = DATA / "conllx" / "la_perseus-ud-train.conllx"
    sentences, fmt = read_sentences(str(path))
    analysis = analyse(sentences, fmt)
    with open(path, "rb") as stream:
        counted = list(ConllReader(stream, str(path), "conllx"))
    assert analysis.sentences == len(counted)
    assert analysis.tokens == sum(len(s) for s in counted)
    assert analysis.nonprojective_sentences == sum(not is_projective(s.heads) for s in counted)
    assert analysis.nonprojective_arcs == sum(len(nonprojective_arcs(s.heads)) for s in counted) > 0
    tried = analysis.algorithms()  # every algorithm, the projective ones first
    assert sorted(tried) == sorted(SYSTEMS) and tried[:4] == ("nivreeager", "nivrestandard", "stackproj", "covproj")
    assert analysis.uses("FEATS") and analysis.uses("LEMMA") and not analysis.uses("CPOSTAG")
    assert sum(analysis.root_labels.values()) >= analysis.sentences


def test_the_same_search_on_a_dask_cluster(small_search, tmp_path):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        on_dask, _, _ = optimize(str(TRAIN), str(tmp_path / "dask"), scheduler=cluster.scheduler_address, **SMALL)
    config = (small_search / "config.yaml").read_text()
    assert (tmp_path / "dask" / "config.yaml").read_text() == config and f"LAS {on_dask.las:.2f} on" in config
    assert (tmp_path / "dask" / "features.txt").read_text() == (small_search / "features.txt").read_text()
    assert sorted((t["key"], t["las"]) for t in trials(tmp_path / "dask")) == sorted(
        (t["key"], t["las"]) for t in trials(small_search)
    )


@requires_shared
def test_candidates_that_never_vary_for_the_algorithm_are_not_tried():
    sentences, fmt = read_sentences(str(DATA / "conllx" / "en_lines-ud-train.conllx"))
    analysis = analyse(sentences, fmt)
    for algorithm, empty, full in [
        ("stackproj", "InputColumn(POSTAG, head(Stack[0]))", "InputColumn(POSTAG, ldep(Stack[0]))"),
        ("stackproj", "InputColumn(POSTAG, Input[0])", "InputColumn(POSTAG, Lookahead[0])"),  # no swaps
        ("nivrestandard", "OutputColumn(DEPREL, Stack[0])", "InputColumn(POSTAG, rdep(Input[0]))"),
        ("nivreeager", "NumOf(Input[0], rdeps, 0|1|2|3|4|5|6)", "NumOf(Stack[0], rdeps, 0|1|2|3|4|5|6)"),
        ("covproj", "InputColumn(POSTAG, LeftContext[0])", "InputColumn(POSTAG, Left[1])"),
    ]:
        candidates = [c for _, group in feature_groups(algorithm, analysis) for c in group]
        candidates += [c for _, group in wider_groups(algorithm, analysis) for c in group]
        assert empty in candidates and full in candidates
        useful = varying(candidates, _base_setting(algorithm, "liblinear", fmt), sentences, fmt)
        assert empty not in useful and full in useful, algorithm


def test_a_damaged_or_hostile_log_is_refused_with_its_line(searched, tmp_path):
    # the refusals by main in this process (a process's status and stderr), the resumed search a process
    out, _ = searched
    header, first, *_ = (out / "trials.jsonl").read_bytes().split(b"\n")
    trial = json.loads(first)
    cases = {
        "nested": b"[" * 100_000 + b"]" * 100_000,
        "bool": json.dumps({**trial, "las": True}).encode(),
        "nan": json.dumps({**trial, "las": float("nan")}).encode(),
        "no score": json.dumps({**trial, "las": None, "error": None}).encode(),
        "error type": json.dumps({**trial, "las": None, "error": {"a": 1}}).encode(),
        "long": b'{"key": "' + b"x" * (2 << 20) + b'"}',
    }
    for name, line in cases.items():
        folder = tmp_path / name.replace(" ", "_")
        folder.mkdir()
        (folder / "trials.jsonl").write_bytes(header + b"\n" + line + b"\n")
        r = run_in_process("optimize", "-i", TRAIN, "-o", folder, "--resume", *FOLDS, "--budget", "1")
        assert r.returncode == 2, name
        assert r.stderr.decode().startswith(f"maltpy: error: {folder / 'trials.jsonl'}:2: not a trial log"), name
        assert r.stderr.count(b"\n") == 1
    # a link is refused, and its target left alone
    (tmp_path / "victim.txt").write_text("keep me")
    (tmp_path / "link").mkdir()
    (tmp_path / "link" / "trials.jsonl").symlink_to(tmp_path / "victim.txt")
    r = run_in_process("optimize", "-i", TRAIN, "-o", tmp_path / "link", "--resume", "--budget", "1")
    assert r.returncode == 2 and b"not a regular file" in r.stderr
    assert (tmp_path / "victim.txt").read_text() == "keep me"
    # a carriage return inside a line (JSON white space) is no line end: nothing is cut, and the
    # search's trials, all in the log, are not run again
    (tmp_path / "cr").mkdir()
    log = (out / "trials.jsonl").read_bytes()
    spaced = log.replace(first, first.replace(b', "phase"', b',\r "phase"'), 1)
    assert spaced.count(b"\r") == 1
    (tmp_path / "cr" / "trials.jsonl").write_bytes(spaced)
    r = run_maltpy("optimize", "-i", TRAIN, "-o", tmp_path / "cr", "--resume", *SEARCH)
    assert r.returncode == 0, r.stderr.decode()
    resumed = (tmp_path / "cr" / "trials.jsonl").read_bytes()
    assert resumed == spaced  # no trial run again, no phase summed up again
    assert (tmp_path / "cr" / "config.yaml").read_text() == (out / "config.yaml").read_text()


def test_inputs_it_cannot_search_are_refused_before_any_trial(tmp_path):
    # after the first, by main in this process: a process's status and stderr, without a start each
    r = run_maltpy("optimize", "-i", "-", "-o", tmp_path / "o", input=TRAIN.read_bytes())
    assert r.returncode == 2 and r.stderr.decode().startswith("maltpy: error: <stdin>: standard input can be read ")
    one = tmp_path / "one.conllu"
    one.write_text(TRAIN.read_text().split("\n\n")[0] + "\n\n")
    r = run_in_process("optimize", "-i", one, "-o", tmp_path / "o1")
    assert r.returncode == 2 and b"at least 2 sentences" in r.stderr
    (tmp_path / "o2" / "config.yaml").mkdir(parents=True)
    r = run_in_process("optimize", "-i", TRAIN, "-o", tmp_path / "o2")
    assert r.returncode == 2 and b"is a directory" in r.stderr
    assert not (tmp_path / "o2" / "trials.jsonl").exists()
    for address in ("foo://bar", "tcp://127.0.0.1:notaport"):
        r = run_in_process("optimize", "-i", TRAIN, "-o", tmp_path / "o3", "--scheduler", address)
        assert r.returncode == 2 and r.stderr.decode().startswith("maltpy: error: command line: --scheduler"), address
        assert b"Traceback" not in r.stderr


@requires_shared
def test_the_budget_stops_a_trial_that_runs_past_it(tmp_path):
    """LIBSVM on half of en_lines takes far longer than the 6 seconds given: the running trials
    are stopped at the deadline, not waited for, and nothing is logged for them (a search that
    waited for them would log their scores; run_maltpy's timeout catches one that hangs)."""
    r = run_maltpy("optimize", "-i", DATA / "conllx" / "en_lines-ud-train.conllx", "-o", tmp_path / "o",
                   "-l", "libsvm", "--folds", "2", "--jobs", "2", "--budget", "0.1")  # fmt: skip
    assert r.returncode == 2 and b"no trial of the algorithms finished: a larger --budget" in r.stderr
    assert len((tmp_path / "o" / "trials.jsonl").read_text().splitlines()) == 1  # the header alone


@pytest.mark.parametrize("signum, status", [(signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_a_search_stopped_by_a_signal_leaves_no_temporary_folder(tmp_path, signum, status):
    scratch = tmp_path / "tmp"  # the search's TMPDIR
    scratch.mkdir()
    process = subprocess.Popen([sys.executable, "-m", "maltpy", "optimize", "-i", TRAIN, "-o", tmp_path / "o",
                                "--jobs", "2", "--budget", "5"], stderr=subprocess.PIPE,
                               env={**os.environ, "TMPDIR": str(scratch)}, preexec_fn=as_from_a_terminal)  # fmt: skip
    deadline = time.monotonic() + 120
    while not any(scratch.rglob("features.txt")) and time.monotonic() < deadline:  # trials are running
        assert process.poll() is None, process.stderr.read()
        time.sleep(0.02)
    process.send_signal(signum)
    _, err = process.communicate(timeout=120)
    assert process.returncode == status, err
    assert list(scratch.rglob("*")) == []


def test_a_trial_log_that_cannot_be_written_is_named(tmp_path):
    """Files of at most 4 kB (a full disk, as `ulimit -f` makes it): the log's first trials fit, a
    later one does not."""

    def small_files() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails, as on a full disk
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))

    r = subprocess.run([sys.executable, "-m", "maltpy", "optimize", "-i", TRAIN, "-o", tmp_path / "o", "-q",
                        "--jobs", "2"], capture_output=True, preexec_fn=small_files, timeout=300)  # fmt: skip
    assert_one_line_error(r, f"{tmp_path / 'o' / 'trials.jsonl'}: cannot write: File too large")


def test_jobs_beyond_the_cores_are_lowered_with_one_warning(tmp_path):
    (tmp_path / "file").write_text("")
    r = run_maltpy("optimize", "-i", TRAIN, "-o", tmp_path / "file", "--jobs", "256")  # stops after the warning
    warning, error = r.stderr.decode().splitlines()
    assert re.fullmatch(r"maltpy: warning: --jobs 256 lowered to [0-9]+: .*(cores?|memory).*", warning), warning
    assert error.startswith("maltpy: error: ") and r.returncode == 2
    quiet = run_maltpy("optimize", "-i", TRAIN, "-o", tmp_path / "file", "--jobs", "256", "-q")
    assert_one_line_error(quiet, f"{tmp_path / 'file'}: is not a folder")


@pytest.mark.parametrize("algorithm", list(SYSTEMS))
def test_each_root_option_is_its_flag_as_the_command_line_reads_it(algorithm):
    # MaltOptimizer's phase 2 tries each system's root_options by their flags: the change a
    # trial makes is the one its flag names on the command line, and not the default
    base = _base_setting(algorithm, "liblinear", "conllx")
    options = SYSTEMS[algorithm].root_options
    for flag, groups in options:
        name, text = flag.removeprefix("-").split(" ")
        group, key = FLAGS[name]
        field = group.replace("2planar", "twoplanar")
        tried = getattr(getattr(config_from_dict(base.changed(**groups).groups, "trial"), field), key)
        given = load_config(None, {("singlemalt", "parsing_algorithm"): algorithm, (group, key): text})
        assert tried == getattr(getattr(given, field), key), flag
        assert tried != getattr(getattr(default_config(), field), key), flag
    assert [flag for flag, _ in root_options(base)][: len(options)] == [flag for flag, _ in options]
    assert (algorithm.startswith("stack")) == (not options)


def test_an_mst_setting_is_a_configuration_without_features(tmp_path):
    from maltpy.optimize import config_text
    from maltpy.optimize.trials import Setting

    setting = Setting.make({"singlemalt": {"parsing_algorithm": "mst"}, "mst": {"decode_type": "non-proj", "order": 2},
                            "input": {"format": "conllu"}}, ())  # fmt: skip
    path = tmp_path / "config.yaml"
    path.write_text(config_text(setting, "features.txt"), encoding="utf-8")
    config = load_config(str(path))
    assert config.singlemalt.parsing_algorithm == "mst" and config.guide.features is None
    assert (config.mst.order, config.mst.decode_type) == (2, "non-proj")
    assert [name for name, _ in root_options(setting)] == ["-mo 2"]


#: The first 60 sentences of la_perseus (Latin; 47% of them non-projective), scored on 2 folds:
#: MST on its own features wins phase 2 (33.33 against covproj's 32.37 with its encoding and
#: root options), and phase 3's LEMMA and FEATS take the transition-based setting past it (41.06).
MST_AHEAD_SENTENCES = 60


@pytest.fixture(scope="module")
def mst_ahead(tmp_path_factory):
    """A search (one round, no blend) of a treebank where MST wins phase 2: its folder and result."""
    folder = tmp_path_factory.mktemp("mst-ahead")
    sentences = (DATA / "conllx" / "la_perseus-ud-train.conllx").read_text(encoding="utf-8").split("\n\n")
    train = folder / "la60.conllx"
    train.write_text("\n\n".join(sentences[:MST_AHEAD_SENTENCES]) + "\n\n", encoding="utf-8")
    best, _, _ = optimize(str(train), str(folder / "opt"), folds=2, rounds=1, budget=10, jobs=2, blend=False)
    return train, folder / "opt", best


def _algorithm(record: dict) -> str:
    return record["config"]["singlemalt"]["parsing_algorithm"]


@requires_shared
def test_where_mst_wins_phase_2_phases_3_and_4_still_tune_the_transition_based_setting(mst_ahead):
    """Issue 44, item 12: MST's default features winning phase 2 must not end the search there
    (phases 3 and 4 cannot tune MST): they tune the best transition-based setting, and the search
    ends with the better of the two on the same held-out words."""
    train, out, best = mst_ahead
    logged = trials(out)
    assert all(t["words"] == 621 for t in logged)  # 2 folds: every word scored once, by every trial
    ends = {r["phase_end"]: r for r in records(out) if "phase_end" in r}
    assert list(ends) == ["2 algorithm", "3 features", "4 learner"]
    first = [t for t in logged if t["phase"] == "2 algorithm"]
    leader = max(first, key=lambda t: t["las"])
    assert _algorithm(leader) == "mst" and ends["2 algorithm"]["las"] == leader["las"]
    carried = max((t for t in first if _algorithm(t) in SYSTEMS), key=lambda t: t["las"])
    assert ends["2 algorithm"]["transition_las"] == carried["las"] < leader["las"]
    assert "for phases 3 and 4: " in ends["2 algorithm"]["kept"][-1]
    for phase in ("3 features", "4 learner"):
        tuned = [t for t in logged if t["phase"] == phase]
        assert tuned and {_algorithm(t) for t in tuned} == {_algorithm(carried)}, phase
    assert ends["3 features"]["kept"]
    # the end: the best of both, here the tuned transition-based setting, as config.yaml says
    top = max(t["las"] for t in logged)
    assert best.las == top == ends["4 learner"]["las"] > leader["las"]
    config = load_config(str(out / "config.yaml"))
    assert config.singlemalt.parsing_algorithm == best.setting.algorithm == _algorithm(carried)
    assert f"LAS {top:.2f}" in (out / "config.yaml").read_text()
    lines = [x for x in (out / "features.txt").read_text().splitlines() if not x.startswith("#")]
    assert tuple(lines) == best.setting.features
    # resumed from its whole log, the search runs no trial again and ends the same
    again = out.parent / "resumed"
    again.mkdir()
    (again / "trials.jsonl").write_bytes((out / "trials.jsonl").read_bytes())
    resumed, _, _ = optimize(str(train), str(again), folds=2, rounds=1, budget=10, jobs=1, blend=False,
                             resume=True)  # fmt: skip
    assert (again / "trials.jsonl").read_bytes() == (out / "trials.jsonl").read_bytes()
    assert (again / "config.yaml").read_text() == (out / "config.yaml").read_text() and resumed.las == best.las


@requires_shared
def test_a_resumed_phase_that_runs_trials_the_log_lacks_is_summed_up_again(mst_ahead, tmp_path):
    """A log whose phase 3 summary came before some of the phase's trials (a search cut by its
    budget and resumed with a larger one; a search of the time when MST's win ended phase 3 with
    no trial): resumed, the phase runs them and is summed up again, the last summary its own."""
    train, out, best = mst_ahead
    lines = (out / "trials.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    last = [i for i, x in enumerate(lines) if json.loads(x).get("phase") == "3 features"][-3:]
    (tmp_path / "trials.jsonl").write_text("".join(x for i, x in enumerate(lines) if i not in last), encoding="utf-8")
    resumed, _, _ = optimize(str(train), str(tmp_path), folds=2, rounds=1, budget=10, jobs=1, blend=False,
                             resume=True)  # fmt: skip
    ends = [r for r in records(tmp_path) if r.get("phase_end") == "3 features"]
    (first,) = [r for r in records(out) if r.get("phase_end") == "3 features"]
    assert len(ends) == 2 and ends[-1]["las"] == first["las"] and ends[-1]["kept"] == first["kept"]
    assert ends[-1]["trials"] == first["trials"]  # those of the log and the three run again
    assert sorted(t["key"] for t in trials(tmp_path)) == sorted(t["key"] for t in trials(out))
    assert (tmp_path / "config.yaml").read_text() == (out / "config.yaml").read_text() and resumed.las == best.las


@requires_shared
def test_where_mst_leads_the_blend_takes_the_tuned_transition_based_setting(mst_ahead):
    """Phase 5's own members where MST is the best: MST (one way), then the transition-based
    setting as phases 3 and 4 tuned it (not its phase 2 default), both ways."""
    from maltpy.optimize.blending import blend_members
    from maltpy.optimize.trials import Result, Setting

    _, out, tuned = mst_ahead
    logged = trials(out)
    leader = max((t for t in logged if t["phase"] == "2 algorithm"), key=lambda t: t["las"])
    mst = Result(Setting.make(leader["config"], leader["features"]), leader["las"])
    assert mst.setting.algorithm == "mst" and tuned.setting.features != ()
    backward = tuned.setting.changed(singlemalt={"parsing_direction": "right-to-left"})
    assert blend_members(mst, tuned) == [mst.setting, tuned.setting, backward]
