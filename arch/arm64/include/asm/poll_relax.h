/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The arm64 wait step of smp_cond_load_relaxed_timeout(), cpu_poll_relax().
 *
 * WFE sleeps until the exclusive monitor sees a store to the watched
 * variable or an event arrives, and nothing else bounds it. So the step
 * picks, on every call:
 *
 * - WFET when the CPU has FEAT_WFxT: it also wakes at the deadline, given
 *   in virtual counter ticks and rounded up, so the overshoot is at most
 *   one counter tick plus the wake-up latency.
 * - WFE when the architected timer's event stream is on, and only while
 *   more than one event stream period remains: the next event ends the
 *   wait within a period, before the deadline.
 * - a cpu_relax() spin otherwise, including the last period before the
 *   deadline: at most SMP_TIMEOUT_SPIN_COUNT spins late.
 *
 * The timer driver turns the event stream on alike on every CPU, unless
 * the command line turns it off. Its period (ARCH_TIMER_EVT_STREAM_PERIOD_US
 * rounded to a power of two of counter ticks) and the counter's rate are
 * read once at boot, so that a wait step reads no system register but the
 * virtual counter, with the errata workarounds of the CPU.
 */
#ifndef __ASM_POLL_RELAX_H
#define __ASM_POLL_RELAX_H

#include <linux/types.h>
#include <clocksource/arm_arch_timer.h>

enum poll_relax_mode {
	POLL_RELAX_SPIN,
	POLL_RELAX_WFE,
	POLL_RELAX_WFET,
};

/**
 * poll_relax_pick_mode() - how to wait for one step
 * @has_wfxt: the CPU implements WFET
 * @evtstrm_period_ns: period of the event stream, 0 when it is off
 * @remaining_ns: time left until the deadline
 */
static __always_inline enum poll_relax_mode
poll_relax_pick_mode(bool has_wfxt, u64 evtstrm_period_ns, u64 remaining_ns)
{
	if (has_wfxt)
		return POLL_RELAX_WFET;
	if (evtstrm_period_ns && remaining_ns > evtstrm_period_ns)
		return POLL_RELAX_WFE;
	return POLL_RELAX_SPIN;
}

/* The counter bit whose 0 to 1 transitions are events, -1 for no stream. */
static __always_inline int poll_relax_evtstrm_bit(u32 cntkctl)
{
	int bit;

	if (!(cntkctl & ARCH_TIMER_VIRT_EVT_EN))
		return -1;
	bit = (cntkctl & ARCH_TIMER_EVT_TRIGGER_MASK) >>
	      ARCH_TIMER_EVT_TRIGGER_SHIFT;
	if (cntkctl & ARCH_TIMER_EVT_INTERVAL_SCALE)
		bit += 8;
	return bit;
}

#if IS_ENABLED(CONFIG_KUNIT)
u64 poll_relax_evtstrm_period_ns(void);
u64 poll_relax_evtstrm_period_now_ns(void);
void poll_relax_step(enum poll_relax_mode mode, const void *ptr,
		     unsigned long val, int size, u64 remaining_ns);
#endif

#endif /* __ASM_POLL_RELAX_H */
