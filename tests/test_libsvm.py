"""maltpy's LIBSVM prediction (maltpy/learners/_libsvm.c) against LIBSVM's own svm_predict_values,
vote for vote: on the instances of a real parse, on decision values that are zero in exact
arithmetic (where only LIBSVM's order of additions settles the vote), and on random models of
every kernel, with instances that take each of the C file's paths."""

from ctypes import c_double

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import DATA, SWEMALT, assert_one_line_error, requires_shared, run_maltpy
from libsvm import svm as libsvm
from libsvm.svmutil import svm_load_model, svm_parameter, svm_problem, svm_save_model, svm_train

from maltpy.learners import _libsvm
from maltpy.learners.libsvm import LibSvm
from maltpy.models.parser import Model


def libsvm_votes(path, X: sp.csr_matrix) -> np.ndarray:
    """The votes of LIBSVM itself for the rows of X, from the decision values of
    svm_predict_values for the model text at ``path`` (column j of X is feature j + 1)."""
    model = svm_load_model(str(path))
    k, labels = model.get_nr_class(), np.array(model.get_labels())
    first, second = np.triu_indices(k, 1)  # the pairs (i, j), i < j, in LIBSVM's order
    decisions = (c_double * max(1, len(first)))()
    votes = np.zeros((X.shape[0], k))
    for r in range(X.shape[0]):
        row = slice(X.indptr[r], X.indptr[r + 1])
        nodes, _ = libsvm.gen_svm_nodearray((X.indices[row].astype(np.int64), X.data[row].astype(np.float64)))
        libsvm.libsvm.svm_predict_values(model, nodes, decisions)
        d = np.frombuffer(decisions, dtype=np.float64, count=len(first))
        np.add.at(votes[r], labels[np.where(d > 0, first, second)], 1)
    return votes


def assert_libsvms_votes(text: str, X: sp.csr_matrix, tmp_path) -> np.ndarray:
    path = tmp_path / "model.libsvm"
    path.write_text(text)
    ours = LibSvm(text, X.shape[1]).scores(X.copy())
    theirs = libsvm_votes(path, X)
    different = np.flatnonzero((ours != theirs).any(axis=1))
    assert len(different) == 0, f"rows {different[:10]}: {ours[different[:3]]} != {theirs[different[:3]]}"
    return ours


def model_text(kernel: str, rho: list[float], classes: list[list[tuple[list[float], str]]], **params) -> str:
    """LIBSVM model text: per class, its support vectors as (coefficients, 'index:value ...')."""
    header = [f"svm_type c_svc\nkernel_type {kernel}"]
    header += [f"{key} {value}" for key, value in params.items()]
    header += [f"nr_class {len(classes)}", f"total_sv {sum(map(len, classes))}", "rho " + " ".join(map(repr, rho))]
    header += ["label " + " ".join(map(str, range(len(classes)))), "nr_sv " + " ".join(str(len(c)) for c in classes)]
    lines = [" ".join(map(repr, coef)) + " " + nodes for c in classes for coef, nodes in c]
    return "\n".join(header + ["SV"] + lines) + "\n"


@requires_shared
def test_the_votes_of_a_parse_are_libsvms(tmp_path, monkeypatch, swemalt_model):
    # nivreeager on swemalt-mini: every instance the parser asks about, recorded as it asks
    model = Model.load(swemalt_model("nivreeager", "libsvm"))
    asked = []
    count, width = LibSvm._votes, model.guide.master.featuremap.size

    def recorded(self, indptr, indices, data):
        rows = (np.array(data), np.array(indices), np.array(indptr))  # NumPy arrays or array.array
        asked.append(sp.csr_matrix(rows, shape=(len(indptr) - 1, width)))
        return count(self, indptr, indices, data)

    monkeypatch.setattr(LibSvm, "_votes", recorded)
    model.parse_conll((SWEMALT / "gold" / "sv-stb-dep-mini-test.conll").read_text(encoding="utf-8"))
    X = sp.vstack(asked, format="csr")
    assert X.shape[0] > 4000
    classifier = model.guide.master.classifier
    votes = assert_libsvms_votes(classifier.text, X, tmp_path)
    assert (votes.sum(axis=1) == classifier.n_classes * (classifier.n_classes - 1) // 2).all()
    # one or two at a time, as a long sentence's configurations come (not in a block of lanes):
    # the same votes
    indptr, indices = X.indptr.astype(np.int64), X.indices.astype(np.int32)
    for k in (1, 2):
        alone = [classifier.scores_binary(indptr[r : r + k + 1] - indptr[r], indices[indptr[r] : indptr[r + k]])
                 for r in range(0, 600, k)]  # fmt: skip
        assert np.array_equal(np.vstack(alone), votes[:600])


def test_a_decision_that_is_zero_in_exact_arithmetic(tmp_path):
    # One instance x sharing feature 1 with every support vector (linear kernel: each kernel
    # value is 1). Class 0's coefficients -0.9 and -0.5, class 1's 0.4 and 1.0, rho 0: the sum is
    # 0 in exact arithmetic. In LIBSVM's order, ((-0.9 - 0.5) + 0.4) + 1.0 is 2^-53 > 0, a vote
    # for class 0; summed class by class, as maltpy's BLAS products did, (-0.9 - 0.5) + (0.4 +
    # 1.0) is 0, a vote for class 1.
    sv = [[([-0.9], "1:1"), ([-0.5], "1:1 2:1")], [([0.4], "1:1 3:1"), ([1.0], "1:1")]]
    text = model_text("linear", [0.0], sv)
    x = sp.csr_matrix(np.array([[1.0, 0.0, 0.0]]))
    assert (assert_libsvms_votes(text, x, tmp_path) == [[1, 0]]).all()
    assert ((-0.9 - 0.5) + 0.4) + 1.0 > 0 == (-0.9 - 0.5) + (0.4 + 1.0)
    # decision values exactly 0 are votes for the second class: here 0.5 - 0.5 - 0, and
    # 0.25 + 0.5 - 0.75, rho equal to the sum
    for coefficients, rho in (([0.5], [-0.5]), 0.0), (([0.25, 0.5], [0.0]), 0.75):
        first, second = coefficients
        sv = [([c], "1:1") for c in first], [([c], "1:1") for c in second]
        assert (assert_libsvms_votes(model_text("linear", [rho], list(sv)), x, tmp_path) == [[0, 1]]).all()
    # and within a block of 32 instances, beside instances that vote otherwise
    X = sp.csr_matrix(np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]] * 20))
    assert_libsvms_votes(text, X, tmp_path)


def random_instances(rng, n_rows: int, width: int, length: int) -> sp.csr_matrix:
    """Binary rows of about ``length`` features, frequent features more often (as POS tags are)."""
    p = 1.0 / np.arange(1, width + 1) ** 0.8
    rows = [np.unique(rng.choice(width, size=rng.integers(1, length + 1), p=p / p.sum())) for _ in range(n_rows)]
    indptr = np.concatenate([[0], np.cumsum([len(r) for r in rows])])
    return sp.csr_matrix((np.ones(indptr[-1]), np.concatenate(rows), indptr), shape=(n_rows, width))


def trained(X: sp.csr_matrix, y: np.ndarray, options: str, tmp_path) -> str:
    path = tmp_path / "trained.libsvm"
    svm_save_model(str(path), svm_train(svm_problem(y.astype(float), X), svm_parameter(options + " -q")))
    return path.read_text()


@pytest.mark.parametrize(
    "options",
    [
        "-t 1 -d 2 -g 0.2 -r 0 -c 1",
        "-t 1 -d 3 -g 0.1 -r 0.7 -c 0.5",
        "-t 0 -c 0.1",
        "-t 2 -g 0.3",
        "-t 3 -g 0.05 -r -0.2",
    ],
)
def test_random_models_of_every_kernel(tmp_path, options):
    rng = np.random.default_rng(7)
    X = random_instances(rng, 400, 60, 12)
    y = rng.integers(0, 6, size=400)
    text = trained(X, y, options, tmp_path)

    def wide(X):  # instances may have features the model never saw: columns 60..399
        return sp.hstack([X, sp.csr_matrix((X.shape[0], 400 - X.shape[1]))], format="csr")

    tests = [wide(random_instances(rng, 100, 60, 12))]  # several blocks, binary: counted
    tests.append(sp.csr_matrix((3, 400)))  # no features at all
    tests.append(random_instances(rng, 40, 400, 120))  # blocks cut at 255 features between them
    tests.append(random_instances(rng, 2, 400, 400)[[0, 0, 1]])  # 255 features and more: merged
    numbers = random_instances(rng, 40, 60, 12)
    numbers.data = rng.choice([1.0, 2.0, 0.5, -1.25], size=numbers.nnz)  # not binary: merged
    tests.append(wide(numbers))
    tests.append(sp.csr_matrix((np.ones(4), [3, 3, 5, 9], [0, 3, 4]), shape=(2, 400)))  # a feature twice: merged
    for X_test in tests:
        assert_libsvms_votes(text, X_test, tmp_path)
    # the same instances mixed in one batch, so that blocks hold lanes of every kind
    mixed = sp.vstack(tests, format="csr")
    assert_libsvms_votes(text, mixed[rng.permutation(mixed.shape[0])], tmp_path)


def test_support_vectors_that_are_not_binary(tmp_path):
    # a numeric feature in the training instances: the model's support vectors hold other values
    rng = np.random.default_rng(3)
    X = random_instances(rng, 200, 40, 8).tolil()
    X[:, 39] = rng.integers(1, 9, size=(200, 1)).astype(float)
    y = rng.integers(0, 4, size=200)
    text = trained(X.tocsr(), y, "-t 1 -d 2 -g 0.2 -r 0 -c 1", tmp_path)
    assert_libsvms_votes(text, random_instances(rng, 50, 40, 8), tmp_path)


def test_kernel_values_that_overflow(tmp_path):
    # A kernel value beyond the largest double: LIBSVM's sums take inf, and 0 * inf = NaN from a
    # zero coefficient, and a NaN decision value is a vote for the second class; maltpy counts
    # the same votes. (gamma u'v)^20 of a large feature value, and exp(-gamma |u - v|^2) of a
    # negative gamma.
    sv = [[([1.0, -1.0], "1:1 2:1"), ([0.5, 0.0], "3:1")], [([-1.0, 1.0], "1:1")], [([0.0, -0.5], "2:1 3:1")]]
    X = sp.csr_matrix(np.array([[1.0, 1.0, 0.0], [0.0, 0.0, 1e30], [0.0, 0.0, 0.0], [1.0, 0.0, 1.0]] * 9))
    for kernel, params in ("polynomial", dict(degree=20, gamma=1e10, coef0=0)), ("rbf", dict(gamma=-1e10)):
        votes = assert_libsvms_votes(model_text(kernel, [0.1, -0.2, 0.3], sv, **params), X, tmp_path)
        assert votes.sum() == 36 * 3


def test_a_model_of_many_classes_one_instance_at_a_time(tmp_path):
    # 520 classes are 134,940 pairs: more than a block's sums may take, so each instance is
    # counted alone; with a kernel that overflows, zero coefficients count too
    rng = np.random.default_rng(5)
    k = 520
    pairs = k * (k - 1) // 2

    def sv(nodes):
        coef = np.where(rng.random(k - 1) < 0.1, rng.normal(size=k - 1).round(3), 0.0)
        return coef.tolist(), nodes

    classes = [[] for _ in range(k)]
    classes[0] = [sv("1:1 2:1"), sv("2:1")]
    classes[7] = [sv("1:1 3:1")]
    classes[k - 1] = [sv("3:1")]
    X = sp.csr_matrix(np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 0.0], [1.0, 1.0, 1e30], [0.0, 0.0, 0.0]]))
    for params in dict(degree=2, gamma=0.2, coef0=0), dict(degree=20, gamma=1e10, coef0=0):
        rho = rng.normal(size=pairs).round(3).tolist()
        assert_libsvms_votes(model_text("polynomial", rho, classes, **params), X, tmp_path)


def test_the_support_vectors_are_read_strictly():
    # the SV lines are read in C: what LIBSVM writes, and nothing else
    text = model_text("linear", [0.5], [[([0.25], "1:1 3:1")], [([-1e-05], "2:0.5")]])
    assert LibSvm(text, 3).n_sv == 2
    header, sv, lines = text.partition("\nSV\n")
    assert LibSvm(header + sv + lines.replace("\n", "\r\n"), 3).n_sv == 2  # lines ending in \r\n
    for good, bad in [
        ("3:1", "4:1"),  # an index beyond the width
        ("3:1", "0:1"),
        ("3:1", "3.0:1"),  # an index LIBSVM does not write
        ("3:1", "+3:1"),
        ("3:1", "3:1e101"),  # beyond +-1e100
        ("3:1", "3:nan"),
        ("3:1", "3:1_0"),  # Python's float() would read these
        ("3:1", "3:\u0661"),
        ("3:1", "3: 1"),
        ("3:1", "3:1:1"),
        ("0.25", "0.25 0.25"),  # a coefficient too many
        ("0.25 1:1", "1:1"),  # one short
        ("0.25 1:1", "0x1p2 1:1"),
        ("0.25 1:1", "inf 1:1"),
        ("3:1\n", "3:1\n\n"),  # a line too many
        ("3:1\n", "3:1\x0b"),
        ("3:1\n", "3:1\r"),
        ("3:1\n", "3:1\x00"),
        ("nr_sv 1 1", "nr_sv 1 2"),  # a line too few
        ("nr_sv 1 1", "nr_sv 1 99999999999999999999"),
    ]:
        assert good in text
        with pytest.raises(ValueError):
            LibSvm(text.replace(good, bad, 1), 3)


def test_the_c_model_checks_its_arrays():
    def svm(**change):
        arrays = dict(sv_ptr=np.array([0, 1, 2], dtype=np.int64), sv_ind=np.array([0, 1], dtype=np.int32),
                      sv_val=np.ones(2), coef=np.array([1.0, -1.0]), start=np.array([0, 1, 2], dtype=np.int64),
                      rho=np.zeros(1), label=np.array([0, 1], dtype=np.int64))  # fmt: skip
        arrays.update(change)
        return _libsvm.Svm(1, 2, 0.2, 0.0, 2, 2, *arrays.values())

    model = svm()
    out = np.zeros(2)
    model.votes(np.array([0, 1], dtype=np.int64), np.array([0], dtype=np.int32), np.ones(1), out)
    assert out.tolist() == [1.0, 0.0]
    for bad in [
        dict(sv_ind=np.array([0, 2], dtype=np.int32)),  # beyond n_features
        dict(sv_ind=np.array([0, -1], dtype=np.int32)),
        dict(sv_ptr=np.array([0, 2, 1], dtype=np.int64)),  # offsets going back
        dict(sv_ptr=np.array([0, 1, 3], dtype=np.int64)),  # past the end
        dict(start=np.array([0, 2, 1], dtype=np.int64)),
        dict(label=np.array([1, 1], dtype=np.int64)),  # not a permutation
        dict(coef=np.array([1.0, np.inf])),
        dict(rho=np.array([np.nan])),
        dict(sv_val=np.array([1.0, np.nan])),
        dict(coef=np.array([1.0])),  # a coefficient short
    ]:
        with pytest.raises(ValueError):
            svm(**bad)
    with pytest.raises(TypeError):
        svm(sv_ind=np.array([0, 1], dtype=np.int64))
    rows = dict(indptr=np.array([0, 2], dtype=np.int64), indices=np.array([0, 1], dtype=np.int32), data=np.ones(2))
    model.votes(*rows.values(), np.zeros(2))
    for bad in [
        dict(indices=np.array([1, 0], dtype=np.int32)),  # descending
        dict(indices=np.array([0, 2], dtype=np.int32)),  # beyond n_features
        dict(indptr=np.array([0, 3], dtype=np.int64)),  # past the end
        dict(indptr=np.array([1, 2], dtype=np.int64)),
    ]:
        with pytest.raises(ValueError):
            model.votes(*{**rows, **bad}.values(), np.zeros(2))
    with pytest.raises(ValueError):  # an output of the wrong size
        model.votes(np.array([0, 1], dtype=np.int64), np.array([0], dtype=np.int32), np.ones(1), np.zeros(3))


# --- class weights (-w<class> <weight>) -------------------------------------------------------
#
# LIBSVM's -wi multiplies C by the weight for the instances of class i (svm.cpp, svm_train:
# weighted_C[i] = C * weight[i]; each pairwise problem (i, j) bounds class i's alphas by
# weighted_C[i]). MaltParser 1.9.2 refuses -w (LibSvm.getAllowedLibOptionFlags is "stdgrnmcepb");
# 1.7 handed it to LIBSVM by class number. maltpy names the class instead.

TALBANKEN = DATA / "maltparser-examples" / "talbanken05_train.conll"


def learned_libsvm(tmp_path, name: str, options: str) -> Model:
    path = tmp_path / f"{name}.mpm"
    result = run_maltpy("learn", "-q", "-l", "libsvm", "-i", TALBANKEN, "-m", path, "-lo", options)
    assert result.returncode == 0, result.stderr.decode()
    return Model.load(path)


def largest_coefficients(model: Model) -> dict[str, float]:
    """By class name: the largest |coefficient| of the class's support vectors in the model's one
    LIBSVM classifier (the alphas of its instances, bounded by their weighted C)."""
    atomic = model.guide.master
    header, _, body = atomic.classifier.text.partition("\nSV\n")
    fields = dict(line.split(" ", 1) for line in header.splitlines())
    local = [int(x) for x in fields["label"].split()]
    counts = [int(x) for x in fields["nr_sv"].split()]
    rows, names, k = body.splitlines(), model.classes.names(), len(local)
    largest, start = {}, 0
    for label, n in zip(local, counts):
        coefficients = [abs(float(x)) for row in rows[start : start + n] for x in row.split()[: k - 1]]
        largest[names[atomic.labels[label]]] = max(coefficients, default=0.0)
        start += n
    return largest


@requires_shared
def test_class_weights_bound_the_alphas_of_the_classes_they_name(tmp_path):
    plain = largest_coefficients(learned_libsvm(tmp_path, "plain", "-c 1"))
    assert plain["RA~HD"] == plain["LA~VA"] == 1.0  # at the bound C: a weight below 1 must move them
    weighted = largest_coefficients(learned_libsvm(tmp_path, "weighted", "-c 1 -wRA~HD 0.25 -wLA 0.25 -wLA~VA 0.5"))
    assert weighted["RA~HD"] == 0.25  # a class named in full
    assert weighted["LA~VA"] == 0.5  # its full name over its transition's weight
    assert max(v for c, v in weighted.items() if c.startswith("LA~") and c != "LA~VA") <= 0.25  # every LA class
    assert max(v for c, v in weighted.items() if not c.startswith("LA~") and c != "RA~HD") <= 1.0
    assert weighted != plain


@requires_shared
def test_the_same_weight_on_every_class_is_a_larger_c(tmp_path):
    scaled = learned_libsvm(tmp_path, "c2", "-c 2")
    weighted = learned_libsvm(tmp_path, "w2", "-c 1 -wRE 2 -wSH 2 -wLA 2 -wRA 2")
    assert weighted.guide.master.classifier.text == scaled.guide.master.classifier.text
    assert dict(weighted.config.lib.options["w"]) == {"RE": 2.0, "SH": 2.0, "LA": 2.0, "RA": 2.0}


@requires_shared
def test_a_weight_for_a_class_the_treebank_lacks_is_an_error(tmp_path):
    out = tmp_path / "none.mpm"
    result = run_maltpy("learn", "-q", "-l", "libsvm", "-i", TALBANKEN, "-m", out, "-lo", "-wLA~nsubj 2")
    message = assert_one_line_error(result, str(TALBANKEN))
    assert "-wLA~nsubj: the treebank gives no such class" in message and "LA~AT" in message
    assert not out.exists()
