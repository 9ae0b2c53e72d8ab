"""LIBSVM, through the ``libsvm-official`` package, as in every SVM experiment of the papers.

MaltParser 1.9.2's settings are the defaults: C-SVC with a polynomial kernel (gamma u'v + r)^d,
d 2, gamma 0.2, r 0, C 1, eps 1.0 (Nivre 2008, §6.1, used C 0.5). LIBSVM trains one-vs-one, and
MaltParser ranks the classes of an instance by their votes. The model is stored as LIBSVM's own
model text; prediction reads it into arrays and counts the votes of a whole batch in C
(``_libsvm.c``), with LIBSVM's own arithmetic in LIBSVM's order, so that ``scores``, the votes,
are svm_predict_values's, to the vote.
"""

from __future__ import annotations

import os
import tempfile

import numpy as np
import scipy.sparse as sp

from ..errors import MaltpyError, require
from ..learner_options import CLASS_WEIGHTS
from ._libsvm import Svm, read_support_vectors
from .base import Classifier

KERNELS = {"linear": 0, "polynomial": 1, "rbf": 2, "sigmoid": 3}  # LIBSVM's numbers, as _libsvm.c takes them


def _number(words: list[str], kind: type, low: float, high: float, name: str):
    """The header field's one number, within low..high."""
    require(len(words) == 1, f"no {name}")
    value = kind(words[0])
    require(low <= value <= high, f"{name} out of range")
    return value


class LibSvm(Classifier):
    """A one-vs-one SVM read from LIBSVM's model text."""

    kind = "libsvm"
    suffix = "libsvm"

    def __init__(self, text: str, width: int, n_classes: int | None = None) -> None:
        self.text = text
        try:
            self._read(text, width, n_classes)
        except (KeyError, IndexError, ValueError) as e:  # a float() or int() of garbage included
            raise ValueError(f"not a LIBSVM model maltpy reads ({e})") from None

    @classmethod
    def fit(cls, X: sp.csr_matrix, y: np.ndarray, n_classes: int, options: dict, shared: None = None) -> LibSvm:
        """Train on instances X (column j is feature index j + 1) with classes y in 0..k-1;
        ``options[CLASS_WEIGHTS]``, if given, weights the cost C by class: {class in 0..k-1: weight}."""
        from libsvm.svmutil import svm_parameter, svm_problem, svm_save_model, svm_train

        weights = options.get(CLASS_WEIGHTS, {})
        flags = " ".join([f"-{k} {v}" for k, v in options.items() if k != CLASS_WEIGHTS] +
                         [f"-w{c} {weights[c]!r}" for c in sorted(weights)])  # fmt: skip
        try:
            model = svm_train(svm_problem(y.astype(float), X), svm_parameter(f"{flags} -q"))
        except ValueError as e:  # LIBSVM's own check of the options against the data (nu infeasible)
            raise MaltpyError(f"lib.options ({flags}): LIBSVM cannot train with them: {e}") from None
        fd, path = tempfile.mkstemp(suffix=".libsvm")
        os.close(fd)
        try:
            svm_save_model(path, model)
            with open(path, encoding="ascii") as f:
                text = f.read()
        finally:
            os.unlink(path)
        try:
            return cls(text, X.shape[1])
        except ValueError as e:  # an overflowing kernel (-d, -g, -r too large) gives inf or nan
            raise MaltpyError(f"lib.options ({flags}): LIBSVM's solution is not usable: {e}") from None

    def _read(self, text: str, width: int, n_classes: int | None = None) -> None:
        """The arrays of the model text; ``width`` is the number of features of its instances.
        A model read from an archive is untrusted: ValueError unless it is a C-SVC model of
        ``n_classes`` classes over ``width`` features, every number finite."""
        header, _, body = text.partition("\nSV\n")
        fields = {}
        for line in header.splitlines():
            key, _, value = line.partition(" ")
            fields[key] = value.split()
        kernel = fields.get("kernel_type", [""])[0]
        require(fields.get("svm_type") == ["c_svc"] and kernel in KERNELS, "not a C-SVC model of a known kernel")
        self.kernel = KERNELS[kernel]
        self.degree = _number(fields.get("degree", ["3"]), int, 0, 20, "degree")
        self.gamma = _number(fields.get("gamma", ["0"]), float, -1e10, 1e10, "gamma")
        self.coef0 = _number(fields.get("coef0", ["0"]), float, -1e10, 1e10, "coef0")
        k = self.n_classes = _number(fields.get("nr_class", []), int, 1, n_classes or 1 << 20, "nr_class")
        require(n_classes is None or k == n_classes, "a model of another number of classes")
        self.labels = [int(x) for x in fields["label"]] if "label" in fields else list(range(k))
        require(sorted(self.labels) == list(range(k)), "labels that are not the model's classes")
        counts = [int(x) for x in fields["nr_sv"]] if "nr_sv" in fields else [0] * k
        self.rho = np.array([float(x) for x in fields.get("rho", [])])
        require(len(counts) == k and min(counts) >= 0 and len(self.rho) == k * (k - 1) // 2, "a malformed header")
        require(bool((np.abs(self.rho) <= 1e100).all()), "a number that is not finite, or beyond ±1e100")
        # The SV lines: k-1 coefficients, then index:value pairs, read (and checked) in C.
        n_sv = self.n_sv = sum(counts)
        require(n_sv <= body.count("\n") + 1, "support vector counts that do not match the SV lines")
        coef, sv_ptr, sv_ind, sv_val = read_support_vectors(body, n_sv, k - 1, width)
        if k < 2:
            return
        # the model as LIBSVM holds it, the nodes of each support vector in the file's order
        starts = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        self.svm = Svm(self.kernel, self.degree, self.gamma, self.coef0, width, k,
                       np.frombuffer(sv_ptr, dtype=np.int64), np.frombuffer(sv_ind, dtype=np.int32),
                       np.frombuffer(sv_val), np.frombuffer(coef), starts, self.rho,
                       np.array(self.labels, dtype=np.int64))  # fmt: skip

    def scores(self, X: sp.csr_matrix) -> np.ndarray:
        """The votes of each class 0..k-1 for each row of X: those of LIBSVM's svm_predict_values.

        Exact by construction, not within a bound: _libsvm.c takes LIBSVM's own floating-point
        operations for each decision value, in LIBSVM's order (class i's support vectors, then
        class j's, each in order, then - rho), and leaves out only the terms whose coefficient
        is zero, whose products are +-0 and change no sum beyond the sign of a zero (a product
        that is NaN, 0 * inf, is kept). A sum in another order must be redone near 0, and 0 is
        common: decision values that are 0 in exact arithmetic take their sign from the order
        of the additions, and gave 411 of la_perseus's 17,904 test instances other votes than
        LIBSVM's with the BLAS products of an earlier maltpy. The exact sum is the fast one: 93% of
        la_perseus's coefficients are zero (a support vector of class i is one in a few of the
        binary problems of i), so it takes 109k multiply-adds an instance, the dense products
        1.5M."""
        X.sort_indices()
        return self._votes(X.indptr.astype(np.int64), X.indices.astype(np.int32), X.data.astype(np.float64))

    def scores_binary(self, indptr, indices) -> np.ndarray:
        return self._votes(indptr, indices, np.ones(len(indices)))

    def _votes(self, indptr, indices, data) -> np.ndarray:
        """The votes of CSR rows whose columns ascend in each row (int64, int32 and float64
        buffers)."""
        k = self.n_classes
        if k < 2:
            return np.ones((len(indptr) - 1, k))
        votes = np.zeros((len(indptr) - 1, k))
        self.svm.votes(indptr, indices, data, votes.reshape(-1))
        return votes

    def to_bytes(self) -> bytes:
        return self.text.encode("ascii")

    @classmethod
    def from_archive(cls, archive, name: str, featuremap, n_classes: int, options: dict) -> LibSvm:
        return cls(archive.text(name), featuremap.size, n_classes)

    def describe_size(self) -> str:
        return f"{self.n_sv} support vectors"
