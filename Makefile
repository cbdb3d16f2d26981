# SPDX-License-Identifier: GPL-2.0
# Guest halt polling for Linux: the host-side entry points.
# Everything lands in out/; nothing outside this tree is written except
# Debian packages the scripts install when missing.

ARCH ?= x86_64

.PHONY: all build run bench check stress sim sim-validate report lint patches deb guest-test clean help

all: run

help:
	@echo "make run     build the $(ARCH) guest kernel, boot it, load cpuidle-haltpoll"
	@echo "             and print the latency comparison (quick bench)"
	@echo "make check   the whole test suite; ends with 'N passed, N failed'"
	@echo "make bench   the full interleaved benchmark, against Linux 6.12 too;"
	@echo "             writes out/bench-ARCH.json"
	@echo "make stress  debug guests (lockdep, UBSAN, KASAN on x86_64): module,"
	@echo "             hotplug and parameter churn, boot options; both arches"
	@echo "make build   only build the guest kernel (ARCH=x86_64|arm64)"
	@echo "make sim     replay idle traces through the governor and Linux 6.12's"
	@echo "make sim-validate  the simulator against both live kernels (x86_64)"
	@echo "make report  out/report/index.html from make sim and make bench results"
	@echo "make lint    checkpatch --strict, shellcheck, W=1 and sparse"
	@echo "make patches the git format-patch series and cover letter in out/patches/"
	@echo "make deb     Debian packages of the patched kernel in out/deb-ARCH/"
	@echo "             (CONFIG=/boot/config-... to start from your guest's config)"
	@echo "make guest-test  a Debian 12 guest with systemd and udev boots the"
	@echo "             package and checks what an operator would (x86_64)"

build:
	tools/build/run --arch $(ARCH)

run: build
	tools/vm --arch $(ARCH) -- 'modprobe cpuidle-haltpoll force=1 && \
		echo "cpuidle driver: $$(cat /sys/devices/system/cpu/cpuidle/current_driver)," \
		"governor: $$(cat /sys/devices/system/cpu/cpuidle/current_governor)" && \
		grep . /sys/devices/system/cpu/cpu0/cpuidle/state*/name && \
		grep . /sys/module/haltpoll/parameters/*'
	tools/bench/run --arch $(ARCH) --boots 2 --rounds 2 --loops 3000 --only baselines --quick

# tools/bench/run builds the kernels it boots.
bench:
	tools/bench/run --arch $(ARCH)

check:
	tools/check --arch x86_64 --arch arm64

# The debug kernels catch splats; the churn runs once more in the
# production kernel for a latency before/after free of debug overhead.
stress:
	for arch in x86_64 arm64; do \
		tools/build/run --arch $$arch --variant debug && \
		tools/tests/run --arch $$arch --variant debug --stress && \
		tools/build/run --arch $$arch && \
		tools/tests/run --arch $$arch --stress stress-churn || exit 1; \
	done

sim:
	tools/sim/run

sim-validate:
	tools/sim/validate --arch x86_64

report:
	tools/sim/run > /dev/null
	tools/report/run

lint:
	tools/lint

patches:
	tools/build/run --prepare-only
	tools/series/mkseries

deb:
	tools/deb/run --arch $(ARCH) $(if $(CONFIG),--config "$(CONFIG)")

guest-test:
	tools/distro/run --arch x86_64

clean:
	rm -rf out
