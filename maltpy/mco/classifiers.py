"""The classifiers of an .mco as maltpy's: ``odm0.<learner>.moo`` (MaltParser's
MaltLiblinearModel or MaltLibsvmModel) with its FeatureMap ``odm0.<learner>.map``, or, with a data
split (``odm0.dsm``), one such pair ``odm0.NNN.<learner>.*`` a split value of code NNN and the
master's. Each becomes an AtomicModel: the same columns in the same order (``features`` says how
a map's keys become maltpy's feature values), the same weights, so the same scores. Each stream is
read by ``javaser`` holding these classes only, and every array is checked against the others
(and against the decision table and the symbol tables) before use, so that a member of another
model is refused, naming it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from ..errors import cut, require
from ..features.spec import MULTI_VALUED
from ..learners import LEARNERS, AtomicModel
from ..learners.divide import DataSplit
from ..learners.encoding import FeatureMap
from ..learners.liblinear import MAX_WEIGHT, LibLinear
from ..learners.libsvm import KERNELS, LibSvm
from .container import MAX_MCO_VARIABLE, Members
from .features import Decisions, Values, symbol, table_name
from .javaser import StreamError, read_stream
from .javavalues import JavaEnum, JavaObject, ObjectRows, Records, Rows
from .text import MCOError

#: The classes a stream may hold (besides javaser.BOXES), with the SolverType of both packages.
LIBLINEAR_CLASSES = frozenset({"org.maltparser.ml.lib.MaltLiblinearModel", "liblinear.SolverType",
                               "de.bwaldvogel.liblinear.SolverType"})  # fmt: skip
LIBSVM_CLASSES = frozenset({"org.maltparser.ml.lib.MaltLibsvmModel", "libsvm.svm_parameter", "libsvm.svm_node"})
MAP_CLASSES = frozenset({"org.maltparser.ml.lib.FeatureMap", "org.maltparser.core.helper.HashMap"})
SOLVERS = ("L2R_LR", "L2R_L2LOSS_SVC_DUAL", "L2R_L2LOSS_SVC", "L2R_L1LOSS_SVC_DUAL", "MCSVM_CS",
           "L1R_L2LOSS_SVC", "L1R_LR", "L2R_LR_DUAL")  # fmt: skip
#: What a LIBLINEAR weight takes in memory: its number and column in the weights (CSR), and its
#: native copy on the way.
WEIGHT_COST = 20
#: A column no maltpy feature value reaches: a key of the map whose code has no such value.
UNREACHED = "\t"
BOXED = {"java.lang.Long": 0, "java.lang.Integer": 1}


@dataclass
class Parts:
    """What each classifier of an .mco is read against: the members, the release that wrote them,
    the learner, the values of the symbol tables' codes and the decision table."""

    members: Members
    release: tuple[int, ...]
    learner: str
    values: Values
    decisions: Decisions


def classifiers(parts: Parts, split: DataSplit, column: str | None) -> dict[str, AtomicModel]:
    """The classifiers by maltpy's names: ``main`` without a data split (no ``column``); with
    one, ``split:<value>`` for each split value that odm0.dsm lists, in its order, and ``master``
    last (as maltpy's archives keep it) if it has instances. Their classes are checked against the
    decision table."""
    fm, tables = parts.values.fm, parts.values.tables
    models = {}
    if column is None:
        models["main"] = _classifier(parts, "odm0", "main", list(range(len(fm))), 0)
    else:
        table = tables.get(column)
        require(table is not None, f"no symbol table of the data split's column {column}")
        reduced = [p for p in range(len(fm)) if p != split.position]
        for code, count in _divisions(parts.members.text("odm0.dsm")):
            if code == -1:
                if count > 0:
                    models["master"] = _classifier(parts, "odm0", "master", list(range(len(fm))), count)
                continue
            value = symbol(table, code)
            require(value is not None, f"odm0.dsm: split value code {code} is not in table {column}")
            models[f"split:{value}"] = _classifier(parts, f"odm0.{code:03d}", f"split:{value}", reduced, count)
        if "master" in models:
            models["master"] = models.pop("master")  # the last, as maltpy's archives keep it
        require(models, "odm0.dsm lists no classifier")
    check_classes(models, parts.decisions, f"odm0.{LEARNERS[parts.learner].maltparser_file}.moo")
    return models


def _divisions(text: str) -> list[tuple[int, int]]:
    """The data split's table (odm0.dsm): (code, frequency) a line, -1 the master."""
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        found = re.fullmatch(r"(-1|\d{1,9})\t(\d{1,12})", line)
        if found is None:
            raise MCOError("odm0.dsm", number, "not a split value's code and frequency")
        out.append((int(found.group(1)), int(found.group(2))))
    require(len({c for c, _ in out}) == len(out), "odm0.dsm lists a split value twice")
    return out


def _classifier(parts: Parts, stem: str, name: str, positions: list[int], instances: int) -> AtomicModel:
    """The classifier ``stem.<learner>.moo`` with its map ``.map``, as a maltpy AtomicModel
    reading the features at ``positions`` (0-based, in the feature vector's order). Each member is
    checked against what it must fit, so that a member of another model (another release's,
    treebank's, algorithm's) is refused, naming it: the map's keys against the feature vector and
    its symbol tables (_check_keys), then the weights against the map and the decision table."""
    suffix = LEARNERS[parts.learner].maltparser_file
    moo, map_member = f"{stem}.{suffix}.moo", f"{stem}.{suffix}.map"
    keys, indices = _feature_map(parts.members, map_member)
    position, code = _check_keys(keys, positions, parts.values, map_member)
    if parts.learner == "liblinear":
        weights, labels = _liblinear(parts, moo, map_member, len(indices))
        width = weights.shape[0]
    else:
        # the feature of each learner index, 0 for a feature of several values
        single = np.array([0] + [p if parts.values.fm.specs[q].feature.name not in MULTI_VALUED else 0
                                 for p, q in enumerate(positions, 1)])  # fmt: skip
        feature_of = np.zeros(len(indices) + 1, dtype=np.int64)
        feature_of[indices] = single[position]
        svm, labels, width = _libsvm(parts, moo, map_member, feature_of)
    fmap = _map(position, code, indices, width, positions, parts.values)
    classifier = LibLinear(weights, np.zeros(len(labels))) if parts.learner == "liblinear" else svm
    return AtomicModel(name, fmap, [parts.decisions.number[c] for c in labels.tolist()], classifier, instances)


def _check_keys(keys: np.ndarray, positions: list[int], values: Values, member: str) -> tuple[np.ndarray, np.ndarray]:
    """The feature (1-based position) and code of each key (position << 48 | code) of the map
    ``member``; ValueError, naming the map, for a key of a feature beyond the feature vector, or of
    a code that its feature's symbol table does not have (MaltParser's FeatureMap holds the codes
    its features met in training: every one is in the tables it wrote beside it)."""
    position = keys >> 48
    code = keys & ((1 << 48) - 1)
    require(bool(((position >= 1) & (position <= len(positions))).all()),
            f"{member}: a key of a feature beyond the feature vector's {len(positions)}")  # fmt: skip
    features = np.unique(position).tolist()
    codes = {p: values.codes(positions[p - 1]) for p in features}  # a feature without its table first
    for p in features:
        outside = code[(position == p) & ~np.isin(code, np.fromiter(codes[p], dtype=np.int64))]
        if len(outside):
            feature = values.fm.specs[positions[p - 1]].feature
            raise ValueError(f"{member}: a key of code {int(outside[0])} for feature {p} ({cut(str(feature), 100)}), "
                             f"a code its symbol table {cut(table_name(feature), 100)} does not have (another "
                             f"model's map?)")  # fmt: skip
    return position, code


def check_classes(models: dict[str, AtomicModel], decisions: Decisions, member: str) -> None:
    """ValueError unless the classifiers' classes are the decision table's, every one: MaltParser
    codes a decision when training first meets it, as an instance of one of the classifiers, each
    of which learns every class of its instances (the main one, without a data split, all)."""
    learned = set().union(*(model.labels for model in models.values()))
    if len(learned) != len(decisions.classes.items):
        which = member if set(models) == {"main"} else "the classifiers of odm0.dsm"
        raise ValueError(f"{which}: {len(learned)} classes, where the decision table has "
                         f"{len(decisions.classes.items)} (another model's?)")  # fmt: skip


def _map(position: np.ndarray, code: np.ndarray, indices: np.ndarray, width: int, positions: list[int],
         values: Values) -> FeatureMap:  # fmt: skip
    """maltpy's FeatureMap of MaltParser's: the key (``position``, ``code``) of learner index i
    (1-based) as column i - 1 for (feature, value), every column 0..width-1 named (a column no
    value reaches under a name no feature gives, ``UNREACHED``)."""
    fmap = FeatureMap(positions, values.fm.nulls)
    named = np.zeros(width, dtype=bool)
    for p, c, i in zip(position.tolist(), code.tolist(), indices.tolist()):
        table = fmap.tables[p - 1]
        for value in values.of(positions[p - 1]).get(c, ()):
            if value not in table:
                table[value] = i - 1
                named[i - 1] = True
    for column in np.flatnonzero(~named).tolist():
        fmap.tables[0][f"{UNREACHED}{column}"] = column
    fmap.size = width
    return fmap


def _labels(value: object, count: int, member: str, decisions: Decisions) -> np.ndarray:
    """A model's class codes: ``count`` of them, each once, each in the decision table (checked
    before the weights are read: their number is the classes')."""
    labels = _ints(value, f"{member}: labels")
    require(len(labels) == count, f"{member}: {len(labels)} labels for {count} classes")
    require(len(set(labels.tolist())) == len(labels), f"{member}: a class twice")
    unknown = [c for c in labels.tolist() if c not in decisions.number]
    require(not unknown, f"{member}: class code {unknown[:1]} is not in the decision table")
    return labels


def _liblinear(parts: Parts, member: str, map_member: str, map_size: int) -> tuple[sp.csr_matrix, np.ndarray]:
    """The weights (features x classes, classes in the model's order) and class codes of a
    MaltLiblinearModel: 1.5's weights one flat array, feature by feature (nr_w a feature: 1 for
    two classes with another solver than MCSVM_CS); 1.6's on a row a feature, trailing zeros cut,
    a row maybe shared or null. Its features are its map's, ``map_size`` (MaltParser learns on
    as many as the map holds: LibLinear's problem.n), one more allowed in 1.5."""
    members = parts.members
    m = _stream(members, member, LIBLINEAR_CLASSES, "org.maltparser.ml.lib.MaltLiblinearModel").fields
    nr_class, nr_feature = m.get("nr_class"), m.get("nr_feature")
    require(type(nr_class) is int and 1 <= nr_class <= 1 << 20 and type(nr_feature) is int and nr_feature >= 0,
            f"{member}: bad class or feature counts")  # fmt: skip
    widths = (map_size, map_size + 1) if parts.release[:2] < (1, 6) else (map_size,)
    require(nr_feature in widths, f"{member}: weights of {nr_feature} features, where {map_member} maps "
                                  f"{map_size}: one of the two is another model's")  # fmt: skip
    labels = _labels(m.get("labels"), nr_class, member, parts.decisions)
    solver = m.get("solverType")
    require(isinstance(solver, JavaEnum) and solver.constant in SOLVERS, f"{member}: an unknown solver")
    bias = m.get("bias")
    require(isinstance(bias, float), f"{member}: no bias")
    w = m.get("w")
    if isinstance(w, np.ndarray):  # 1.5
        nr_w = 1 if nr_class == 2 and solver.constant != "MCSVM_CS" else nr_class
        require(w.dtype == ">f8" and len(w) >= nr_feature * nr_w,
                f"{member}: {len(w)} weights for {nr_feature} features")  # fmt: skip
        block = w[: nr_feature * nr_w].reshape(nr_feature, nr_w)
        counts = np.count_nonzero(block, axis=1)
        members.spend(WEIGHT_COST * int(counts.sum()), member)
        mask = block != 0
        data = block[mask].astype(np.float64)
        columns = np.broadcast_to(np.arange(nr_w, dtype=np.int32), block.shape)[mask]
        del mask
    else:
        require(isinstance(w, Rows) and w.dtype == ">f8" and len(w) == nr_feature,
                f"{member}: not a weight row a feature")  # fmt: skip
        # a row shared by back-reference (MaltParser 1.6 on writes equal rows once) is one for
        # each feature that shares it: what the rows become is spent before it is made
        counts = w.sizes()
        require(not len(counts) or int(counts.max()) <= nr_class, f"{member}: a weight row longer than the classes")
        members.spend(WEIGHT_COST * int(counts.sum()), member)
        _, data = w.gathered()
        ordinal = np.arange(len(data), dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)
        columns = ordinal.astype(np.int32)  # each weight's class: its place in its row
    data = _doubles(data, f"{member}: w")
    indptr = np.concatenate([[0], np.cumsum(counts)])
    weights = sp.csr_matrix((data, columns, indptr), shape=(nr_feature, nr_class))
    weights.eliminate_zeros()
    return weights, labels


def _libsvm(parts: Parts, member: str, map_member: str, feature_of: np.ndarray) -> tuple[LibSvm, np.ndarray, int]:
    """A MaltLibsvmModel as maltpy's LibSvm (LIBSVM's classes 0..k-1 in the model's order), its
    class codes, and the number of features it reads: its map's, every support vector's node
    within them, as MaltParser's training gives them. A support vector is a training instance,
    one value of each feature (Split's, several), so that it holds no two nodes that its map
    ``map_member`` gives one feature (``feature_of``: the feature of each learner index, 1-based;
    0 for a feature of several values)."""
    members, decisions = parts.members, parts.decisions
    m = _stream(members, member, LIBSVM_CLASSES, "org.maltparser.ml.lib.MaltLibsvmModel").fields
    param = m.get("param")
    require(isinstance(param, JavaObject) and param.class_name == "libsvm.svm_parameter", f"{member}: no parameters")
    p = param.fields
    require(p.get("svm_type") == 0, f"{member}: svm_type {cut(p.get('svm_type'), 20)}: maltpy parses with C-SVC only")
    require(p.get("kernel_type") in KERNELS.values(), f"{member}: an unknown kernel_type")
    require(type(p.get("degree")) is int and all(isinstance(p.get(x), float) for x in ("gamma", "coef0")),
            f"{member}: bad kernel parameters")  # fmt: skip
    nr_class, count = m.get("nr_class"), m.get("l")
    require(type(nr_class) is int and nr_class >= 1 and type(count) is int and count >= 0, f"{member}: bad counts")
    labels = _labels(m.get("label"), nr_class, member, decisions)
    n_sv = _ints(m.get("nSV"), f"{member}: nSV")
    rho = _doubles(m.get("rho"), f"{member}: rho")
    coef = m.get("sv_coef")
    vectors = m.get("SV")
    require(len(n_sv) == nr_class and int(n_sv.sum()) == count and (n_sv >= 0).all()
            and len(rho) == nr_class * (nr_class - 1) // 2, f"{member}: class counts that do not fit")  # fmt: skip
    require(isinstance(coef, Rows) and coef.dtype == ">f8" and len(coef) == nr_class - 1,
            f"{member}: sv_coef is not one row a class but one")  # fmt: skip
    lengths, values = coef.gathered()
    require(bool((lengths == count).all()), f"{member}: sv_coef rows of another length than l")
    coefficients = _doubles(values, f"{member}: sv_coef").reshape(nr_class - 1, count)
    require(isinstance(vectors, ObjectRows) and vectors.class_name == "libsvm.svm_node" and len(vectors) == count,
            f"{member}: not l support vectors of svm_nodes")  # fmt: skip
    nodes, sv_ptr = vectors.values, vectors.ptr
    if len(nodes):
        kinds = {name: nodes.dtype[name].str[1:] for name in nodes.dtype.names or ()}
        require(kinds == {"index": "i4", "value": "f8"}, f"{member}: svm_nodes without an index and a value")
        sv_ind = nodes["index"].astype(np.int64)
        sv_val = _doubles(nodes["value"], f"{member}: a support vector's values")
    else:
        sv_ind, sv_val = np.zeros(0, dtype=np.int64), np.zeros(0)
    inside = np.ones(len(sv_ind), dtype=bool)
    inside[sv_ptr[:-1][sv_ptr[:-1] < len(sv_ind)]] = False  # False where a support vector starts
    require(bool((sv_ind > 0).all()) and bool((np.diff(sv_ind) > 0)[inside[1:]].all()),
            f"{member}: support vector nodes out of order")  # fmt: skip
    width = len(feature_of) - 1
    require(not len(sv_ind) or int(sv_ind.max()) <= width,
            f"{member}: a support vector node of a feature index beyond the map's {width}")  # fmt: skip
    feature = feature_of[sv_ind]
    vector = np.repeat(np.arange(count, dtype=np.int64), np.diff(sv_ptr))[feature > 0]
    pairs = vector * (int(feature_of.max()) + 1) + feature[feature > 0]  # (support vector, feature)
    require(len(np.unique(pairs)) == len(pairs),
            f"{member}: a support vector of two values of one feature, as {map_member} numbers them: one of "
            f"the two is another model's")  # fmt: skip
    try:
        svm = LibSvm.from_arrays(p["kernel_type"], p["degree"], p["gamma"], p["coef0"], width, n_sv, rho,
                                 coefficients, sv_ptr, sv_ind, sv_val)  # fmt: skip
    except ValueError as e:
        raise ValueError(f"{member}: {e}") from None
    return svm, labels, width


def _feature_map(members: Members, member: str) -> tuple[np.ndarray, np.ndarray]:
    """The FeatureMap's keys and indices (MaltParser's own HashMap of Long to Integer, which
    writes its capacity and size, then each key and its value)."""
    fmap = _stream(members, member, MAP_CLASSES, "org.maltparser.ml.lib.FeatureMap")
    table = fmap.fields.get("map")
    require(isinstance(table, JavaObject) and table.class_name == "org.maltparser.core.helper.HashMap",
            f"{member}: the feature map holds no HashMap")  # fmt: skip
    items = table.annotations
    require(len(items) >= 1 and isinstance(items[0], bytes) and len(items[0]) == 8, f"{member}: not a HashMap's data")
    size = int.from_bytes(items[0][4:], "big", signed=True)
    classes, numbers = _boxed(items[1:], member)
    require(size >= 0 and len(classes) == 2 * size,
            f"{member}: a HashMap of {size} entries holds {len(classes)} values")  # fmt: skip
    require(bool((classes[0::2] == 0).all() and (classes[1::2] == 1).all()),
            f"{member}: a feature map entry is not a Long and an Integer")  # fmt: skip
    keys, indices = numbers[0::2], numbers[1::2]
    # MaltParser numbers the features 1, 2, ... as it first meets them (FeatureMap.addIndex), in
    # every release: an index twice would merge two features, one beyond the map's size would
    # make a learner as wide as the index says
    require(size == 0 or (int(indices.min()) == 1 and int(indices.max()) == size and len(np.unique(indices)) == size),
            f"{member}: its feature indices are not 1 to {size}, each once")  # fmt: skip
    return keys, indices


def _boxed(items: list, member: str) -> tuple[np.ndarray, np.ndarray]:
    """The class (BOXED) and number of each boxed number of ``items`` (JavaObjects and Records)."""
    classes, numbers = [], []
    for item in items:
        if isinstance(item, Records):
            require(all(c in BOXED for c in item.classes), f"{member}: a feature map holds other than numbers")
            period = len(item.classes)
            kinds = np.empty(len(item), dtype=np.int8)
            values = np.empty(len(item), dtype=np.int64)
            for k, name in enumerate(item.classes):
                kinds[k::period] = BOXED[name]
                values[k::period] = item.values[f"{k}.value"]
            classes.append(kinds)
            numbers.append(values)
        else:
            require(isinstance(item, JavaObject) and item.class_name in BOXED and type(item.fields.get("value")) is int,
                    f"{member}: a feature map holds other than numbers")  # fmt: skip
            classes.append(np.array([BOXED[item.class_name]], dtype=np.int8))
            numbers.append(np.array([item.fields["value"]], dtype=np.int64))
    if not classes:
        return np.zeros(0, dtype=np.int8), np.zeros(0, dtype=np.int64)
    return np.concatenate(classes), np.concatenate(numbers)


def _stream(members: Members, member: str, classes: frozenset[str], class_name: str) -> JavaObject:
    try:
        contents = read_stream(members.get(member), classes, members.budget)
    except StreamError as e:
        beyond = f" ({MAX_MCO_VARIABLE} allows more)" if members.budget.left < 0 else ""
        raise StreamError(f"{member}: {e}{beyond}") from None
    require(len(contents) == 1 and isinstance(contents[0], JavaObject) and contents[0].class_name == class_name,
            f"{member} is not one {class_name.rsplit('.', 1)[-1]}")  # fmt: skip
    return contents[0]


def _ints(value: object, what: str) -> np.ndarray:
    require(isinstance(value, np.ndarray) and value.dtype.kind == "i" and value.ndim == 1, f"{what} is not an int[]")
    return value.astype(np.int64)


def _doubles(value: object, what: str) -> np.ndarray:
    require(isinstance(value, np.ndarray) and value.dtype.kind == "f" and value.dtype.itemsize == 8,
            f"{what} is not a double[]")  # fmt: skip
    out = value.astype(np.float64, copy=False)
    require(len(out) == 0 or (out.min() >= -MAX_WEIGHT and out.max() <= MAX_WEIGHT),  # NaN fails both
            f"{what}: a number that is not finite, or beyond ±{MAX_WEIGHT:g}")  # fmt: skip
    return out
