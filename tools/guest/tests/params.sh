# Every governor parameter reads back its default, takes a valid value and
# refuses each invalid one, keeping the old value.
# shellcheck source=tools/guest/tests/lib.sh
. /haltpoll/lib.sh

modprobe cpuidle-haltpoll force=1

# name default valid invalid...
check_param() {
	local name=$1 default=$2 valid=$3 bad
	shift 3
	expect_eq "$name default" "$(cat "$params/$name")" "$default"
	expect_ok "$name accepts $valid" set_param "$name" "$valid"
	expect_eq "$name reads back $valid" "$(cat "$params/$name")" "$valid"
	for bad in "$@"; do
		expect_fail "$name refuses '$bad'" set_param "$name" "$bad"
		expect_eq "$name kept $valid after '$bad'" "$(cat "$params/$name")" "$valid"
	done
	set_param "$name" "$default"
}

# Only what 6.12 refused is refused, and grow_start 0 (a closed window
# could never open again).
check_param guest_halt_poll_ns "$default_guest_halt_poll_ns" 2400000 \
	-1 abc "" 12x 99999999999999999999
check_param guest_halt_poll_grow_start "$default_guest_halt_poll_grow_start" 2400000 \
	0 -5 abc ""
check_param guest_halt_poll_grow "$default_guest_halt_poll_grow" 1 -1 x ""
check_param guest_halt_poll_shrink "$default_guest_halt_poll_shrink" 4 -1 abc ""
check_param guest_halt_poll_allow_shrink "$default_guest_halt_poll_allow_shrink" N 2 maybe ""
# The project's own, not in 6.12: the recurring-wakeup rule, on by default.
check_param guest_halt_poll_recurring Y N 2 maybe ""
# The learned poll ceiling, off by default.
check_param guest_halt_poll_learn_ceiling N Y 2 maybe ""

# Every value and spelling Linux 6.12 took is taken, and reads back as it
# does there.
accepts() {
	expect_ok "$1 accepts '$2'" set_param "$1" "$2"
	expect_eq "$1 reads back '$2' as $3" "$(cat "$params/$1")" "$3"
}
accepts guest_halt_poll_ns 2000000000 2000000000
accepts guest_halt_poll_ns 4294967295 4294967295
accepts guest_halt_poll_ns 0x30d40 200000
accepts guest_halt_poll_grow_start 10000001 10000001
accepts guest_halt_poll_grow_start 50000 50000
accepts guest_halt_poll_grow 0 0
accepts guest_halt_poll_grow 2 2
for spelling in on:Y off:N yes:Y no:N 1:Y 0:N y:Y n:N; do
	accepts guest_halt_poll_allow_shrink "${spelling%:*}" "${spelling#*:}"
done
expect_dmesg "a window above the cap is said to stop at it" \
	"guest_halt_poll_ns=2000000000: windows stop at the 10000000 ns cap"
# A write that includes its terminating NUL, as write(fd, "Y", 2) does.
expect_ok "a write with its NUL is taken" \
	sh -c "printf 'N\\0' > $params/guest_halt_poll_allow_shrink"
expect_eq "and reads back" "$(cat $params/guest_halt_poll_allow_shrink)" N
expect_ok "a number with its NUL and newline is taken" \
	sh -c "printf '100000\\n\\0' > $params/guest_halt_poll_ns"
expect_eq "and reads back" "$(cat $params/guest_halt_poll_ns)" 100000
restore_defaults

# Refusals are rate-limited: a loop of bad writes must not flood the log.
before=$(dmesg | grep -c 'refused')
i=0
while [ $i -lt 200 ]; do
	set_param guest_halt_poll_grow_start 0
	i=$((i + 1))
done
logged=$(( $(dmesg | grep -c 'refused') - before ))
expect_gt "200 bad writes log at most 20 lines ($logged)" 21 "$logged"
expect_gt "and log at least one" "$logged" 0

expect_ok "shrink 0 (reset) is valid" set_param guest_halt_poll_shrink 0
restore_defaults
expect_ok "guest_halt_poll_ns 0 disables polling" set_param guest_halt_poll_ns 0
before=$(state_usage 1 0)
pipe-bench -l 1000 | sed 's/^/# /'
expect_eq "no polling with guest_halt_poll_ns=0" "$(state_usage 1 0)" "$before"
restore_defaults
expect_dmesg "a refusal says why" "guest_halt_poll_grow_start=0 refused: a closed window could never open"
rmmod cpuidle_haltpoll
check_dmesg
