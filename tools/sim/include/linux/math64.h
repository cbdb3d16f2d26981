/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The little of <linux/math64.h> that the governor's pure window functions
 * (drivers/cpuidle/governors/haltpoll_window.h) use, for the userspace
 * simulator that compiles that very file.
 */
#ifndef _SIM_LINUX_MATH64_H
#define _SIM_LINUX_MATH64_H

#include <linux/types.h>

static inline u64 div64_u64(u64 dividend, u64 divisor)
{
	return dividend / divisor;
}

#endif
