"""`iolens` as a process that kills itself (SIGKILL, as `kill -9` would) when an ingest reaches a
named point, for test_team_server's crash tests: each kill lands in the state it is meant to test,
however fast or loaded the machine. (A kill after a fixed delay landed, on a loaded machine, before
the write transaction had begun.)

    python crash_at.py POINT ARGS...    runs `iolens ARGS...` (ingest or serve)

POINT, in the order an ingest reaches them:
  spooled    (serve) the upload received into its temporary file (.upload-*), not yet opened
  parse      50 ms into the parse of the bundle: nothing written yet
  bulk       50 ms into the 4th bulk load (DuckDB's read_csv; datasets/sched-pinned has 9): inside
             the write transaction, rows of the capture loaded but not committed
  rows       inside the transaction, the captures row inserted, the runs rows not yet
  committed  just after the commit, before anything else (the WAL not yet checkpointed)

A point that is not reached, or a delayed kill that would land after the part it aims at, ends
the process with exit code 3 and says so on stderr: the test sees no SIGKILL and fails.
"""

from __future__ import annotations

import functools
import os
import signal
import sys
import threading

POINTS = ("spooled", "parse", "bulk", "rows", "committed")


def die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def missed(why: str) -> None:
    print(f"crash_at: {why}", file=sys.stderr, flush=True)
    os._exit(3)


def later(seconds: float, still_inside: threading.Event, what: str) -> None:
    """SIGKILL in `seconds`, if `still_inside` is still set then."""
    def fire() -> None:
        if still_inside.is_set():
            die()
        missed(f"{what} was over before the kill")
    timer = threading.Timer(seconds, fire)
    timer.daemon = True
    timer.start()


def install(point: str) -> None:
    from iolens.api.routes import captures as routes
    from iolens.ingest import pipeline
    from iolens.store import db

    if point == "spooled":
        receive = routes.receive_file

        @functools.wraps(receive)
        async def received(*args, **kwargs):
            got = await receive(*args, **kwargs)
            die()
            return got

        routes.receive_file = received
    elif point == "parse":
        parse = pipeline.parse_bundle
        parsing = threading.Event()

        @functools.wraps(parse)
        def parse_then_die(bundle):
            parsing.set()
            later(0.05, parsing, "the parse")
            try:
                return parse(bundle)
            finally:
                parsing.clear()

        pipeline.parse_bundle = parse_then_die
    elif point in ("bulk", "rows", "committed"):
        write = pipeline._write
        writing = threading.Event()
        loads = 0
        insert_csv, insert = db.Writer.insert_csv, db.Writer.insert

        def counted_load(self, *args, **kwargs):
            nonlocal loads
            loads += 1
            if point == "bulk" and loads == 4:
                later(0.05, writing, "the write transaction")
            return insert_csv(self, *args, **kwargs)

        def insert_until_runs(self, table, *args, **kwargs):
            if point == "rows" and table == "runs":
                die()
            return insert(self, table, *args, **kwargs)

        @functools.wraps(write)
        def write_then_maybe_die(*args, **kwargs):
            writing.set()
            try:
                write(*args, **kwargs)
            finally:
                writing.clear()
            if point == "committed":
                die()

        db.Writer.insert_csv, db.Writer.insert = counted_load, insert_until_runs
        pipeline._write = write_then_maybe_die
    else:
        missed(f"unknown point {point!r}, not one of {', '.join(POINTS)}")


if __name__ == "__main__":
    at, args = sys.argv[1], sys.argv[2:]
    install(at)
    from iolens.cli.main import main

    sys.argv = ["iolens", *args]
    missed(f"`iolens {' '.join(args)}` ended (exit code {main()}) without reaching the point {at!r}")
