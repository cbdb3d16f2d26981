# Guest side of the cost measurement of tools/bench/bench: fixed loads
# between "@@PHASE config load@@" console markers, which the host reads
# while it samples the CPU time QEMU uses. Prints "LATENCY config load
# usecs" and "PERIOD config load usecs" (the period the load achieved) for
# the paced loads, and for haltpoll "HPSTAT config load begin|end" lines
# with the governor's per-CPU counters around each load.
# Argument: MODE ("drivers" or "idle-poll").
mode=$1
dmesg -n 1

phase() {
	echo "@@PHASE $1@@"
}

stats=/sys/kernel/debug/haltpoll/stats

# hpstat CONFIG LOAD WHEN : the governor's counters, when it is in use.
hpstat() {
	[ "$1" = haltpoll ] || return 0
	sed -n "2,\$s/^/HPSTAT $1 $2 $3 /p" "$stats"
}

# paced CONFIG PACE_US LOOPS : one round trip every PACE_US.
paced() {
	hpstat "$1" "pace$2" begin
	phase "$1 pace$2"
	pipe-bench -l "$3" -p "$2" |
		sed -n -e "s/^usecs\/op: /LATENCY $1 pace$2 /p" \
			-e "s/^period_us: /PERIOD $1 pace$2 /p"
	hpstat "$1" "pace$2" end
}

loads() {
	hpstat "$1" idle begin
	phase "$1 idle"
	sleep 5
	hpstat "$1" idle end
	paced "$1" 50 30000
	paced "$1" 150 20000
	paced "$1" 1000 4000
	phase none
	sleep 1
}

# Let boot-time work settle before the first phase.
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null || true
sleep 2
if [ "$mode" = idle-poll ]; then
	loads idle_poll
else
	loads no_driver
	modprobe cpuidle-haltpoll force=1 || exit 1
	loads haltpoll
	rmmod cpuidle_haltpoll
fi
