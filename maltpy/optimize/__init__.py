"""``maltpy optimize``: MaltOptimizer's search over a treebank, built in.

MaltOptimizer (Ballesteros and Nivre 2012, "MaltOptimizer: A System for MaltParser Optimization",
LREC) tunes MaltParser for a treebank in phases, each keeping the best of the one before:

1. Data analysis: size, non-projectivity, which columns carry information, the root labels;
   from these, the algorithms to try, the pseudo-projective encodings and how to score.
2. The parsing algorithm: every candidate with its default feature model, the pseudo-projective
   encodings of Nivre and Nilsson (2005) for the projective ones, then the root options; beyond
   MaltOptimizer, first-order MST (McDonald et al. 2005), and second order where it leads.
3. The feature model: backward elimination over the default model, then forward selection over
   the groups of ``feature_groups`` (MaltParser's feature language); a change is kept only when it
   gains at least ``threshold`` LAS points.
4. The learner: LIBLINEAR's C (LIBSVM's C and gamma) on a small grid.
5. Beyond MaltOptimizer: a blend of the best configuration, both ways, with ``maltpy blend``'s
   default members (Hall et al. 2007; ``blending``), kept if it scores higher. Its time is kept
   from phases 3 and 4 once phase 2 has timed the trials.

Phases 3 and 4 tune MaltParser's feature language and learners, which MST has neither of: the
search carries the best transition-based setting through them (``Track``) even where MST wins
phase 2 on its default features (most of the search's gain is phase 3's), and each phase ends
with the better of the two on the same held-out words; phase 5 blends both.

A trial learns a parser on the training part and scores LAS (punctuation included, as
MaltParser's evaluation) on the held-out part: the dev file (``-d``), K folds of the training
file (``--folds``), or by default a seeded 80/20 split of it, or 5 folds when it is small.
Trials are independent processes (``--jobs``, or a Dask cluster's workers); the decisions are
taken in a fixed order from the scores alone, so a search is the same for a seed whatever the
number of jobs, and ``--resume`` replays a search from its trial log without running again the
trials it holds.

Out: ``OUT_DIR/config.yaml`` and ``OUT_DIR/features.txt`` (what ``maltpy learn -c`` takes), and
with a blend kept ``OUT_DIR/blend.yaml`` and its members in ``OUT_DIR/blend/`` (``maltpy blend -c``);
rewritten after every phase, so that a search cut short leaves its best so far; and the trial log
``OUT_DIR/trials.jsonl``, one JSON object per line: first the search's inputs and data analysis,
then one per trial as it ends (``key``, ``phase``, ``what`` it changed, ``las``, ``correct``,
``words``, ``seconds``, ``error``, ``config``, ``features``), and one per phase as it ends
(``phase_end``, ``las``, ``start_las``, ``trials``, ``seconds``, ``kept``, and ``transition_las``, the
tuned transition-based setting's, where MST is ahead of it).

The package: ``analysis`` (phase 1), ``candidates`` (phase 3's feature space), ``trials`` (a
setting and its trial), ``search`` (the trials run on ``processes.Tasks``'s workers or a Dask cluster,
within the budget), ``log`` (the trial log); the phases and the command here.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import yaml

from ..config import OPTIMIZE_ROUNDS as ROUNDS
from ..config import OPTIMIZE_THRESHOLD as THRESHOLD
from ..config import UD_PROFILES, decided_profile
from ..data.conll import Sentence
from ..errors import MaltpyError, counted
from ..features import has_default_model
from ..files import atomic_output, check_output_path, check_rereadable, make_folder
from ..graph import is_graph_based
from ..learners import LEARNERS
from ..transition import SYSTEMS
from .analysis import Analysis, analyse
from .blending import PHASE as PHASE_BLEND
from .blending import blend_splits, blend_tasks, phase_blend
from .candidates import default_features, feature_groups, varying, wider_groups
from .log import TrialLog, read_log
from .search import PhaseSummary, Runner, Search, signals_held
from .trials import HOLDOUT, Data, Result, Setting, file_digest, read_sentences, splits_of

LOG_VERSION = 1
#: Below this many training tokens, a search without -d or --folds scores by 5-fold cross-validation:
#: a fifth of a small treebank is too few words to tell settings apart (da_ddt's dev file has 10,000).
SMALL_TREEBANK = 30_000
SMALL_FOLDS = 5
#: Phase 2 takes the best algorithm and root options: any gain counts (a tie keeps the default).
ROOT_GAIN = 0.0001
MARKINGS = ("head", "path", "head+path", "baseline")
#: how phase 2 names MaltParser's default when the search starts from the ud profile's models
BASELINE_FEATURES = "with MaltParser's default features"
LIBLINEAR_C = (0.01, 0.025, 0.05, 0.1, 0.2, 0.4, 0.8)
LIBSVM_C = (0.25, 0.5, 1.0, 2.0)
LIBSVM_GAMMA = (0.1, 0.2, 0.4)


# --- the phases --------------------------------------------------------------------------------


def _base_setting(algorithm: str, learner: str, data_format: str, folder: str | None = None) -> Setting:
    """The algorithm with its default feature model: MaltParser's for the format, or the one in
    the defaults' ``folder`` (ud: the ud profile's, where the algorithm has one)."""
    options = {
        "singlemalt": {"parsing_algorithm": algorithm},
        "guide": {"learner": learner},
        "lib": {"options": {flag: spec.default for flag, spec in LEARNERS[learner].options.items() if flag != "w"}},
        "input": {"format": data_format},
    }
    return Setting.make(options, default_features(algorithm, learner, data_format, folder))


def _maltparser_default(learner: str, data_format: str) -> Setting:
    """MaltParser's default, the summary's baseline: nivreeager with its default features."""
    return _base_setting("nivreeager", learner, data_format)


def features_folder(profile: str, data_format: str, learner: str) -> str | None:
    """Where phase 2's default feature models come from under ``profile`` (as ``maltpy learn``
    decides, ``config.with_profile``): the ud profile's folder for a CoNLL-U treebank searched
    under auto or ud, so that the search starts where plain learn does; None: MaltParser's."""
    if decided_profile(profile, None, data_format) not in UD_PROFILES:
        return None
    return "ud" if any(has_default_model(learner, "ud", a) for a in SYSTEMS) else None


@dataclass(frozen=True)
class Track:
    """What the search carries from phase to phase: the best transition-based result, which
    phases 3 and 4 tune, and the best graph-based one of phase 2 (MST, whose features they do not
    tune). ``best`` compares them on the same held-out words; a tie goes to the transition-based
    one, as phase 2's order gives it."""

    transition: Result | None
    graph: Result | None

    @property
    def best(self) -> Result:
        """The better of the two (phase 2 leaves at least one); of equals, the transition-based."""
        return max((r for r in (self.transition, self.graph) if r is not None), key=lambda r: r.las)

    @property
    def runner_up(self) -> Result | None:
        """The transition-based result where the graph-based one is best (phase 5 blends it)."""
        best = self.best
        return self.transition if best is not self.transition else None


def phase_algorithm(search: Search, analysis: Analysis, learner: str,
                    folder: str | None = None) -> tuple[Track, list[str]]:  # fmt: skip
    """Phase 2: the algorithms with their default features; the pseudo-projective encodings for
    the two best projective ones (where the data have non-projective arcs); the root options of
    the best transition-based setting, and second order for MST where it leads. The best of each
    family goes on: MST's features are not tuned by phases 3 and 4, so a graph-based setting that
    wins here on default features must not end the tuning of the transition-based one."""
    algorithms = analysis.algorithms()
    graph = graph_settings(analysis)
    settings = [_base_setting(a, learner, analysis.format, folder) for a in algorithms] + [s for _, s in graph]
    names = [*algorithms, *(name for name, _ in graph)]
    baseline = _maltparser_default(learner, analysis.format)
    if baseline not in settings:  # MaltParser's default, the summary's baseline, is a candidate too
        settings.append(baseline)
        names.append(f"nivreeager {BASELINE_FEATURES}")
    results = search.evaluate(settings, names)
    scored = [r for r in results if r.las is not None]
    if not scored:
        failed = next((r.error for r in results if r.error is not None), None)
        if failed is not None:
            raise MaltpyError(f"every trial of the algorithms failed; the first: {failed}", "maltpy optimize")
        raise MaltpyError("no trial of the algorithms finished: a larger --budget is needed", "maltpy optimize")
    # max keeps the first of equals: the list's order
    transition = max((r for r in scored if not is_graph_based(r.setting.algorithm)), key=lambda r: r.las, default=None)
    graph_best = max((r for r in scored if is_graph_based(r.setting.algorithm)), key=lambda r: r.las, default=None)
    notes = [f"{Track(transition, graph_best).best.setting.algorithm} of {len(scored)} algorithms"]
    kept: list[str] = []
    if transition is not None:
        if analysis.nonprojective_arcs:
            projective = sorted((r for r in scored if not is_graph_based(r.setting.algorithm)
                                 and SYSTEMS[r.setting.algorithm].projective), key=lambda r: -r.las)[:2]  # fmt: skip
            lifted = [r.setting.changed(pproj={"marking_strategy": m}) for r in projective for m in MARKINGS]
            names = [f"{r.setting.algorithm} -pp {m}" for r in projective for m in MARKINGS]
            for r, name in zip(search.evaluate(lifted, names), names):
                if r.las is not None and r.las > transition.las:
                    transition, kept = r, [name]
        transition, chosen = search.greedy(transition, root_options(transition.setting), ROOT_GAIN)
        kept += chosen
        if "pproj" in transition.setting.groups:  # covered roots: three alternatives
            covered = [(f"-pcr {c}", transition.setting.changed(pproj={"covered_root": c}))
                       for c in ("left", "right", "head")]  # fmt: skip
            transition, chosen = search.best_of(transition, covered, ROOT_GAIN)
            kept += chosen
    track = Track(transition, graph_best)
    if graph_best is not None and track.best is graph_best:  # second order, where MST leads
        graph_best, chosen = search.greedy(graph_best, root_options(graph_best.setting), ROOT_GAIN)
        track = Track(transition, graph_best)
        if transition is not None:  # what phases 3 and 4 start from
            chosen.append(f"for phases 3 and 4: {'; '.join(kept) or transition.setting.algorithm}")
        return track, notes + chosen
    return track, notes + kept


def graph_settings(analysis: Analysis) -> list[tuple[str, Setting]]:
    """Phase 2's graph-based candidates (maltpy's, beside MaltOptimizer's algorithms): first-order
    MST, projective, and where the data have non-projective arcs non-projective too."""
    decodes = ("proj", "non-proj") if analysis.nonprojective_arcs else ("proj",)
    return [(f"mst -mdt {d}", Setting.make({"singlemalt": {"parsing_algorithm": "mst"}, "mst": {"decode_type": d},
                                            "input": {"format": analysis.format}}, ())) for d in decodes]  # fmt: skip


def root_options(setting: Setting) -> list[tuple[str, Callable[[Setting], Setting]]]:
    """The options MaltOptimizer tries after choosing the algorithm: its system's
    (``root_options``: how the root takes its dependents, REDUCE and SHIFT), and for a
    pseudo-projective encoding its lifting order; for MST, second order."""
    if is_graph_based(setting.algorithm):
        return [("-mo 2", lambda s: s.changed(mst={"order": 2}))]
    changes: list[tuple[str, Callable[[Setting], Setting]]] = [
        (flag, lambda s, groups=groups: s.changed(**groups)) for flag, groups in SYSTEMS[setting.algorithm].root_options
    ]
    if "pproj" in setting.groups:
        changes.append(("-plo deepest", lambda s: s.changed(pproj={"lifting_order": "deepest"})))
    return changes


def phase_features(search: Search, best: Result, analysis: Analysis, sentences: Sequence[Sentence],
                   round_: int = 1) -> tuple[Result, list[str]]:  # fmt: skip
    """Phase 3, on the transition-based track (MSTParser's features are not MaltParser's feature
    language): backward elimination over the model's features, then forward selection group by
    group (``feature_groups``), each change kept when it gains ``search.threshold``. A later round
    (the budget allowing) has no backward step and tries ``wider_groups`` too."""
    kept: list[str] = []
    if round_ == 1:
        removals = [(f"- {line}", lambda s, line=line: s.with_features(x for x in s.features if x != line))
                    for line in best.setting.features]  # fmt: skip
        best, kept = search.greedy(best, removals, search.threshold)
    groups = feature_groups(best.setting.algorithm, analysis)
    if round_ > 1:
        groups += wider_groups(best.setting.algorithm, analysis)
    useful = varying([c for _, group in groups for c in group], best.setting, sentences, analysis.format)
    for _, candidates in groups:
        if search.out_of_time:
            break
        new = [c for c in candidates if c not in best.setting.features and c in useful]
        additions = [(f"+ {line}", lambda s, line=line: s.with_features(s.features + (line,))) for line in new]
        best, names = search.greedy(best, additions, search.threshold)
        kept += names
    return best, kept


def phase_learner(search: Search, best: Result, analysis: Analysis) -> tuple[Result, list[str]]:
    """Phase 4, on the transition-based track (MIRA has no learner options): for LIBSVM, first
    the data split MaltParser's LIBSVM models use (one classifier per part of speech of the next
    input word, -T 1000); then the learner's cost C (and LIBSVM's gamma) on a grid around the
    defaults."""
    kept: list[str] = []
    learner = best.setting.groups["guide"]["learner"]
    if learner == "libsvm":
        column, address = analysis.tag, split_address(best.setting.algorithm)
        split = best.setting.changed(
            guide={"data_split_column": column, "data_split_structure": address, "data_split_threshold": 1000}
        )
        name = f"-d {column} -s {address} -T 1000"
        result = search.evaluate([split], [name])[0]
        if search.better(result, best, search.threshold):
            best, kept = result, [name]
    options = best.setting.groups["lib"]["options"]
    if learner == "liblinear":
        grid = [{"c": c} for c in LIBLINEAR_C if c != options["c"]]
    else:
        grid = [{"c": c, "g": g} for c in LIBSVM_C for g in LIBSVM_GAMMA if (c, g) != (options["c"], options["g"])]
    alternatives = [(" ".join(f"-{k} {v}" for k, v in values.items()),
                     best.setting.changed(lib={"options": {**options, **values}})) for values in grid]  # fmt: skip
    best, chosen = search.best_of(best, alternatives, search.threshold)
    return best, kept + chosen


def split_address(algorithm: str) -> str:
    """The address of the data split: the next input word (MaltParser's -s for each family)."""
    return SYSTEMS[algorithm].split_address


# --- output ------------------------------------------------------------------------------------


def config_text(setting: Setting, features: str, comments: Sequence[str] = ()) -> str:
    """The configuration file of ``setting``, its feature model in the file ``features`` (beside
    it), for ``maltpy learn -c``; ``comments`` first."""
    groups = setting.groups
    groups.pop("input", None)  # the format is the input's own when learning again
    if not is_graph_based(setting.algorithm):  # an MST setting has no feature model and no learner
        groups.setdefault("guide", {})["features"] = features
        options = groups["lib"]["options"]
        learner = groups["guide"]["learner"]
        groups["lib"]["options"] = " ".join(f"-{f} {options[f]:g}" for f in LEARNERS[learner].options if f in options)
    order = ("singlemalt", "guide", "lib")
    groups = {name: groups[name] for name in sorted(groups, key=lambda g: (order + (g,)).index(g))}
    return "".join(f"# {line}\n" for line in comments) + yaml.safe_dump(groups, sort_keys=False,
                                                                        default_flow_style=False)  # fmt: skip


def write_outputs(out_dir: str, track: Track, header: dict, summary: list[PhaseSummary]) -> None:
    """config.yaml and features.txt of the track's best for ``maltpy learn -c``, each written
    whole or not at all."""
    where = header["scoring"]
    best, tuned = track.best, track.runner_up
    comments = [
        f"maltpy optimize: LAS {best.las:.2f} on {where} (seed {header['seed']}), parsed with {_tags_said(header)}.",
        "Phases: " + "; ".join(f"{p.name} {p.end_las:.2f}" for p in summary if p.end_las is not None) + ".",
    ]
    if tuned is not None:
        comments.append(f"The best transition-based configuration, tuned by phases 3 and 4: {tuned.setting.algorithm}, "
                        f"LAS {tuned.las:.2f} (in trials.jsonl).")  # fmt: skip
    # the parser learns as it was scored: on tags jackknifed in K folds (the taggers learn anyway)
    setting = best.setting.changed(tagger={"jackknife": header["jackknife"]}) if header["jackknife"] else best.setting
    text = config_text(setting, "features.txt", [
        *comments, "Trial log: trials.jsonl. Use: maltpy learn -c THIS -i TRAIN -m MODEL",
    ])  # fmt: skip
    features = (f"# Feature model chosen by maltpy optimize for {best.setting.algorithm} (LAS {best.las:.2f} on "
                f"{where}).\n" + "".join(line + "\n" for line in best.setting.features))  # fmt: skip
    with signals_held():  # the two files change together or not at all
        if best.setting.features:  # MST has none
            with atomic_output(os.path.join(out_dir, "features.txt")) as out:
                out.write(features.encode("utf-8"))
        with atomic_output(os.path.join(out_dir, "config.yaml")) as out:
            out.write(text.encode("utf-8"))


def _tags_said(header: dict) -> str:
    """The tags the held-out parts are parsed with, and the training parts', as said to the user."""
    if header["tags"] == "gold":
        return "their own tags"
    folds = header["jackknife"]
    jackknifed = f", the parser learning on tags jackknifed in {folds} folds" if folds else ""
    return f"the tags of taggers learned on the rest{jackknifed}"


def _check_jackknife(folds: int, tags: str, splits: list, train: str) -> None:
    """``-tj folds`` asks for --tags own and training parts of at least ``folds`` sentences."""
    if tags != "own":
        raise MaltpyError("jackknifed tags (-tj) are the tags of --tags own", "command line")
    fewest = min(len(split.train) for split in splits)
    if folds > fewest:
        raise MaltpyError(f"-tj {folds}: a training part has only {fewest} sentences to jackknife", train)


def summary_table(summary: list[PhaseSummary], baseline: Result | None, best: Result) -> str:
    rows = [("phase", "trials", "time", "LAS", "gain", "kept")]
    for p in summary:
        gain = "" if p.end_las is None or p.start_las is None else f"{p.end_las - p.start_las:+.2f}"
        las = "" if p.end_las is None else f"{p.end_las:.2f}"
        kept = "; ".join(p.changes[:4]) + (f"; ... ({len(p.changes)} in all)" if len(p.changes) > 4 else "")
        if p.transition_las is not None:
            kept += f"{'; ' if kept else ''}(transition-based: {p.transition_las:.2f})"
        rows.append((p.name, str(p.trials), f"{p.seconds / 60:.1f} min", las, gain, kept))
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    out = ["  ".join(c.ljust(w) for c, w in zip(r[:5], widths)) + "  " + r[5] for r in rows]
    if baseline is not None and baseline.las is not None:
        learner = baseline.setting.groups["guide"]["learner"]
        out.append(f"MaltParser's default (nivreeager, its default features, {learner}): {baseline.las:.2f}; "
                   f"optimized: {best.las:.2f} ({best.las - baseline.las:+.2f})")  # fmt: skip
    return "\n".join(out)


# --- the command -------------------------------------------------------------------------------


def optimize(train: str, out_dir: str, dev: str | None = None, folds: int | None = None, budget: float = 60.0,
             jobs: int = 1, seed: int = 1, resume: bool = False, threshold: float = THRESHOLD,
             learner: str = "liblinear", scheduler: str | None = None, data_format: str = "auto", rounds: int = ROUNDS,
             say: Callable[[str], None] | None = None, progress: Callable[[Search], None] | None = None,
             blend: bool = True, *, tags: str = "gold", jackknife: int = 0, profile: str = "auto",
             ) -> tuple[Result, list[PhaseSummary], Result | None]:  # fmt: skip
    """Run the four phases on ``train`` and write the best configuration to ``out_dir``, then
    (``blend``) phase 5, the blend of what they found (blending.py); see the module's text.
    ``budget`` in minutes bounds the whole search: no trial starts that the slowest recent one
    says would end after it; with ``blend``, the time phase 5 is expected to take
    (``blending.blend_tasks``, from phase 2's trials) is kept from phases 3 and 4. ``tags``: the
    held-out parts are parsed with their own tags (gold) or with those of taggers learned on the
    training part (own; ``jackknife`` K: the parser learns on the training part's tags predicted
    in K folds, and config.yaml says so), as the model will parse (``trials.tag_splits``).
    ``profile``: phase 2's default feature models, as ``maltpy learn -P`` (auto: the ud profile's
    for a CoNLL-U treebank)."""
    say = say or (lambda message: None)
    started = time.monotonic()
    deadline = started + 60 * budget
    if dev is not None and folds is not None:
        raise MaltpyError("-d and --folds exclude each other", "command line")
    for path in (train, dev):
        if path is not None:
            check_rereadable(path, "a search")
    if not out_dir:
        raise MaltpyError("the output folder's name is empty", "command line")
    sentences, fmt = read_sentences(train, data_format)
    if dev is not None:
        read_sentences(dev, fmt)  # its errors now, not in every trial
    elif len(sentences) < 2:
        raise MaltpyError("a search needs at least 2 sentences, to learn on some and score the others", train)
    analysis = analyse(sentences, fmt)
    n_folds, scoring = _scoring(train, dev, folds, len(sentences), analysis)
    if jackknife:
        _check_jackknife(jackknife, tags, splits_of(sentences, [] if dev else None, n_folds, seed, fmt), train)
    header = {
        "log": LOG_VERSION, "train": os.path.abspath(train), "train_sha256": file_digest(train),
        "dev": os.path.abspath(dev) if dev else None, "dev_sha256": file_digest(dev) if dev else None,
        "scoring": scoring, "seed": seed, "learner": learner, "tags": tags, "jackknife": jackknife,
        "analysis": analysis.as_dict(),
    }  # fmt: skip
    folder = features_folder(profile, fmt, learner)
    make_folder(out_dir, "output folder")
    for name in ("config.yaml", "features.txt"):
        check_output_path(os.path.join(out_dir, name), (train, dev))
    log_path = os.path.join(out_dir, "trials.jsonl")
    cache: dict[str, dict] = {}
    summarized: set[str] = set()  # the phases the log sums up already
    if os.path.lexists(log_path):
        if not resume:
            raise MaltpyError("holds the trial log of a search: --resume continues it, or choose another -o", log_path)
        cache, summarized = read_log(log_path, header)
    runner = Runner(jobs, scheduler)
    say("phase 1, data analysis: " + "; ".join(analysis.describe()))
    split = f" (phase 4 tries -d {analysis.tag} -T 1000)" if learner == "libsvm" else " (one model, no data split)"
    data = Data(header["train"], header["train_sha256"], header["dev"], header["dev_sha256"], n_folds, seed, fmt,
                tags, jackknife)  # fmt: skip
    say(f"learner {learner}{split}; scoring by LAS on {scoring}, parsed with {_tags_said(header)}; phase 2 from "
        f"{'the ud profile' if folder else 'MaltParser'}'s default features; budget {budget:g} min, "
        f"{counted(runner.jobs, 'job')}")  # fmt: skip
    try:
        with TrialLog(log_path, append=bool(cache)) as log:
            if not cache:
                log.write(header)
            search = Search(data, n_folds, runner, deadline, log, cache, threshold, progress)
            track, summary, baseline = _phases_and_blend(
                search, lambda keep: _run_phases(search, analysis, sentences, learner, rounds, out_dir, header, say,
                                                 summarized, folder, keep),
                blend and PHASE_BLEND not in summarized, folder == "ud", out_dir, say)  # fmt: skip
            best = track.best
    except BaseException:
        runner.stop()  # a signal, an error: the trials running are killed, not waited for
        raise
    runner.close()
    failed = [r for r in search.failures if r.error is not None]
    if failed:
        say(f"{counted(len(failed), 'trial')} failed (see their 'error' in trials.jsonl), the first: {failed[0].error}")
    return best, summary, baseline


def _phases_and_blend(search: Search, run: Callable, blend: bool, ud: bool, out_dir: str,
                      say: Callable[[str], None]) -> tuple[Track, list[PhaseSummary], Result | None]:  # fmt: skip
    """``run`` (phases 2 to 4, given what to keep for phase 5: ``_run_phases``'s ``keep``), then
    with ``blend`` phase 5, the time it is expected to take kept from phase 2 on
    (``Search.reserve``); what ``run`` returns, phase 5's summary added."""
    splits = 0  # how many splits phase 5 blends on, as keep_for_blend decides it

    def keep_for_blend(t: Track) -> float:
        nonlocal splits
        splits = blend_splits(search, t.best, t.runner_up, ud)
        return search.reserve(blend_tasks(search, t.best, t.runner_up, ud, splits), jobs=1) if splits else 0.0

    track, summary, baseline = run(keep_for_blend if blend else None)
    kept = search.release()
    if blend:
        search.phase = PHASE_BLEND
        phase = phase_blend(search, track.best, out_dir, config_text, say, track.runner_up, ud, kept > 0, splits)
        if phase is not None:
            summary.append(phase)
    return track, summary, baseline


def _scoring(train: str, dev: str | None, folds: int | None, n_sentences: int, analysis: Analysis) -> tuple[int, str]:
    """How trials are scored: the number of folds (1: the dev file, or a holdout of the training
    file) and its description."""
    if dev is not None:
        return 1, f"the dev file {os.path.basename(dev)}"
    if folds is not None:
        if folds > n_sentences:
            raise MaltpyError(f"--folds {folds}: the treebank has only {n_sentences} sentences", train)
        return folds, f"{folds}-fold cross-validation on {os.path.basename(train)}"
    if analysis.tokens < SMALL_TREEBANK and n_sentences >= SMALL_FOLDS:
        return SMALL_FOLDS, f"{SMALL_FOLDS}-fold cross-validation on {os.path.basename(train)}"
    return 1, f"a held-out {round(100 * HOLDOUT)}% of {os.path.basename(train)}"


def _run_phases(search: Search, analysis: Analysis, sentences: Sequence[Sentence], learner: str, rounds: int,
                out_dir: str, header: dict, say: Callable[[str], None], summarized: set[str],
                folder: str | None = None, keep: Callable[[Track], float] | None = None,
                ) -> tuple[Track, list[PhaseSummary], Result | None]:  # fmt: skip
    """Phases 2 to 4, then 3 and 4 again while a round keeps a change and the budget lasts; the
    track (the best of each family: its ``best`` is the search's), each phase's summary, and
    MaltParser's default's result (the baseline). ``keep``, called once phase 2 has timed its
    trials, keeps the seconds it returns from the budget of phases 3 and 4: for phase 5's blend,
    whose gain on test files is larger than theirs, which is within the files' noise (README,
    taggers: the searches with their own tags). Phases 3 and 4 tune the transition-based
    result, and each phase ends with the better of it and phase 2's graph-based one, both scored
    on the same held-out words. The log gets the summary of each phase it does not have
    (``summarized``: a resumed search's), and again of one that ran trials it did not have (a
    search resumed with a larger budget; the last summary of a phase is its own)."""
    summary: list[PhaseSummary] = []
    track: Track | None = None
    baseline: Result | None = None
    phases: list[tuple[str, Callable[[Result], tuple[Result, list[str]]] | None]] = [
        ("2 algorithm", None),  # phase_algorithm, which makes the track
        ("3 features", lambda b: phase_features(search, b, analysis, sentences)),
        ("4 learner", lambda b: phase_learner(search, b, analysis)),
    ]
    round_ = 1
    while phases:
        name, run = phases.pop(0)
        if search.out_of_time and track is not None:
            spent = "the budget left beside phase 5's share" if search.reserved else "the budget"
            say(f"phase {name}: skipped, {spent} is spent")
            break
        search.phase = name
        phase = PhaseSummary(name, start_las=track.best.las if track else None)
        trials, clock, logged = search.trials, time.monotonic(), len(search.cache)
        if run is None or track is None:
            track, phase.changes = phase_algorithm(search, analysis, learner, folder)
            kept = keep(track) if keep is not None else 0.0
            if kept:
                say(f"phase 5 keeps {kept / 60:.1f} min of the budget for its blend")
            default = _maltparser_default(learner, search.data.data_format)
            record = search.cache.get(default.key())
            baseline = Result(default, record["las"]) if record is not None else None
            phase.start_las = baseline.las if baseline is not None else None
        elif track.transition is not None:
            transition, phase.changes = run(track.transition)
            track = Track(transition, track.graph)
        best = track.best
        phase.trials, phase.seconds, phase.end_las = search.trials - trials, time.monotonic() - clock, best.las
        tuned = track.runner_up
        phase.transition_las = tuned.las if tuned is not None else None
        summary.append(phase)
        if name not in summarized or len(search.cache) > logged:  # a resumed phase that ran further
            end = {"phase_end": name, "las": best.las, "start_las": phase.start_las, "trials": phase.trials,
                   "seconds": round(phase.seconds, 1), "kept": phase.changes}  # fmt: skip
            if tuned is not None:
                end["transition_las"] = tuned.las
            search.log.write(end)
        write_outputs(out_dir, track, header, summary)
        say(f"phase {name}: LAS {best.las:.2f} after {counted(phase.trials, 'trial')}"
            + (f"; kept {'; '.join(phase.changes)}" if phase.changes else "")
            + (f"; the transition-based {tuned.setting.algorithm}: {tuned.las:.2f}" if tuned else ""))  # fmt: skip
        # while the budget lasts, phases 3 and 4 again, as long as a round keeps a change
        if not phases and not search.out_of_time and any(p.changes for p in summary[-2:]) and round_ < rounds:
            round_ += 1
            phases = [
                (f"3 features, round {round_}", lambda b, r=round_: phase_features(search, b, analysis, sentences, r)),
                (f"4 learner, round {round_}", lambda b: phase_learner(search, b, analysis)),
            ]
    assert track is not None  # phase 2 makes it or raises
    return track, summary, baseline
