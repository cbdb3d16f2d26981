/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _CPUIDLE_HALTPOLL_H
#define _CPUIDLE_HALTPOLL_H

#include <linux/types.h>

/*
 * Architecture hooks of the cpuidle-haltpoll driver:
 *
 * arch_haltpoll_want(force) - whether the driver should load on this
 *	machine; @force is the driver's "force" parameter.
 * arch_haltpoll_idle_overridden() - whether the command line chose the
 *	idle routine (x86's idle=), which the driver must then not replace.
 * arch_haltpoll_enable(cpu) / arch_haltpoll_disable(cpu) - called as the
 *	driver takes over, or gives back, a CPU, e.g. to tell the host to stop
 *	polling on that vCPU's behalf while the guest polls.
 *
 * arm64 uses the defaults below: its KVM has neither a realtime hint nor a
 * poll control interface, so the driver loads only when forced and there
 * is nothing to tell the host.
 */
#ifdef CONFIG_ARCH_CPUIDLE_HALTPOLL
#include <asm/cpuidle_haltpoll.h>
#else
static inline void arch_haltpoll_enable(unsigned int cpu)
{
}

static inline void arch_haltpoll_disable(unsigned int cpu)
{
}

static inline bool arch_haltpoll_idle_overridden(void)
{
	return false;
}

/* Without an arch opinion, load only when asked to. */
static inline bool arch_haltpoll_want(bool force)
{
	return force;
}
#endif
#endif
