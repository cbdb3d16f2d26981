// SPDX-License-Identifier: GPL-2.0
/*
 * cpu_poll_relax(), the arm64 wait step of smp_cond_load_relaxed_timeout():
 * see <asm/poll_relax.h> for how a step is picked and what bounds it.
 *
 * The step runs in the cpuidle poll state, where RCU may not be watching:
 * it is noinstr, what it calls is inlined (but for the workaround of a
 * counter erratum, which the counter read calls out of line, notrace, on
 * the CPUs that need one), and the Makefile keeps the sanitizers, KCOV and
 * ftrace out of this file in case the compiler still emits an out-of-line
 * copy of an inline helper.
 */

#include <linux/cache.h>
#include <linux/clocksource.h>
#include <linux/export.h>
#include <linux/init.h>
#include <linux/math64.h>
#include <linux/time64.h>
#include <kunit/visibility.h>
#include <asm/arch_timer.h>
#include <asm/barrier.h>
#include <asm/cmpxchg.h>
#include <asm/cpufeature.h>
#include <asm/poll_relax.h>

/*
 * The longest WFET: longer waits take several steps, so that the deadline
 * in counter ticks can neither overflow nor lose precision.
 */
#define POLL_RELAX_WFET_MAX_NS	NSEC_PER_SEC

/* Nanoseconds to counter ticks: ticks = ns * mult >> shift. */
static u32 poll_relax_mult __ro_after_init;
static u32 poll_relax_shift __ro_after_init;
/* The event stream's period, 0 while it is off or not known yet. */
static u64 poll_relax_evtstrm_ns __ro_after_init;

/* The event stream period CNTKCTL_EL1 gives at @rate_hz, 0 when it is off. */
static u64 poll_relax_period_ns(u32 cntkctl, u32 rate_hz)
{
	int bit = poll_relax_evtstrm_bit(cntkctl);

	if (bit < 0 || !rate_hz)
		return 0;
	return DIV_ROUND_UP_ULL((2ULL << bit) * NSEC_PER_SEC, rate_hz);
}

/*
 * Read once the timer driver is done: the event stream is turned on by
 * its core_initcall, so this waits for the sync level after it. Before,
 * a step spins or waits in WFET for a tick at a time: both are bounded.
 */
static int __init poll_relax_init(void)
{
	u32 rate_hz = arch_timer_get_rate();

	if (rate_hz)
		clocks_calc_mult_shift(&poll_relax_mult, &poll_relax_shift,
				       NSEC_PER_SEC, rate_hz,
				       POLL_RELAX_WFET_MAX_NS / NSEC_PER_SEC);
	poll_relax_evtstrm_ns = poll_relax_period_ns(arch_timer_get_cntkctl(),
						     rate_hz);
	return 0;
}
core_initcall_sync(poll_relax_init);

/*
 * As __cmpwait_case_##sz(), but the second wait is a WFET: arm the
 * exclusive monitor on *@ptr, and unless it already differs from @val,
 * wait for a store to it, an event or the virtual counter reaching
 * @deadline_ticks. Whatever clears the monitor in between (an exception
 * return) also sets the event register, so the WFET then returns at once.
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
static __always_inline bool poll_relax_wfet(const void *ptr,
					    unsigned long val, int size,
					    u64 remaining_ns)
{
	u64 wait_ns = min_t(u64, remaining_ns, POLL_RELAX_WFET_MAX_NS);
	u64 deadline_ticks = __arch_counter_get_cntvct_stable() + 1 +
		mul_u64_u32_shr(wait_ns, poll_relax_mult, poll_relax_shift);

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

/* WFE until *@ptr changes or an event, with __cmpwait()'s size constant. */
static __always_inline void poll_relax_wfe(const void *ptr, unsigned long val,
					   int size)
{
	switch (size) {
	case 1:
		__cmpwait((void *)ptr, val, 1);
		break;
	case 2:
		__cmpwait((void *)ptr, val, 2);
		break;
	case 4:
		__cmpwait((void *)ptr, val, 4);
		break;
	case 8:
		__cmpwait((void *)ptr, val, 8);
		break;
	}
}

/* Has *@ptr, of @size bytes, changed from @val? */
static __always_inline bool poll_relax_changed(const void *ptr,
					       unsigned long val, int size)
{
	switch (size) {
	case 1:
		return READ_ONCE(*(const u8 *)ptr) != (u8)val;
	case 2:
		return READ_ONCE(*(const u16 *)ptr) != (u16)val;
	case 4:
		return READ_ONCE(*(const u32 *)ptr) != (u32)val;
	default:
		return READ_ONCE(*(const u64 *)ptr) != (u64)val;
	}
}

/* The generic step: spin until *@ptr changes, SMP_TIMEOUT_SPIN_COUNT at most. */
static __always_inline void poll_relax_spin(const void *ptr,
					    unsigned long val, int size)
{
	unsigned int spins = SMP_TIMEOUT_SPIN_COUNT;

	while (!poll_relax_changed(ptr, val, size) && --spins)
		asm volatile("yield" ::: "memory");	/* cpu_relax() */
}

static __always_inline void __poll_relax_step(enum poll_relax_mode mode,
					      const void *ptr,
					      unsigned long val, int size,
					      u64 remaining_ns)
{
	switch (mode) {
	case POLL_RELAX_WFET:
		if (poll_relax_wfet(ptr, val, size, remaining_ns))
			return;
		break;
	case POLL_RELAX_WFE:
		poll_relax_wfe(ptr, val, size);
		return;
	default:
		break;
	}
	poll_relax_spin(ptr, val, size);
}

void noinstr __cpu_poll_relax(const void *ptr, unsigned long val, int size,
			      unsigned long long remaining_ns)
{
	bool has_wfxt = alternative_has_cap_unlikely(ARM64_HAS_WFXT);

	__poll_relax_step(poll_relax_pick_mode(has_wfxt, poll_relax_evtstrm_ns,
					       remaining_ns),
			  ptr, val, size, remaining_ns);
}
EXPORT_SYMBOL_GPL(__cpu_poll_relax);

#if IS_ENABLED(CONFIG_KUNIT)
/* The event stream period cached at boot. */
u64 poll_relax_evtstrm_period_ns(void)
{
	return poll_relax_evtstrm_ns;
}
EXPORT_SYMBOL_IF_KUNIT(poll_relax_evtstrm_period_ns);

/* The event stream period this CPU's CNTKCTL_EL1 gives now. */
u64 poll_relax_evtstrm_period_now_ns(void)
{
	return poll_relax_period_ns(arch_timer_get_cntkctl(),
				    arch_timer_get_rate());
}
EXPORT_SYMBOL_IF_KUNIT(poll_relax_evtstrm_period_now_ns);

/* One wait step in @mode, whichever this CPU would pick. */
void poll_relax_step(enum poll_relax_mode mode, const void *ptr,
		     unsigned long val, int size, u64 remaining_ns)
{
	__poll_relax_step(mode, ptr, val, size, remaining_ns);
}
EXPORT_SYMBOL_IF_KUNIT(poll_relax_step);
#endif
