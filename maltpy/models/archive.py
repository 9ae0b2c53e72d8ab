"""The model archive: one zip file holding data only.

    manifest.json       format version, maltpy version, the full configuration, the feature
                        model text, symbol tables, classes, training statistics
    <classifier files>  each classifier in a native format: LIBSVM model text, NumPy .npz

Nothing in an archive is code: JSON is read with ``json``, arrays with
``numpy.lib.format.read_array(allow_pickle=False)``, LIBSVM models by maltpy's own reader. An
archive is untrusted input, read within three bounds before anything is inflated:

- a zip (the archive, or an .npz member) may hold at most MAX_MEMBERS members (an .npz MAX_ARRAYS),
  counted from its end records before zipfile lists them (files.too_many_members);
- a member (or an array member of an .npz) may declare at most MAX_RATIO times its compressed
  size, the most deflate can make of a byte: only a header that lies about its data is refused
  (real arrays pack far: a k-NN instance base's class counts 200 to 400:1, the column indices
  of dense LIBLINEAR weights, -s 0, 2 and 7, 225:1);
- everything read from one archive (each member as it is read, each array of an .npz member, the
  members of a blend's member archives, which are read ``within`` it) spends its declared size
  from one budget, max_archive_bytes(), so a zip bomb, or a lying header made to pass the ratio,
  is refused before it is inflated, and loading takes memory and time in proportion to that
  budget at most (an array is read into an array of its declared size, not through a copy).

A member is read never past its declared size, through the zip's CRC check, and an array only if
its header declares plain data that fits in its member. What is read is then validated by its
reader (parts.read_model, graph.model.read_graph_model, blend.read_blend and the learners'
from_archive) before use. A file that is not a zip, lacks the manifest, or comes from another
format version, or any damage, is a MaltpyError.
"""

from __future__ import annotations

import io
import json
import math
import os
import stat
import zipfile
import zlib
from typing import Any

import numpy as np

from ..data.lines import environment_bytes
from ..errors import MaltpyError, cut
from ..files import MAX_MEMBERS, atomic_output, is_std, open_file, too_many_members

FORMAT = "maltpy-model"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
#: The most bytes deflate makes of one byte: a match of its longest length, 258, at distance 1,
#: both codes of one bit and no extra bits (RFC 1951, sections 3.2.5 and 3.2.7): 258 bytes from 2 bits.
MAX_RATIO = 1032
MANIFEST_VARIABLE = "MALTPY_MAX_MANIFEST_BYTES"
ARCHIVE_VARIABLE = "MALTPY_MAX_ARCHIVE_BYTES"
#: The most arrays of an .npz member: maltpy writes five at most.
MAX_ARRAYS = 64


def max_manifest_bytes() -> int:
    """The largest manifest read: 16 MB (parsed JSON takes some 30 times its size in memory;
    a model of a million-token treebank has a few MB), or the environment's setting."""
    return environment_bytes(MANIFEST_VARIABLE, 16 << 20)


def max_archive_bytes() -> int:
    """The most bytes maltpy reads of one archive, all together, as its members and arrays
    declare them: 4 GB, or the environment's setting. The largest models measured declare less
    than a tenth of that: of every CoNLL-X treebank in ../shared/data (233,000 words), dense
    LIBLINEAR weights (-s 2) 355 MB with covnonproj, 314 MB with nivreeager, and a k-NN instance
    base (covnonproj) 218 MB, which grows with the words (some 1 GB a million)."""
    return environment_bytes(ARCHIVE_VARIABLE, 4 << 30)


# What reading a damaged zip member can raise: a bad CRC or header, a truncated or corrupt
# deflate stream, an encrypted member, an unknown compression method.
_READ_ERRORS = (zipfile.BadZipFile, zlib.error, OSError, EOFError, RuntimeError, NotImplementedError, ValueError)


def _check_ratio(info: zipfile.ZipInfo) -> None:
    """ValueError if the member declares more data than deflate makes of its compressed size."""
    size, packed = info.file_size, info.compress_size
    if size > MAX_RATIO * packed:
        raise ValueError(f"{cut(info.filename)} declares {size} bytes from {packed}, more than deflate makes of them")


def _read_member(z: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    """The member's bytes (its size checked by the caller), never more than it declares, CRC
    checked."""
    with z.open(info) as f:
        data = f.read(info.file_size + 1)
    if len(data) != info.file_size:
        raise ValueError(f"{info.filename} holds {len(data)} bytes, not the {info.file_size} it declares")
    return data


def write_archive(path: str | None, manifest: dict[str, Any], files: dict[str, bytes]) -> bytes | None:
    """Write the archive atomically (a failed run leaves no file); with ``path`` None, return
    its bytes instead. A zip is written in place where the output can seek (a file); to standard
    output or another stream (a pipe: ``maltpy learn -m - | ...``) it is made in memory first."""
    manifest = {"format": FORMAT, "format_version": FORMAT_VERSION, **manifest}
    if path is None or is_std(path) or (os.path.exists(path) and not os.path.isfile(path)):
        buffer = io.BytesIO()
        _write_zip(buffer, manifest, files)
        if path is None:
            return buffer.getvalue()
        with atomic_output(path) as out:
            out.write(buffer.getbuffer())
        return None
    with atomic_output(path) as out:
        _write_zip(out, manifest, files)
    return None


def _write_zip(out, manifest: dict[str, Any], files: dict[str, bytes]) -> None:
    """The zip, its members dated 1980-01-01: the same model is the same bytes (a Dask worker
    knows a model it has loaded by their digest)."""
    members = {MANIFEST: json.dumps(manifest, ensure_ascii=False, separators=(",", ":")).encode("utf-8"), **files}
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for name, data in members.items():
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16  # rw-r--r-- when unzipped
            z.writestr(info, data, zipfile.ZIP_DEFLATED)


class Archive:
    """An opened model archive: its manifest and access to its files."""

    def __init__(self, path: str, data: bytes | None = None, within: Archive | None = None) -> None:
        """The archive in the file at ``path``, or in ``data`` (``path`` then only names it);
        ``within``: the archive that holds ``data`` as a member (a blend's), whose budget this
        one's reads spend too."""
        self.path = path
        #: the archive whose budget every read spends (the outermost: its bytes in all, and left)
        self._outer = self if within is None else within._outer
        self._limit = self._left = max_archive_bytes()
        # opened as every input is, so that a missing or unreadable file says so
        self._file = open_file(path, "model file") if data is None else io.BytesIO(data)
        if data is None and not stat.S_ISREG(os.fstat(self._file.fileno()).st_mode):
            # a zip is read by seeking from its end: a device has none (zipfile's search for the
            # end record reads /dev/zero without bound), a pipe cannot seek
            self._file.close()
            raise MaltpyError("not a maltpy model (not a regular file: a model is read by seeking in it)", path)
        try:
            many = too_many_members(self._file)
        except OSError as e:
            self._file.close()
            raise MaltpyError(f"not a maltpy model (cannot be read: {cut(e)})", path) from None
        if many is not None:
            self._file.close()
            raise MaltpyError(f"not a maltpy model ({many}; a model has a few, maltpy reads {MAX_MEMBERS} at most)",
                              path)  # fmt: skip
        try:
            self._zip = zipfile.ZipFile(self._file)
        except (zipfile.BadZipFile, OSError, ValueError, EOFError) as e:
            self._file.seek(0)
            started = self._file.read(4) == b"PK\x03\x04"  # a zip's first member: one cut short or damaged
            self._file.close()
            if started:
                raise MaltpyError(f"damaged model: a zip archive that cannot be read ({cut(e)}; a file cut short?)",
                                  path) from None  # fmt: skip
            raise MaltpyError(f"not a maltpy model (not a zip archive: {cut(e)})", path) from None
        try:
            self.manifest = self._manifest()
        except BaseException:
            self.close()
            raise

    def _manifest(self) -> dict[str, Any]:
        """The manifest, checked to be a maltpy model's of this format version."""
        path = self.path
        try:
            size, limit = self._zip.getinfo(MANIFEST).file_size, max_manifest_bytes()
        except KeyError:
            size, limit = 0, 1  # reported as missing below
        if size > limit:
            raise MaltpyError(
                f"damaged model: {MANIFEST} holds {size} bytes, more than {limit} (a model's is far smaller; "
                f"{MANIFEST_VARIABLE} allows more)",
                path,
            )
        try:
            manifest = json.loads(self._read(MANIFEST).decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError) as e:  # ValueError: also a 5,000-digit number
            raise MaltpyError(f"damaged model: {MANIFEST} is not JSON maltpy reads ({cut(e)})", path) from None
        if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
            raise MaltpyError("not a maltpy model (no maltpy manifest)", path)
        if manifest.get("format_version") != FORMAT_VERSION:
            raise MaltpyError(
                f"model format version {cut(manifest.get('format_version'), 20)} is not supported "
                f"(this maltpy reads version {FORMAT_VERSION})",
                path,
            )
        return manifest

    def _read(self, name: str) -> bytes:
        try:
            info = self._zip.getinfo(name)
        except KeyError:
            raise MaltpyError(f"damaged model: {cut(name)} is missing", self.path) from None
        try:
            _check_ratio(info)
            self._spend(name, info.file_size)
            return _read_member(self._zip, info)
        except _READ_ERRORS as e:
            raise MaltpyError(f"damaged model: cannot read {cut(name)} ({cut(e)})", self.path) from None

    def _spend(self, name: str, size: int) -> None:
        """Spend ``size`` bytes, what ``name`` declares, of the outermost archive's budget: a
        MaltpyError naming ARCHIVE_VARIABLE if fewer are left."""
        outer = self._outer
        if size > outer._left:
            raise MaltpyError(
                f"damaged model: {cut(name)} declares {size} bytes, more than the {outer._left} left of the "
                f"{outer._limit} maltpy reads of one model ({ARCHIVE_VARIABLE} allows more; or a zip bomb)",
                self.path,
            )
        outer._left -= size

    def member(self, name: str) -> bytes:
        """The bytes of the member ``name``, read within the archive's bounds."""
        return self._read(name)

    def text(self, name: str) -> str:
        try:
            return self._read(name).decode("utf-8")
        except UnicodeDecodeError:
            raise MaltpyError(f"damaged model: {name} is not UTF-8 text", self.path) from None

    def arrays(self, name: str, keys: tuple[str, ...]) -> dict[str, np.ndarray]:
        """The arrays ``keys`` of the .npz member ``name`` (others are not read). Each array's
        member is within MAX_RATIO and the budget, and its header is read first: one that declares
        more data than its member holds is refused, before anything is allocated; the array is then
        read from the member into an array of that size, which must end the member."""
        raw = io.BytesIO(self._read(name))
        try:
            many = too_many_members(raw, MAX_ARRAYS)
            if many is not None:
                raise ValueError(f"{many}, where maltpy writes a few arrays")
            arrays = {}
            with zipfile.ZipFile(raw) as z:
                for key in keys:
                    info = z.getinfo(f"{key}.npy")  # KeyError if missing
                    _check_ratio(info)
                    with z.open(info) as f:
                        _check_array_header(f, info.file_size)
                    self._spend(f"{name}/{info.filename}", info.file_size)
                    with z.open(info) as f:
                        arrays[key] = np.lib.format.read_array(f, allow_pickle=False)
                        if f.read(1):  # the end of the member: its CRC is checked by now
                            raise ValueError(f"{info.filename} holds more than its array")
            return arrays
        except KeyError as e:
            raise MaltpyError(f"damaged model: {name} has no array {e}", self.path) from None
        except _READ_ERRORS as e:
            raise MaltpyError(f"damaged model: {name} is not a NumPy archive ({cut(e)})", self.path) from None

    def close(self) -> None:
        self._zip.close()
        self._file.close()


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
