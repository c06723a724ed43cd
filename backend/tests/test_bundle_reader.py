"""The bundle reader's two ways of inflating a .tar.gz (issue 17: ingest's speed): the native core
inflates the archive into a plain tar that tarfile reads and copies from (`reader._inflated`), and
when it refuses the stream, Python's gzip module reads it as before. Both must unpack the same
files, and refuse the same archives with the same message and status."""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path

import pytest
from bundles import add_file, fio_capture, write_bundle, write_tar

from iolens.bundle import BundleError, Limits, open_bundle, reader

REPO = Path(__file__).resolve().parents[2]
DATASETS = sorted((REPO / "datasets").glob("*/*.iolens.tar.gz"))


def _tree(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def _outcome(path: Path, limits: Limits = Limits()) -> tuple[str, object]:
    """What open_bundle makes of `path`: the unpacked files and the archive's digest, or the refusal."""
    try:
        with open_bundle(path, "b.tar.gz", limits) as b:
            return "ok", (_tree(b.root), b.sha256, b.capture_id, b.unlisted)
    except BundleError as exc:
        return "refused", (str(exc), exc.status)


def _python_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reader, "_inflated", lambda archive, limits: None)


@pytest.mark.parametrize("bundle", DATASETS[:3], ids=lambda p: p.parent.name)
def test_native_and_python_inflating_unpack_the_same_files(bundle, monkeypatch):
    plain = reader._inflated(bundle, Limits())
    assert plain is not None  # the native core took it
    plain.close()
    native = _outcome(bundle)
    assert native[0] == "ok"
    files, digest, _, _ = native[1]  # type: ignore[misc]
    assert digest == hashlib.sha256(bundle.read_bytes()).hexdigest()
    assert "manifest.json" in files and len(files) > 1
    _python_only(monkeypatch)
    assert _outcome(bundle) == native


def _variants(tmp_path: Path) -> dict[str, tuple[Path, Limits]]:
    m, files = fio_capture("variants", [[{"iops": 10}]])
    add_file(m, files, "runs/r000/big.txt", b"perf-like text\n" * 50_000, "stdout", run=0)
    good = write_bundle(tmp_path / "good.tar.gz", m, files)
    raw = good.read_bytes()
    out: dict[str, tuple[Path, Limits]] = {"good": (good, Limits())}

    def variant(name: str, data: bytes, limits: Limits = Limits()) -> None:
        p = tmp_path / f"{name}.tar.gz"
        p.write_bytes(data)
        out[name] = (p, limits)

    variant("zero padded", raw + b"\0" * 4096)  # Python's gzip skips the padding; flate2 does not
    variant("two gzip members", raw + gzip.compress(b"\0" * 1024))
    variant("truncated", raw[: len(raw) // 2])
    damaged = bytearray(raw)
    damaged[-6] ^= 0xFF  # the CRC of the trailer
    variant("bad crc", bytes(damaged))
    variant("not a tar inside", gzip.compress(b"just text, not a tar archive\n" * 100))
    variant("over the total limit", raw, Limits(max_total_bytes=100_000))
    variant("over the member limit", raw, Limits(max_member_bytes=100_000))
    variant("too many members", raw, Limits(max_members=2))
    out["outside root"] = (write_tar(tmp_path / "escape.tar.gz", {
        "manifest.json": json.dumps(m).encode(), **files, "../evil": b"x"}), Limits())
    out["plain tar"] = (write_bundle(tmp_path / "plain.tar", m, files, gz=False), Limits())
    return out


def test_every_variant_is_read_or_refused_as_by_python_alone(tmp_path, monkeypatch):
    variants = _variants(tmp_path)
    native = {name: _outcome(p, limits) for name, (p, limits) in variants.items()}
    assert native["good"][0] == "ok" and native["plain tar"][0] == "ok"
    assert native["zero padded"][0] == "ok"
    assert reader._inflated(variants["zero padded"][0], Limits()) is None  # read by Python's gzip
    assert native["truncated"] == ("refused", native["truncated"][1]) and "truncated or corrupt" in native["truncated"][1][0]
    assert native["over the total limit"][1][1] == 413  # type: ignore[index]
    _python_only(monkeypatch)
    python = {name: _outcome(p, limits) for name, (p, limits) in variants.items()}
    assert native == python


def test_no_temporary_file_is_left(tmp_path, monkeypatch):
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    variants = _variants(tmp_path)
    for p, limits in variants.values():
        _outcome(p, limits)
    assert list((tmp_path / "tmp").iterdir()) == []
