/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The little of <linux/types.h> that the governor's pure window functions
 * (drivers/cpuidle/governors/haltpoll_window.h) use, for the userspace
 * simulator that compiles that very file.
 */
#ifndef _SIM_LINUX_TYPES_H
#define _SIM_LINUX_TYPES_H

#include <stdbool.h>
#include <stdint.h>

typedef uint64_t u64;
typedef int64_t s64;

#endif
