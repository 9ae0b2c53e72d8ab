"""Opening inputs and outputs the way every command does.

``-`` or no path means standard input or output. An output file is written under a temporary
name beside it and renamed only when the command succeeds, so a failed or interrupted run
never leaves a half-written file (and ``-i x -o x`` is safe). A zip (a model) has its members
counted before zipfile lists them.
"""

from __future__ import annotations

import errno
import io
import os
import select
import stat
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import BinaryIO

from .data.conll import ConllReader
from .errors import MaltpyError, quote

STDIN_NAME = "<stdin>"
STDOUT_NAME = "<stdout>"

#: The standard streams (0, 1, 2) that were closed when maltpy started (``<&-``, ``>&-``, ``2>&-``).
_closed: set[int] = set()


def is_std(path: str | None) -> bool:
    return path is None or path == "-"


def hold_standard_streams() -> None:
    """Note which standard streams the command was started without, and put /dev/null in the
    place of each: no file maltpy opens then takes its number (a worker process, inheriting it,
    would write into that file). Reading a closed standard input or writing a closed standard
    output is then an error (``standard_input``, ``standard_output``); what goes to a closed
    standard error is dropped. Python sets a stream it could not open at its start to None."""
    _closed.clear()
    for fd, name in enumerate(("stdin", "stdout", "stderr")):
        if getattr(sys, name) is not None:
            continue
        _closed.add(fd)
        try:
            os.fstat(fd)
        except OSError:
            null = os.open(os.devnull, os.O_RDWR)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
    if 2 in _closed:
        sys.stderr = open(os.devnull, "w")  # standard error for the rest of the process
    elif not isinstance(sys.stderr, _Messages) and hasattr(sys.stderr, "buffer"):
        sys.stderr = _Messages(sys.stderr.buffer, encoding=sys.stderr.encoding, errors=sys.stderr.errors,
                               line_buffering=True)  # fmt: skip


class _Messages(io.TextIOWrapper):
    """Standard error, written as far as it can be: a message that cannot be written (stderr on
    a full disk) is dropped, and the command goes on to its end and its exit status."""

    def write(self, text: str) -> int:
        try:
            return super().write(text)
        except OSError:
            return len(text)

    def flush(self) -> None:
        try:
            super().flush()
        except OSError:
            pass


def standard_input() -> BinaryIO:
    """Standard input, binary; a MaltpyError if the command was started with it closed."""
    if 0 in _closed or sys.stdin is None:
        raise MaltpyError("standard input is closed; give the input as a file (-i FILE)", STDIN_NAME)
    return sys.stdin.buffer


def standard_output() -> BinaryIO:
    """Standard output, binary, its write errors (a full disk) MaltpyErrors naming it; a
    MaltpyError if the command was started with it closed."""
    if 1 in _closed or sys.stdout is None:
        raise MaltpyError("standard output is closed; nothing can be written there", STDOUT_NAME)
    return _Named(sys.stdout.buffer, STDOUT_NAME)


def write_result(text: str, end: str = "\n") -> None:
    """A command's result (scores, a description, a configuration) on standard output."""
    out = standard_output()
    out.write((text + end).encode("utf-8"))
    out.flush()


def open_file(path: str, what: str = "file") -> BinaryIO:
    """The file opened for reading in binary; a missing or unreadable file is a MaltpyError
    that says what was expected there (``what``: "file", "config file" ...)."""
    if not path:
        raise MaltpyError(f"the {what} name is empty", "command line")
    try:
        return open(path, "rb")
    except FileNotFoundError:
        raise MaltpyError(f"no such {what}", path) from None
    except IsADirectoryError:
        raise MaltpyError(f"is a directory, not {_a(what)}", path) from None
    except OSError as e:
        raise MaltpyError(f"cannot read {what}: {e.strerror}", path) from None


def _a(what: str) -> str:
    """``what`` after its indefinite article: a model file, an option file."""
    return f"{'an' if what[:1] in 'aeiou' else 'a'} {what}"


#: The most members maltpy lets zipfile list of a model's zip, maltpy's or MaltParser's: a model has
#: a few (a data split: one or two a split value); zipfile lists 100,000 in some 0.6 s.
MAX_MEMBERS = 100_000
#: The fewest bytes a member takes in a zip's central directory: its header, without a name, an
#: extra field or a comment (APPNOTE 6.3, 4.3.12).
CENTRAL_HEADER = 46


def too_many_members(f: BinaryIO, most: int = MAX_MEMBERS) -> str | None:
    """What says that the zip in ``f`` holds more than ``most`` members, read from its end records
    before zipfile lists them (a file of 100 MB can hold a million, which zipfile would list in some
    6 s and 600 MB): the number of members an end record declares, or the size of the central
    directory it declares, which zipfile reads whole whatever that number says (46 bytes a member
    at the least). None if neither passes ``most``, or if there is no end record (zipfile then
    refuses the file).

    APPNOTE 6.3, 4.3.16: the end record, 22 bytes and a comment of at most 65,535, ends the file;
    4.3.14-15: the zip64 end record, and its locator right before the end record. The zip64
    record is taken where the locator says and where Python 3.11's zipfile looks for it (right
    before the locator), the larger of what each declares."""
    size = f.seek(0, os.SEEK_END)
    start = max(0, size - (22 + 0xFFFF))
    f.seek(start)
    tail = f.read()
    at = tail.rfind(b"PK\x05\x06")
    if at < 0 or len(tail) - at < 22:
        return None
    counts = [int.from_bytes(tail[at + 10 : at + 12], "little")]
    directories = [int.from_bytes(tail[at + 12 : at + 16], "little")]
    locator = start + at - 20
    if locator >= 0:
        f.seek(locator)
        data = f.read(20)
        if data[:4] == b"PK\x06\x07":
            for offset in {locator - 56, int.from_bytes(data[8:16], "little")}:
                if 0 <= offset <= size - 56:
                    f.seek(offset)
                    record = f.read(56)
                    if record[:4] == b"PK\x06\x06":
                        counts.append(int.from_bytes(record[32:40], "little"))
                        directories.append(int.from_bytes(record[40:48], "little"))
    count, directory = max(counts), max(directories)
    if count > most:
        return f"{count} members"
    if directory > most * CENTRAL_HEADER:
        return f"a central directory of {directory} bytes, room for {directory // CENTRAL_HEADER} members"
    return None


MAX_SMALL_FILE = 16 << 20  # bytes of a configuration or feature model file


def read_file(path: str, what: str = "file", limit: int = MAX_SMALL_FILE) -> bytes:
    """The whole of a small file (a configuration, a feature model): more than ``limit`` bytes
    (``-F /dev/zero``) is an error, read no further."""
    with open_file(path, what) as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise MaltpyError(f"the {what} is larger than {limit >> 20} MB", path)
    return data


def check_rereadable(path: str | None, reader: str) -> None:
    """MaltpyError unless ``path`` names a regular file, which the command (``reader``: "a
    search", "a blend") can read more than once and a worker process can open by its name.
    Standard input, a FIFO or a process substitution (``<(...)``, /dev/fd/63) gives its text
    once: read again, it would wait for a writer or seem empty."""
    if is_std(path):
        raise MaltpyError(f"standard input can be read only once, and {reader} reads its input more than once: "
                          "give a file", STDIN_NAME)  # fmt: skip
    if not os.path.isfile(path):
        missing = not os.path.lexists(path)
        raise MaltpyError("no such file" if missing else f"not a regular file: {reader} reads it more than once", path)


def check_read_once(paths: list[str | None]) -> None:
    """MaltpyError naming a file that gives its text only once (a FIFO, a process
    substitution's /dev/fd/N, a device) if the command names it more than once: its second
    open would wait for a writer or read what the first left, nothing (standard input, named
    twice, is each command's own error)."""
    seen = set()
    for path in paths:
        if is_std(path):
            continue
        try:
            status = os.stat(path)
        except (OSError, ValueError):
            continue  # the file's own error comes when it is opened
        if stat.S_ISREG(status.st_mode) or stat.S_ISDIR(status.st_mode):
            continue
        if (status.st_dev, status.st_ino) in seen:
            raise MaltpyError("named twice, and not a regular file: it can be read only once", path)
        seen.add((status.st_dev, status.st_ino))


class PipeReader:
    """A pipe (or a terminal, a socket) read as its input comes, and whether more is ready now.

    ``maltpy parse`` reads its sentences in batches; ``pending()`` lets it close a batch early
    when the writer has gone quiet, so that a program can write a sentence and read its parse
    while the pipe stays open. A regular file needs none of this: it is always ready."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.eof = False

    def read1(self, size: int) -> bytes:
        """What one read brings: up to ``size`` bytes of what has come, waiting only while
        nothing has; b"" at the end."""
        data = os.read(self.fd, size)
        self.eof = not data
        return data

    def pending(self, wait: float = 0.0) -> bool:
        """True if reading on would not wait (input is at its end, or ready), or input comes
        within ``wait`` seconds."""
        if self.eof:
            return True
        try:
            return bool(select.select([self.fd], [], [], wait)[0])
        except (OSError, ValueError):
            return True


def _reader_for(stream: BinaryIO) -> BinaryIO | PipeReader:
    """A PipeReader for a stream that is not a regular file (stdin from a pipe, a FIFO)."""
    try:
        fd = stream.fileno()
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return PipeReader(fd)
    except (OSError, ValueError, AttributeError):
        pass
    return stream


@contextmanager
def open_input(path: str | None) -> Iterator[tuple[BinaryIO, str]]:
    """(binary stream, name for messages) of a file, or of standard input."""
    if is_std(path):
        yield _reader_for(standard_input()), STDIN_NAME
        return
    with open_file(path) as stream:
        yield _reader_for(stream), path


@contextmanager
def read_conll(path: str | None, format: str = "auto", blind: bool = False) -> Iterator[ConllReader]:
    """A ConllReader over a file or standard input."""
    with open_input(path) as (stream, name):
        yield ConllReader(stream, name, format, blind)


def make_folder(path: str, what: str = "folder") -> None:
    """Make the folder ``path`` and the folders above it that are missing, as ``mkdir -p`` does
    (an output folder: ``parse --output-dir``, ``optimize -o``, ``learn --save-instances``)."""
    if not path:
        raise MaltpyError(f"the name of the {what} is empty", "command line")
    try:
        os.makedirs(path, exist_ok=True)
    except FileExistsError:
        raise MaltpyError(f"is not a folder; cannot make the {what} there", path) from None
    except OSError as e:
        raise MaltpyError(f"cannot make the {what}: {e.strerror or e}", path) from None


def check_output_path(path: str, inputs: tuple[str | None, ...] = ()) -> None:
    """MaltpyError unless ``path`` can be written as an output: not a directory, its folder
    there and writable, and not one of ``inputs`` (a model written over its treebank) nor the file
    standard input reads. Checked
    before any work, so that a long run does not fail at its end."""
    if not path:
        raise MaltpyError("the output file name is empty", "command line")
    if os.path.isdir(path):
        raise MaltpyError("is a directory; cannot write output there", path)
    if path.endswith(("/", os.sep)):
        raise MaltpyError("is a folder's name, not a file's", path)
    if os.path.islink(path):
        try:
            os.stat(path)
        except OSError as e:
            if e.errno == errno.ELOOP:
                raise MaltpyError("cannot write: a loop of symbolic links", path) from None
    for source in inputs:
        if source and not is_std(source) and os.path.exists(source) and os.path.exists(path):
            if os.path.samefile(source, path) and os.path.isfile(path):
                raise MaltpyError(f"is also the input {quote(source)}; refusing to write over it", path)
    if os.path.isfile(path):
        try:  # standard input redirected from the file itself (maltpy parse -m m -o f < f)
            same = os.path.samestat(os.fstat(sys.stdin.fileno()), os.stat(path))
        except (OSError, ValueError, AttributeError):
            same = False
        if same:
            raise MaltpyError("is also standard input; refusing to write over it", path)
    if os.path.exists(path) and not os.path.isfile(path):
        return  # a device or a pipe: opened when written
    folder = os.path.dirname(os.path.realpath(path)) or "."
    if not os.path.isdir(folder):
        raise MaltpyError(f"cannot write: no such folder {quote(folder)}", path)
    if not os.access(folder, os.W_OK | os.X_OK):
        raise MaltpyError(f"cannot write: the folder {quote(folder)} is not writable", path)


class _Named:
    """A binary output whose write errors (a full disk) are MaltpyErrors naming it; a closed
    pipe stays a BrokenPipeError (exit 141)."""

    def __init__(self, stream: BinaryIO, name: str) -> None:
        self.stream = stream
        self.name = name

    def _call(self, method, *args):
        try:
            return method(*args)
        except BrokenPipeError:
            raise
        except OSError as e:
            raise MaltpyError(f"cannot write: {e.strerror or e}", self.name) from None

    def write(self, data: bytes) -> int:
        """Writes all of ``data``: a raw stream (standard output under ``python -u`` or
        PYTHONUNBUFFERED) may take only a part, as a pipe whose reader has gone does."""
        view = memoryview(data)
        while view:
            view = view[self._call(self.stream.write, view) :]
        return len(data)

    def flush(self) -> None:
        self._call(self.stream.flush)

    def __getattr__(self, attribute: str):  # seek, tell ... (zipfile's) flush too: named as well
        value = getattr(self.stream, attribute)
        return (lambda *args: self._call(value, *args)) if callable(value) else value


@contextmanager
def _closing(stream: BinaryIO) -> Iterator[BinaryIO]:
    """Closes the stream; after an error, without letting a second error from flushing what is
    left replace the first."""
    try:
        yield stream
    except BaseException:
        try:
            stream.close()
        except OSError:
            pass
        raise
    stream.close()


@contextmanager
def atomic_output(path: str | None) -> Iterator[BinaryIO]:
    """A binary stream that becomes ``path`` only if the block completes without an exception.
    A path that is not a regular file (``/dev/null``, a FIFO) is written as it is: renaming a
    file onto it would replace the device. A symbolic link's target is written, not the link."""
    if is_std(path):
        out = standard_output()
        yield out
        out.flush()
        return
    check_output_path(path)
    target = os.path.realpath(path)
    if os.path.exists(path) and not os.path.isfile(path):
        # A device, a FIFO, /dev/stdout or a process substitution (/dev/fd/63): written as it is,
        # through the name given (its resolved name may be a pipe no one can open).
        try:
            stream = open(path, "wb")
        except OSError as e:
            raise MaltpyError(f"cannot write: {e.strerror}", path) from None
        with _closing(stream):
            out = _Named(stream, path)
            yield out
            out.flush()
        return
    try:
        fd, temporary = tempfile.mkstemp(prefix=f".{os.path.basename(target)}.", suffix=".part",
                                         dir=os.path.dirname(target))  # fmt: skip
    except OSError as e:
        raise MaltpyError(f"cannot write: {e.strerror}", path) from None
    try:
        with _closing(os.fdopen(fd, "wb")) as stream:
            out = _Named(stream, path)
            yield out
            out.flush()
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)
        os.replace(temporary, target)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise
