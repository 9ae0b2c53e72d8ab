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

KERNELS = {"linear": 0, "polynomial": 1, "rbf": 2, "sigmoid": 3}
_CHUNK = 256  # rows per kernel computation: keeps the rows x support vectors matrix small


class LibSvm:
    """A one-vs-one SVM read from LIBSVM's model text."""

    kind = "libsvm"

    def __init__(self, text: str, width: int) -> None:
        self.text = text
        self._read(text, width)

    @classmethod
    def fit(cls, X: sp.csr_matrix, y: np.ndarray, n_classes: int, options: dict) -> LibSvm:
        """Train on instances X (column j is feature index j + 1) with classes y in 0..k-1."""
        from libsvm.svmutil import svm_parameter, svm_problem, svm_save_model, svm_train

        flags = " ".join(f"-{k} {v}" for k, v in options.items())
        model = svm_train(svm_problem(y.astype(float), X), svm_parameter(f"{flags} -q"))
        fd, path = tempfile.mkstemp(suffix=".libsvm")
        os.close(fd)
        try:
            svm_save_model(path, model)
            with open(path, encoding="ascii") as f:
                text = f.read()
        finally:
            os.unlink(path)
        return cls(text, X.shape[1])

    def _read(self, text: str, width: int) -> None:
        """The arrays of the model text; ``width`` is the number of features of its instances."""
        header, _, body = text.partition("\nSV\n")
        fields = {}
        for line in header.splitlines():
            key, _, value = line.partition(" ")
            fields[key] = value.split()
        self.kernel = KERNELS[fields["kernel_type"][0]]
        self.degree = int(fields.get("degree", ["3"])[0])
        self.gamma = float(fields.get("gamma", ["0"])[0])
        self.coef0 = float(fields.get("coef0", ["0"])[0])
        k = int(fields["nr_class"][0])
        self.n_classes = k
        self.labels = [int(x) for x in fields["label"]] if "label" in fields else list(range(k))
        counts = [int(x) for x in fields["nr_sv"]] if "nr_sv" in fields else [0] * k
        rho = np.array([float(x) for x in fields["rho"]]) if "rho" in fields else np.zeros(0)
        coef_rows, rows, cols, vals = [], [], [], []
        for r, line in enumerate(body.splitlines()):
            parts = line.split()
            coef_rows.append([float(x) for x in parts[: k - 1]])
            for item in parts[k - 1 :]:
                index, _, value = item.partition(":")
                rows.append(r)
                cols.append(int(index) - 1)
                vals.append(float(value))
        n_sv = len(coef_rows)
        self.support = sp.csr_matrix((vals, (rows, cols)), shape=(n_sv, width))
        self.support_norms = np.asarray(self.support.multiply(self.support).sum(axis=1)).ravel()
        # One column per pair (i, j), i < j: sv_coef[j-1] on the support vectors of class i and
        # sv_coef[i] on those of class j (LIBSVM's svm_predict_values), so decisions = K @ C - rho.
        starts = np.concatenate([[0], np.cumsum(counts)])
        coef = np.array(coef_rows).reshape(n_sv, max(k - 1, 0))
        c_rows, c_cols, c_vals, first, second = [], [], [], [], []
        pair = 0
        for i in range(k):
            for j in range(i + 1, k):
                on_i = np.arange(starts[i], starts[i + 1])
                on_j = np.arange(starts[j], starts[j + 1])
                c_rows += [on_i, on_j]
                c_cols.append(np.full(len(on_i) + len(on_j), pair))
                c_vals += [coef[on_i, j - 1], coef[on_j, i]]
                first.append(i)
                second.append(j)
                pair += 1
        c_rows = np.concatenate(c_rows) if c_rows else np.zeros(0, dtype=int)
        c_cols = np.concatenate(c_cols) if c_cols else np.zeros(0, dtype=int)
        c_vals = np.concatenate(c_vals) if c_vals else np.zeros(0)
        self.pair_coef = sp.csr_matrix((c_vals, (c_rows, c_cols)), shape=(n_sv, pair))
        self.rho = rho
        # votes = wins @ to_first + losses @ to_second, with one row per pair
        self.to_first = sp.csr_matrix((np.ones(pair), (np.arange(pair), first)), shape=(pair, k))
        self.to_second = sp.csr_matrix((np.ones(pair), (np.arange(pair), second)), shape=(pair, k))

    def scores(self, X: sp.csr_matrix) -> np.ndarray:
        """The votes of each class 0..k-1 for each row of X."""
        votes = np.zeros((X.shape[0], self.n_classes))
        if self.n_classes < 2:
            votes[:, :] = 1
            return votes
        for start in range(0, X.shape[0], _CHUNK):
            chunk = X[start : start + _CHUNK]
            product = self._kernel(chunk) @ self.pair_coef
            decisions = (product.toarray() if sp.issparse(product) else np.asarray(product)) - self.rho
            wins = decisions > 0  # LIBSVM: a positive decision is a vote for i, otherwise for j
            votes[start : start + _CHUNK, self.labels] = wins @ self.to_first + ~wins @ self.to_second
        return votes

    def _kernel(self, X: sp.csr_matrix):
        dot = X @ self.support.T
        if self.kernel == KERNELS["linear"]:
            return dot
        if self.kernel == KERNELS["polynomial"]:
            if self.coef0 == 0:  # zero stays zero: keep it sparse
                dot = dot.tocsr()
                dot.data = (self.gamma * dot.data) ** self.degree
                return dot
            return (self.gamma * dot.toarray() + self.coef0) ** self.degree
        if self.kernel == KERNELS["rbf"]:
            norms = np.asarray(X.multiply(X).sum(axis=1))
            return np.exp(-self.gamma * (norms + self.support_norms - 2 * dot.toarray()))
        return np.tanh(self.gamma * dot.toarray() + self.coef0)

    def to_text(self) -> str:
        return self.text
