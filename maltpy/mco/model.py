"""An .mco as a maltpy Model (``load_mco``): the report's writing release, the saved options as
maltpy's configuration, the symbol tables, the data format and the feature model, the decisions
and the classifiers, read in that order from its members, each checked, and put together as
models.parser's Model (the one place the .mco reader names it).
"""

from __future__ import annotations

import posixpath

from ..data.pseudoproj import DeprelOf
from ..errors import cut, require
from ..features import FeatureModel
from ..features.spec import parse_feature_model
from ..files import MAX_SMALL_FILE
from ..learners.divide import data_split, guide_of
from ..transition import SYSTEMS
from .classifiers import Parts, classifiers
from .container import INFO_SUFFIX, Members, read_members, reading
from .features import Decisions, Values, symbol_tables
from .options import config_of, read_data_format
from .text import read_options, writing_release


def load_mco(path: str, data: bytes | None = None):
    """The parser.Model of the MaltParser model file at ``path`` (or in ``data``), every part
    checked; MaltpyError naming the file and what is wrong."""
    with reading(path), read_members(path, data) as members:
        return _load(members)


def _load(members: Members):
    """The Model of the .mco's ``members``, its parts read in turn (see the module's docstring)."""
    from ..models.parser import Model
    from ..models.tags import training_values

    infos = [m for m in members.infos if m.endswith(INFO_SUFFIX)]
    require(len(infos) <= 1, f"not a MaltParser model (several reports: {cut(', '.join(sorted(infos)), 100)})")
    require(len(infos) == 1, f"{members.name}/{members.name}{INFO_SUFFIX} is missing (MaltParser's report on the "
                             f"configuration, which names the release that wrote it)")  # fmt: skip
    info = members.text(infos[0])
    release = writing_release(info, f"{members.name}/{infos[0]}")
    version = ".".join(map(str, release))
    options = read_options(members.text("savedoptions.sop"), f"{members.name}/savedoptions.sop")
    config = config_of(options, release)
    algorithm = config.singlemalt.parsing_algorithm
    system = SYSTEMS[algorithm]
    tables = symbol_tables(members)
    data_format, ignored = read_data_format(members, options)
    feature_file = posixpath.basename(options.get(("guide", "features"), "").replace("\\", "/"))
    require(feature_file != "", "option guide features names no feature model")
    source = f"{members.name}/{feature_file}"
    specs = parse_feature_model(bytes(members.get(feature_file, MAX_SMALL_FILE)), source, algorithm)
    deprel_of = DeprelOf(config.pproj) if config.pproj.marks_labels else None
    fm = FeatureModel(specs, algorithm, config.singlemalt.null_value, source, deprel_of, learning=False)
    fm.check_columns(data_format)
    decisions = Decisions(options, tables, system, config.pproj)
    values = Values(fm, tables, config.singlemalt.null_value)
    g = config.guide
    split = data_split(fm, g.data_split_column, g.data_split_structure, g.data_split_threshold)
    parts = Parts(members, release, g.learner, values, decisions)
    models = classifiers(parts, split, g.data_split_column)
    statistics = {
        "treebank": f"unknown: a MaltParser {version} model",
        "maltparser_version": version,
        "maltparser_configuration": members.name,
        "maltparser_options": {f"{g} {n}": v for (g, n), v in sorted(options.items())},
    }
    model = Model(config, fm, decisions.classes, guide_of(models, split), data_format, statistics,
                  ignored_columns=ignored)  # fmt: skip
    # what training held in the tag columns the features read: input without them is refused
    model.tag_values = training_values({name: t.symbols.values() for name, t in tables.items()}, fm.input_columns())
    return model
