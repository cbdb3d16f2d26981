/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _ARCH_HALTPOLL_H
#define _ARCH_HALTPOLL_H

#include <linux/types.h>
#include <asm/processor.h>

void arch_haltpoll_enable(unsigned int cpu);
void arch_haltpoll_disable(unsigned int cpu);
bool arch_haltpoll_want(bool force);

static inline bool arch_haltpoll_idle_overridden(void)
{
	return boot_option_idle_override != IDLE_NO_OVERRIDE;
}

#endif
