# SPDX-License-Identifier: GPL-2.0
# Test results in the form tools/check counts: "ok|FAIL|skip NAME: TEXT",
# one per line, with running totals. Source it after common.sh.
# shellcheck shell=bash

passed=0
failed=0
skipped=0

# result ok|FAIL|skip NAME TEXT : print one result and count it.
result() {
	case "$1" in
	ok) passed=$((passed + 1)) ;;
	skip) skipped=$((skipped + 1)) ;;
	*) failed=$((failed + 1)) ;;
	esac
	printf '%-7s %s: %s\n' "$1" "$2" "$3"
}

# TAP from a guest script: the plan must match what ran.
count_tap() {
	local name=$1 out=$2 line ran=0 plan
	while IFS= read -r line; do
		case "$line" in
		"ok "*) result ok "$name" "${line#ok }"; ran=$((ran + 1)) ;;
		"not ok "*) result FAIL "$name" "${line#not ok }"; ran=$((ran + 1)) ;;
		"# "*) echo "        $line" ;;
		esac
	done < "$out"
	plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$out" | tail -1)
	if [ -z "$plan" ] || [ "$plan" -ne "$ran" ]; then
		result FAIL "$name" "guest script stopped early (ran $ran, plan '${plan:-none}')"
	fi
}
