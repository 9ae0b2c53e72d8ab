"""TiMBL's "columns" instance format: one instance a line, its feature values and then its class,
separated by blanks (TiMBL's reference guide, "Data formats"). ``maltpy knn`` reads it, as
``timbl -f TRAIN -t TEST`` does, and ``maltpy learn --save-instances`` writes each classifier's
training instances in it, as MaltParser's ``-li`` writes its instance files.

Read as timbl 6.5 reads it: fields are separated by spaces and tabs only (other Unicode blanks
belong to a value), and a byte-order mark belongs to the first value. timbl takes a file whose
first line has as many commas as blank runs for C4.5 (comma-separated); ``maltpy knn`` refuses
such a file rather than answer otherwise than timbl.

A value is written as text that no other value of its feature shares: ``%``, blanks and other
whitespace, ``,`` and ``\\`` are percent-encoded (``%25``, ``%20``, ``%2C``, ``%5C`` ...), so
that timbl reads every file maltpy writes as columns and echoes it unchanged; a Split value (a
tuple) is its items joined by ``|`` (``|`` inside an item is ``%7C``); a feature with no value
(None) is ``%00``. TiMBL compares values only for equality, so it gives the same answers on
these files as on the values.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from typing import BinaryIO

import numpy as np

from ..data.lines import decoded_lines
from ..errors import MaltpyError
from ..files import atomic_output, make_folder, open_file

_UNSAFE = re.compile(r"[%\s,\\]")
_UNSAFE_IN_ITEM = re.compile(r"[%\s,\\|]")
_BLANKS = re.compile(r"[ \t]+")  # timbl's field separators (and CR, LF, which end lines)
NO_VALUE = "%00"


def read_columns(path: str, width: int | None = None) -> list[list[str]]:
    """The instances of a columns file, each its values and class; blank lines are skipped (as
    TiMBL skips them). Every line must have ``width`` fields, or as many as the first: a line
    with another number is an error, where TiMBL would skip it and answer for fewer instances
    than it was given."""
    rows: list[list[str]] = []
    with open_file(path, "file of instances") as stream:
        for number, line in decoded_lines(stream, path, byte_order_mark=True):
            fields = _BLANKS.split(line.strip(" \t"))
            if fields == [""]:
                continue
            if not rows:
                if len(fields) < 2:
                    raise MaltpyError("an instance needs at least one feature value and a class", path, number)
                if line.count(",") >= len(_BLANKS.findall(line.rstrip(" \t"))):  # timbl's count, on the raw line
                    raise MaltpyError("as many commas as blanks: timbl would read this line as C4.5, not columns",
                                      path, number)  # fmt: skip
                width = width or len(fields)
            if len(fields) != width:
                raise MaltpyError(f"{len(fields) - 1} features and a class where {width - 1} features were expected",
                                  path, number)  # fmt: skip
            rows.append(fields)
    return rows


def column_text(value: object) -> str:
    """A feature value (or class) as one blank-free field."""
    if value is None:
        return NO_VALUE
    if isinstance(value, tuple):
        return "|".join(_UNSAFE_IN_ITEM.sub(_escape, str(item)) for item in value)
    return _UNSAFE.sub(_escape, str(value))


def _escape(match: re.Match) -> str:
    return "".join(f"%{byte:02X}" for byte in match.group().encode("utf-8"))


def write_columns(stream: BinaryIO, rows: Iterable[list[str]]) -> None:
    """Instances already made of fields, one a line."""
    for fields in rows:
        stream.write((" ".join(fields) + "\n").encode("utf-8"))


def timbl_echo(fields: list[str]) -> list[str]:
    """The fields of an instance as ``timbl -o`` writes them back: with every backslash doubled
    (timbl escapes its input's backslashes and writes the escaped text)."""
    return [field.replace("\\", "\\\\") for field in fields]


_UNSAFE_IN_NAME = re.compile(r"[^A-Za-z0-9._:+~-]")
_CHUNK = 10_000


def instance_file_name(classifier: str) -> str:
    """``<classifier>.col``, with the characters a file name cannot hold percent-encoded."""
    return _UNSAFE_IN_NAME.sub(_escape, classifier) + ".col"


def write_instance_files(directory: str, instances, groups: dict, class_names: list[str]) -> None:
    """Each classifier's training instances (``instances``, an ``encoding.Instances`` that keeps
    symbols; ``groups`` as ``divide.classifier_groups`` gives them) as ``directory/<name>.col``:
    ``main.col``, or ``master.col`` and ``split:<value>.col`` (see instance_file_name)."""
    make_folder(directory, "folder for instance files")
    classes = np.frombuffer(instances.classes, dtype=np.int32)
    class_text = [column_text(name) for name in class_names]
    for name, (positions, members) in groups.items():
        path = os.path.join(directory, instance_file_name(name))
        with atomic_output(path) as out:
            for start in range(0, len(members), _CHUNK):
                chunk = members[start : start + _CHUNK]
                rows = instances.values_of(chunk, positions)
                write_columns(out, ([*map(column_text, row), class_text[c]] for row, c in zip(rows, classes[chunk])))
