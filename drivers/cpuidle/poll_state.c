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
 */

#include <linux/cpuidle.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <asm/barrier.h>

/*
 * Wait until need_resched() or until @limit_ns have passed; return true if
 * the time ran out. smp_cond_load_relaxed_timeout() waits as the
 * architecture does best (PAUSE on x86; WFET, WFE or a spin on arm64) and
 * stops at most one of its wait steps past the limit.
 */
static __always_inline bool poll_idle_wait(u64 time_start_ns, u64 limit_ns)
{
	unsigned long flags;

	flags = smp_cond_load_relaxed_timeout(&current_thread_info()->flags,
					      VAL & _TIF_NEED_RESCHED,
					      local_clock_noinstr(),
					      time_start_ns + limit_ns);
	return !(flags & _TIF_NEED_RESCHED);
}

static int __cpuidle poll_idle(struct cpuidle_device *dev,
			       struct cpuidle_driver *drv, int index)
{
	u64 time_start_ns = local_clock_noinstr();

	raw_local_irq_enable();
	dev->poll_time_limit = poll_idle_wait(time_start_ns,
					      cpuidle_poll_time(drv, dev));
	raw_local_irq_disable();

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
