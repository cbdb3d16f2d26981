# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
# The operator's checks in a Debian 12 guest booted from the kernel
# package (tools/distro/run): started by systemd once the system is up,
# it prints TAP between @@DISTRO-BEGIN@@ and @@DISTRO-END@@ on the second
# serial port; its unit powers the guest off when it ends. Nothing here
# loads the driver: udev must have, with the options of
# /etc/modprobe.d/haltpoll.conf.
# Arguments: the guest_halt_poll_ns value the kernel command line sets,
# the guest_halt_poll_grow_start value /etc/tmpfiles.d sets, and the
# version of the kernel package installed.

boot_ns=$1
tmpfiles_ns=$2
version=$3
# shellcheck source=tools/guest/tests/lib.sh
. /haltpoll/lib.sh

# idle_usage STATE : entries into STATE, summed over the CPUs.
idle_usage() {
	cat /sys/devices/system/cpu/cpu[0-9]*/cpuidle/state"$1"/usage |
		awk '{ n += $1 } END { print n }'
}

echo "@@DISTRO-BEGIN@@"
state=$(systemctl is-system-running --wait)
# Coldplug events may still be in flight once systemd says it is up.
udevadm settle --timeout=60
echo "# uname -r: $(uname -r); system: $state"
case "$(uname -r)" in
*-haltpoll) tap ok "the package's kernel is running ($(uname -r))" ;;
*) tap fail "not the package's kernel: $(uname -r)" ;;
esac
expect_eq "dpkg knows the package installed" \
	"$(dpkg-query -W -f '${Version}' "linux-image-$(uname -r)")" "$version"

# udev loaded the module by the CPU's modalias, with the options file.
modules=$(modprobe --resolve-alias "$(cat /sys/devices/system/cpu/modalias)" | tr '\n' ' ')
echo "# modules for the CPU's modalias: $modules"
case " $modules" in
*" cpuidle_haltpoll "*) tap ok "the CPU's modalias resolves to cpuidle_haltpoll" ;;
*) tap fail "the CPU's modalias does not resolve to cpuidle_haltpoll" ;;
esac
expect_ok "udev loaded cpuidle_haltpoll" grep -q '^cpuidle_haltpoll ' /proc/modules
expect_eq "/etc/modprobe.d option force=1 applied" \
	"$(cat /sys/module/cpuidle_haltpoll/parameters/force)" Y
expect_eq "governor parameter from the kernel command line applied" \
	"$(cat /sys/module/haltpoll/parameters/guest_halt_poll_ns)" "$boot_ns"
expect_eq "governor parameter from /etc/tmpfiles.d applied" \
	"$(cat /sys/module/haltpoll/parameters/guest_halt_poll_grow_start)" \
	"$tmpfiles_ns"
# The governor is built in: its modprobe.d line is never used (the docs
# say so), and the parameter keeps 6.12's default.
expect_eq "modprobe.d line for the built-in governor not applied" \
	"$(cat /sys/module/haltpoll/parameters/guest_halt_poll_grow)" \
	"$default_guest_halt_poll_grow"

out=/tmp/haltpoll-check.out
cpupower idle-info > $out
sed -n '1,12s/^/# cpupower: /p' $out
expect_ok "cpupower idle-info names the haltpoll driver" \
	grep -q '^CPUidle driver: haltpoll$' $out
expect_ok "cpupower idle-info names the haltpoll governor" \
	grep -q '^CPUidle governor: haltpoll$' $out
expect_ok "cpupower idle-info lists two states" \
	grep -q '^Number of idle states: 2$' $out
expect_ok "cpupower idle-info lists POLL and haltpoll idle" \
	grep -q '^Available idle states: POLL haltpoll idle$' $out

# A pinned ping-pong makes both CPUs idle between short wakeups, which the
# window learns to poll for.
pingpong() {
	pipe-bench -l 2000 -a 0 -b 1 >/dev/null
}

# idle_disabled STATE : the disable flags of STATE, one per CPU.
idle_disabled() {
	cat /sys/devices/system/cpu/cpu[0-9]*/cpuidle/state"$1"/disable | tr -d '\n'
}

cpupower idle-set -d 0 | sed 's/^/# /'
expect_eq "cpupower idle-set -d 0 disabled state0 on both CPUs" \
	"$(idle_disabled 0)" 11
# A CPU polling when the flag changed ends that poll after the first read.
sleep 1
before=$(idle_usage 0)
pingpong
after=$(idle_usage 0)
if [ -n "$before" ] && [ "$after" = "$before" ]; then
	tap ok "cpupower idle-set -d 0: no polls (state0 usage $before -> $after)"
else
	tap fail "cpupower idle-set -d 0: state0 usage '$before' -> '$after'"
fi
cpupower idle-set -e 0 | sed 's/^/# /'
expect_eq "cpupower idle-set -e 0 enabled state0 on both CPUs" \
	"$(idle_disabled 0)" 00
before=$(idle_usage 0)
pingpong
after=$(idle_usage 0)
expect_gt "cpupower idle-set -e 0: polls again (state0 usage $before -> $after)" \
	"$after" "$before"

expect_ok "perf bench sched pipe ran" \
	sh -c "perf bench sched pipe -l 20000 > $out 2>&1"
sed -n 's/^ *\([0-9.]* usecs\/op\)$/# perf bench sched pipe: \1/p' $out
expect_ok "perf bench sched pipe printed usecs/op" grep -q 'usecs/op' $out
# --laptop: no PM QoS request of 0, which would make every idle a poll.
expect_ok "cyclictest ran" \
	sh -c "cyclictest -q -m --laptop -p 80 -t1 -i 200 -l 2000 > $out 2>&1"
sed -n 's/^\(T: 0.*\)$/# cyclictest --laptop -p 80 -i 200: \1/p' $out
expect_ok "cyclictest printed its latencies" grep -q 'Avg:' $out

failed=$(systemctl --failed --no-legend --plain | tr '\n' ' ')
expect_eq "systemctl: no failed unit" "$failed" ""
splats=$(dmesg | grep -cE "$splat_pattern")
expect_eq "kernel log: no splat" "$splats" 0
expect_eq "kernel not tainted" "$(cat /proc/sys/kernel/tainted)" 0
echo "1..$tap_n"
echo "@@DISTRO-END@@"
