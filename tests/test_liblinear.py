"""MaltParser's LIBLINEAR solver (maltpy/learners/_liblinear.c) on its own: what it refuses, and
how it shares its random stream. That its weights are MaltParser's is checked where it counts,
on parses: test_maltparser_parity.py and test_pseudoproj.py compare them with MaltParser's outputs."""

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import EXAMPLE

import maltpy
from maltpy.evaluation.scores import attachment_scores
from maltpy.learners import _liblinear
from maltpy.learners.liblinear import JavaRandom, LibLinear

OPTIONS = {"s": 4, "c": 0.1, "e": 0.1, "B": -1}


def problem():
    """Six instances of three classes over five binary features, grouped by class."""
    indptr = np.array([0, 2, 4, 6, 8, 10, 12], dtype=np.int64)
    indices = np.array([0, 1, 0, 2, 1, 3, 2, 3, 3, 4, 0, 4], dtype=np.int32)
    data = np.ones(12)
    y = np.array([0, 0, 1, 1, 2, 2], dtype=np.int32)
    return indptr, indices, data, y


SEED = JavaRandom().state


def train(indptr, indices, data, y, k=3, n_features=5, seed=SEED):
    return _liblinear.train(indptr, indices, data, y, k, n_features, 0.1, 0.1, 100_000, seed)


def test_the_solver_checks_its_problem_before_it_reads_it():
    indptr, indices, data, y = problem()
    weights, _ = train(indptr, indices, data, y)
    assert len(weights) == 5 * 3 * 8
    bad = [
        dict(indices=np.array([1, 0, 0, 2, 1, 3, 2, 3, 3, 4, 0, 4], dtype=np.int32)),  # columns descending
        dict(indices=np.array([0, 0, 0, 2, 1, 3, 2, 3, 3, 4, 0, 4], dtype=np.int32)),  # a column twice
        dict(indices=np.array([0, 1, 0, 2, 1, 3, 2, 3, 3, 5, 0, 4], dtype=np.int32)),  # beyond n_features
        dict(indices=np.array([0, 1, 0, 2, 1, 3, 2, 3, 3, -1, 0, 4], dtype=np.int32)),
        dict(indptr=np.array([0, 2, 4, 6, 8, 10, 13], dtype=np.int64)),  # past the end
        dict(indptr=np.array([0, 4, 2, 6, 8, 10, 12], dtype=np.int64)),  # backwards
        dict(indptr=np.array([1, 2, 4, 6, 8, 10, 12], dtype=np.int64)),
        dict(indptr=np.array([0, 500, 4, 6, 8, 10, 12], dtype=np.int64)),  # a row reaching far past the end
        dict(data=np.array([1.0] * 11 + [np.nan])),  # values must be finite and sane
        dict(data=np.array([1.0] * 11 + [np.inf])),
        dict(data=np.array([1.0] * 11 + [1e200])),
        dict(y=np.array([0, 1, 0, 1, 2, 2], dtype=np.int32)),  # not grouped
        dict(y=np.array([0, 0, 1, 1, 2, 3], dtype=np.int32)),  # a class beyond k
        dict(y=np.array([0, 0, 1, 1, 2], dtype=np.int32)),  # one class short
        dict(data=np.ones(11)),
    ]
    for change in bad:
        args = dict(zip(("indptr", "indices", "data", "y"), problem()))
        args.update(change)
        with pytest.raises(ValueError):
            train(**args)
    with pytest.raises(TypeError):  # wrong item types are refused, not reinterpreted
        train(indptr.astype(np.int32), indices, data, y)
    with pytest.raises(TypeError):
        train(indptr, indices, data.astype(np.float32), y)
    with pytest.raises(ValueError):
        train(indptr, indices, data, y, k=0)


def test_one_stream_for_the_classifiers_of_a_run():
    # The Java port's generator is static: a second classifier continues the first one's stream,
    # and the same run gives the same weights every time.
    X = sp.csr_matrix(np.array([[1, 1, 0, 0], [1, 0, 1, 0], [0, 1, 1, 0], [0, 0, 1, 1], [1, 0, 0, 1]] * 4, dtype=float))
    y = np.array([0, 1, 2, 0, 1] * 4)
    shared = JavaRandom()
    first = LibLinear.fit(X, y, 3, OPTIONS, shared)
    after_first = shared.state
    assert after_first != JavaRandom().state
    second = LibLinear.fit(X, y, 3, OPTIONS, shared)
    assert shared.state != after_first
    again = JavaRandom()
    assert (LibLinear.fit(X, y, 3, OPTIONS, again).weights != first.weights).nnz == 0
    assert again.state == after_first
    assert second.weights.shape == first.weights.shape == (4, 3)
    # each training instance is ranked first by its own class
    assert (first.scores(X).argmax(axis=1) == y).mean() > 0.5


def test_a_single_class_draws_from_the_stream_and_scores_zero():
    # MaltParser trains a classifier with one class too (a data split can make one): its sweep
    # still draws the instance order, so the classifiers after it see the stream moved on.
    X = sp.csr_matrix(np.eye(3))
    shared = JavaRandom()
    model = LibLinear.fit(X, np.zeros(3, dtype=int), 1, OPTIONS, shared)
    assert shared.state != JavaRandom().state
    assert model.weights.shape == (3, 1) and model.weights.nnz == 0
    assert (model.scores(X) == 0).all()


@pytest.mark.parametrize("solver", range(8))
def test_every_liblinear_solver_trains_and_parses(capfd, solver):
    # -s 4 is MaltParser's own; the binary solvers train one-vs-rest, as LIBLINEAR's command does.
    # In this process (the command line's -lo is the same option, test_cli.py): the solvers' C
    # writes nothing to its standard output or error.
    model = maltpy.learn(EXAMPLE / "en-train.conllu", options=f"-s {solver}")
    assert capfd.readouterr() == ("", "") and model.config.lib.options["s"] == solver
    test = EXAMPLE / "en-test.conllu"
    parsed = list(model.parse(maltpy.read_conll(test)))
    assert attachment_scores(maltpy.read_conll(test), parsed, "gold", "parsed").las > 40


def test_scores_are_the_dense_products_values_bit_for_bit():
    # Sparse weights with explicit zeros, numeric feature values and unsorted-looking rows: the
    # scores must equal X @ dense(W) + b exactly, the product MaltParser's sums match.
    rng = np.random.default_rng(7)
    n_features, k = 300, 12
    W = sp.random(n_features, k, density=0.2, random_state=3, format="lil")
    W[:40] = rng.normal(size=(40, k))  # frequent features: weights for every class (dense rows)
    W = sp.csr_matrix(W)
    W.data = W.data * 10.0 ** rng.integers(-8, 3, size=W.nnz)
    W.data[::17] = 0.0  # stored zeros
    X = sp.random(500, n_features, density=0.05, random_state=4, format="csr")
    X.data = np.where(rng.random(X.nnz) < 0.8, 1.0, rng.integers(1, 60, size=X.nnz).astype(float))
    intercept = rng.normal(size=k)
    model = LibLinear(W, intercept)
    expected = X.sorted_indices() @ W.toarray() + intercept
    assert np.array_equal(model.scores(X), expected)


def test_weights_and_scores_refuse_arrays_that_do_not_fit():
    # The weights are copied and checked once, when made; a call checks its rows.
    weights = dict(w_indptr=np.array([0, 1], dtype=np.int64), w_indices=np.array([0], dtype=np.int32),
                   w_data=np.ones(1), dense_of=np.array([-1], dtype=np.int32), dense=np.zeros(0))  # fmt: skip
    rows = dict(indptr=np.array([0, 1], dtype=np.int64), indices=np.array([0], dtype=np.int32), data=np.ones(1))
    model = _liblinear.Weights(*weights.values(), 2)
    out = np.zeros((1, 2))
    model.scores(*rows.values(), out)
    assert out.tolist() == [[1.0, 0.0]]
    broken = {
        "w_indices": np.array([2], dtype=np.int32),  # a class beyond the output
        "dense_of": np.array([0], dtype=np.int32),  # a dense row that is not there
        "w_indptr": np.array([0, 2], dtype=np.int64),  # pointers beyond the weights
    }
    for key, value in broken.items():
        with pytest.raises(ValueError):
            _liblinear.Weights(*{**weights, key: value}.values(), 2)
    with pytest.raises(ValueError):
        model.scores(*{**rows, "indices": np.array([1], dtype=np.int32)}.values(), np.zeros((1, 2)))  # beyond
    with pytest.raises(ValueError):
        model.scores(*rows.values(), np.zeros((2, 2)))  # rows that do not fit
    with pytest.raises(ValueError):
        model.scores(*rows.values(), np.zeros((1, 3)))  # classes that do not fit
