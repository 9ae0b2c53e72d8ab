"""A reader of Java serialization streams, bounded, for the few classes of MaltParser's models.

MaltParser's .mco archives keep their classifiers (``odm0.liblinear.moo``, ``.libsvm.moo``) and
feature maps (``.map``) as Java object serialization streams (Java Object Serialization
Specification, §6 "Object Serialization Stream Protocol": the grammar of ``stream``,
``content``, ``newObject``, ``classDesc``, ``classdata``). A model file is untrusted input, so
this reader understands data only: objects of the classes its caller names, strings, arrays,
enum constants and block data; it never loads, resolves or runs anything a stream names, and it
refuses proxy classes, externalizable classes (whose data only their own code can read),
exceptions and resets. Its work is linear in the stream's length, under explicit bounds on the
bytes, the number of objects (handles), the length of an array (no more elements than bytes left
to hold them), the nesting of contents and of class hierarchies, the work (steps) and what the
values read take in memory (a ``Budget`` they are spent from).

``read_stream(data, classes, budget)`` gives the stream's contents as Python values: a ``JavaObject``
(its class name and each class's fields, super class first, and what its ``writeObject`` wrote
after them), a ``JavaEnum``, a ``str``, ``None``, a NumPy array for an array of a primitive type
(big-endian, as written) and a list for an array of objects, and ``bytes`` for block data; a
run of objects of classes with primitive fields only, inside an array or a class's own data, is
one ``Records`` (the bulk of MaltParser's maps and LIBSVM models, read as arrays). Any
departure from the grammar or the bounds is a ``StreamError`` naming the byte offset. The
values' classes and the ``Budget`` are ``javavalues``'.
"""

from __future__ import annotations

import array
import bisect
import struct
from dataclasses import dataclass, field

import numpy as np

from .javavalues import Budget, JavaEnum, JavaObject, ObjectRows, Records, Rows

MAGIC, VERSION = 0xACED, 5
TC_NULL, TC_REFERENCE, TC_CLASSDESC, TC_OBJECT, TC_STRING, TC_ARRAY, TC_CLASS = range(0x70, 0x77)
TC_BLOCKDATA, TC_ENDBLOCKDATA, TC_RESET, TC_BLOCKDATALONG, TC_EXCEPTION, TC_LONGSTRING = range(0x77, 0x7D)
TC_PROXYCLASSDESC, TC_ENUM = 0x7D, 0x7E
BASE_HANDLE = 0x7E0000
SC_WRITE_METHOD, SC_SERIALIZABLE, SC_EXTERNALIZABLE, SC_BLOCK_DATA, SC_ENUM = 0x01, 0x02, 0x04, 0x08, 0x10

#: The bounds of a stream: handles (objects, strings, class descriptors, arrays), the depth of
#: nested contents (an object in an array in an object ...), the steps (contents, rows and runs
#: read: each a few microseconds, so no stream takes more than some seconds) and the objects
#: read one by one (each a few hundred bytes). A 50 MB model of MaltParser's takes some 100,000
#: steps and a few objects: its bulk is runs, rows and arrays of numbers.
MAX_HANDLES = 20_000_000
MAX_DEPTH = 64
MAX_STEPS = 4_000_000
MAX_OBJECTS = 1_000_000
MAX_SUPER_CLASSES = 8  # MaltParser's classes have at most one (Long's Number, an enum's Enum)
#: What the values read take in memory, in bytes, as CPython on 64 bits keeps them with the
#: copies reading and its callers make: an object read one by one (its record, field dict and
#: annotation list) and each of its fields; a string (its bytes copied twice on the way); a class;
#: an element of a list; an object of a run (its handle and its number, copied once); a row of a
#: Rows (its place, length, source and handle); an object of an ObjectRows (its handle, fields and
#: their copies in the classifier). A ``Budget`` is spent by them.
COST_OBJECT, COST_FIELD, COST_VALUE, COST_SLOT = 300, 48, 64, 8
COST_IN_RUN, COST_ROW, COST_NODE = 24, 40, 64

#: Primitive field and array element types: their struct code and size (big-endian).
PRIMITIVES = {"B": ("b", 1), "C": ("H", 2), "D": ("d", 8), "F": ("f", 4), "I": ("i", 4), "J": ("q", 8),
              "S": ("h", 2), "Z": ("?", 1)}  # fmt: skip
#: Classes every stream may hold besides the caller's: the boxed numbers MaltParser's maps keep.
BOXES = frozenset({"java.lang.Number", "java.lang.Integer", "java.lang.Long", "java.lang.Double",
                   "java.lang.Boolean", "java.lang.Enum"})  # fmt: skip


_STRUCTS = {code: struct.Struct(">" + code) for code in "bBHhiqdf?"}


class StreamError(ValueError):
    """A stream this reader does not accept, with the offset where it stopped."""


@dataclass(slots=True)
class ClassDesc:
    name: str
    flags: int
    fields: list[tuple[str, str]]  # (type code, name), in the stream's order
    super: ClassDesc | None
    is_array: bool = False
    #: this class and its super classes, the topmost first (classdata's order)
    hierarchy: list[ClassDesc] = field(default_factory=list)
    handle: int = -1
    #: what an object of this class takes in memory, read one by one (COST_OBJECT, COST_FIELD)
    cost: int = 0
    #: the fields of an object of the class, all primitive, in the stream's order (None if a class
    #: of its hierarchy has an object field or writes data of its own): a run of such objects is
    #: read at once (``Records``)
    flat: list[tuple[str, str]] | None = None


_IN_RUN = object()  # the handle of an object read in a run or a row: never referred back to
_ROW = object()  # the handle of a row of a Rows
MIN_RUN = 8  # periods: a shorter run is read object by object
class _Reader:
    def __init__(self, data: bytes | bytearray, classes: frozenset[str], budget: Budget) -> None:
        self.data = data if isinstance(data, (bytes, bytearray)) else bytes(data)
        self.bytes = np.frombuffer(self.data, dtype=np.uint8)
        self.budget = budget
        self.pos = 0
        self.classes = classes | BOXES
        self.handles: list[object] = []
        self.depth = 0
        self.steps = 0  # contents, rows and runs read: each a few microseconds of Python
        self.cooldown = 0  # objects to read one by one before looking for a run again
        self.objects = 0  # objects read one by one (not in runs or rows): each a few hundred bytes

    # --- bytes -------------------------------------------------------------------------------

    def fail(self, message: str) -> StreamError:
        return StreamError(f"byte {self.pos}: {message}")

    def take(self, n: int) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            raise self.fail(f"the stream ends inside a value of {n} bytes")
        chunk = self.data[self.pos : self.pos + n]
        self.pos += n
        return chunk

    def unpack(self, code: str) -> object:
        form = _STRUCTS[code]
        pos = self.pos
        if pos + form.size > len(self.data):
            raise self.fail(f"the stream ends inside a value of {form.size} bytes")
        self.pos = pos + form.size
        return form.unpack_from(self.data, pos)[0]

    def spend(self, cost: int) -> None:
        """StreamError unless the budget has ``cost`` left (what is about to be made)."""
        if not self.budget.spend(cost):
            raise self.fail(f"values that would take more than {self.budget.total >> 20} MB of memory")

    def utf(self, long: bool = False) -> str:
        n = self.unpack("q" if long else "H")
        self.spend(COST_VALUE + 3 * max(n, 0))  # the bytes copied twice on the way to the text
        raw = bytes(self.take(n))
        try:  # Java's modified UTF-8: NUL as C0 80, the rest as UTF-8 for these files' text
            return raw.replace(b"\xc0\x80", b"\x00").decode("utf-8")
        except UnicodeDecodeError:
            raise self.fail("a string is not UTF-8") from None

    def new_handle(self, value: object) -> int:
        if len(self.handles) >= MAX_HANDLES:
            raise self.fail(f"more than {MAX_HANDLES} objects")
        self.handles.append(value)
        return len(self.handles) - 1

    # --- contents ----------------------------------------------------------------------------

    def content(self) -> object:
        self.step()
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.fail(f"contents nested deeper than {MAX_DEPTH}")
        try:
            tc = self.unpack("B")
            if tc == TC_OBJECT:
                return self.new_object()
            if tc in (TC_STRING, TC_LONGSTRING):
                text = self.utf(long=tc == TC_LONGSTRING)
                self.new_handle(text)
                return text
            if tc == TC_ARRAY:
                return self.new_array()
            if tc == TC_ENUM:
                return self.new_enum()
            if tc == TC_NULL:
                return None
            if tc == TC_REFERENCE:
                return self.reference()
            if tc in (TC_BLOCKDATA, TC_BLOCKDATALONG):
                n = self.unpack("B" if tc == TC_BLOCKDATA else "i")
                self.spend(COST_VALUE + 2 * max(n, 0))
                return bytes(self.take(n))
            if tc in (TC_CLASSDESC, TC_PROXYCLASSDESC, TC_CLASS):
                raise self.fail("a class where data was expected")
            raise self.fail(f"type code 0x{tc:02x} is not data this reader accepts")
        finally:
            self.depth -= 1

    def reference(self) -> object:
        handle = self.unpack("i") - BASE_HANDLE
        if not 0 <= handle < len(self.handles):
            raise self.fail(f"a back-reference to object {handle}, of {len(self.handles)}")
        value = self.handles[handle]
        if value is _IN_RUN:
            raise self.fail(f"a back-reference to object {handle}, one of many of its class, never shared")
        if value is _ROW:
            raise self.fail(f"a back-reference to object {handle}, a row of an array, outside that array")
        return value

    def step(self) -> None:
        """Count one content, row or run read; StreamError beyond MAX_STEPS, which bounds the
        time a stream takes whatever it holds (a model's take far fewer: their bulk is runs,
        rows and arrays of numbers, each one step)."""
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise self.fail(f"more than {MAX_STEPS} values, far more than a model's stream holds")

    def class_desc(self, supers: int = 0) -> ClassDesc | None:
        """A class descriptor (the ``supers``-th super class of the one asked for)."""
        if supers > MAX_SUPER_CLASSES:
            raise self.fail(f"a class of more than {MAX_SUPER_CLASSES} super classes")
        tc = self.unpack("B")
        if tc == TC_NULL:
            return None
        if tc == TC_REFERENCE:
            desc = self.reference()
            if not isinstance(desc, ClassDesc):
                raise self.fail("a back-reference to something not a class")
            return desc
        if tc != TC_CLASSDESC:
            raise self.fail(f"type code 0x{tc:02x} where a class descriptor was expected")
        name = self.utf()
        is_array = name.startswith("[")
        if not is_array and name not in self.classes:
            raise self.fail(f"class {name!r} is not one of a model's")
        self.unpack("q")  # serialVersionUID: the classes are known by name
        flags = self.unpack("B")
        if flags & SC_EXTERNALIZABLE:
            raise self.fail(f"class {name!r} is externalizable")
        self.spend(COST_OBJECT)
        desc = ClassDesc(name, flags, [], None, is_array)
        desc.handle = self.new_handle(desc)
        for _ in range(self.unpack("h")):
            code = chr(self.unpack("B"))
            field_name = self.utf()
            if code in "[L":
                self.content()  # the field's class name, a string
            elif code not in PRIMITIVES:
                raise self.fail(f"field type {code!r}")
            desc.fields.append((code, field_name))
        self.end_block("class annotation")
        desc.super = self.class_desc(supers + 1)
        desc.hierarchy = [*(desc.super.hierarchy if desc.super is not None else []), desc]
        desc.cost = COST_OBJECT + COST_FIELD * sum(len(c.fields) for c in desc.hierarchy)
        if not is_array and all(c.flags == SC_SERIALIZABLE and all(code in PRIMITIVES for code, _ in c.fields)
                                for c in desc.hierarchy):  # fmt: skip
            desc.flat = [f for c in desc.hierarchy for f in c.fields]
        return desc

    # --- runs of flat objects ----------------------------------------------------------------

    def flat_at(self, pos: int) -> ClassDesc | None:
        """The class of the object at ``pos`` if it is a flat class's written with a
        back-reference to its descriptor (TC_OBJECT TC_REFERENCE handle), else None."""
        data = self.data
        if pos + 6 > len(data) or data[pos] != TC_OBJECT or data[pos + 1] != TC_REFERENCE:
            return None
        handle = int.from_bytes(data[pos + 2 : pos + 6], "big") - BASE_HANDLE
        desc = self.handles[handle] if 0 <= handle < len(self.handles) else None
        return desc if isinstance(desc, ClassDesc) and desc.flat is not None else None

    def run(self, limit: int) -> Records | None:
        """The run of flat objects starting here, of one class or two in turn, at most ``limit``
        objects; None (nothing read) if there is no run of MIN_RUN periods here. The bytes are
        compared a growing chunk at a time, so the work is in proportion to what is read."""
        if self.cooldown:
            self.cooldown -= 1
            return None
        first = self.flat_at(self.pos)
        if first is None:
            return None
        self.step()
        size_first = 6 + sum(PRIMITIVES[code][1] for code, _ in first.flat)
        second = self.flat_at(self.pos + size_first)
        if second is None:
            return None
        period = [first] if second is first else [first, second]
        if len(period) == 2 and self.flat_at(self.pos + size_first + 6 + sum(
                PRIMITIVES[code][1] for code, _ in second.flat)) is not first:  # fmt: skip
            return None
        names, formats, offsets, heads = [], [], [], []
        size = 0
        for k, desc in enumerate(period):
            heads.append((size, bytes([TC_OBJECT, TC_REFERENCE]) + (desc.handle + BASE_HANDLE).to_bytes(4, "big")))
            size += 6
            for code, name in desc.flat:
                names.append(f"{k}.{name}")
                formats.append(">" + PRIMITIVES[code][0] if code != "Z" else "?")
                offsets.append(size)
                size += PRIMITIVES[code][1]
        most = min(limit // len(period), (len(self.data) - self.pos) // size)
        start, stop = self.pos, self.pos + MIN_RUN * size
        if most < MIN_RUN or any(self.data[start + offset + k : stop : size] != head[k : k + 1] * MIN_RUN
                                 for offset, head in heads for k in range(6)):  # fmt: skip
            self.cooldown = MIN_RUN  # no run here: the next objects are read one by one
            return None
        count, chunk = MIN_RUN, MIN_RUN
        while count < most:
            rows = min(chunk, most - count)
            view = self.bytes[self.pos + count * size : self.pos + (count + rows) * size].reshape(rows, size)
            good = np.ones(rows, dtype=bool)
            for offset, head in heads:
                good &= (view[:, offset : offset + 6] == np.frombuffer(head, dtype=np.uint8)).all(axis=1)
            if not good.all():
                count += int(np.argmin(good))
                break
            count += rows
            chunk *= 2
        self.steps += MIN_RUN  # a run costs what reading a few objects one by one does
        self.step()
        dtype = np.dtype({"names": names, "formats": formats, "offsets": offsets, "itemsize": size})
        records = Records(tuple(d.name for d in period), np.frombuffer(self.data, dtype, count, self.pos))
        objects = count * len(period)
        self.spend(COST_IN_RUN * objects)
        if len(self.handles) + objects > MAX_HANDLES:
            raise self.fail(f"more than {MAX_HANDLES} objects")
        self.handles.extend([_IN_RUN] * objects)
        self.pos += count * size
        return records

    def end_block(self, what: str) -> list[object]:
        """Contents up to TC_ENDBLOCKDATA (an annotation); a run of flat objects as Records."""
        found = []
        while True:
            if self.pos < len(self.data) and self.data[self.pos] == TC_ENDBLOCKDATA:
                self.pos += 1
                return found
            if self.pos >= len(self.data):
                raise self.fail(f"the stream ends inside a {what}")
            records = self.run(MAX_HANDLES)
            found.append(records if records is not None else self.content())

    def new_object(self) -> JavaObject:
        desc = self.class_desc()
        if desc is None or desc.is_array:
            raise self.fail("an object without a class")
        if desc.flags & SC_ENUM:
            raise self.fail("an enum written as an object")
        self.spend(desc.cost)
        obj = JavaObject(desc.name)
        self.new_handle(obj)
        self.objects += 1
        if self.objects > MAX_OBJECTS:
            raise self.fail(f"more than {MAX_OBJECTS} objects one by one, far more than a model's stream holds")
        for c in desc.hierarchy:
            if not c.flags & SC_SERIALIZABLE:
                raise self.fail(f"class {c.name!r} is not serializable")
            for code, name in c.fields:
                obj.fields[name] = self.value(code)
            if c.flags & SC_WRITE_METHOD:
                obj.annotations.extend(self.end_block("writeObject's data"))
        return obj

    def value(self, code: str) -> object:
        if code in PRIMITIVES:
            return self.unpack(PRIMITIVES[code][0])
        return self.content()

    def new_array(self) -> object:
        desc = self.class_desc()
        if desc is None or not desc.is_array:
            raise self.fail("an array without an array class")
        n = self.unpack("i")
        element = desc.name[1:2]
        if element in PRIMITIVES:
            code, size = PRIMITIVES[element]
            if n < 0 or n * size > len(self.data) - self.pos:
                raise self.fail(f"an array of {n} values longer than the stream")
            self.spend(COST_OBJECT)  # a view of the stream's bytes: its callers spend for their copies
            array = np.frombuffer(self.data, ">" + code if code != "?" else "?", n, self.pos)
            self.pos += n * size
            self.new_handle(array)
            return array
        if element not in "[L":
            raise self.fail(f"an array of {desc.name!r}")
        if n < 0 or n > len(self.data) - self.pos:  # each element takes a byte at least
            raise self.fail(f"an array of {n} values longer than the stream")
        if element == "[" and len(desc.name) == 3 and desc.name[2] in PRIMITIVES and desc.name[2] != "Z":
            return self.primitive_rows(desc.name[1:], n)
        if desc.name.startswith("[[L"):
            return self.object_rows(desc.name[1:], n)
        self.spend(COST_VALUE + COST_SLOT * n)
        items: list[object] = []
        self.new_handle(items)
        count = 0
        while count < n:
            records = self.run(n - count) if element == "L" else None
            items.append(records if records is not None else self.content())
            count += len(records) if records is not None else 1
        return items

    def primitive_rows(self, name: str, n: int) -> Rows:
        """An array of ``n`` arrays of a primitive type (``name``, e.g. ``[D``), as Rows: each
        element an array of that class (a step each), a back-reference to an earlier element
        of the same array, or null; anything else is refused."""
        code, size = PRIMITIVES[name[1]]
        empty = np.zeros(0, np.int64)
        rows = Rows(self.data, np.dtype(">" + code), empty, empty, empty)
        self.new_handle(rows)
        starts, lengths, source, handles = array.array("q"), array.array("q"), array.array("q"), array.array("q")
        data, end = self.data, len(self.data)
        opening = b""  # TC_ARRAY and a back-reference to the rows' class, once it is read: read here at once
        if self.steps + n > MAX_STEPS:  # each row a step (counted as a whole: the loop below is the hot path)
            raise self.fail(f"an array of {n} rows, more than {MAX_STEPS - self.steps} values left to read")
        self.steps += n
        self.spend(COST_VALUE + COST_ROW * n)
        for _ in range(n):
            pos = self.pos
            if data[pos : pos + 6] == opening:
                length = int.from_bytes(data[pos + 6 : pos + 10], "big", signed=True)
                self.pos = pos + 10
            else:
                tc = self.unpack("B")
                if tc == TC_NULL:
                    source.append(-1)
                    continue
                if tc == TC_REFERENCE:
                    handle = self.unpack("i") - BASE_HANDLE
                    at = bisect.bisect_left(handles, handle)
                    if at == len(handles) or handles[at] != handle:
                        raise self.fail(f"a back-reference to object {handle}, not an earlier row of this array")
                    source.append(at)
                    continue
                if tc != TC_ARRAY:
                    raise self.fail(f"type code 0x{tc:02x} where a row of {name!r} was expected")
                desc = self.class_desc()
                if desc is None or desc.name != name:
                    raise self.fail(f"a row of {getattr(desc, 'name', None)!r} in an array of {name!r}")
                opening = bytes([TC_ARRAY, TC_REFERENCE]) + (desc.handle + BASE_HANDLE).to_bytes(4, "big")
                length = self.unpack("i")
            if length < 0 or length * size > end - self.pos:
                raise self.fail(f"an array of {length} values longer than the stream")
            source.append(len(starts))
            starts.append(self.pos)
            lengths.append(length)
            handles.append(self.new_handle(_ROW))
            self.pos += length * size
        rows.starts, rows.lengths = np.frombuffer(starts, np.int64), np.frombuffer(lengths, np.int64)
        rows.source = np.frombuffer(source, np.int64)
        return rows

    def object_rows(self, name: str, n: int) -> ObjectRows:
        """An array of ``n`` arrays (class ``name``, e.g. ``[Llibsvm.svm_node;``) of objects of
        one flat class, as ObjectRows: each row a step, its objects checked six bytes a place at
        a time (each must open with a back-reference to that class, but for the stream's first)
        and their fields read at the end, all at once; a null row, a shared one, or an object of
        another class is refused."""
        element = name[2:-1]
        offsets, counts = array.array("q"), array.array("q")  # (first field's offset, objects) a stretch
        ptr = array.array("q", [0])
        record: ClassDesc | None = None
        head, size = b"", 0
        self.new_handle(_ROW)
        total = 0
        for _ in range(n):
            self.step()
            if self.unpack("B") != TC_ARRAY:
                raise self.fail(f"an element of an array of {name!r} that is no array")
            desc = self.class_desc()
            if desc is None or desc.name != name:
                raise self.fail(f"a row of {getattr(desc, 'name', None)!r} in an array of {name!r}")
            length = self.unpack("i")
            if length < 0 or length > len(self.data) - self.pos:
                raise self.fail(f"an array of {length} values longer than the stream")
            self.new_handle(_ROW)
            left = length
            if left and record is None:  # the stream's first object: its class comes with it
                if self.unpack("B") != TC_OBJECT:
                    raise self.fail(f"an element of {name!r} that is no object")
                record = self.class_desc()
                if record is None or record.name != element or record.flat is None:
                    raise self.fail(f"an object of {getattr(record, 'name', None)!r} in an array of {name!r}")
                self.new_handle(_IN_RUN)
                head = bytes([TC_OBJECT, TC_REFERENCE]) + (record.handle + BASE_HANDLE).to_bytes(4, "big")
                size = 6 + sum(PRIMITIVES[code][1] for code, _ in record.flat)
                if self.pos + size - 6 > len(self.data):
                    raise self.fail("the stream ends inside an object")
                offsets.append(self.pos)
                counts.append(1)
                self.pos += size - 6
                left -= 1
            self.spend(COST_SLOT + COST_NODE * length)
            if left:
                start, stop = self.pos, self.pos + left * size
                if stop > len(self.data) or any(self.data[start + k : stop : size] != head[k : k + 1] * left
                                                for k in range(6)):  # fmt: skip
                    raise self.fail(f"the objects of a row of {name!r} are not all of one class")
                if len(self.handles) + left > MAX_HANDLES:
                    raise self.fail(f"more than {MAX_HANDLES} objects")
                self.handles.extend([_IN_RUN] * left)
                offsets.append(start + 6)
                counts.append(left)
                self.pos = stop
            total += length
            ptr.append(total)
        if record is None:
            return ObjectRows(element, np.zeros(0), np.frombuffer(ptr, np.int64))
        names, formats, places, at = [], [], [], 0
        for code, field_name in record.flat:
            names.append(field_name)
            formats.append(">" + PRIMITIVES[code][0] if code != "Z" else "?")
            places.append(at)
            at += PRIMITIVES[code][1]
        dtype = np.dtype({"names": names, "formats": formats, "offsets": places, "itemsize": size - 6})
        stretches = [np.ndarray((count,), dtype, self.data, offset, (size,))  # each object's fields, size apart
                     for offset, count in zip(offsets.tolist(), counts.tolist())]  # fmt: skip
        return ObjectRows(element, np.concatenate(stretches), np.frombuffer(ptr, np.int64))

    def new_enum(self) -> JavaEnum:
        desc = self.class_desc()
        if desc is None or not desc.flags & SC_ENUM:
            raise self.fail("an enum constant of a class that is no enum")
        handle = self.new_handle(None)
        constant = self.content()
        if not isinstance(constant, str):
            raise self.fail("an enum constant without a name")
        self.handles[handle] = value = JavaEnum(desc.name, constant)
        return value


def read_stream(data: bytes | bytearray, classes: frozenset[str], budget: Budget | None = None) -> list[object]:
    """The contents of a whole Java serialization stream whose objects are all of ``classes``
    (or boxed numbers), what they take in memory spent from ``budget`` (a fresh javavalues.BUDGET if None);
    StreamError if it is not one, within the bounds above."""
    reader = _Reader(data, classes, Budget() if budget is None else budget)
    if len(data) < 4 or reader.unpack("H") != MAGIC or reader.unpack("H") != VERSION:
        raise StreamError("byte 0: not a Java serialization stream (version 5)")
    contents = []
    while reader.pos < len(data):
        reader.spend(COST_SLOT)
        contents.append(reader.content())
    return contents
