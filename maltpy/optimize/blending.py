"""Phase 5 of ``maltpy optimize``: a blend of what the search found (Hall et al. 2007's Blended
system; the blend package).

The members: the best configuration of the search; where that is graph-based (MST, which phase 2
chose on its own features), the best transition-based configuration as phases 3 and 4 tuned it;
each left to right and right to left; then ``maltpy blend``'s default members of the treebank
(MaltBlender's six; under the ud profiles its nine, each under the ud-lexical profile:
``MEMBERS_PROFILE``), whose algorithms and directions err apart from the tuned ones: on en_lines
(`--tags own`, with the nine under the ud profile), test LAS with its own tags 79.56 (gold
tags 85.47), where the tuned configuration with phase 2's next two algorithms, each both ways,
which this phase blended before, gave 78.95 (84.55). The blend is learned on each training
part and scored on its held-out part as a trial is (its weights come from the training part,
in two folds), so that its LAS and the best configuration's are over the same words. If it
scores higher, the phase writes DIR/blend.yaml (``maltpy blend -c`` takes it) and DIR/blend/,
each tuned member's configuration and feature model.
"""

from __future__ import annotations

import io
import os
import tempfile
import time
from collections.abc import Callable

import yaml

from ..data.conll import ConllReader
from ..evaluation.scores import attachment_scores
from ..files import atomic_output, make_folder
from ..graph import is_graph_based
from .search import PhaseSummary, Search, signals_held
from .trials import Result, Setting, _splits, run_trial

PHASE = "5 blend"
#: the profile of the default members a search under the ud profiles blends: ud-lexical, whose
#: arc-standard members read its lexical feature model (the other seven are the ud profile's).
#: The nine so, against ``maltpy blend``'s nine under the ud profile, learned from train (dev),
#: LAS on test with gold tags and with their own: en_lines +0.27 and +0.09, da_ddt +0.34 and +0.14,
#: sv_talbanken +0.54 and +0.27, la_perseus +0.03 and +0.03, en_partut +0.88 and +0.62, learning
#: 1.1 to 1.4 times as long
MEMBERS_PROFILE = "ud-lexical"


def blend_members(best: Result, tuned: Result | None = None) -> list[Setting]:
    """The search's own members: the best setting and, where that is graph-based, the ``tuned``
    transition-based one (phases 3 and 4's, not its phase 2 default); each both ways (MST one
    way)."""
    members = []
    for setting in [best.setting, *([tuned.setting] if tuned is not None else [])]:
        members.append(setting)
        if not is_graph_based(setting.algorithm):  # a graph-based parser reads a sentence in no direction
            members.append(setting.changed(singlemalt={"parsing_direction": "right-to-left"}))
    return members


def default_members(ud: bool) -> list[str]:
    """The default members the blend takes (``ud``: of a search under the ud profiles)."""
    from ..blend.learn import default_member_flags

    return default_member_flags(MEMBERS_PROFILE if ud else None)


def blend_tasks(search: Search, best: Result, tuned: Result | None, ud: bool, splits: int | None = None) -> int:
    """What phase 5 is expected to take, in trial tasks run one at a time: a blend learns its
    members (``blend_members`` and the default ones) one after another, each about as long as four
    of a trial's tasks (twice on folds for the weights, once on the whole part, and their parses),
    on each of ``splits`` splits (None: all the search's); on fewer than all, the best single
    configuration is scored again on those, a task each."""
    n = search.splits if splits is None else splits
    return (4 * (len(blend_members(best, tuned)) + len(default_members(ud))) + (n < search.splits)) * n


def blend_splits(search: Search, best: Result, tuned: Result | None, ud: bool) -> int:
    """How many of the search's splits phase 5 scores its blend on, as the budget left allows:
    all where they fit in it; else as many as fit in half of it (a cross-validation's folds cost
    a blend each, and the blend's gain is larger than the folds' noise: la_perseus' five folds in
    a 30-minute search had no time for it, whose single configuration scored 8 LAS below the
    default blend); else one where it fits; 0 where none does."""
    left = search.deadline - time.monotonic()

    def seconds(n: int) -> float:
        return search.seconds_for(blend_tasks(search, best, tuned, ud, n), jobs=1)

    if seconds(search.splits) <= left:
        return search.splits
    fitting = [n for n in range(1, search.splits) if seconds(n) <= left / 2]
    return max(fitting) if fitting else int(seconds(1) <= left)


def phase_blend(search: Search, best: Result, out_dir: str, config_text: Callable[[Setting, str], str],
                say: Callable[[str], None], tuned: Result | None = None, ud: bool = False,
                kept: bool = False, splits: int | None = None) -> PhaseSummary | None:  # fmt: skip
    """Score the blend of ``blend_members`` and the default members (``default_members``; ``ud``:
    the nine, else MaltBlender's six) as a trial, on the first ``splits`` of the search's splits
    (None: as ``blend_splits`` finds the budget allows); write it if it beats ``best`` (on fewer
    splits than all, ``best`` scored again on the same). None if the budget has no time left for
    it, unless the search ``kept`` that time for it from phase 2 on (``optimize``): the blend then
    runs in what was kept, as estimated then."""
    from ..blend.learn import Member, Treebank, learn_blend

    members, defaults = blend_members(best, tuned), default_members(ud)
    n = 0 if search.out_of_time else splits if kept else blend_splits(search, best, tuned, ud)
    if not n:
        say(f"phase {PHASE}: skipped, the budget has no time left for it")
        return None
    started = time.monotonic()
    data = search.data
    correct = words = 0
    with tempfile.TemporaryDirectory(prefix="maltpy-optimize-") as folder:
        paths = [_write_member(folder, k, s, config_text) for k, s in enumerate(members, 1)]
        specs = [Member.parse(text, "maltpy optimize") for text in [f"-c {p}" for p in paths] + defaults]
        for split in _splits(data)[:n]:
            train = Treebank(lambda split=split: iter(split.train), data.train, data.data_format)
            blend = learn_blend(train, specs, "learned", "non-projective")
            reader = ConllReader(io.BytesIO(split.dev_text), "held-out part", data.data_format, blind=True)
            scores = attachment_scores(split.dev, blend.parse(reader, watch=None), "held-out part", "its parse")
            correct, words = correct + scores.right_both, words + scores.tokens
    las = round(100 * correct / words, 4)
    single, scored = best.las, ""
    if n < search.splits:  # the best configuration on the same held-out words
        parts = [run_trial(data, k, best.setting.options, best.setting.features) for k in range(n)]
        single = round(100 * sum(p[0] for p in parts) / sum(p[1] for p in parts), 4)
        scored = f" on {n} of the {search.splits} folds"
    names = [f"{s.algorithm}{' right-to-left' if _backward(s) else ''}" for s in members] + defaults
    phase = PhaseSummary(PHASE, trials=1, seconds=time.monotonic() - started, start_las=single, end_las=las)
    if las > single:
        with signals_held():
            make_folder(os.path.join(out_dir, "blend"), "folder for the blend's members")
            paths = [_write_member(os.path.join(out_dir, "blend"), k, s, config_text) for k, s in enumerate(members, 1)]
            text = (f"# maltpy optimize: a blend of {len(names)} members, LAS {las:.2f} on the held-out parts"
                    f"{scored} (the best single configuration: {single:.2f}).\n"
                    "# Use: maltpy blend -c THIS -i TRAIN -m MODEL\n")  # fmt: skip
            settings = {
                "members": [f"-c {os.path.relpath(p, out_dir)}" for p in paths] + defaults,
                "weights": "learned",
                "decoder": "non-projective",
            }
            text += yaml.safe_dump({"blend": settings}, sort_keys=False)
            with atomic_output(os.path.join(out_dir, "blend.yaml")) as out:
                out.write(text.encode("utf-8"))
        phase.changes = [f"blend of {', '.join(names)}"]
    search.log.write({"phase_end": PHASE, "las": las, "start_las": single, "trials": 1, "splits": n,
                      "seconds": round(phase.seconds, 1), "kept": phase.changes, "members": names})  # fmt: skip
    say(f"phase {PHASE}: LAS {las:.2f}{scored} for the blend of {', '.join(names)} (the best single: {single:.2f})"
        + ("; wrote blend.yaml" if phase.changes else "; not kept"))  # fmt: skip
    return phase


def _backward(setting: Setting) -> bool:
    return setting.groups["singlemalt"].get("parsing_direction") == "right-to-left"


def _write_member(folder: str, k: int, setting: Setting, config_text: Callable[[Setting, str], str]) -> str:
    """Member ``k``'s configuration and feature model in ``folder``; the configuration's path."""
    features = os.path.join(folder, f"features-{k}.txt")
    config = os.path.join(folder, f"member-{k}.yaml")
    if setting.features:  # an MST member has none
        with atomic_output(features) as out:
            out.write("".join(line + "\n" for line in setting.features).encode("utf-8"))
    with atomic_output(config) as out:
        out.write(config_text(setting, os.path.basename(features)).encode("utf-8"))
    return config
