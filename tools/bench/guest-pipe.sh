# Guest side of tools/bench/bench: interleaved pipe-bench rounds over the
# idle configurations this boot can offer. Prints "RESULT <config> <usecs>".
# Arguments: ROUNDS LOOPS MODE (mode "drivers" or "idle-poll").
rounds=$1
loops=$2
mode=$3
params=/sys/module/haltpoll/parameters
dmesg -n 1

measure() {
	pipe-bench -l "$loops" | sed -n "s/^usecs\/op: /RESULT $1 /p"
}

echo "CLOCKSOURCE $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
# One warm-up run: first-touch page faults and cache misses are not idle cost.
pipe-bench -l 500 > /dev/null
i=0
while [ "$i" -lt "$rounds" ]; do
	i=$((i + 1))
	if [ "$mode" = idle-poll ]; then
		measure idle_poll
		continue
	fi
	measure no_driver
	modprobe cpuidle-haltpoll force=1 || exit 1
	measure haltpoll
	echo 0 > $params/guest_halt_poll_ns
	measure haltpoll_poll_off
	echo 200000 > $params/guest_halt_poll_ns
	rmmod cpuidle_haltpoll || exit 1
done
echo "CLOCKSOURCE $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
