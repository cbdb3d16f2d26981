# SPDX-License-Identifier: GPL-2.0
# Helpers shared by the project's host scripts. Source it; do not run it.
# shellcheck shell=bash

HALTPOLL_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HALTPOLL_OUT=${HALTPOLL_OUT:-$HALTPOLL_ROOT/out}
# Debian's kernel source package; the base every build starts from.
HALTPOLL_BASE_TARBALL=${HALTPOLL_BASE_TARBALL:-/usr/src/linux-source-6.12.tar.xz}

log() { printf '==> %s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# need_pkgs PKG... : install missing Debian packages, or say how to.
need_pkgs() {
	local missing=() pkg
	for pkg in "$@"; do
		dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null |
			grep -q 'install ok installed' || missing+=("$pkg")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ "$(id -u)" -ne 0 ]; then
		die "missing packages: ${missing[*]}; run: sudo apt-get install ${missing[*]}"
	fi
	log "installing ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >&2 ||
		{ apt-get update -q >&2 &&
		  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >&2; } ||
		die "could not install ${missing[*]}"
}

# arch_check ARCH : accept only the architectures the project supports.
arch_check() {
	case "$1" in
	x86_64|arm64) ;;
	*) die "unknown architecture '$1' (x86_64 or arm64)" ;;
	esac
}

# Per-architecture facts used by the build and the VM runner.
arch_kernel_image() {
	case "$1" in
	x86_64) echo arch/x86/boot/bzImage ;;
	arm64) echo arch/arm64/boot/Image ;;
	esac
}

arch_kbuild_arch() {
	case "$1" in
	x86_64) echo x86_64 ;;
	arm64) echo arm64 ;;
	esac
}

arch_cross_compile() {
	case "$1" in
	x86_64) echo "" ;;
	arm64) echo aarch64-linux-gnu- ;;
	esac
}

build_dir() { echo "$HALTPOLL_OUT/build-$1"; }
modules_dir() { echo "$HALTPOLL_OUT/modules-$1"; }
