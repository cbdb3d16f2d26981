# SPDX-License-Identifier: GPL-2.0
# The idle counters guest scripts print for the host, in one format each:
# cpuidle's, which both kernels have, and the project governor's own.
# Source it.

# idle_counters PREFIX : per CPU, "PREFIX cpu poll_usage poll_time_us
# halt_usage halt_time_us".
idle_counters() {
	local d cpu
	for d in /sys/devices/system/cpu/cpu[0-9]*/cpuidle; do
		cpu=${d%/cpuidle}
		cpu=${cpu##*/cpu}
		echo "$1 $cpu $(cat "$d/state0/usage" "$d/state0/time" \
			"$d/state1/usage" "$d/state1/time" | tr '\n' ' ')"
	done
}

# haltpoll_counters PREFIX : per CPU, "PREFIX" and its line of the project
# governor's statistics, where the governor has them.
haltpoll_counters() {
	local stats=/sys/kernel/debug/haltpoll/stats
	[ ! -r $stats ] || sed -n "2,\$s/^/$1 /p" $stats
}
