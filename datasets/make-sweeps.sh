#!/usr/bin/env bash
# Recreate the sweep datasets (docs/sweeps.md), all real captures made on this machine:
#   sweep-fs-dio/      the same fio sweep (rw x bs x iodepth, 3 repeats of 1 s each point, with
#                      fio's IOPS/bw/latency logs) on ext4 and on XFS, each on its own loop device
#   sweep-scheduler/   4k random reads at iodepth 32 on XFS swept over the loop device's I/O scheduler
#   sweep-bulkstat/    `iolens-collect cmd`: XFS bulkstat of 50,000 inodes swept over the batch size
#                      (ninodes), ioctl version 5 and version 1, caches dropped before each run
#   xfs-unwritten-ramp/  4k random O_DIRECT writes into a preallocated (fallocate) file on XFS
#                      vs the same with --fallocate=none, IOPS over time from fio's logs
# Needs root (losetup, mkfs, mount, drop_caches, the I/O scheduler), fio and xfsprogs. Writes only to
# files it creates under $WORK and to the loop devices it attaches; removes both at the end.
#
#   sudo datasets/make-sweeps.sh                        # writes the four folders above
#   sudo ONLY=sweep-bulkstat datasets/make-sweeps.sh    # only these (comma-separated)
#   sudo OUT=/var/tmp/try REPEAT=2 RAMP=1 datasets/make-sweeps.sh   # a short trial run elsewhere (2 repeats:
#                                                       # the RECIPEs quote the mean lines)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
WORK=${WORK:-/var/tmp/iolens-sweeps}
RUNTIME=${RUNTIME:-1}
REPEAT=${REPEAT:-3}
RAMP=${RAMP:-15}
ONLY=${ONLY:-sweep-fs-dio,sweep-scheduler,sweep-bulkstat,xfs-unwritten-ramp}
want() { [[ ",$ONLY," == *",$1,"* ]]; }

work_dir

machine() {
    cat <<MD
## Machine
- host: $(host_line), a KVM guest
- kernel: $kernel ($(uname -v))
- fio: $(fio --version), xfsprogs: $(mkfs.xfs -V | head -1), collector: iolens-collect $(collector_version)
- devices: loop devices over 2 GiB files (\`truncate -s 2G\`) on the host's ext4 root, made with
  \`mkfs.ext4\` / \`mkfs.xfs\` and default mount options
MD
}

made_here() {  # made_here WHO ("Real captures"): the RECIPE's lines that say by what, when and where
    echo "$1, made by \`datasets/make-sweeps.sh\` on $today (UTC)."
    echo
    machine
    echo
}

printed() {  # printed LINES [NAME PREFIX]...: the RECIPE's block of the collector's result lines of
             # each bundle NAME (LINES: results, or means), each line after PREFIX
    local lines=$1; shift
    echo '```'
    while [ $# -gt 0 ]; do "$lines" "$1" | sed "s/^/$2/"; shift 2; done
    echo '```'
}

make_fs ext4
make_fs xfs

# --- sweep-fs-dio: rw x bs x iodepth on ext4 and XFS -------------------------------------------------
if want sweep-fs-dio; then
out="$OUT/sweep-fs-dio"
fresh_dir "$out"
for fs in ext4 xfs; do
    label="$kernel-$fs-dio-sweep"
    cat > "$WORK/dio-$fs.toml" <<TOML
# O_DIRECT random I/O swept over direction, block size and queue depth (datasets/make-sweeps.sh)
label = "$label"
repeat = $REPEAT
tags = { fs = "$fs", device = "loop" }

[fio]
args = "--name=dio --directory=$WORK/mnt-$fs --size=256m --ioengine=libaio --direct=1 --runtime=$RUNTIME --time_based --group_reporting"
logs = 250

[sweep]
rw = ["randread", "randwrite"]
bs = ["4k", "16k"]
iodepth = [1, 8, 32]
TOML
    bundle "$out" "$label" sweep "dio-$fs.toml" -o "$label.iolens.tar.gz"
    cp "$WORK/dio-$fs.toml" "$out/"
done
{
    echo "# sweep-fs-dio"
    echo
    echo "The same fio sweep on ext4 and on XFS, each on its own loop device: 4k and 16k random reads and"
    echo "writes, O_DIRECT, libaio, at iodepth 1, 8 and 32; each point $REPEAT times for $RUNTIME s, with fio's"
    echo "IOPS, bandwidth and latency logs averaged over 250 ms. Short runs on purpose (small bundles):"
    echo "the spread between repeats is real and large, which is what the confidence intervals show."
    echo
    made_here "Real captures"
    echo "## Commands (as root, from \$WORK, with the plans beside this file)"
    echo '```sh'
    echo "PYTHONPATH=collectors python3 -m iolens_collect sweep dio-ext4.toml -o $kernel-ext4-dio-sweep.iolens.tar.gz"
    echo "PYTHONPATH=collectors python3 -m iolens_collect sweep dio-xfs.toml -o $kernel-xfs-dio-sweep.iolens.tar.gz"
    echo "iolens report --baseline $kernel-ext4-dio-sweep --metric iops --metric clat_p99"
    echo '```'
    echo
    echo "## Result, as the collector printed it (means per point)"
    printed means "$kernel-ext4-dio-sweep" "ext4 " "$kernel-xfs-dio-sweep" "xfs  "
} > "$out/RECIPE.md"
fi

# --- sweep-scheduler: the loop device's I/O scheduler as a swept parameter --------------------------
if want sweep-scheduler; then
out="$OUT/sweep-scheduler"
fresh_dir "$out"
label="$kernel-xfs-scheduler-sweep"
cat > "$WORK/sched.toml" <<TOML
# 4k random reads at iodepth 32 on XFS, per I/O scheduler of the loop device (datasets/make-sweeps.sh)
label = "$label"
repeat = $REPEAT
tags = { fs = "xfs", device = "loop" }

[fio]
args = "--name=randread-4k --directory=$WORK/mnt-xfs --size=256m --rw=randread --bs=4k --ioengine=libaio --iodepth=32 --direct=1 --runtime=$RUNTIME --time_based"

[sweep]
scheduler = ["none", "mq-deadline", "kyber", "bfq"]

[scheduler]
device = "${DEV[xfs]}"
TOML
bundle "$out" "$label" sweep sched.toml -o "$label.iolens.tar.gz"
sed "s#${DEV[xfs]}#loopN#" "$WORK/sched.toml" > "$out/sched.toml"
{
    echo "# sweep-scheduler"
    echo
    echo "4k random O_DIRECT reads (libaio, iodepth 32) on XFS over a loop device, swept over the loop"
    echo "device's I/O scheduler (none, mq-deadline, kyber, bfq), $REPEAT x $RUNTIME s each. The collector sets"
    echo "/sys/block/loopN/queue/scheduler before each point and sets it back at the end."
    echo
    made_here "A real capture"
    echo "## Result, as the collector printed it"
    printed means "$label" ""
} > "$out/RECIPE.md"
fi

# --- sweep-bulkstat: any command as the workload ------------------------------------------------------
if want sweep-bulkstat; then
out="$OUT/sweep-bulkstat"
fresh_dir "$out"
mnt="$WORK/mnt-xfs"
mkdir -p "$mnt/tree"
for d in $(seq 0 199); do mkdir "$mnt/tree/d$d" && (cd "$mnt/tree/d$d" && touch $(seq -f 'f%g' 0 249)); done
sync
for v in 5 1; do
    label="$kernel-xfs-bulkstat-v$v"
    # The command: drop the caches (bulkstat then reads the inode clusters from the device), time
    # bulkstat of the whole file system with batches of {ninodes}, print the inode count and the rate.
    script="sync; echo 3 > /proc/sys/vm/drop_caches; n=\$(df --output=iused $mnt | tail -1 | tr -d ' '); t0=\$(date +%s%N); xfs_io -c 'bulkstat -q -v $v -n {ninodes}' $mnt; t1=\$(date +%s%N); echo \"iolens-metric inodes \$n inodes\"; echo \"iolens-metric rate \$(( n * 1000000000 / (t1 - t0) )) inodes/s\""
    bundle "$out" "$label" cmd --label "$label" --tag fs=xfs --tag "ioctl=v$v" --repeat "$REPEAT" \
        --sweep ninodes=64,256,1024,4096 --device "${DEV[xfs]}" -o "$label.iolens.tar.gz" -- sh -c "$script"
done
{
    echo "# sweep-bulkstat"
    echo
    echo "\`iolens-collect cmd\`: XFS bulkstat of a file system holding 50,000 empty files (200 directories"
    echo "of 250), swept over the batch size (\`bulkstat -n\`: 64, 256, 1024, 4096 inodes per call), with the"
    echo "bulkstat ioctl of version 5 and of version 1, $REPEAT repeats each. The page cache is dropped before"
    echo "each run, so the inode clusters are read from the loop device. Per run: wall time, user and"
    echo "system CPU (wait4 rusage), the device's read IOPS and bandwidth (/proc/diskstats), and the two"
    echo "figures the command prints: the inode count and the rate in inodes/s. The same measurements as"
    echo "the linux-xfs bulkstat batch size thread (2013), at small scale."
    echo
    made_here "Real captures"
    echo "## Result, as the collector printed it"
    printed means "$kernel-xfs-bulkstat-v5" "v5 " "$kernel-xfs-bulkstat-v1" "v1 "
} > "$out/RECIPE.md"
rm -rf "$mnt/tree"
fi

# --- xfs-unwritten-ramp: IOPS over time, preallocated file vs not --------------------------------------
if want xfs-unwritten-ramp; then
out="$OUT/xfs-unwritten-ramp"
fresh_dir "$out"
for mode in fallocate none; do
    label="$kernel-xfs-randwrite-fallocate-$mode"
    [ "$mode" = fallocate ] && fa="" || fa=" --fallocate=none"
    # unlink=1: fio removes the file after each repeat, so every repeat starts from a new file.
    bundle "$out" "$label" run --label "$label" --tag fs=xfs --tag "fallocate=$mode" --repeat 2 --fio-logs 500 \
        --fio-args="--name=randwrite-4k --directory=$WORK/mnt-xfs --size=1g --rw=randwrite --bs=4k --ioengine=libaio --iodepth=32 --direct=1 --runtime=$RAMP --time_based --unlink=1$fa" \
        -o "$label.iolens.tar.gz"
done
{
    echo "# xfs-unwritten-ramp"
    echo
    echo "4k random O_DIRECT writes (libaio, iodepth 32) for $RAMP s into a new 1 GiB file on XFS: with fio's"
    echo "default preallocation (posix_fallocate: the file's extents start unwritten, and the first write"
    echo "to each block converts it) and with --fallocate=none. IOPS, bandwidth and latency over time from"
    echo "fio's logs averaged over 500 ms, 2 repeats each (the file is removed after each repeat:"
    echo "unlink=1). Scenario 1 of DESIGN.md at small scale, on a loop device."
    echo
    made_here "Real captures"
    echo "## Result, as the collector printed it"
    printed results "$kernel-xfs-randwrite-fallocate-fallocate" "fallocate " "$kernel-xfs-randwrite-fallocate-none" "none      "
} > "$out/RECIPE.md"
fi

echo "done: $OUT/sweep-fs-dio $OUT/sweep-scheduler $OUT/sweep-bulkstat $OUT/xfs-unwritten-ramp"
