"""MaltParser's LIBLINEAR solver (maltpy/learners/_liblinear.c) on its own: what it refuses, and
how it shares its random stream. That its weights are MaltParser's is checked where it counts,
on parses: test_parser.py and test_pseudoproj.py compare them with MaltParser's outputs."""

import json

import numpy as np
import pytest
import scipy.sparse as sp
from conftest import EXAMPLE, run_maltpy

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
def test_every_liblinear_solver_trains_and_parses(tmp_path, solver):
    # -s 4 is MaltParser's own; the binary solvers train one-vs-rest, as LIBLINEAR's command does
    model, parsed = tmp_path / "m.mpm", tmp_path / "parsed.conllu"
    test = EXAMPLE / "en-test.conllu"
    result = run_maltpy("learn", "-q", "-i", EXAMPLE / "en-train.conllu", "-m", model, "-lo", f"-s {solver}")
    assert result.returncode == 0 and result.stderr == b"", result.stderr.decode()
    assert run_maltpy("parse", "-m", model, "-i", test, "-o", parsed).returncode == 0
    scores = json.loads(run_maltpy("eval", "--json", test, parsed).stdout)
    assert scores["LAS"] > 40
