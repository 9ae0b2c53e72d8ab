"""LIBSVM, through the ``libsvm-official`` package, as in every SVM experiment of the papers.

MaltParser 1.9.2's settings are the defaults: C-SVC with a polynomial kernel (gamma u'v + r)^d,
d 2, gamma 0.2, r 0, C 1, eps 1.0 (Nivre 2008, §6.1, used C 0.5). LIBSVM trains one-vs-one, and
MaltParser ranks the classes of an instance by their votes. The model is stored as LIBSVM's own
model text; prediction reads it into NumPy arrays and computes the kernel and the one-vs-one
decision values for a whole batch at once (``scores`` are the votes).
"""

from __future__ import annotations

import os
import tempfile

import numpy as np
import scipy.sparse as sp

from ..errors import MaltpyError, require
from .base import Classifier

KERNELS = {"linear": 0, "polynomial": 1, "rbf": 2, "sigmoid": 3}
_CHUNK = 128  # rows per kernel computation: keeps the rows x support vectors matrices small
_PAIR_CELLS = 1 << 22  # and the pairs of classes x rows decision values


def _dot(X: sp.csr_matrix, support: sp.csr_matrix) -> np.ndarray:
    """The dense matrix of dot products sv · x (support vectors x rows). Sparse support vectors
    times dense rows is the fast order; float32 holds counts of shared binary features exactly."""
    dense = X.T.toarray().astype(np.float32)
    return (support @ dense).astype(np.float64)


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
        """Train on instances X (column j is feature index j + 1) with classes y in 0..k-1."""
        from libsvm.svmutil import svm_parameter, svm_problem, svm_save_model, svm_train

        flags = " ".join(f"-{k} {v}" for k, v in options.items())
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
        # The SV lines: k-1 coefficients, then index:value pairs; parsed in one pass.
        lines = body.splitlines()
        n_sv = len(lines)
        require(sum(counts) == n_sv, "support vector counts that do not match the SV lines")
        pairs_per_line = np.array([line.count(":") for line in lines], dtype=int)
        numbers = np.array(body.replace(":", " ").split(), dtype=float)
        require(len(numbers) == n_sv * (k - 1) + 2 * int(pairs_per_line.sum()), "malformed SV lines")
        require(bool((np.abs(numbers) <= 1e100).all() and (np.abs(self.rho) <= 1e100).all()),
              "a number that is not finite, or beyond ±1e100")  # fmt: skip
        line_starts = np.concatenate([[0], np.cumsum(k - 1 + 2 * pairs_per_line)[:-1]]).astype(int)
        coef_at = line_starts[:, None] + np.arange(k - 1)[None, :]
        self.coef = numbers[coef_at] if n_sv else np.zeros((0, k - 1))
        rows = np.repeat(np.arange(n_sv), pairs_per_line)
        pair_starts = np.repeat(line_starts + k - 1, pairs_per_line)
        within = np.arange(len(rows)) - np.repeat(np.cumsum(pairs_per_line) - pairs_per_line, pairs_per_line)
        indices = numbers[pair_starts + 2 * within]
        require(
            bool(((indices >= 1) & (indices <= width) & (indices == np.floor(indices))).all()),
            "a feature index out of range",
        )
        cols = indices.astype(int) - 1
        vals = numbers[pair_starts + 2 * within + 1].astype(np.float32)
        self.support = sp.csr_matrix((vals, (rows, cols)), shape=(n_sv, width))
        self.sv_norms = np.asarray(self.support.multiply(self.support).sum(axis=1), dtype=np.float64).ravel()
        self.starts = np.concatenate([[0], np.cumsum(counts)]).astype(int)
        # Pair p = (i, j), i < j, in LIBSVM's order: its decision is the sum of sv_coef[j-1]
        # times the kernel over class i's support vectors plus sv_coef[i] over class j's, - rho.
        pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
        self.from_i = np.array([i * (k - 1) + j - 1 for i, j in pairs], dtype=int)
        self.from_j = np.array([j * (k - 1) + i for i, j in pairs], dtype=int)
        # class x pair incidence, sparse: a dense one grows as k³ (a crafted nr_class of 1,000
        # would take gigabytes)
        first = np.array([i for i, _ in pairs], dtype=np.int64)
        second = np.array([j for _, j in pairs], dtype=np.int64)
        ones, columns = np.ones(len(pairs)), np.arange(len(pairs))
        self.to_first = sp.csr_matrix((ones, (first, columns)), shape=(k, len(pairs)))
        self.to_second = sp.csr_matrix((ones, (second, columns)), shape=(k, len(pairs)))

    def scores(self, X: sp.csr_matrix) -> np.ndarray:
        """The votes of each class 0..k-1 for each row of X (LIBSVM's svm_predict_values)."""
        k = self.n_classes
        votes = np.zeros((X.shape[0], k))
        if k < 2:
            votes[:, :] = 1
            return votes
        X.sort_indices()
        with np.errstate(all="ignore"):  # a kernel may overflow (a high degree): such a vote is lost, quietly
            return self._votes(X, votes, k)

    def _votes(self, X: sp.csr_matrix, votes: np.ndarray, k: int) -> np.ndarray:
        step = max(1, min(_CHUNK, _PAIR_CELLS // (k * k)))  # rows at a time: k² decisions each
        for start in range(0, X.shape[0], step):
            chunk = X[start : start + step]
            kernel = self._kernel(chunk)  # support vectors x rows
            sums = np.empty((k, k - 1, chunk.shape[0]))  # sums[c] = coef[class c]ᵀ K[class c]
            for c in range(k):
                lo, hi = self.starts[c], self.starts[c + 1]
                sums[c] = self.coef[lo:hi].T @ kernel[lo:hi]
            flat = sums.reshape(k * (k - 1), -1)
            decisions = flat[self.from_i] + flat[self.from_j] - self.rho[:, None]
            wins = (decisions > 0).astype(float)  # LIBSVM: positive is a vote for i, else for j
            votes[start : start + step, self.labels] = (self.to_first @ wins + self.to_second @ (1 - wins)).T
        return votes

    def _kernel(self, X: sp.csr_matrix) -> np.ndarray:
        """K(sv, x) for every support vector and the rows of X, dense (support vectors x rows)."""
        dot = _dot(X, self.support)
        if self.kernel == KERNELS["linear"]:
            return dot
        if self.kernel == KERNELS["polynomial"]:
            if self.coef0 == 0 and self.degree == 2:
                dot *= self.gamma
                return np.square(dot, out=dot)
            return (self.gamma * dot + self.coef0) ** self.degree
        if self.kernel == KERNELS["rbf"]:
            row_norms = np.asarray(X.multiply(X).sum(axis=1)).ravel()
            return np.exp(-self.gamma * (self.sv_norms[:, None] + row_norms[None, :] - 2 * dot))
        return np.tanh(self.gamma * dot + self.coef0)

    def to_bytes(self) -> bytes:
        return self.text.encode("ascii")

    @classmethod
    def from_archive(cls, archive, name: str, featuremap, n_classes: int, options: dict) -> LibSvm:
        return cls(archive.text(name), featuremap.size, n_classes)

    def describe_size(self) -> str:
        return f"{self.support.shape[0]} support vectors"
