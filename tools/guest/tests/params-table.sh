# Writes a table of inputs to every haltpoll parameter, each as echo does
# (value and newline), as printf '%s' does (no newline) and with its
# terminating NUL, restoring the default after each; prints
#   PARAM name mode input rc readback
# for tools/tests/params-vs-stock to compare between two kernels. The
# input is printed with '_' for an empty one. Then the values the kernel
# command line set: BOOT name value.
params=/sys/module/haltpoll/parameters
# The table shares the serial console with the kernel: keep its messages
# (a refused write logs why) off the console, or one can land inside a
# line of the table. They stay in the kernel log.
echo 1 > /proc/sys/kernel/printk
# shellcheck source=tools/guest/tests/defaults-6.12.sh
. /haltpoll/defaults-6.12.sh

for p in guest_halt_poll_ns guest_halt_poll_grow_start guest_halt_poll_grow \
	 guest_halt_poll_shrink guest_halt_poll_allow_shrink; do
	echo "BOOT $p $(cat $params/$p)"
done
modprobe cpuidle-haltpoll force=1 || exit 1

# write NAME MODE INPUT : one write, then its status and read-back.
write() {
	case "$2" in
	echo) echo "$3" > "$params/$1" ;;
	nonl) printf '%s' "$3" > "$params/$1" ;;
	nul) printf '%s\0' "$3" > "$params/$1" ;;
	esac 2> /dev/null
	echo "PARAM $1 $2 ${3:-_} $? $(cat "$params/$1")"
}

# table NAME DEFAULT INPUT... : every input in every mode.
table() {
	name=$1
	default=$2
	shift 2
	for mode in echo nonl nul; do
		for input in "$@"; do
			write "$name" "$mode" "$input"
			echo "$default" > "$params/$name"
		done
	done
}

table guest_halt_poll_ns "$default_guest_halt_poll_ns" 0 1 200000 2400000 \
	10000000 10000001 2000000000 4294967295 4294967296 -1 0x30d40 010 \
	abc 12x ""
table guest_halt_poll_grow_start "$default_guest_halt_poll_grow_start" 0 1 \
	50000 2400000 10000001 4294967295 -5 abc ""
table guest_halt_poll_grow "$default_guest_halt_poll_grow" 0 1 2 10 \
	4294967295 -1 x ""
table guest_halt_poll_shrink "$default_guest_halt_poll_shrink" 0 1 2 \
	4294967295 -1 abc ""
table guest_halt_poll_allow_shrink "$default_guest_halt_poll_allow_shrink" \
	Y N y n 1 0 on off yes no true false ON Off 2 maybe ""
# The SAP HANA profile, in the order tuned writes it.
echo 2400000 > $params/guest_halt_poll_ns
echo 2400000 > $params/guest_halt_poll_grow_start
echo "PARAM sap-profile echo 2400000,2400000 0 $(cat $params/guest_halt_poll_ns),$(cat $params/guest_halt_poll_grow_start)"
rmmod cpuidle_haltpoll
