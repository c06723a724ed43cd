#!/usr/bin/env bash
# Two small real block-layer captures for the browser tests of the block cell (block.spec.ts):
# the same 4k random-read job on ext4 over a loop device, once with iodepth 1 and once with
# iodepth 32, each one 3 s run (fio lays its 64 MiB file out first: a burst of writes at the start), recorded with `iolens-collect run --block LOOPDEV`.
# Needs root (losetup, mkfs, mount), fio, and blktrace or perf. Writes only under OUTDIR and to the
# loop device it attaches; detaches and removes both at the end. Nothing here is committed.
#
#   frontend/e2e/make-block-bundles.sh OUTDIR     # -> OUTDIR/block-qd1.iolens.tar.gz, block-qd32.iolens.tar.gz
set -euo pipefail
out=${1:?usage: make-block-bundles.sh OUTDIR}
repo=$(cd "$(dirname "$0")/../.." && pwd)
RUNTIME=${RUNTIME:-3}
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d /var/tmp/iolens-block-e2e.XXXXXX)
dev=''
cleanup() {
    if mountpoint -q "$work/mnt" 2>/dev/null; then
        for _ in 1 2 3 4 5; do umount "$work/mnt" 2>/dev/null && break; sleep 1; done
    fi
    [ -n "$dev" ] && losetup -d "$dev" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

truncate -s 512M "$work/ext4.img"
dev=$(losetup -f --show "$work/ext4.img")
mkfs.ext4 -q -F "$dev"
mkdir -p "$work/mnt"
mount "$dev" "$work/mnt"

for qd in 1 32; do
    (cd "$work" && PYTHONPATH="$repo/collectors" python3 -m iolens_collect run \
        --label "ext4 loop randread 4k qd$qd" --tag fs=ext4 --tag device=loop --tag "iodepth=$qd" \
        --block "$dev" \
        --fio-args="--name=randread-4k --directory=$work/mnt --filename=data-qd$qd --size=64m --rw=randread --bs=4k --ioengine=libaio --iodepth=$qd --direct=1 --runtime=$RUNTIME --time_based" \
        -o "block-qd$qd.iolens.tar.gz") >&2
    mv "$work/block-qd$qd.iolens.tar.gz" "$out/"
done
ls "$out"/block-qd*.iolens.tar.gz
