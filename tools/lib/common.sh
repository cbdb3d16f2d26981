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

arch_qemu() {
	case "$1" in
	x86_64) echo qemu-system-x86_64 ;;
	arm64) echo qemu-system-aarch64 ;;
	esac
}

# need_qemu ARCH : install what booting an ARCH guest takes: QEMU, and
# for arm64 the cross compiler of the guest tools.
need_qemu() {
	case "$1" in
	x86_64) need_pkgs qemu-system-x86 ;;
	arm64) need_pkgs qemu-system-arm gcc-aarch64-linux-gnu ;;
	esac
}

arch_cross_compile() {
	case "$1" in
	x86_64) echo "" ;;
	arm64) echo aarch64-linux-gnu- ;;
	esac
}

# HALTPOLL_VARIANT: empty for the guest kernel, "debug" for its debug
# build (configs/debug-ARCH.config on top), "builtin" for the driver built
# in (configs/builtin-ARCH.config), each with its own build and modules
# directories. "stock" is Linux 6.12's own haltpoll, the baseline
# of the benchmark: the pristine base with only tools/build/stock/ applied,
# in a tree of its own under out/stock/, laid out as out/ is (src next to
# build-ARCH) so that ccache shares what the two trees have in common.
variant_suffix() {
	case "${HALTPOLL_VARIANT:-}" in
	""|stock) ;;
	*) echo "-$HALTPOLL_VARIANT" ;;
	esac
}
variant_out() {
	if [ "${HALTPOLL_VARIANT:-}" = stock ]; then
		echo "$HALTPOLL_OUT/stock"
	else
		echo "$HALTPOLL_OUT"
	fi
}
src_dir() { echo "$(variant_out)/src"; }
build_dir() { echo "$(variant_out)/build-$1$(variant_suffix)"; }
modules_dir() { echo "$(variant_out)/modules-$1$(variant_suffix)"; }

# built_uts ARCH VARIANT : the UTS_VERSION (what uname -v says: the
# build's number and date) of the kernel in the build directory of
# VARIANT ("" or stock). Read once, right after the build, so that every
# boot of a run is checked against the same build.
built_uts() {
	local f uts
	f="$(HALTPOLL_VARIANT=$2 build_dir "$1")/include/generated/utsversion.h"
	[ -r "$f" ] || die "$f: missing, the build did not finish"
	uts=$(sed -n 's/^#define UTS_VERSION "\(.*\)"$/\1/p' "$f")
	[ -n "$uts" ] || die "$f: no UTS_VERSION"
	echo "$uts"
}

# check_booted_build GUEST_OUTPUT UTS : fail unless the first "BUILD
# VERSION" line the guest printed (its uname -v) is UTS (built_uts()): a
# kernel rebuilt in the same out/ during a run, or one left from another
# tree, would be measured under this commit's name. vmlinux only: a
# rebuilt module leaves uname -v as it was.
check_booted_build() {
	local booted
	booted=$(sed -n 's/^BUILD //p' "$1" | head -1)
	[ -n "$booted" ] || die "$1: the guest printed no BUILD line"
	[ "$booted" = "$2" ] ||
		die "$1: booted '$booted', but the run built '$2'"
}

# forget_variant : for a script that names each boot's kernel itself
# (--variant stock, or none for the project's). tools/build/run and
# tools/vm take HALTPOLL_VARIANT from the environment when given no
# --variant, so one exported for another command would build and boot that
# kernel in the project's slot, and boots that print no BUILD line would
# measure it as the project's.
forget_variant() {
	unset HALTPOLL_VARIANT
}

# variant_check NAME : accept the kernel variants the project builds.
variant_check() {
	case "$1" in
	""|debug|builtin|stock) ;;
	*) die "unknown variant '$1' (debug, builtin, stock, or none)" ;;
	esac
}

# guest_tools ARCH : build the project's static guest programs for ARCH
# (tools/guest/*.c) into out/guest-ARCH when their source changed, and
# print that directory.
guest_tools() {
	local dir="$HALTPOLL_OUT/guest-$1" cc src bin
	cc="$(arch_cross_compile "$1")gcc"
	mkdir -p "$dir"
	for src in "$HALTPOLL_ROOT"/tools/guest/*.c; do
		bin="$dir/$(basename "$src" .c)"
		if [ ! -x "$bin" ] || [ "$src" -nt "$bin" ]; then
			"$cc" -O2 -Wall -Wextra -static -o "$bin" "$src" || return 1
		fi
	done
	echo "$dir"
}

# install_guest_tools ARCH DIR : the static guest programs for ARCH, into
# DIR of a guest's root; stop if one does not build.
install_guest_tools() {
	local dir
	dir=$(guest_tools "$1") || die "a static guest program does not build for $1"
	cp "$dir"/* "$2/"
}

# kbuild_setup_cc ARCH : set HALTPOLL_CC to the kernel compiler for ARCH,
# through ccache if present, with ccache's environment exported.
kbuild_setup_cc() {
	HALTPOLL_CC=$(arch_cross_compile "$1")gcc
	command -v ccache >/dev/null || return 0
	HALTPOLL_CC="ccache $HALTPOLL_CC"
	# Relative paths in the cache keys: trees elsewhere under out/ with
	# the same layout (a source tree next to its build directory) share
	# the cache.
	export CCACHE_BASEDIR="$HALTPOLL_OUT" CCACHE_NOHASHDIR=1
	# The map only strips the tree's own absolute path from __FILE__;
	# ccache does not rewrite it as it rewrites -I.
	export CCACHE_IGNOREOPTIONS='-fmacro-prefix-map=*'
}

# kbuild SRC BUILD_DIR ARCH MAKE_ARGS... : make in kernel tree SRC, out of
# tree in BUILD_DIR, cross-compiling for ARCH, through ccache if present.
kbuild() {
	local src=$1 bdir=$2 arch=$3
	shift 3
	kbuild_setup_cc "$arch"
	make -C "$src" O="$bdir" ARCH="$(arch_kbuild_arch "$arch")" \
		CROSS_COMPILE="$(arch_cross_compile "$arch")" CC="$HALTPOLL_CC" "$@"
}

# patched_files PATCH_DIR : the base files the diffs of PATCH_DIR/series
# change, once each.
patched_files() {
	local p
	while read -r p; do
		sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' "$1/$p"
	done < "$1/series" | sort -u
}

# config_fragment ARCH : the project's config fragments for ARCH (and
# HALTPOLL_VARIANT), concatenated.
config_fragment() {
	local configs="$HALTPOLL_ROOT/tools/build/configs"
	case "${HALTPOLL_VARIANT:-}" in
	"") cat "$configs/common.config" "$configs/$1.config" ;;
	# The project's KUnit suites do not exist in 6.12.
	stock) cat "$configs/common.config" "$configs/$1.config" |
		grep -v -e '^CONFIG_HALTPOLL_GOVERNOR_KUNIT_TEST=' \
			-e '^CONFIG_COND_WAIT_KUNIT_TEST=' ;;
	*) cat "$configs/common.config" "$configs/$1.config" \
	       "$configs/$HALTPOLL_VARIANT-$1.config" ;;
	esac
}

# checkpatch_findings LEVELS CHECKPATCH-ARGS... : checkpatch --strict
# findings at those levels (e.g. 'ERROR|WARNING'), one per line.
checkpatch_findings() {
	local levels=$1
	shift
	# From the base tree, which carries checkpatch's spelling and const
	# structs lists; --no-tree keeps it from consulting git.
	local out rc=0
	out=$(cd "$HALTPOLL_OUT/base" &&
	      perl scripts/checkpatch.pl --strict --no-tree --quiet --terse "$@" 2>&1) ||
		rc=$?
	# checkpatch exits 1 on findings; anything more is checkpatch failing,
	# which must not pass for "no findings".
	if [ "$rc" -gt 1 ]; then
		printf 'checkpatch failed (exit %s): %s\n' "$rc" "$out"
		return 0
	fi
	# Exit 1 with no finding in the expected form is not a clean file.
	if [ "$rc" -eq 1 ] && ! grep -qE ': (ERROR|WARNING|CHECK):' <<< "$out"; then
		printf 'checkpatch exited 1 without a finding it could report: %s\n' "$out"
		return 0
	fi
	grep -E ": ($levels):" <<< "$out" || true
}

# debian_program_adds HOSTPATH [GUESTPATH] : tools/vm --add options that
# put a dynamic Debian program (x86_64 guests only) and the libraries it
# links at their host paths in the guest, the program at GUESTPATH.
debian_program_adds() {
	local bin=$1 guest=${2:-$1} lib
	echo "--add $bin:$guest"
	for lib in $(ldd "$bin" | grep -o '/[^ ]*'); do
		echo "--add $lib:$lib"
	done
}
