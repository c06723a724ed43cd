#!/usr/bin/env bash
# Install the Debian packages that iolens's tests and demo need: fio (captures), linux-perf
# (perf record/stat), chromium (browser tests), and for the kernel lab (docs/lab.md) qemu, the
# file system tools and blktrace that run in its guests. LAB_BUILD=1 adds what building kernels
# needs (compiler, flex, bison, libelf, ccache, Debian's linux-source-6.12). As root it installs
# them; otherwise it prints the exact command to run. Safe to run again: it only installs what is
# missing.
#
# Rust: backend/native is built by `uv sync` through maturin with cargo, and its dependencies
# (pyo3 0.30 and others) need Rust >= RUST_MIN. Where no such cargo is found (rustup's in
# ~/.cargo/bin, or any on PATH), it installs Debian's rustc-web and cargo-web (1.85+ in bookworm's
# security updates; Debian's plain rustc 1.63 is too old), with their rustfmt and clippy for
# `make test-rust`. `install-system-deps.sh --check-rust` only says whether the cargo found will do.
set -euo pipefail

RUST_MIN=1.85
rust_ok() {
    local v
    v=$(PATH="$HOME/.cargo/bin:$PATH" cargo --version 2>/dev/null | awk '{print $2}') || true
    [ -n "$v" ] && [ "$(printf '%s\n%s\n' "$RUST_MIN" "${v%%-*}" | sort -V | head -n1)" = "$RUST_MIN" ]
}
if [ "${1:-}" = --check-rust ]; then
    rust_ok && exit 0
    found=$(PATH="$HOME/.cargo/bin:$PATH" cargo --version 2>/dev/null || echo "no cargo")
    echo "iolens builds backend/native with Rust >= $RUST_MIN, found: $found." >&2
    echo "Run \`make deps-system\` as root (it installs Debian's rustc-web and cargo-web), or install rustup." >&2
    exit 1
fi

need=()
rust_ok || need+=(rustc-web cargo-web rustfmt-web rust-web-clippy)
command -v fio >/dev/null 2>&1 || need+=(fio)
command -v perf >/dev/null 2>&1 || need+=(linux-perf)
[ -x /usr/bin/chromium ] || need+=(chromium)
command -v qemu-system-x86_64 >/dev/null 2>&1 || need+=(qemu-system-x86)
command -v mkfs.xfs >/dev/null 2>&1 || need+=(xfsprogs)
command -v mkfs.ext4 >/dev/null 2>&1 || need+=(e2fsprogs)
command -v blktrace >/dev/null 2>&1 || need+=(blktrace)
# depmod: the lab installs a Debian kernel's modules for its guests (iolens_lab/debian.py)
command -v depmod >/dev/null 2>&1 || need+=(kmod)
# busybox: virtme-ng builds the guest's initramfs from it when the kernel's disk drivers are modules
# (Debian's kernels), and wants the static build: without it the guests stop at "a statically linked
# busybox could not be found"
dpkg -s busybox-static >/dev/null 2>&1 || need+=(busybox-static)
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
