"""Captures: the list, the upload answer and the detail page.

Part of the wire models (models/__init__.py): the OpenAPI schema and the frontend's client are generated from them."""

from __future__ import annotations

from pydantic import BaseModel, Field


class CaptureBase(BaseModel):
    id: str = Field(description="Capture id: first 16 hex digits of the SHA-256 of the canonical manifest.")
    label: str


class CaptureCreated(CaptureBase):
    created: bool = Field(description="False when the same bundle had already been ingested.")
    runs: int
    warnings: list[str] = Field(default_factory=list, description="Things ingest noticed but accepted.")


class CapturePublic(CaptureBase):
    tags: dict[str, str]
    kernel: str | None = Field(description="host.kernel.release")
    hostname: str | None
    created_at: str = Field(description="When the capture started (RFC 3339, UTC).")
    ingested_at: str
    workload_kind: str
    workload_summary: str | None = Field(description="e.g. 'randwrite bs=4k iodepth=32 libaio direct=1'.")
    runs: int = Field(description="Number of runs (workload executions).")
    repeats: int = Field(description="Largest number of repeats of one parameter point.")
    bundle_sha256: str
    bundle_bytes: int
    warnings: list[str]
    artifact_kinds: list[str] = Field(default_factory=list,
                                      description="Kinds of the bundle's artifacts ('fio-json', ...): what data it holds.")


class ProbeCount(BaseModel):
    event: str = Field(description="Tracepoint, e.g. 'block:block_rq_complete'.")
    recorded: int | None = Field(description="Events in the recording's text.")
    counted: int | None = Field(description="perf stat's count of the same event over the run.")


class ProbePublic(BaseModel):
    """What one perf probe of a run recorded and what it cost (the manifest's runs[].probes.NAME)."""

    probe: str = Field(description="stacks | sched | block (the collector flag: --stacks, --sched, --block).")
    source: str | None = Field(description="perf or blktrace (block); perf otherwise.")
    tool: str | None = Field(description="The recorder's version, e.g. 'perf version 6.1.187'.")
    duration_s: float | None = Field(description="Seconds the events were enabled (the workload's run).")
    events: int | None = Field(description="Samples or events recorded.")
    events_per_s: float | None
    perf_cpu_s: float | None = Field(description="CPU seconds of the perf record process over the run.")
    perf_cpu_pct: float | None = Field(
        description="perf_cpu_s / duration_s, in % of one CPU: the recorder's overhead in user space "
        "(the kernel's cost of the tracepoints or sampling is not in it).")
    stat_perf_cpu_s: float | None = Field(description="CPU seconds of the perf stat that counted the same events.")
    data_bytes: int | None = Field(description="perf.data (or the blktrace files) as recorded, before conversion.")
    artifact_bytes: int | None = Field(description="The compressed text kept in the bundle.")
    size_cap_mb: int | None = Field(description="--probe-max-mb: perf record --max-size.")
    size_cap_reached: bool = Field(description="The recording stopped at the cap: it covers only part of the run.")
    counts: list[ProbeCount] = Field(description="Recorded vs counted, per tracepoint (sched, block).")
    lost: list[str] = Field(description="Tracepoints recorded below 90% of their count (and more than 32 short).")


class RunPublic(BaseModel):
    id: str
    index: int
    repeat: int
    params: dict[str, object]
    started_at: str | None
    ended_at: str | None
    exit_code: int | None
    cmdline: list[str]
    probes: list[ProbePublic] = Field(default_factory=list, description="The perf probes of the run, if any.")


class ArtifactPublic(BaseModel):
    run_id: str | None
    kind: str
    path: str
    size: int
    sha256: str


class HostFact(BaseModel):
    key: str = Field(description="Dotted key of the flattened host facts, e.g. 'targets.0.device.scheduler'.")
    value: str | None


class CaptureDetail(CapturePublic):
    collector: dict[str, object]
    workload: dict[str, object]
    host: list[HostFact]
    runs_detail: list[RunPublic]
    artifacts: list[ArtifactPublic]
    notes: list[str]
