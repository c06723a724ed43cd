#!/usr/bin/env bash
# Recreate the probe datasets (perf probes of iolens-collect: --stacks, --sched, --block, and the
# workload placement --cgroup/--cpu-weight/--cpus), each bundle in its own folder with a RECIPE.md:
#
#   stacks   datasets/stacks-ext4/, datasets/stacks-xfs/: the same fio job (4k random O_DIRECT
#            writes, libaio, iodepth 32) on ext4 and on XFS loop devices, with --stacks (issue 3)
#   sched    datasets/sched-pinned/, datasets/sched-pinned-w1000/: that job pinned to CPU 1
#            (--cpus 1) next to a busy loop pinned to the same CPU, outside any cgroup and inside a
#            cgroup with cpu.weight 1000 (cpu.shares 10240 on this cgroup-v1 host), with --sched
#            (issue 4's pair)
#   block    datasets/block-loop/: 4k random reads and writes on an ext4 loop device with --block
#            and fio's own logs on the same clock (--fio-logs 100) (issue 8)
#   block-vda  datasets/block-vda/: the same job on the device that holds $WORK (the host's own
#            disk, shared with everything else running), traced with --block (issue 8)
#   offcpu   datasets/offcpu-xfs-dio/: 4k O_DIRECT writes (libaio, iodepth 4) on an XFS loop
#            device pinned to CPU 1, with --offcpu and --sched: off-CPU and wakeup stacks, the
#            completion kworker's side of the ping-pong (issue 17)
#   ramp     datasets/xfs-unwritten-ramp-stacks/: scenario 1's unwritten-extent ramp (4k random
#            O_DIRECT writes, libaio, iodepth 32, into a new preallocated 1 GiB file on an XFS loop
#            device, 3 x 20 s) with --stacks and fio's logs on the stacks' clock (issue 17's
#            subsecond heatmap and ramp-vs-steady range difference)
#
# Needs root (losetup, mkfs, mount, perf system-wide, cgroups), fio, perf, xfsprogs. Writes only to
# files it creates under $WORK, to the loop devices it attaches, and to the cgroup the collector
# creates and removes; removes all of them at the end.
#
#   sudo datasets/make-probes.sh                 # all six
#   sudo datasets/make-probes.sh sched           # one of them
#   sudo OUT=/var/tmp/try datasets/make-probes.sh   # elsewhere, leaving datasets/ alone
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
WORK=${WORK:-/var/tmp/iolens-probe-datasets}
what=("$@")
[ ${#what[@]} -gt 0 ] || what=(stacks sched block block-vda offcpu ramp)
# the RECIPE's device line; the block-vda part says its own
loopline="loop devices over 2 GiB sparse files (\`truncate -s 2G\`) on the host's ext4 root
  (virtio disk vda), made with default \`mkfs\` and mount options; scheduler as the kernel set it."
devline=$loopline

work_dir

load() { cut -d' ' -f1-3 /proc/loadavg; }
others() {  # the busiest processes over half a second (top's second sample), to say what else ran
    top -b -n2 -d0.5 | awk '/^top -/ {n++} n == 2 && $1 ~ /^[0-9]+$/ && $9 + 0 > 2 && $12 != "top" {printf "%s %s%%, ", $12, $9}' \
        | sed 's/, $//' | head -c 300
}

machine_line() {  # the RECIPE's line on what else ran: a quiet moment (1-minute load under 1.5,
                  # nothing above 2% of a CPU) or a busy one, with the figures either way
    if [ -z "$busy" ] && awk '{exit !($1 < 1.5)}' <<<"$before"; then
        echo "- **A quiet moment on a shared machine**: nothing else above 2% of a CPU just before (top)."
        echo "  Load average (1, 5, 15 min) before the capture: $before; after: $after (the longer averages"
        echo "  are other engineers' earlier builds and test suites). Expect less noise than beside them."
    else
        echo "- **Not an idle machine**: other engineers' test suites (browsers, node, pytest) ran on it at the"
        echo "  same time. Load average (1, 5, 15 min) before the capture: $before; after: $after. Other"
        echo "  processes above 2% of a CPU just before (top): ${busy:-none}. Expect noise between repeats and captures."
    fi
}

stacks_table() {  # stacks_table BUNDLE: for --stacks captures, per run: fio's IOPS, the samples of
                  # all CPUs and fio's, and those converting unwritten extents (nothing otherwise)
    python3 - "$1" <<'PY'
import gzip, json, sys, tarfile
CONVERT = ("ext4_convert_unwritten_extents", "xfs_iomap_write_unwritten")
t = tarfile.open(sys.argv[1])
m = json.load(t.extractfile("manifest.json"))
rows = []
for r in m["runs"]:
    if not (r.get("probes") or {}).get("stacks"):
        continue
    txt = t.extractfile(f"runs/{r['id']}/fio.json").read().decode()
    iops = json.loads(txt[txt.index("{"):])["jobs"][0]["write"]["iops"]
    total = fio = 0
    conv = dict.fromkeys(CONVERT, 0)
    for block in gzip.decompress(t.extractfile(f"runs/{r['id']}/perf.script.gz").read()).decode().split("\n\n"):
        lines = block.strip("\n").split("\n")
        if not lines[0].strip():
            continue
        total += 1
        fio += lines[0].split()[0] == "fio"
        frames = {ln.split()[1].split("+")[0] for ln in lines[1:] if len(ln.split()) > 1}
        for f in CONVERT:
            conv[f] += f in frames
    rows.append(f"| {r['id']} | {iops / 1000:.1f}k | {total} | {fio} | " + " | ".join(str(conv[f]) for f in CONVERT) + " |")
if rows:
    print("## Per run (computed from the bundle)")
    print()
    print("Samples of both CPUs, of fio's threads, and with a frame that converts unwritten extents "
          "(ext4's on the host's root and on an ext4 loop device, XFS's on an XFS one).")
    print()
    print("| run | fio write IOPS | samples | fio's | " + " | ".join(CONVERT) + " |")
    print("|---|---|---|---|" + "---|" * len(CONVERT))
    print("\n".join(rows))
    print()
PY
}

capture() {  # capture LABEL OUTDIR WHAT NOTES [collector args...]
    local label=$1 out=$2 what=$3 notes=$4; shift 4
    local args=(run --label "$label" "$@" -o "$label.iolens.tar.gz")
    fresh_dir "$out"
    local before after busy size
    before=$(load)
    busy=$(others)
    bundle "$out" "$label" "${args[@]}"
    after=$(load)
    size=$(stat -c %s "$out/$label.iolens.tar.gz")
    cat > "$out/RECIPE.md" <<MD
# $label

$what

A real capture, made by \`datasets/make-probes.sh\` on $today (UTC). Bundle: $size bytes.

## Machine
- host: $(host_line), a KVM guest
- kernel: $kernel ($(uname -v)); cgroups: $(grep -q ' - cgroup cgroup .*cpu' /proc/self/mountinfo && echo "v1 cpu hierarchy (hybrid host)" || echo v2)
- fio: $(fio --version), $(perf --version), collector: iolens-collect $(collector_version)
- device: $devline
$(machine_line)

## Commands (as root)
\`\`\`sh
$(setup_cmds)
$(collector_cmd "${args[@]}")
\`\`\`

## Result, as the collector printed it
\`\`\`
$(results "$label")
\`\`\`

$(python3 - "$out/$label.iolens.tar.gz" <<'PY'
# For --sched captures: per run, fio's IOPS, context switches per second on each CPU (perf stat,
# over the time the counters were enabled) and fio's own usr/sys CPU and context switches.
import json, sys, tarfile
t = tarfile.open(sys.argv[1])
m = json.load(t.extractfile("manifest.json"))
rows = []
for r in m["runs"]:
    p = (r.get("probes") or {}).get("sched")
    if not p or not p.get("duration_s"):
        continue
    cs = {}
    for ln in t.extractfile(f"runs/{r['id']}/perf-stat.csv").read().decode().splitlines():
        f = [x.strip() for x in ln.split(",")]
        if len(f) > 4 and not ln.startswith("#") and f[4] == "context-switches" and not f[2].startswith("<"):
            cs[f[1]] = cs.get(f[1], 0) + int(f[2])
    txt = t.extractfile(f"runs/{r['id']}/fio.json").read().decode()
    j = json.loads(txt[txt.index("{"):])["jobs"][0]
    d = p["duration_s"]
    per_cpu = ", ".join(f"{c} {n / d / 1000:.1f}k" for c, n in sorted(cs.items()))
    rows.append(f"| {r['id']} | {j['write']['iops'] / 1000:.1f}k | {per_cpu} | {j['usr_cpu']:.0f}% / {j['sys_cpu']:.0f}% "
                f"| {j['ctx'] / (j['job_runtime'] / 1000) / 1000:.1f}k |")
frows = []
for r in m["runs"]:  # --fio-logs with --block: where fio's IOPS log lies on the run's time axis
    logs = [a for a in r["artifacts"] if a["kind"] == "fio-log" and a.get("log") == "iops"]
    if not logs or not (r.get("probes") or {}).get("block"):
        continue
    for a in logs:
        ts = [int(ln.split(",")[0]) for ln in t.extractfile(a["path"]).read().decode().splitlines() if ln.strip()]
        t0 = a.get("trace_clock_at_start_ns")
        if a.get("clock") != "CLOCK_MONOTONIC" or t0 is None or not ts:
            frows.append(f"| {r['id']} | {a['path']} | {a.get('clock', 'job')}: not aligned | | |")
        else:
            frows.append(f"| {r['id']} | {a['path']} | {a['clock']}, {a['avg_msec']} ms windows | "
                         f"{ts[0] - t0 // 10**6} ms | {ts[-1] - t0 // 10**6} ms |")
if frows:
    print("## fio's IOPS logs on the run's time axis (computed from the bundle)")
    print()
    print("| run | log | clock | first entry, since the run's start | last entry |")
    print("|---|---|---|---|---|")
    print("\n".join(frows))
    print()
if rows:
    print("## Per run (computed from the bundle)")
    print()
    print("| run | fio write IOPS | context switches/s per CPU (perf stat) | fio usr / sys CPU | fio ctx/s |")
    print("|---|---|---|---|---|")
    print("\n".join(rows))
    print()
PY
)

$(stacks_table "$out/$label.iolens.tar.gz")

## Notes (manifest \`notes\`)
$(python3 - "$out/$label.iolens.tar.gz" <<'PY'
import json, sys, tarfile
with tarfile.open(sys.argv[1]) as t:
    m = json.load(t.extractfile("manifest.json"))
for n in m["notes"]:
    print("- " + n.replace("\n", " "))
PY
)

$notes
MD
}

job() {  # job DIR SIZE RUNTIME [extra fio options]
    local dir=$1 size=$2 rt=$3; shift 3
    echo "--name=randwrite-4k --directory=$dir --size=$size --rw=randwrite --bs=4k --ioengine=libaio --iodepth=32 --direct=1 --runtime=$rt --time_based $*"
}

for w in "${what[@]}"; do
    case $w in
    stacks)
        make_fs ext4
        make_fs xfs
        setup_cmds() { echo 'truncate -s 2G FS.img && dev=$(losetup -f --show FS.img) && mkfs.FS $dev && mount $dev mnt-FS   # FS = ext4 or xfs'; }
        for fs in ext4 xfs; do
            capture "$kernel-$fs-stacks" "$OUT/stacks-$fs" \
                "4k random O_DIRECT writes (libaio, iodepth 32, a 256 MiB file, 4 x 3 s) on $fs over a loop device, with call stacks of both CPUs (\`--stacks --freq 199\`: perf record -a -g, frame pointers): the flame graphs of the ext4-vs-xfs pair." \
                "- Compare with the other stacks-* capture: the same job on the other file system. The first repeat writes into a new file (fio's default fallocate: unwritten extents, converted at I/O completion), the next ones into the same file, converting only the extents the earlier ones left unwritten: few when fio runs fast, many in the second repeat when it runs slowly on a busy machine (the table above counts the samples that convert). Four repeats: the difference flame graph, like the fio tables, judges no change from fewer than 3 repeats a side." \
                --tag "fs=$fs" --tag device=loop --repeat 4 --stacks --freq 199 \
                --fio-args="$(job "$WORK/mnt-$fs" 256m 3)"
        done
        ;;
    sched)
        [ -n "${DEV[xfs]:-}" ] || make_fs xfs
        setup_cmds() { cat <<'S'
truncate -s 2G xfs.img && dev=$(losetup -f --show xfs.img) && mkfs.xfs $dev && mount $dev mnt-xfs
taskset -c 1 sh -c 'while :; do :; done' &   # the competing load, on fio's CPU, in the root cgroup
S
        }
        taskset -c 1 sh -c 'while :; do :; done' & hogs+=($!)
        sleep 1
        capture "$kernel-sched-pinned" "$OUT/sched-pinned" \
            "4k random O_DIRECT writes (libaio, iodepth 32, 256 MiB file on XFS over a loop device, 3 x 1 s) pinned to CPU 1 (\`--cpus 1\`, like taskset -c 1), next to a shell busy-loop pinned to the same CPU, fio in the collector's own cgroup (the root): the baseline of issue 4's pair, with scheduler events and per-CPU counters (\`--sched\`)." \
            "- The pair: sched-pinned-w1000 runs the same job inside a cgroup with cpu.weight 1000. Here fio and the busy loop are both plain tasks of the root cgroup, each with the default weight, so they share CPU 1 about evenly." \
            --tag cgroup=none --tag cpus=1 --tag load=busy-loop-cpu1 --repeat 3 --cpus 1 --sched \
            --fio-args="$(job "$WORK/mnt-xfs" 256m 1)"
        capture "$kernel-sched-pinned-w1000" "$OUT/sched-pinned-w1000" \
            "The same pinned job and busy loop, with fio inside a cgroup the collector created with \`--cgroup iolens-w1000 --cpu-weight 1000\` (this host has cgroup v1's cpu hierarchy: cpu.shares 10240, ten times the root's tasks' 1024)." \
            "- The pair: sched-pinned is the same job outside any cgroup. With 10240 shares fio's group outweighs the busy loop and the kworkers of the root cgroup (among them the ones that complete fio's direct I/O on the loop device and convert XFS's unwritten extents): compare IOPS, context switches on CPU 1, and who preempts whom." \
            --tag cgroup=w1000 --tag cpus=1 --tag load=busy-loop-cpu1 --repeat 3 --cpus 1 --sched \
            --cgroup iolens-w1000 --cpu-weight 1000 --fio-args="$(job "$WORK/mnt-xfs" 256m 1)"
        for p in "${hogs[@]}"; do kill "$p" 2>/dev/null || true; done
        hogs=()
        ;;
    block)
        [ -n "${DEV[ext4]:-}" ] || make_fs ext4
        setup_cmds() { echo 'truncate -s 2G ext4.img && dev=$(losetup -f --show ext4.img) && mkfs.ext4 $dev && mount $dev mnt-ext4'; }
        capture "$kernel-block-loop" "$OUT/block-loop" \
            "4k random reads and writes, half each (libaio, iodepth 16, O_DIRECT, a 256 MiB file, fio limited to 6000 reads/s + 6000 writes/s, 2 x 3 s) on ext4 over a loop device, with its block-layer events (\`--block ${DEV[ext4]}\`) and fio's own bandwidth, IOPS and latency logs averaged over 100 ms (\`--fio-logs 100\`), written on CLOCK_MONOTONIC like the block events, so that the block cell draws fio's IOPS on the same time axis." \
            "- blktrace was refused on this VM (see the notes above), so the events are perf's block tracepoints filtered in the kernel to the loop device, with perf stat counting the same tracepoints (perf-stat-block) so that lost completions show. The loop device's own I/O to its backing file (on vda) is not in the trace.
- fio's logs start where its job started, after its setup: 1.0 s after the run's start in r000 (fio first lays out its 256 MiB file: the burst of large writes at 0.5 s), 0.3 s in r001. The job's last ~100 ms have no entry (fio writes none for a window the job does not finish), so fio's line ends before the device's." \
            --tag fs=ext4 --tag device=loop --repeat 2 --block "${DEV[ext4]}" --fio-logs 100 \
            --fio-args="--name=randrw-4k --directory=$WORK/mnt-ext4 --size=256m --rw=randrw --rwmixread=50 --bs=4k --ioengine=libaio --iodepth=16 --direct=1 --rate_iops=6000,6000 --runtime=3 --time_based"
        ;;
    block-vda)
        dir="$WORK/on-root-fs"
        mkdir -p "$dir"
        src=$(df --output=source "$dir" | tail -1)
        disk=$(basename "$(readlink -f "$src")")
        sched=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "/sys/block/$disk/queue/scheduler" 2>/dev/null); sched=${sched:-?}
        devline="/dev/$disk, the disk that holds $WORK ($(df --output=fstype "$dir" | tail -1) as mounted by the host; I/O scheduler: $sched). It is the machine's own disk: every other process's I/O to it is traced too."
        setup_cmds() { echo "mkdir -p $dir   # on $src"; }
        capture "$kernel-block-$disk" "$OUT/block-$disk" \
            "4k random reads and writes, half each (libaio, iodepth 16, O_DIRECT, a 256 MiB file, fio limited to 3000 reads/s + 3000 writes/s, 2 x 3 s) in a directory on the host's root file system, with the block-layer events of the disk under it (\`--block $disk\`) and fio's own logs on the same clock (\`--fio-logs 100\`): the device that holds the temporary directory, to overlay with block-loop." \
            "- blktrace was refused on this VM, so the events are perf's block tracepoints filtered in the kernel to $disk, with perf stat counting the same tracepoints. On this VM perf record has lost most interrupt-context completions of $disk before (DESIGN.md, \"Facts measured\"): when it does, the capture is marked and every block view warns; the notes above say what was counted and what was recorded.
- The disk is shared: the other processes' reads and writes (journal commits, other sessions' builds) are in the trace with fio's, so the device's IOPS is fio's plus theirs." \
            --tag fs=host-root --tag "device=$disk" --repeat 2 --block "$disk" --fio-logs 100 \
            --fio-args="--name=randrw-4k --directory=$dir --size=256m --rw=randrw --rwmixread=50 --bs=4k --ioengine=libaio --iodepth=16 --direct=1 --rate_iops=3000,3000 --runtime=3 --time_based"
        devline=$loopline
        ;;
    offcpu)
        [ -n "${DEV[xfs]:-}" ] || make_fs xfs
        setup_cmds() { echo 'truncate -s 2G xfs.img && dev=$(losetup -f --show xfs.img) && mkfs.xfs $dev && mount $dev mnt-xfs'; }
        capture "$kernel-offcpu-xfs-dio" "$OUT/offcpu-xfs-dio" \
            "4k random O_DIRECT writes (libaio, iodepth 4, a 16 MiB file on XFS over a loop device, fio limited to 3000 IOPS, 1 x 1 s) pinned to CPU 1 (\`--cpus 1\`), with off-CPU and wakeup stacks (\`--offcpu --offcpu-stacks kernel\`: perf record -a -g --kernel-callchains of sched_switch and sched_waking) and the scheduler trace (\`--sched\`): where fio and the kworkers that complete its writes wait, weighted by time off the CPU, and who wakes whom (issue 17)." \
            "- Kept small (< 2 MB): one repeat of 1 s, rate-limited, kernel frames only (the browsers and compilers of the other sessions have deep user stacks: with them the same capture was 3.1 MB). The whole machine is recorded (-a): the other engineers' processes are in the stacks too; the offcpu cell lists fio's threads first, and the ping-pong table's fio rows open the pair." \
            --tag fs=xfs --tag device=loop --tag cpus=1 --cpus 1 --offcpu --offcpu-stacks kernel --sched \
            --fio-args="--name=randwrite-4k --directory=$WORK/mnt-xfs --size=16m --rw=randwrite --bs=4k --ioengine=libaio --iodepth=4 --direct=1 --rate_iops=3000 --runtime=1 --time_based"
        python3 "$here/offcpu-shows.py" "$OUT/offcpu-xfs-dio/$kernel-offcpu-xfs-dio.iolens.tar.gz" >> "$OUT/offcpu-xfs-dio/RECIPE.md"
        ;;
    ramp)
        [ -n "${DEV[xfs]:-}" ] || make_fs xfs
        setup_cmds() { echo 'truncate -s 2G xfs.img && dev=$(losetup -f --show xfs.img) && mkfs.xfs $dev && mount $dev mnt-xfs'; }
        # unlink=1: fio removes its file after each repeat, so every repeat preallocates a new one
        # (fio's default fallocate: all of its extents start unwritten) and ramps again.
        capture "$kernel-xfs-unwritten-ramp-stacks" "$OUT/xfs-unwritten-ramp-stacks" \
            "4k random O_DIRECT writes (libaio, iodepth 32) for 20 s into a new 1 GiB file on XFS over a loop device, preallocated by fio (posix_fallocate: every extent starts unwritten and the first write to each block converts it), 3 repeats, each into a new file (\`unlink=1\`), with call stacks of both CPUs (\`--stacks --freq 99\`: perf record -a -g, frame pointers) and fio's bandwidth, IOPS and latency logs averaged over 250 ms (\`--fio-logs 250\`) on CLOCK_MONOTONIC, the clock of the stacks, each log with the run's clock reading at fio's start: scenario 1's ramp with the stacks of the slow first seconds and of the steady state, for the subsecond heatmap, the timeline and the difference of two time ranges (issue 17)." \
            "- No block-layer or scheduler events: at 40k-200k IOPS a 20 s run is 2-4 million writes, each at least two block events (issue, completion) and about as many context switches; block-loop's 2 x 3 s of 12k I/Os/s already take 1.5 MB. The stacks and fio's logs are what the range difference needs; sched-pinned and block-loop show those cells.
- 1 GiB and 20 s: on this machine the ramp (about 40k IOPS) lasted about 6 s in a trial run before these, then IOPS climbed within 3 s, which leaves about 10 s of steady state to select." \
            --tag fs=xfs --tag device=loop --tag fallocate=fallocate --repeat 3 --stacks --freq 99 --fio-logs 250 \
            --fio-args="$(job "$WORK/mnt-xfs" 1g 20 --unlink=1)"
        { echo; python3 "$here/ramp-shows.py" "$OUT/xfs-unwritten-ramp-stacks/$kernel-xfs-unwritten-ramp-stacks.iolens.tar.gz"; } >> "$OUT/xfs-unwritten-ramp-stacks/RECIPE.md"
        ;;
    *) echo "unknown dataset $w (stacks, sched, block, block-vda, offcpu, ramp)" >&2; exit 2 ;;
    esac
done
