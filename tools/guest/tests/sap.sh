# The SAP HANA profile as tuned sets it: the module loaded with force=1,
# then a 2.4 ms window and grow start written to sysfs. A ping-pong's
# wakeups, tens of microseconds apart, must be polled for; the tick (every
# 4 ms at HZ=250, inside the window 60% of the time) must not make the
# governor halt, whether it can be stopped or not (the nohz-off boot).
# shellcheck source=tools/guest/tests/lib.sh
. /haltpoll/lib.sh

echo "# kernel command line: $(cat /proc/cmdline)"
expect_ok "modprobe force=1" modprobe cpuidle-haltpoll force=1
expect_ok "guest_halt_poll_ns=2400000" set_param guest_halt_poll_ns 2400000
expect_ok "guest_halt_poll_grow_start=2400000" \
	set_param guest_halt_poll_grow_start 2400000
pipe-bench -l 200 > /dev/null
pingpong_idles 3000
expect_gt "cpu1 polls under a ping-pong" "$polls" 100
expect_gt "cpu1 polls at least 5 times as often as it halts" "$polls" "$((halts * 5))"
expect_ok "rmmod" rmmod cpuidle_haltpoll
check_dmesg
