/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The clock of the cpuidle poll state's wait, which tells a poll the host
 * preempted from one it ran through, shared with its KUnit suite.
 */
#ifndef _CPUIDLE_POLL_STATE_H
#define _CPUIDLE_POLL_STATE_H

#include <linux/minmax.h>
#include <linux/time64.h>
#include <linux/types.h>
#include <asm/barrier.h>

/*
 * The longest one wait step of the poll is given: a step with a hardware
 * timeout (arm64's WFET) would otherwise wait out the rest of the poll,
 * up to its whole limit, between two clock reads. Above the arm64 timer's
 * event stream period (about 100 to 130 us), so that arm64 still waits in
 * WFE where it would; a spinning step ignores it and takes well under it.
 */
#define POLL_IDLE_STEP_NS	(200 * NSEC_PER_USEC)

/*
 * A clock read this long after the one before it means the CPU did not run
 * the poll in between: in a guest, the host gave its CPU to another task;
 * or an interrupt handler, with the softirqs on its way out, ran that
 * long, which the poll cannot tell apart. Above a wait step, even a
 * spin's under an emulator (tens of microseconds, a few hundred at the
 * worst seen), and below a host scheduler's time slice.
 */
#define POLL_IDLE_PREEMPTED_NS	(500 * NSEC_PER_USEC)

/**
 * struct poll_idle_clock - the clock reads of one poll
 * @last_ns: the last reading
 * @preempted: two readings came more than POLL_IDLE_PREEMPTED_NS apart
 */
struct poll_idle_clock {
	u64 last_ns;
	bool preempted;
};

/**
 * poll_idle_clock_read - take a clock reading for the poll's wait
 * @clock: the poll's clock reads
 * @now_ns: the reading
 *
 * Return: @now_ns, or U64_MAX once the poll was preempted, which ends the
 * wait at any deadline: a vCPU the host has just run again after giving
 * its CPU to another task should halt at once, not spin on in the time
 * the host needs for that task.
 */
static __always_inline u64 poll_idle_clock_read(struct poll_idle_clock *clock,
						u64 now_ns)
{
	/* Signed: a clock read slightly behind the last is no jump. */
	if ((s64)(now_ns - clock->last_ns) > (s64)POLL_IDLE_PREEMPTED_NS)
		clock->preempted = true;
	clock->last_ns = now_ns;
	return clock->preempted ? U64_MAX : now_ns;
}

/* One wait step of the poll: the architecture's, at most POLL_IDLE_STEP_NS. */
#define poll_idle_step(ptr, val, remaining_ns)				\
	cpu_poll_relax(ptr, val, min_t(u64, remaining_ns, POLL_IDLE_STEP_NS))

#endif /* _CPUIDLE_POLL_STATE_H */
