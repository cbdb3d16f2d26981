# The driver built in (CONFIG_HALTPOLL_CPUIDLE=y), configured on the
# kernel command line as 6.12 users do: cpuidle_haltpoll.force=1 and the
# SAP HANA profile through haltpoll.* options.
# shellcheck source=tools/guest/tests/lib.sh
. /haltpoll/lib.sh

expect_eq "the built-in driver is in charge at boot" "$(cat $cpuidle/current_driver)" haltpoll
expect_eq "with its governor" "$(cat $cpuidle/current_governor_ro)" haltpoll
expect_eq "force=1 from the command line" "$(cat /sys/module/cpuidle_haltpoll/parameters/force)" Y
expect_eq "guest_halt_poll_ns from the command line" "$(cat $params/guest_halt_poll_ns)" 2400000
expect_eq "grow_start from the command line" "$(cat $params/guest_halt_poll_grow_start)" 2400000
expect_eq "allow_shrink=off from the command line" "$(cat $params/guest_halt_poll_allow_shrink)" N
pingpong_idles 2000
expect_gt "cpu1 polls under a ping-pong" "$polls" 100
expect_gt "cpu1 polls at least 5 times as often as it halts" "$polls" "$((halts * 5))"
check_dmesg
