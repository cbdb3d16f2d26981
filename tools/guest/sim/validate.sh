# SPDX-License-Identifier: GPL-2.0
# Guest side of tools/sim/validate: loads cpuidle-haltpoll with force=1,
# whichever kernel this is (project or stock), and runs each pipe-bench
# load with the cpuidle, hrtimer and scheduler trace events on. Per load
# it prints, between "@@LOAD name@@" and "@@END@@":
#   IDLE begin|end cpu poll_usage poll_time_us halt_usage halt_time_us
#   HPSTAT begin|end <haltpoll-stat line>     (project kernel only)
#   OPS n and LATENCY us: the load's round trips, and its usecs per one
#   the trace lines: cpu_idle, guest_halt_poll_ns, hrtimer_start,
#   _expire_entry and _cancel, sched_waking and sched_switch from idle,
#   and the marks "@@COUNT begin|end" and "@@COUNTED begin|end" written
#   just before and after each read of the counters
# First, once, "BUILD VERSION": the booted kernel's uname -v, which the
# host checks against the build it meant to boot.
# Arguments: LOADS, each one of unpaced or paceN (one round trip every N us).
# An unpaced load named "calibrate" runs first, printed as the others:
# the host measures the trace's bracket of a poll on it, apart from the
# loads it compares.
loads=${*:-"unpaced pace50 pace100 pace300 pace1000"}
t=/sys/kernel/tracing
dmesg -n 1
echo "BUILD $(uname -v)"
# shellcheck source=tools/guest/tests/idle-counters.sh
. /haltpoll/idle-counters.sh

# mark WHAT : a line in the trace.
mark() {
	echo "$1" > $t/trace_marker
}

# counters WHEN : cpuidle's counters, read between two marks into
# /tmp/counters-WHEN (neither forks nor waits on the console), and the
# project governor's, whose reader forks and which need no marks: before
# the marks at the load's beginning, after them at its end, so that the
# span between the marks is the load's.
counters() {
	local f=/tmp/counters-$1
	[ "$1" = end ] || haltpoll_counters "HPSTAT $1" > "$f.hp"
	mark "@@COUNT $1"
	idle_counters "IDLE $1" > "$f"
	mark "@@COUNTED $1"
	[ "$1" = begin ] || haltpoll_counters "HPSTAT $1" > "$f.hp"
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

# Loads sized to fit the trace buffer (8 MB per CPU) under TCG. What
# pipe-bench measured goes to /tmp/pipe-bench, and result() reads it only
# after the counters: no other task runs in the counted span.
run() {
	case "$1" in
	unpaced) set -- -l 4000 ;;
	calibrate) set -- -l 2000 ;;
	pace*) set -- -l 2000 -p "${1#pace}" ;;
	*) echo "unknown load $1" >&2; exit 2 ;;
	esac
	pipe-bench "$@" > /tmp/pipe-bench
}

# result : "OPS round trips" and "LATENCY usecs per round trip".
result() {
	sed -n -e 's/^loops: \([0-9]*\).*/OPS \1/p' \
		-e 's/^usecs\/op: /LATENCY /p' /tmp/pipe-bench
}

modprobe cpuidle-haltpoll force=1 || exit 1
echo 8192 > $t/buffer_size_kb
# A wakeup is traced on the waker's CPU, its idle exit on the wakee's.
echo global > $t/trace_clock
# Only a switch away from the idle task tells that a poll caught a wakeup.
echo 'prev_pid == 0' > $t/events/sched/sched_switch/filter
pipe-bench -l 500 > /dev/null
# The events are set up with tracing off, and the counters read with
# tracing on between two marks each: cpuidle counts a residency as it
# ends, so those that end between the reads' marks are the ones counted,
# all of them traced (a residency that ends within a read's two marks
# is either).
echo 0 > $t/tracing_on
# The calibration load runs once: first, unless the loads name it.
case " $loads " in *" calibrate "*) ;; *) loads="calibrate $loads" ;; esac
for load in $loads; do
	echo > $t/trace
	echo "@@LOAD $load@@"
	events 1
	echo 1 > $t/tracing_on
	counters begin
	run "$load"
	counters end
	echo 0 > $t/tracing_on
	events 0
	cat /tmp/counters-begin /tmp/counters-begin.hp \
	    /tmp/counters-end /tmp/counters-end.hp
	result
	grep -E "cpu_idle:|guest_halt_poll_ns:|hrtimer_start:|hrtimer_expire_entry:|hrtimer_cancel:|sched_waking:|sched_switch:|tracing_mark_write: @@" $t/trace
	echo "@@END@@"
done
