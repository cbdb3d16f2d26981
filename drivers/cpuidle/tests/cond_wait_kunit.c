// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of smp_cond_load_relaxed_timeout(), the bounded wait of the
 * cpuidle poll state.
 *
 * The loop is tested on a fake clock, where the number of clock reads is
 * exact, and so is the poll state's wait, which also tells a poll the host
 * preempted (a jump of its clock) from one it ran through. Then each wait
 * step this CPU has (the arch's own pick; on arm64 also the spin, WFE and
 * WFET steps by name) waits on a real clock, for a
 * store from a timer and for a store that never comes. The bound checked
 * on real time is loose on purpose: it proves that the wait ends, not how
 * fast; the measured overshoot is printed for the reader.
 */

#include <kunit/test.h>
#include <linux/cpuidle.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/processor.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <asm/barrier.h>

#include "../poll_state.h"

#ifdef CONFIG_ARM64
#include <linux/cpu.h>
#include <linux/smp.h>
#include <asm/cpufeature.h>
#include <asm/poll_relax.h>

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
#endif

#define US	1000ULL
#define MS	1000000ULL

/* Real-time slack: enough for a vCPU the host did not run for a while. */
#define LIVE_SLACK_NS	(50 * MS)

/*
 * A clock that advances @step_ns per read, and @jump_ns more at read
 * @jump_at_read, and may store to @var.
 */
struct fake_clock {
	u64 now_ns;
	u64 step_ns;
	unsigned int reads;
	unsigned int store_at_read;
	unsigned long *var;
	unsigned long store_val;
	unsigned int jump_at_read;
	u64 jump_ns;
};

static u64 fake_clock_read(struct fake_clock *clock)
{
	clock->reads++;
	if (clock->reads == clock->store_at_read)
		WRITE_ONCE(*clock->var, clock->store_val);
	clock->now_ns += clock->step_ns;
	if (clock->reads == clock->jump_at_read)
		clock->now_ns += clock->jump_ns;
	return clock->now_ns;
}

struct loop_case {
	const char *name;
	unsigned long initial;
	unsigned int store_at_read;	/* 0: never */
	unsigned long store_val;
	u64 step_ns;
	u64 deadline_ns;
	unsigned int expected_reads;
	bool expected_met;
};

static const struct loop_case loop_cases[] = {
	{ "already true reads no clock", 1, 0, 0, 10, 100, 0, true },
	{ "store before the deadline ends the wait", 0, 3, 1, 10, 100, 3, true },
	{ "unrelated store keeps waiting", 0, 2, 2, 10, 100, 10, false },
	{ "never true stops at the deadline", 0, 0, 0, 10, 100, 10, false },
	{ "deadline between reads stops at the next", 0, 0, 0, 30, 100, 4, false },
	{ "past deadline reads the clock once", 0, 0, 0, 10, 0, 1, false },
	{ "store at the deadline read is not waited for", 0, 10, 1, 10, 100, 10, false },
};

static void cond_wait_loop_test(struct kunit *test)
{
	const struct loop_case *c;
	unsigned long var, val;

	for (c = loop_cases; c < loop_cases + ARRAY_SIZE(loop_cases); c++) {
		struct fake_clock clock = {
			.step_ns = c->step_ns, .var = &var,
			.store_at_read = c->store_at_read,
			.store_val = c->store_val,
		};

		var = c->initial;
		val = smp_cond_load_relaxed_timeout(&var, VAL & 1,
						    fake_clock_read(&clock),
						    c->deadline_ns);
		KUNIT_EXPECT_EQ_MSG(test, clock.reads, c->expected_reads,
				    "case: %s", c->name);
		KUNIT_EXPECT_EQ_MSG(test, (bool)(val & 1), c->expected_met,
				    "case: %s", c->name);
	}
}

struct poll_case {
	const char *name;
	unsigned int store_at_read;	/* 0: never */
	unsigned int jump_at_read;	/* 0: never */
	u64 jump_ns;
	unsigned int expected_reads;	/* the one after the wait included */
	bool expected_met;
	bool expected_preempted;
};

/* Reads 100 us apart, a deadline at 1 ms. */
static const struct poll_case poll_cases[] = {
	{ "a poll left alone runs to its deadline", 0, 0, 0, 11, false, false },
	{ "a jump ends the poll at once", 0, 3, POLL_IDLE_PREEMPTED_NS,
	  4, false, true },
	{ "a jump to the threshold is not one", 0, 3,
	  POLL_IDLE_PREEMPTED_NS - 100 * US, 7, false, false },
	{ "a wakeup found after a jump is caught, the jump counted", 3, 4,
	  POLL_IDLE_PREEMPTED_NS, 4, true, true },
	{ "a wakeup before any jump is caught", 3, 0, 0, 4, true, false },
	{ "a jump past the deadline is counted", 0, 10, POLL_IDLE_PREEMPTED_NS,
	  11, false, true },
};

static u64 poll_test_read(struct poll_idle_clock *poll,
			  struct fake_clock *clock)
{
	return poll_idle_clock_read(poll, fake_clock_read(clock));
}

/*
 * The poll state's wait, as poll_idle() runs it: a jump of the clock
 * between two reads, the one after the wait included, marks the poll
 * preempted, and one within the wait ends it at once.
 */
static void cond_wait_poll_test(struct kunit *test)
{
	const struct poll_case *c;
	unsigned long var, val;

	for (c = poll_cases; c < poll_cases + ARRAY_SIZE(poll_cases); c++) {
		struct fake_clock clock = {
			.step_ns = 100 * US, .var = &var,
			.store_at_read = c->store_at_read,
			.store_val = _TIF_NEED_RESCHED,
			.jump_at_read = c->jump_at_read,
			.jump_ns = c->jump_ns,
		};
		struct poll_idle_clock poll = { };

		/* As poll_idle() waits, on the fake clock. */
		var = 0;
		val = __smp_cond_load_relaxed_timeout(&var,
						      VAL & _TIF_NEED_RESCHED,
						      poll_test_read(&poll, &clock),
						      MS, poll_idle_step);
		poll_test_read(&poll, &clock);
		KUNIT_EXPECT_EQ_MSG(test, clock.reads, c->expected_reads,
				    "case: %s", c->name);
		KUNIT_EXPECT_EQ_MSG(test, (bool)(val & _TIF_NEED_RESCHED),
				    c->expected_met, "case: %s", c->name);
		KUNIT_EXPECT_EQ_MSG(test, poll.preempted, c->expected_preempted,
				    "case: %s", c->name);
	}
}

/* A hard interrupt that keeps the CPU past the poll state's threshold. */
static enum hrtimer_restart slow_irq_fn(struct hrtimer *timer)
{
	udelay(POLL_IDLE_PREEMPTED_NS / NSEC_PER_USEC + 200);
	return HRTIMER_NORESTART;
}

/*
 * poll_idle() itself, entered as cpuidle enters it (interrupts off): an
 * interrupt that keeps the CPU from the poll for longer than
 * POLL_IDLE_PREEMPTED_NS, as a host that preempts a vCPU does, ends the
 * poll long before its limit, as one that ran out, and marks it
 * preempted. A poll that a wakeup ended first is tried again, once the
 * test's task has taken any reschedule left pending.
 */
static void cond_wait_poll_idle_test(struct kunit *test)
{
	struct cpuidle_driver *drv;
	struct cpuidle_device *dev;
	struct hrtimer *timer;
	u64 start_ns, end_ns;
	int tries;

	drv = kunit_kzalloc(test, sizeof(*drv), GFP_KERNEL);
	dev = kunit_kzalloc(test, sizeof(*dev), GFP_KERNEL);
	timer = kunit_kzalloc(test, sizeof(*timer), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, drv && dev && timer);
	cpuidle_poll_state_init(drv);
	if (!drv->states[0].enter)
		kunit_skip(test, "no cpuidle poll state on this architecture");
	dev->poll_limit_ns = 10 * MS;
	hrtimer_init(timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	timer->function = slow_irq_fn;
	for (tries = 0; tries < 5; tries++) {
		/* A reschedule left pending would end the poll at once. */
		if (need_resched())
			schedule();
		local_irq_disable();
		hrtimer_start(timer, ns_to_ktime(50 * US),
			      HRTIMER_MODE_REL_PINNED_HARD);
		start_ns = local_clock();
		drv->states[0].enter(dev, drv, 0);
		end_ns = local_clock();
		local_irq_enable();
		hrtimer_cancel(timer);
		if (dev->poll_preempted && dev->poll_time_limit)
			break;
	}
	KUNIT_EXPECT_TRUE(test, dev->poll_preempted);
	KUNIT_EXPECT_TRUE(test, dev->poll_time_limit);
	KUNIT_EXPECT_LT(test, end_ns - start_ns, dev->poll_limit_ns);
	kunit_info(test, "poll ended after %llu us, %d retries\n",
		   (end_ns - start_ns) / US, tries);
}

/* The wait steps to run on a real clock. */
enum live_step {
	LIVE_STEP_ARCH,
#ifdef CONFIG_ARM64
	LIVE_STEP_SPIN,
	LIVE_STEP_WFE,
	LIVE_STEP_WFET,
#endif
};

static const char * const live_step_names[] = {
	[LIVE_STEP_ARCH] = "arch pick",
#ifdef CONFIG_ARM64
	[LIVE_STEP_SPIN] = "spin (event stream off)",
	[LIVE_STEP_WFE] = "WFE (event stream on)",
	[LIVE_STEP_WFET] = "WFET",
#endif
};

static const enum live_step live_steps[] = {
	LIVE_STEP_ARCH,
#ifdef CONFIG_ARM64
	LIVE_STEP_SPIN, LIVE_STEP_WFE, LIVE_STEP_WFET,
#endif
};

static void live_step_desc(const enum live_step *step, char *desc)
{
	strscpy(desc, live_step_names[*step], KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(live_step, live_steps, live_step_desc);

/* Skip a step this CPU cannot take, saying why. */
static void live_step_require(struct kunit *test, enum live_step step)
{
#ifdef CONFIG_ARM64
	if (step == LIVE_STEP_WFE && !poll_relax_evtstrm_period_ns())
		kunit_skip(test, "the event stream is off on this CPU");
	if (step == LIVE_STEP_WFET &&
	    !alternative_has_cap_unlikely(ARM64_HAS_WFXT))
		kunit_skip(test, "this CPU has no FEAT_WFxT");
#endif
}

#ifdef CONFIG_ARM64
#define wait_step(mode, ptr, val, remaining_ns)				\
do {									\
	typeof(ptr) __step_ptr = (ptr);					\
									\
	poll_relax_step(mode, (const void *)__step_ptr,			\
			(unsigned long)(val), sizeof(*__step_ptr),	\
			remaining_ns);					\
} while (0)
#define wait_step_spin(ptr, val, remaining_ns)				\
	wait_step(POLL_RELAX_SPIN, ptr, val, remaining_ns)
#define wait_step_wfe(ptr, val, remaining_ns)				\
	wait_step(POLL_RELAX_WFE, ptr, val, remaining_ns)
#define wait_step_wfet(ptr, val, remaining_ns)				\
	wait_step(POLL_RELAX_WFET, ptr, val, remaining_ns)
#endif

/* Wait until *@var is non-zero or @deadline_ns, with the wait step @step. */
static unsigned long live_wait(enum live_step step, unsigned long *var,
			       u64 deadline_ns)
{
	switch (step) {
#ifdef CONFIG_ARM64
	case LIVE_STEP_SPIN:
		return __smp_cond_load_relaxed_timeout(var, VAL, local_clock(),
						   deadline_ns, wait_step_spin);
	case LIVE_STEP_WFE:
		return __smp_cond_load_relaxed_timeout(var, VAL, local_clock(),
						   deadline_ns, wait_step_wfe);
	case LIVE_STEP_WFET:
		return __smp_cond_load_relaxed_timeout(var, VAL, local_clock(),
						   deadline_ns, wait_step_wfet);
#endif
	default:
		return smp_cond_load_relaxed_timeout(var, VAL, local_clock(),
						     deadline_ns);
	}
}

struct live_store {
	struct hrtimer timer;
	unsigned long var;
};

static enum hrtimer_restart live_store_fire(struct hrtimer *timer)
{
	struct live_store *store = container_of(timer, struct live_store,
						timer);

	WRITE_ONCE(store->var, 1);
	return HRTIMER_NORESTART;
}

static void cond_wait_wakes_on_store_test(struct kunit *test)
{
	const enum live_step *step = test->param_value;
	struct live_store store = { .var = 0 };
	u64 start_ns, deadline_ns, woke_ns;
	unsigned long val;

	live_step_require(test, *step);
	hrtimer_init_on_stack(&store.timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	store.timer.function = live_store_fire;

	start_ns = local_clock();
	deadline_ns = start_ns + LIVE_SLACK_NS;
	hrtimer_start(&store.timer, ns_to_ktime(200 * US), HRTIMER_MODE_REL);
	val = live_wait(*step, &store.var, deadline_ns);
	woke_ns = local_clock();
	hrtimer_cancel(&store.timer);
	destroy_hrtimer_on_stack(&store.timer);

	KUNIT_EXPECT_EQ(test, val, 1UL);
	KUNIT_EXPECT_LT(test, woke_ns, deadline_ns);
	kunit_info(test, "store after 200 us seen after %llu us\n",
		   (woke_ns - start_ns) / US);
}

static void cond_wait_times_out_test(struct kunit *test)
{
	const enum live_step *step = test->param_value;
	const u64 timeout_ns[] = { 20 * US, 300 * US, 2 * MS };
	unsigned long var = 0, val;
	u64 deadline_ns, end_ns;
	unsigned int i;

	live_step_require(test, *step);
	for (i = 0; i < ARRAY_SIZE(timeout_ns); i++) {
		deadline_ns = local_clock() + timeout_ns[i];
		val = live_wait(*step, &var, deadline_ns);
		end_ns = local_clock();

		KUNIT_EXPECT_EQ(test, val, 0UL);
		KUNIT_EXPECT_GE(test, end_ns, deadline_ns);
		KUNIT_EXPECT_LT_MSG(test, end_ns, deadline_ns + LIVE_SLACK_NS,
				    "timeout %llu us", timeout_ns[i] / US);
		kunit_info(test, "timeout %llu us: returned %llu ns late\n",
			   timeout_ns[i] / US, end_ns - deadline_ns);
	}
}

#ifdef CONFIG_ARM64
struct mode_case {
	const char *name;
	bool has_wfxt;
	u64 evtstrm_period_ns;
	u64 remaining_ns;
	enum poll_relax_mode expected;
};

static const struct mode_case mode_cases[] = {
	{ "WFET whenever the CPU has it", true, 131 * US, 1 * US, POLL_RELAX_WFET },
	{ "WFET without the event stream", true, 0, 1 * MS, POLL_RELAX_WFET },
	{ "WFE with more than a period left", false, 131 * US, 132 * US, POLL_RELAX_WFE },
	{ "spin with exactly a period left", false, 131 * US, 131 * US, POLL_RELAX_SPIN },
	{ "spin in the last period", false, 131 * US, 20 * US, POLL_RELAX_SPIN },
	{ "spin with the event stream off", false, 0, 10 * MS, POLL_RELAX_SPIN },
};

static void cond_wait_pick_mode_test(struct kunit *test)
{
	const struct mode_case *c;

	enum poll_relax_mode mode;

	for (c = mode_cases; c < mode_cases + ARRAY_SIZE(mode_cases); c++) {
		mode = poll_relax_pick_mode(c->has_wfxt, c->evtstrm_period_ns,
					    c->remaining_ns);
		KUNIT_EXPECT_EQ_MSG(test, mode, c->expected, "case: %s",
				    c->name);
	}
}

struct evtstrm_bit_case {
	const char *name;
	u32 cntkctl;
	int bit;
};

static const struct evtstrm_bit_case evtstrm_bit_cases[] = {
	{ "stream off", 9 << ARCH_TIMER_EVT_TRIGGER_SHIFT, -1 },
	{ "bit 9", ARCH_TIMER_VIRT_EVT_EN | 9 << ARCH_TIMER_EVT_TRIGGER_SHIFT, 9 },
	{ "bit 3 scaled by 8", ARCH_TIMER_VIRT_EVT_EN | ARCH_TIMER_EVT_INTERVAL_SCALE |
	  3 << ARCH_TIMER_EVT_TRIGGER_SHIFT, 11 },
};

/* The event bit decoded from CNTKCTL_EL1 values. */
static void cond_wait_evtstrm_bit_test(struct kunit *test)
{
	const struct evtstrm_bit_case *c;

	for (c = evtstrm_bit_cases;
	     c < evtstrm_bit_cases + ARRAY_SIZE(evtstrm_bit_cases); c++)
		KUNIT_EXPECT_EQ_MSG(test, poll_relax_evtstrm_bit(c->cntkctl),
				    c->bit, "case: %s", c->name);
}

static void evtstrm_period_on_cpu(void *period_ns)
{
	*(u64 *)period_ns = poll_relax_evtstrm_period_now_ns();
}

/*
 * The event stream period cached at boot is the one CNTKCTL_EL1 gives now
 * on every online CPU, and agrees with the timer driver's own decision,
 * the evtstrm hwcap it sets when it turns the stream on: zero exactly when
 * the stream is off. An enabled stream ticks every
 * ARCH_TIMER_EVT_STREAM_PERIOD_US rounded to a power of two of the counter.
 * The host checks that the evtstrm=0 boot prints "off" here.
 */
static void cond_wait_evtstrm_test(struct kunit *test)
{
	u64 period_ns = poll_relax_evtstrm_period_ns();
	bool stream_on = cpu_have_named_feature(EVTSTRM);
	u64 cpu_period_ns;
	int cpu;

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		cpu_period_ns = U64_MAX;
		smp_call_function_single(cpu, evtstrm_period_on_cpu,
					 &cpu_period_ns, 1);
		KUNIT_EXPECT_EQ_MSG(test, cpu_period_ns, period_ns, "CPU %d",
				    cpu);
	}
	cpus_read_unlock();
	KUNIT_EXPECT_EQ(test, period_ns != 0, stream_on);
	if (stream_on) {
		KUNIT_EXPECT_GE(test, period_ns, 50 * US);
		KUNIT_EXPECT_LE(test, period_ns, 200 * US);
	}
	kunit_info(test, "event stream %s, period %llu ns, FEAT_WFxT %s\n",
		   period_ns ? "on" : "off", period_ns,
		   alternative_has_cap_unlikely(ARM64_HAS_WFXT) ? "yes" : "no");
}
#endif

static struct kunit_case cond_wait_cases[] = {
	KUNIT_CASE(cond_wait_loop_test),
	KUNIT_CASE(cond_wait_poll_test),
	KUNIT_CASE(cond_wait_poll_idle_test),
	KUNIT_CASE_PARAM(cond_wait_wakes_on_store_test, live_step_gen_params),
	KUNIT_CASE_PARAM(cond_wait_times_out_test, live_step_gen_params),
#ifdef CONFIG_ARM64
	KUNIT_CASE(cond_wait_pick_mode_test),
	KUNIT_CASE(cond_wait_evtstrm_bit_test),
	KUNIT_CASE(cond_wait_evtstrm_test),
#endif
	{}
};

static struct kunit_suite cond_wait_suite = {
	.name = "cond_wait",
	.test_cases = cond_wait_cases,
};

kunit_test_suite(cond_wait_suite);

MODULE_DESCRIPTION("KUnit tests for smp_cond_load_relaxed_timeout()");
MODULE_LICENSE("GPL");
