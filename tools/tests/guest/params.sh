# Every governor parameter reads back its default, takes a valid value and
# refuses each invalid one, keeping the old value.
. /haltpoll/lib.sh

modprobe cpuidle-haltpoll force=1

# name default valid invalid...
check_param() {
	local name=$1 default=$2 valid=$3 bad
	shift 3
	expect_eq "$name default" "$(cat $params/$name)" "$default"
	expect_ok "$name accepts $valid" set_param "$name" "$valid"
	expect_eq "$name reads back $valid" "$(cat $params/$name)" "$valid"
	for bad in "$@"; do
		expect_fail "$name refuses '$bad'" set_param "$name" "$bad"
		expect_eq "$name kept $valid after '$bad'" "$(cat $params/$name)" "$valid"
	done
	set_param "$name" "$default"
}

check_param guest_halt_poll_ns 200000 2400000 \
	10000001 4294967295 -1 abc "" 12x 99999999999999999999
check_param guest_halt_poll_grow_start 50000 2400000 \
	0 10000001 -5 abc ""
check_param guest_halt_poll_grow 2 1 0 -1 x ""
check_param guest_halt_poll_shrink 2 4 -1 abc ""
check_param guest_halt_poll_allow_shrink Y N 2 maybe ""

expect_ok "shrink 0 (reset) is valid" set_param guest_halt_poll_shrink 0
set_param guest_halt_poll_shrink 2
expect_ok "guest_halt_poll_ns 0 disables polling" set_param guest_halt_poll_ns 0
before=$(state_usage 1 0)
pipe-bench -l 1000 | sed 's/^/# /'
expect_eq "no polling with guest_halt_poll_ns=0" "$(state_usage 1 0)" "$before"
set_param guest_halt_poll_ns 200000
expect_dmesg "a refusal says why" "guest_halt_poll_ns=10000001 refused: guest_halt_poll_ns above the 10 ms cap"
rmmod cpuidle_haltpoll
check_dmesg
