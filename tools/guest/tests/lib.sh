# SPDX-License-Identifier: GPL-2.0
# TAP helpers for the guest-side test scripts (busybox sh). Source it.
# Kernel messages are kept off the console so they cannot split TAP lines;
# every script ends with check_dmesg, which fails on any splat.

dmesg -n 1
tap_n=0
# A warning, an oops or a sanitizer report taints the kernel even when its
# lines scrolled out of the log buffer: check_dmesg compares. At boot only
# TAINT_TEST (262144, set by the KUnit suites) is expected.
taint_before=$(cat /proc/sys/kernel/tainted)
taint_test=262144

tap() {
	tap_n=$((tap_n + 1))
	if [ "$1" = ok ]; then
		echo "ok $tap_n - $2"
	else
		echo "not ok $tap_n - $2"
	fi
}

# expect_eq DESCRIPTION ACTUAL EXPECTED
expect_eq() {
	if [ "$2" = "$3" ]; then
		tap ok "$1"
	else
		tap fail "$1 (got '$2', expected '$3')"
	fi
}

# expect_ok DESCRIPTION CMD... : CMD must succeed
expect_ok() {
	local desc=$1
	shift
	if "$@"; then tap ok "$desc"; else tap fail "$desc (exit $?)"; fi
}

# expect_fail DESCRIPTION CMD... : CMD must fail
expect_fail() {
	local desc=$1
	shift
	if "$@"; then tap fail "$desc (succeeded)"; else tap ok "$desc"; fi
}

# expect_gt DESCRIPTION A B : A > B, numerically
expect_gt() {
	if [ "$2" -gt "$3" ]; then
		tap ok "$1"
	else
		tap fail "$1 ($2 not above $3)"
	fi
}

# expect_dmesg DESCRIPTION PATTERN : the kernel log has a matching line
expect_dmesg() {
	if dmesg | grep -q "$2"; then
		tap ok "$1"
	else
		tap fail "$1 (no '$2' in dmesg)"
	fi
}

splat_pattern='WARNING:|BUG:|Oops|Kernel panic|KASAN|UBSAN|possible circular|INFO: rcu|INFO: task .* blocked'

# Any warning, oops or sanitizer report in the kernel log, or a taint
# since the script began, fails the script.
check_dmesg() {
	local splats taint_now
	taint_now=$(cat /proc/sys/kernel/tainted)
	if [ $((taint_before & ~taint_test)) -ne 0 ]; then
		tap fail "kernel booted tainted ($taint_before)"
	else
		tap ok "kernel booted with no taint but TAINT_TEST ($taint_before)"
	fi
	if [ "$taint_now" = "$taint_before" ]; then
		tap ok "kernel taint unchanged ($taint_now)"
	else
		tap fail "kernel taint went from $taint_before to $taint_now"
	fi
	splats=$(dmesg | grep -cE "$splat_pattern") || true
	if [ "$splats" -eq 0 ]; then
		tap ok "no kernel warnings or splats"
	else
		tap fail "kernel log has $splats splat lines"
		dmesg | grep -E -A20 "$splat_pattern" | sed 's/^/# /'
	fi
	echo "1..$tap_n"
}

# shellcheck disable=SC2034 # for the scripts that source this file
cpuidle=/sys/devices/system/cpu/cpuidle
# shellcheck disable=SC2034
params=/sys/module/haltpoll/parameters
# shellcheck source=tools/guest/tests/defaults-6.12.sh
. /haltpoll/defaults-6.12.sh

# restore_defaults : every governor parameter back to its 6.12 default
# (the window before its grow start, which must not exceed it).
restore_defaults() {
	local name
	for name in guest_halt_poll_ns guest_halt_poll_grow_start \
		    guest_halt_poll_grow guest_halt_poll_shrink \
		    guest_halt_poll_allow_shrink; do
		eval "set_param $name \"\$default_$name\""
	done
}

# set_param NAME VALUE : write a governor parameter, as an operator would
set_param() {
	echo "$2" > "$params/$1" 2>/dev/null
}

state_usage() {
	cat "/sys/devices/system/cpu/cpu$1/cpuidle/state$2/usage"
}

# pingpong_idles LOOPS : run the pinned ping-pong (cpu0 <-> cpu1) and set
# polls and halts to cpu1's poll and halt state entries during it. How many
# idle entries a round trip makes varies from run to run under TCG (a
# wakeup that comes before the idle loop reaches cpuidle makes none), so
# tests compare polls with halts, not with the number of round trips.
# On a contended host cpu1 may idle only once in 20 round trips (its vCPU,
# descheduled after a reply, finds the next request waiting): the
# ping-pong is run again, up to 10 times LOOPS in all, until cpu1 has idled
# at least LOOPS / 5 times, so that the counts are worth comparing.
pingpong_idles() {
	local p0 h0 runs=0

	p0=$(state_usage 1 0)
	h0=$(state_usage 1 1)
	while [ $runs -lt 10 ]; do
		pipe-bench -l "$1" | sed 's/^/# /'
		runs=$((runs + 1))
		polls=$(($(state_usage 1 0) - p0))
		halts=$(($(state_usage 1 1) - h0))
		[ $((polls + halts)) -lt $(($1 / 5)) ] || break
	done
	echo "# cpu1 during $runs x $1 round trips: $polls polls, $halts halts"
}
