"""The safety rule of the collector (DESIGN.md, Contracts): it never writes to a block device
or to a file that it did not create unless given ``--allow-destructive``.

Before the first repeat every target is checked: a path that does not exist yet is fine
(fio creates it, and the collector removes it at the end unless ``--keep-files``); anything
that exists already (a regular file, a block or character device, a FIFO, a dangling
symbolic link) is refused unless ``--allow-destructive``. Files created by the first repeat
are the collector's own, so later repeats may reuse them.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from typing import List, Optional

__all__ = ["Refused", "Plan", "check_targets", "cleanup", "describe"]


class Refused(Exception):
    """A target needs --allow-destructive (or can never be used); the message names it."""


@dataclass
class Plan:
    create: List[str] = field(default_factory=list)  # do not exist: fio creates them
    existing: List[str] = field(default_factory=list)  # exist, allowed by --allow-destructive
    created_dirs: List[str] = field(default_factory=list)  # missing parents fio will create
    harmless: List[str] = field(default_factory=list)  # /dev/null


def describe(path: str) -> str:
    """What is at ``path``, in words (for messages)."""
    try:
        lst = os.lstat(path)
    except OSError:
        return "does not exist"
    if stat.S_ISLNK(lst.st_mode):
        try:
            st = os.stat(path)
        except OSError:
            return f"is a dangling symbolic link (to {os.readlink(path)})"
        return f"is a symbolic link to {os.path.realpath(path)}, which " + _kind(st)
    return _kind(lst)


def _kind(st: os.stat_result) -> str:
    mode = st.st_mode
    if stat.S_ISBLK(mode):
        return f"is a block device ({os.major(st.st_rdev)}:{os.minor(st.st_rdev)})"
    if stat.S_ISCHR(mode):
        return f"is a character device ({os.major(st.st_rdev)}:{os.minor(st.st_rdev)})"
    if stat.S_ISREG(mode):
        return f"is an existing regular file ({st.st_size} bytes)"
    if stat.S_ISDIR(mode):
        return "is a directory"
    if stat.S_ISFIFO(mode):
        return "is a FIFO"
    if stat.S_ISSOCK(mode):
        return "is a socket"
    return "exists"


def _missing_parents(path: str) -> List[str]:
    """Directories above ``path`` that do not exist (fio creates them: filesetup.c
    create_work_dirs), outermost first."""
    missing = []
    parent = os.path.dirname(path)
    while parent and not os.path.lexists(parent):
        missing.append(parent)
        up = os.path.dirname(parent)
        if up == parent:
            break
        parent = up
    return list(reversed(missing))


def check_targets(
    targets: List[str], allow_destructive: bool, unknown: Optional[List[str]] = None
) -> Plan:
    """Sort the targets into a Plan, or raise Refused with every offending target named."""
    plan = Plan()
    problems = []
    for path in targets:
        if os.path.realpath(path) == "/dev/null":  # writes go nowhere: always harmless
            plan.harmless.append(path)
            continue
        if not os.path.lexists(path):
            plan.create.append(path)
            for d in _missing_parents(path):
                if d not in plan.created_dirs:
                    plan.created_dirs.append(d)
            continue
        what = describe(path)
        if os.path.isdir(path):
            raise Refused(f"fio target {path} {what}; fio needs a file name there")
        if allow_destructive:
            plan.existing.append(path)
        else:
            problems.append(f"  {path} {what}")
    if unknown and not allow_destructive:
        problems.extend(f"  {reason}" for reason in unknown)
    if problems:
        raise Refused(
            "refusing to run: the fio job uses targets that this capture did not create:\n"
            + "\n".join(problems)
            + "\nfio may overwrite or destroy it. Pass --allow-destructive if that is what "
            "you want, or point the job at a new file name."
        )
    return plan


def cleanup(plan: Plan) -> List[str]:
    """Remove what this capture created (files that did not exist before it, then the
    directories fio made for them if they are empty). Returns messages about what could
    not be removed. Never touches ``plan.existing``."""
    problems = []
    for path in plan.create:
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            continue  # fio did not create it (or unlink=1 removed it)
        except OSError as exc:
            problems.append(f"could not check {path}: {exc.strerror}")
            continue
        if not stat.S_ISREG(st.st_mode):
            problems.append(f"left {path} in place: it {describe(path)}, not a file fio made")
            continue
        try:
            os.unlink(path)
        except OSError as exc:
            problems.append(f"could not remove {path}: {exc.strerror}")
    for d in sorted(plan.created_dirs, key=len, reverse=True):  # innermost first
        try:
            os.rmdir(d)
        except FileNotFoundError:
            pass
        except OSError:
            problems.append(f"left directory {d} in place: it is not empty")
    return problems
