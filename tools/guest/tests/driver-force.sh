# force=1 loads the driver on QEMU TCG; it takes over cpuidle, polls under
# load, survives CPU hotplug, and rmmod gives back what was there before.
# shellcheck source=tools/guest/tests/lib.sh
. /haltpoll/lib.sh

drv_before=$(cat $cpuidle/current_driver)
gov_before=$(cat $cpuidle/current_governor)
expect_ok "modprobe force=1" modprobe cpuidle-haltpoll force=1
expect_eq "current_driver" "$(cat $cpuidle/current_driver)" haltpoll
expect_eq "current_governor" "$(cat $cpuidle/current_governor)" haltpoll
expect_eq "force reads back" "$(cat /sys/module/cpuidle_haltpoll/parameters/force)" Y
expect_fail "force is read-only" sh -c 'echo N > /sys/module/cpuidle_haltpoll/parameters/force'
for cpu in 0 1; do
	expect_eq "cpu$cpu state0 name" "$(cat /sys/devices/system/cpu/cpu$cpu/cpuidle/state0/name)" POLL
	expect_eq "cpu$cpu state1 name" "$(cat /sys/devices/system/cpu/cpu$cpu/cpuidle/state1/name)" "haltpoll idle"
done

pingpong_idles 3000
expect_gt "poll state used under the pipe benchmark" "$polls" 100
haltpoll-stat > /tmp/stat
sed 's/^/# /' /tmp/stat
# Most of cpu1's polls caught their wakeup. Counted against its polls, not
# the round trips: on a contended host a vCPU descheduled after its reply
# finds the next request waiting and does not idle (105 polls in 3000
# round trips were seen).
caught=$(awk '$1 == 1 { print $3 }' /tmp/stat)
expect_gt "haltpoll-stat: cpu1 polls caught wakeups, most of its polls" \
	"$((caught * 2))" "$polls"
expect_eq "haltpoll-stat: a line per online CPU" \
	"$(grep -c '^[0-9]' /tmp/stat)" 2

# The SAP HANA profile asks for a 2.4 ms window: a ping-pong's wakeups,
# tens of us apart, must be polled for, not halted for because the tick
# (every 4 ms at HZ=250) comes before the window would close. With the tick
# counted as a timer about one idle period in three halted. Reloading the
# driver starts every CPU with a closed window, which opens at 2.4 ms.
params=/sys/module/haltpoll/parameters
echo 2400000 > $params/guest_halt_poll_ns
echo 2400000 > $params/guest_halt_poll_grow_start
rmmod cpuidle_haltpoll
expect_ok "reload with a 2.4 ms window" modprobe cpuidle-haltpoll force=1
pingpong_idles 3000
expect_gt "2.4 ms window: cpu1 polls at least 5 times as often as it halts" \
	"$polls" "$((halts * 5))"
restore_defaults

for i in 1 2 3 4 5 6 7 8 9 10; do
	echo 0 > /sys/devices/system/cpu/cpu1/online || break
	echo 1 > /sys/devices/system/cpu/cpu1/online || break
done
expect_eq "cpu1 offlined and onlined 10 times" "$i" 10
expect_ok "cpu1 has its cpuidle device again" test -d /sys/devices/system/cpu/cpu1/cpuidle/state1
before=$(state_usage 1 0)
pipe-bench -l 2000 | sed 's/^/# /'
expect_gt "cpu1 polls again after hotplug" "$(state_usage 1 0)" "$before"

expect_ok "rmmod" rmmod cpuidle_haltpoll
expect_eq "driver restored" "$(cat $cpuidle/current_driver)" "$drv_before"
expect_eq "governor restored" "$(cat $cpuidle/current_governor)" "$gov_before"
expect_ok "loads again" modprobe cpuidle-haltpoll force=1
expect_eq "current_driver after reload" "$(cat $cpuidle/current_driver)" haltpoll
expect_ok "rmmod again" rmmod cpuidle_haltpoll
check_dmesg
