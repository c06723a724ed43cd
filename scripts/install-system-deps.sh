#!/usr/bin/env bash
# Install the Debian packages that iolens's tests and demo need: fio (captures), linux-perf
# (perf record/stat), chromium (browser tests), and for the kernel lab (docs/lab.md) qemu, the
# file system tools and blktrace that run in its guests. LAB_BUILD=1 adds what building kernels
# needs (compiler, flex, bison, libelf, ccache, Debian's linux-source-6.12). As root it installs
# them; otherwise it prints the exact command to run. Safe to run again: it only installs what is
# missing.
set -euo pipefail

need=()
command -v fio >/dev/null 2>&1 || need+=(fio)
command -v perf >/dev/null 2>&1 || need+=(linux-perf)
[ -x /usr/bin/chromium ] || need+=(chromium)
command -v qemu-system-x86_64 >/dev/null 2>&1 || need+=(qemu-system-x86)
command -v mkfs.xfs >/dev/null 2>&1 || need+=(xfsprogs)
command -v mkfs.ext4 >/dev/null 2>&1 || need+=(e2fsprogs)
command -v blktrace >/dev/null 2>&1 || need+=(blktrace)
if [ "${LAB_BUILD:-0}" = 1 ]; then
    for pkg in build-essential flex bison bc libelf-dev libssl-dev ccache cpio kmod linux-source-6.12; do
        dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
    done
fi
for pkg in "${EXTRA_PACKAGES[@]:-}"; do [ -n "$pkg" ] && ! dpkg -s "$pkg" >/dev/null 2>&1 && need+=("$pkg"); done

if [ ${#need[@]} -eq 0 ]; then
    exit 0
fi
cmd="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${need[*]}"
if [ "$(id -u)" -ne 0 ]; then
    echo "iolens needs these Debian packages: ${need[*]}" >&2
    echo "run as root:  sudo sh -c '$cmd'" >&2
    exit 1
fi
echo "installing ${need[*]} ..." >&2
sh -c "$cmd" >/tmp/iolens-apt.log 2>&1 || { tail -20 /tmp/iolens-apt.log >&2; exit 1; }
