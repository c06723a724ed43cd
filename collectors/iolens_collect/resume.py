"""Resuming an interrupted sweep (``sweep`` and ``cmd``): the runs are staged in ``BUNDLE.partial/``
beside the bundle, and ``journal.json`` there lists every run already made (its manifest entry,
whose files are in the folder, and what it printed). Interrupted (Ctrl-C, SIGTERM, a crash, a
reboot), the folder stays; the same command again skips the runs already made and goes on with
the others; the finished bundle holds them all, and the folder is removed.

The same command means: the same collector arguments and the same plan (and job file) bytes,
on the same host and kernel. Anything else is refused, naming the difference; ``--restart``
throws the old runs away and starts over.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
from typing import Any, Callable, Dict, List, Optional, Tuple

__all__ = ["Journal", "ResumeError", "SUFFIX"]

SUFFIX = ".partial"
FILE = "journal.json"
VERSION = 1


class ResumeError(ValueError):
    """The partial capture cannot be resumed by this command; the message says why."""


class Journal:
    def __init__(self, out_path: str, key: Dict[str, Any], restart: bool = False):
        self.dir = out_path + SUFFIX
        self.key = key
        self.restart = restart
        self.resumed = False
        self.created_at: Optional[str] = None
        self.created_ts: Optional[int] = None
        self.host: Optional[dict] = None
        self.notes: List[str] = []
        self.runs: Dict[int, Dict[str, Any]] = {}  # schedule position -> record
        self.sessions: List[str] = []

    @property
    def path(self) -> str:
        return os.path.join(self.dir, FILE)

    def open(self, host_facts: dict, created_at: str, created_ts: int, say: Callable[[str], None]) -> dict:
        """Start or resume. Returns the host facts to record (those of the first session)."""
        if os.path.lexists(self.dir) and self.restart:
            shutil.rmtree(self.dir)
            say(f"--restart: removed the runs of an earlier session in {self.dir}")
        if os.path.isdir(self.dir) and os.path.exists(self.path):
            with open(self.path, encoding="utf-8") as f:
                saved = json.load(f)
            self._check(saved, host_facts)
            self.resumed = True
            self.created_at = saved["created_at"]
            self.created_ts = saved["created_ts"]
            self.host = saved["host"]
            self.notes = saved.get("notes", [])
            self.sessions = saved.get("sessions", [])
            self.runs = {int(k): v for k, v in saved.get("runs", {}).items()}
            say(f"resuming the capture staged in {self.dir}: {len(self.runs)} run(s) already made "
                "(--restart starts over)")
        elif os.path.lexists(self.dir):
            raise ResumeError(f"{self.dir} exists but holds no {FILE}: not a partial capture of iolens-collect; "
                              "move it away")
        else:
            os.makedirs(self.dir)
            self.created_at, self.created_ts, self.host = created_at, created_ts, host_facts
        self.sessions.append(created_at)
        self._save()
        return self.host  # type: ignore[return-value]

    def _check(self, saved: dict, host_facts: dict) -> None:
        if saved.get("version") != VERSION:
            raise ResumeError(f"{self.path} was written by another version of iolens-collect; --restart starts over")
        if saved.get("key") != self.key:
            old, new = saved.get("key", {}), self.key
            what = [k for k in sorted(set(old) | set(new)) if old.get(k) != new.get(k)]
            raise ResumeError(
                f"{self.dir} holds the runs of a different capture (it differs in: {', '.join(what)}); "
                "run the same command as before to resume it, or pass --restart to start over")
        h0 = saved.get("host") or {}
        for name, a, b in (("host", h0.get("hostname"), host_facts.get("hostname") or socket.gethostname()),
                           ("kernel", (h0.get("kernel") or {}).get("release"),
                            (host_facts.get("kernel") or {}).get("release"))):
            if a != b:
                raise ResumeError(f"{self.dir} was made on {name} {a}, this is {name} {b}: its runs and new ones "
                                  "would not be comparable; --restart starts over")

    def done(self, position: int) -> Optional[Dict[str, Any]]:
        return self.runs.get(position)

    def discard(self, run_id: str) -> None:
        """Remove what an interrupted run left in the stage before running it again."""
        shutil.rmtree(os.path.join(self.dir, "runs", run_id), ignore_errors=True)

    def record(self, position: int, entry: dict, **info: Any) -> None:
        self.runs[position] = dict(info, entry=entry)
        self._save()

    def add_notes(self, notes: List[str]) -> None:
        for n in notes:
            if n not in self.notes:
                self.notes.append(n)
        self._save()

    def _save(self) -> None:
        data = {"version": VERSION, "key": self.key, "created_at": self.created_at, "created_ts": self.created_ts,
                "host": self.host, "notes": self.notes, "sessions": self.sessions,
                "runs": {str(k): v for k, v in sorted(self.runs.items())}}
        tmp = self.path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=1, sort_keys=True)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.path)

    def finish(self) -> None:
        shutil.rmtree(self.dir, ignore_errors=True)

    def summary(self) -> Tuple[int, str]:
        return len(self.runs), self.dir
