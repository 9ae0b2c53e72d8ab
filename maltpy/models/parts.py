"""A trained parser's parts, and their layout in the model archive (archive.py is the zip layer).

The manifest (``manifest.json``) holds, beside archive.py's format and version:

    maltpy_version   the maltpy that wrote the model
    config           the full configuration (``Config.to_dict``)
    data_format      the training treebank's format (conllx, conllu)
    feature_model    {"source", "text", "file_order"}: the feature model's text, where it came
                     from, and the order of its features in the file
    classes          the classes in order of registration, ``T~label`` (MaltParser's
                     ``T.TRANS+A.DEPREL`` classitems: ``RA~nsubj``)
    roots            the training treebank's labels of root words (graph.single_root)
    models           one entry per classifier: name ("main"; or "split:<value>" and "master"
                     with a data split), kind, file, instances, labels (class numbers),
                     positions (feature numbers) and features (its feature map's keys)
    training         statistics of learning
    vocabulary       the member holding the vocabulary (``vocabulary.json``), if kept
    ignored_columns  the columns a parse writes as given text, by number (a MaltParser model's
                     IGNORE columns, "8": "_", "9": "_"), if any
    taggers          the taggers learned with the parser (maltpy.tagging's entry), their members
                     under ``taggers/``, if any (every kind of model: ``taggers_manifest``)

Reading checks every part against the others before use: a damaged or crafted archive is a
MaltpyError ``damaged model: ...``, never a traceback.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from ..config import Config, config_from_dict
from ..data.conll import FORMATS, valid_label
from ..data.direction import END, RIGHT_TO_LEFT
from ..data.pseudoproj import DeprelOf
from ..data.tree import RootLabels
from ..data.vocabulary import Vocabulary
from ..errors import MaltpyError, cut, require
from ..features import FeatureModel, feature_model_from_text
from ..learners import LEARNERS, AtomicModel, map_class
from ..learners.divide import Guide, data_split, guide_of
from ..transition import SYSTEMS
from ..transition.base import LA, RA
from ..version import __version__
from .archive import Archive, write_archive

if TYPE_CHECKING:
    from ..tagging import Taggers

SEPARATOR = "~"  # MaltParser's classitem separator: RA~nsubj
VOCABULARY = "vocabulary.json"  # the archive's member holding the Model's vocabulary
MAX_FEATURE_TEXT = 1 << 20  # characters of a model's feature-model text
MAX_ROOT_TAGS = 10_000  # tags with a label under the root word, in a model's "roots"
TAGGERS = "taggers"  # the manifest's key of the taggers, and the folder of their members


@dataclass
class Classes:
    """The classes (transition, label), numbered in order of registration."""

    items: list[tuple[str, str | None]] = field(default_factory=list)
    index: dict[tuple[str, str | None], int] = field(default_factory=dict)

    def add(self, name: str, label: str | None = None) -> int:
        key = (name, label)
        number = self.index.get(key)
        if number is None:
            number = self.index[key] = len(self.items)
            self.items.append(key)
        return number

    def names(self) -> list[str]:
        return [name if label is None else f"{name}{SEPARATOR}{label}" for name, label in self.items]

    def weighted(self, weights: Mapping[str, float], where: str) -> dict[int, float]:
        """LIBSVM's class weights (learner_options.CLASS_WEIGHTS) by class number: a class takes the weight
        of its full name, else that of its transition. A name that is no class is an error."""
        names = self.names()
        unknown = [w for w in weights if w not in names and all(w != name for name, _ in self.items)]
        if unknown:
            raise MaltpyError(f"lib.options: -w{unknown[0]}: the treebank gives no such class "
                              f"(its classes: {cut(' '.join(names), 200)})", where)  # fmt: skip
        out = {}
        for number, name in enumerate(names):
            weight = weights.get(name, weights.get(self.items[number][0]))
            if weight is not None:
                out[number] = weight
        return out

    @classmethod
    def from_names(cls, names: list[str]) -> Classes:
        classes = cls()
        for text in names:
            name, _, label = text.partition(SEPARATOR)
            classes.add(name, label or None)
        return classes


@dataclass
class ModelParts:
    """What a model archive holds: the arguments of ``parser.Model``, in its order."""

    config: Config
    feature_model: FeatureModel
    classes: Classes
    guide: Guide
    data_format: str
    statistics: dict
    roots: RootLabels | None
    vocabulary: Vocabulary | None
    #: the columns a parse writes as given text (a MaltParser model's IGNORE columns), by number
    ignored_columns: dict[int, str] = field(default_factory=dict)
    taggers: Taggers | None = None


def write_model(path: str | None, parts: ModelParts) -> bytes | None:
    """Write the archive of ``parts`` to ``path`` (whole or not at all); with ``path`` None,
    return its bytes instead (archive.write_archive)."""
    files = {}
    models = []
    for n, model in enumerate(parts.guide.all_models()):
        classifier = model.classifier
        file = f"classifiers/{n:03d}.{classifier.suffix}"
        files[file] = classifier.to_bytes()
        models.append({
            "name": model.name, "kind": classifier.kind, "file": file, "instances": model.instances,
            "labels": model.labels, "positions": model.featuremap.positions,
            "features": model.featuremap.keys(),
        })  # fmt: skip
    common, files[VOCABULARY] = common_manifest(parts.config, parts.data_format, parts.roots, parts.statistics,
                                                parts.vocabulary)  # fmt: skip
    if files[VOCABULARY] is None:
        del files[VOCABULARY]
    manifest = {
        **common,
        "feature_model": {
            "source": parts.feature_model.source,
            "text": parts.feature_model.text(),
            "file_order": parts.feature_model.file_order,
        },
        "classes": parts.classes.names(),
        "models": models,
        **({"ignored_columns": {str(k): v for k, v in parts.ignored_columns.items()}}
           if parts.ignored_columns else {}),
    }  # fmt: skip
    add_taggers(manifest, files, parts.taggers)
    return write_archive(path, manifest, files)


def add_taggers(manifest: dict, files: dict[str, bytes], taggers: Taggers | None) -> None:
    """The taggers' manifest entry (``taggers``) and members (``taggers/...``) added to a model
    archive's ``manifest`` and ``files``, of any kind of model; nothing without taggers."""
    if taggers is None:
        return
    entry, members = taggers.to_archive()
    if not all(name.startswith(f"{TAGGERS}/") and name not in files for name in members):
        raise ValueError("the taggers' members must be named taggers/...")  # a defect of maltpy.tagging
    manifest[TAGGERS] = entry
    files.update(members)


def checked_taggers(archive: Archive) -> Taggers | None:
    """The taggers in ``archive`` (any kind of model), checked by maltpy.tagging (ValueError or a
    MaltpyError "damaged model: ..."); None in a model made without taggers, or before them."""
    entry = archive.manifest.get(TAGGERS)
    if entry is None:
        return None
    from ..tagging import Taggers

    return Taggers.from_archive(archive, entry)


def checked_tokenizer(archive: Archive):
    """The tokenizer learned with the taggers in ``archive``, read and checked alone (not the
    taggers); None in a model without one."""
    entry = archive.manifest.get(TAGGERS)
    if entry is None:
        return None
    from ..tagging.archive import tokenizer_from_archive

    return tokenizer_from_archive(archive, entry)


def common_manifest(config: Config, data_format: str, roots: RootLabels | None, statistics: dict,
                    vocabulary: Vocabulary | None) -> tuple[dict, bytes | None]:  # fmt: skip
    """The manifest's entries every kind of model has (maltpy_version, config, data_format, roots,
    training, vocabulary), and the vocabulary's member (None without one)."""
    manifest = {
        "maltpy_version": __version__,
        "config": config.to_dict(),
        "data_format": data_format,
        "roots": None if roots is None else roots.as_json(),
        "training": statistics,
        **({"vocabulary": VOCABULARY} if vocabulary is not None else {}),
    }
    member = None if vocabulary is None else json.dumps(vocabulary.as_json(), ensure_ascii=False,
                                                        separators=(",", ":")).encode("utf-8")  # fmt: skip
    return manifest, member


@dataclass
class Common:
    """What every kind of model's manifest holds (``common_manifest``), checked."""

    config: Config
    data_format: str
    statistics: dict
    roots: RootLabels | None
    vocabulary: Vocabulary | None


def checked_common(archive: Archive, path: str) -> Common:
    """The entries of ``common_manifest`` in ``archive``'s manifest, each checked (ValueError, or
    another error of a damaged manifest)."""
    m = archive.manifest
    require(isinstance(m.get("config"), dict), "no configuration")
    try:
        config = config_from_dict(m["config"], path)
    except MaltpyError as e:
        raise ValueError(f"its configuration: {e.message}") from None
    singlemalt = config.singlemalt
    if singlemalt.parsing_direction == RIGHT_TO_LEFT and "root_position" not in m["config"].get("singlemalt", {}):
        # made before singlemalt.root_position existed, when a right-to-left model read the root first
        config = replace(config, singlemalt=replace(singlemalt, root_position=END))
    data_format = m.get("data_format")
    require(data_format in FORMATS, "an unknown data format")
    statistics = m.get("training", {})
    require(isinstance(statistics, dict), "training statistics are not a mapping")
    json.dumps(statistics, allow_nan=False)  # ValueError on NaN: info --json must print JSON
    vocabulary = None
    if "vocabulary" in m:  # a model made before the vocabulary was kept has none
        require(m["vocabulary"] == VOCABULARY, "a vocabulary in another file")
        vocabulary = Vocabulary.from_json(json.loads(archive.text(VOCABULARY)))
    return Common(config, data_format, statistics, checked_roots(m.get("roots")), vocabulary)


@contextlib.contextmanager
def open_archive(path: str | os.PathLike, data: bytes | None = None,
                 within: Archive | None = None) -> Iterator[Archive]:  # fmt: skip
    """The archive at ``path`` (or in ``data``, the bytes of one, which ``path`` then names in
    messages; a member of the archive ``within``, read within its budget), open while the block
    runs."""
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"a model's path is a str or a path, not {type(path).__name__}")
    archive = Archive(os.fspath(path), data, within)
    try:
        yield archive
    finally:
        archive.close()


def read_model(archive: Archive) -> ModelParts:
    """The parts of the model in ``archive``, every part checked before use."""
    try:
        return _checked_parts(archive, archive.path)
    except ValueError as e:
        raise MaltpyError(f"damaged model: {cut(e)}", archive.path) from None
    except (KeyError, TypeError, IndexError, AttributeError, RecursionError) as e:
        raise MaltpyError(f"damaged model: {type(e).__name__}: {cut(e)}", archive.path) from None


def _checked_parts(archive: Archive, path: str) -> ModelParts:
    """The manifest's parts, each checked (ValueError, or another error of a damaged manifest)."""
    m = archive.manifest
    common = checked_common(archive, path)
    config = common.config
    algorithm = config.singlemalt.parsing_algorithm
    require(algorithm in SYSTEMS, f"a model of {cut(algorithm, 20)} without its parts")
    fm = _checked_feature_model(m.get("feature_model"), config, path)
    classes = _checked_classes(m.get("classes"), SYSTEMS[algorithm].transitions)
    entries = m.get("models")
    require(isinstance(entries, list) and entries, "no classifiers")
    require(all(isinstance(e, dict) for e in entries), "a classifier is not a mapping")
    _check_names([e.get("name") for e in entries], config.guide.data_split_column is not None)
    atomic = {entry["name"]: _load_classifier(archive, entry, config, classes, fm) for entry in entries}
    ignored = m.get("ignored_columns", {})  # a MaltParser model's IGNORE columns (mco/options.py)
    require(isinstance(ignored, dict) and all(k in ("8", "9") and isinstance(v, str) and valid_label(v)
                                              for k, v in ignored.items()), "bad ignored columns")  # fmt: skip
    g = config.guide
    guide = guide_of(atomic, data_split(fm, g.data_split_column, g.data_split_structure, g.data_split_threshold))
    return ModelParts(config, fm, classes, guide, common.data_format, common.statistics, common.roots,
                      common.vocabulary, {int(k): v for k, v in ignored.items()}, checked_taggers(archive))  # fmt: skip


def _checked_feature_model(stored: object, config: Config, path: str) -> FeatureModel:
    """The feature model of the manifest, its text compiled and its file order checked."""
    require(isinstance(stored, dict) and isinstance(stored.get("text"), str)
           and isinstance(stored.get("source"), (str, type(None))), "no feature model text")  # fmt: skip
    require(len(stored["text"]) <= MAX_FEATURE_TEXT, "the feature model text is too long")
    deprel_of = DeprelOf(config.pproj) if config.pproj.marks_labels else None
    fm = feature_model_from_text(stored["text"], config.singlemalt.parsing_algorithm, config.singlemalt.null_value,
                                 path, deprel_of)  # fmt: skip
    fm.source = stored["source"]
    order = stored.get("file_order", fm.file_order)  # an archive made before this key has none
    require(isinstance(order, list) and all(type(i) is int for i in order)
            and sorted(order) == list(range(len(fm))), "a feature order not of its features")  # fmt: skip
    fm.file_order = order
    return fm


def _load_classifier(archive: Archive, entry: dict, config: Config, classes: Classes, fm: FeatureModel) -> AtomicModel:
    """One classifier of the archive, its manifest entry checked against the model first."""
    kind = entry.get("kind")
    require(kind == config.guide.learner, f"a {cut(kind)} classifier in a {config.guide.learner} model")
    labels, positions = entry.get("labels"), entry.get("positions")
    require(_ints(labels, len(classes.items)) and labels and len(set(labels)) == len(labels),
           "a classifier's classes are not classes of the model")  # fmt: skip
    require(_ints(positions, len(fm.specs)) and sorted(set(positions)) == positions,
           "a classifier's feature positions are not features of the feature model")  # fmt: skip
    require(type(entry.get("instances")) is int and entry["instances"] >= 0, "a bad instance count")
    require(isinstance(entry.get("file"), str), "a classifier without its file")
    featuremap = map_class(kind).from_keys(positions, entry.get("features"), fm.nulls)
    learner = LEARNERS[kind].classifier()
    classifier = learner.from_archive(archive, entry["file"], featuremap, len(labels), config.lib.options)
    return AtomicModel(entry["name"], featuremap, labels, classifier, entry["instances"])


def _ints(values: object, below: int) -> bool:
    """A list of integers in 0..below-1."""
    return isinstance(values, list) and all(type(v) is int and 0 <= v < below for v in values)


def _check_names(names: list, split: bool) -> None:
    """ "main" alone without a data split; with one, "split:<value>" names and "master" last."""
    if not split:
        require(names == ["main"], "classifier names that do not fit a model without a data split")
        return
    require(all(isinstance(n, str) and (n.startswith("split:") or n == "master") for n in names)
           and len(set(names)) == len(names) and "master" not in names[:-1],
           "classifier names that do not fit a model with a data split")  # fmt: skip


def checked_roots(stored: object) -> RootLabels | None:
    """The root labels of a model's manifest (None for a model made before they were kept), or
    ValueError if they are not labels."""
    if stored is None:
        return None
    require(isinstance(stored, dict) and set(stored) == {"root", "under", "default"}, "root labels are not a mapping")
    under = stored["under"]
    require(isinstance(under, dict) and len(under) <= MAX_ROOT_TAGS, "root labels: not a mapping of tags")
    labels = [stored["root"], stored["default"], *under.values()]
    require(all(isinstance(x, str) and valid_label(x) for x in labels + list(under)), "root labels: not labels")
    return RootLabels(stored["root"], dict(under), stored["default"])


def _checked_classes(names: object, transitions: tuple[str, ...]) -> Classes:
    """The model's classes: ``transitions`` of the model's system, with a label (valid CoNLL
    field text) exactly when they make an arc, each once."""
    require(isinstance(names, list) and names and all(isinstance(n, str) for n in names), "no classes")
    classes = Classes.from_names(names)
    require(len(classes.items) == len(names), "a class twice")
    for name, label in classes.items:
        require(name in transitions, f"a transition its algorithm does not have: {cut(name, 20)}")
        require((label is not None) == (name in (LA, RA)), f"a class {cut(name, 20)} with a wrong label")
        require(label is None or valid_label(label), f"a label that is not CoNLL field text: {cut(label)!r}")
    return classes
