"""What sets captures apart before any number is compared: kernel release and .config, the
workload, and what makes numbers incomparable (views/comparison.py).

Part of the wire models (models/__init__.py): the OpenAPI schema and the frontend's client are generated from them."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class HostDiff(BaseModel):
    key: str
    values: dict[str, str | None] = Field(description="Keyed by capture id.")


class KernelOption(BaseModel):
    """One of the .config options that matter for a comparison, with each capture's value."""

    option: str = Field(description="CONFIG_LOCK_STAT, or 'preempt model' for the CONFIG_PREEMPT* choice.")
    why: str = Field(description="What the option changes in the numbers.")
    values: dict[str, str | None] = Field(description="Keyed by capture id; null: the capture has no .config.")


class Incomparable(BaseModel):
    """A difference that makes the captures' numbers not comparable as a kernel change."""

    what: Literal["accelerator", "cpu", "workload", "kernel-config"]
    message: str = Field(description="One sentence naming the values.")
    values: dict[str, str | None] = Field(description="Keyed by capture id.")


class ComparisonFacts(BaseModel):
    kernels: dict[str, str | None] = Field(description="Each capture's kernel release (host.kernel.release).")
    has_config: dict[str, bool] = Field(description="Whether the capture's bundle holds the kernel's .config (kernel-config).")
    kernel_options: list[KernelOption] = Field(
        description="The options that matter (preempt model, HZ, LOCK_STAT, BLK_DEV_IO_TRACE, debug options) whose values differ.")
    config_diff_count: int | None = Field(
        description="How many options of the whole .config differ (GET /api/compare/kernel-config lists them); null unless every capture has a .config.")
    warnings: list[Incomparable] = Field(description="Differences that make the numbers incomparable, worst first.")
    workload_diff: list[HostDiff] = Field(
        description="Workload facts that differ: workload.kind, fio.JOB.OPTION (per job), cmd.command, sweep.PARAM.")


class KernelConfigDiff(BaseModel):
    captures: list[str] = Field(description="Capture ids, in the order asked for.")
    has_config: dict[str, bool]
    options: list[HostDiff] = Field(description="Every .config option whose value differs ('n': not set), by name.")
    total_options: int = Field(description="Options named in any of the .config files.")
