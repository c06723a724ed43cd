#!/usr/bin/env bash
# Recreate the lock_stat datasets. This machine's kernel has no /proc/lock_stat (CONFIG_LOCK_STAT
# off), so each bundle pairs a REAL fio capture made here (4k random O_DIRECT writes to a file,
# libaio iodepth 32, 3 repeats of 5 s) with a lock_stat dump from elsewhere, attached with
# `iolens-collect run --lock-stat-snapshot`:
#   lockstat-kernel-doc/             the two dumps of the kernel's Documentation/locking/lockstat.rst
#                                    (the parser's golden tests read them from shared/corpus/lock_stat)
#   lockstat-zone-lock-reconstructed/  &zone->lock before/after, laid out by reconstruct-lockstat.py
#                                    from figures published on linux-kernel (see that script)
# Needs fio and python3; writes only under $WORK (removed at the end) and into datasets/ (or $OUT).
#
#   datasets/make-lockstat.sh
#   OUT=/var/tmp/try RUNTIME=1 REPEAT=1 datasets/make-lockstat.sh   # a short trial run elsewhere
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
CORPUS=${CORPUS:-$(dirname "$repo")/shared/corpus}
WORK=${WORK:-/var/tmp/iolens-datasets-lockstat}
RUNTIME=${RUNTIME:-5}
REPEAT=${REPEAT:-3}

rm -rf "$WORK"
work_dir
mkdir -p "$WORK/data"

job="--name=randwrite-4k --directory=$WORK/data --size=256m --rw=randwrite --bs=4k --ioengine=libaio --iodepth=32 --direct=1 --runtime=$RUNTIME --time_based"

capture() {  # capture OUTDIR NAME DUMPFILE LABEL TAG...
    local out=$1 name=$2 dump=$3 label=$4; shift 4
    local tags=()
    for t in "$@"; do tags+=(--tag "$t"); done
    cp "$dump" "$WORK/$name.lock_stat.txt"
    chmod 644 "$WORK/$name.lock_stat.txt"
    mkdir -p "$out"
    bundle "$out" "$name" run --label "$label" "${tags[@]}" --tag "fio=this machine" --repeat "$REPEAT" \
        --lock-stat-snapshot "$name.lock_stat.txt" --fio-args="$job" -o "$name.iolens.tar.gz"
    cp "$WORK/$name.lock_stat.txt" "$out/$name.lock_stat.txt"
}

machine() {
    cat <<MD
- host: $(host_line)
- kernel: $kernel ($(uname -v)); \`/proc/lock_stat\`: $( [ -e /proc/lock_stat ] && echo present || echo "absent (CONFIG_LOCK_STAT off)")
- fio: $(fio --version), collector: iolens-collect $(collector_version)
- fio job: \`$job\` (a file on the root file system; \`$WORK\` removed afterwards), $REPEAT repeats
MD
}

# --- the kernel documentation's examples ------------------------------------------------------
doc="$OUT/lockstat-kernel-doc"
rm -rf "$doc"
capture "$doc" kernel-doc-example1 "$CORPUS/lock_stat/linux-doc-lockstat.rst_example1_denumbered.txt" \
    "lock_stat from lockstat.rst example 1, fio from this machine" "lock_stat=kernel doc example 1"
capture "$doc" kernel-doc-example2 "$CORPUS/lock_stat/linux-doc-lockstat.rst_example2-subclass_denumbered.txt" \
    "lock_stat from lockstat.rst example 2, fio from this machine" "lock_stat=kernel doc example 2"
cat > "$doc/RECIPE.md" <<MD
# lock_stat from the kernel documentation, fio from this machine

Two bundles, each a **real fio capture made here** with a **lock_stat dump that was not measured
here** attached to it (\`iolens-collect run --lock-stat-snapshot\`): this machine's kernel has no
\`/proc/lock_stat\`. The lock figures and the fio figures do not come from the same run, so per-I/O
lock figures mean nothing beyond showing how the view works.

| bundle | lock_stat | fio |
|---|---|---|
| \`kernel-doc-example1.iolens.tar.gz\` | \`kernel-doc-example1.lock_stat.txt\`: example 1 of the kernel's Documentation/locking/lockstat.rst (\`&mm->mmap_sem\` -W/-R, \`unix_table_lock\`), line numbers of the document removed | this machine |
| \`kernel-doc-example2.iolens.tar.gz\` | \`kernel-doc-example2.lock_stat.txt\`: example 2 of the same document (\`&rq->lock\` and its subclass \`&rq->lock/1\`), an excerpt without the header | this machine |

The dumps are the files of \`shared/corpus/lock_stat/\` that the parser's golden tests read
(\`*_denumbered.txt\`). Made by \`datasets/make-lockstat.sh\` on $today (UTC).

## Machine
$(machine)

## Result, as the collector printed it
example 1:
\`\`\`
$(results kernel-doc-example1)
\`\`\`
example 2:
\`\`\`
$(results kernel-doc-example2)
\`\`\`
MD

# --- reconstructed from published figures ----------------------------------------------------
rec="$OUT/lockstat-zone-lock-reconstructed"
rm -rf "$rec"
python3 "$here/reconstruct-lockstat.py" "$WORK/reconstructed" >/dev/null
capture "$rec" zone-lock-5.11-rc5-vanilla "$WORK/reconstructed/5.11-rc5-vanilla.lock_stat.txt" \
    "reconstructed lock_stat: &zone->lock, 5.11-rc5 vanilla; fio from this machine" \
    "lock_stat=reconstructed" "lock_stat_kernel=5.11-rc5 vanilla"
capture "$rec" zone-lock-5.11-rc5-revert "$WORK/reconstructed/5.11-rc5-revert.lock_stat.txt" \
    "reconstructed lock_stat: &zone->lock, 5.11-rc5 revert; fio from this machine" \
    "lock_stat=reconstructed" "lock_stat_kernel=5.11-rc5 revert"
cat > "$rec/RECIPE.md" <<MD
# Reconstructed lock_stat (&zone->lock, 5.11-rc5 vanilla vs revert), fio from this machine

**Reconstructed**: the lock_stat files here are not dumps taken on a machine. They are laid out by
\`datasets/reconstruct-lockstat.py\` in the kernel's /proc/lock_stat format from the figures that
Mel Gorman published on linux-kernel on 2021-01-28 ("Re: [RFC PATCH v0] mm/slub: Let number of
online CPUs determine the slub page order", Message-ID
<20210128134512.GF3592@techsingularity.net>,
https://lore.kernel.org/all/20210128134512.GF3592@techsingularity.net/): the \`&zone->lock\` class,
with its contention and contending points, of hackbench-process-sockets on a 2-socket 40-core
machine running 5.11-rc5 ("vanilla") and 5.11-rc5 with the SLUB patch reverted ("revert"). The post
shows only that class, so only that class is here. Every number is the published one.

Each is attached (\`iolens-collect run --lock-stat-snapshot\`) to a **real fio capture made here**:
the lock figures and the fio figures do not come from the same machine or workload. Per-I/O lock
figures therefore mean nothing; the totals and the change between the two are the published ones
(vanilla waits 2.2x as long in total and is contended 1.6x as often).

| bundle | lock_stat |
|---|---|
| \`zone-lock-5.11-rc5-vanilla.iolens.tar.gz\` | \`zone-lock-5.11-rc5-vanilla.lock_stat.txt\` (reconstructed) |
| \`zone-lock-5.11-rc5-revert.iolens.tar.gz\` | \`zone-lock-5.11-rc5-revert.lock_stat.txt\` (reconstructed) |

Made by \`datasets/make-lockstat.sh\` on $today (UTC); \`python3
datasets/reconstruct-lockstat.py DIR\` writes the two lock_stat files again.

## Machine (fio only)
$(machine)

## Result, as the collector printed it
vanilla:
\`\`\`
$(results zone-lock-5.11-rc5-vanilla)
\`\`\`
revert:
\`\`\`
$(results zone-lock-5.11-rc5-revert)
\`\`\`
MD
echo "wrote $doc and $rec" >&2
