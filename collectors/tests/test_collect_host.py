"""Host fact readers on text samples and fake sysfs trees, and once on this host."""

import os

from iolens_collect import host
from iolens_collect.host import (
    Facts,
    find_mount,
    merge_options,
    parse_mountinfo,
    parse_os_release,
    parse_scheduler,
)

MOUNTINFO = """\
22 27 0:21 / /proc rw,relatime - proc proc rw
27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard,errors=remount-ro
30 27 259:3 / /mnt/test rw,noatime shared:5 - xfs /dev/nvme0n1p1 rw,attr2,inode64,logbufs=8,logbsize=32k,noquota
31 27 259:3 /sub /srv/bind rw,noatime shared:5 - xfs /dev/nvme0n1p1 rw,attr2,inode64,noquota
32 27 0:45 / /mnt/my\\040disk rw,relatime - ext4 /dev/sdb1 rw
33 30 7:0 / /mnt/test/inner rw,relatime - ext4 /dev/loop0 rw
34 27 0:50 / /var/lib/docker/overlay2/abc/merged rw,relatime - overlay overlay rw,lowerdir=/l,upperdir=/u,workdir=/w
35 27 0:29 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate
"""


def test_parse_mountinfo_fields_and_escapes():
    mounts = parse_mountinfo(MOUNTINFO + "garbage line\n")
    assert len(mounts) == 8
    m = mounts[2]
    assert (m.dev, m.root, m.mountpoint, m.fstype, m.source) == (
        "259:3", "/", "/mnt/test", "xfs", "/dev/nvme0n1p1")
    assert m.mount_options == "rw,noatime"  # optional fields ("shared:5") skipped
    assert mounts[4].mountpoint == "/mnt/my disk"  # \040 is a space


def test_find_mount_by_device_and_longest_prefix():
    mounts = parse_mountinfo(MOUNTINFO)
    assert find_mount(mounts, "259:3", "/mnt/test/fio.0").mountpoint == "/mnt/test"
    # the same device mounted twice: the mountpoint that contains the path wins
    assert find_mount(mounts, "259:3", "/srv/bind/x").mountpoint == "/srv/bind"
    # a nested mount of another device is not picked for the outer device
    assert find_mount(mounts, "7:0", "/mnt/test/inner/f").source == "/dev/loop0"
    assert find_mount(mounts, "254:0", "/home/u/f").mountpoint == "/"
    assert find_mount(mounts, "0:45", "/mnt/my disk/f").fstype == "ext4"
    # device not in the table (another namespace): longest mountpoint containing the path
    assert find_mount(mounts, "9:9", "/mnt/test/x").mountpoint == "/mnt/test"
    # device known but path outside its mountpoints (bind seen from elsewhere): that device
    assert find_mount(mounts, "259:3", "/elsewhere").dev == "259:3"


def test_merge_options():
    assert merge_options("rw,relatime", "rw,attr2,inode64,logbufs=8,logbsize=32k,noquota") == \
        "rw,relatime,attr2,inode64,logbufs=8,logbsize=32k,noquota"


def test_parse_scheduler():
    assert parse_scheduler("none [mq-deadline] kyber bfq") == (
        "mq-deadline", ["none", "mq-deadline", "kyber", "bfq"])
    assert parse_scheduler("[none] mq-deadline") == ("none", ["none", "mq-deadline"])
    assert parse_scheduler("none") == ("none", ["none"])
    assert parse_scheduler(None) == (None, None)


def test_parse_os_release():
    text = 'NAME="Debian GNU/Linux"\nPRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\n# c\nID=debian\n'
    r = parse_os_release(text)
    assert r["PRETTY_NAME"] == "Debian GNU/Linux 12 (bookworm)" and r["ID"] == "debian"


def _write(root, rel, text):
    p = os.path.join(str(root), rel.lstrip("/"))
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, "w") as f:
        f.write(text)


def test_cgroup_v2(tmp_path):
    base = "/sys/fs/cgroup/user.slice/bench.scope"
    _write(tmp_path, base + "/cpu.weight", "100\n")
    _write(tmp_path, base + "/cpu.max", "max 100000\n")
    _write(tmp_path, base + "/io.max", "")
    facts = Facts(str(tmp_path))
    r = host.cgroup_facts(facts, "0::/user.slice/bench.scope\n", parse_mountinfo(MOUNTINFO))
    assert r == {"version": 2, "path": "/user.slice/bench.scope",
                 "controllers": {"cpu.weight": "100", "cpu.max": "max 100000", "io.max": ""}}


def test_cgroup_v1_hybrid(tmp_path):
    mountinfo = MOUNTINFO + (
        "40 35 0:30 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct\n"
        "41 35 0:31 /docker/abc /sys/fs/cgroup/cpuset rw - cgroup cgroup rw,cpuset\n"
    )
    _write(tmp_path, "/sys/fs/cgroup/cpu,cpuacct/docker/abc/cpu.shares", "512\n")
    _write(tmp_path, "/sys/fs/cgroup/cpuset/cpuset.cpus", "0-3\n")  # mount root = the cgroup
    facts = Facts(str(tmp_path))
    text = "3:cpuset:/docker/abc\n2:cpu,cpuacct:/docker/abc\n1:name=systemd:/x\n0::/\n"
    r = host.cgroup_facts(facts, text, parse_mountinfo(mountinfo))
    assert r["version"] == 1 and r["mode"] == "hybrid" and r["path"] == "/docker/abc"
    assert r["controllers"] == {"cpu.shares": "512", "cpuset.cpus": "0-3"}


def test_cgroup_unreadable_is_noted():
    facts = Facts("/nonexistent-root")
    assert host.cgroup_facts(facts, None, []) is None
    assert facts.notes and "cgroup" in facts.notes[0]


def test_virtualization_sources(tmp_path):
    facts = Facts(str(tmp_path))
    assert host.virtualization(facts, ["fpu", "sse"], "x86_64") == (None, "none")
    assert host.virtualization(facts, ["fpu", "hypervisor"], "x86_64") == ("unknown", "unknown")
    _write(tmp_path, "/sys/devices/system/clocksource/clocksource0/available_clocksource", "tsc kvm-clock\n")
    assert host.virtualization(facts, ["hypervisor"], "x86_64") == ("KVM", "kvm")
    _write(tmp_path, "/sys/class/dmi/id/sys_vendor", "QEMU\n")
    _write(tmp_path, "/sys/class/dmi/id/product_name", "Standard PC (Q35 + ICH9, 2009)\n")
    assert host.virtualization(facts, ["hypervisor"], "x86_64") == (
        "QEMU Standard PC (Q35 + ICH9, 2009)", "kvm")


def test_collect_on_this_host(tmp_path):
    target = str(tmp_path / "not-yet" / "fio.0")
    facts, notes = host.collect([target])
    assert facts["kernel"]["release"] == os.uname().release
    assert set(facts) >= {"hostname", "os", "kernel", "cpu", "memory", "virtualization", "tools",
                          "cgroup", "targets", "clock"}
    assert facts["cpu"]["count"] >= 1 and facts["memory"]["total_bytes"] > 0
    assert facts["tools"]["python"]
    t = facts["targets"][0]
    assert t["path"] == target
    fs = t["filesystem"]
    assert fs is not None and os.path.realpath(str(tmp_path)).startswith(fs["mountpoint"])
    if fs["source"].startswith("/dev/"):  # a block-backed file system: the device is found
        assert t["device"] is not None and t["device"]["dev"].count(":") == 1
    else:
        assert any(target in n for n in notes)
    assert all(isinstance(n, str) for n in notes)


def _fake_sysfs(root):
    """An NVMe disk with a partition, and a device-mapper volume on that partition."""
    disk = "/sys/devices/pci0000:00/nvme/nvme0/nvme0n1"
    for rel, text in {
        disk + "/dev": "259:0", disk + "/size": "2000409264",
        disk + "/queue/scheduler": "[none] mq-deadline", disk + "/queue/nr_requests": "1023",
        disk + "/queue/rotational": "0", disk + "/queue/logical_block_size": "512",
        disk + "/queue/physical_block_size": "4096", disk + "/device/model": "Samsung SSD 980 PRO 1TB",
        disk + "/device/firmware_rev": "5B2QGXA7",
        disk + "/nvme0n1p1/partition": "1", disk + "/nvme0n1p1/dev": "259:1",
        disk + "/nvme0n1p1/size": "2048",
        "/sys/devices/virtual/block/dm-0/dev": "253:0", "/sys/devices/virtual/block/dm-0/size": "1024",
        "/sys/devices/virtual/block/dm-0/dm/name": "vg-data",
        "/sys/devices/virtual/block/dm-0/queue/scheduler": "none",
    }.items():
        _write(root, rel, text + "\n")
    os.makedirs(os.path.join(str(root), "sys/dev/block"))
    os.symlink("../../devices/pci0000:00/nvme/nvme0/nvme0n1/nvme0n1p1",
               os.path.join(str(root), "sys/dev/block/259:1"))
    os.symlink("../../devices/virtual/block/dm-0", os.path.join(str(root), "sys/dev/block/253:0"))
    os.makedirs(os.path.join(str(root), "sys/devices/virtual/block/dm-0/slaves"))
    os.symlink("../../../../pci0000:00/nvme/nvme0/nvme0n1/nvme0n1p1",
               os.path.join(str(root), "sys/devices/virtual/block/dm-0/slaves/nvme0n1p1"))


def test_block_device_partition_takes_parent_facts(tmp_path):
    _fake_sysfs(tmp_path)
    d = host.block_device(Facts(str(tmp_path)), 259, 1)
    assert (d["name"], d["dev"], d["parent"]) == ("nvme0n1p1", "259:1", "nvme0n1")
    assert d["model"] == "Samsung SSD 980 PRO 1TB" and d["firmware"] == "5B2QGXA7"
    assert d["scheduler"] == "none" and d["schedulers"] == ["none", "mq-deadline"]
    assert d["nr_requests"] == 1023 and d["rotational"] is False
    assert d["physical_block_size"] == 4096
    assert d["size_bytes"] == 2048 * 512  # the partition's size, not the disk's


def test_block_device_device_mapper_lists_slaves(tmp_path):
    _fake_sysfs(tmp_path)
    facts = Facts(str(tmp_path))
    d = host.block_device(facts, 253, 0)
    assert d["name"] == "dm-0" and d["dm_name"] == "vg-data" and d["parent"] is None
    assert [s["name"] for s in d["slaves"]] == ["nvme0n1p1"]
    assert d["slaves"][0]["model"] == "Samsung SSD 980 PRO 1TB"
    assert host.block_device(facts, 8, 0) is None and any("8:0" in n for n in facts.notes)


def test_clock_facts_follow_the_timezone(monkeypatch):
    """The host's UTC offset, which places perf stat's '# started on' (the host's local time) on UTC."""
    import time

    if not hasattr(time, "tzset"):
        return
    try:
        for tz, offsets in (("UTC0", {0}), ("CET-1CEST,M3.5.0,M10.5.0/3", {3600, 7200}), ("EST5", {-18000})):
            monkeypatch.setenv("TZ", tz)
            time.tzset()
            c = host.clock_facts()
            assert c["utc_offset_s"] in offsets and c["timezone"] in {"UTC", "CET", "CEST", "EST"}
        # a winter instant in CET: one hour ahead of UTC
        monkeypatch.setenv("TZ", "CET-1CEST,M3.5.0,M10.5.0/3")
        time.tzset()
        assert host.clock_facts(1795000000.0) == {"utc_offset_s": 3600, "timezone": "CET"}  # 2026-11-18
    finally:
        monkeypatch.undo()
        time.tzset()
