# Guest side of the project-against-stock benchmark (tools/bench/run):
# loads cpuidle-haltpoll with force=1, whichever kernel this is, and runs
# every load between "@@PHASE kernel load@@" console markers, which the
# host reads while it samples the CPU time QEMU uses. Around each load it
# prints the cpuidle counters both kernels have:
#   IDLE kernel load begin|end cpu poll_usage poll_time_us halt_usage halt_time_us
# and after it
#   OPS kernel load N         round trips or timer wakeups in the load
#   LATENCY kernel load us    mean round trip, or cyclictest's mean latency
#   MEDIAN kernel load us     median round trip
#   P99 kernel load us        99th percentile round trip
#   OUT kernel load us        median leg out, to the echoing task
#   BACK kernel load us       median leg back, to the pinging task
#   PERIOD kernel load us     period a paced load achieved
#   SLEEPS kernel load N      paced round trips that found their slot ahead
#   WAKELATE kernel load us   how late past their slot those woke, mean
# and first, once, BUILD VERSION: the booted kernel's uname -v, which the
# host checks against the build it meant to boot.
# Arguments: KERNEL (project or stock); PARAMS, "-" or the governor's
# parameters to write after loading ("guest_halt_poll_ns=2400000 ...");
# then LOADS (default: all of them), each one of unpaced, paceN (one round
# trip every N us), cyclicN (a timer every N us) or idle.
kernel=$1
params=$2
shift 2
loads=${*:-"unpaced pace50 pace100 pace300 pace1000 cyclic100 cyclic200 cyclic500 idle"}
dmesg -n 1
echo "BUILD $(uname -v)"
# shellcheck source=tools/guest/tests/idle-counters.sh
. /haltpoll/idle-counters.sh

phase() {
	echo "@@PHASE $1@@"
}

# counters LOAD WHEN : the cpuidle counters of every CPU.
counters() {
	idle_counters "IDLE $kernel $1 $2"
}

# hpstat LOAD WHEN : the project governor's own counters, where it has them.
hpstat() {
	haltpoll_counters "HPSTAT $kernel $1 $2"
}

# pipe LOAD LOOPS [PACE_US] : pinned ping-pong, paced when PACE_US is given.
pipe() {
	pipe-bench -l "$2" ${3:+-p "$3"} |
		sed -n -e "s/^usecs\/op: /LATENCY $kernel $1 /p" \
			-e "s/^median_us: /MEDIAN $kernel $1 /p" \
			-e "s/^p99_us: /P99 $kernel $1 /p" \
			-e "s/^out_median_us: /OUT $kernel $1 /p" \
			-e "s/^back_median_us: /BACK $kernel $1 /p" \
			-e "s/^period_us: /PERIOD $kernel $1 /p" \
			-e "s/^sleeps: /SLEEPS $kernel $1 /p" \
			-e "s/^wake_late_us: /WAKELATE $kernel $1 /p"
	echo "OPS $kernel $1 $2"
}

# cyclic LOAD INTERVAL_US LOOPS : timer wakeups of a thread pinned to CPU 1.
# --laptop: no /dev/cpu_dma_latency request, which would make every
# governor poll and hide the one under test.
cyclic() {
	cyclictest --laptop -q -m -t1 -a1 -p90 -i "$2" -l "$3" 2>/dev/null |
		sed -n "s/.* Avg: *\([0-9]*\).*/LATENCY $kernel $1 \1/p"
	echo "OPS $kernel $1 $3"
}

# run LOAD : one load, sized to last about two seconds under TCG.
run() {
	case "$1" in
	unpaced) pipe "$1" 40000 ;;
	pace50) pipe "$1" 10000 50 ;;
	pace100) pipe "$1" 10000 100 ;;
	pace300) pipe "$1" 6000 300 ;;
	pace1000) pipe "$1" 2000 1000 ;;
	cyclic100) cyclic "$1" 100 20000 ;;
	cyclic200) cyclic "$1" 200 10000 ;;
	cyclic500) cyclic "$1" 500 4000 ;;
	idle) sleep 8 ;;
	*) echo "unknown load $1" >&2; exit 2 ;;
	esac
}

# cyclictest keeps its statistics in POSIX shared memory.
mkdir -p /dev/shm && mount -t tmpfs shm /dev/shm
modprobe cpuidle-haltpoll force=1 || exit 1
if [ "$params" != - ]; then
	for p in $params; do
		echo "${p#*=}" > "/sys/module/haltpoll/parameters/${p%%=*}" || exit 1
	done
fi
echo "DRIVER $kernel $(cat /sys/devices/system/cpu/cpuidle/current_driver)" \
	"$(cat /sys/devices/system/cpu/cpuidle/current_governor)"
# A warm-up run: first-touch page faults and cache misses are not idle cost.
pipe-bench -l 500 > /dev/null
sleep 1
# The governor's statistics are read outside the cpuidle counters, which
# both kernels have: reading and printing them wakes the CPUs, and only
# the project's kernel has them to read.
for load in $loads; do
	hpstat "$load" begin
	counters "$load" begin
	phase "$kernel $load"
	run "$load"
	phase none
	counters "$load" end
	hpstat "$load" end
	sleep 0.5
done
