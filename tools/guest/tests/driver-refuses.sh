# Without force, on a host that is not KVM with the realtime hint, the
# driver stays out of the way.
# shellcheck source=tools/guest/tests/lib.sh
. /haltpoll/lib.sh

expect_eq "no cpuidle driver at boot" "$(cat $cpuidle/current_driver)" none
expect_fail "modprobe without force fails" modprobe cpuidle-haltpoll
out=$(insmod /lib/modules/*/kernel/drivers/cpuidle/cpuidle-haltpoll.ko 2>&1)
case "$out" in
*"No such device"*) tap ok "insmod without force: -ENODEV" ;;
*) tap fail "insmod without force: -ENODEV (got: $out)" ;;
esac
# Autoloaded in every guest, it must not log in most of them.
expect_fail "the refusal is quiet" sh -c "dmesg | grep -q 'haltpoll: not loading'"
expect_eq "still no cpuidle driver" "$(cat $cpuidle/current_driver)" none
expect_ok "the governor is registered without KVM" grep -qw haltpoll $cpuidle/available_governors
check_dmesg
