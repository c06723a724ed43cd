#!/usr/bin/env python3
"""Benchmark: the kernel lab's boot-to-first-fio time and fio's IOPS in the guest (issue 13).

Runs `iolens-lab run` on a plan made here (Debian's 6.12 kernel, 2 vCPUs, 2 GB, an emulated NVMe
disk with XFS, 4k random O_DIRECT writes, libaio iodepth 32, 3 repeats of 3 s) under TCG, and
under KVM when a KVM test boot works on this host (the lab's own check). For each accelerator,
IOLENS_BENCH_RUNS times (default 2), it reports from the lab's progress lines:

- boot: from starting vng to the guest's first line (the lab's script running in the guest);
- first fio: from starting vng to the collector starting fio (mkfs and mount included);
- the IOPS of each repeat (fio's JSON, in the bundle).

Target: boot-to-first-fio under 120 s under TCG on 2 cores (a lab plan of 4 kernels is then
dominated by the captures, not the boots). Needs root, qemu-system-x86 and the lab's Debian kernel
(`make lab-kernel`). Prints the figures; record them in bench/README.md.
"""

from __future__ import annotations

import json
import os
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
COLLECTORS = REPO / "collectors"
RUNS = int(os.environ.get("IOLENS_BENCH_RUNS", "2"))
TARGET_S = 120.0
PACKAGE = "linux-image-6.12.117+deb12-amd64-unsigned"
PLAN = f"""\
label = "bench"
timeout = 1200
[guest]
cpus = 2
memory = "2G"
[disk]
size = "2G"
fs = "xfs"
[collect]
command = "run"
args = ["--fio-args", "--name=bench --directory={{dir}} --size=256m --rw=randwrite --bs=4k --ioengine=libaio --direct=1 --iodepth=32 --runtime=3 --time_based --ramp_time=0.5", "--repeat", "3"]
[kernels.deb612]
package = "{PACKAGE}"
"""
_STAMP = re.compile(r"^(\d\d):(\d\d):(\d\d) (.*)$")


def _secs(line: str) -> float:
    m = _STAMP.match(line)
    assert m
    return int(m.group(1)) * 3600 + int(m.group(2)) * 60 + int(m.group(3))


def one(accel: str, work: Path) -> dict:
    out = work / f"out-{accel}-{time.monotonic_ns()}"
    plan = work / "bench.toml"
    plan.write_text(PLAN)
    t0 = time.monotonic()
    r = subprocess.run([sys.executable, "-m", "iolens_lab", "run", str(plan), "-o", str(out), "--accel", accel,
                        "--echo"], cwd=COLLECTORS, capture_output=True, text=True)
    wall = time.monotonic() - t0
    lines = [ln for ln in r.stderr.splitlines() if _STAMP.match(ln)]
    boot = next((_secs(ln) for ln in lines if "booting (" in ln), None)
    up = next((_secs(ln) for ln in lines if "] guest up:" in ln), None)
    fio = next((_secs(ln) for ln in lines if "fio will create" in ln), None)
    bundle = out / "bench-deb612.iolens.tar.gz"
    if r.returncode != 0 or not bundle.exists() or None in (boot, up, fio):
        raise SystemExit(f"lab run under {accel} failed (exit {r.returncode}):\n{r.stderr[-3000:]}")
    iops = []
    with tarfile.open(bundle) as tar:
        m = json.load(tar.extractfile("manifest.json"))
        for run in m["runs"]:
            for a in run["artifacts"]:
                if a["kind"] == "fio-json":
                    j = json.load(tar.extractfile(a["path"]))
                    iops.append(round(j["jobs"][0]["write"]["iops"]))
    return {"boot_s": up - boot, "first_fio_s": fio - boot, "iops": iops, "wall_s": round(wall, 1),
            "release": m["host"]["kernel"]["release"], "cpu": m["host"]["cpu"]["model"]}


def main() -> int:
    sys.path.insert(0, str(COLLECTORS))
    from iolens_lab.accel import kvm_usable
    from iolens_lab.debian import debian_kernel

    kernel = debian_kernel(PACKAGE, lambda s: print(s, file=sys.stderr))
    usable, why = kvm_usable(kernel["vmlinuz"])
    accels = ["tcg"] + (["kvm"] if usable else [])
    load = os.getloadavg()
    print(f"host: {os.uname().release}, {os.cpu_count()} CPUs, load {load[0]:.1f}; KVM: "
          f"{'usable' if usable else 'not usable'} ({why})")
    ok = True
    with tempfile.TemporaryDirectory(prefix="iolens-lab-bench-") as tmp:
        for accel in accels:
            got = [one(accel, Path(tmp)) for _ in range(RUNS)]
            boots = [g["boot_s"] for g in got]
            fios = [g["first_fio_s"] for g in got]
            iops = [i for g in got for i in g["iops"]]
            print(f"{accel}: {got[0]['release']} on '{got[0]['cpu']}': boot to the guest's script "
                  f"{statistics.median(boots):.0f} s (runs {boots}), to the first fio "
                  f"{statistics.median(fios):.0f} s (runs {fios}); fio 4k randwrite QD32 IOPS median "
                  f"{statistics.median(iops):.0f} (repeats {iops}); whole lab run {[g['wall_s'] for g in got]} s")
            if accel == "tcg" and statistics.median(fios) > TARGET_S:
                ok = False
    print(f"target: boot-to-first-fio under TCG <= {TARGET_S:.0f} s: {'met' if ok else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
