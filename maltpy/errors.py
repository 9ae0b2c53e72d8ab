"""The one exception type for what a user can cause: a bad file, a bad config, a damaged model.

Bugs stay ordinary exceptions with tracebacks; a ``MaltpyError`` is turned by the command line
into a single line, ``maltpy: error: FILE:LINE: message``, and exit status 2.
"""

from __future__ import annotations

MAX_MESSAGE = 600  # characters of a message (a quoted value is cut there)


def cut(text: object, limit: int = 200) -> str:
    """Untrusted text quoted in a message (a value, a name, another error), cut short."""
    text = str(text)
    return text if len(text) <= limit else text[:limit] + "..."


def counted(n: int, noun: str, nouns: str | None = None) -> str:
    """``n`` and the noun, singular for one: "1 sentence", "3,457 sentences"."""
    return f"{n:,} {noun if n == 1 else nouns or noun + 's'}"


def printable(text: str) -> str:
    """``text`` with every character that is not printable (a line break, a tab, a terminal's
    escape sequence, a bidirectional override) written as Python escapes it (``\\n``, ``\\x1b``,
    ``\\u202e``): what stderr shows of untrusted text, so that it can neither start a line of its own
    nor change what the terminal shows."""
    return text if text.isprintable() else "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def quote(name: object, limit: int = 300) -> str:
    """A file name (or a name from a file) as a message shows it: as it is when it reads
    unambiguously, printable and without quotes, backslashes or blanks at its ends; otherwise in
    Python's quotes and escapes (``'a\\nb'``). Every message that names a file names it this way,
    so that a name cannot forge or garble an error line."""
    text = str(name)
    if text and text.isprintable() and text == text.strip() and not any(c in text for c in "'\"\\"):
        return cut(text, limit)
    return cut(repr(text), limit)


def require(condition: bool, message: str) -> None:
    """ValueError(message) unless ``condition``: for checking untrusted data (a model archive),
    whose readers turn a ValueError into one 'damaged model' line."""
    if not condition:
        raise ValueError(message)


class MaltpyWarning(UserWarning):
    """Input that parses, but does not look like what the model was trained on (see
    ``maltpy.data.vocabulary``); the command line prints it as one line, ``maltpy: warning: ...``."""


class MaltpyError(Exception):
    """A user error, located by file and (where known) line."""

    def __init__(self, message: str, file: str | None = None, line: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line

    def __reduce__(self):
        # pickled whole (a Dask worker's error reaches the client with its file and line)
        return (type(self), (self.message, self.file, self.line))

    def __str__(self) -> str:
        where = ""
        if self.file is not None:
            name = quote(self.file)
            where = f"{name}:{self.line}: " if self.line is not None else f"{name}: "
        # One line, of bounded length, whatever the input put into the message.
        return where + cut(printable(self.message), MAX_MESSAGE)
