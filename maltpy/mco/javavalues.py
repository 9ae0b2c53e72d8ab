"""What a Java serialization stream's contents become (``javaser`` reads them), and the budget
of memory they are spent from.

A stream's objects of classes with their own data are ``JavaObject``s, its enum constants
``JavaEnum``s; its bulk, read as arrays rather than object by object: a run of objects of flat
classes (``Records``: MaltParser's maps), an array of arrays of a primitive type (``Rows``:
LIBLINEAR's weights, LIBSVM's coefficients) and an array of arrays of objects of one flat class
(``ObjectRows``: LIBSVM's support vectors).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

BUDGET = 512 << 20  # what one read of a stream may spend by default (read_stream's caller gives its own)


class Budget:
    """The bytes of memory the values read may still take, shared by the streams of one model:
    a model's streams together hold at most what its budget allows."""

    def __init__(self, total: int = BUDGET) -> None:
        self.total = self.left = total

    def spend(self, cost: int) -> bool:
        """Whether ``cost`` was left (and is now spent)."""
        self.left -= cost
        return self.left >= 0


@dataclass(slots=True)
class JavaObject:
    """An object: its class's name, the fields of each class of its hierarchy by name (a field a
    sub class shares with a super class overrides it), and the contents each class's
    ``writeObject`` wrote after its fields (block data as bytes, objects as values)."""

    class_name: str
    fields: dict[str, object] = field(default_factory=dict)
    annotations: list[object] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class JavaEnum:
    class_name: str
    constant: str


@dataclass(slots=True)
class Records:
    """A run of objects of flat classes (``ClassDesc.flat``) read at once, as MaltParser's maps
    hold them by the hundred thousand (a Long and an Integer in turn): ``classes``, the class of
    each object of a period of the run; ``values``, one row a period, the field f of its k-th
    object named ``"k.f"``. Each object takes its handle, in order, as if read one by one; a
    back-reference to one is refused (MaltParser's streams never share them)."""

    classes: tuple[str, ...]
    values: np.ndarray

    def __len__(self) -> int:
        """The number of objects."""
        return len(self.values) * len(self.classes)


@dataclass(slots=True)
class Rows:
    """An array of arrays of a primitive type (LIBLINEAR's double[][] weights, LIBSVM's
    coefficients), kept as places in the stream rather than as an array a row: the arrays written
    in the stream (each once: Java writes an array it wrote before as a back-reference) are
    ``lengths[r]`` values of ``dtype`` from byte ``starts[r]``, and element i is array
    ``source[i]`` (-1 for null)."""

    data: bytes
    dtype: np.dtype
    starts: np.ndarray
    lengths: np.ndarray
    source: np.ndarray

    def __len__(self) -> int:
        return len(self.source)

    def sizes(self) -> np.ndarray:
        """Each element's length (0 for null)."""
        return np.where(self.source >= 0, self.lengths[np.maximum(self.source, 0)] if len(self.lengths) else 0, 0)

    def row(self, i: int) -> np.ndarray | None:
        """Element i's values (None for null)."""
        own = int(self.source[i])
        if own < 0:
            return None
        return np.frombuffer(self.data, self.dtype, int(self.lengths[own]), int(self.starts[own]))

    def gathered(self) -> tuple[np.ndarray, np.ndarray]:
        """Each element's length (0 for null) and all their values, element after element."""
        own = np.concatenate([np.frombuffer(self.data, self.dtype, n, start)
                              for start, n in zip(self.starts.tolist(), self.lengths.tolist())]
                             or [np.zeros(0, self.dtype)]).astype(self.dtype.newbyteorder("="))  # fmt: skip
        ptr = np.concatenate([[0], np.cumsum(self.lengths)]).astype(np.int64)
        source = np.maximum(self.source, 0)
        lengths = self.sizes()
        if len(lengths) == len(self.lengths) and bool((self.source == np.arange(len(lengths))).all()):
            return lengths, own  # no row shared, none null
        ordinal = np.arange(int(lengths.sum()), dtype=np.int64) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        return lengths, own[np.repeat(ptr[source], lengths) + ordinal]


@dataclass(slots=True)
class ObjectRows:
    """An array of arrays of objects of one flat class (LIBSVM's svm_node[][] support vectors),
    every object's fields in one structured array: row i is ``values[ptr[i]:ptr[i + 1]]``."""

    class_name: str
    values: np.ndarray
    ptr: np.ndarray

    def __len__(self) -> int:
        return len(self.ptr) - 1
