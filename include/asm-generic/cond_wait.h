/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DOC: Waiting for a condition on a variable, bounded in time
 *
 * smp_cond_load_relaxed() waits until a condition on a variable holds.
 * Where the architecture waits for the store in a low power state (WFE on
 * arm64), nothing wakes the CPU if the store never comes, so a caller with
 * a time limit of its own, such as the cpuidle poll state, cannot use it.
 *
 * smp_cond_load_relaxed_timeout() adds a deadline. It alternates between
 * testing the condition, reading the caller's clock, and one wait step:
 * arch_cond_wait_changed() waits until the variable may have changed, for
 * a bounded time. It returns at the first clock reading at or past the
 * deadline, so it overshoots the deadline by at most one wait step and one
 * clock read. The generic wait step spins COND_WAIT_SPIN_COUNT times with
 * cpu_relax(); architectures with a better way to wait override it and
 * state their own bound.
 */
#ifndef __ASM_GENERIC_COND_WAIT_H
#define __ASM_GENERIC_COND_WAIT_H

#include <linux/compiler.h>
#include <linux/processor.h>
#include <linux/types.h>

/*
 * Spins between two reads of the clock: a clock read costs far more than
 * one cpu_relax(), and the deadline is overshot by at most this many.
 */
#define COND_WAIT_SPIN_COUNT	200

/* Spin until *@ptr differs from @val, at most COND_WAIT_SPIN_COUNT times. */
#define cond_wait_spin(ptr, val)					\
do {									\
	typeof(ptr) __spin_ptr = (ptr);					\
	typeof(*__spin_ptr) __spin_val = (val);				\
	unsigned int __spins = COND_WAIT_SPIN_COUNT;			\
									\
	while (READ_ONCE(*__spin_ptr) == __spin_val && --__spins)	\
		cpu_relax();						\
} while (0)

#ifndef arch_cond_wait_changed
/*
 * arch_cond_wait_changed(ptr, val, remaining_ns) - one bounded wait step:
 * return once *@ptr may differ from @val or after a bounded time. An
 * architecture that waits in a low power state must not sleep past
 * @remaining_ns by more than the bound it documents. Spinning needs no
 * time left: its bound is its spin count.
 */
#define arch_cond_wait_changed(ptr, val, remaining_ns)			\
do {									\
	(void)(remaining_ns);						\
	cond_wait_spin(ptr, val);					\
} while (0)
#endif

/*
 * __cond_load_relaxed_timeout() is smp_cond_load_relaxed_timeout() with
 * the wait step as a parameter, so that a test can run each step an
 * architecture has, whichever one it would pick on this CPU.
 */
#define __cond_load_relaxed_timeout(ptr, cond_expr, time_expr,		\
				    deadline_ns, wait_step)		\
({									\
	typeof(ptr) __PTR = (ptr);					\
	__unqual_scalar_typeof(*__PTR) VAL;				\
	u64 __deadline_ns = (deadline_ns);				\
	u64 __now_ns;							\
									\
	for (;;) {							\
		VAL = READ_ONCE(*__PTR);				\
		if (cond_expr)						\
			break;						\
		__now_ns = (time_expr);					\
		if (__now_ns >= __deadline_ns)				\
			break;						\
		wait_step(__PTR, VAL, __deadline_ns - __now_ns);	\
	}								\
	(typeof(*__PTR))VAL;						\
})

/**
 * smp_cond_load_relaxed_timeout() - wait for a condition, up to a deadline
 * @ptr: the variable to wait on
 * @cond_expr: the condition to wait for; VAL names the value read from @ptr
 * @time_expr: reads the caller's clock, in nanoseconds
 * @deadline_ns: the reading of @time_expr at which to give up
 *
 * Like smp_cond_load_relaxed(), without ordering guarantees, but returns
 * once @time_expr reaches @deadline_ns, late by at most one wait step of
 * the architecture. @time_expr is evaluated only while the condition is
 * false.
 *
 * Return: the last value read from @ptr. Test @cond_expr on it to tell a
 * met condition from a timeout.
 */
#define smp_cond_load_relaxed_timeout(ptr, cond_expr, time_expr, deadline_ns) \
	__cond_load_relaxed_timeout(ptr, cond_expr, time_expr,		\
				    deadline_ns, arch_cond_wait_changed)

#endif /* __ASM_GENERIC_COND_WAIT_H */
