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

# The guest's own definition of a kernel splat, so both sides agree.
splat_pattern=$(sed -n "s/^splat_pattern='\(.*\)'$/\1/p" \
		"$HALTPOLL_ROOT/tools/guest/tests/lib.sh")

# check_console NAME FILE : no splat in the console log of a boot.
check_console() {
	local splats
	splats=$(grep -cE "$splat_pattern" "$2") || true
	if [ "$splats" -eq 0 ]; then
		result ok "$1" "console: 0 splats"
	else
		result FAIL "$1" "console: $splats splat lines (see $2)"
		grep -E -m5 "$splat_pattern" "$2" | sed 's/^/        /'
	fi
}
