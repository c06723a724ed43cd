"""The one error type every format parser raises."""

from __future__ import annotations

MAX_MESSAGE = 400  # characters of a message; the rest of a quoted input line is cut


class FormatError(ValueError):
    """Input that a parser cannot read, with where it went wrong.

    `str()` reads like ``fio.json line 12: field jobs[0].write.iops: expected a number``;
    the parts that are unknown (line, field) are left out.
    """

    file: str
    line: int | None
    field: str | None
    message: str

    def __init__(self, file: str, message: str, *, line: int | None = None, field: str | None = None) -> None:
        self.file = file
        self.line = line
        self.field = field if field is None or len(field) <= 80 else field[:80] + "..."
        # one readable line, whatever the input held
        message = " ".join(message.split("\n"))
        self.message = message if len(message) <= MAX_MESSAGE else message[:MAX_MESSAGE] + "..."
        super().__init__(self._render())

    def _render(self) -> str:
        where = self.file if self.line is None else f"{self.file} line {self.line}"
        if self.field is not None:
            return f"{where}: field {self.field}: {self.message}"
        return f"{where}: {self.message}"

    def __str__(self) -> str:
        return self._render()

    def __reduce__(self):  # keep pickling (multiprocessing, pytest-xdist) working with keyword args
        return (_rebuild, (self.file, self.message, self.line, self.field))


def _rebuild(file: str, message: str, line: int | None, field: str | None) -> FormatError:
    return FormatError(file, message, line=line, field=field)
