"""LIBLINEAR as MaltParser 1.9.2 uses it (its default learner).

MaltParser trains with ``-s 4`` (the Crammer-Singer multi-class SVM), C 0.1, eps 0.1 and no bias
term, and ranks the classes of an instance by their decision values w_c · x. ``-s 4`` is trained by
``_liblinear_solve.c``, which reproduces the Java port of LIBLINEAR 1.8 that MaltParser bundles to
the last bit: the same solver, the same instance order (grouped by class, as LIBLINEAR groups them),
and the same java.util.Random stream, seeded once per learning run and shared by its classifiers in
MaltParser's order (see ``JavaRandom``). So a model's weights, and its parses, are MaltParser's.

The other solvers come from scikit-learn's bundled LIBLINEAR: ``-s 1/2/3/5`` are ``LinearSVC``
with the matching loss, penalty and dual, ``-s 0/6/7`` are ``LogisticRegression(solver=
"liblinear")``. scikit-learn shuffles with its own random generator, so their weights agree
with MaltParser's only up to the solver's tolerance.

The weights are kept as a sparse matrix (features x classes) in an .npz file; predicting needs
only NumPy and SciPy.
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp

from ..models.archive import npz_bytes
from ._liblinear import Weights, train
from .base import Classifier
from .kinds import LibLinearLearner

SOLVERS = {
    0: ("logistic", {"penalty": "l2", "dual": False}),
    1: ("svc", {"loss": "squared_hinge", "penalty": "l2", "dual": True}),
    2: ("svc", {"loss": "squared_hinge", "penalty": "l2", "dual": False}),
    3: ("svc", {"loss": "hinge", "penalty": "l2", "dual": True}),
    4: ("svc", {"multi_class": "crammer_singer"}),
    5: ("svc", {"loss": "squared_hinge", "penalty": "l1", "dual": False}),
    6: ("logistic", {"penalty": "l1", "dual": False, "l1_ratio": 1.0}),  # l1_ratio: scikit-learn 1.8's way
    7: ("logistic", {"penalty": "l2", "dual": True}),
}


MAX_ITER = 100_000  # LIBLINEAR 1.8's limit on the Crammer-Singer solver's sweeps


class JavaRandom:
    """The state of the java.util.Random that the Java LIBLINEAR draws its instance orders from.

    It is a static field, seeded with 0 when the class loads and never reset by MaltParser, so
    one learning run (one Java process) draws every classifier's orders from one stream: a data
    split's classifiers in the order MaltParser trains them (split values ascending, then the
    master). ``state`` is the generator's 48-bit seed, already scrambled as Random(0) does."""

    def __init__(self) -> None:
        self.state = 0x5DEECE66D


MAX_WEIGHT = 1e100  # a model's weights: far beyond any trained one, far from overflowing a sum


class LibLinear(LibLinearLearner, Classifier):
    """A linear classifier: ``scores(X)`` are the decision values w_c · x (+ bias) of each class."""

    def __init__(self, weights: sp.csr_matrix, intercept: np.ndarray) -> None:
        self.weights = weights  # features x classes; X's column j is feature index j
        self.intercept = intercept
        self._weights: Weights | None = None  # made for scoring, when first needed
        self._biased = bool(np.any(intercept))

    @classmethod
    def fit(cls, X: sp.csr_matrix, y: np.ndarray, n_classes: int, options: dict,
            shared: JavaRandom | None = None) -> LibLinear:  # fmt: skip
        """Train on instances X with classes y in 0..k-1; ``shared`` is the learning run's
        generator (a fresh one if not given)."""
        if int(options["s"]) == 4 and options["B"] <= 0 and len(y):
            weights = _train_crammer_singer(X, y, n_classes, options, shared or JavaRandom())
            return cls(sp.csr_matrix(weights), np.zeros(n_classes))
        if n_classes < 2:
            return cls(sp.csr_matrix((X.shape[1], n_classes)), np.zeros(n_classes))
        weights, intercept = _train(X, y, options)
        return cls(sp.csr_matrix(weights), intercept)

    @classmethod
    def new_shared(cls) -> JavaRandom:
        return JavaRandom()

    def scores(self, X: sp.csr_matrix) -> np.ndarray:
        """w_c · x + b_c for each row, each w_c · x summed by ascending column as MaltParser sums
        it."""
        if not X.has_sorted_indices:
            X = X.sorted_indices()
        indptr, indices = X.indptr.astype(np.int64, copy=False), X.indices.astype(np.int32, copy=False)
        return self._scores(indptr, indices, X.data.astype(np.float64, copy=False))

    def scores_binary(self, indptr, indices) -> np.ndarray:
        return self._scores(indptr, indices, np.ones(len(indices)))

    def _scores(self, indptr, indices, data) -> np.ndarray:
        """The scores of CSR rows whose columns ascend in each row (int64, int32 and float64
        buffers). Crammer-Singer weights are
        sparse (en_lines: 7% of features x classes): a feature's sum runs over its nonzero weights
        only (``_liblinear.Weights``), which gives the values of a product with the dense weights
        (a zero adds nothing) at a fraction of its memory traffic; the features with weights for
        most classes (the frequent ones) keep a dense row, summed in order without indirection.
        The weights are copied and checked once, so that a call costs its rows alone."""
        if self._weights is None:
            w = self.weights.tocsr()
            k = w.shape[1]
            full = np.flatnonzero(np.diff(w.indptr) * 4 >= k * 3)
            dense_of = np.full(w.shape[0], -1, dtype=np.int32)
            dense_of[full] = np.arange(len(full), dtype=np.int32)
            dense = np.ascontiguousarray(w[full].toarray(), dtype=np.float64).ravel()
            self._weights = Weights(w.indptr.astype(np.int64), w.indices.astype(np.int32),
                                               w.data.astype(np.float64), dense_of, dense, k)  # fmt: skip
        out = np.zeros((len(indptr) - 1, self.weights.shape[1]))
        self._weights.scores(indptr, indices, data, out)
        if self._biased:  # Crammer-Singer's are all 0, which adds nothing (a sum is never -0)
            out += self.intercept
        return out

    def to_bytes(self) -> bytes:
        w = self.weights.tocsr()
        return npz_bytes(data=w.data, indices=w.indices, indptr=w.indptr, shape=np.array(w.shape),
                         intercept=self.intercept)  # fmt: skip

    @classmethod
    def from_archive(cls, archive, name: str, featuremap, n_classes: int, options: dict) -> LibLinear:
        """The weights, checked to be a features x classes CSR matrix of finite numbers for this
        feature map and these classes (ValueError if not)."""
        a = archive.arrays(name, ("data", "indices", "indptr", "shape", "intercept"))
        shape, indptr, indices, data, intercept = a["shape"], a["indptr"], a["indices"], a["data"], a["intercept"]
        if shape.dtype.kind not in "iu" or shape.tolist() != [featuremap.size, n_classes]:
            raise ValueError(f"{name}: weights for another feature map or other classes")
        if indptr.dtype.kind not in "iu" or indices.dtype.kind not in "iu" or data.dtype.kind != "f":
            raise ValueError(f"{name}: the weights' arrays are of the wrong types")
        if indptr.ndim != 1 or len(indptr) != featuremap.size + 1 or indices.ndim != 1 or data.shape != indices.shape:
            raise ValueError(f"{name}: the weights' arrays do not fit together")
        if indptr[0] != 0 or int(indptr[-1]) != len(indices) or (np.diff(indptr.astype(np.int64)) < 0).any():
            raise ValueError(f"{name}: the weights' row pointers are not in order")
        if len(indices) and (int(indices.min()) < 0 or int(indices.max()) >= n_classes):
            raise ValueError(f"{name}: a weight for a class out of range")
        if intercept.dtype.kind != "f" or intercept.shape != (n_classes,):
            raise ValueError(f"{name}: bias terms for other classes")
        if not ((np.abs(data) <= MAX_WEIGHT).all() and (np.abs(intercept) <= MAX_WEIGHT).all()):
            raise ValueError(f"{name}: a weight is not a finite number within ±{MAX_WEIGHT:g}")
        arrays = (data.astype(np.float64), indices.astype(np.int32), indptr.astype(np.int64))
        weights = sp.csr_matrix(arrays, shape=(featuremap.size, n_classes))
        return cls(weights, intercept.astype(np.float64))

    def describe_size(self) -> str:
        return f"{self.weights.nnz} weights"


def _train_crammer_singer(X: sp.csr_matrix, y: np.ndarray, n_classes: int, options: dict,
                          random: JavaRandom) -> np.ndarray:  # fmt: skip
    """The weights (features x classes) of LIBLINEAR's -s 4 without bias, as MaltParser's
    LIBLINEAR 1.8 trains them: instances grouped by class, classes in order of first appearance
    (LIBLINEAR's group_classes), each instance's features by ascending column."""
    y = np.asarray(y, dtype=np.int64)
    present, first = np.unique(y, return_index=True)
    by_appearance = present[np.argsort(first, kind="stable")]
    rank = np.zeros(n_classes, dtype=np.int64)
    rank[by_appearance] = np.arange(len(by_appearance))
    grouped = rank[y]
    order = np.argsort(grouped, kind="stable")
    Xg = sp.csr_matrix(X[order], dtype=np.float64)
    Xg.sum_duplicates()  # sorts each row's columns (LIBLINEAR refuses a column twice in a row)
    flat, random.state = train(
        Xg.indptr.astype(np.int64), Xg.indices.astype(np.int32), Xg.data.astype(np.float64),
        grouped[order].astype(np.int32), len(by_appearance), Xg.shape[1],
        float(options["c"]), float(options["e"]), MAX_ITER, random.state,
    )  # fmt: skip
    w = np.frombuffer(flat, dtype=np.float64).reshape(Xg.shape[1], len(by_appearance))
    weights = np.zeros((Xg.shape[1], n_classes))
    weights[:, by_appearance] = w
    return weights


def _train(X: sp.csr_matrix, y: np.ndarray, options: dict) -> tuple[np.ndarray, np.ndarray]:
    """The weights (features x classes, classes in the order 0..k-1 of y) and the bias terms."""
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import LogisticRegression
    from sklearn.svm import LinearSVC

    family, params = SOLVERS[int(options["s"])]
    fit_intercept = options["B"] > 0  # LIBLINEAR's -B: a bias feature of that value (0 adds nothing)
    common = {"C": options["c"], "tol": options["e"], "fit_intercept": fit_intercept, "random_state": 0}
    if fit_intercept:
        common["intercept_scaling"] = options["B"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.simplefilter("ignore", FutureWarning)  # scikit-learn renaming its parameters ...
        warnings.simplefilter("ignore", UserWarning)  # ... and older ones saying l1_ratio is unused
        if family == "svc":  # one-vs-rest for the binary losses, as LIBLINEAR's own command
            model = LinearSVC(max_iter=100_000, **common, **params).fit(X, y)
            coef, intercept = model.coef_, np.asarray(model.intercept_, dtype=float).reshape(-1)
        elif len(np.unique(y)) <= 2:
            model = LogisticRegression(solver="liblinear", max_iter=100_000, **common, **params).fit(X, y)
            coef, intercept = model.coef_, np.asarray(model.intercept_, dtype=float).reshape(-1)
        else:  # scikit-learn's liblinear logistic regression is binary only: one-vs-rest here
            rows = [LogisticRegression(solver="liblinear", max_iter=100_000, **common, **params).fit(X, y == c)
                    for c in range(int(y.max()) + 1)]  # fmt: skip
            coef = np.vstack([r.coef_[0] for r in rows])
            intercept = np.array([float(np.ravel(r.intercept_)[0]) for r in rows])
    if not fit_intercept:
        intercept = np.zeros(len(coef))
    if coef.shape[0] == 1:  # two classes: scikit-learn keeps one weight vector, for class 1
        coef = np.vstack([np.zeros_like(coef[0]), coef[0]])
        intercept = np.array([0.0, intercept[0]])
    return coef.T, intercept
