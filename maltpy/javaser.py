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
to hold them), the nesting of contents and of class hierarchies, and on what the values read
take in memory: a ``Budget``, which every value spends its estimated size from (a stream of 14 MB
of six-byte objects would otherwise become 3 GB of Python objects, and take minutes).

``read_stream(data, classes, budget)`` gives the stream's contents as Python values: a ``JavaObject``
(its class name and each class's fields, super class first, and what its ``writeObject`` wrote
after them), a ``JavaEnum``, a ``str``, ``None``, a NumPy array for an array of a primitive type
(big-endian, as written) and a list for an array of objects, and ``bytes`` for block data. Any
departure from the grammar or the bounds is a ``StreamError`` naming the byte offset.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

import numpy as np

MAGIC, VERSION = 0xACED, 5
TC_NULL, TC_REFERENCE, TC_CLASSDESC, TC_OBJECT, TC_STRING, TC_ARRAY, TC_CLASS = range(0x70, 0x77)
TC_BLOCKDATA, TC_ENDBLOCKDATA, TC_RESET, TC_BLOCKDATALONG, TC_EXCEPTION, TC_LONGSTRING = range(0x77, 0x7D)
TC_PROXYCLASSDESC, TC_ENUM = 0x7D, 0x7E
BASE_HANDLE = 0x7E0000
SC_WRITE_METHOD, SC_SERIALIZABLE, SC_EXTERNALIZABLE, SC_BLOCK_DATA, SC_ENUM = 0x01, 0x02, 0x04, 0x08, 0x10

#: The bounds of a stream: handles (objects, strings, class descriptors, arrays), and the depth
#: of nested contents (an object in an array in an object ...) and of a class's super classes.
MAX_HANDLES = 20_000_000
MAX_DEPTH = 64
MAX_SUPER_CLASSES = 8  # MaltParser's classes have at most one (Long's Number, an enum's Enum)
#: What the values read take in memory, in bytes as CPython 3.11 on 64 bits keeps them (measured
#: on MaltParser's feature maps and LIBSVM models with tracemalloc: a Long 334 bytes, an
#: svm_node 381), each with the copies reading makes on the way: an object (its record, its field
#: dict, its annotation list) and each of its fields; a string, its bytes copied twice on the
#: way; block data, copied once; an array of numbers, its copy and the native array its reader
#: makes of it; a class; a list, an enum. An element of a list (an array of objects, what a
#: writeObject wrote) is 8 bytes, but a null, one byte of the stream, takes half a microsecond to
#: read: at COST_SLOT, the budget bounds the time too (a budget of 512 MB, some 5 s of nulls).
COST_OBJECT, COST_FIELD, COST_SLOT, COST_CLASS, COST_VALUE = 300, 48, 64, 400, 64
#: What one read of a model may spend by default (read_stream's caller gives its own).
BUDGET = 512 << 20
SLOTS_AT_ONCE = 1024  # a growing list of contents (annotations) spends for its slots this often

#: Primitive field and array element types: their struct code and size (big-endian).
PRIMITIVES = {"B": ("b", 1), "C": ("H", 2), "D": ("d", 8), "F": ("f", 4), "I": ("i", 4), "J": ("q", 8),
              "S": ("h", 2), "Z": ("?", 1)}  # fmt: skip
#: Classes every stream may hold besides the caller's: the boxed numbers MaltParser's maps keep.
BOXES = frozenset({"java.lang.Number", "java.lang.Integer", "java.lang.Long", "java.lang.Double",
                   "java.lang.Boolean", "java.lang.Enum"})  # fmt: skip


_STRUCTS = {code: struct.Struct(">" + code) for code in "bBHhiqdf?"}


class StreamError(ValueError):
    """A stream this reader does not accept, with the offset where it stopped."""


class Budget:
    """The bytes of memory the values read may still take (see COST_OBJECT ...), shared by the
    streams of one model: a model's streams together hold at most what its budget allows."""

    def __init__(self, total: int = BUDGET) -> None:
        self.total = self.left = total

    def spend(self, cost: int) -> bool:
        """Whether ``cost`` was left (and is now spent)."""
        self.left -= cost
        return self.left >= 0


@dataclass(slots=True)
class ClassDesc:
    name: str
    flags: int
    fields: list[tuple[str, str]]  # (type code, name), in the stream's order
    super: ClassDesc | None
    is_array: bool = False
    #: this class and its super classes, the topmost first (classdata's order)
    hierarchy: list[ClassDesc] = field(default_factory=list)
    #: what an object of this class takes in memory (COST_OBJECT ...)
    cost: int = 0


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


class _Reader:
    def __init__(self, data: bytes | bytearray, classes: frozenset[str], budget: Budget) -> None:
        self.data = data if isinstance(data, (bytes, bytearray)) else bytes(data)
        self.pos = 0
        self.classes = classes | BOXES
        self.handles: list[object] = []
        self.depth = 0
        self.budget = budget

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

    def utf(self, long: bool = False) -> str:
        n = self.unpack("q" if long else "H")
        self.spend(3 * max(n, 0))  # the bytes copied twice on the way to the text
        raw = bytes(self.take(n))
        try:  # Java's modified UTF-8: NUL as C0 80, the rest as UTF-8 for these files' text
            return raw.replace(b"\xc0\x80", b"\x00").decode("utf-8")
        except UnicodeDecodeError:
            raise self.fail("a string is not UTF-8") from None

    def spend(self, cost: int) -> None:
        if not self.budget.spend(cost):
            raise self.fail(f"values that would take more than {self.budget.total >> 20} MB of memory")

    def new_handle(self, value: object) -> int:
        if len(self.handles) >= MAX_HANDLES:
            raise self.fail(f"more than {MAX_HANDLES} objects")
        self.handles.append(value)
        return len(self.handles) - 1

    # --- contents ----------------------------------------------------------------------------

    def content(self) -> object:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise self.fail(f"contents nested deeper than {MAX_DEPTH}")
        try:
            tc = self.unpack("B")
            if tc == TC_OBJECT:
                return self.new_object()
            if tc in (TC_STRING, TC_LONGSTRING):
                text = self.utf(long=tc == TC_LONGSTRING)
                self.spend(COST_VALUE)
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
        return self.handles[handle]

    def class_desc(self, supers: int = 0) -> ClassDesc | None:
        """A class descriptor, the ``supers``-th super class of the one asked for."""
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
        desc = ClassDesc(name, flags, [], None, is_array)
        self.new_handle(desc)
        n_fields = self.unpack("h")
        self.spend(COST_CLASS + COST_FIELD * max(n_fields, 0))
        for _ in range(n_fields):
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
        if len(desc.hierarchy) > 1 + MAX_SUPER_CLASSES:  # a super class read before, by reference
            raise self.fail(f"a class of more than {MAX_SUPER_CLASSES} super classes")
        desc.cost = COST_OBJECT + sum(COST_SLOT + COST_FIELD * len(c.fields) for c in desc.hierarchy)
        return desc

    def end_block(self, what: str) -> list[object]:
        """Contents up to TC_ENDBLOCKDATA (an annotation)."""
        found = []
        while True:
            if self.pos < len(self.data) and self.data[self.pos] == TC_ENDBLOCKDATA:
                self.pos += 1
                return found
            if self.pos >= len(self.data):
                raise self.fail(f"the stream ends inside a {what}")
            found.append(self.content())
            if len(found) % SLOTS_AT_ONCE == 0:
                self.spend(COST_SLOT * SLOTS_AT_ONCE)

    def new_object(self) -> JavaObject:
        desc = self.class_desc()
        if desc is None or desc.is_array:
            raise self.fail("an object without a class")
        if desc.flags & SC_ENUM:
            raise self.fail("an enum written as an object")
        obj = JavaObject(desc.name)
        self.spend(desc.cost)
        self.new_handle(obj)
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
            self.spend(COST_OBJECT + 2 * n * size)
            array = np.frombuffer(self.data, dtype=">" + code if code != "?" else "?", count=n, offset=self.pos).copy()
            self.pos += n * size
            self.new_handle(array)
            return array
        if element not in "[L":
            raise self.fail(f"an array of {desc.name!r}")
        if n < 0 or n > len(self.data) - self.pos:  # each element takes a byte at least
            raise self.fail(f"an array of {n} values longer than the stream")
        self.spend(COST_VALUE + COST_SLOT * n)
        items: list[object] = []
        self.new_handle(items)
        for _ in range(n):
            items.append(self.content())
        return items

    def new_enum(self) -> JavaEnum:
        desc = self.class_desc()
        if desc is None or not desc.flags & SC_ENUM:
            raise self.fail("an enum constant of a class that is no enum")
        self.spend(COST_VALUE)
        handle = self.new_handle(None)
        constant = self.content()
        if not isinstance(constant, str):
            raise self.fail("an enum constant without a name")
        self.handles[handle] = value = JavaEnum(desc.name, constant)
        return value


def read_stream(data: bytes | bytearray, classes: frozenset[str], budget: Budget | None = None) -> list[object]:
    """The contents of a whole Java serialization stream whose objects are all of ``classes``
    (or boxed numbers), its values' memory spent from ``budget`` (a fresh BUDGET if None);
    StreamError if it is not one, within the bounds above."""
    reader = _Reader(data, classes, Budget() if budget is None else budget)
    if len(data) < 4 or reader.unpack("H") != MAGIC or reader.unpack("H") != VERSION:
        raise StreamError("byte 0: not a Java serialization stream (version 5)")
    contents = []
    while reader.pos < len(data):
        contents.append(reader.content())
        if len(contents) % SLOTS_AT_ONCE == 0:
            reader.spend(COST_SLOT * SLOTS_AT_ONCE)
    return contents
