// SPDX-License-Identifier: GPL-2.0-only
/*
 * poll_state.c - Polling idle state
 *
 * The CPU spins with TIF_POLLING_NRFLAG set, so a waker only sets
 * TIF_NEED_RESCHED instead of sending an IPI, until either need_resched()
 * or the poll time limit ends the spin. dev->poll_time_limit reports which:
 * governors learn from the difference between a poll that caught its wakeup
 * and one that ran out.
 */

#include <linux/cpuidle.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/idle.h>

/*
 * Reading the clock costs far more than one cpu_relax(); check it once per
 * this many spins. The limit is thus overshot by at most that many spins.
 */
#define POLL_IDLE_RELAX_COUNT	200

/* Spin until need_resched(); return true if @limit_ns ran out first. */
static __always_inline bool poll_idle_spin(u64 time_start_ns, u64 limit_ns)
{
	unsigned int loop_count = 0;

	while (!need_resched()) {
		cpu_relax();
		if (loop_count++ < POLL_IDLE_RELAX_COUNT)
			continue;

		loop_count = 0;
		if (local_clock_noinstr() - time_start_ns > limit_ns)
			return true;
	}
	return false;
}

static int __cpuidle poll_idle(struct cpuidle_device *dev,
			       struct cpuidle_driver *drv, int index)
{
	u64 time_start_ns = local_clock_noinstr();

	dev->poll_time_limit = false;

	raw_local_irq_enable();
	if (!current_set_polling_and_test())
		dev->poll_time_limit = poll_idle_spin(time_start_ns,
						      cpuidle_poll_time(drv, dev));
	raw_local_irq_disable();

	current_clr_polling();

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
