"""The kernel's .config kept in a bundle (kind kernel-config) -> kernel_config, one row per option."""

from __future__ import annotations

from ..bundle import Artifact, OpenBundle
from ..formats.gz import read_plain
from ..formats.kconfig import parse_kconfig
from .parsed import Parsed

TABLE_COLUMNS: dict[str, tuple[str, ...]] = {
    "kernel_config": ("capture_id", "option", "value"),
}


def kernel_config_artifact(bundle: OpenBundle, run_id: str | None, art: Artifact, out: Parsed) -> None:
    options = parse_kconfig(read_plain(bundle.path(art.path), art.path), source=art.path)
    out.add("kernel_config", [(bundle.capture_id, k, v) for k, v in sorted(options.items())])
