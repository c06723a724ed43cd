# Shared by the datasets/make-*.sh scripts, which source it from their own folder:
#
#   here=$(cd "$(dirname "$0")" && pwd)
#   . "$here/lib.sh"
#
# It sets repo (the checkout), kernel (uname -r), today (UTC) and OUT, the folder that receives the
# dataset folders: datasets/ itself unless OUT names another one (a trial run that must leave the
# committed bundles alone: OUT=/var/tmp/try sudo datasets/make-fs-pair.sh). Each script sets its own
# WORK, the scratch folder for file systems, logs and bundles in the making, before calling work_dir.
repo=$(dirname "$here")
kernel=$(uname -r)
today=$(date -u +%Y-%m-%d)
OUT=${OUT:-$here}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

loops=()    # loop devices attached, detached at exit
mounts=()   # mount points, unmounted at exit
hogs=()     # busy loops started by the script, stopped at exit
declare -A DEV   # file system type -> the name of its loop device (loop2), set by make_fs

cleanup() {
    for p in "${hogs[@]:-}"; do [ -n "$p" ] && kill "$p" 2>/dev/null || true; done
    pkill -TERM -P $$ 2>/dev/null || true   # an interrupted collector stops fio and perf, removes its files and cgroup
    wait 2>/dev/null || true
    for m in "${mounts[@]:-}"; do
        [ -n "$m" ] || continue
        for _ in 1 2 3 4 5; do umount "$m" 2>/dev/null && break; sleep 1; done
    done
    for l in "${loops[@]:-}"; do [ -n "$l" ] && losetup -d "$l" 2>/dev/null || true; done
    rm -rf "$WORK"
}

work_dir() {  # work_dir: make $WORK; at exit, even an interrupted one, undo all of the above and remove it
    mkdir -p "$WORK"
    trap cleanup EXIT
    trap 'exit 130' INT TERM
}

make_fs() {  # make_fs TYPE: a loop device over a sparse 2 GiB file $WORK/TYPE.img, made with mkfs.TYPE
             # (ext4 or xfs, default options), mounted at $WORK/mnt-TYPE; DEV[TYPE] names the device
    local fs=$1 img="$WORK/$1.img" mnt="$WORK/mnt-$1" dev
    case $fs in
        xfs|ext4) ;;
        *) echo "make_fs: ext4 or xfs, not $fs" >&2; return 2 ;;
    esac
    truncate -s 2G "$img"
    dev=$(losetup -f --show "$img")
    loops+=("$dev")
    case $fs in
        xfs) mkfs.xfs -q -f "$dev" ;;
        ext4) mkfs.ext4 -q -F "$dev" ;;
    esac
    mkdir -p "$mnt"
    mount "$dev" "$mnt"
    mounts+=("$mnt")
    DEV[$fs]=${dev#/dev/}
}

fresh_dir() {  # fresh_dir DIR: DIR, empty
    rm -rf "$1"
    mkdir -p "$1"
}

collector() {  # collector ARGS...: iolens-collect ARGS, run from $WORK (the manifest records the
               # collector's argv and cwd: with relative paths they name nothing of this checkout)
    (cd "$WORK" && PYTHONPATH="$repo/collectors" python3 -m iolens_collect "$@")
}

bundle() {  # bundle OUTDIR NAME ARGS...: collector ARGS, which writes NAME.iolens.tar.gz (-o), its
            # output also kept in $WORK/NAME.log; then the bundle moved into OUTDIR
    local out=$1 name=$2; shift 2
    collector "$@" 2>&1 | tee "$WORK/$name.log"
    mv "$WORK/$name.iolens.tar.gz" "$out/"
}

results() {  # results NAME: the collector's result lines of bundle NAME, per run and the mean
    grep -E '^(r[0-9]+|mean) ' "$WORK/$1.log"
}

means() {  # means NAME: only the mean lines (per sweep point)
    grep -E '^mean ' "$WORK/$1.log"
}

# --- for the RECIPE.md files -------------------------------------------------------------------------
host_line() {  # the host: name, CPU model, CPUs, RAM
    echo "$(hostname), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) CPUs, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo) RAM"
}

collector_version() {
    (cd "$repo/collectors" && python3 -m iolens_collect --version | awk '{print $NF}')
}

collector_cmd() {  # collector_cmd ARGS...: the command line that runs the collector with ARGS from a checkout
    echo "PYTHONPATH=collectors python3 -m iolens_collect $(printf '%q ' "$@")"
}
