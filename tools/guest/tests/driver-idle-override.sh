# Booted with idle= (the runner passes idle=halt): even force must not load.
# shellcheck source=tools/guest/tests/lib.sh
. /haltpoll/lib.sh

expect_fail "modprobe force=1 fails after idle=" modprobe cpuidle-haltpoll force=1
expect_dmesg "the refusal names idle=" "haltpoll: not loading: idle= given"
expect_ok "module not loaded" sh -c '! grep -q cpuidle_haltpoll /proc/modules'
check_dmesg
