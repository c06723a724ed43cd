"""Build capture bundles inline from dicts, so tests need no binary fixtures (Perfetto style).

`fio_json(...)` writes fio 3.x-shaped JSON with chosen figures, for tests of the statistics;
tests on real fio output use the samples in tests/formats/samples and the bundles in datasets/.
"""

from __future__ import annotations

import copy
import hashlib
import io
import json
import tarfile
from pathlib import Path
from typing import Any


def fio_json(jobs: list[dict[str, Any]], version: str = "fio-3.33") -> str:
    """jobs: [{'name': 'j', 'ddir': 'write', 'iops': 1000, 'clat_mean': 1e5, 'p99': 2e5, 'usr': 1, 'sys': 5,
    'bins': {100000: 10}}]"""
    out = []
    for j in jobs:
        ddir = j.get("ddir", "write")
        iops = float(j["iops"])
        bs = j.get("bs", 4096)
        stat = {
            "io_bytes": int(iops * bs * 10), "io_kbytes": int(iops * bs * 10 / 1024),
            "bw_bytes": int(iops * bs), "bw": int(iops * bs / 1024), "iops": iops, "runtime": 10000,
            "total_ios": int(iops * 10), "short_ios": 0, "drop_ios": 0,
            "slat_ns": {"min": 0, "max": 0, "mean": 0.0, "stddev": 0.0, "N": 0},
            "clat_ns": {
                "min": 1000, "max": 10_000_000, "mean": j.get("clat_mean", 100000.0), "stddev": 10.0,
                "N": int(iops * 10),
                "percentile": {"50.000000": j.get("p50", 90000), "99.000000": j.get("p99", 200000),
                               "99.900000": j.get("p999", 400000)},
            },
            "lat_ns": {"min": 1000, "max": 10_000_000, "mean": j.get("clat_mean", 100000.0) + 500,
                       "stddev": 10.0, "N": int(iops * 10)},
        }
        if "bins" in j:
            stat["clat_ns"]["bins"] = {str(k): v for k, v in j["bins"].items()}
        idle = {"io_bytes": 0, "io_kbytes": 0, "bw_bytes": 0, "bw": 0, "iops": 0.0, "runtime": 0,
                "total_ios": 0, "short_ios": 0, "drop_ios": 0,
                "slat_ns": {"min": 0, "max": 0, "mean": 0.0, "stddev": 0.0, "N": 0},
                "clat_ns": {"min": 0, "max": 0, "mean": 0.0, "stddev": 0.0, "N": 0},
                "lat_ns": {"min": 0, "max": 0, "mean": 0.0, "stddev": 0.0, "N": 0}}
        entry = {"jobname": j.get("name", "job"), "groupid": 0, "error": 0, "eta": 0, "elapsed": 11,
                 "job options": {"rw": j.get("rw", "randwrite"), "bs": "4k"},
                 "read": copy.deepcopy(idle), "write": copy.deepcopy(idle), "trim": copy.deepcopy(idle),
                 "usr_cpu": j.get("usr", 1.0), "sys_cpu": j.get("sys", 10.0), "ctx": j.get("ctx", 100),
                 "majf": 0, "minf": 10}
        entry[ddir] = stat
        out.append(entry)
    return json.dumps({"fio version": version, "timestamp": 1763780000, "global options": {"ioengine": "psync"},
                       "jobs": out}, indent=2)


def manifest(label: str = "test", runs: int = 1, **over: Any) -> dict[str, Any]:
    m: dict[str, Any] = {
        "format": "iolens-bundle",
        "format_version": 1,
        "collector": {"name": "iolens-collect", "version": "0.1.0", "argv": ["iolens-collect", "run"]},
        "label": label,
        "tags": {},
        "created_at": "2026-11-22T02:50:11Z",
        "host": {"hostname": "testhost", "kernel": {"release": "6.18.0-test", "cmdline": "ro"},
                 "targets": [{"path": "/mnt/x/f", "filesystem": {"type": "ext4"}}]},
        "workload": {"kind": "fio", "fio_version": "fio-3.33", "jobfile": None, "targets": ["/mnt/x/f"]},
        "runs": [],
        "artifacts": [],
        "notes": [],
    }
    m.update(over)
    return m


def add_file(m: dict[str, Any], files: dict[str, bytes], path: str, data: bytes | str, kind: str,
             run: int | None = None) -> None:
    data = data.encode() if isinstance(data, str) else data
    files[path] = data
    art = {"kind": kind, "path": path, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    (m["artifacts"] if run is None else m["runs"][run]["artifacts"]).append(art)


def fio_capture(label: str, per_run_jobs: list[list[dict[str, Any]]], **over: Any) -> tuple[dict, dict[str, bytes]]:
    """A manifest and its files: one run per entry of per_run_jobs, each with its fio JSON."""
    m = manifest(label, **over)
    files: dict[str, bytes] = {}
    for i, jobs in enumerate(per_run_jobs):
        m["runs"].append({"id": f"r{i:03d}", "index": i, "repeat": i, "params": {},
                          "started_at": f"2026-11-22T02:5{i}:00Z", "ended_at": f"2026-11-22T02:5{i}:10Z",
                          "exit_code": 0, "cmdline": ["fio", "--output-format=json+", "job.fio"], "artifacts": []})
        add_file(m, files, f"runs/r{i:03d}/fio.json", fio_json(jobs), "fio-json", run=i)
    return m, files


def write_tar(path: Path, members: dict[str, bytes | None], gz: bool = True,
              extra: list[tarfile.TarInfo] | None = None) -> Path:
    """members: name -> bytes (regular file) or None (directory)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz" if gz else "w") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            if data is None:
                info.type = tarfile.DIRTYPE
                tar.addfile(info)
            else:
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
        for info in extra or []:
            tar.addfile(info, io.BytesIO(b"x" * info.size) if info.isreg() else None)
    path.write_bytes(buf.getvalue())
    return path


def write_bundle(path: Path, m: dict[str, Any], files: dict[str, bytes], gz: bool = True) -> Path:
    return write_tar(path, {"manifest.json": json.dumps(m, indent=2).encode(), **files}, gz=gz)


def block_capture(label: str, runs: list[list[tuple[str, str, bytes | str, dict[str, Any]]]],
                  **over: Any) -> tuple[dict, dict[str, bytes]]:
    """A manifest and its files with block artifacts: runs[i] = [(kind, name, data, extra), ...],
    kind blkparse / perf-block / perf-stat-block; extra fields go into the artifact entry
    (e.g. {"trace_clock_at_start_ns": 0})."""
    m = manifest(label, **over)
    files: dict[str, bytes] = {}
    for i, arts in enumerate(runs):
        m["runs"].append({"id": f"r{i:03d}", "index": i, "repeat": i, "params": {},
                          "started_at": f"2026-11-22T02:5{i}:00Z", "ended_at": f"2026-11-22T02:5{i}:10Z",
                          "exit_code": 0, "cmdline": ["fio", "job.fio"], "artifacts": []})
        for kind, name, data, extra in arts:
            add_file(m, files, f"runs/r{i:03d}/{name}", data, kind, run=i)
            m["runs"][i]["artifacts"][-1].update(extra)
    return m, files
