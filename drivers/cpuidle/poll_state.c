// SPDX-License-Identifier: GPL-2.0-only
/*
 * poll_state.c - Polling idle state
 *
 * The CPU spins with TIF_POLLING_NRFLAG set, so a waker only sets
 * TIF_NEED_RESCHED instead of sending an IPI, until either need_resched()
 * or the poll time limit ends the spin. dev->poll_time_limit reports which:
 * governors learn from the difference between a poll that caught its wakeup
 * and one that ran out.
 *
 * The idle loop owns the flag: it enters a CPUIDLE_FLAG_POLLING state with
 * the flag still set, and clears it before any other state, so the poll
 * state neither sets nor clears it.
 *
 * In a guest, a poll holds a host CPU that another task on the host may
 * want: the poll cannot see the host's run queue, but it sees the host take
 * the CPU from it, as a jump of its clock between two of its reads
 * (poll_state.h). Such a poll ends as soon as it runs again, as one that
 * ran out, and dev->poll_preempted says so, whether or not a wakeup came
 * meanwhile. On bare metal only an interrupt that long (or an SMI) ends a
 * poll so, which a governor that does not read the bit takes for a poll
 * that ran out.
 */

#include <linux/cpuidle.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <asm/barrier.h>

#include "poll_state.h"

static int __cpuidle poll_idle(struct cpuidle_device *dev,
			       struct cpuidle_driver *drv, int index)
{
	struct poll_idle_clock clock = { .last_ns = local_clock_noinstr() };
	u64 deadline_ns = clock.last_ns + cpuidle_poll_time(drv, dev);
	unsigned long flags;

	raw_local_irq_enable();
	flags = __smp_cond_load_relaxed_timeout(&current_thread_info()->flags,
						VAL & _TIF_NEED_RESCHED,
						poll_idle_clock_read(&clock,
								     local_clock_noinstr()),
						deadline_ns, poll_idle_step);
	/* The wakeup may have come while the host ran another task. */
	poll_idle_clock_read(&clock, local_clock_noinstr());
	raw_local_irq_disable();
	dev->poll_time_limit = !(flags & _TIF_NEED_RESCHED);
	dev->poll_preempted = clock.preempted;

	return index;
}

void cpuidle_poll_state_init(struct cpuidle_driver *drv)
{
	struct cpuidle_state *state = &drv->states[0];

	snprintf(state->name, CPUIDLE_NAME_LEN, "POLL");
	snprintf(state->desc, CPUIDLE_DESC_LEN, "CPUIDLE CORE POLL IDLE");
	state->exit_latency = 0;
	state->target_residency = 0;
	state->exit_latency_ns = 0;
	state->target_residency_ns = 0;
	state->power_usage = -1;
	state->enter = poll_idle;
	state->flags = CPUIDLE_FLAG_POLLING;
}
EXPORT_SYMBOL_GPL(cpuidle_poll_state_init);
