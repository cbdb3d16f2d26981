/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The arm64 wait step of smp_cond_load_relaxed_timeout().
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
 * - the generic cpu_relax() spin otherwise, including the last period
 *   before the deadline: at most COND_WAIT_SPIN_COUNT spins late.
 *
 * The event stream's state and period are read from CNTKCTL_EL1 rather
 * than assumed: the period is ARCH_TIMER_EVT_STREAM_PERIOD_US rounded to a
 * power of two of counter ticks, and the stream can be turned off on the
 * command line. The counter is read through the timer driver's accessor,
 * which applies the errata workarounds of the CPU.
 */
#ifndef __ASM_COND_WAIT_H
#define __ASM_COND_WAIT_H

#include <linux/math64.h>
#include <linux/time64.h>
#include <linux/types.h>
#include <asm/arch_timer.h>
#include <asm/barrier.h>
#include <asm/cmpxchg.h>
#include <asm/cpufeature.h>
#include <clocksource/arm_arch_timer.h>

enum cond_wait_mode {
	COND_WAIT_SPIN,
	COND_WAIT_WFE,
	COND_WAIT_WFET,
};

/**
 * cond_wait_pick_mode() - how to wait for one step
 * @has_wfxt: the CPU implements WFET
 * @evtstrm_period_ns: period of the event stream, 0 when it is off
 * @remaining_ns: time left until the deadline
 */
static __always_inline enum cond_wait_mode
cond_wait_pick_mode(bool has_wfxt, u64 evtstrm_period_ns, u64 remaining_ns)
{
	if (has_wfxt)
		return COND_WAIT_WFET;
	if (evtstrm_period_ns && remaining_ns > evtstrm_period_ns)
		return COND_WAIT_WFE;
	return COND_WAIT_SPIN;
}

/* The counter bit whose 0 to 1 transitions are events, -1 for no stream. */
static __always_inline int cond_wait_evtstrm_bit(u32 cntkctl)
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

/* @ticks of the counter in nanoseconds, rounded up. */
static __always_inline u64 cond_wait_ticks_to_ns(u64 ticks)
{
	u32 freq = arch_timer_get_cntfrq();

	return div_u64(ticks * NSEC_PER_SEC + freq - 1, freq);
}

/*
 * Period of this CPU's event stream in nanoseconds, 0 when it is off: an
 * event on every 0 to 1 transition of the counter's event bit.
 */
static __always_inline u64 cond_wait_evtstrm_period_ns(void)
{
	int bit = cond_wait_evtstrm_bit(arch_timer_get_cntkctl());

	return bit < 0 ? 0 : cond_wait_ticks_to_ns(2ULL << bit);
}

/*
 * As __cmpwait_case_##sz(), but the second wait is a WFET: arm the
 * exclusive monitor on *@ptr, and unless it already differs from @val,
 * wait for a store to it, an event or the counter reaching @deadline_ticks.
 * Whatever clears the monitor in between (an exception return) also sets
 * the event register, so the WFET then returns at once.
 */
#define __CMPWAIT_TIMEOUT_CASE(w, sz)					\
static __always_inline void						\
__cmpwait_timeout_case_##sz(const void *ptr, unsigned long val,	\
			    u64 deadline_ticks)				\
{									\
	unsigned long tmp;						\
									\
	asm volatile(							\
	"	sevl\n"							\
	"	wfe\n"							\
	"	ldxr	%" #w "[tmp], %[v]\n"				\
	"	eor	%" #w "[tmp], %" #w "[tmp], %" #w "[val]\n"	\
	: [tmp] "=&r" (tmp), [v] "+Q" (*(u##sz *)ptr)			\
	: [val] "r" (val));						\
	if (!tmp)							\
		wfet(deadline_ticks);					\
}

__CMPWAIT_TIMEOUT_CASE(w, 32);
__CMPWAIT_TIMEOUT_CASE(x, 64);

#undef __CMPWAIT_TIMEOUT_CASE

/* WFET until *@ptr changes or @remaining_ns pass; false if @size is odd. */
static __always_inline bool cond_wait_wfet(const void *ptr,
					   unsigned long val, int size,
					   u64 remaining_ns)
{
	u64 deadline_ticks = arch_timer_read_counter() + 1 +
		mul_u64_u32_div(remaining_ns, arch_timer_get_cntfrq(),
				NSEC_PER_SEC);

	switch (size) {
	case 4:
		__cmpwait_timeout_case_32(ptr, val, deadline_ticks);
		return true;
	case 8:
		__cmpwait_timeout_case_64(ptr, val, deadline_ticks);
		return true;
	}
	return false;
}

/* One wait step in @mode; false if the caller has to spin instead. */
static __always_inline bool cond_wait_sleep(enum cond_wait_mode mode,
					    const void *ptr,
					    unsigned long val, int size,
					    u64 remaining_ns)
{
	switch (mode) {
	case COND_WAIT_WFET:
		return cond_wait_wfet(ptr, val, size, remaining_ns);
	case COND_WAIT_WFE:
		__cmpwait((void *)ptr, val, size);
		return true;
	default:
		return false;
	}
}

static __always_inline enum cond_wait_mode cond_wait_mode(u64 remaining_ns)
{
	bool has_wfxt = alternative_has_cap_unlikely(ARM64_HAS_WFXT);

	/* WFET needs no event stream: skip the reads and the division. */
	return cond_wait_pick_mode(has_wfxt,
				   has_wfxt ? 0 : cond_wait_evtstrm_period_ns(),
				   remaining_ns);
}

/* The wait step in a given mode; tests run each mode through this. */
#define cond_wait_changed_mode(mode, ptr, val, remaining_ns)		\
do {									\
	typeof(ptr) __step_ptr = (ptr);					\
	typeof(*__step_ptr) __step_val = (val);				\
									\
	if (!cond_wait_sleep(mode, __step_ptr,				\
			     (unsigned long)__step_val,			\
			     sizeof(*__step_ptr), remaining_ns))	\
		cond_wait_spin(__step_ptr, __step_val);			\
} while (0)

#define arch_cond_wait_changed(ptr, val, remaining_ns)			\
do {									\
	u64 __remaining_ns = (remaining_ns);				\
									\
	cond_wait_changed_mode(cond_wait_mode(__remaining_ns), ptr,	\
			       val, __remaining_ns);			\
} while (0)

#include <asm-generic/cond_wait.h>

#endif /* __ASM_COND_WAIT_H */
