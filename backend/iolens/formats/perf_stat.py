"""`perf stat -x SEP` output (CSV), with or without `-I` intervals and per-CPU/per-core/per-thread
aggregation, as rows.

Reference (pinned): perf 6.1, tools/perf/util/stat-display.c (print_interval, aggr_printout,
abs_printout/print_running/print_metric_csv). One counter per line:

    [time SEP] [aggr SEP [nr SEP]] value SEP unit SEP event [SEP cgroup] SEP run SEP pct SEP mvalue SEP munit

- time: seconds since perf stat started (`%lu.%09lu`, right-aligned), with `-I`; the word
  `summary` for the totals that `--summary` adds after the intervals.
- aggr: `CPU3` with -A (--no-aggr); `S0-D0-C1` + count of CPUs with --per-core, `S0` / `S0-D0` /
  `N0` + count with --per-socket / --per-die / --per-node; `comm-pid` with --per-thread.
  Absent when counts are summed over all CPUs (the default).
- value: a number (`1001.27` for msec events, integers for counts), or `<not counted>` /
  `<not supported>`.
- run, pct: how long the counter ran (ns) and the percentage of the enabled time it was on
  the PMU (below 100 when multiplexed; perf scales the value).
- mvalue, munit: perf's derived metric for the line (`1.001`, `CPUs utilized`), often empty.

Lines starting with `#` and blank lines are skipped; the `# started on Wed Nov 25 17:07:27 2026`
header that perf writes with `-o FILE` (ctime(3): the host's local time, whole seconds, taken before
the counters are opened) is kept as `started_on`.
Lines with an empty value and event are continuation lines of multi-line metrics (`-M`): skipped
and counted. Anything else that does not fit raises FormatError.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .errors import FormatError
from .numbers import is_float, is_int


@dataclass(frozen=True)
class StatRow:
    line: int  # 1-based line number in the file
    start_s: float | None  # interval start, seconds since perf stat started (None for totals)
    end_s: float | None  # interval end (the time perf printed); None for totals
    summary: bool  # True for totals: no -I, or the `summary` lines of --summary
    cpu: int | None  # with -A: the CPU; None when aggregated otherwise
    aggr: str | None  # the aggregation id as printed ("CPU3", "S0-D0-C1", "fio-1234"), None = all
    aggr_nr: int | None  # CPUs aggregated in `aggr` (--per-core/socket/die/node), else None
    event: str  # "context-switches", "sched:sched_switch", "task-clock", ...
    value: float | None  # None when not counted / not supported
    status: str  # counted | not counted | not supported
    unit: str  # "" for counts, "msec" for task-clock/cpu-clock
    cgroup: str | None  # with -G
    run_ns: int | None  # time the counter ran
    running_pct: float | None  # % of the enabled time the counter was running (100 = not multiplexed)
    metric_value: float | None
    metric_unit: str | None


@dataclass
class PerfStat:
    rows: list[StatRow] = field(default_factory=list)
    interval: bool = False  # printed with -I
    per_cpu: bool = False  # rows carry a CPU (-A)
    skipped_metric_lines: int = 0
    separator: str = ","
    started_on: str | None = None  # the text of `# started on ...` (local time of the host), when present

    def totals(self) -> dict[str, float]:
        """Counted total per event over the file: the summary rows when there are any for the
        event (no -I, or --summary), else the sum of its interval rows; over every CPU or
        aggregation id. Events never counted are absent."""
        summary: dict[str, float] = {}
        intervals: dict[str, float] = {}
        for r in self.rows:
            if r.value is None:
                continue
            target = summary if r.summary else intervals
            target[r.event] = target.get(r.event, 0.0) + r.value
        return {**intervals, **summary}


_CPU = re.compile(r"CPU(\d+)")
# -I times are printed "%lu.%09lu"; a value never has 9 decimals (counts are integers, msec "%.2f").
_INTERVAL_TIME = re.compile(r"\d+\.\d{9}")
# --per-core "S0-D0-C1" (the core number is right-aligned: "S0-D0-C 1" on wide machines),
# --per-die "S0-D0", --per-socket "S0", --per-node "N0"; followed by a count of CPUs.
_AGGR_WITH_NR = re.compile(r"S\d+(?:-D\d+)?(?:-C\s*\d+)?|N\d+")
_NOT = {"<not counted>": "not counted", "<not supported>": "not supported"}


def _float(text: str) -> float | None:
    """A number as perf prints it; None for anything else (NaN, inf, 1e309, "1_000" included)."""
    return float(text) if is_float(text) else None


def _is_value(text: str) -> bool:
    return text in _NOT or _float(text) is not None


_STARTED_ON = "# started on "


def parse_perf_stat(text: str, source: str = "<perf stat>", separator: str = ",") -> PerfStat:
    out = PerfStat(separator=separator)
    prev_end: float | None = None
    last_time: float | None = None
    for lineno, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            if line.startswith(_STARTED_ON) and out.started_on is None:
                out.started_on = line[len(_STARTED_ON):].strip() or None
            continue
        fields = [f.strip() for f in line.split(separator)]
        i = 0
        end_s = None
        summary = True
        first = fields[0]
        if first == "summary":
            i = 1
        elif _INTERVAL_TIME.fullmatch(first) and len(fields) > 4:
            end_s = float(first)
            summary = False
            out.interval = True
            i = 1
            if last_time is None or end_s != last_time:
                prev_end, last_time = last_time, end_s
        cpu = aggr_nr = None
        aggr = None
        head = fields[i] if i < len(fields) else ""
        if (m := _CPU.fullmatch(head)) is not None:
            cpu, aggr = int(m.group(1)), head
            out.per_cpu = True
            i += 1
        elif _AGGR_WITH_NR.fullmatch(head) and i + 1 < len(fields) and _is_int(fields[i + 1]) \
                and _looks_like_row(fields, i + 2):
            aggr, aggr_nr = head, int(fields[i + 1])
            i += 2
        elif head and not _is_value(head) and _looks_like_row(fields, i + 1):
            aggr = head  # --per-thread: "comm-pid"
            i += 1
        rest = fields[i:]
        if len(rest) >= 3 and rest[0] == "" and rest[2] == "":
            out.skipped_metric_lines += 1  # continuation line of a multi-line metric
            continue
        if len(rest) < 3:
            raise FormatError(source, f"expected value{separator}unit{separator}event...: {line[:80]!r}",
                              line=lineno)
        value_text, unit, event = rest[0], rest[1], rest[2]
        if value_text in _NOT:
            value, status = None, _NOT[value_text]
        else:
            value = _float(value_text)
            status = "counted"
            if value is None:
                raise FormatError(source, f"not a finite number: {value_text[:40]!r}", line=lineno, field="value")
            if value < 0:
                raise FormatError(source, f"a negative count: {value_text!r}", line=lineno, field="value")
        if not event:
            raise FormatError(source, "no event name", line=lineno, field="event")
        tail = rest[3:]
        cgroup = None
        # run, pct, metric value, metric unit: four fields; a fifth before them is -G's cgroup.
        if len(tail) == 5 or (tail and not _is_int(tail[0]) and tail[0] != ""):
            cgroup, tail = tail[0], tail[1:]
        tail = tail + [""] * (4 - len(tail))
        out.rows.append(StatRow(
            line=lineno,
            start_s=(prev_end or 0.0) if end_s is not None else None,
            end_s=end_s,
            summary=summary,
            cpu=cpu,
            aggr=aggr,
            aggr_nr=aggr_nr,
            event=event,
            value=value,
            status=status,
            unit=unit,
            cgroup=cgroup,
            run_ns=int(tail[0]) if _is_int(tail[0]) else None,
            running_pct=_float(tail[1]) if tail[1] else None,
            metric_value=_float(tail[2]) if tail[2] else None,
            metric_unit=tail[3] or None,
        ))
    if not out.rows:
        raise FormatError(source, "no counter lines (is this `perf stat -x,` output?)")
    return out


def _is_int(text: str) -> bool:
    return text.isascii() and text.isdigit() and is_int(text)


def _looks_like_row(fields: list[str], i: int) -> bool:
    """fields[i:] start with value, unit, event (value may be empty on metric lines)."""
    return len(fields) >= i + 3 and (fields[i] == "" or _is_value(fields[i]))


@dataclass(frozen=True)
class StatCounts:
    """Counted totals per event, for comparing with what a trace recorded."""

    counts: dict[str, int | None]  # event -> total over the file; None when never counted
    stat: PerfStat


def parse_perf_stat_csv(text: str, source: str = "<perf stat>") -> StatCounts:
    """`perf stat -x,` text -> total count per event (see PerfStat.totals): an int for counts,
    None for an event that was `<not counted>` / `<not supported>` everywhere."""
    stat = parse_perf_stat(text, source)
    totals = stat.totals()
    counts: dict[str, int | None] = {}
    for r in stat.rows:
        if r.event not in counts:
            total = totals.get(r.event)
            counts[r.event] = None if total is None else int(round(total))
    return StatCounts(counts, stat)
