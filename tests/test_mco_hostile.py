"""Crafted and damaged MaltParser model files (.mco) are untrusted input (issue 30): each kind,
made from a real reference .mco (its members unzipped in memory, one changed, zipped again, the
Java serialization streams edited or built by hand with struct), is one line ``maltpy: error:
MODEL: ...``, exit 2, no output file; the kinds that could cost time or memory are also run as a
process of their own under resource limits (RLIMIT_CPU 60 s, RLIMIT_AS 3 GB), and its peak
resident memory measured and kept under 1 GB.
"""

from __future__ import annotations

import contextlib
import functools
import io
import itertools
import os
import re
import signal
import struct
import subprocess
import sys
import zipfile
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from conftest import SHARED, SWEMALT, requires_shared
from in_process import call_main

import maltpy
from maltpy.cli import main
from maltpy.errors import MaltpyError

pytestmark = requires_shared

MCO = SHARED / "reference" / "maltparser-mco"
LIBLINEAR = "sv-nivreeager-liblinear-malt1.9.2"  # LIBLINEAR rows, no split
LIBSVM = "sv-nivreeager-libsvm-split-malt1.9.2"  # LIBSVM, a data split on POSTAG
FLAT = "sv-nivreeager-liblinear-malt1.5.2"  # 1.5: LIBLINEAR weights one flat array
TEST = SWEMALT / "gold" / "sv-stb-dep-mini-test.conll"

PEAK_LIMIT_KB = 1 << 20  # 1 GB, the bound
CPU_LIMIT_S = 60  # the bound, as the kernel enforces it
ADDRESS_LIMIT = 3 << 30  # room for the interpreter, NumPy and SciPy; an allocation past it fails


# --- the archive ----------------------------------------------------------------------------------


@functools.cache
def original(name: str) -> dict[str, bytes]:
    """The members of a reference .mco, by their names in its folder."""
    with zipfile.ZipFile(MCO / f"{name}.mco") as z:
        return {info.filename.split("/", 1)[1]: z.read(info) for info in z.infolist()}


def write_mco(path: Path, name: str, files: dict[str, bytes]) -> None:
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        for member, data in files.items():
            z.writestr(f"{name}/{member}", data)


def changed(name: str, member: str, change: Callable[[bytes], bytes]) -> Callable[[Path], None]:
    """A maker of the model ``name`` with ``member`` changed."""

    def make(path: Path) -> None:
        files = dict(original(name))
        files[member] = change(files[member])
        write_mco(path, name, files)

    return make


def without(name: str, member: str) -> Callable[[Path], None]:
    def make(path: Path) -> None:
        write_mco(path, name, {m: d for m, d in original(name).items() if m != member})

    return make


def swapped(name: str, member: str, donor: str) -> Callable[[Path], None]:
    """The model ``name`` with the member of model ``donor`` in the place of its ``member``."""
    return changed(name, member, lambda data: original(donor)[member])


def with_members(name: str, extra: dict[str, bytes]) -> Callable[[Path], None]:
    def make(path: Path) -> None:
        write_mco(path, name, {**original(name), **extra})

    return make


def text_changed(name: str, member: str, old: str, new: str, count: int = 1) -> Callable[[Path], None]:
    def change(data: bytes) -> bytes:
        text = data.decode("utf-8")
        assert old in text, (member, old)
        return text.replace(old, new, count).encode("utf-8")

    return changed(name, member, change)


def option(name: str, group: str, option_name: str, value: str) -> Callable[[Path], None]:
    """The saved option ``group option_name`` set to ``value`` (added if the model has none)."""

    def change(data: bytes) -> bytes:
        lines = [line for line in data.decode().split("\n") if line and line.split("\t")[1:3] != [group, option_name]]
        return "\n".join([*lines, f"0\t{group}\t{option_name}\t{value}", ""]).encode()

    return changed(name, "savedoptions.sop", change)


def twice(name: str, member: str) -> Callable[[Path], None]:
    """The model with a second ``member`` after its own (a zip may hold one name twice)."""

    def make(path: Path) -> None:
        write_mco(path, name, original(name))
        with zipfile.ZipFile(path, "a") as z, pytest.warns(UserWarning, match="Duplicate name"):
            z.writestr(f"{name}/{member}", b"")

    return make


def raw_zip(entries: list[tuple[str, bytes, int, int]]) -> bytes:
    """A zip written by hand: each entry (name, deflated data, the CRC and the size it declares),
    so that an entry can declare what it does not hold."""
    out, central = io.BytesIO(), io.BytesIO()
    for name, data, crc, size in entries:
        offset = out.tell()
        raw = name.encode()
        out.write(struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 8, 0, 0, crc, len(data), size, len(raw), 0))
        out.write(raw + data)
        central.write(struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 8, 0, 0, crc, len(data), size,
                                  len(raw), 0, 0, 0, 0, 0, offset) + raw)  # fmt: skip
    start, directory = out.tell(), central.getvalue()
    out.write(directory)
    count = len(entries)
    if count > 0xFFFF:  # the zip64 end record and its locator, the end record deferring to them
        at = out.tell()
        out.write(struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, count, count, len(directory), start))
        out.write(struct.pack("<IIQI", 0x07064B50, 0, at, 1))
        count = 0xFFFF
    out.write(struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, count, count, len(directory), start, 0))
    return out.getvalue()


def deflated(data: bytes) -> bytes:
    c = zlib.compressobj(1, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush()


def zeros_deflated(periods: int) -> tuple[bytes, int]:
    """A raw deflate stream written bit by bit, and how many zero bytes it inflates to: one
    fixed-Huffman block (RFC 1951, 3.2.6), a literal 0, then copies of (length 258, distance 1),
    13 bits each. After the first 16 bits the bits repeat every 8 copies (13 bytes), so that a
    gigabyte costs no work to make: ``periods`` repeats, 8 * periods + 1 copies."""

    def code(value: int, width: int) -> list[int]:  # a Huffman code, its most significant bit first
        return [(value >> (width - 1 - k)) & 1 for k in range(width)]

    def pack(bits: list[int]) -> bytes:  # deflate's bit order: the first bit the lowest
        bits = bits + [0] * (-len(bits) % 8)
        return bytes(sum(bit << k for k, bit in enumerate(bits[i : i + 8])) for i in range(0, len(bits), 8))

    copy = code(0b11000101, 8) + code(0, 5)  # length code 285 (258 bytes), distance code 0 (1 back)
    start = pack([1, 1, 0] + code(0b00110000, 8) + copy * 16)  # BFINAL, BTYPE 01 (fixed), literal 0
    prefix, period = start[:2], start[2:15]  # bits 0-15 (5 of the first copy's), then 104 bits: 8 copies
    tail = pack(copy[5:] + code(0, 7))  # the last copy's other 8 bits, the end of the block
    return prefix + period * periods + tail, 1 + 258 * (8 * periods + 1)


def zeros_member(
    name: str, periods: int, declared: int | None = None, crc_of: int | None = None
) -> Callable[[Path], None]:
    """The model with its classifier a deflated run of zeros (zeros_deflated), declaring its size
    (or ``declared``) and the CRC of its zeros (or of the first ``crc_of``)."""

    def make(path: Path) -> None:
        data, size = zeros_deflated(periods)
        entries = [(f"{name}/{m}", deflated(d), zlib.crc32(d), len(d)) for m, d in original(name).items() if m != MOO]
        crc = zlib.crc32(bytes(size if crc_of is None else crc_of))
        path.write_bytes(raw_zip([*entries, (f"{name}/{MOO}", data, crc, size if declared is None else declared)]))

    return make


# --- Java serialization streams --------------------------------------------------------------------

MAGIC = b"\xac\xed\x00\x05"
BASE = 0x7E0000


def utf(text: str) -> bytes:
    raw = text.encode()
    return struct.pack(">H", len(raw)) + raw


def class_desc(name: str, fields: bytes = b"\x00\x00", flags: int = 0x02, super_: bytes = b"\x70") -> bytes:
    return b"\x72" + utf(name) + struct.pack(">qB", 1, flags) + fields + b"\x78" + super_


def renamed(old: str, new: str) -> Callable[[bytes], bytes]:
    """A stream with the first class (or string) ``old`` named ``new``."""

    def change(data: bytes) -> bytes:
        assert utf(old) in data, old
        return data.replace(utf(old), utf(new), 1)

    return change


def cut_inside(marker: bytes, offset: int = 0) -> Callable[[bytes], bytes]:
    """A stream that ends ``offset`` bytes after the first ``marker`` starts."""

    def change(data: bytes) -> bytes:
        at = data.index(marker) + offset
        assert 4 < at < len(data)
        return data[:at]

    return change


def cut_at(fraction: float) -> Callable[[bytes], bytes]:
    return lambda data: data[: int(len(data) * fraction)]


def array_length(array_class: str, n: int) -> Callable[[bytes], bytes]:
    """A stream whose first array of ``array_class`` (written with its class descriptor) says it
    holds ``n`` elements."""

    def change(data: bytes) -> bytes:
        start = data.index(b"\x75\x72" + utf(array_class))
        at = start + 2 + 2 + len(array_class) + 8 + 1 + 2 + 2  # uid, flags, no fields, end, no super
        assert data[at - 2 : at] == b"\x78\x70"
        return data[:at] + struct.pack(">i", n) + data[at + 4 :]

    return change


def model_prefix(data: bytes, field_type: str) -> tuple[bytes, int]:
    """The bytes of a model stream up to the value of its last field whose type is
    ``field_type`` (``[[D`` for MaltLiblinearModel's w), and where that value starts."""
    at = data.index(b"\x75\x72" + utf(field_type))
    return data[:at], at


def w_replaced(value: bytes) -> Callable[[bytes], bytes]:
    """A 1.6+ MaltLiblinearModel whose w (its last field) is ``value``, then its end."""

    def change(data: bytes) -> bytes:
        prefix, _ = model_prefix(data, "[[D")
        return prefix + value + b"\x78"

    return change


def nested_arrays(depth: int) -> bytes:
    """A double[][] holding a double[][] holding ... ``depth`` deep, the innermost null; each with
    its own class descriptor, so that no handle needs knowing."""
    return (b"\x75" + class_desc("[[D") + struct.pack(">i", 1)) * depth + b"\x70"


def put(anchor: bytes, form: str, value, skip: int = 0, after: bytes = b"\x78\x70") -> Callable[[bytes], bytes]:
    """A stream with the value ``form`` (struct, big-endian) that starts ``skip`` bytes after the
    first ``after`` that follows the first ``anchor`` replaced by ``value``: a field of the
    object whose class descriptor names ``anchor`` (its fields follow the descriptor's end and
    its null super class, ``x p``)."""

    def change(data: bytes) -> bytes:
        at = data.index(after, data.index(anchor)) + len(after) + skip
        size = struct.calcsize(">" + form)
        return data[:at] + struct.pack(">" + form, value) + data[at + size :]

    return change


def array_item(array_class: str, form: str, index: int, value) -> Callable[[bytes], bytes]:
    """A stream whose first array of ``array_class`` (written with its class descriptor) holds
    ``value`` at ``index``."""
    return put(b"\x75\x72" + utf(array_class), form, value, skip=4 + index * struct.calcsize(">" + form))


# --- the runs ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    make: Callable[[Path], None]
    says: str  # a regular expression the message matches
    bounds: bool = False  # run alone under resource limits, its memory measured
    #: MALTPY_MAX_MCO_BYTES for the run: a smaller budget is spent sooner (the same refusal, in
    #: less time) where the crafted file would take more than the issue's bounds without one
    most: int | None = None


def run_in_process(model: Path, out: Path) -> tuple[int, str]:
    """``maltpy parse`` by the command line's main in this process (what a process would print
    to stderr, and its exit status); the signal handlers main sets are put back after it."""
    err = io.StringIO()
    handlers = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGHUP)}
    try:
        with contextlib.redirect_stderr(err):
            status = main(["parse", "-m", str(model), "-i", str(TEST), "-o", str(out)])
    finally:
        for s, handler in handlers.items():
            signal.signal(s, handler)
    return status, err.getvalue()


@dataclass
class Bounded:
    status: int
    stderr: str
    peak_kb: int
    cpu_s: float


#: Runs ``python -m maltpy ARGS`` under the limits and prints its status, peak memory (kB) and CPU
#: time, then its stderr: a fresh small process measures it, so that the peak is maltpy's alone (a
#: child forked from the test's process would start its peak at the size of the test's process,
#: crafted files and all).
_MEASURE = """
import os, resource, subprocess, sys
cpu, space = map(int, sys.argv[1:3])
def limits():
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
    resource.setrlimit(resource.RLIMIT_AS, (space, space))
child = subprocess.Popen([sys.executable, "-m", "maltpy", *sys.argv[3:]], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, preexec_fn=limits)
err = child.stderr.read()
_, status, usage = os.wait4(child.pid, 0)
child.returncode = os.waitstatus_to_exitcode(status)
print(child.returncode, usage.ru_maxrss, usage.ru_utime + usage.ru_stime, flush=True)
sys.stdout.buffer.write(err)
"""


def run_bounded(model: Path, out: Path, most: int | None = None) -> Bounded:
    """``maltpy parse`` as a process of its own under the limits (CPU_LIMIT_S, ADDRESS_LIMIT),
    with its peak memory and CPU time; MALTPY_MAX_MCO_BYTES ``most`` if given."""
    env = {**os.environ, **({"MALTPY_MAX_MCO_BYTES": str(most)} if most is not None else {})}
    measured = subprocess.run([sys.executable, "-c", _MEASURE, str(CPU_LIMIT_S), str(ADDRESS_LIMIT), "parse",
                               "-m", str(model), "-i", str(TEST), "-o", str(out)],
                              capture_output=True, check=True, env=env)  # fmt: skip
    head, _, err = measured.stdout.partition(b"\n")
    status, peak, cpu = head.split()
    return Bounded(int(status), err.decode("utf-8", "replace"), int(peak), float(cpu))


def assert_one_error_line(status: int, err: str, model: Path, says: str) -> None:
    assert status == 2, err
    assert "Traceback" not in err and err.endswith("\n") and err.count("\n") == 1, err
    assert err.startswith(f"maltpy: error: {model}: "), err
    assert re.search(says, err), err


# --- the cases ---------------------------------------------------------------------------------------

MOO, MAP = "odm0.liblinear.moo", "odm0.liblinear.map"
SVM_MOO, SVM_MAP = "odm0.libsvm.moo", "odm0.libsvm.map"
INFO = f"{LIBLINEAR}_singlemalt.info"
VERSION = "Version:                       1.9.2"
LIBLINEAR_MODEL, LIBSVM_MODEL = "org.maltparser.ml.lib.MaltLiblinearModel", "org.maltparser.ml.lib.MaltLibsvmModel"
FEATURE_MAP = "org.maltparser.ml.lib.FeatureMap"
GADGET = "org.apache.commons.collections.functors.InvokerTransformer"
NR_FEATURE = 10921  # LIBLINEAR's model: its rows
BIG = 2**31 - 1
STREAM_ENDS = "the stream ends|longer than the stream"
DECISIONS = "T.TRANS+A.DEPREL"


def ends(member: str) -> str:
    """What the error line says of a stream cut short: the member, the byte."""
    return f"{member}: byte \\d+: .*({STREAM_ENDS})"


def sym_table_line(name: str, line: str) -> Callable[[Path], None]:
    """The symbol table ``name`` of LIBLINEAR's model with one more body line."""
    return text_changed(LIBLINEAR, "symboltables.sym", f"\n{name}\n", f"\n{name}\n{line}\n")


def proxy_descriptor(data: bytes) -> bytes:
    """The model object's class written as a proxy class (TC_PROXYCLASSDESC, its interfaces)."""
    at = data.index(b"\x73\x72") + 1
    return data[:at] + b"\x7d" + struct.pack(">i", 1) + utf("java.lang.Runnable") + b"\x78\x70" + data[at + 1 :]


def hierarchy(levels: int) -> bytes:
    """A class descriptor of java.lang.Number whose super class is one again, ``levels`` deep."""
    return b"".join(b"\x72" + utf("java.lang.Number") + struct.pack(">qB", 1, 2) + b"\x00\x00\x78"
                    for _ in range(levels)) + b"\x70"  # fmt: skip


def map_of(entries: bytes) -> Callable[[bytes], bytes]:
    """The FeatureMap with its HashMap's writeObject data replaced by ``entries`` (then its end)."""

    def change(data: bytes) -> bytes:
        at = data.index(b"\x77\x08", data.index(utf("org.maltparser.core.helper.HashMap")))
        return data[:at] + entries + b"\x78"

    return change


def last_node_index(value: int) -> Callable[[bytes], bytes]:
    """A LIBSVM model whose first support vector's last node has the feature index ``value``."""

    def change(data: bytes) -> bytes:
        start = data.index(b"\x75\x72" + utf("[Llibsvm.svm_node;"))
        length_at = data.index(b"\x78\x70", start) + 2
        (nodes,) = struct.unpack_from(">i", data, length_at)
        first = data.index(b"\x78\x70", data.index(utf("libsvm.svm_node"))) + 2  # the first node's fields
        at = first + 12 + (nodes - 2) * 18 + 6  # each later node: TC_OBJECT, its class by handle, 12 bytes
        assert data[at - 6 : at - 4] == b"\x73\x71"
        return data[:at] + struct.pack(">i", value) + data[at + 4 :]

    return change


def numbered_lines(start: int, stop: int) -> bytes:
    """The lines ``N TAB N`` for N from ``start`` to ``stop`` (numbers of 7 digits), made by NumPy."""
    assert 10**6 <= start and stop <= 10**7
    numbers = np.arange(start, stop, dtype=np.int32)
    lines = np.empty((len(numbers), 16), dtype=np.uint8)
    for k in range(7):
        lines[:, 6 - k] = lines[:, 14 - k] = numbers // 10**k % 10 + 48
    lines[:, 7], lines[:, 15] = 9, 10
    return lines.tobytes()


def shared_row(rows: int) -> Callable[[bytes], bytes]:
    """A 1.6+ LIBLINEAR model of ``rows`` features whose rows are all one row of its 77 classes,
    written once and referred back to (as MaltParser writes equal rows), its nr_feature ``rows``."""
    row = b"\x75" + class_desc("[D") + struct.pack(">i", 77) + struct.pack(">77d", *range(1, 78))
    # handles 0-12 are the model's class, its fields' types, the model, its labels and solver, and
    # w's class and w: the row's class is 13, the row 14
    w = (
        b"\x75"
        + class_desc("[[D")
        + struct.pack(">i", rows)
        + row
        + (b"\x71" + struct.pack(">i", BASE + 14)) * (rows - 1)
    )
    return lambda data: put(utf(LIBLINEAR_MODEL), "i", rows, skip=12)(w_replaced(w)(data))


def number_objects(count: int) -> bytes:
    """A HashMap's data of ``count`` objects of a class of no fields (6 bytes each): handles 0-4
    are FeatureMap's class, its field's type, the map, HashMap's class and the HashMap, so the
    first object's class is 5."""
    first = b"\x73" + class_desc("java.lang.Number")
    return (
        b"\x77\x08" + struct.pack(">ii", 16, count) + first + (b"\x73\x71" + struct.pack(">i", BASE + 5)) * (count - 1)
    )


CASES: dict[str, Case] = {
    # the archive
    "member-outside-the-folder": Case(with_members(LIBLINEAR, {"../evil.sym": b"x"}), "outside the model's folder"),
    "member-in-a-subfolder": Case(
        with_members(LIBLINEAR, {"sub/odm0.liblinear.moo": b"x"}), "outside the model's folder"
    ),
    "member-with-a-backslash": Case(with_members(LIBLINEAR, {"..\\..\\evil": b"x"}), "outside the model's folder"),
    "member-twice": Case(twice(LIBLINEAR, "savedoptions.sop"), "savedoptions.sop twice"),
    "member-declaring-gigabytes": Case(
        lambda p: p.write_bytes(
            raw_zip(
                [
                    (f"{LIBLINEAR}/{m}", deflated(d), zlib.crc32(d), len(d) if m != MOO else 3 << 30)
                    for m, d in original(LIBLINEAR).items()
                ]
            )
        ),
        "declares",
        bounds=True,
    ),  # fmt: skip
    "member-expanding-to-a-gigabyte": Case(zeros_member(LIBLINEAR, 520_000), "declares 1073280259 bytes", bounds=True),
    "member-expanding-to-400-mb-as-declared": Case(
        zeros_member(LIBLINEAR, 200_000), "odm0.liblinear.moo: byte 0: not a Java serialization stream", bounds=True
    ),
    "member-lying-about-its-size": Case(
        zeros_member(LIBLINEAR, 520_000, declared=1000, crc_of=1000),
        "odm0.liblinear.moo: byte 0: not a Java serialization stream",
        bounds=True,
    ),
    "member-lying-about-its-size-and-crc": Case(
        zeros_member(LIBLINEAR, 520_000, declared=1000), "odm0.liblinear.moo: not a readable zip member", bounds=True
    ),
    "many-members": Case(
        lambda p: p.write_bytes(
            raw_zip(
                [(f"{LIBLINEAR}/{m}", deflated(d), zlib.crc32(d), len(d)) for m, d in original(LIBLINEAR).items()]
                + [(f"{LIBLINEAR}/{i}", b"\x03\x00", 0, 0) for i in range(200_000)]
            )
        ),
        "200007 members",
        bounds=True,
    ),  # fmt: skip
    # the report
    "release-1.4": Case(text_changed(LIBLINEAR, INFO, VERSION, VERSION.replace("1.9.2", "1.4.1")), "older than 1.5"),
    "no-release": Case(text_changed(LIBLINEAR, INFO, VERSION, "Version: 1.9.2"), "no MaltParser version"),
    "two-reports": Case(with_members(LIBLINEAR, {"x_singlemalt.info": b""}), "several"),
    "no-report": Case(without(LIBLINEAR, INFO), f"MaltParser model: {LIBLINEAR}/{INFO} is missing"),
    "cut-short": Case(
        lambda p: p.write_bytes((MCO / f"{LIBLINEAR}.mco").read_bytes()[:300_000]),
        r"a damaged or truncated \.mco: not a readable zip archive \(File is not a zip file; a file cut short\?\)",
    ),
    # the saved options
    "learner-a-java-class": Case(
        option(LIBLINEAR, "guide", "learner", "class java.lang.Runtime"),
        "option guide learner is 'class java.lang.Runtime'",
    ),
    "algorithm-a-java-class": Case(
        option(LIBLINEAR, "singlemalt", "parsing_algorithm", "class java.lang.Runtime"),
        "option singlemalt parsing_algorithm is 'class java.lang.Runtime'",
    ),
    "guide-model-a-java-class": Case(
        option(LIBLINEAR, "singlemalt", "guide_model", "class java.lang.Runtime"),
        "option singlemalt guide_model is 'class java.lang.Runtime'",
    ),
    "features-a-java-class": Case(
        option(LIBLINEAR, "guide", "features", "class java.lang.ProcessBuilder"), "option guide features names a class"
    ),
    "learner-options-a-java-class": Case(
        option(LIBLINEAR, "lib", "options", f"class {GADGET}"), "option lib options names a class"
    ),
    "option-line-garbage": Case(
        text_changed(LIBLINEAR, "savedoptions.sop", "\n", "\nrm -rf /\n"), "not a saved option"
    ),
    "option-twice": Case(text_changed(LIBLINEAR, "savedoptions.sop", "\n", "\n0\tguide\tkbest\t-1\n"), "given twice"),
    "decision-settings-sequence": Case(
        option(LIBLINEAR, "guide", "decision_settings", "T.TRANS,A.DEPREL"),
        "option guide decision_settings is 'T.TRANS,A.DEPREL'",
    ),
    "decision-settings-branched": Case(
        option(LIBLINEAR, "guide", "decision_settings", "T.TRANS#A.DEPREL"),
        "option guide decision_settings is 'T.TRANS#A.DEPREL'",
    ),
    "decision-settings-other-column": Case(
        option(LIBLINEAR, "guide", "decision_settings", "T.TRANS+A.FEATS"),
        "option guide decision_settings is 'T.TRANS\\+A.FEATS'",
    ),
    "kbest": Case(option(LIBLINEAR, "guide", "kbest", "5"), "option guide kbest is '5'"),
    "classitem-separator": Case(
        option(LIBLINEAR, "guide", "classitem_separator", "|"), "option guide classitem_separator is '\\|'"
    ),
    "partial-tree": Case(
        option(LIBLINEAR, "singlemalt", "use_partial_tree", "true"), "option singlemalt use_partial_tree is 'true'"
    ),
    "propagation": Case(
        option(LIBLINEAR, "singlemalt", "propagation", "prop.xml"), "option singlemalt propagation is 'prop.xml'"
    ),
    "head-rules": Case(option(LIBLINEAR, "graph", "head_rules", "rules.txt"), "option graph head_rules is 'rules.txt'"),
    "charset": Case(option(LIBLINEAR, "input", "charset", "ISO-8859-1"), "option input charset is 'ISO-8859-1'"),
    "null-value": Case(option(LIBLINEAR, "singlemalt", "null_value", "evil"), "null_value.*evil"),
    "split-threshold": Case(
        option(LIBSVM, "guide", "data_split_threshold", "1e9"), "option guide data_split_threshold is '1e9'"
    ),
    "root-handling-1.5": Case(option(FLAT, "nivre", "root_handling", "evil"), "option nivre root_handling is 'evil'"),
    "no-algorithm": Case(
        changed(
            LIBLINEAR,
            "savedoptions.sop",
            lambda d: b"\n".join(line for line in d.split(b"\n") if b"parsing_algorithm" not in line),
        ),
        "no saved option singlemalt parsing_algorithm",
    ),
    # the data format and the feature model
    "data-format-other-columns": Case(
        text_changed(LIBLINEAR, "conllx.xml", '<column name="LEMMA"', '<column name="X"'),
        "option input format is 'conllx.xml', whose columns",
    ),
    "data-format-not-xml": Case(
        changed(LIBLINEAR, "conllx.xml", lambda d: d[:-20]), "conllx.xml is not well-formed XML"
    ),
    "data-format-entity-bomb": Case(
        changed(
            LIBLINEAR,
            "conllx.xml",
            lambda d: (
                b'<?xml version="1.0"?><!DOCTYPE d [<!ENTITY a "aaaaaaaaaa">'
                + b"".join(
                    b'<!ENTITY %c "&%c;&%c;&%c;&%c;&%c;&%c;&%c;&%c;&%c;&%c;">' % ((98 + i,) + (97 + i,) * 10)
                    for i in range(9)
                )
                + b']><dataformat><column name="&j;"/></dataformat>'
            ),
        ),
        "conllx.xml is not well-formed XML",
        bounds=True,
    ),
    "data-format-missing": Case(option(LIBLINEAR, "input", "format", "malttab.xml"), "malttab.xml is missing"),
    "data-format-elsewhere": Case(option(LIBLINEAR, "input", "format", "../../../etc/passwd"), "passwd is missing"),
    "feature-model-missing": Case(without(LIBLINEAR, "NivreEager.xml"), "NivreEager.xml is missing"),
    "feature-model-not-xml": Case(
        changed(LIBLINEAR, "NivreEager.xml", lambda d: d[:-30]), "NivreEager.xml.*not well-formed XML"
    ),
    "feature-function-maltpy-lacks": Case(
        text_changed(LIBLINEAR, "NivreEager.xml", "InputColumn(FORM, Input[1])", "InputTable(FORM, Input[1])"),
        "InputTable",
    ),
    "feature-column-the-format-lacks": Case(
        text_changed(LIBLINEAR, "NivreEager.xml", "InputColumn(FORM, Input[1])", "InputColumn(UPOS, Input[1])"), "UPOS"
    ),
    # the symbol tables
    "symbol-table-header-garbage": Case(
        text_changed(LIBLINEAR, "symboltables.sym", "\tFEATS\t1\t1\tone", "\tFEATS\tx"),
        "symboltables.sym:3: not a symbol table's header line",
    ),
    "symbol-table-body-garbage": Case(sym_table_line("FORM", "garbage"), "not a code and its symbol"),
    "symbol-table-unknown": Case(
        text_changed(LIBLINEAR, "symboltables.sym", "\nFORM\n", "\nEVIL\n"), "table 'EVIL' is not in the header"
    ),
    "symbol-code-twice": Case(sym_table_line("FORM", "1\tx"), "code 1 given twice"),
    "symbol-twice": Case(sym_table_line("FORM", "99999\toch"), "'och'.*twice"),
    "symbol-code-huge": Case(sym_table_line("FORM", "99999999999\tx"), "not a code and its symbol"),
    "symbol-table-not-utf8": Case(changed(LIBLINEAR, "symboltables.sym", lambda d: d + b"\xff\xfe"), "not UTF-8"),
    "no-decision-table": Case(
        text_changed(LIBLINEAR, "symboltables.sym", f"\n{DECISIONS}\n", "\nX\n"), "table 'X' is not in the header"
    ),
    # the decisions
    "transition-the-algorithm-lacks": Case(
        sym_table_line(DECISIONS, "9999\tSW"), "'SW' is no transition of nivreeager"
    ),
    "shift-with-a-label": Case(sym_table_line(DECISIONS, "9999\tSH~SS"), "'SH~SS' has a label without an arc"),
    "arc-without-a-label": Case(sym_table_line(DECISIONS, "9999\tLA"), "'LA' does not have the parts"),
    "class-twice": Case(sym_table_line(DECISIONS, "9999\tLA~SS"), "symbol 'LA~SS' given twice"),
    # a symbol a parse would write into a CoNLL file, or read a field as, is CoNLL field text (issue 44)
    **{
        f"decision-{name}": Case(
            text_changed(LIBLINEAR, "symboltables.sym", "\n13\tLA~SS\n", f"\n13\t{symbol}\n"),
            "symboltables.sym:173: a symbol that is not CoNLL field text",
        )
        for name, symbol in [("with-a-tab", "LA~SS\tX"), ("with-a-cr", "LA~SS\r"), ("with-a-nul", "LA~S\0S"),
                             ("with-an-esc", "LA~\x1b[2JSS"), ("with-a-del", "LA~SS\x7f"),
                             ("blank-before", " LA~SS"), ("blank-after", "LA~SS "), ("empty", "")]
    },  # fmt: skip
    "decision-label-blank-inside": Case(
        text_changed(LIBLINEAR, "symboltables.sym", "\n13\tLA~SS\n", "\n13\tLA~ SS\n"),
        "'LA~ SS' has a label that is not CoNLL field text",
    ),
    "deprel-with-a-tab": Case(sym_table_line("DEPREL", "9999\tSS\tX"), "a symbol that is not CoNLL field text"),
    "form-with-an-esc": Case(sym_table_line("FORM", "99999\toch\x1b]0;x\x07"), "a symbol that is not CoNLL field text"),
    "postag-blank-after": Case(sym_table_line("POSTAG", "9999\tNN "), "a symbol that is not CoNLL field text"),
    "table-name-blank-after": Case(
        text_changed(LIBLINEAR, "symboltables.sym", "\tFEATS\t1\t1\tone", "\tFEATS \t1\t1\tone"),
        "symboltables.sym:3: a table name that is not CoNLL field text",
    ),
    "label-not-in-the-decision-table": Case(
        changed(LIBLINEAR, MOO, array_item("[I", "i", 0, 9999)), "class code \\[9999\\] is not in the decision table"
    ),
    "label-twice": Case(changed(LIBLINEAR, MOO, array_item("[I", "i", 0, 3)), "a class twice"),
    # the streams: truncated
    "moo-cut-in-a-class-descriptor": Case(changed(LIBLINEAR, MOO, cut_inside(utf(LIBLINEAR_MODEL), 20)), ends(MOO)),
    "moo-cut-in-its-fields": Case(changed(LIBLINEAR, MOO, cut_inside(utf("nr_feature"), 3)), ends(MOO)),
    "moo-cut-in-the-labels": Case(changed(LIBLINEAR, MOO, cut_inside(b"\x75\x72" + utf("[I"), 30)), ends(MOO)),
    "moo-cut-in-a-weight-row": Case(changed(LIBLINEAR, MOO, cut_at(0.5)), ends(MOO)),
    "moo-cut-before-its-end": Case(changed(LIBLINEAR, MOO, cut_at(0.9999999)), ends(MOO)),
    "flat-moo-cut-in-the-weights": Case(changed(FLAT, MOO, cut_at(0.5)), ends(MOO)),
    "map-cut-in-a-class-descriptor": Case(changed(LIBLINEAR, MAP, cut_inside(utf(FEATURE_MAP), 10)), ends(MAP)),
    "map-cut-in-the-hashmap-block": Case(changed(LIBLINEAR, MAP, cut_inside(b"\x77\x08", 5)), ends(MAP)),
    "map-cut-in-the-hashmap-data": Case(changed(LIBLINEAR, MAP, cut_at(0.5)), ends(MAP)),
    "map-cut-before-its-end": Case(changed(LIBLINEAR, MAP, cut_at(0.9999999)), ends(MAP)),
    "libsvm-cut-in-a-support-vector": Case(
        changed(LIBSVM, SVM_MOO, cut_at(0.3)), f"{ends(SVM_MOO)}|{SVM_MOO}: byte \\d+: the objects of a row"
    ),  # a row's objects are checked at once: one cut short is not one of them
    "libsvm-cut-in-the-parameters": Case(
        changed(LIBSVM, SVM_MOO, cut_inside(utf("libsvm.svm_parameter"), 100)), STREAM_ENDS
    ),
    "stream-empty": Case(changed(LIBLINEAR, MOO, lambda d: b""), "not a Java serialization stream"),
    "stream-more-after-the-model": Case(
        changed(LIBLINEAR, MOO, lambda d: d + b"\x70"), "is not one MaltLiblinearModel"
    ),
    # the streams: wrong classes
    "map-a-java-hashmap": Case(
        changed(LIBLINEAR, MAP, renamed(FEATURE_MAP, "java.util.HashMap")),
        "class 'java.util.HashMap' is not one of a model's",
    ),
    "moo-a-gadget": Case(changed(LIBLINEAR, MOO, renamed(LIBLINEAR_MODEL, GADGET)), f"class '{GADGET}'"),
    "libsvm-node-a-gadget": Case(
        changed(LIBSVM, SVM_MOO, renamed("libsvm.svm_node", "com.sun.rowset.JdbcRowSetImpl")),
        "class 'com.sun.rowset.JdbcRowSetImpl' is not one of a model's",
    ),
    "map-key-a-runtime": Case(
        changed(LIBLINEAR, MAP, renamed("java.lang.Long", "java.lang.Runtime")),
        "class 'java.lang.Runtime' is not one of a model's",
    ),
    "solver-of-another-enum": Case(
        changed(LIBLINEAR, MOO, renamed("de.bwaldvogel.liblinear.SolverType", "java.lang.Thread$State")),
        "class 'java.lang.Thread\\$State' is not one of a model's",
    ),
    "moo-a-liblinear-model-in-the-map": Case(
        changed(LIBLINEAR, MAP, lambda d: original(LIBLINEAR)[MOO]),
        f"class '{LIBLINEAR_MODEL}' is not one of a model's",
    ),
    "moo-a-feature-map": Case(
        changed(LIBLINEAR, MOO, lambda d: original(LIBLINEAR)[MAP]), f"class '{FEATURE_MAP}' is not one of a model's"
    ),
    "moo-a-boxed-number": Case(
        changed(
            LIBLINEAR,
            MOO,
            lambda d: (
                MAGIC
                + b"\x73"
                + class_desc("java.lang.Integer", b"\x00\x01I" + utf("value"), super_=class_desc("java.lang.Number"))
                + b"\x00\x00\x00\x07"
            ),
        ),
        "odm0.liblinear.moo is not one MaltLiblinearModel",
    ),
    "proxy-class": Case(changed(LIBLINEAR, MOO, proxy_descriptor), "0x7d where a class descriptor was expected"),
    "externalizable-class": Case(
        changed(LIBLINEAR, MAP, put(utf(FEATURE_MAP), "B", 0x06, skip=len(utf(FEATURE_MAP)) + 8, after=b"")),
        "class 'org.maltparser.ml.lib.FeatureMap' is externalizable",
    ),
    "unknown-solver": Case(changed(LIBLINEAR, MOO, renamed("MCSVM_CS", "RUN_CMD")), "an unknown solver"),
    # the streams: huge array lengths
    "labels-2g-long": Case(changed(LIBLINEAR, MOO, array_length("[I", BIG)), "array of 2147483647 values longer"),
    "weights-2g-rows": Case(
        changed(LIBLINEAR, MOO, array_length("[[D", BIG)), "array of 2147483647 values longer", True
    ),
    "weight-row-2g-long": Case(changed(LIBLINEAR, MOO, array_length("[D", BIG)), "array of 2147483647 values longer"),
    "flat-weights-2g-long": Case(changed(FLAT, MOO, array_length("[D", BIG)), "array of 2147483647 values longer"),
    "support-vectors-2g": Case(
        changed(LIBSVM, SVM_MOO, array_length("[[Llibsvm.svm_node;", BIG)), "array of 2147483647 values longer"
    ),
    "support-vector-2g-nodes": Case(
        changed(LIBSVM, SVM_MOO, array_length("[Llibsvm.svm_node;", BIG)), "array of 2147483647 values longer", True
    ),
    "labels-negative-length": Case(changed(LIBLINEAR, MOO, array_length("[I", -1)), "array of -1 values"),
    # the streams: deep nesting
    "arrays-10000-deep": Case(
        changed(LIBLINEAR, MOO, w_replaced(nested_arrays(10_000))), "nested deeper than 64|a row of '\\[\\[D'", True
    ),
    "objects-10000-deep": Case(
        changed(
            LIBLINEAR,
            MAP,
            lambda d: (
                d[: d.index(b"\x73\x72" + utf("org.maltparser.core.helper.HashMap"))]
                + (b"\x73\x71" + struct.pack(">ii", BASE, 1)) * 10_000
                + b"\x70"
            ),
        ),
        "nested deeper than 64",
    ),
    "class-hierarchy-10000-deep": Case(
        changed(LIBLINEAR, MAP, map_of(b"\x77\x08" + struct.pack(">ii", 16, 1) + b"\x73" + hierarchy(10_000))),
        "class|hierarch|deep",
        True,
    ),  # fmt: skip
    # the streams: what small streams would become
    "five-million-objects": Case(
        changed(LIBLINEAR, MAP, map_of(number_objects(5_000_000))),
        "odm0.liblinear.map: byte \\d+: values that would take more than 64 MB",
        True,
        64 << 20,
    ),
    "150-million-nulls-in-an-array": Case(
        changed(
            LIBLINEAR,
            MOO,
            w_replaced(b"\x75" + class_desc("[[D") + struct.pack(">i", 150_000_000) + b"\x70" * 150_000_000),
        ),
        "odm0.liblinear.moo: byte \\d+: an array of 150000000 rows, more than",
        True,
    ),  # fmt: skip
    "150-million-nulls-in-a-hashmap": Case(
        changed(LIBLINEAR, MAP, map_of(b"\x77\x08" + struct.pack(">ii", 16, 1) + b"\x70" * 150_000_000)),
        "odm0.liblinear.map: byte \\d+: more than 4000000 values",
        True,
    ),
    "a-string-of-300-mb": Case(
        changed(
            LIBLINEAR,
            MAP,
            map_of(b"\x77\x08" + struct.pack(">ii", 16, 1) + b"\x7c" + struct.pack(">q", 300 << 20) + bytes(300 << 20)),
        ),
        "odm0.liblinear.map: byte \\d+: values that would take more than 512 MB",
        True,
    ),  # fmt: skip
    "one-row-for-2-million-features": Case(
        changed(LIBLINEAR, MOO, shared_row(2_000_000)),
        "odm0.liblinear.moo: weights of 2000000 features, where odm0.liblinear.map maps 10921",
        True,
    ),
    "one-row-for-every-feature": Case(  # the map's width: what the row becomes is spent from the budget
        changed(LIBLINEAR, MOO, shared_row(NR_FEATURE)),
        "odm0.liblinear.moo: values that would take more than 16 MB",
        True,
        most=16 << 20,
    ),
    "symbol-table-of-blank-lines": Case(
        changed(LIBLINEAR, "symboltables.sym", lambda d: d + b"\n" * (300 << 20)),
        "symboltables.sym:\\d+: a blank line where",
        True,
    ),
    "symbol-table-of-8-million-symbols": Case(
        changed(
            LIBLINEAR,
            "symboltables.sym",
            lambda d: d.replace(b"\nFORM\n", b"\nFORM\n" + numbered_lines(10**6, 9 * 10**6), 1),
        ),
        "more than \\d+ symbols",
        True,
    ),  # fmt: skip
    # the streams: back-references
    "row-a-reference-out-of-range": Case(
        changed(
            LIBLINEAR,
            MOO,
            w_replaced(
                b"\x75"
                + class_desc("[[D")
                + struct.pack(">i", NR_FEATURE)
                + b"\x71"
                + struct.pack(">i", BASE + 10**6)
                + b"\x70" * (NR_FEATURE - 1)
            ),
        ),
        "back-reference to object 1000000",
    ),  # fmt: skip
    "row-a-reference-before-the-first": Case(
        changed(
            LIBLINEAR,
            MOO,
            w_replaced(
                b"\x75"
                + class_desc("[[D")
                + struct.pack(">i", NR_FEATURE)
                + b"\x71"
                + struct.pack(">i", 5)
                + b"\x70" * (NR_FEATURE - 1)
            ),
        ),
        "back-reference to object -",
    ),  # fmt: skip
    "row-a-reference-to-a-string": Case(
        changed(
            LIBLINEAR,
            MOO,
            w_replaced(
                b"\x75"
                + class_desc("[[D")
                + struct.pack(">i", NR_FEATURE)
                + b"\x71"
                + struct.pack(">i", BASE + 1)
                + b"\x70" * (NR_FEATURE - 1)
            ),
        ),
        "w is not a double\\[\\]|not an earlier row of this array",
    ),  # fmt: skip
    "row-a-reference-to-a-class": Case(
        changed(
            LIBLINEAR,
            MOO,
            w_replaced(
                b"\x75"
                + class_desc("[[D")
                + struct.pack(">i", NR_FEATURE)
                + b"\x71"
                + struct.pack(">i", BASE)
                + b"\x70" * (NR_FEATURE - 1)
            ),
        ),
        "w is not a double\\[\\]|not an earlier row of this array",
    ),  # fmt: skip
    "rows-fewer-than-features": Case(
        changed(LIBLINEAR, MOO, put(utf(LIBLINEAR_MODEL), "i", 10**8, skip=12)),
        "odm0.liblinear.moo: weights of 100000000 features, where odm0.liblinear.map maps 10921",
    ),
    "map-key-a-reference-to-a-string": Case(
        changed(
            LIBLINEAR,
            MAP,
            map_of(
                b"\x77\x08"
                + struct.pack(">ii", 16, 1)
                + b"\x71"
                + struct.pack(">i", BASE + 1)
                + b"\x71"
                + struct.pack(">i", BASE + 1)
            ),
        ),
        "not a Long and an Integer|holds other than numbers",
    ),  # fmt: skip
    # the numbers
    "weight-nan": Case(changed(LIBLINEAR, MOO, array_item("[D", "d", 0, float("nan"))), "not finite"),
    "weight-infinite": Case(changed(LIBLINEAR, MOO, array_item("[D", "d", 0, float("-inf"))), "not finite"),
    "flat-weight-nan": Case(changed(FLAT, MOO, array_item("[D", "d", 500_000, float("nan"))), "not finite"),
    "libsvm-coefficient-nan": Case(
        changed(
            LIBSVM, SVM_MOO, put(b"\x75\x72" + utf("[[D"), "d", float("nan"), skip=2 + 5 + 13 + 4 + 6 + 4, after=b"")
        ),
        "not finite",
    ),
    "libsvm-node-value-inf": Case(
        changed(LIBSVM, SVM_MOO, put(utf("libsvm.svm_node"), "d", float("inf"), skip=4)), "support vector nodes|finite"
    ),
    "libsvm-gamma-nan": Case(
        changed(LIBSVM, SVM_MOO, put(utf("libsvm.svm_parameter"), "d", float("nan"), skip=36)), "gamma"
    ),
    "libsvm-degree-huge": Case(changed(LIBSVM, SVM_MOO, put(utf("libsvm.svm_parameter"), "i", BIG, skip=24)), "degree"),
    "libsvm-svm-type": Case(changed(LIBSVM, SVM_MOO, put(utf("libsvm.svm_parameter"), "i", 2, skip=76)), "svm_type 2"),
    "libsvm-kernel": Case(
        changed(LIBSVM, SVM_MOO, put(utf("libsvm.svm_parameter"), "i", 9, skip=44)), "unknown kernel_type"
    ),
    "libsvm-counts-that-do-not-add-up": Case(
        changed(LIBSVM, SVM_MOO, put(utf(LIBSVM_MODEL), "i", 2497)), "class counts that do not fit"
    ),
    "libsvm-node-index-2g": Case(changed(LIBSVM, SVM_MOO, last_node_index(BIG)), "index", True),
    "libsvm-map-index-2g": Case(
        changed(LIBSVM, SVM_MAP, put(utf("java.lang.Integer"), "i", BIG, after=b"\x78\x71", skip=4)),
        "feature indices|index",
        True,
    ),  # fmt: skip
    # the feature map
    "map-key-beyond-the-features": Case(
        changed(LIBLINEAR, MAP, put(utf("java.lang.Number"), "q", 99 << 48 | 1)),
        "a key of a feature beyond the feature vector's 22",
    ),
    "map-key-code-2g": Case(
        changed(LIBLINEAR, MAP, put(utf("java.lang.Number"), "q", 1 << 48 | 1 << 31)),
        "odm0.liblinear.map: a key of code 2147483648 for feature 1 .*, a code its symbol table FORM does not have",
    ),
    "map-key-code-not-in-the-table": Case(
        changed(LIBLINEAR, MAP, put(utf("java.lang.Number"), "q", 1 << 48 | 99999)),
        "odm0.liblinear.map: a key of code 99999 for feature 1",
    ),
    "map-key-negative": Case(
        changed(LIBLINEAR, MAP, put(utf("java.lang.Number"), "q", -1)), "beyond the feature vector"
    ),
    "map-indices-collide": Case(
        changed(LIBLINEAR, MAP, put(utf("java.lang.Integer"), "i", 183, after=b"\x78\x71", skip=4)), "feature ind"
    ),
    "map-index-zero": Case(
        changed(LIBLINEAR, MAP, put(utf("java.lang.Integer"), "i", 0, after=b"\x78\x71", skip=4)), "feature ind"
    ),
    "map-size-lies": Case(
        changed(LIBLINEAR, MAP, put(b"\x77\x08", "i", 10**9, after=b"", skip=6)),
        "a HashMap of 1000000000 entries holds",
    ),
    # members of another model (more in test_a_member_of_another_model_is_refused_naming_it)
    "moo-of-another-release": Case(
        swapped(LIBLINEAR, MOO, FLAT),
        "odm0.liblinear.moo: weights of 12242 features, where odm0.liblinear.map maps 10921",
    ),
    "map-of-another-release": Case(swapped(LIBLINEAR, MAP, FLAT), "odm0.liblinear.map: a key of code"),
    "libsvm-moo-of-another-release": Case(
        swapped("sv-nivreeager-libsvm-split-malt1.5.2", SVM_MOO, LIBSVM),
        "odm0.libsvm.moo: a support vector of two values of one feature, as odm0.libsvm.map numbers them",
    ),
    # the data split
    "split-classifier-missing": Case(
        text_changed(LIBSVM, "odm0.dsm", "\n6\t", "\n7\t1\n6\t"), "odm0.007.libsvm.map is missing"
    ),
    "split-value-not-in-its-table": Case(
        text_changed(LIBSVM, "odm0.dsm", "\n6\t", "\n99999\t1\n6\t"), "split value code 99999"
    ),
    "split-table-garbage": Case(text_changed(LIBSVM, "odm0.dsm", "\n6\t", "\nsix\t"), "odm0.dsm:5: not a split value"),
    "split-table-empty": Case(changed(LIBSVM, "odm0.dsm", lambda d: b""), "lists no classifier"),
}


@pytest.mark.parametrize("case", [name for name, case in CASES.items() if not case.bounds])
def test_a_crafted_mco_is_one_error_line(tmp_path, case):
    crafted = tmp_path / "crafted.mco"
    CASES[case].make(crafted)
    out = tmp_path / "out.conll"
    status, err = run_in_process(crafted, out)
    assert_one_error_line(status, err, crafted, CASES[case].says)
    assert [p.name for p in tmp_path.iterdir()] == ["crafted.mco"]  # no output, not even a temporary one


@pytest.mark.parametrize("case", [name for name, case in CASES.items() if case.bounds])
def test_a_crafted_mco_is_one_error_line_in_bounded_memory_and_time(tmp_path, case):
    crafted = tmp_path / "crafted.mco"
    CASES[case].make(crafted)
    out = tmp_path / "out.conll"
    run = run_bounded(crafted, out, CASES[case].most)
    # past RLIMIT_CPU the kernel ends the process (status -24, SIGXCPU); past RLIMIT_AS an
    # allocation fails (MemoryError, a traceback): neither is one error line and status 2
    assert_one_error_line(run.status, run.stderr, crafted, CASES[case].says)
    assert run.peak_kb < PEAK_LIMIT_KB, f"peak {run.peak_kb >> 10} MB, {run.cpu_s:.1f} s of CPU"
    assert [p.name for p in tmp_path.iterdir()] == ["crafted.mco"]


@pytest.mark.parametrize("case", ["decision-with-a-tab", "decision-label-blank-inside", "form-with-an-esc"])
def test_no_writer_writes_a_symbol_that_is_not_conll_field_text(tmp_path, case):
    # convert-model and a blend's member read the .mco as parse does: what the archive reader would
    # refuse as "a label that is not CoNLL field text" is refused here, and no archive is written
    crafted = tmp_path / "crafted.mco"
    CASES[case].make(crafted)
    train, held_out = (SWEMALT / "gold" / f"sv-stb-dep-mini-{part}.conll" for part in ("train", "test-00"))
    for args in (["convert-model", crafted, "-o", tmp_path / "converted.mpm"],
                 ["blend", "-i", train, "--held-out", held_out, "-m", tmp_path / "blend.mpm",
                  "--member", f"-m {crafted}", "--member", "-a nivreeager"]):  # fmt: skip
        r = call_main(*args)
        assert r.stdout == b"", r.stdout
        assert_one_error_line(r.returncode, r.stderr.decode(), crafted, CASES[case].says)
        assert [p.name for p in tmp_path.iterdir()] == ["crafted.mco"]


def test_info_shows_a_saved_option_without_its_escape_sequence(tmp_path):
    crafted = tmp_path / "crafted.mco"
    option(LIBLINEAR, "config", "flowchart", "learn\x1b]0;owned\x07\x1b[2J")(crafted)
    r = call_main("info", "-m", crafted)
    assert r.returncode == 0, r.stderr
    assert b"\x1b" not in r.stdout and b"\x07" not in r.stdout
    assert b"config flowchart" in r.stdout and b"learn\\x1b]0;owned\\x07\\x1b[2J" in r.stdout


@pytest.mark.parametrize("case", ["moo-cut-in-a-weight-row", "moo-a-gadget", "learner-a-java-class",
                                  "feature-function-maltpy-lacks", "member-declaring-gigabytes"])  # fmt: skip
def test_load_model_raises_a_maltpy_error_naming_the_file(tmp_path, case):
    crafted = tmp_path / "crafted.mco"
    CASES[case].make(crafted)
    with pytest.raises(MaltpyError) as raised:
        maltpy.load_model(str(crafted))
    assert raised.value.file == str(crafted) and re.search(CASES[case].says, raised.value.message)
    assert "\n" not in str(raised.value)


# --- members of another model (issue 44, item 2) ------------------------------------------------------

CONFIGS = ("nivreeager-liblinear", "stacklazy-liblinear", "covnonproj-liblinear", "nivreeager-pp_head_path-liblinear",
           "nivreeager-libsvm-split", "planar-liblinear")  # fmt: skip


def swaps() -> list[tuple[str, str, str, str]]:
    """(model, member, donor model, donor's member): a systematic set of members put in the place
    of another model's: across releases (1.5.2 and 1.9.2, both ways), treebanks (sv and da_ddt,
    both ways), algorithms and learners (each configuration's 1.9.2 model of sv into each other's),
    and a data split's classifiers (another split value's, the master's; of a data split's, the
    master's and one split value's, whose classifiers are read in turn). A member whose companion
    is the same bytes in both models (the map of a .moo, the .moo of a map: 1.5.2 and 1.7.2 number
    a split value's features alike, and a .moo learned on them fits) is no member of another model,
    and is left out."""
    def pair(target: str, donor: str) -> list[tuple[str, str, str, str]]:
        a, b = original(target), original(donor)
        found = []
        for member in a:
            companion = member[:-3] + ("map" if member.endswith(".moo") else "moo")
            if re.fullmatch(r"odm0\.(003\.)?lib\w+\.mo[op]", member) and member in b and a[member] != b[member] \
                    and a[companion] != b.get(companion):  # fmt: skip
                found.append((target, member, donor, member))
        return found

    out = []
    for config in CONFIGS:
        if config != "planar-liblinear":  # 1.5.2 had no planar
            out += pair(f"sv-{config}-malt1.9.2", f"sv-{config}-malt1.5.2")
            out += pair(f"sv-{config}-malt1.5.2", f"sv-{config}-malt1.9.2")
        out += pair(f"sv-{config}-malt1.9.2", f"da_ddt-{config}-malt1.9.2")
        out += pair(f"da_ddt-{config}-malt1.9.2", f"sv-{config}-malt1.9.2")
    for config, other in itertools.permutations(CONFIGS, 2):
        a, b = f"sv-{config}-malt1.9.2", f"sv-{other}-malt1.9.2"
        main = [m for m in original(a) if re.fullmatch(r"odm0\.lib\w+\.mo[op]", m)]
        out += [(a, m, b, d) for m in main for d in original(b) if re.fullmatch(rf"odm0\.lib\w+\{m[-4:]}", d)]
    for member in ("odm0.003.libsvm.moo", "odm0.003.libsvm.map", "odm0.libsvm.moo"):
        for donor in ("odm0.004.libsvm.moo", "odm0.004.libsvm.map", "odm0.libsvm.moo", "odm0.libsvm.map"):
            if member != donor and member[-3:] == donor[-3:]:
                out.append((LIBSVM, member, LIBSVM, donor))
    return out


SWAPS = swaps() if MCO.is_dir() else []


def test_a_member_of_another_model_is_refused_naming_it():
    from maltpy.mco import load_mco

    assert len(SWAPS) >= 60 and len({(t, d) for t, _, d, _ in SWAPS}) >= 50
    loaded = []
    for target, member, donor, donors in SWAPS:
        files = dict(original(target))
        files[member] = original(donor)[donors]
        crafted = io.BytesIO()
        with zipfile.ZipFile(crafted, "w") as z:  # stored: the test's time is the reader's
            for name, data in files.items():
                z.writestr(f"{target}/{name}", data)
        companion = member[:-3] + ("map" if member.endswith(".moo") else "moo")
        try:
            load_mco("crafted.mco", crafted.getvalue())
        except MaltpyError as e:
            assert e.file == "crafted.mco"
            assert re.search(f"MaltParser model: ({re.escape(member)}|{re.escape(companion)}|the classifiers of "
                             f"odm0.dsm): ", e.message), (target, member, donor, e.message)  # fmt: skip
        else:
            loaded.append((target, member, donor, donors))
    assert not loaded


@pytest.mark.parametrize("name", [LIBLINEAR, LIBSVM, FLAT])
def test_the_models_the_cases_are_made_from_load(name):
    # each case above is one change to one of these: the reader refuses the change, not the model
    model = maltpy.load_model(str(MCO / f"{name}.mco"))
    assert model.statistics["maltparser_configuration"] == name
