# SPDX-License-Identifier: GPL-2.0
# Guest side of tools/sim/validate: loads cpuidle-haltpoll with force=1,
# whichever kernel this is (project or stock), and runs each pipe-bench
# load with the cpuidle, hrtimer and scheduler trace events on. Per load
# it prints, between "@@LOAD name@@" and "@@END@@":
#   IDLE begin|end cpu poll_usage poll_time_us halt_usage halt_time_us
#   HPSTAT begin|end <haltpoll-stat line>     (project kernel only)
#   the trace lines: cpu_idle, guest_halt_poll_ns, hrtimer_start,
#   _expire_entry and _cancel, sched_waking and sched_switch from idle
# Arguments: LOADS, each one of unpaced or paceN (one round trip every N us).
loads=${*:-"unpaced pace50 pace100 pace300 pace1000"}
t=/sys/kernel/tracing
dmesg -n 1
# shellcheck source=tools/guest/tests/idle-counters.sh
. /haltpoll/idle-counters.sh

# counters WHEN : cpuidle's counters, and the project governor's.
counters() {
	idle_counters "IDLE $1"
	haltpoll_counters "HPSTAT $1"
}

events() {
	echo "$1" > $t/events/power/cpu_idle/enable
	echo "$1" > $t/events/power/guest_halt_poll_ns/enable
	echo "$1" > $t/events/timer/hrtimer_start/enable
	echo "$1" > $t/events/timer/hrtimer_expire_entry/enable
	echo "$1" > $t/events/timer/hrtimer_cancel/enable
	echo "$1" > $t/events/sched/sched_waking/enable
	echo "$1" > $t/events/sched/sched_switch/enable
}

# Loads sized to fit the trace buffer (8 MB per CPU) under TCG.
run() {
	case "$1" in
	unpaced) pipe-bench -l 4000 ;;
	pace*) pipe-bench -l 2000 -p "${1#pace}" ;;
	*) echo "unknown load $1" >&2; exit 2 ;;
	esac > /dev/null
}

modprobe cpuidle-haltpoll force=1 || exit 1
echo 8192 > $t/buffer_size_kb
# A wakeup is traced on the waker's CPU, its idle exit on the wakee's.
echo global > $t/trace_clock
# Only a switch away from the idle task tells that a poll caught a wakeup.
echo 'prev_pid == 0' > $t/events/sched/sched_switch/filter
pipe-bench -l 500 > /dev/null
# The events are set up with tracing off and tracing turned on between
# the two counter reads: the polls counted but not traced are then those
# of one write at each end, not those of the seven that switch events.
echo 0 > $t/tracing_on
for load in $loads; do
	echo > $t/trace
	echo "@@LOAD $load@@"
	events 1
	counters begin
	echo 1 > $t/tracing_on
	run "$load"
	echo 0 > $t/tracing_on
	counters end
	events 0
	grep -E "cpu_idle:|guest_halt_poll_ns:|hrtimer_start:|hrtimer_expire_entry:|hrtimer_cancel:|sched_waking:|sched_switch:" $t/trace
	echo "@@END@@"
done
