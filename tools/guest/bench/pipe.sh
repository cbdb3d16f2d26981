# Guest side of tools/bench/run: interleaved pipe-bench rounds over the
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
# config NAME : one measurement of an idle configuration of this boot.
config() {
	case "$1" in
	no_driver) measure no_driver ;;
	haltpoll)
		modprobe cpuidle-haltpoll force=1 || exit 1
		measure haltpoll
		rmmod cpuidle_haltpoll || exit 1 ;;
	haltpoll_poll_off)
		modprobe cpuidle-haltpoll force=1 || exit 1
		echo 0 > $params/guest_halt_poll_ns
		measure haltpoll_poll_off
		echo "$window_ns" > $params/guest_halt_poll_ns
		rmmod cpuidle_haltpoll || exit 1 ;;
	esac
}

window_ns=$(cat $params/guest_halt_poll_ns)

# Whatever ran just before shows in a measurement: each round starts one
# configuration further, so that each comes first, second and third.
order="no_driver haltpoll haltpoll_poll_off"
i=0
while [ "$i" -lt "$rounds" ]; do
	i=$((i + 1))
	if [ "$mode" = idle-poll ]; then
		measure idle_poll
		continue
	fi
	for c in $order; do
		config "$c"
	done
	# shellcheck disable=SC2086 # rotate the words
	set -- $order
	order="$2 $3 $1"
done
echo "CLOCKSOURCE $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
