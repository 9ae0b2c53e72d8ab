"""What each option of a configuration accepts (``OPTIONS``: its kind of value, MaltParser's flag,
its help line), which algorithms read it (``USED_BY``), and when another option leaves it with
nothing to do (``idle_option``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..data.columns import COLUMNS
from ..data.direction import DIRECTIONS, ROOT_POSITIONS
from ..data.pseudoproj import COVERED_ROOTS, LIFTING_ORDERS, MARKING_STRATEGIES
from ..graph import GRAPH_ALGORITHMS, MAX_TRAINING_K, TRANSITION_OPTIONS, is_graph_based
from ..learners import LEARNERS
from ..learners.options import parse_learner_options
from ..transition import SYSTEMS
from .groups import Config, Guide

#: Column names a data split may name (data/columns.py): CoNLL-U's columns by every name (CoNLL-X's
#: spellings of the same columns are aliases), but the word numbers the parser writes (HEAD).
COLUMN_NAMES = tuple(name for c in COLUMNS if c.conllu and (c.given or not c.integer) for name in c.names)

_DEFAULTS = Config().to_dict()
#: tagger.columns' names of the columns a tagger predicts (CoNLL-X's names are aliases), in tagging order
TAG_COLUMNS = {"upos": "upos", "cpostag": "upos", "xpos": "xpos", "postag": "xpos", "feats": "feats",
               "lemma": "lemma"}  # fmt: skip
PROFILES = ("auto", "ud", "ud-lexical", "maltparser")
#: guide.oracle's values: learning from the gold derivation, or also from the parser's own errors
ORACLES = ("static", "dynamic")
MAX_JACKKNIFE = 100  # folds of tagger.jackknife


@dataclass(frozen=True, slots=True)
class Option:
    """One option: its kind of value, MaltParser's flag for it, and one line of help."""

    kind: str  # bool | int | str | label | choice | path | column | address | liboptions | tagcolumns
    flag: str
    help: str
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    optional: bool = False
    maximum: int | None = None


OPTIONS: dict[tuple[str, str], Option] = {
    ("singlemalt", "parsing_algorithm"): Option("choice", "a", "parsing algorithm", (*SYSTEMS, *GRAPH_ALGORITHMS)),
    ("singlemalt", "null_value"): Option(
        "choice", "nv", "how feature null values are told apart", ("none", "one", "rootnode", "novalue")
    ),
    ("singlemalt", "parsing_direction"): Option(
        "choice",
        "pd",
        "each sentence read left to right, or right to left with the tree mapped back, in learning and so in the "
        "model's parsing (maltpy's own, as Hall et al. 2007's blended parser: MaltParser has no such option)",
        DIRECTIONS,
    ),
    ("singlemalt", "root_position"): Option(
        "choice",
        "rp",
        "where the root stands: before the first word (start, MaltParser's place) or after the last (end); a parser "
        "reading right to left meets a root at the start last, as a left-to-right one meets a root at the end "
        "(maltpy's own)",
        ROOT_POSITIONS,
    ),
    ("input", "format"): Option("choice", "if", "input data format", ("auto", "conllx", "conllu")),
    ("graph", "root_label"): Option("label", "grl", "label of words attached to the root after parsing"),
    ("graph", "single_root"): Option(
        "choice",
        "gsr",
        "one word on the root, labelled as the training treebank labels root words, as Universal Dependencies "
        "requires (maltpy's own): auto is true when the input or the training treebank is CoNLL-U",
        ("auto", "true", "false"),
    ),
    ("nivre", "allow_root"): Option("bool", "nr", "root dependents attached by a transition (Nivre)"),
    ("nivre", "allow_reduce"): Option("bool", "ne", "REDUCE allowed for a word without a head"),
    ("nivre", "enforce_tree"): Option("bool", "nt", "arc-eager parsing: UNSHIFT words left without a head at the end"),
    ("covington", "allow_root"): Option("bool", "cr", "root dependents attached by a transition (Covington)"),
    ("covington", "allow_shift"): Option("bool", "cs", "SHIFT allowed before Left is exhausted"),
    ("covington", "max_degree"): Option(
        "int",
        "cd",
        "bound on the degree of non-projectivity of LINK while parsing (maltpy's own)",
        minimum=0,
        optional=True,
    ),
    ("covington", "bound_in_training"): Option(
        "bool", "cdt", "apply max_degree in training too (Nivre 2007's d = 0 baseline)"
    ),
    ("multiplanar", "planar_root_handling"): Option(
        "choice",
        "prh",
        "root dependents attached by RIGHT-ARC (normal) or afterwards (relaxed)",
        ("normal", "relaxed"),
    ),
    ("planar", "connectedness"): Option(
        "choice",
        "pcon",
        "connectedness: not enforced, on REDUCE, on REDUCE and SHIFT",
        ("none", "reduceonly", "full"),
    ),
    ("planar", "acyclicity"): Option("bool", "pacy", "no arc that closes a cycle (planar and 2planar)"),
    ("planar", "no_covered_roots"): Option("bool", "pcov", "no REDUCE of a word without a head (planar and 2planar)"),
    ("2planar", "reduceonswitch"): Option("bool", "2pr", "SWITCH also pops the stack it makes active"),
    ("mst", "order"): Option(
        "int",
        "mo",
        "graph-based parsing (-a mst): arcs scored alone (1) or with their sibling (2)",
        minimum=1,
        maximum=2,
    ),
    ("mst", "decode_type"): Option(
        "choice", "mdt", "graph-based parsing: projective (Eisner) or non-projective trees", ("proj", "non-proj")
    ),
    ("mst", "training_k"): Option(
        "int", "mk", "graph-based parsing: MIRA's constraints from the k best trees", minimum=1, maximum=MAX_TRAINING_K
    ),
    ("mst", "iters"): Option("int", "mi", "graph-based parsing: passes of MIRA over the training treebank", minimum=1),
    ("mst", "loss_type"): Option(
        "choice",
        "ml",
        "graph-based parsing: MIRA's loss counts wrong heads of every word, or of non-punctuation",
        ("punc", "nopunc"),
    ),
    ("guide", "features"): Option("path", "F", "feature model file (XML or text)", optional=True),
    ("guide", "learner"): Option("choice", "l", "learner", tuple(LEARNERS)),
    ("guide", "data_split_column"): Option("column", "d", "column of the data split feature", optional=True),
    ("guide", "data_split_structure"): Option("address", "s", "address of the data split feature", optional=True),
    ("guide", "data_split_threshold"): Option(
        "int", "T", "split values seen fewer times share one classifier", minimum=0
    ),
    ("guide", "oracle"): Option(
        "choice",
        "go",
        "the oracle learning follows: static (the gold derivation's configurations) or dynamic (also those the "
        "parser reaches by its own errors, each taught a transition that keeps the best tree reachable)",
        ORACLES,
    ),
    ("lib", "options"): Option("liboptions", "lo", "learner options, as MaltParser's -lo"),
    ("pproj", "marking_strategy"): Option("choice", "pp", "pseudo-projective label encoding", MARKING_STRATEGIES),
    ("pproj", "covered_root"): Option("choice", "pcr", "covered-root handling", COVERED_ROOTS),
    ("pproj", "lifting_order"): Option("choice", "plo", "which arc is lifted first", LIFTING_ORDERS),
    ("tagger", "columns"): Option(
        "tagcolumns",
        "tc",
        "the columns maltpy learns a tagger for with the parser, to predict them where the input has none (maltpy's "
        "own): auto, each of upos, xpos, feats, lemma that holds values in a CoNLL treebank (none from MaltParser's "
        "command line); none; or a comma list of them",
    ),
    ("tagger", "learner"): Option("choice", "tl", "the taggers' learner", tuple(LEARNERS)),
    ("tagger", "options"): Option(
        "str", "to", "the taggers' learner options, as -lo (default: the taggers' own)", optional=True
    ),
    ("tagger", "features"): Option("path", "tF", "the taggers' feature model file", optional=True),
    ("tagger", "jackknife"): Option(
        "int",
        "tj",
        "K: the parser learns on tags predicted by taggers learned on the other K-1 of K folds of the treebank "
        "(0: on its own tags)",
        minimum=0,
        maximum=MAX_JACKKNIFE,
    ),
    ("tagger", "both_ways"): Option(
        "tagcolumns",
        "tb",
        "the columns tagged both ways, left to right and right to left, each word taking the class of the two "
        "taggers' highest summed score: auto (UPOS), none, or a comma list of upos, xpos, feats",
    ),
    ("defaults", "profile"): Option(
        "choice",
        "P",
        "whose defaults fill the options not given: maltparser (MaltParser 1.9.2's), ud (nivrestandard, -pp head, "
        "the feature models that read FEATS, LEMMA and XPOS: measured best on UD treebanks), ud-lexical (ud, "
        "with nivrestandard's model adding the lexical features of Zhang & Nivre 2011 and LIBLINEAR -c 0.05: "
        "about 1 LAS more, parsing 1.5 times as long), or auto (ud for a CoNLL-U treebank without -c, "
        "maltparser otherwise)",
        PROFILES,
    ),
}

#: MaltParser's command-line flag of each option (without the dash) -> (group, name).
FLAGS: dict[str, tuple[str, str]] = {opt.flag: key for key, opt in OPTIONS.items()}

#: The algorithms that read each option not every algorithm reads (any other option, every
#: algorithm reads): a transition system's own options (its ``options``), transition-based
#: parsing's (graph.TRANSITION_OPTIONS) and graph-based parsing's (the group mst). Set for another
#: algorithm, such an option would be ignored, and is refused (``unused_option``).
USED_BY: dict[tuple[str, str], tuple[str, ...]] = {
    **{key: tuple(SYSTEMS) for key in TRANSITION_OPTIONS},
    **{key: GRAPH_ALGORITHMS for key in OPTIONS if key[0] == "mst"},
    **{key: tuple(name for name, other in SYSTEMS.items() if key in other.options)
       for system in SYSTEMS.values() for key in system.options},
    ("guide", "oracle"): tuple(name for name, system in SYSTEMS.items() if system.costs is not None),
}  # fmt: skip


#: covington.max_degree, the bound ``maltpy parse -cd`` sets where the algorithm reads it.
MAX_DEGREE = ("covington", "max_degree")
#: nivre.enforce_tree, which ``maltpy parse -nt`` sets where the algorithm reads it.
ENFORCE_TREE = ("nivre", "enforce_tree")


def reads(algorithm: str, key: tuple[str, str]) -> bool:
    """Whether ``algorithm`` reads the option ``key`` (USED_BY)."""
    return algorithm in USED_BY.get(key, (algorithm,))


def unused_option(key: tuple[str, str], value: Any, algorithm: str, learner: str = Guide().learner) -> str | None:
    """Why ``algorithm`` would ignore the option ``key`` set to ``value`` (USED_BY), or None if
    it reads the option or ``value`` is the option's default, which changes nothing: as a
    MaltParser option file may list every option, a file or flag may give any option its default.
    ``learner``: the configuration's, whose defaults are lib.options' default."""
    if reads(algorithm, key) or value == _default(key, learner):
        return None
    name = f"{key[0]}.{key[1]} (-{OPTIONS[key].flag})"
    if is_graph_based(algorithm) and key in TRANSITION_OPTIONS:
        return f"{name}: {TRANSITION_OPTIONS[key]}"
    return f"{name} is an option of {' and '.join(USED_BY[key])}; {algorithm} ignores it"


def _default(key: tuple[str, str], learner: str) -> Any:
    return parse_learner_options(None, learner) if key == ("lib", "options") else _DEFAULTS[key[0]][key[1]]


def idle_option(key: tuple[str, str], value: Any, config: Config) -> str | None:
    """Why the option ``key`` set to ``value`` would do nothing, the other options being as in
    ``config``, or None if it acts or ``value`` is its default."""
    why = _idle_options(config).get(key)
    if why is None or value == _DEFAULTS[key[0]][key[1]]:
        return None
    return f"{key[0]}.{key[1]} (-{OPTIONS[key].flag}): {why}"


def _idle_options(config: Config) -> dict[tuple[str, str], str]:
    """The options that other options of ``config`` leave with nothing to do, each with why."""
    idle = {}
    if config.tagger.columns == "none":
        for name in ("learner", "options", "features", "jackknife", "both_ways"):
            idle[("tagger", name)] = "no tagger is learned (tagger.columns none)"
    if config.guide.data_split_column is None:
        idle[("guide", "data_split_threshold")] = "there is no data split (-d, -s) for it to apply to"
    if config.covington.max_degree is None:
        idle[("covington", "bound_in_training")] = "there is no bound (-cd) to apply in training"
    if config.pproj.marking_strategy == "none":
        idle[("pproj", "lifting_order")] = "nothing is lifted without a marking strategy (-pp)"
        if config.pproj.covered_root == "ignore":  # left, right and head attach covered roots without it
            idle[("pproj", "covered_root")] = ("ignore leaves covered roots as they are while arcs are lifted, and "
                                               "nothing is lifted without a marking strategy (-pp)")  # fmt: skip
    return idle
