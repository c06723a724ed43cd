"""A parse whose rows DuckDB loads while they are written (issue 17: ingest's speed).

A handler whose parser runs without the GIL (the Rust pass of perf script text) does not parse
at once: it describes the parse (`Streamed`) and the files it writes, one of them a FIFO. The
write transaction (pipeline._write) starts the parse on a thread of its own and loads the FIFO
as the parser writes it, so DuckDB's insert and the parse run at the same time; then it waits
for the parse, whose error rolls the transaction back: nothing half-ingested, as when every file
was parsed before the transaction opened. A bundle that is never written (already stored,
refused) never starts the parse.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any


class Streamed:
    """`run()` writes `fifo` (and possibly other files) and returns a summary; `finish(summary)`
    returns the warnings to add. `art_path`, `kind` and `run_id` name the artifact in a refusal."""

    def __init__(self, run: Callable[[], Any], fifo: Path, finish: Callable[[Any], list[str]], *,
                 art_path: str, kind: str, run_id: str | None) -> None:
        self._run = run
        self.fifo = fifo
        self._finish = finish
        self.art_path = art_path
        self.kind = kind
        self.run_id = run_id
        self._thread: threading.Thread | None = None
        self._result: Any = None
        self._error: BaseException | None = None
        self._finished = False

    @staticmethod
    def make_fifo(path: Path) -> Path:
        os.mkfifo(path, 0o600)
        return path

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._main, name="iolens-streamed-parse", daemon=True)
            self._thread.start()

    def _main(self) -> None:
        try:
            self._result = self._run()
        except BaseException as exc:  # noqa: BLE001 - re-raised on the writing thread by wait()
            self._error = exc
        finally:
            self._release()

    def _release(self) -> None:
        """The parse is over: a load blocked opening the FIFO (the parser failed before opening it)
        sees its end, and a load that has not opened it yet finds no file (an error, not a hang)."""
        try:
            fd = os.open(self.fifo, os.O_RDWR | os.O_NONBLOCK)
        except OSError:
            return
        try:
            os.unlink(self.fifo)
        except OSError:
            pass
        os.close(fd)

    def error(self) -> BaseException | None:
        """The parse's error once it has ended (None while it runs or when it succeeded)."""
        if self._thread is not None and self._thread.is_alive():
            return None
        return self._error

    def abort(self) -> None:
        """The load of the FIFO failed: make the parser's writes fail (no reader: EPIPE, Python
        ignores SIGPIPE) and wait for it. A parser still blocked opening the FIFO for writing is
        let through by a reader that opens and closes at once."""
        if self._thread is None:
            return
        while self._thread.is_alive():
            try:
                os.close(os.open(self.fifo, os.O_RDONLY | os.O_NONBLOCK))
            except OSError:
                pass
            self._thread.join(0.05)

    def wait(self) -> list[str]:
        """Waits for the parse; raises its error; the first call returns its warnings."""
        assert self._thread is not None, "wait() before start()"
        self._thread.join()
        if self._error is not None:
            raise self._error
        if self._finished:
            return []
        self._finished = True
        return self._finish(self._result)
