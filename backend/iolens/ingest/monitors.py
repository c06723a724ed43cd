"""The collector's monitors (kind `monitor`, `--monitors`; formats/monitors.py) -> monitor_samples
(every sampled value, on each run's clock) and monitor_keys (per run and key: the change over the
run for a counter, the mean for a level), plus per-CPU utilisation from /proc/stat as mpstat
computes it: for each CPU, each state's share of the ticks between the first and the last sample
(`cpu0.busy%` = everything but idle and iowait; `cpu.busy%` all CPUs)."""

from __future__ import annotations

from ..bundle import Artifact, BundleError, OpenBundle
from ..formats import gz
from ..formats.monitors import MonitorFile, deltas, parse_monitor
from .parsed import Parsed

SAMPLE_COLUMNS = ("capture_id", "run_id", "source", "key", "t_ns", "value")
KEY_COLUMNS = ("capture_id", "run_id", "source", "key", "counter", "unit", "value", "seconds", "samples")
_STATES = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")


def cpu_utilisation(f: MonitorFile) -> dict[str, float]:
    """mpstat's figures over the run from /proc/stat samples: 'cpuN.<state>%' and 'cpuN.busy%'."""
    if len(f.samples) < 2:
        return {}
    first, last = f.samples[0].values, f.samples[-1].values
    cpus = sorted({k.split(".", 1)[0] for k in last if k.startswith("cpu")})
    out: dict[str, float] = {}
    for cpu in cpus:
        d = {s: last.get(f"{cpu}.{s}", 0.0) - first.get(f"{cpu}.{s}", 0.0) for s in _STATES}
        total = sum(d.values())
        if total <= 0:
            continue
        for s in ("user", "nice", "system", "iowait", "irq", "softirq", "steal", "idle"):
            out[f"{cpu}.{s}%"] = 100.0 * d[s] / total
        out[f"{cpu}.busy%"] = 100.0 * (total - d["idle"] - d["iowait"]) / total
    return out


def monitor_artifact(bundle: OpenBundle, run_id: str | None, art: Artifact, out: Parsed) -> None:
    where = {"file": art.path, "field": "kind"}
    if run_id is None:
        raise BundleError("monitor artifact must belong to a run", where, 422)
    source = art.source
    if source is None:
        raise BundleError("a monitor artifact needs its source (vmstat, meminfo, stat, xfs, ext4, slabinfo)",
                          {"file": "manifest.json", "field": f"artifact {art.path}: source"}, 422)
    t0 = art.trace_clock_at_start_ns
    text = gz.decode(gz.gunzip(bundle.path(art.path).read_bytes(), art.path), art.path)
    f = parse_monitor(text, source, art.path)
    base = t0 if isinstance(t0, int) else f.samples[0].t_ns
    cid = bundle.capture_id
    out.add("monitor_samples", [(cid, run_id, source, k, s.t_ns - base, v) for s in f.samples for k, v in s.values.items()])
    secs = (f.samples[-1].t_ns - f.samples[0].t_ns) / 1e9
    rows = [(cid, run_id, source, k, k in f.counters, f.units.get(k), v, secs, len(f.samples))
            for k, (v, _) in deltas(f).items()]
    if source == "stat":
        rows += [(cid, run_id, source, k, False, "%", v, secs, len(f.samples)) for k, v in cpu_utilisation(f).items()]
    out.add("monitor_keys", rows)


TABLE_COLUMNS = {"monitor_samples": SAMPLE_COLUMNS, "monitor_keys": KEY_COLUMNS}


# --- iostat -x and vmstat output given as loose files (iolens bundle): the same tables ----------

def _rows_from_reports(cid: str, run_id: str, source: str, samples: list[tuple[int, dict[str, float]]],
                       units: dict[str, str], out: Parsed) -> None:
    """Samples (t_ns, values) of a tool's own report lines -> monitor_samples and monitor_keys (levels:
    the tools print rates and shares already)."""
    out.add("monitor_samples", [(cid, run_id, source, k, t, v) for t, vals in samples for k, v in vals.items()])
    keys: dict[str, list[float]] = {}
    for _, vals in samples:
        for k, v in vals.items():
            keys.setdefault(k, []).append(v)
    secs = (samples[-1][0] - samples[0][0]) / 1e9 if samples else 0.0
    out.add("monitor_keys", [(cid, run_id, source, k, False, units.get(k), sum(v) / len(v), secs, len(v))
                             for k, v in keys.items()])


def _iostat_unit(col: str) -> str | None:
    if col.endswith("kB/s"):
        return "KiB/s"
    if col.endswith("MB/s"):
        return "MiB/s"
    if col.endswith("/s"):
        return "/s"
    if col.startswith("%"):
        return "%"
    if "await" in col or col == "svctm":
        return "ms"
    return None


def iostat_artifact(bundle: OpenBundle, run_id: str | None, art: Artifact, out: Parsed) -> None:
    """`iostat -x` text: each report after the first (iostat's first covers the time since boot;
    with -y there is none, and the first interval is left out too) is one sample, a second apart
    unless iostat printed its times; keys `DEV.COLUMN` and `cpu.%user`..."""
    from ..formats.iostat import parse_iostat
    if run_id is None:
        run_id = bundle.manifest.runs[0].id
    r = parse_iostat(gz.read_plain(bundle.path(art.path), art.path), art.path)
    reports = r.reports[1:] if len(r.reports) > 1 else r.reports
    samples, units = [], {}
    for i, rep in enumerate(reports):
        vals = {f"cpu.{k}": v for k, v in rep.cpu.items()}
        for dev, cols in rep.devices.items():
            for c, v in cols.items():
                vals[f"{dev}.{c}"] = v
                units[f"{dev}.{c}"] = _iostat_unit(c)
        units.update({f"cpu.{k}": "%" for k in rep.cpu})
        samples.append((i * 1_000_000_000, vals))
    if samples:
        _rows_from_reports(bundle.capture_id, run_id, "iostat", samples, {k: u for k, u in units.items() if u}, out)


_VMSTAT_UNITS = {"swpd": "KiB", "free": "KiB", "buff": "KiB", "cache": "KiB", "inact": "KiB", "active": "KiB",
                 "si": "KiB/s", "so": "KiB/s", "bi": "blocks/s", "bo": "blocks/s", "in": "/s", "cs": "/s",
                 "us": "%", "sy": "%", "id": "%", "wa": "%", "st": "%", "gu": "%"}


def vmstat_artifact(bundle: OpenBundle, run_id: str | None, art: Artifact, out: Parsed) -> None:
    """`vmstat` text: each row after the first (the averages since boot) is one sample, a second
    apart (vmstat's usual delay; the text does not say it), source `vmstat-cmd`."""
    from ..formats.vmstat import parse_vmstat
    if run_id is None:
        run_id = bundle.manifest.runs[0].id
    v = parse_vmstat(gz.read_plain(bundle.path(art.path), art.path), art.path)
    rows = [r for r in v.rows if not r.since_boot] or v.rows
    samples = [(i * 1_000_000_000, {k: float(x) for k, x in r.values.items()}) for i, r in enumerate(rows)]
    _rows_from_reports(bundle.capture_id, run_id, "vmstat-cmd", samples, _VMSTAT_UNITS, out)
