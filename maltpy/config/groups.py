"""The option groups of a configuration, each a frozen record with MaltParser 1.9.2's defaults
(maltpy's own where MaltParser has no such option), and ``Config``, which holds one of each.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..data.direction import DIRECTIONS, ROOT_POSITIONS
from ..data.pseudoproj import Encoding


@dataclass(frozen=True, slots=True)
class SingleMalt:
    parsing_algorithm: str = "nivreeager"
    null_value: str = "one"
    parsing_direction: str = DIRECTIONS[0]
    root_position: str = ROOT_POSITIONS[0]


@dataclass(frozen=True, slots=True)
class Input:
    format: str = "auto"


@dataclass(frozen=True, slots=True)
class Graph:
    root_label: str = "ROOT"
    single_root: str = "auto"


@dataclass(frozen=True, slots=True)
class Nivre:
    allow_root: bool = True
    allow_reduce: bool = False
    enforce_tree: bool = False


@dataclass(frozen=True, slots=True)
class Covington:
    allow_root: bool = True
    allow_shift: bool = False
    max_degree: int | None = None
    bound_in_training: bool = False


@dataclass(frozen=True, slots=True)
class MultiPlanar:
    planar_root_handling: str = "normal"


@dataclass(frozen=True, slots=True)
class Planar:
    connectedness: str = "none"
    acyclicity: bool = True
    no_covered_roots: bool = False


@dataclass(frozen=True, slots=True)
class TwoPlanar:
    reduceonswitch: bool = False


@dataclass(frozen=True, slots=True)
class Mst:
    """MSTParser 0.5's options, by its names (``order:``, ``decode-type:``, ``training-k:``,
    ``iters:``, ``loss-type:``) and defaults."""

    order: int = 1
    decode_type: str = "proj"
    training_k: int = 1
    iters: int = 10
    loss_type: str = "punc"


@dataclass(frozen=True, slots=True)
class Guide:
    features: str | None = None
    learner: str = "liblinear"
    data_split_column: str | None = None
    data_split_structure: str | None = None
    data_split_threshold: int = 50
    oracle: str = "static"


@dataclass(frozen=True, slots=True)
class Lib:
    #: Learner options by flag, MaltParser's ``-lo``; filled in with the learner's defaults.
    options: Mapping[str, int | float | str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Tagger:
    """The taggers learned with the parser (maltpy's own: MaltParser reads its tags from the input;
    maltpy.tagging): ``columns`` auto (each of UPOS, XPOS, FEATS and LEMMA that has values in the
    treebank), none, or a comma list of them; their learner, its options (None: the tagger's
    defaults) and their feature model (None: the default ones); ``jackknife``: the parser learns on
    tags predicted by taggers learned on the other K-1 of K folds (0: on the treebank's own tags);
    ``both_ways``: the columns tagged left to right and right to left, their scores added (auto:
    UPOS; none; or a comma list of upos, xpos, feats)."""

    columns: str = "auto"
    learner: str = "liblinear"
    options: str | None = None
    features: str | None = None
    jackknife: int = 0
    both_ways: str = "auto"


@dataclass(frozen=True, slots=True)
class Defaults:
    """Whose defaults fill the options not given (``profile``): MaltParser 1.9.2's (maltparser),
    or those measured best on Universal Dependencies treebanks (ud: ``config.UD_DEFAULTS`` and the
    feature models of feature_models/<learner>/ud/); auto: ud for a CoNLL-U
    treebank learned by ``maltpy learn`` or ``maltpy.learn`` without a configuration file,
    MaltParser's otherwise (``config.with_profile`` decides, once the treebank's format is known)."""

    profile: str = "auto"


@dataclass(frozen=True, slots=True)
class Config:
    singlemalt: SingleMalt = SingleMalt()
    input: Input = Input()
    graph: Graph = Graph()
    nivre: Nivre = Nivre()
    covington: Covington = Covington()
    multiplanar: MultiPlanar = MultiPlanar()
    planar: Planar = Planar()
    twoplanar: TwoPlanar = TwoPlanar()  # MaltParser's group 2planar
    mst: Mst = Mst()
    guide: Guide = Guide()
    lib: Lib = Lib()
    pproj: Encoding = Encoding()
    tagger: Tagger = Tagger()
    defaults: Defaults = Defaults()

    def to_dict(self) -> dict[str, dict[str, Any]]:
        """The settings as plain data, group by group (for YAML output and the model archive)."""
        out = {}
        for f in dataclasses.fields(self):
            group = getattr(self, f.name)
            out[group_name(f.name)] = {g.name: _plain(getattr(group, g.name)) for g in dataclasses.fields(group)}
        return out


def group_name(field_name: str) -> str:
    """MaltParser's name of the option group a Config field holds (2planar is no identifier)."""
    return "2planar" if field_name == "twoplanar" else field_name


def _plain(value: Any) -> Any:
    return dict(value) if isinstance(value, Mapping) else value


_DEFAULTS = Config().to_dict()
