# SPDX-License-Identifier: GPL-2.0
# The idle counters guest scripts print for the host, in one format each:
# cpuidle's, which both kernels have, and the project governor's own.
# Source it.

# idle_counters PREFIX : per CPU, "PREFIX cpu poll_usage poll_time_us
# halt_usage halt_time_us". Shell builtins only: without a fork, every
# CPU's counters are read within a few milliseconds under TCG, so a trace
# mark on each side dates the read (tools/guest/sim/validate.sh).
idle_counters() {
	local d cpu u0 t0 u1 t1
	for d in /sys/devices/system/cpu/cpu[0-9]*/cpuidle; do
		cpu=${d%/cpuidle}
		cpu=${cpu##*/cpu}
		# A read that fails leaves its variable empty, not the last
		# CPU's value.
		u0='' t0='' u1='' t1=''
		read -r u0 < "$d/state0/usage"
		read -r t0 < "$d/state0/time"
		read -r u1 < "$d/state1/usage"
		read -r t1 < "$d/state1/time"
		echo "$1 $cpu $u0 $t0 $u1 $t1 "
	done
}

# haltpoll_counters PREFIX : per CPU, "PREFIX" and its line of the project
# governor's statistics, where the governor has them.
haltpoll_counters() {
	local stats=/sys/kernel/debug/haltpoll/stats
	[ ! -r $stats ] || sed -n "2,\$s/^/$1 /p" $stats
}
