"""The model archive: one zip file holding data only.

    manifest.json       format version, maltpy version, the full configuration, the feature
                        model text, symbol tables, classes, training statistics
    <classifier files>  each classifier in a native format: LIBSVM model text, NumPy .npz

Nothing in an archive is code: JSON is read with ``json``, arrays with
``numpy.load(allow_pickle=False)``, LIBSVM models by maltpy's own reader. A file that is not
a zip, lacks the manifest, or comes from another format version is a MaltpyError.
"""

from __future__ import annotations

import io
import json
import math
import zipfile
from typing import Any

import numpy as np

from .errors import MaltpyError
from .files import atomic_output

FORMAT = "maltpy-model"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"


def write_archive(path: str, manifest: dict[str, Any], files: dict[str, bytes]) -> None:
    """Write the archive atomically (a failed run leaves no file)."""
    manifest = {"format": FORMAT, "format_version": FORMAT_VERSION, **manifest}
    with atomic_output(path) as out:
        with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as z:
            z.writestr(MANIFEST, json.dumps(manifest, ensure_ascii=False, separators=(",", ":")))
            for name, data in files.items():
                z.writestr(name, data)


class Archive:
    """An opened model archive: its manifest and access to its files."""

    def __init__(self, path: str) -> None:
        self.path = path
        try:
            self._zip = zipfile.ZipFile(path)
        except FileNotFoundError:
            raise MaltpyError("no such model file", path) from None
        except IsADirectoryError:
            raise MaltpyError("is a directory, not a model file", path) from None
        except (zipfile.BadZipFile, OSError) as e:
            raise MaltpyError(f"not a maltpy model (not a zip archive: {e})", path) from None
        try:
            manifest = json.loads(self._read(MANIFEST).decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise MaltpyError(f"damaged model: {MANIFEST} is not JSON ({e})", path) from None
        if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
            raise MaltpyError("not a maltpy model (no maltpy manifest)", path)
        if manifest.get("format_version") != FORMAT_VERSION:
            raise MaltpyError(
                f"model format version {manifest.get('format_version')} is not supported "
                f"(this maltpy reads version {FORMAT_VERSION})",
                path,
            )
        self.manifest = manifest

    def _read(self, name: str) -> bytes:
        try:
            return self._zip.read(name)
        except KeyError:
            raise MaltpyError(f"damaged model: {name} is missing", self.path) from None
        except (zipfile.BadZipFile, OSError, EOFError) as e:
            raise MaltpyError(f"damaged model: cannot read {name} ({e})", self.path) from None

    def text(self, name: str) -> str:
        try:
            return self._read(name).decode("utf-8")
        except UnicodeDecodeError:
            raise MaltpyError(f"damaged model: {name} is not UTF-8 text", self.path) from None

    def arrays(self, name: str, keys: tuple[str, ...]) -> dict[str, np.ndarray]:
        """The arrays ``keys`` of the .npz member ``name`` (others are not read). Each array's
        header is read first: one that declares more data than its member holds is refused,
        before anything is allocated."""
        raw = self._read(name)
        try:
            with zipfile.ZipFile(io.BytesIO(raw)) as z:
                for info in z.infolist():
                    with z.open(info) as f:
                        _check_array_header(f, info.file_size)
            with np.load(io.BytesIO(raw), allow_pickle=False) as data:
                missing = [key for key in keys if key not in data.files]
                if missing:
                    raise ValueError(f"no array {missing[0]!r}")
                return {key: data[key] for key in keys}
        except (ValueError, OSError, EOFError, zipfile.BadZipFile) as e:
            raise MaltpyError(f"damaged model: {name} is not a NumPy archive ({e})", self.path) from None

    def close(self) -> None:
        self._zip.close()


def _check_array_header(f, size: int) -> None:
    """ValueError unless ``f`` starts a NumPy array (format 1.0 or 2.0, as NumPy writes them) of
    plain data that fits in ``size`` bytes."""
    version = np.lib.format.read_magic(f)
    if version == (1, 0):
        shape, _, dtype = np.lib.format.read_array_header_1_0(f)
    elif version == (2, 0):
        shape, _, dtype = np.lib.format.read_array_header_2_0(f)
    else:
        raise ValueError(f"array format {version} is not one maltpy writes")
    if dtype.hasobject or math.prod(shape) * dtype.itemsize > size:
        raise ValueError(f"an array of {shape} {dtype} does not fit in its {size} bytes")


def npz_bytes(**arrays: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)
    return buffer.getvalue()
