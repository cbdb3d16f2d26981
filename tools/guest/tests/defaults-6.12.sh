# SPDX-License-Identifier: GPL-2.0
# Linux 6.12's defaults of the haltpoll governor's parameters, which the
# project keeps. Written here once: the guest scripts source it through
# lib.sh, tools/sim/validate.py reads it. Values as sysfs reads them back.
# shellcheck disable=SC2034 # for the scripts that source this file
default_guest_halt_poll_ns=200000
# shellcheck disable=SC2034
default_guest_halt_poll_grow=2
# shellcheck disable=SC2034
default_guest_halt_poll_grow_start=50000
# shellcheck disable=SC2034
default_guest_halt_poll_shrink=2
# shellcheck disable=SC2034
default_guest_halt_poll_allow_shrink=Y
