# Guest side of the cost measurement of tools/bench/run: fixed loads
# between "@@PHASE config load@@" console markers, which the host reads
# while it samples the CPU time QEMU uses. Prints "LATENCY config load
# usecs" and "PERIOD config load usecs" (the period the load achieved) for
# the paced loads, and for haltpoll "HPSTAT config load begin|end" lines
# with the governor's per-CPU counters around each run of a load.
# Argument: MODE ("drivers" or "idle-poll").
mode=$1
dmesg -n 1

phase() {
	echo "@@PHASE $1@@"
}

# shellcheck source=tools/guest/tests/idle-counters.sh
. /haltpoll/idle-counters.sh

# hpstat CONFIG LOAD WHEN : the governor's counters, when it is in use.
# Read outside the phase markers: reading and printing them costs the
# host CPU time that only haltpoll's phases would be charged.
hpstat() {
	[ "$1" = haltpoll ] || return 0
	haltpoll_counters "HPSTAT $1 $2 $3"
}

# paced CONFIG PACE_US LOOPS : one round trip every PACE_US.
paced() {
	hpstat "$1" "pace$2" begin
	phase "$1 pace$2"
	pipe-bench -l "$3" -p "$2" |
		sed -n -e "s/^usecs\/op: /LATENCY $1 pace$2 /p" \
			-e "s/^period_us: /PERIOD $1 pace$2 /p"
	phase none
	hpstat "$1" "pace$2" end
}

# idle CONFIG : an idle spell.
idle() {
	hpstat "$1" idle begin
	phase "$1 idle"
	sleep 5
	phase none
	hpstat "$1" idle end
}

# use CONFIG : load or unload the driver, and let the change settle.
use() {
	case "$1" in
	haltpoll) modprobe cpuidle-haltpoll force=1 || exit 1 ;;
	no_driver) rmmod cpuidle_haltpoll 2>/dev/null ;;
	esac
	sleep 1
}

# run CONFIG LOAD : LOAD once; a paced load, half of its round trips.
run() {
	case "$2" in
	idle) idle "$1" ;;
	pace50) paced "$1" 50 15000 ;;
	pace150) paced "$1" 150 10000 ;;
	pace1000) paced "$1" 1000 2000 ;;
	esac
}

# Whatever ran just before shows in a load's cost, so each load runs
# several times per configuration, the configurations alternating and
# their order swapped every run; phases
# of one name add up. An idle guest uses about 1% of a host CPU, and one
# 5 s spell differs from the next by up to 30%: the idle load runs 4 times.
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null || true
sleep 2
if [ "$mode" = idle-poll ]; then
	configs=idle_poll
else
	configs="no_driver haltpoll"
fi
for load in idle pace50 pace150 pace1000; do
	runs=2
	[ "$load" = idle ] && runs=4
	for _ in $(seq "$runs"); do
		for config in $configs; do
			use "$config"
			run "$config" "$load"
		done
		# The other configuration goes first in the next run.
		# shellcheck disable=SC2086 # rotate the words
		set -- $configs
		[ $# -eq 1 ] || configs="$2 $1"
	done
done
use no_driver
