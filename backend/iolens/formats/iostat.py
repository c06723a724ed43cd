"""`iostat -x` text (sysstat) -> one report per interval, CPU and device rows with their columns.

Reference: sysstat 12.6.1 (Debian 12), iostat.c (write_sample_header, write_ext_stat, write_cpu_stat).
Samples in tests/formats/samples/iostat with the commands that made them.

    Linux 6.18.44-fc-v669 (vm) 	11/25/26 	_x86_64_	(2 CPU)
    <blank>
    11/25/26 13:51:56                       <- only with -t
    avg-cpu:  %user   %nice %system %iowait  %steal   %idle
              16.03   26.22    9.63    0.68    0.16   47.27
    <blank>
    Device            r/s     rkB/s   rrqm/s  %rrqm r_await ...  aqu-sz  %util
    vda            156.49   5594.11    21.77  12.21    0.56 ...    0.17   3.08

- Columns are read from each "Device" header as printed, so every sysstat version's set is read
  (12.x: r/s rkB/s ... d/s ... f/s f_await aqu-sz %util; 10.x/11.x: "Device:" rrqm/s wrqm/s r/s w/s
  rkB/s wkB/s avgrq-sz avgqu-sz await r_await w_await svctm %util; -m gives MB/s columns).
- The first report covers the time since boot unless iostat ran with -y; the text does not say
  which, so `Report.index` keeps the order and the caller decides (iolens marks report 0
  `since_boot_unless_y`).
- `-z` prints a header with no device under it when every device was idle: an empty report.
- Numbers may use a decimal comma (a locale with ',' as decimal point): read as a point.
- The first line gives the kernel release, the host name and the CPU count: kept as `system`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .errors import FormatError
from .numbers import to_float

_SYSTEM = re.compile(r"^(\S+) (\S+) \(([^)]*)\)\s+(\S+)\s+(\S+)\s+\(([0-9]{1,6}) CPU\)\s*$")
_TIME = re.compile(r"^\d{2,4}[/.-]\d{2}[/.-]\d{2,4}[ T]\d{1,2}:\d{2}:\d{2}( [AP]M)?\s*$|^\d{4}-\d{2}-\d{2}T\S+\s*$")


@dataclass
class IostatSystem:
    os: str            # "Linux"
    release: str       # kernel release
    hostname: str
    date: str          # as printed (locale dependent)
    machine: str       # "_x86_64_"
    cpus: int


@dataclass
class IostatReport:
    index: int
    time: str | None                                   # with -t: the time line as printed
    cpu: dict[str, float] = field(default_factory=dict)   # "%user": 16.03, ...
    devices: dict[str, dict[str, float]] = field(default_factory=dict)  # "vda" -> {"r/s": 156.49, ...}


@dataclass
class Iostat:
    system: IostatSystem | None
    reports: list[IostatReport]
    columns: list[str]          # the device columns of the last header (they do not change within one run)


def _num(tok: str, source: str, lineno: int, fld: str) -> float:
    # iostat prints "%.2f" in the C locale, or with a decimal comma in some locales
    return to_float(tok.replace(",", ".") if "." not in tok else tok, source, lineno, fld)


def parse_iostat(text: str, source: str = "iostat.txt") -> Iostat:
    lines = text.replace("\r\n", "\n").split("\n")
    system: IostatSystem | None = None
    reports: list[IostatReport] = []
    columns: list[str] = []
    cur: IostatReport | None = None
    pending_time: str | None = None
    mode = ""  # "cpu-values" after avg-cpu header, "devices" after a Device header
    cpu_cols: list[str] = []
    dev_header = False  # the current report has had its Device header

    def new_report() -> IostatReport:
        nonlocal pending_time
        r = IostatReport(len(reports), pending_time)
        pending_time = None
        reports.append(r)
        return r

    for lineno, line in enumerate(lines, 1):
        s = line.strip()
        if not s:
            mode = ""
            continue
        if system is None and not reports and (m := _SYSTEM.match(line)):
            system = IostatSystem(m.group(1), m.group(2), m.group(3), m.group(4), m.group(5), int(m.group(6)))
            continue
        if _TIME.match(s):
            pending_time = s
            continue
        if s.startswith("avg-cpu:"):
            cpu_cols = s.split()[1:]
            cur = new_report()
            dev_header = False
            mode = "cpu-values"
            continue
        if mode == "cpu-values":
            vals = s.split()
            if len(vals) != len(cpu_cols):
                raise FormatError(source, f"{len(vals)} CPU values under {len(cpu_cols)} avg-cpu columns",
                                  line=lineno, field="avg-cpu")
            assert cur is not None
            cur.cpu = {c: _num(v, source, lineno, c) for c, v in zip(cpu_cols, vals)}
            mode = ""
            continue
        if s.startswith("Device") and len(s.split()) > 1:
            columns = s.split()[1:]
            # a Device header follows its report's avg-cpu block; without one (-d) it starts a report
            if cur is None or dev_header:
                cur = new_report()
            dev_header = True
            mode = "devices"
            continue
        if mode == "devices":
            toks = s.split()
            if len(toks) != len(columns) + 1:
                raise FormatError(source, f"{len(toks) - 1} values for {len(columns)} device columns ({toks[0]})",
                                  line=lineno, field="Device")
            assert cur is not None
            cur.devices[toks[0]] = {c: _num(v, source, lineno, f"{toks[0]}.{c}") for c, v in zip(columns, toks[1:])}
            continue
        raise FormatError(source, f"not a line of `iostat -x` output: {s[:80]!r}", line=lineno)
    if not reports:
        raise FormatError(source, "no iostat report (no avg-cpu or Device header)")
    return Iostat(system, reports, columns)
