"""Add options to every job of a fio workload, for sweep points (sweep.py) and time-series logs
(fiologs.py), in the form the workload was given in:

- a job file: ``key=value`` lines at the end of each job section (before the next section's
  header), under a comment line. fio applies a section's options in order and the last value of
  an option wins, so these override the job's own (and its [global]) values.
- ``--fio-args``: ``--key=value`` tokens at the end of each job's group, i.e. before the next
  ``--name=`` (options before the first ``--name`` are global on fio's command line); again
  the last value wins.

The job names, sections and targets of the result are those fio will see (the result is parsed
again with fio.py's own reader).
"""

from __future__ import annotations

import shlex
from typing import Callable, Dict, List, Tuple

from . import fio

__all__ = ["add_job_options", "option_text"]

PerJob = Callable[[int, str], List[Tuple[str, str]]]  # (job position, job name) -> [(key, value)]


def option_text(value: object) -> str:
    """A plan value as fio reads it: true -> 1, false -> 0, 4.0 -> 4."""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def add_job_options(workload: fio.Workload, per_job: PerJob, comment: str) -> fio.Workload:
    if workload.fio_args is not None:
        tokens: List[str] = []
        k = -1
        name = ""
        for tok in workload.fio_args:
            if tok.startswith("--name="):
                if k >= 0:
                    tokens += [f"--{key}={value}" for key, value in per_job(k, name)]
                k += 1
                name = tok[len("--name="):]
            tokens.append(tok)
        if k >= 0:
            tokens += [f"--{key}={value}" for key, value in per_job(k, name)]
        out = fio.parse_fio_args(" ".join(shlex.quote(t) for t in tokens))
        out.notes = [n for n in out.notes if "${IOLENS_" not in n]  # the collector's own values
        return out
    text = workload.jobfile_bytes.decode("utf-8", errors="surrogateescape")
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    inserts: Dict[int, List[str]] = {}
    headers = sorted(s.line for s in workload.sections)
    jobs = [s for s in workload.sections if not s.is_global]
    for k, section in enumerate(jobs):
        after = [h for h in headers if h > section.line]
        at = (after[0] - 1) if after else len(lines)
        # before the blank and comment lines that precede the next header
        while at > section.line and (lines[at - 1].strip() == ""
                                     or lines[at - 1].lstrip().startswith((";", "#"))):
            at -= 1
        opts = per_job(k, section.name)
        if opts:
            block = [f"; {comment}\n"] + [f"{key}={value}\n" for key, value in opts]
            inserts.setdefault(at, []).extend(block)
    out_lines: List[str] = []
    for i in range(len(lines) + 1):
        out_lines.extend(inserts.get(i, []))
        if i < len(lines):
            out_lines.append(lines[i])
    data = "".join(out_lines).encode("utf-8", errors="surrogateescape")
    sections = fio.parse_jobfile(data.decode("utf-8", errors="surrogateescape"), source="job file")
    return fio.Workload(jobfile_bytes=data, sections=sections,
                        jobs=fio.jobs_from_sections(sections, substitute_env=True), notes=list(workload.notes))
