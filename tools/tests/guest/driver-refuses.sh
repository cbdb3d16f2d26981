# Without force, on a host that is not KVM with the realtime hint, the
# driver stays out of the way.
. /haltpoll/lib.sh

expect_eq "no cpuidle driver at boot" "$(cat $cpuidle/current_driver)" none
expect_fail "modprobe without force fails" modprobe cpuidle-haltpoll
out=$(insmod /lib/modules/*/kernel/drivers/cpuidle/cpuidle-haltpoll.ko 2>&1)
case "$out" in
*"No such device"*) tap ok "insmod without force: -ENODEV" ;;
*) tap fail "insmod without force: -ENODEV (got: $out)" ;;
esac
expect_dmesg "the refusal says why" "haltpoll: not loading: not wanted on this platform"
expect_eq "still no cpuidle driver" "$(cat $cpuidle/current_driver)" none
expect_ok "the governor is registered without KVM" grep -qw haltpoll $cpuidle/available_governors
check_dmesg
