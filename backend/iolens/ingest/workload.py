"""What the workload was, as flat facts (table workload_facts) a comparison lines up beside the host
facts: two captures that ran different fio options or commands do not compare on speed.

- ``workload.kind``: fio or cmd;
- ``fio.JOB.OPTION``: fio's own record of the first run's options (its JSON's "global options"
  merged into each job's "job options"), so a job file and command-line options read the same;
- ``cmd.command``: the command a ``cmd`` capture ran (the first run's, shell-quoted);
- ``sweep.PARAM``: the values a sweep went through, in order ("1, 2, 4, 8").
"""

from __future__ import annotations

import json
import shlex

from ..bundle import OpenBundle
from .parsed import Parsed

# Options that name the capture's own files or were fio's output plumbing, not the workload.
_NOT_WORKLOAD = frozenset({"name", "output", "output-format", "write_bw_log", "write_iops_log",
                           "write_lat_log", "log_avg_msec", "per_job_logs", "log_hist_msec"})


def workload_facts(bundle: OpenBundle, parsed: Parsed) -> list[tuple[str, str | None]]:
    m = bundle.manifest
    facts: dict[str, str | None] = {"workload.kind": m.workload.kind}
    command = m.workload.command or (m.runs[0].cmdline if m.runs else None)
    if m.workload.kind == "cmd" and command:
        facts["cmd.command"] = shlex.join(command)
    if parsed.fio:
        first = parsed.fio[0]
        for j in first.jobs:
            opts = {**first.global_options, **j.job_options}
            for k, v in opts.items():
                if k not in _NOT_WORKLOAD:
                    facts.setdefault(f"fio.{j.jobname}.{k}", v)
    values: dict[str, list[str]] = {}
    for run in m.runs:
        for k, v in run.params.items():
            s = v if isinstance(v, str) else json.dumps(v)
            if s not in values.setdefault(k, []):
                values[k].append(s)
    swept = getattr(m.workload, "sweep", None) is not None
    for k, vs in values.items():
        if swept or len(vs) > 1:  # a lone run's parameters (a probe's --cpus) are not a sweep
            facts[f"sweep.{k}"] = ", ".join(vs)
    return sorted(facts.items())
