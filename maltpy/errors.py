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


def require(condition: bool, message: str) -> None:
    """ValueError(message) unless ``condition``: for checking untrusted data (a model archive),
    whose readers turn a ValueError into one 'damaged model' line."""
    if not condition:
        raise ValueError(message)


class MaltpyWarning(UserWarning):
    """Input that parses, but does not look like what the model was trained on (see
    ``maltpy.vocabulary``); the command line prints it as one line, ``maltpy: warning: ...``."""


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
            where = f"{self.file}:{self.line}: " if self.line is not None else f"{self.file}: "
        # One line, of bounded length, whatever the input put into the message.
        return where + cut(self.message.replace("\r", "\\r").replace("\n", "\\n"), MAX_MESSAGE)
