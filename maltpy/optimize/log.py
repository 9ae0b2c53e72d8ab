"""The trial log (``OUT_DIR/trials.jsonl``): written as trials end, read back by ``--resume``."""

from __future__ import annotations

import contextlib
import json
import math
import os
import stat

from ..errors import MaltpyError, cut

MAX_LOG_BYTES = 1 << 30  # a search of a million trials writes less
MAX_LOG_LINE = 1 << 20  # a trial's line holds its feature model: some kilobytes


#: the header's tag fields in a log of a search that had no --tags
TAGS_BEFORE = {"tags": "gold", "jackknife": 0}


def read_log(path: str, header: dict) -> tuple[dict[str, dict], set[str]]:
    """The trials of an earlier search with the same inputs, by key, and the phases it summed up
    (``phase_end``: a resumed search does not sum them up again). The log is checked as
    untrusted input: a regular file (not a link), bounded in size and line length, each trial's
    fields of the types the search reads. A last line without its end (a search killed while
    writing it) is cut off the file."""
    info = os.lstat(path)
    if not stat.S_ISREG(info.st_mode):
        raise MaltpyError("not a trial log: not a regular file (a link, a folder or a device)", path)
    if info.st_size > MAX_LOG_BYTES:
        raise MaltpyError(f"a trial log of more than {MAX_LOG_BYTES >> 20} MB is not read", path)
    with open(path, "rb") as f:
        data = f.read(MAX_LOG_BYTES + 1)
    if len(data) > MAX_LOG_BYTES:
        raise MaltpyError(f"a trial log of more than {MAX_LOG_BYTES >> 20} MB is not read", path)
    lines = data.split(b"\n")
    if lines[-1]:  # the unfinished last line of a search that was stopped while writing it
        with open(path, "r+b") as f:
            f.truncate(len(data) - len(lines[-1]))
    cache: dict[str, dict] = {}
    phases: set[str] = set()
    for number, raw in enumerate(lines[:-1], 1):
        if len(raw) > MAX_LOG_LINE:
            raise MaltpyError(f"not a trial log: a line of more than {MAX_LOG_LINE >> 10} kB", path, number)
        try:
            record = json.loads(raw)
        except (ValueError, RecursionError):
            raise MaltpyError("not a trial log: a line is not JSON", path, number) from None
        if not isinstance(record, dict):
            raise MaltpyError("not a trial log: a line is not a JSON object", path, number)
        if number == 1:
            # a log written before --tags has the gold tags' search
            mismatch = [k for k in ("log", "train_sha256", "dev_sha256", "scoring", "seed", "learner", "tags",
                                    "jackknife") if record.get(k, TAGS_BEFORE.get(k)) != header.get(k)]  # fmt: skip
            if mismatch:
                raise MaltpyError(
                    f"--resume: the log is of another search ({', '.join(mismatch)} differ); "
                    "use a new output folder", path, 1,
                )  # fmt: skip
            continue
        if "phase_end" in record:  # what a phase kept: a summary, not a trial
            phases.add(str(record["phase_end"]))
            continue
        key, las, seconds, error = (record.get(k) for k in ("key", "las", "seconds", "error"))
        if not isinstance(key, str) or len(key) != 20:
            raise MaltpyError("not a trial log: a trial without its key", path, number)
        if not (las is None or _number(las) and 0 <= las <= 100) or not (_number(seconds) and seconds >= 0):
            raise MaltpyError("not a trial log: a trial's las or seconds is not a number in range", path, number)
        if not (error is None or isinstance(error, str)) or (las is None) == (error is None):
            raise MaltpyError("not a trial log: a trial has neither a score nor an error, or both", path, number)
        record["error"] = None if error is None else cut(" ".join(error.split()), 300)
        cache[key] = record
    return cache, phases


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


class TrialLog:
    """The trial log open for writing: one JSON object a line, each written through at once;
    a write that fails (a full disk) is an error naming the file."""

    def __init__(self, path: str, append: bool) -> None:
        self.path = path
        try:
            self.file = open(path, "a" if append else "w", encoding="utf-8")  # closed on leaving the with
        except OSError as e:
            raise MaltpyError(f"cannot write: {e.strerror}", path) from None

    def write(self, record: dict) -> None:
        try:
            self.file.write(json.dumps(record) + "\n")
            self.file.flush()
        except OSError as e:
            raise MaltpyError(f"cannot write: {e.strerror}", self.path) from None

    def __enter__(self) -> TrialLog:
        return self

    def __exit__(self, *exception: object) -> None:
        with contextlib.suppress(OSError):  # what a failed write left unwritten, already reported
            self.file.close()
