"""A parse whose rows DuckDB loads while they are written (issue 17: ingest's speed).

A handler whose parser runs without the GIL (the Rust pass of perf script text) does not parse
at once: it describes the parse (`Streamed`) and the stream of rows it writes
(`iolens_native.TableStream`: Arrow batches of several tables, in runs of one table, which
DuckDB scans through the Arrow PyCapsule interface). The write transaction (pipeline._write)
starts the parse on a thread of its own and loads each run as the parser fills it, so DuckDB's
inserts and the parse run at the same time; then it waits for the parse, whose error rolls the
transaction back: nothing half-ingested, as when every file was parsed before the transaction
opened. A bundle that is never written (already stored, refused) never starts the parse.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Protocol


class RowStream(Protocol):
    """What the parse fills and the load reads (iolens_native.TableStream)."""

    def next_table(self) -> str | None:
        """The table of the next run of batches (waits for the parse); None at the end."""
        ...

    def cancel(self) -> None: ...

    def close(self) -> None: ...

    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any: ...


class Streamed:
    """`run()` fills `stream` (and possibly writes files) and returns a summary; `finish(summary)`
    returns the warnings to add. `art_path`, `kind` and `run_id` name the artifact in a refusal."""

    def __init__(self, run: Callable[[], Any], stream: RowStream, finish: Callable[[Any], list[str]], *,
                 art_path: str, kind: str, run_id: str | None) -> None:
        self._run = run
        self.stream = stream
        self._finish = finish
        self.art_path = art_path
        self.kind = kind
        self.run_id = run_id
        self._thread: threading.Thread | None = None
        self._result: Any = None
        self._error: BaseException | None = None
        self._finished = False

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
            # a parse that failed before it took the stream (a perf.data file refused in Python,
            # say) ends it all the same: the load does not wait for rows that never come
            self.stream.close()

    def error(self) -> BaseException | None:
        """The parse's error once it has ended (None while it runs or when it succeeded)."""
        if self._thread is not None and self._thread.is_alive():
            return None
        return self._error

    def abort(self) -> None:
        """The load of the stream failed: the parser's next batch fails (BrokenPipeError), and
        this waits for it to end."""
        self.stream.cancel()
        if self._thread is not None:
            self._thread.join()

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
