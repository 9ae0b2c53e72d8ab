"""LIBSVM, through the ``libsvm-official`` package, as in every SVM experiment of the papers.

MaltParser 1.9.2's settings are the defaults: C-SVC with a polynomial kernel (gamma u'v + r)^d,
d 2, gamma 0.2, r 0, C 1, eps 1.0 (Nivre 2008, §6.1, used C 0.5). LIBSVM trains one-vs-one, and
MaltParser ranks the classes of an instance by their votes. The model is stored as LIBSVM's own
model text; prediction reads it into arrays and counts the votes of a whole batch in C
(``_libsvm_votes.c``), with LIBSVM's own arithmetic in LIBSVM's order, so that ``scores``, the
votes, are svm_predict_values's, to the vote.
"""

from __future__ import annotations

import os
import tempfile

import numpy as np
import scipy.sparse as sp

from ..errors import MaltpyError, require
from ._libsvm import Svm, read_support_vectors
from .base import Classifier
from .kinds import CLASS_WEIGHTS, LibSvmLearner

KERNELS = {"linear": 0, "polynomial": 1, "rbf": 2, "sigmoid": 3}  # LIBSVM's numbers, as _libsvm.c takes them


def _number(words: list[str], kind: type, low: float, high: float, name: str):
    """The header field's one number, within low..high."""
    require(len(words) == 1, f"no {name}")
    value = kind(words[0])
    require(low <= value <= high, f"{name} out of range")
    return value


class LibSvm(LibSvmLearner, Classifier):
    """A one-vs-one SVM read from LIBSVM's model text."""

    def __init__(self, text: str, width: int, n_classes: int | None = None) -> None:
        self._text = text
        try:
            self._read(text, width, n_classes)
        except (KeyError, IndexError, ValueError) as e:  # a float() or int() of garbage included
            raise ValueError(f"not a LIBSVM model maltpy reads ({e})") from None

    @classmethod
    def from_arrays(cls, kernel: int, degree: int, gamma: float, coef0: float, width: int, counts: np.ndarray,
                    rho: np.ndarray, coef: np.ndarray, sv_ptr: np.ndarray, sv_ind: np.ndarray,
                    sv_val: np.ndarray) -> LibSvm:  # fmt: skip
        """A C-SVC model given as arrays, as a model text would give them (``_read``), its classes
        0..k-1 in LIBSVM's order: ``counts`` support vectors of each class, ``coef`` (k-1 rows of
        one coefficient a support vector), the support vectors' indices (1..width, ascending in
        each) and values at ``sv_ptr[s]:sv_ptr[s+1]``. ValueError if they do not fit together.
        (MaltParser's models, mco/classifiers.py; the text is written when the model is saved.)"""
        k, n_sv = len(counts), int(np.sum(counts))
        require(k >= 1 and kernel in KERNELS.values(), "not a C-SVC model of a known kernel")
        require(0 <= degree <= 20, f"degree {degree}, not 0 to 20")
        require(abs(gamma) <= 1e10 and abs(coef0) <= 1e10, "gamma or coef0 not a number within ±1e10")
        require(rho.shape == (k * (k - 1) // 2,) and coef.shape == (k - 1, n_sv) and sv_ptr.shape == (n_sv + 1,)
                and sv_ptr[0] == 0 and sv_ptr[-1] == len(sv_ind) == len(sv_val)
                and bool((np.diff(sv_ptr) >= 0).all()), "arrays that do not fit together")  # fmt: skip
        require(not len(sv_ind) or (int(sv_ind.min()) >= 1 and int(sv_ind.max()) <= width),
                "an index beyond the features")  # fmt: skip
        numbers = (rho, coef, sv_val)
        require(all(bool((np.abs(x) <= 1e100).all()) for x in numbers), "a number that is not finite, or beyond ±1e100")
        model = cls.__new__(cls)
        model._text = None
        model.kernel, model.degree, model.gamma, model.coef0 = kernel, degree, gamma, coef0
        model.n_classes, model.labels, model.n_sv, model.rho = k, list(range(k)), n_sv, rho.astype(np.float64)
        model._arrays = (width, np.asarray(counts, dtype=np.int64), coef, sv_ptr, sv_ind, sv_val)
        if k >= 2:
            starts = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
            model.svm = Svm(kernel, degree, gamma, coef0, width, k, sv_ptr.astype(np.int64),
                            (sv_ind - 1).astype(np.int32), sv_val.astype(np.float64),  # columns from 0
                            np.ascontiguousarray(coef.T, dtype=np.float64).reshape(-1), starts, model.rho,
                            np.arange(k, dtype=np.int64))  # fmt: skip
        return model

    @property
    def text(self) -> str:
        """The model as LIBSVM's model text (of a model made from arrays, written when first asked
        for: every number as Python's repr, which reads back to the same double)."""
        if self._text is None:
            width, counts, coef, sv_ptr, sv_ind, sv_val = self._arrays
            kernels = {number: name for name, number in KERNELS.items()}
            header = [
                "svm_type c_svc", f"kernel_type {kernels[self.kernel]}", f"degree {self.degree}",
                f"gamma {self.gamma!r}", f"coef0 {self.coef0!r}", f"nr_class {self.n_classes}",
                f"total_sv {self.n_sv}", "rho " + " ".join(map(repr, self.rho.tolist())),
                "label " + " ".join(map(str, self.labels)), "nr_sv " + " ".join(map(str, counts.tolist())), "SV",
            ]  # fmt: skip
            coefficients = coef.T.tolist()
            indices, values, ptr = sv_ind.tolist(), sv_val.tolist(), sv_ptr.tolist()
            lines = [" ".join([*map(repr, coefficients[s]),
                               *map("{}:{!r}".format, indices[ptr[s]:ptr[s + 1]], values[ptr[s]:ptr[s + 1]])])
                     for s in range(self.n_sv)]  # fmt: skip
            self._text = "\n".join(header + lines) + "\n"
        return self._text

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

        Exact by construction, not within a bound: _libsvm_votes.c takes LIBSVM's own floating-point
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
