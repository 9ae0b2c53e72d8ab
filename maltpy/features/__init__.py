"""Feature models: MaltParser's feature language, loaded, checked and compiled for an algorithm."""

from __future__ import annotations

import functools
from collections.abc import Mapping
from importlib import resources
from pathlib import Path

from ..errors import MaltpyError, cut
from ..learners import LEARNERS
from ..transition import SYSTEMS
from .functions import NULL_SYMBOLS, Layout, Setting, compile_extractor, compile_feature, compile_plan
from .spec import (
    COLUMNS,
    FORMAT_NAMES,
    INTEGER_COLUMNS,
    OUTPUT_COLUMNS,
    Feature,
    FeatureSpec,
    foreign_column,
    parse_feature_model,
    read_feature_model,
)


class FeatureModel:
    """The features of a model in MaltParser's order, compiled for one algorithm.

    ``extract(c, columns)`` gives one value per feature for configuration ``c`` (see
    ``functions``), by the model's fast form (``plan``, see ``functions.compile_plan``) where it has one.
    ``deprel_of`` maps pseudo-projective arc labels to their DEPREL, for the models that learn
    such labels.
    """

    def __init__(self, specs: list[FeatureSpec], algorithm: str, null_value: str, source: str,
                 deprel_of: Mapping[str, str] | None = None, learning: bool = True) -> None:  # fmt: skip
        self.specs = specs
        #: the positions of the features in the order the file gave them (``maltpy info`` shows it)
        self.file_order = sorted(range(len(specs)), key=lambda i: specs[i].line)
        self.algorithm = algorithm
        self.null_value = null_value
        self.source = source
        self.deprel_of = deprel_of
        # Learning orders a Split value's pieces by first appearance, as MaltParser's codes do
        # (see functions._split); parsing needs no order and keeps no table.
        self.split_codes: dict | None = {} if learning else None
        self.setting = Setting(SYSTEMS[algorithm].family, null_value, deprel_of, self.split_codes)
        layout = Layout.of([s.feature for s in specs])
        self.plan = compile_plan(layout, self.setting)
        self.extract = self.plan.values if self.plan is not None else compile_extractor(layout, self.setting)
        self.nulls = frozenset(NULL_SYMBOLS[null_value]) if null_value == "none" else frozenset()
        #: every value is a string or None: no Split (several values) and no ID (a number)
        self.plain = not any("Split(" in s.text or "InputColumn(ID," in s.text for s in specs)

    def __len__(self) -> int:
        return len(self.specs)

    def foreign_column(self, data_format: str) -> tuple[FeatureSpec, str] | None:
        """The first feature that names a column ``data_format`` does not have, and what is wrong
        (spec.foreign_column); None if there is none."""
        for spec in self.specs:
            problem = foreign_column(spec.feature, data_format)
            if problem:
                return spec, problem
        return None

    def check_columns(self, data_format: str) -> None:
        """MaltpyError, naming the feature, its file and line, if a feature names a column the
        treebank's format does not have: learning from the 9th or 10th column under the other
        format's name would learn from values the name does not say."""
        found = self.foreign_column(data_format)
        if found:
            spec, problem = found
            raise MaltpyError(f"bad feature {spec.text!r} for a {FORMAT_NAMES[data_format]} treebank: {problem}",
                              self.source, spec.line)  # fmt: skip

    def text(self) -> str:
        """The model as maltpy's text format, one feature per line in MaltParser's order."""
        return "".join(s.text + "\n" for s in self.specs)

    def input_columns(self, split_column: str | None = None) -> list[int]:
        """The input columns whose text the features read (InputColumn anywhere inside a feature,
        and the data split's column ``split_column``), by number. ID, HEAD and PHEAD are numbers,
        not text, and the input's DEPREL is blank when parsing: none of them is listed."""
        found: set[int] = set()

        def walk(feature: Feature) -> None:
            if feature.name == "InputColumn":
                found.add(feature.args[0])
            for arg in feature.args:
                if isinstance(arg, Feature):
                    walk(arg)

        for spec in self.specs:
            walk(spec.feature)
        if split_column is not None:
            found.add(split_column)
        return sorted({COLUMNS[name] for name in found if name not in (*INTEGER_COLUMNS, *OUTPUT_COLUMNS)})

    def extract_slowly(self, c, columns: list[list]) -> list:
        """The values one feature at a time: what ``extract`` computes, by the definitions."""
        return [f(c, columns) for f in self._one_by_one]

    @functools.cached_property
    def _one_by_one(self) -> list:
        """Each feature's definition compiled alone (``extract_slowly``, the tests' reference)."""
        return [compile_feature(s.feature, self.setting) for s in self.specs]

    def split_feature(self, feature: Feature):
        """The data split feature (``spec.split_feature``), compiled, and its position in the
        model (None if the model does not have it). The configuration has checked the address
        against the algorithm."""
        column = feature.args[0]
        position = next((i for i, s in enumerate(self.specs) if s.feature == feature), None)
        value = compile_feature(feature, self.setting)
        if column != "ID":
            return value, position

        def as_text(c, cols):  # a word's ID is a number; classifiers are named by the text
            v = value(c, cols)
            return v if type(v) is str else str(v)

        return as_text, position


def load_feature_model(
    path: str | None,
    algorithm: str,
    learner: str,
    data_format: str,
    null_value: str,
    deprel_of: Mapping[str, str] | None = None,
    folder: str | None = None,
) -> FeatureModel:
    """The feature model in ``path``, or the default one for the algorithm, learner and input
    format (MaltParser's defaults: CoNLL-X models use POSTAG, CoNLL-U models UPOSTAG), or the one
    in the defaults' ``folder`` if given and it has the algorithm's (``ud``: the ud profile's,
    ``config.with_profile``)."""
    if path is not None:
        return FeatureModel(read_feature_model(path, algorithm), algorithm, null_value, path, deprel_of)
    if folder is None or not has_default_model(learner, folder, algorithm):
        folder = data_format
    name = _default_name(learner, folder, algorithm)
    data = _default_models().joinpath(name).read_bytes()
    specs = parse_feature_model(data, name, algorithm)
    return FeatureModel(specs, algorithm, null_value, f"default: {name}", deprel_of)


def _default_name(learner: str, folder: str, algorithm: str) -> str:
    return f"{LEARNERS[learner].feature_models}/{folder}/{SYSTEMS[algorithm].feature_model}.txt"


def has_default_model(learner: str, folder: str, algorithm: str) -> bool:
    """Whether feature_models/ has a default model of ``algorithm`` for ``learner`` in ``folder``."""
    return algorithm in SYSTEMS and _default_models().joinpath(_default_name(learner, folder, algorithm)).is_file()


def feature_model_from_text(text: str, algorithm: str, null_value: str, source: str,
                            deprel_of: Mapping[str, str] | None = None) -> FeatureModel:  # fmt: skip
    """The feature model stored in a model archive."""
    try:
        specs = parse_feature_model(text.encode("utf-8"), source, algorithm)
        return FeatureModel(specs, algorithm, null_value, source, deprel_of, learning=False)
    except MaltpyError as e:
        where = f"line {e.line}: " if e.line is not None else ""
        raise MaltpyError(
            f"damaged model: its feature model does not load ({where}{cut(e.message, 300)})", source
        ) from None


def _default_models():
    """The folder of default models: installed as the package maltpy.feature_models, or, when
    maltpy runs from its source tree, the project's top-level feature_models/."""
    try:
        return resources.files("maltpy.feature_models")
    except ModuleNotFoundError:
        return Path(__file__).resolve().parents[2] / "feature_models"
