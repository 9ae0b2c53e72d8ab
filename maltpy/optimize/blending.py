"""Phase 5 of ``maltpy optimize``: a blend of what the search found (Hall et al. 2007's Blended
system; blend.py).

The members: the best configuration of the search; where that is graph-based (MST, which phase 2
chose on its own features), the best transition-based configuration as phases 3 and 4 tuned it;
and phase 2's best configurations of the next algorithms, two beside the best in all (with the
pseudo-projective encoding phase 2 found for them); each left to right and right to left. The
blend is learned on each training part and scored on its held-out part as a trial is (its
weights come from the training part, in two folds), so that its LAS and the best
configuration's are over the same words. If it scores higher, the phase writes DIR/blend.yaml
(``maltpy blend -c`` takes it) and DIR/blend/, each member's configuration and feature model.
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
from .trials import Result, Setting, _splits

OTHER_ALGORITHMS = 2
PHASE = "5 blend"


def blend_members(search: Search, best: Result, tuned: Result | None = None) -> list[Setting]:
    """The best setting; where it is graph-based, the ``tuned`` transition-based one (phases 3
    and 4's, not its phase 2 default); then phase 2's best of the next algorithms, OTHER_ALGORITHMS
    beside the best in all; each both ways (MST one way)."""
    records = [r for r in search.cache.values() if r.get("phase") == "2 algorithm" and r.get("las") is not None]
    by_algorithm: dict[str, dict] = {}
    for record in sorted(records, key=lambda r: -r["las"]):  # stable: the first of equals stays first
        by_algorithm.setdefault(record["config"]["singlemalt"]["parsing_algorithm"], record)
    carried = [tuned.setting] if tuned is not None else []
    chosen = {best.setting.algorithm, *(s.algorithm for s in carried)}
    others = carried + [Setting.make(r["config"], r["features"]) for algorithm, r in by_algorithm.items()
                        if algorithm not in chosen]  # fmt: skip
    others = others[:OTHER_ALGORITHMS]
    members = []
    for setting in [best.setting, *others]:
        members.append(setting)
        if not is_graph_based(setting.algorithm):  # a graph-based parser reads a sentence in no direction
            members.append(setting.changed(singlemalt={"parsing_direction": "right-to-left"}))
    return members


def phase_blend(search: Search, best: Result, out_dir: str, config_text: Callable[[Setting, str], str],
                say: Callable[[str], None], tuned: Result | None = None) -> PhaseSummary | None:  # fmt: skip
    """Score the blend of ``blend_members`` as a trial; write it if it beats ``best``. None if
    the budget has no time left for it (a blend learns its members twice: about as long as
    four trials of each)."""
    from ..blend import Member, Treebank, learn_blend
    from ..load import load

    members = blend_members(search, best, tuned)
    if search.out_of_time or not search.time_for(4 * len(members) * search.splits):
        say(f"phase {PHASE}: skipped, the budget has no time left for it")
        return None
    started = time.monotonic()
    data = search.data
    correct = words = 0
    with tempfile.TemporaryDirectory(prefix="maltpy-optimize-") as folder:
        specs = [Member.parse(f"-c {_write_member(folder, k, s, config_text)}", "maltpy optimize")
                 for k, s in enumerate(members, 1)]  # fmt: skip
        for split in _splits(data):
            train = Treebank(lambda split=split: iter(split.train), data.train, data.data_format)
            blend = learn_blend(train, specs, "learned", "non-projective", load=load)
            reader = ConllReader(io.BytesIO(split.dev_text), "held-out part", data.data_format, blind=True)
            scores = attachment_scores(split.dev, blend.parse(reader, watch=None), "held-out part", "its parse")
            correct, words = correct + scores.right_both, words + scores.tokens
    las = round(100 * correct / words, 4)
    names = [f"{s.algorithm}{' right-to-left' if _backward(s) else ''}" for s in members]
    phase = PhaseSummary(PHASE, trials=1, seconds=time.monotonic() - started, start_las=best.las, end_las=las)
    if las > best.las:
        with signals_held():
            make_folder(os.path.join(out_dir, "blend"), "folder for the blend's members")
            paths = [_write_member(os.path.join(out_dir, "blend"), k, s, config_text) for k, s in enumerate(members, 1)]
            text = (f"# maltpy optimize: a blend of {len(members)} members, LAS {las:.2f} on the held-out parts "
                    f"(the best single configuration: {best.las:.2f}).\n"
                    "# Use: maltpy blend -c THIS -i TRAIN -m MODEL\n")  # fmt: skip
            settings = {
                "members": [f"-c {os.path.relpath(p, out_dir)}" for p in paths],
                "weights": "learned",
                "decoder": "non-projective",
            }
            text += yaml.safe_dump({"blend": settings}, sort_keys=False)
            with atomic_output(os.path.join(out_dir, "blend.yaml")) as out:
                out.write(text.encode("utf-8"))
        phase.changes = [f"blend of {', '.join(names)}"]
    search.log.write({"phase_end": PHASE, "las": las, "start_las": best.las, "trials": 1,
                      "seconds": round(phase.seconds, 1), "kept": phase.changes, "members": names})  # fmt: skip
    say(f"phase {PHASE}: LAS {las:.2f} for the blend of {', '.join(names)} (the best single: {best.las:.2f})"
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
