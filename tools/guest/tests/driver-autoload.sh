# Loaded as udev loads it at coldplug: kmod's modprobe by the CPU's
# modalias. Quietly refused without force, as on a guest that does not
# want polling; loaded with the options of /etc/modprobe.d.
# shellcheck source=tools/guest/tests/lib.sh
. /haltpoll/lib.sh

kmod_modprobe=/kmod/modprobe

modalias=$(sed -n 's/^MODALIAS=//p' /sys/devices/system/cpu/cpu0/uevent)
echo "# cpu0 MODALIAS=$modalias"
expect_ok "the module has a device table for guests" \
	grep -q "^alias cpu:type:x86.*cpuidle_haltpoll" /lib/modules/*/modules.alias
out=$($kmod_modprobe -v "$modalias" 2>&1)
echo "$out" | sed 's/^/# /'
case "$out" in
*"insmod "*cpuidle-haltpoll.ko*) tap ok "the modalias loads cpuidle-haltpoll" ;;
*) tap fail "the modalias loads cpuidle-haltpoll" ;;
esac
expect_eq "without force: no cpuidle driver" "$(cat $cpuidle/current_driver)" none
expect_fail "and nothing in the log" sh -c "dmesg | grep -q 'haltpoll: not loading'"

mkdir -p /etc/modprobe.d
echo "options cpuidle_haltpoll force=1" > /etc/modprobe.d/haltpoll.conf
expect_ok "modprobe by modalias with force=1 in /etc/modprobe.d" \
	$kmod_modprobe "$modalias"
expect_eq "the driver is in charge" "$(cat $cpuidle/current_driver)" haltpoll
expect_eq "with its governor" "$(cat $cpuidle/current_governor_ro)" haltpoll
rmmod cpuidle_haltpoll
rm /etc/modprobe.d/haltpoll.conf
check_dmesg
