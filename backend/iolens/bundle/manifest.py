"""The bundle manifest (docs/bundle-format.md), validated with pydantic: every field of the format,
of the manifest and of each artifact kind, in one model.

Unknown fields are allowed and kept (a newer collector may add facts); known fields must have
the documented type. Validation errors name the field path, e.g. `runs[0].artifacts[1].sha256`.
The JSON Schema that the collector's tests check their bundles against is generated from these
models (schema.py). Everything in iolens reads a manifest through them: `Manifest.model_validate`
at ingest (reader.py), `stored_manifest` for the copy kept in the store.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

SUPPORTED_FORMAT_VERSIONS = (1,)

Scalar = str | int | float | bool | None


class _Open(BaseModel):
    # Built on first use, not at import: an ingest validates with Manifest's validator only, which
    # builds the nested models' schemas itself (issue 17: the start-up cost of `iolens ingest`).
    model_config = ConfigDict(extra="allow", defer_build=True)


class Artifact(_Open):
    """A file of the bundle. The optional fields belong to some kinds (docs/bundle-format.md,
    "Artifact kinds"); kinds.py lists the kinds."""

    kind: str = Field(min_length=1, max_length=64)
    path: str = Field(min_length=1, max_length=1024)
    size: int = Field(ge=0)
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    trace_clock_at_start_ns: int | None = Field(
        None, description="CLOCK_MONOTONIC (ns) at the run's start, the clock of the recording's times: "
                          "perf-script, perf-sched, perf-offcpu, perf-block, blkparse, perf-trace, perf-trace-fields, "
                          "fio-log.")
    stat_clock_at_start_ns: int | None = Field(
        None, description="perf-stat, perf-stat-offcpu, perf-stat-block: CLOCK_MONOTONIC (ns, the perf trace clock) at "
                          "perf stat's time 0, from which its interval times (-I) count.")
    scope: str | None = Field(None, description="perf-stat: system (default, -a) or workload.")
    log: str | None = Field(None, description="fio-log: bw, iops, lat, clat or slat.")
    job: str | None = Field(None, description="fio-log: the job's name.")
    job_index: int | None = Field(None, description="fio-log: the job's position in the job file.")
    clone: int | None = Field(None, description="fio-log: N of the file name's _KIND.N.log.")
    avg_msec: int | None = Field(None, description="fio-log: fio's log_avg_msec.")
    clock: str | None = Field(None, description="fio-log: what the times are: job (default) or CLOCK_MONOTONIC.")
    phase: str | None = Field(None, description="diskstats: before or after the command.")
    clock_ns: int | None = Field(None, description="diskstats: CLOCK_MONOTONIC (ns) when read.")
    source: str | None = Field(None, description="monitor: the file sampled (vmstat, meminfo, ...).")
    interval_ms: int | None = Field(None, description="monitor: the sampling interval.")
    event: str | None = Field(None, description="folded-stacks: the perf event whose periods the counts are.")
    source_file: str | None = Field(None, description="Bundles made from loose files: the name the file was given.")
    converted_from: dict[str, Any] | None = Field(
        None, description="Bundles made from loose files: a perf.data turned into text (file, command, perf version).")

    @field_validator("path")
    @classmethod
    def _relative(cls, v: str) -> str:
        if v.startswith("/") or "\x00" in v or ".." in v.split("/"):
            raise ValueError("must be a relative path inside the archive (no leading '/', no '..')")
        return v


class Run(_Open):
    id: str = Field(pattern=r"^[A-Za-z0-9_.-]{1,64}$")
    index: int = Field(ge=0)
    repeat: int = Field(ge=0)
    params: dict[str, Scalar] = Field(default_factory=dict)
    started_at: datetime | None = None
    ended_at: datetime | None = None
    exit_code: int | None = None
    cmdline: list[str] = Field(default_factory=list)
    artifacts: list[Artifact] = Field(default_factory=list)
    probes: dict[str, Any] = Field(
        default_factory=dict, description="What each probe of the run did (stacks, sched, offcpu, block, workload...): "
                                          "commands, tool version, counts, sizes, overhead.")


class Collector(_Open):
    name: str
    version: str
    argv: list[str] = Field(default_factory=list)


class SweepParameter(_Open):
    name: str
    values: list[Scalar] = Field(default_factory=list)


class Sweep(_Open):
    parameters: list[SweepParameter] = Field(default_factory=list)
    order: str | None = None
    repeat: int | None = None
    points: int | None = None
    plan: str | None = None


class FioLogs(_Open):
    avg_msec: int | None = None


class Workload(_Open):
    kind: Literal["fio", "cmd"]
    fio_version: str | None = None
    jobfile: str | None = None
    fio_args: list[str] | None = None
    targets: list[str] = Field(default_factory=list)
    cwd: str | None = None
    command: list[str] | None = Field(None, description="cmd: the command as given ({NAME} not yet replaced).")
    devices: list[str] = Field(default_factory=list, description="cmd: the /proc/diskstats names of the run's disk figures.")
    cpus: str | int | list[int | str] | None = Field(None, description="The CPUs the workload was pinned to.")
    sweep: Sweep | None = None
    fio_logs: FioLogs | None = None


class HostKernel(_Open):
    release: str | None = Field(None, description="uname -r")
    version: Scalar = None
    cmdline: Scalar = None
    machine: Scalar = None
    config: dict[str, Any] | None = Field(None, description="The options of the kernel's .config that decide whether "
                                                           "captures compare (--kernel-config).")


class HostCpu(_Open):
    model: Scalar = None
    count: Scalar = None
    online: Scalar = Field(None, description="The kernel's CPU list of online CPUs, e.g. '0-3'.")
    affinity: Scalar = Field(None, description="The CPUs the workload may run on, e.g. '2-3'.")
    governor: Scalar = None
    hypervisor: Scalar = None


class HostClock(_Open):
    utc_offset_s: int | None = Field(None, description="The host's local time minus UTC, in seconds, when the capture "
                                                        "started (3600 for CET): places perf stat's '# started on' "
                                                        "(ctime, the host's local time) on UTC. Absent: read as UTC.")
    timezone: str | None = Field(None, description="The local time zone's abbreviation, e.g. 'CET'.")


class Host(_Open):
    """Host facts; every field may be null when it could not be read (the notes say why)."""

    hostname: Scalar = None
    os: Scalar = None
    kernel: HostKernel | None = None
    cpu: HostCpu | None = None
    memory: dict[str, Any] | None = None
    virtualization: Scalar = None
    container: Scalar = None
    clock: HostClock | None = None
    tools: dict[str, Scalar] | None = None
    cgroup: dict[str, Any] | None = None
    targets: list[dict[str, Any]] | None = None
    lab: dict[str, Any] | None = None


class Source(_Open):
    """Where a bundle the server made came from: {"kind": "fio-terse", "file", "sha256"} for an
    upload of fio terse output (ingest/sweep.py wrap_terse); {"kind": "loose-files", "files"} for
    a bundle made from loose files (ingest/loose.py)."""

    kind: str
    file: str | None = None
    sha256: str | None = None
    files: list[Any] | None = None


class Manifest(_Open):
    format: Literal["iolens-bundle"]
    format_version: int
    collector: Collector
    label: str = Field(min_length=1, max_length=200)
    tags: dict[str, str] = Field(default_factory=dict)
    created_at: datetime
    host: Host = Field(default_factory=Host)
    workload: Workload
    runs: list[Run] = Field(min_length=1)
    artifacts: list[Artifact] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    source: Source | None = None

    @field_validator("format_version")
    @classmethod
    def _known_version(cls, v: int) -> int:
        if v not in SUPPORTED_FORMAT_VERSIONS:
            supported = ", ".join(str(s) for s in SUPPORTED_FORMAT_VERSIONS)
            raise ValueError(f"bundle format version {v} is not supported (this server reads {supported}); upgrade iolens")
        return v

    def all_artifacts(self) -> list[tuple[str | None, Artifact]]:
        """(run id or None, artifact) for every file the manifest lists."""
        out: list[tuple[str | None, Artifact]] = [(None, a) for a in self.artifacts]
        for run in self.runs:
            out.extend((run.id, a) for a in run.artifacts)
        return out

    def host_facts(self) -> dict[str, Any]:
        """The host facts as the collector recorded them (known and unknown fields, nothing added)."""
        return self.host.model_dump(mode="json", exclude_unset=True)


@dataclass(frozen=True)
class StoredManifest:
    """A manifest read back from the store: the model to read facts from, and the JSON as recorded
    to show a section whole (in the collector's own order, fields unknown to this server included)."""

    manifest: Manifest
    raw: dict[str, Any]

    def section(self, name: str) -> Any:
        return self.raw.get(name, {})


def stored_manifest(text: str) -> StoredManifest:
    """The manifest kept in the store (captures.manifest, checked at ingest), through the model."""
    raw = json.loads(text)
    return StoredManifest(Manifest.model_validate(raw), raw)


def capture_id(raw_manifest: dict[str, Any]) -> str:
    """First 16 hex digits of the SHA-256 of the canonical manifest (docs/bundle-format.md)."""
    canonical = json.dumps(raw_manifest, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:16]


def field_path(loc: tuple[int | str, ...]) -> str:
    """pydantic's ('runs', 0, 'artifacts', 1, 'sha256') -> 'runs[0].artifacts[1].sha256'."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += ("." if out else "") + str(part)
    return out or "(root)"


def describe_validation_error(exc: ValidationError) -> list[dict[str, str]]:
    return [{"field": field_path(tuple(e["loc"])), "message": e["msg"]} for e in exc.errors()]
