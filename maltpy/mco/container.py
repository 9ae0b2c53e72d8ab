"""The .mco as a zip (a JAR) of one folder, hardened: what load_mco reads its members through.

Everything read is untrusted: the number of members and their sizes are bounded before anything
is read (MAX_MEMBERS, MAX_MCO_VARIABLE, MAX_RATIO), each member is read when needed into a buffer
of the size it declares, and what the streams and the symbol tables become in memory is spent
from one budget of MAX_MCO_VARIABLE bytes (javavalues.Budget, ``Members.budget``; also what the
LIBLINEAR weights become, a row shared by back-reference once for each feature that shares it).
What goes wrong in reading is one MaltpyError naming the file (``reading``).
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from ..data.lines import environment_bytes
from ..errors import MaltpyError, cut, require
from ..files import MAX_MEMBERS, MAX_SMALL_FILE, open_file, too_many_members
from ..models.archive import _READ_ERRORS, MANIFEST, MAX_RATIO
from .javaser import StreamError
from .javavalues import Budget
from .text import MCOError

MAX_MCO_VARIABLE = "MALTPY_MAX_MCO_BYTES"
READ_CHUNK = 1 << 22  # bytes inflated at a time into a member's buffer
INFO_SUFFIX = "_singlemalt.info"
#: How the names of an .mco's members end (in its folder): the report, the saved options, the
#: symbol tables, a classifier.
MALTPARSER_MEMBERS = (INFO_SUFFIX, "savedoptions.sop", "symboltables.sym", ".moo")


def max_mco_bytes() -> int:
    """The most bytes an .mco's members may hold, uncompressed, all together: 512 MB (a model of
    a million-token treebank holds some 50 MB), or the environment's setting. The same number
    bounds the memory of the values read from any one stream (javaser's ``budget``)."""
    return environment_bytes(MAX_MCO_VARIABLE, 512 << 20)


def is_mco(path: str, data: bytes | None = None) -> bool:
    """Whether the file (or ``data``) is a zip of a MaltParser configuration, whole or not, so
    that load_mco, not the maltpy archive reader, says what is wrong with it: a zip listing a
    member that MaltParser names (MALTPARSER_MEMBERS) in a folder and no maltpy manifest; a zip of
    more entries than any model has (MAX_MEMBERS), which load_mco refuses before they are listed;
    a zip that cannot be listed (cut short: no end record) whose first member, in its local
    header, lies in a folder (APPNOTE 4.3.7: its name at byte 30; maltpy's archives begin with
    their manifest)."""
    try:
        with open_file(path, "model file") if data is None else io.BytesIO(data) as f:
            header = f.read(30)
            if header[:4] != b"PK\x03\x04" or len(header) < 30:
                return False
            first = f.read(int.from_bytes(header[26:28], "little"))
            if too_many_members(f) is not None:
                return True
            f.seek(0)
            try:
                with zipfile.ZipFile(f) as z:
                    names = z.namelist()[:10_000]
            except _READ_ERRORS:
                return b"/" in first
    except (OSError, ValueError, EOFError):
        return False
    return MANIFEST not in names and any("/" in n and n.rsplit("/", 1)[1].endswith(MALTPARSER_MEMBERS) for n in names)


@dataclass
class Members:
    """The members of an .mco, by their names in its one folder ``name``, each read when asked
    for (one at a time in memory, as load_mco takes them) into a buffer of the size it declares,
    never past it, its CRC checked."""

    name: str
    zip: zipfile.ZipFile
    infos: dict[str, zipfile.ZipInfo]
    #: what the values read from the members may take in memory, together
    budget: Budget

    def get(self, member: str, most: int | None = None) -> bytearray:
        """The member's bytes; ValueError if it is missing, or holds more than ``most``."""
        info = self.infos.get(member)
        if info is None:
            raise ValueError(f"{self.name}/{member} is missing")
        require(most is None or info.file_size <= most,
                f"{self.name}/{member} holds {info.file_size} bytes, more than maltpy reads of one "
                f"({most})")  # fmt: skip
        data = bytearray(info.file_size)
        view = memoryview(data)
        done = 0
        try:
            with self.zip.open(info) as f:
                while done < len(data):
                    n = f.readinto(view[done : done + READ_CHUNK])
                    if n == 0:
                        break
                    done += n
                extra = f.read(1)
        except _READ_ERRORS as e:
            raise ValueError(f"{self.name}/{member}: not a readable zip member ({cut(e)})") from None
        require(done == len(data) and not extra,
                f"{self.name}/{member} holds other than the {len(data)} bytes it declares")  # fmt: skip
        return data

    def text(self, member: str, most: int | None = MAX_SMALL_FILE) -> str:
        """The member's UTF-8 text; by default one of at most MAX_SMALL_FILE bytes (a report, the
        options, an XML file: a few kB)."""
        try:
            return self.get(member, most).decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError(f"{self.name}/{member} is not UTF-8 text") from None

    def spend(self, cost: int, member: str) -> None:
        """ValueError unless the members' budget has ``cost`` left (what is about to be made from
        ``member``)."""
        if not self.budget.spend(cost):
            raise ValueError(f"{member}: values that would take more than {self.budget.total >> 20} MB of memory "
                             f"({MAX_MCO_VARIABLE} allows more)")  # fmt: skip


@contextmanager
def read_members(path: str, data: bytes | None = None) -> Iterator[Members]:
    """The members of the .mco at ``path`` (or in ``data``), open while the context lasts: at
    most MAX_MEMBERS (counted before zipfile lists them), in one folder, no deeper paths, no name
    twice, their declared sizes within bounds (max_mco_bytes() in all, MAX_RATIO times what they
    take compressed) before any is read."""
    limit = max_mco_bytes()
    with open_file(path, "model file") if data is None else io.BytesIO(data) as f:
        many = too_many_members(f)
        require(many is None, f"not a MaltParser model ({many}; a model has a few, maltpy reads {MAX_MEMBERS} at most)")
        try:
            z = zipfile.ZipFile(f)
        except _READ_ERRORS as e:
            raise ValueError(f"a damaged or truncated .mco: not a readable zip archive ({cut(e)}; "
                             "a file cut short?)") from None
        with z:
            all_infos = [i for i in z.infolist() if not i.filename.endswith("/")]
            require(0 < len(all_infos) <= MAX_MEMBERS, "not a MaltParser model (no members, or too many)")
            folders = {i.filename.split("/", 1)[0] for i in all_infos}
            require(len(folders) == 1, "not a MaltParser model (its members are not in one folder)")
            infos: dict[str, zipfile.ZipInfo] = {}
            total = 0
            for info in all_infos:
                parts = info.filename.split("/")
                require(len(parts) == 2 and parts[1] not in ("", ".", "..") and "\\" not in info.filename,
                        f"a member outside the model's folder: {cut(info.filename, 100)!r}")  # fmt: skip
                size = info.file_size
                total += size
                if total > limit or size > MAX_RATIO * info.compress_size:  # 1.5's LIBLINEAR weights: mostly zeros
                    raise ValueError(f"{cut(info.filename, 100)} declares {size} bytes from {info.compress_size}, "
                                     f"more than maltpy reads of an .mco ({limit} in all, {MAX_MCO_VARIABLE} allows "
                                     f"more; or a zip bomb)")  # fmt: skip
                require(parts[1] not in infos, f"{cut(info.filename, 100)} twice")
                infos[parts[1]] = info
            yield Members(folders.pop(), z, infos, Budget(limit))


@contextmanager
def reading(path: str) -> Iterator[None]:
    """What goes wrong in reading the .mco at ``path`` as a MaltpyError naming it."""
    try:
        yield
    except MCOError as e:
        raise MaltpyError(f"damaged MaltParser model: {e}", path) from None
    except StreamError as e:
        raise MaltpyError(f"damaged MaltParser model: {cut(e, 300)}", path) from None
    except ValueError as e:
        raise MaltpyError(f"MaltParser model: {cut(e, 300)}", path) from None
    except (KeyError, TypeError, IndexError, AttributeError, RecursionError, OverflowError) as e:
        raise MaltpyError(f"damaged MaltParser model: {type(e).__name__}: {cut(e, 200)}", path) from None
    except MaltpyError as e:
        if e.file == path:
            raise
        # a member's own reader (the feature model's) names the member: the line names the .mco
        where = f"{e.file}:{e.line}: " if e.line is not None else f"{e.file}: " if e.file is not None else ""
        raise MaltpyError(f"MaltParser model: {where}{e.message}", path) from None
