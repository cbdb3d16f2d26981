# SPDX-License-Identifier: GPL-2.0
# Guest side of tools/bench/run --only lateness: how late a halted vCPU
# takes its timer, with nothing for any governor to decide. Both CPUs
# may only halt: guest_halt_poll_ns is 0 before the driver loads, which
# keeps both kernels' windows closed (6.12's governor does not read a
# state's disable switch). CPU 0 runs cyclictest at one timer a
# millisecond while CPU 1 halts when idle, runs a busy loop, or, in the
# project's kernel only, only polls (its halt state disabled; 6.12 has
# no per-CPU way to say that without a CONFIG_PM the guest lacks). A run
# in which CPU 0 polled, or a polling CPU 1 halted, fails the boot.
# Prints per round and sibling:
#   LATE KERNEL SIBLING min_us avg_us max_us
# Arguments: KERNEL (project or stock), ROUNDS.
kernel=$1
rounds=$2
cpuidle=/sys/devices/system/cpu
dmesg -n 1
echo 0 > /sys/module/haltpoll/parameters/guest_halt_poll_ns || exit 1
modprobe cpuidle-haltpoll force=1 || exit 1
# cyclictest keeps its statistics in shared memory.
mkdir -p /dev/shm && mount -t tmpfs shm /dev/shm
siblings="idle busy"
[ "$kernel" = stock ] || siblings="$siblings polling"

usage() {
	cat $cpuidle/cpu"$1"/cpuidle/state"$2"/usage
}

# late SIBLING : one cyclictest run on CPU 0; --laptop: no PM QoS request.
late() {
	local out polls0 halts1

	polls0=$(usage 0 0)
	halts1=$(usage 1 1)
	out=$(cyclictest --laptop -q -m -t1 -a0 -p90 -i 1000 -l 1500 |
	      sed -n "s/.*Min: *\([0-9]*\).*Avg: *\([0-9]*\) Max: *\([0-9]*\).*/LATE $kernel $1 \1 \2 \3/p")
	[ -n "$out" ] || { echo "lateness: cyclictest printed no result"; exit 1; }
	[ "$(usage 0 0)" = "$polls0" ] ||
		{ echo "lateness: CPU 0 polled during $1"; exit 1; }
	[ "$1" != polling ] || [ "$(usage 1 1)" = "$halts1" ] ||
		{ echo "lateness: CPU 1 halted while it was to poll"; exit 1; }
	echo "$out"
}

# sibling SIBLING : set CPU 1 to SIBLING's activity, then measure.
sibling() {
	local pid="" halt1=$cpuidle/cpu1/cpuidle/state1/disable

	case "$1" in
	busy)
		taskset -c 1 sh -c 'while :; do :; done' &
		pid=$!
		;;
	polling) echo 1 > $halt1 || exit 1 ;;
	esac
	sleep 0.2
	late "$1"
	[ -z "$pid" ] || kill "$pid"
	echo 0 > $halt1
	wait
}

for _ in $(seq "$rounds"); do
	for s in $siblings; do
		sibling "$s"
	done
done
