import io
import json
import random
from pathlib import Path

import pytest
from conftest import DATA, long_sentence, requires_shared, run_maltpy, run_maltpy_measured

from maltpy.config import load_config
from maltpy.data.conll import ConllReader
from maltpy.data.tree import arc_degree, degree, find_cycle, is_projective
from maltpy.features import load_feature_model
from maltpy.features.spec import ALL_BASES
from maltpy.transition import SYSTEMS, count_swaps, rebuild, system_for
from maltpy.transition.base import LA, NA, RA, RE, SH, SW, Gold, finish, run_oracle
from maltpy.transition.covington import CovingtonNonProjective
from maltpy.transition.nivre import USH, NivreEager, NivreStandard
from maltpy.transition.planar import RB, Planar, TwoPlanar, crossings, is_planar, is_two_planar
from maltpy.transition.stack import StackEager

PLANAR = {"planar": is_planar, "2planar": is_two_planar}  # the trees of each class, root arcs counted
PROJECTIVE = [name for name, system in SYSTEMS.items() if system.projective]

# Nivre (2009), Fig. 1: "A hearing is scheduled on the issue today ."
FIG1_HEADS = [-1, 2, 3, 0, 3, 2, 7, 5, 4, 3]
FIG1_LABELS = [None, "DET", "SBJ", "ROOT", "VG", "NMOD", "DET", "PC", "ADV", "P"]


def treebanks() -> list[Path]:
    """Every shared treebank file, each tree once: conllx/ holds the UD files' trees again, in
    CoNLL-X (test_conll.py's test_conllu_to_conllx_makes_the_shared_conllx_files)."""
    if not DATA.is_dir():
        return []
    return sorted(
        list(DATA.glob("ud/*/*.conllu"))
        + list(DATA.glob("maltparser-examples/*.conll"))
        + list(DATA.glob("maltparser-examples/swemalt-mini/gold/*.conll"))
    )


def trees(path: Path) -> list[tuple[list[int], list[str]]]:
    with open(path, "rb") as f:
        return [(s.heads, s.labels) for s in ConllReader(f, str(path))]


def replay(system, heads, labels, root_label="ROOT"):
    return rebuild(system, heads, labels, root_label)


def names(transitions) -> str:
    return " ".join(name if label is None else f"{name}({label})" for name, label in transitions)


# --- whole treebanks ---------------------------------------------------------------------------


@requires_shared
@pytest.mark.parametrize("path", treebanks(), ids=lambda p: p.name)
def test_oracles_rebuild_every_tree_they_can(path):
    # What each system's facts say it builds (TransitionSystem.projective, .planar) is what its
    # oracle rebuilds: the projective trees, the trees of its class, or all.
    sentences = trees(path)
    projective = [is_projective(h) for h, _ in sentences]
    for name, cls in SYSTEMS.items():
        system = cls()
        rebuilt = 0
        for (heads, labels), proj in zip(sentences, projective):
            _, h, lab = replay(system, heads, labels)
            exact = h == heads and lab[1:] == labels[1:]
            rebuilt += exact
            if cls.planar:
                assert exact or not PLANAR[name](heads), (name, heads)
            elif proj or not cls.projective:
                assert exact, (name, heads)
        if cls.projective:
            assert rebuilt + projective.count(False) == len(sentences), name
        elif not cls.planar:
            assert rebuilt == len(sentences), name
        else:  # a planar system builds planar graphs only, a 2-planar one 2-planar graphs
            assert rebuilt == sum(PLANAR[name](h) for h, _ in sentences), name


@requires_shared
def test_lazy_swaps_less_than_eager_on_latin():
    path = DATA / "ud" / "UD_Latin-Perseus" / "la_perseus-ud-train.conllu"
    results = {}
    for name in ("stackeager", "stacklazy"):
        result = run_maltpy("oracle", "-a", name, "-i", path, "--json")
        assert result.returncode == 0, result.stderr
        results[name] = json.loads(result.stdout)
    eager, lazy = results["stackeager"], results["stacklazy"]
    assert lazy["swaps"] < eager["swaps"]
    for r in (eager, lazy):
        assert r["rebuilt"] == r["sentences"] == 1334
        # Nivre (2009), §3.2: a terminating sequence has 2n + 2k transitions for k swaps
        assert r["transitions"] == 2 * r["tokens"] + 2 * r["swaps"]
        assert r["transitions_per_token"] == round(r["transitions"] / r["tokens"], 3)
    assert 2.0 <= lazy["transitions_per_token"] <= 2.2 < eager["transitions_per_token"]


@requires_shared
def test_degree_bounds_on_latin():
    # max_degree bounds the arcs that transitions build (Nivre 2007, §3). Words left without a
    # head go to the root afterwards; with d = 0 that keeps the tree projective.
    path = DATA / "ud" / "UD_Latin-Perseus" / "la_perseus-ud-train.conllu"
    sentences = trees(path)
    for d in (0, 1, 2):
        system = CovingtonNonProjective(max_degree=d)
        for heads, labels in sentences:
            _, c = run_oracle(system, Gold(heads, labels))
            built = [dep for dep in range(1, len(heads)) if c.arcs.heads[dep] != -1]
            h, lab = finish(c.arcs, "ROOT")
            assert all(arc_degree(h, h[dep], dep) <= d for dep in built)
            if d == 0:
                assert is_projective(h)
            if degree(heads) <= d:
                assert (h, lab[1:]) == (heads, labels[1:])


@requires_shared
def test_projectivity_is_degree_zero_on_real_trees():
    for heads, _ in trees(DATA / "conllx" / "la_perseus-ud-train.conllx"):
        assert is_projective(heads) == (degree(heads) == 0)


# --- the papers' examples ----------------------------------------------------------------------


def test_stackeager_makes_the_30_transitions_of_nivre_2009_fig_3():
    transitions, heads, labels = replay(StackEager(), FIG1_HEADS, FIG1_LABELS)
    assert names(transitions) == (
        "SH SH LA(DET) SH SH SH SW SW SH SH SH SW SW SH SH SH SW SW LA(DET) RA(PC) RA(NMOD) "
        "SH LA(SBJ) SH SH RA(ADV) RA(VG) SH RA(P) RA(ROOT)"
    )
    assert (heads, labels[1:]) == (FIG1_HEADS, FIG1_LABELS[1:])


def test_stacklazy_swaps_later_and_less_on_fig_1():
    transitions, heads, _ = replay(SYSTEMS["stacklazy"](), FIG1_HEADS, FIG1_LABELS)
    assert heads == FIG1_HEADS and count_swaps(transitions) == 2
    assert names(transitions).startswith("SH SH LA(DET) SH SH SH SH SH LA(DET) RA(PC) SW SW RA(NMOD)")


def test_a_degree_1_tree_needs_max_degree_1():
    assert degree(FIG1_HEADS) == 1
    _, heads, _ = replay(CovingtonNonProjective(max_degree=1), FIG1_HEADS, FIG1_LABELS)
    assert heads == FIG1_HEADS
    _, heads, _ = replay(CovingtonNonProjective(max_degree=0), FIG1_HEADS, FIG1_LABELS)
    assert heads != FIG1_HEADS and is_projective(heads)
    _, heads, _ = replay(CovingtonNonProjective(), FIG1_HEADS, FIG1_LABELS)
    assert heads == FIG1_HEADS


def test_projective_systems_rebuild_what_they_can_of_fig_1():
    for name in PROJECTIVE:
        _, heads, labels = replay(SYSTEMS[name](), FIG1_HEADS, FIG1_LABELS)
        assert heads != FIG1_HEADS and len(heads) == len(FIG1_HEADS)
        assert all(h >= 0 for h in heads[1:])  # every word has a head, the leftovers the root


# --- preconditions on small trees --------------------------------------------------------------


def test_arc_eager_root_handling_and_reduce():
    s = NivreEager()
    c = s.initial(3)
    assert sorted(s.allowed(c)) == [RA, SH]  # the root on top: no LEFT-ARC, no REDUCE
    assert s.deterministic(c) is None
    s.apply(c, SH)
    assert sorted(s.allowed(c)) == [LA, RA, SH]  # word 1 has no head: no REDUCE
    s.apply(c, RA, "obj")
    assert c.stack == [0, 1, 2] and sorted(s.allowed(c)) == [RA, RE, SH]  # 2 has a head: no LEFT-ARC
    s = NivreEager(allow_reduce=True)
    c = s.initial(2)
    s.apply(c, SH)
    assert RE in s.allowed(c)
    s = NivreEager(allow_root=False)
    c = s.initial(2)
    assert s.allowed(c) == [SH] and s.deterministic(c) == SH


def test_arc_eager_without_allow_root_leaves_root_dependents_to_the_end():
    transitions, heads, labels = replay(NivreEager(allow_root=False), [-1, 2, 0], [None, "nsubj", "root"], "ROOT")
    assert heads == [-1, 2, 0] and labels == [None, "nsubj", "ROOT"]
    assert (RA, "root") not in transitions


def test_arc_standard_keeps_the_root_on_the_stack():
    s = NivreStandard()
    c = s.initial(2)
    s.apply(c, RA, "root")  # 0 -> 1; the root stays, word 2 comes next
    assert c.stack == [0] and c.buffer == [2] and c.arcs.heads[1] == 0
    assert NivreStandard(allow_root=False).allowed(s.initial(1)) == [SH]


def test_covington_cycles_are_not_allowed():
    s = CovingtonNonProjective()
    c = s.initial(3)
    c.left, c.right = 1, 2
    s.apply(c, RA, "a")  # 1 -> 2; i moves on to the root
    assert (c.left, c.right) == (0, 2)
    s.apply(c, NA)
    assert (c.left, c.right) == (2, 3)
    s.apply(c, RA, "b")  # 2 -> 3; 1 is in 3's component, so i skips to 0
    assert c.left == 0
    c.left = 1  # 1 has no head, but 3 -> 1 would close the cycle 1 -> 2 -> 3 -> 1
    assert LA not in s.allowed(c) and RA not in s.allowed(c)
    c.left = 0
    assert LA not in s.allowed(c)  # the root never gets a head


def test_covington_without_allow_root_never_compares_with_the_root():
    s = CovingtonNonProjective(allow_root=False)
    transitions, c = run_oracle(s, Gold([-1, 0, 1, 1], [None, "root", "a", "b"]))
    assert c.leftstop == 1 and all(name in (LA, RA, NA) for name, _ in transitions)
    assert finish(c.arcs, "ROOT")[1] == [None, "ROOT", "a", "b"]


def test_covington_shift_only_when_allowed():
    assert SH not in CovingtonNonProjective().allowed(CovingtonNonProjective().initial(2))
    assert SH in CovingtonNonProjective(allow_shift=True).allowed(CovingtonNonProjective().initial(2))


def test_swap_never_moves_the_root_or_a_pair_already_swapped():
    s = StackEager()
    c = s.initial(3)
    s.apply(c, SH)
    assert SW not in s.allowed(c)  # [0, 1]: the root is second
    s.apply(c, SH)
    assert SW in s.allowed(c)  # [0, 1, 2]
    s.apply(c, SW)  # [0, 2] with 1 back in the buffer
    assert c.stack == [0, 2] and c.buffer == [3, 1] and c.swapped == 1
    s.apply(c, SH)  # [0, 2, 1]: 1 and 2 were swapped once, not again
    assert c.swapped == 0 and SW not in s.allowed(c)
    assert LA in s.allowed(c) and RA in s.allowed(c)


def test_every_system_ends_in_a_tree_from_any_legal_sequence():
    # The parser will choose among allowed() moves; whatever it picks must end in a tree.
    rng = random.Random(7)
    for name, cls in SYSTEMS.items():
        system = cls()
        for n in range(1, 12):
            c = system.initial(n)
            steps = 0
            while not system.is_terminal(c):
                move = system.deterministic(c) or rng.choice(system.allowed(c))
                system.apply(c, move, "x" if move in (LA, RA) else None)
                steps += 1
                assert steps < 10 * n * n + 10, name
            heads, _ = finish(c.arcs, "ROOT")
            assert find_cycle(heads) is None and all(h >= 0 for h in heads[1:]), name


def test_each_system_carries_its_facts():
    # SYSTEMS is the one list: each class under its own name, with the facts the rest of maltpy
    # reads, and its options read from a configuration for learning and for parsing.
    for name, cls in SYSTEMS.items():
        assert cls.name == name and cls.first_class in cls.transitions
        assert set(cls.base_addresses) <= set(ALL_BASES) and cls.maltparser_class  # each of MaltParser's
        for window in (cls.focus, cls.context, cls.further, (cls.split_address,)):
            assert {a.split("[")[0] for a in window} <= set(cls.base_addresses), (name, window)
        for learning in (False, True):
            config = load_config(None, {("singlemalt", "parsing_algorithm"): name})
            assert type(system_for(config, learning, one_root=True)) is cls
        for learner, data_format in (("liblinear", "conllu"), ("libsvm", "conllx")):
            assert len(load_feature_model(None, name, learner, data_format, "one")) > 0
    assert {name for name, cls in SYSTEMS.items() if cls.planar} == set(PLANAR)
    # a family's facts are the same for each of its systems; the trial ranks and classes differ
    families = {}
    for cls in SYSTEMS.values():
        facts = (cls.base_addresses, cls.buffer_input, cls.focus, cls.context, cls.further, cls.split_address)
        assert families.setdefault(cls.family, facts) == facts
    assert len({cls.trial_rank for cls in SYSTEMS.values()}) == len(SYSTEMS)
    assert len({cls.maltparser_class for cls in SYSTEMS.values()}) == len(SYSTEMS)
    rooted = [name for name, cls in SYSTEMS.items() if cls.from_config(load_config(None), one_root=True).one_root]
    assert rooted == ["nivreeager", "nivrestandard"]


def test_system_for_reads_the_options():
    config = load_config(
        None,
        {
            ("singlemalt", "parsing_algorithm"): "covnonproj",
            ("covington", "max_degree"): "1",
            ("covington", "allow_shift"): "true",
        },
    )
    s = system_for(config)
    assert isinstance(s, CovingtonNonProjective) and s.max_degree == 1 and s.allow_shift


def test_oracle_command_writes_rebuilt_trees(tmp_path):
    text = (
        "".join(
            f"{i}\tw{i}\t_\tX\tX\t_\t{h}\t{lab}\t_\t_\n"
            for i, (h, lab) in enumerate(zip(FIG1_HEADS[1:], FIG1_LABELS[1:]), 1)
        )
        + "\n"
    )
    gold = tmp_path / "fig1.conll"
    gold.write_text(text)
    out = tmp_path / "rebuilt.conll"
    result = run_maltpy("oracle", "-a", "nivreeager", "-i", gold, "-o", out, "--json")
    stats = json.loads(result.stdout)
    assert stats == {
        "algorithm": "nivreeager",
        "parsing_direction": "left-to-right",
        "root_position": "start",
        "sentences": 1,
        "tokens": 9,
        "nonprojective": 1,
        "planar": 0,
        "2planar": 1,
        "rebuilt": 0,
        "transitions": stats["transitions"],
        "swaps": 0,
        "transitions_per_token": stats["transitions_per_token"],
    }
    rebuilt = list(ConllReader(io.BytesIO(out.read_bytes()), "out"))
    assert len(rebuilt) == 1 and rebuilt[0].heads != FIG1_HEADS and is_projective(rebuilt[0].heads)
    stats = json.loads(run_maltpy("oracle", "-a", "2planar", "-i", gold, "--json").stdout)
    assert stats["rebuilt"] == stats["rebuilt_2planar"] == stats["2planar"] == 1 and stats["algorithm"] == "2planar"
    table = run_maltpy("oracle", "-a", "planar", "-i", gold).stdout.decode()
    assert "planar                 0  (0.00%)\n2-planar               1  (100.00%)\n" in table
    assert "rebuilt, planar        0 of 0\n" in table
    piped = run_maltpy("oracle", "-a", "stackeager", "-o", "-", input=text.encode())
    assert piped.stdout == text.encode() and b"rebuilt exactly        1" in piped.stderr
    unparsed = tmp_path / "blind.conll"
    unparsed.write_text("1\ta\t_\tX\tX\t_\t_\t_\t_\t_\n")
    err = run_maltpy("oracle", "-a", "stackeager", "-i", unparsed).stderr.decode()
    assert err == f"maltpy: error: {unparsed}:1: the oracle needs gold trees, but HEAD is _\n"


@requires_shared
def test_the_covnonproj_oracle_on_a_long_sentence_keeps_no_transition(tmp_path):
    # bug: a 10,000-token sentence took 3.5 GB (a new tuple per NO-ARC, and every transition
    # kept); Covington's systems take O(n²) transitions, so none may be kept per step
    words, offset, first_root = [], 0, None
    for sentence in ConllReader(open(DATA / "conllx" / "la_perseus-ud-test.conllx", "rb"), "test"):
        for w in sentence.words:
            head = int(w[6])
            head = (first_root or 0) if head == 0 else head + offset
            label = w[7] if int(w[6]) else ("root" if first_root is None else "parataxis")
            words.append("\t".join([str(int(w[0]) + offset), *w[1:6], str(head), label, "_", "_"]))
        first_root = first_root or next(int(w[0]) for w in sentence.words if w[6] == "0")
        offset += len(sentence.words)
        if offset >= 4000:
            break
    long = tmp_path / "long.conllx"
    long.write_text("\n".join(words) + "\n\n")
    result = run_maltpy_measured("oracle", "-a", "covnonproj", "-i", long, "--json")
    status, peak_kb, stats = result.returncode, result.peak_kb, json.loads(result.stdout)
    assert status == 0 and stats["rebuilt"] == 1 and stats["transitions"] > 4_000_000
    assert peak_kb < 150 * 1024, peak_kb  # before: 340 MB for these 4,000 words


# --- planar and 2-planar -------------------------------------------------------------------------


def maltparser_crossings(heads: list[int]) -> list[list[int]]:
    """MaltParser's initCrossingsGraph, pair by pair as it visits them (the reference for the
    order of each arc's list, which decides how the 2-planar oracle propagates its planes)."""
    n = len(heads) - 1
    lists = [[] for _ in range(n + 1)]
    for d1 in range(1, n + 1):
        for d2 in range(1, n + 1):
            a, b = sorted((heads[d1], d1))
            x, y = sorted((heads[d2], d2))
            if heads[d1] < heads[d2] and (a < x < b < y or x < a < y < b):
                lists[d1].append(d2)
                lists[d2].append(d1)
    return lists


@requires_shared
def test_crossings_are_maltparsers_in_its_order_on_latin():
    sentences = trees(DATA / "conllx" / "la_perseus-ud-test.conllx")
    planar = 0
    for heads, _ in sentences:
        assert crossings(heads) == maltparser_crossings(heads), heads
        planar += is_planar(heads)
        assert is_planar(heads) == (not any(maltparser_crossings(heads)))
    assert 0 < planar < len(sentences)


@requires_shared
def test_crossings_of_a_long_sentence_whose_root_words_hang_from_one_are_maltparsers():
    # Arcs from one word to every stretch of the sentence stay open across it all: the sweep
    # must still list every crossing in MaltParser's order.
    with open(DATA / "conllx" / "la_perseus-ud-test.conllx", "rb") as f:
        heads = long_sentence(list(ConllReader(f, "la")), 600, "star").heads
    assert crossings(heads) == maltparser_crossings(heads)
    assert sum(map(len, crossings(heads))) > 100


def test_a_tree_whose_crossings_make_an_odd_cycle_is_not_2_planar():
    # three arcs crossing each other pairwise: 1-4, 2-5, 3-6 (no two planes hold them)
    heads = [-1, 0, 0, 0, 1, 2, 3]
    assert not is_planar(heads) and not is_two_planar(heads)
    heads = [-1, 0, 0, 1, 2]  # 1-3 crosses 0-2 and 2-4: a path, two planes
    assert not is_planar(heads) and is_two_planar(heads)
    assert is_planar(FIG1_HEADS) is False and is_two_planar(FIG1_HEADS)


def test_planar_arcs_leave_the_stack_and_the_buffer_as_they_are():
    s = Planar()
    c = s.initial(3)
    assert sorted(s.allowed(c)) == [RA, SH]  # the root on top: no LEFT-ARC, no REDUCE
    s.apply(c, RA, "root")  # 0 -> 1
    assert c.stack == [0] and c.buffer == [3, 2, 1] and c.arcs.heads[1] == 0
    assert s.allowed(c) == [SH]  # 1 has a head, and 0 and 1 are connected
    c = s.initial(3)
    s.apply(c, SH)
    s.apply(c, LA, "x")  # 2 -> 1
    assert c.arcs.heads[1] == 2 and c.stack == [0, 1] and c.buffer == [3, 2]
    assert sorted(s.allowed(c)) == [RE, SH]  # 1 and 2 connected: no arc between them again
    assert RA in Planar(acyclicity=False).allowed(c)  # 1 -> 2 would close a cycle


def test_planar_connectedness_and_covered_roots():
    s = Planar(connectedness="reduceonly")
    c = s.initial(3)
    s.apply(c, SH)
    assert RE not in s.allowed(c)  # 1 is connected to nothing
    s.apply(c, RA, "x")  # 1 -> 2
    assert RE in s.allowed(c)
    s = Planar(connectedness="full")
    c = s.initial(2)
    s.apply(c, SH)
    assert SH not in s.allowed(c)  # the last word, not connected to word 1
    s.apply(c, LA, "x")
    assert SH in s.allowed(c)
    s = Planar(no_covered_roots=True)
    c = s.initial(2)
    s.apply(c, SH)
    assert RE not in s.allowed(c)
    s = Planar(root_handling="relaxed")
    assert s.deterministic(s.initial(2)) == SH


def test_2planar_switches_stacks_never_twice_and_never_reduces_both():
    s = TwoPlanar()
    c = s.initial(3)
    assert RB not in s.allowed(c) and SW in s.allowed(c)
    s.apply(c, SW)
    assert SW not in s.allowed(c) and c.active == 1
    s.apply(c, SH)
    assert c.stacks == ([0, 1], [0, 1]) and SW in s.allowed(c)
    s = TwoPlanar(reduce_on_switch=True)
    c = s.initial(3)
    assert SW not in s.allowed(c)  # it would pop the root
    s.apply(c, SH)
    s.apply(c, SW)
    assert c.stacks == ([0, 1], [0]) and c.active == 1


def test_system_for_reads_the_planar_options():
    config = load_config(
        None,
        {
            ("singlemalt", "parsing_algorithm"): "planar",
            ("planar", "connectedness"): "full",
            ("planar", "acyclicity"): "false",
            ("multiplanar", "planar_root_handling"): "relaxed",
        },
    )
    s = system_for(config)
    assert isinstance(s, Planar) and s.connectedness == "full" and not s.acyclicity and s.relaxed_root
    config = load_config(
        None,
        {
            ("singlemalt", "parsing_algorithm"): "2planar",
            ("2planar", "reduceonswitch"): "true",
            ("planar", "no_covered_roots"): "true",
        },
    )
    s = system_for(config)
    assert isinstance(s, TwoPlanar) and s.reduce_on_switch and s.no_covered_roots and not s.relaxed_root


def test_enforce_tree_unshifts_as_maltparsers_arc_eager():
    # MaltParser 1.9.2's ArcEager with enforce_tree: once SHIFT or RIGHT-ARC empties the input
    # (NivreConfig.setEnd), SHIFT is not permissible; with the input empty, a top with a head is
    # REDUCEd and one without is UNSHIFTed, deterministically; terminal: input empty, stack [root].
    s = NivreEager(allow_root=False, enforce_tree=True)
    c = s.initial(2)
    assert s.deterministic(c) == SH  # the root on top and not yet the end
    s.apply(c, SH)
    s.apply(c, SH)
    assert c.end and c.stack == [0, 1, 2] and not s.is_terminal(c)
    assert s.deterministic(c) == USH  # 2 has no head
    s.apply(c, USH)
    assert c.stack == [0, 1] and c.buffer == [2] and SH not in s.allowed(c)
    s.apply(c, LA, "x")  # 2 -> 1
    assert s.deterministic(c) is None and s.allowed(c) == [RA]  # the root takes a dependent after all
    s.apply(c, RA, "root")
    assert s.deterministic(c) == RE
    s.apply(c, RE)
    assert s.is_terminal(c) and c.arcs.heads == [-1, 2, 0]
    assert NivreEager().is_terminal(NivreEager().initial(0))
    with pytest.raises(ValueError):
        NivreEager().apply(NivreEager().initial(1), USH)  # no UNSHIFT without enforce_tree


ROOTED = {
    "arc-eager": lambda: NivreEager(one_root=True),
    "arc-eager without root arcs": lambda: NivreEager(allow_root=False, one_root=True),
    "arc-eager with -nt": lambda: NivreEager(enforce_tree=True, one_root=True),
    "arc-eager, reduce allowed": lambda: NivreEager(allow_reduce=True, one_root=True),
    "arc-standard": lambda: NivreStandard(one_root=True),
    "arc-standard without root arcs": lambda: NivreStandard(allow_root=False, one_root=True),
}


@pytest.mark.parametrize("make", ROOTED.values(), ids=ROOTED.keys())
def test_one_root_ends_with_one_word_on_the_root_from_any_legal_sequence(make):
    # The classifier may rank any allowed move first; a parser that likes root arcs is the
    # hard case, so RIGHT-ARC is taken whenever allowed in half the runs. A fifth of the moves
    # are the default (no ranked class allowed), which must be allowed too: MaltParser's
    # SHIFT in the end phase would be UNSHIFTed back forever.
    system = make()
    rng = random.Random(11)
    for run in range(3000):
        n = 1 + run % 25
        c = system.initial(n)
        steps = 0
        while not system.is_terminal(c):
            move, label = system.deterministic(c), None
            if move is None:
                allowed = system.allowed(c)
                assert allowed, "no move left"
                move, label = RA if run % 2 and RA in allowed else rng.choice(allowed), "x"
                if rng.random() < 0.2:
                    move, label = system.default(c, "ROOT")
                    assert move in allowed
            system.apply(c, move, label if move in (LA, RA) else None)
            steps += 1
            assert steps <= 6 * n + 2
        heads, reduce = c.arcs.heads, getattr(system, "allow_reduce", False)
        assert heads.count(0) == 1 or (reduce and heads.count(0) == 0)
        if not reduce:  # every word took its head from a transition
            assert -1 not in heads[1:]
        assert find_cycle(finish(c.arcs, "ROOT")[0]) is None


def test_one_root_keeps_the_roots_dependent_until_the_rest_can_reach_it():
    s = NivreEager(one_root=True)
    c = s.initial(3)
    s.apply(c, RA, "root")  # 0 -> 1
    assert c.stack == [0, 1] and RE not in s.allowed(c)  # 2 and 3 would have no head left
    s.apply(c, SH)
    s.apply(c, LA, "x")  # 3 -> 2: the stack is [0, 1] again, the buffer [3]
    assert s.allowed(c) == [SH, RA]
    s.apply(c, SH)  # the buffer is emptied: the end phase
    assert s.deterministic(c) == USH
    s.apply(c, USH)
    assert s.allowed(c) == [RA]  # not SHIFT (the end), not REDUCE (3 needs 1)
    s.apply(c, RA, "x")
    while not s.is_terminal(c):
        s.apply(c, s.deterministic(c))
    assert c.arcs.heads == [-1, 0, 3, 1]
    # arc-standard: the root's dependent comes last, when the buffer holds one word
    s = NivreStandard(one_root=True)
    c = s.initial(2)
    assert s.allowed(c) == [SH]
    s.apply(c, SH)
    s.apply(c, LA, "x")  # 2 -> 1
    assert s.allowed(c) == [SH, RA]


def test_a_cycle_built_without_acyclicity_is_broken_at_its_first_word():
    s = Planar(acyclicity=False)
    c = s.initial(3)
    s.apply(c, SH)
    s.apply(c, RA, "a")  # 1 -> 2
    assert LA in s.allowed(c)  # 2 -> 1 would close a cycle: allowed without the constraint
    s.apply(c, LA, "b")
    assert finish(c.arcs, "ROOT") == ([-1, 2, 1, 0], [None, "b", "a", "ROOT"])  # the cycle, as MaltParser's
    heads, labels = finish(c.arcs, "ROOT", acyclic=False)
    assert heads == [-1, 0, 1, 0] and labels == [None, "ROOT", "a", "ROOT"]
    assert find_cycle(heads) is None
