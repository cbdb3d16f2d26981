# Guest side of the cost measurement of tools/bench/bench: fixed loads
# between "@@PHASE config load@@" console markers, which the host reads
# while it samples the CPU time QEMU uses. Prints "LATENCY config load
# usecs" for the paced loads. Argument: MODE ("drivers" or "idle-poll").
mode=$1
dmesg -n 1

phase() {
	echo "@@PHASE $1@@"
}

# paced CONFIG PACE_US LOOPS : one round trip every PACE_US.
paced() {
	phase "$1 pace$2"
	pipe-bench -l "$3" -p "$2" | sed -n "s/^usecs\/op: /LATENCY $1 pace$2 /p"
}

loads() {
	phase "$1 idle"
	sleep 5
	paced "$1" 50 30000
	paced "$1" 150 20000
	paced "$1" 1000 4000
	phase none
	sleep 1
}

# Let boot-time work settle before the first phase.
sleep 2
if [ "$mode" = idle-poll ]; then
	loads idle_poll
else
	loads no_driver
	modprobe cpuidle-haltpoll force=1 || exit 1
	loads haltpoll
	rmmod cpuidle_haltpoll
fi
