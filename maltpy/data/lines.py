"""Input as lines: UTF-8 text, bounded, numbered, read a block at a time (what conll.py parses,
and columns.py's instance files).

A line is its text without its line end (LF or CRLF). A line that is not UTF-8, holds a control
character other than a tab, or is longer than max_line_bytes() is a ``MaltpyError`` naming the
file and the line; a byte-order mark starting the first line is dropped.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from typing import BinaryIO

from ..errors import MaltpyError

_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
_BLOCK_BYTES = 1 << 19  # read at a time
_CONTROL_BYTES = bytes([*range(0x09), *range(0x0B, 0x20), 0x7F])  # _CONTROL's but LF, in UTF-8


MAX_LINE_VARIABLE = "MALTPY_MAX_LINE_BYTES"
MAX_LINE_DEFAULT = 1 << 20


def max_line_bytes() -> int:
    """The longest line maltpy reads: 1 MB, or the environment's MALTPY_MAX_LINE_BYTES."""
    return environment_bytes(MAX_LINE_VARIABLE, MAX_LINE_DEFAULT)


def environment_bytes(variable: str, default: int) -> int:
    """A bound in bytes that the environment's ``variable`` sets: a positive number of ASCII
    digits (one of more than 18, larger than any file, as 2**62, its digits unread), or else
    ``default``."""
    value = os.environ.get(variable, "").strip()
    if not re.fullmatch(r"[0-9]+", value) or not value.strip("0"):
        return default
    digits = value.lstrip("0")
    return 1 << 62 if len(digits) > 18 else int(digits)


def decoded_lines(stream: BinaryIO, name: str, byte_order_mark: bool = False) -> Iterator[tuple[int, str]]:
    """(line number, text) of each line, without its line end (LF or CRLF); UTF-8 only. A
    byte-order mark starting the first line is dropped, unless ``byte_order_mark``. A line longer
    than max_line_bytes() (``-i /dev/zero``) is an error, read no further."""
    for number, lines in Blocks(stream, name, byte_order_mark):
        yield from enumerate(lines, number)


def bytes_left(stream: BinaryIO) -> int | None:
    """The bytes from the stream's position to its end, if it is a regular file."""
    try:
        status = os.fstat(stream.fileno())
        return status.st_size - stream.tell() if stat.S_ISREG(status.st_mode) else None
    except (OSError, ValueError, AttributeError):  # a pipe, a closed stream, an io.BytesIO
        return None


class Blocks:
    """The lines of a binary stream as decoded_lines gives them, a block at a time: (the number
    of the block's first line, its lines).

    A block is what one call reads (``read1``: on a pipe, what has come, without waiting for a
    full block), up to its last line end: a chunk. It is decoded whole and checked for the
    faults ``_line`` finds; a block with any of them goes line by line through ``_line``, and its
    lines before the first faulty one are given before that one's error. ``first_line`` numbers
    the lines of a stream that is a part of a file (a byte-order mark is dropped only from line 1).
    """

    def __init__(self, stream: BinaryIO, name: str, byte_order_mark: bool = False, first_line: int = 1) -> None:
        self.stream = stream
        self.name = name
        self.byte_order_mark = byte_order_mark
        self.first_line = first_line  # the number of the stream's first line (a part of a file)
        self.limit = max_line_bytes()
        self.begun = b""  # the start of a line whose end has not been read yet
        self.consumed = 0  # bytes read so far
        self.lines_read = first_line - 1  # whole lines given so far
        # Whether more input is ready now (files.PipeReader); a file always is.
        self._ready = getattr(stream, "pending", lambda wait=0.0: True)

    def pending(self, wait: float = 0.0) -> bool:
        return bool(self.begun) or self._ready(wait)

    def __iter__(self) -> Iterator[tuple[int, list[str]]]:
        return self.decoded(self.chunks())

    def decoded(self, chunks: Iterator[tuple[int, bytes]]) -> Iterator[tuple[int, list[str]]]:
        """The lines of each of ``chunks``; the first fault's error after the lines before it."""
        for number, data in chunks:
            lines, error = self.decode(data, number)
            if lines:
                yield number, lines
            if error:
                raise error

    def chunks(self) -> Iterator[tuple[int, bytes]]:
        """(the number of the first line, the bytes) of each read's whole lines: up to its last
        line end, with the line begun in the read before, or the input's last line if it has none."""
        read = getattr(self.stream, "read1", None) or self.stream.read
        number = self.first_line  # the next line's
        while True:
            if len(self.begun) > self.limit:
                raise self._too_long(number)
            try:
                chunk = read(_BLOCK_BYTES)
            except OSError as e:  # /proc/self/mem, a failing disk: name the file
                raise MaltpyError(f"cannot read: {e.strerror or e}", self.name, number) from None
            self.consumed += len(chunk)
            end = chunk.rfind(b"\n") + 1
            if end:
                data, self.begun = self.begun + chunk[:end], chunk[end:]
            elif chunk:
                self.begun += chunk
                continue
            elif self.begun:
                data, self.begun = self.begun, b""
            else:
                return
            lines = data.count(b"\n") + (not data.endswith(b"\n"))
            self.lines_read = number + lines - 1
            yield number, data
            number += lines

    def decode(self, data: bytes, number: int) -> tuple[list[str], MaltpyError | None]:
        """The lines of ``data`` (whole lines, the first numbered ``number``) up to the first
        faulty one, and that one's error."""
        limit = self.limit
        ended = data.endswith(b"\n")
        if len(data) <= limit + 1 or max(map(len, data.split(b"\n"))) <= limit:
            plain = data.replace(b"\r\n", b"\n") if b"\r" in data else data
            if len(plain.translate(None, _CONTROL_BYTES)) == len(plain):
                try:
                    text = plain.decode("utf-8")
                except UnicodeDecodeError:
                    pass
                else:
                    if number == 1 and text.startswith("\ufeff") and not self.byte_order_mark:
                        text = text[1:]
                    lines = text.split("\n")
                    if ended:
                        lines.pop()
                    return lines, None
        raws = data.split(b"\n")
        if ended:
            raws.pop()
        lines = []
        try:
            for raw in raws:
                lines.append(self._line(raw, number + len(lines), ended or len(lines) + 1 < len(raws)))
        except MaltpyError as e:
            return lines, e
        return lines, None

    def _line(self, raw: bytes, number: int, ended: bool) -> str:
        """Line ``number``, ``raw`` without its LF (``ended``: it had one)."""
        if len(raw) > self.limit:
            raise self._too_long(number)
        if ended and raw.endswith(b"\r"):
            raw = raw[:-1]
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            column = len(raw[: e.start].decode("utf-8", "replace")) + 1
            raise MaltpyError(
                f"not UTF-8 text: byte 0x{raw[e.start]:02x} at column {column} (maltpy reads UTF-8 only)",
                self.name,
                number,
            ) from None
        if number == 1 and line.startswith("\ufeff") and not self.byte_order_mark:
            line = line[1:]
        if m := _CONTROL.search(line):
            char = m.group()
            what = {"\x00": " (binary data?)", "\r": " (a carriage return inside a line)"}.get(char, "")
            raise MaltpyError(f"control character U+{ord(char):04X} at column {m.start() + 1}{what}", self.name, number)
        return line

    def _too_long(self, number: int) -> MaltpyError:
        return MaltpyError(
            f"a line longer than {self.limit} bytes (set {MAX_LINE_VARIABLE} to allow longer ones)", self.name, number
        )
