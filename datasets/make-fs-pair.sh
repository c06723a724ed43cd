#!/usr/bin/env bash
# Recreate the ext4-vs-xfs datasets: the same fio job (4k random O_DIRECT writes, libaio,
# iodepth 32, 3 repeats of 10 s) on an ext4 and on an XFS file system, each on its own loop device
# backed by a 2 GiB file. The third capture repeats the XFS run with two CPU hogs competing.
# Needs root (losetup, mkfs, mount), fio and xfsprogs. Writes only to files it creates under
# $WORK and to the loop devices it attaches; removes both at the end.
#
#   sudo datasets/make-fs-pair.sh            # writes datasets/fs-*/ bundles
#   sudo OUT=/var/tmp/try RUNTIME=1 REPEAT=1 datasets/make-fs-pair.sh   # a short trial run elsewhere
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
WORK=${WORK:-/var/tmp/iolens-datasets}
RUNTIME=${RUNTIME:-10}
REPEAT=${REPEAT:-3}

work_dir

job() {  # job DIR -> fio arguments
    echo "--name=randwrite-4k --directory=$1 --size=1g --rw=randwrite --bs=4k --ioengine=libaio --iodepth=32 --direct=1 --fallocate=none --runtime=$RUNTIME --time_based --group_reporting"
}

capture() {  # capture LABEL FS OUTDIR WHAT [extra collector args...]
    local label=$1 fs=$2 out=$3 what=$4; shift 4
    local args=(run --label "$label" --tag "fs=$fs" --tag "device=loop" "$@"
                --repeat "$REPEAT" --fio-args="$(job "$WORK/mnt-$fs")" -o "$label.iolens.tar.gz")
    fresh_dir "$out"
    bundle "$out" "$label" "${args[@]}"
    recipe "$out" "$label" "$fs" "$what" "${args[@]}"
}

recipe() {  # recipe OUTDIR LABEL FS WHAT COLLECTOR-ARGS...
    local out=$1 label=$2 fs=$3 what=$4; shift 4
    cat > "$out/RECIPE.md" <<MD
# $label

$what

A real capture, made by \`datasets/make-fs-pair.sh\` on $today (UTC).

## Machine
- host: $(host_line), a KVM guest
- kernel: $kernel ($(uname -v))
- fio: $(fio --version), collector: iolens-collect $(collector_version)
- device: a loop device over a 2 GiB file (\`truncate -s 2G\`) on the host's ext4 root, made with
  \`mkfs.$fs\` ($( [ "$fs" = xfs ] && mkfs.xfs -V | head -1 || mkfs.ext4 -V 2>&1 | head -1)) and default mount options;
  the loop device's scheduler is left as the kernel set it.

## Commands (as root)
\`\`\`sh
truncate -s 2G $fs.img && dev=\$(losetup -f --show $fs.img) && mkfs.$fs \$dev && mount \$dev mnt-$fs
$(collector_cmd "$@")
\`\`\`

## Result, as the collector printed it
\`\`\`
$(results "$label")
\`\`\`

## Notes
- Made on a machine meant to be otherwise idle (check with \`ps\` while it runs) apart from the
  busy-loops that the cpuhog capture adds on purpose.
- The first repeat is always slower (on the machine above, about 65-70 % of the later ones).
  While it ran, \`ps\` showed the host-side kworkers \`ext4-rsv-conversion\` and \`flush-7:0\`: the
  loop device writes through the page cache into a sparse image file, so the first pass over the
  image allocates and converts its extents on the host file system. That is a real effect of
  this setup, kept in the data; compare repeats 2-3 for steady state.
MD
}

make_fs ext4
make_fs xfs
capture "$kernel-ext4" ext4 "$OUT/fs-ext4" \
    "4k random O_DIRECT writes (libaio, iodepth 32, 1 GiB file, $REPEAT x $RUNTIME s) on ext4 over a loop device."
capture "$kernel-xfs" xfs "$OUT/fs-xfs" \
    "The same job on XFS over a loop device: the ext4-vs-xfs comparison of the demo."
# Two busy loops, one per CPU, at the same priority as fio: the same XFS job when the CPUs are contended.
for _ in 1 2; do (while :; do :; done) & hogs+=($!); done
capture "$kernel-xfs-cpuhog" xfs "$OUT/fs-xfs-cpuhog" \
    "The same XFS job while two shell busy-loops (one per CPU, same priority as fio) compete for the CPUs." \
    --tag "load=2-cpu-hogs"
