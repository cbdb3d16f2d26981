# SPDX-License-Identifier: GPL-2.0
# Guest side of tools/bench/run --only lateness: how late a halted vCPU
# takes its timer, with nothing for any governor to decide. CPU 0 may
# only halt (its poll state disabled) and runs cyclictest at one timer
# a millisecond, while CPU 1 is idle (halting or polling as its governor
# picks), runs a busy loop, or may only poll (its halt state disabled).
# Prints per round and sibling:
#   LATE KERNEL SIBLING min_us avg_us max_us
# Arguments: KERNEL (project or stock), ROUNDS.
kernel=$1
rounds=$2
cpuidle=/sys/devices/system/cpu
dmesg -n 1
modprobe cpuidle-haltpoll force=1 || exit 1
echo 1 > $cpuidle/cpu0/cpuidle/state0/disable || exit 1

# late SIBLING : one cyclictest run on CPU 0; --laptop: no PM QoS request.
late() {
	cyclictest --laptop -q -m -t1 -a0 -p90 -i 1000 -l 1500 2>/dev/null |
		sed -n "s/.*Min: *\([0-9]*\).*Avg: *\([0-9]*\) Max: *\([0-9]*\).*/LATE $kernel $1 \1 \2 \3/p"
}

# sibling SIBLING : set CPU 1 to SIBLING's activity, then measure.
sibling() {
	local pid=""
	case "$1" in
	busy)
		taskset -c 1 sh -c 'while :; do :; done' &
		pid=$!
		;;
	polling) echo 1 > $cpuidle/cpu1/cpuidle/state1/disable ;;
	esac
	sleep 0.2
	late "$1"
	[ -z "$pid" ] || kill "$pid"
	echo 0 > $cpuidle/cpu1/cpuidle/state1/disable
	wait
}

for _ in $(seq "$rounds"); do
	for s in idle busy polling; do
		sibling $s
	done
done
