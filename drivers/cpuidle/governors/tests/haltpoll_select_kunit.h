/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of haltpoll_select() and haltpoll_reflect(), the glue around
 * the window arithmetic: a fake two-state driver and device are driven
 * through idle periods on the test's own CPU, with the time to the next
 * timer and the clock of haltpoll-recurring-wakeup supplied by the test.
 * Included at the end of haltpoll.c, as DAMON includes its tests, to reach
 * the governor's static functions and per-CPU state.
 */
#ifndef _HALTPOLL_SELECT_KUNIT_H
#define _HALTPOLL_SELECT_KUNIT_H

#include <kunit/static_stub.h>
#include <kunit/test-bug.h>
#include <kunit/test.h>
#include <linux/delay.h>

#define HP_US	1000ULL

struct haltpoll_select_fixture {
	struct cpuidle_driver drv;
	struct cpuidle_device dev;
	u64 next_timer_ns;
	u64 now_ns;
	unsigned int walks;
	unsigned int saved_max_ns;
	bool saved_recurring;
	bool saved_learn_ceiling;
	bool saved_preempt_hold;
};

static struct haltpoll_select_fixture *haltpoll_fixture;

static u64 haltpoll_test_next_timer_ns(void)
{
	haltpoll_fixture->walks++;
	return haltpoll_fixture->next_timer_ns;
}

/* The idle entry time may be taken only with interrupts disabled. */
static u64 haltpoll_test_now_ns(void)
{
	KUNIT_EXPECT_TRUE(kunit_get_current_test(), irqs_disabled());
	return haltpoll_fixture->now_ns;
}

/* The current time, for a case that looks up real timers. */
static u64 haltpoll_test_clock_ns(void)
{
	return ktime_get_ns();
}

static struct haltpoll_cpu *haltpoll_test_cpu(struct haltpoll_select_fixture *f)
{
	return per_cpu_ptr(&haltpoll_cpus, f->dev.cpu);
}

static struct haltpoll_wake *haltpoll_test_wake(struct haltpoll_select_fixture *f)
{
	return per_cpu_ptr(&haltpoll_wakes, f->dev.cpu);
}

/* As cpuidle_idle_call() does: select with interrupts off. */
static int haltpoll_test_select(struct haltpoll_select_fixture *f,
				bool *stop_tick)
{
	int index;

	*stop_tick = true;
	local_irq_disable();
	index = haltpoll_select(&f->drv, &f->dev, stop_tick);
	local_irq_enable();
	return index;
}

/*
 * An idle period that ended in state @index after @residency_ns, reflected
 * as cpuidle_idle_call() does: with interrupts enabled, on the same CPU.
 */
static void haltpoll_test_reflect(struct haltpoll_select_fixture *f, int index,
				  u64 residency_ns, bool poll_timed_out)
{
	f->dev.last_residency_ns = residency_ns;
	f->dev.poll_time_limit = poll_timed_out;
	/*
	 * A reschedule the scheduler left pending on this task (another task
	 * woken on this CPU while the case spun) would read as the task
	 * wakeup that ended the period: take it first.
	 */
	cond_resched();
	preempt_disable();
	/* No tick ended these periods: drop one left from the CPU's last idle. */
	tick_nohz_idle_got_tick();
	haltpoll_reflect(&f->dev, index);
	preempt_enable();
}

/*
 * An idle period a pending wakeup ended, as the test stands for it: with
 * preemption disabled, no interrupt acts on the reschedule.
 */
static void haltpoll_test_reflect_woken(struct haltpoll_select_fixture *f,
					int index, u64 residency_ns,
					bool poll_timed_out)
{
	f->dev.last_residency_ns = residency_ns;
	f->dev.poll_time_limit = poll_timed_out;
	preempt_disable();
	tick_nohz_idle_got_tick();
	set_tsk_need_resched(current);
	haltpoll_reflect(&f->dev, index);
	clear_tsk_need_resched(current);
	preempt_enable();
}

/*
 * A poll the host preempted after @poll_ns: one that then ran out, or one
 * that caught a pending wakeup.
 */
static void haltpoll_test_reflect_preempted(struct haltpoll_select_fixture *f,
					    u64 poll_ns, bool timed_out)
{
	f->dev.poll_preempted = true;
	if (timed_out)
		haltpoll_test_reflect(f, 0, poll_ns, true);
	else
		haltpoll_test_reflect_woken(f, 0, poll_ns, false);
	f->dev.poll_preempted = false;
}

/*
 * As if the early wakeup had ended the halt: cancel it, and note what
 * haltpoll_wake_fn() notes when it fires in idle.
 */
static void haltpoll_test_early_woke(struct haltpoll_select_fixture *f)
{
	struct haltpoll_wake *w = haltpoll_test_wake(f);

	hrtimer_cancel(&w->timer);
	WRITE_ONCE(w->ended_halt, true);
}

static int haltpoll_select_test_init(struct kunit *test)
{
	struct haltpoll_select_fixture *f;

	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	/*
	 * The per-CPU state is this CPU's: stay on it. The case runs in the
	 * thread init runs in, and that thread ends with it.
	 */
	f->dev.cpu = raw_smp_processor_id();
	set_cpus_allowed_ptr(current, cpumask_of(f->dev.cpu));
	cpuidle_poll_state_init(&f->drv);
	f->drv.states[1].flags = 0;
	f->drv.state_count = 2;
	f->next_timer_ns = U64_MAX;
	/* The governor arms its early wakeups on this clock: start it at now. */
	f->now_ns = ktime_get_ns();
	/* Windows up to the cap, so that an early wakeup can be milliseconds away. */
	f->saved_max_ns = haltpoll_params.max_ns;
	f->saved_recurring = haltpoll_recurring;
	f->saved_learn_ceiling = haltpoll_learn_ceiling;
	f->saved_preempt_hold = haltpoll_preempt_hold;
	WRITE_ONCE(haltpoll_params.max_ns, HALTPOLL_WINDOW_CAP_NS);
	haltpoll_fixture = f;
	haltpoll_enable_device(&f->drv, &f->dev);
	haltpoll_test_wake(f)->lateness = (struct haltpoll_lateness){ };
	haltpoll_test_wake(f)->polled = (struct haltpoll_lateness){ };
	kunit_activate_static_stub(test, haltpoll_next_timer_ns,
				   haltpoll_test_next_timer_ns);
	kunit_activate_static_stub(test, haltpoll_now_ns, haltpoll_test_now_ns);
	test->priv = f;
	return 0;
}

static void haltpoll_select_test_exit(struct kunit *test)
{
	struct haltpoll_select_fixture *f = test->priv;

	hrtimer_cancel(&haltpoll_test_wake(f)->timer);
	/* Leave the CPU's state as a freshly enabled device has it. */
	haltpoll_enable_device(&f->drv, &f->dev);
	WRITE_ONCE(haltpoll_params.max_ns, f->saved_max_ns);
	WRITE_ONCE(haltpoll_recurring, f->saved_recurring);
	WRITE_ONCE(haltpoll_learn_ceiling, f->saved_learn_ceiling);
	WRITE_ONCE(haltpoll_preempt_hold, f->saved_preempt_hold);
}

/*
 * Whether the last selection armed the early wakeup for @after_ns from
 * the governor's now: its expiry, set whether or not it has fired since.
 */
static bool haltpoll_test_armed(struct haltpoll_select_fixture *f,
				u64 after_ns)
{
	ktime_t expires = hrtimer_get_expires(&haltpoll_test_wake(f)->timer);

	return expires == ns_to_ktime(f->now_ns + after_ns);
}

struct haltpoll_closed_window_case {
	const char *name;
	u64 timer_ns;		/* time to the next timer, U64_MAX for none */
	bool stop_tick;
};

static const struct haltpoll_closed_window_case haltpoll_closed_window_cases[] = {
	{ "no timer",			U64_MAX,			true },
	{ "timer in half a tick",	TICK_NSEC / 2,			false },
	{ "timer just inside a tick",	TICK_NSEC - 1,			false },
	{ "timer a tick away",		TICK_NSEC,			true },
	{ "timer past a tick",		TICK_NSEC + TICK_NSEC / 2,	true },
};

/*
 * A closed window halts, and a CPU that polls stops the tick to halt,
 * unless a timer is due within a tick: that halt ends on the timer first.
 */
static void haltpoll_select_closed_window_test(struct kunit *test)
{
	struct haltpoll_select_fixture *f = test->priv;
	struct haltpoll_cpu *hc = haltpoll_test_cpu(f);
	bool stop_tick;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(haltpoll_closed_window_cases); i++) {
		const struct haltpoll_closed_window_case *c =
			&haltpoll_closed_window_cases[i];

		/* Closed again: the last case's short halt opened it. */
		haltpoll_enable_device(&f->drv, &f->dev);
		f->next_timer_ns = c->timer_ns;
		KUNIT_EXPECT_EQ_MSG(test, haltpoll_test_select(f, &stop_tick),
				    1, "case: %s", c->name);
		KUNIT_EXPECT_EQ_MSG(test, stop_tick, c->stop_tick,
				    "case: %s", c->name);
		/* A plain halt: no early wakeup. */
		KUNIT_EXPECT_EQ_MSG(test, hc->timer_halt_ns, 0, "case: %s",
				    c->name);
		haltpoll_test_reflect(f, 1, 10 * HP_US, false);
	}
}

/*
 * A CPU that does not poll, by guest_halt_poll_ns or its poll state
 * disabled, keeps the tick through halts after short idle periods.
 */
static void haltpoll_select_no_polling_keeps_tick_test(struct kunit *test)
{
	struct haltpoll_select_fixture *f = test->priv;
	bool stop_tick;

	WRITE_ONCE(haltpoll_params.max_ns, 0);
	KUNIT_EXPECT_EQ(test, haltpoll_test_select(f, &stop_tick), 1);
	KUNIT_EXPECT_FALSE(test, stop_tick);
	/* No timer rule applies: the timers are not looked for. */
	KUNIT_EXPECT_EQ(test, f->walks, 0);
	haltpoll_test_reflect(f, 1, 10 * HP_US, false);
	WRITE_ONCE(haltpoll_params.max_ns, 200 * HP_US);
	f->dev.states_usage[0].disable = CPUIDLE_STATE_DISABLED_BY_USER;
	KUNIT_EXPECT_EQ(test, haltpoll_test_select(f, &stop_tick), 1);
	KUNIT_EXPECT_FALSE(test, stop_tick);
	f->dev.states_usage[0].disable = 0;
}

/* A wakeup just after the window closed opens it; the next entry polls. */
static void haltpoll_select_opens_window_test(struct kunit *test)
{
	struct haltpoll_select_fixture *f = test->priv;
	bool stop_tick;

	KUNIT_ASSERT_EQ(test, haltpoll_test_select(f, &stop_tick), 1);
	haltpoll_test_reflect(f, 1, 80 * HP_US, false);
	KUNIT_EXPECT_EQ(test, haltpoll_test_select(f, &stop_tick), 0);
	KUNIT_EXPECT_EQ(test, f->dev.poll_limit_ns, 50 * HP_US);
	KUNIT_EXPECT_FALSE(test, stop_tick);
}

struct haltpoll_timer_select_case {
	const char *name;
	u64 lateness_ns;	/* average lateness of early wakeups */
	u64 timer_ns;
	int index;
	u64 poll_limit_ns;	/* when polling */
	u64 halt_until_ns;	/* when halting: the early wakeup */
};

/* With a 200 us window. */
static const struct haltpoll_timer_select_case haltpoll_timer_select_cases[] = {
	{ "no timer in the window polls", 0, 300 * HP_US, 0, 200 * HP_US, 0 },
	{ "timer in the window halts, waking a lead early", 20 * HP_US,
	  150 * HP_US, 1, 0, 130 * HP_US },
	{ "timer due now polls through it", 0, 0, 0, 200 * HP_US, 0 },
	{ "timer within the minimum lead polls", 0, 1 * HP_US, 0, 200 * HP_US,
	  0 },
	{ "timer within the lead polls, the whole window if need be",
	  20 * HP_US, 15 * HP_US, 0, 200 * HP_US, 0 },
	{ "timer within the lead and a halt's cost polls: a halt would not pay",
	  30 * HP_US, 50 * HP_US, 0, 200 * HP_US, 0 },
	{ "just past the lead and a halt's cost halts", 30 * HP_US,
	  51 * HP_US, 1, 0, 21 * HP_US },
	{ "a late host: half the window caps the lead, wakes after the timer",
	  150 * HP_US, 190 * HP_US, 1, 0, 90 * HP_US },
	{ "a late host, timer within that lead and a halt's cost: poll it all",
	  150 * HP_US, 120 * HP_US, 0, 200 * HP_US, 0 },
};

static void haltpoll_select_timer_test(struct kunit *test)
{
	const struct haltpoll_timer_select_case *c;
	struct haltpoll_select_fixture *f = test->priv;
	struct haltpoll_cpu *hc = haltpoll_test_cpu(f);
	struct hrtimer *timer = &haltpoll_test_wake(f)->timer;
	bool stop_tick;

	for (c = haltpoll_timer_select_cases;
	     c < haltpoll_timer_select_cases + ARRAY_SIZE(haltpoll_timer_select_cases);
	     c++) {
		haltpoll_enable_device(&f->drv, &f->dev);
		hc->window_ns = 200 * HP_US;
		haltpoll_test_wake(f)->lateness =
			(struct haltpoll_lateness){ .avg_ns = c->lateness_ns };
		/* A poll for an earlier case's timer may have measured one. */
		haltpoll_test_wake(f)->polled = (struct haltpoll_lateness){ };
		f->next_timer_ns = c->timer_ns;
		hrtimer_set_expires(timer, 0);
		/* Early wakeups in the future: the test cancels them. */
		f->now_ns = ktime_get_ns();
		KUNIT_EXPECT_EQ_MSG(test, haltpoll_test_select(f, &stop_tick),
				    c->index, "case: %s", c->name);
		if (c->index == 0)
			KUNIT_EXPECT_EQ_MSG(test, f->dev.poll_limit_ns,
					    c->poll_limit_ns, "case: %s", c->name);
		KUNIT_EXPECT_EQ_MSG(test, hc->timer_halt_ns, c->halt_until_ns,
				    "case: %s", c->name);
		/* Polls, and halts until early wakeups within a tick, keep it. */
		KUNIT_EXPECT_FALSE_MSG(test, stop_tick, "case: %s", c->name);
		if (c->index == 1)
			KUNIT_EXPECT_TRUE_MSG(test,
					      haltpoll_test_armed(f, c->halt_until_ns),
					      "case: %s", c->name);
		else
			KUNIT_EXPECT_EQ_MSG(test, hrtimer_get_expires(timer), 0,
					    "case: %s, armed", c->name);
		/* A wakeup before the early one: it must be cancelled. */
		haltpoll_test_reflect(f, c->index, 10 * HP_US, false);
		KUNIT_EXPECT_FALSE_MSG(test, hrtimer_is_queued(timer),
				       "case: %s", c->name);
	}
}

/*
 * An early wakeup that fires after another wakeup ended its halt, before
 * the reflection cancels it, here while the test's task runs, ended no
 * halt: how late it came says nothing of a halted vCPU's wakeups, and it
 * is no lead miss. A halt that its early wakeup ended leaves the window
 * as it was.
 */
static void haltpoll_select_early_wakeup_test(struct kunit *test)
{
	struct haltpoll_select_fixture *f = test->priv;
	struct haltpoll_cpu *hc = haltpoll_test_cpu(f);
	struct haltpoll_wake *w = haltpoll_test_wake(f);
	bool stop_tick;
	u64 end_ns;

	hc->window_ns = 200 * HP_US;
	f->next_timer_ns = 50 * HP_US;
	/*
	 * The early wakeup on the real clock, 48 us on: let it fire while
	 * the task spins, for at most 100 ms. A sleep would let this CPU
	 * idle, and the wakeup end that idle period.
	 */
	f->now_ns = ktime_get_ns();
	KUNIT_ASSERT_EQ(test, haltpoll_test_select(f, &stop_tick), 1);
	end_ns = ktime_get_ns() + 100 * NSEC_PER_MSEC;
	while (hrtimer_is_queued(&w->timer) && ktime_get_ns() < end_ns)
		cpu_relax();
	KUNIT_ASSERT_FALSE(test, hrtimer_is_queued(&w->timer));
	KUNIT_EXPECT_FALSE(test, w->ended_halt);
	haltpoll_test_reflect_woken(f, 1, 40 * HP_US, false);
	KUNIT_EXPECT_EQ(test, hc->early_wakes, 0);
	KUNIT_EXPECT_EQ(test, hc->lead_misses, 0);
	KUNIT_EXPECT_EQ(test, hc->timer_halt_ns, 0);
	KUNIT_EXPECT_EQ(test, w->lateness.avg_ns, 0);

	f->now_ns += 40 * HP_US;
	KUNIT_ASSERT_EQ(test, haltpoll_test_select(f, &stop_tick), 1);
	haltpoll_test_early_woke(f);
	haltpoll_test_reflect(f, 1, 48 * HP_US, false);
	KUNIT_EXPECT_EQ(test, hc->window_ns, 200 * HP_US);
	KUNIT_EXPECT_EQ(test, hc->early_wakes, 1);
	KUNIT_EXPECT_EQ(test, hc->lead_misses, 0);
	KUNIT_EXPECT_EQ(test, hc->timer_halt_ns, 0);
	KUNIT_EXPECT_FALSE(test, w->ended_halt);
}

/*
 * A window longer than a tick (the SAP HANA profile at HZ=1000): a timer
 * past the tick but inside the window is one the timer rule acts on, so
 * finding it keeps the walks coming on every entry.
 */
static void haltpoll_select_walk_horizon_test(struct kunit *test)
{
	struct haltpoll_select_fixture *f = test->priv;
	struct haltpoll_cpu *hc = haltpoll_test_cpu(f);
	bool stop_tick;

	hc->window_ns = 2 * TICK_NSEC;
	hc->timerless = HALTPOLL_TIMER_WALK_MIN - 1;
	f->next_timer_ns = TICK_NSEC + TICK_NSEC / 2;
	KUNIT_EXPECT_EQ(test, haltpoll_test_select(f, &stop_tick), 1);
	KUNIT_EXPECT_EQ(test, f->walks, 1);
	KUNIT_EXPECT_EQ(test, hc->timerless, 0);
	/* The early wakeup is a tick or more away: the tick stops. */
	KUNIT_EXPECT_GE(test, hc->timer_halt_ns, TICK_NSEC);
	KUNIT_EXPECT_TRUE(test, stop_tick);
}

/*
 * A halt until an early wakeup keeps the tick if the wakeup is due within
 * a tick and stops it otherwise, on either side of the tick's length.
 */
static void haltpoll_select_halt_until_tick_test(struct kunit *test)
{
	static const u64 timers_ns[] = { TICK_NSEC / 2, TICK_NSEC - 1,
					 TICK_NSEC + TICK_NSEC / 2 };
	struct haltpoll_select_fixture *f = test->priv;
	struct haltpoll_cpu *hc = haltpoll_test_cpu(f);
	bool stop_tick;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(timers_ns); i++) {
		haltpoll_enable_device(&f->drv, &f->dev);
		hc->window_ns = 2 * TICK_NSEC;
		f->next_timer_ns = timers_ns[i];
		KUNIT_ASSERT_EQ(test, haltpoll_test_select(f, &stop_tick), 1);
		KUNIT_ASSERT_NE(test, hc->timer_halt_ns, 0);
		KUNIT_EXPECT_EQ_MSG(test, stop_tick,
				    hc->timer_halt_ns >= TICK_NSEC,
				    "timer %llu ns, early wakeup %llu ns",
				    timers_ns[i], hc->timer_halt_ns);
		KUNIT_EXPECT_EQ_MSG(test, stop_tick, i == 2, "timer %llu ns",
				    timers_ns[i]);
		haltpoll_test_reflect(f, 1, 10 * HP_US, false);
	}
}

/*
 * cpuidle does not reflect a state it could not enter (-EBUSY): what the
 * selection left for its reflection must not shape the next idle period.
 * The halt after a poll that ran out is the exception: a wakeup before it
 * is a late catch, and the halt stays due.
 */
static void haltpoll_select_ebusy_test(struct kunit *test)
{
	struct haltpoll_select_fixture *f = test->priv;
	struct haltpoll_cpu *hc = haltpoll_test_cpu(f);
	bool stop_tick;

	/* Dates the periods, which the late catch's halt is checked for. */
	WRITE_ONCE(haltpoll_recurring, true);
	hc->window_ns = 200 * HP_US;
	KUNIT_ASSERT_EQ(test, haltpoll_test_select(f, &stop_tick), 0);
	haltpoll_test_reflect(f, 0, 200 * HP_US, true);
	/* The poll timed out: halt, but -EBUSY, so no reflection. */
	KUNIT_ASSERT_EQ(test, haltpoll_test_select(f, &stop_tick), 1);
	/* A CPU that polls stops the tick to halt, after a short period too. */
	KUNIT_EXPECT_TRUE(test, stop_tick);
	/* The wakeup came after the window: halt until a halt is entered. */
	KUNIT_ASSERT_EQ(test, haltpoll_test_select(f, &stop_tick), 1);
	KUNIT_EXPECT_TRUE(test, stop_tick);
	/* A late catch's halt: its period is dated back by the poll. */
	KUNIT_EXPECT_EQ(test, hc->entry_ns, f->now_ns - 200 * HP_US);
	KUNIT_ASSERT_EQ(test, haltpoll_test_select(f, &stop_tick), 1);
	/* The halt is learned from with the poll before it, as a late catch's. */
	haltpoll_test_reflect(f, 1, 50 * HP_US, false);
	KUNIT_EXPECT_EQ(test, hc->window_ns, 400 * HP_US);
	KUNIT_EXPECT_EQ(test, haltpoll_test_select(f, &stop_tick), 0);

	/*
	 * Same for a halt chosen for a timer: its early wakeup goes. The
	 * timer is 9 ms away, far beyond what the test takes to get to the
	 * next selection even on an emulated CPU.
	 */
	hc->window_ns = HALTPOLL_WINDOW_CAP_NS;
	f->next_timer_ns = 9000 * HP_US;
	KUNIT_ASSERT_EQ(test, haltpoll_test_select(f, &stop_tick), 1);
	KUNIT_EXPECT_TRUE(test, hrtimer_is_queued(&haltpoll_test_wake(f)->timer));
	f->next_timer_ns = U64_MAX;
	KUNIT_EXPECT_EQ(test, haltpoll_test_select(f, &stop_tick), 0);
	KUNIT_EXPECT_FALSE(test, hrtimer_is_queued(&haltpoll_test_wake(f)->timer));
	KUNIT_EXPECT_EQ(test, hc->timer_halt_ns, 0);
}

/* An operator's disabled state is never picked. */
static void haltpoll_select_disabled_state_test(struct kunit *test)
{
	struct haltpoll_select_fixture *f = test->priv;
	bool stop_tick;

	haltpoll_test_cpu(f)->window_ns = 200 * HP_US;
	f->dev.states_usage[0].disable = CPUIDLE_STATE_DISABLED_BY_USER;
	KUNIT_EXPECT_EQ(test, haltpoll_test_select(f, &stop_tick), 1);
	haltpoll_test_reflect(f, 1, 10 * HP_US, false);
	f->dev.states_usage[0].disable = 0;
	f->dev.states_usage[1].disable = CPUIDLE_STATE_DISABLED_BY_USER;
	KUNIT_EXPECT_EQ(test, haltpoll_test_select(f, &stop_tick), 0);
	KUNIT_EXPECT_FALSE(test, stop_tick);
	/* Polls back to back, one idle entry time: no period is dated. */
	KUNIT_EXPECT_EQ(test, haltpoll_test_cpu(f)->entry_ns, 0);
}

/* Picked for a driver whose first state does not poll: only that state. */
static void haltpoll_select_no_poll_state_test(struct kunit *test)
{
	struct haltpoll_select_fixture *f = test->priv;
	struct haltpoll_cpu *hc = haltpoll_test_cpu(f);
	bool stop_tick;
	int i;

	f->drv.states[0].flags = 0;
	haltpoll_enable_device(&f->drv, &f->dev);
	for (i = 0; i < 3; i++) {
		KUNIT_EXPECT_EQ(test, haltpoll_test_select(f, &stop_tick), 0);
		haltpoll_test_reflect(f, 0, 80 * HP_US, false);
	}
	KUNIT_EXPECT_EQ(test, hc->window_ns, 0);
	KUNIT_EXPECT_EQ(test, hc->polls_caught, 0);
	/* Idle periods of half a tick and more let the tick stop. */
	haltpoll_test_reflect(f, 0, TICK_NSEC, false);
	KUNIT_EXPECT_EQ(test, haltpoll_test_select(f, &stop_tick), 0);
	KUNIT_EXPECT_TRUE(test, stop_tick);
}

/*
 * A timer due past the window but within a tick: polled for while such
 * periods end on wakeups, halted through after two its timer ended,
 * polled for again after one a wakeup ended.
 */
static void haltpoll_select_near_timer_test(struct kunit *test)
{
	struct haltpoll_select_fixture *f = test->priv;
	struct haltpoll_cpu *hc = haltpoll_test_cpu(f);
	bool stop_tick;
	int i;

	f->next_timer_ns = 500 * HP_US;
	for (i = 0; i < 2; i++) {
		hc->window_ns = 100 * HP_US;
		KUNIT_ASSERT_EQ(test, haltpoll_test_select(f, &stop_tick), 0);
		KUNIT_EXPECT_EQ(test, hc->near_timer_ns, 500 * HP_US);
		haltpoll_test_reflect(f, 0, 100 * HP_US, true);
		KUNIT_ASSERT_EQ(test, haltpoll_test_select(f, &stop_tick), 1);
		/* The halt that follows ends on the timer, 600 us in. */
		haltpoll_test_reflect(f, 1, 500 * HP_US, false);
	}
	KUNIT_EXPECT_EQ(test, hc->near_count, 1);
	hc->window_ns = 100 * HP_US;
	KUNIT_EXPECT_EQ(test, haltpoll_test_select(f, &stop_tick), 1);
	KUNIT_EXPECT_EQ(test, hc->near_halts, 1);
	/* The timer is due within a tick, which keeps running for it. */
	KUNIT_EXPECT_FALSE(test, stop_tick);

	/*
	 * A wakeup 300 us in, past the window but before the timer: polling
	 * for it is the window's business, halting through it was wrong.
	 */
	haltpoll_test_reflect(f, 1, 300 * HP_US, false);
	KUNIT_EXPECT_EQ(test, hc->near_count, HALTPOLL_NEAR_TIMER_TOP);
	hc->window_ns = 100 * HP_US;
	KUNIT_EXPECT_EQ(test, haltpoll_test_select(f, &stop_tick), 0);

	/* A poll the timer itself ended counts against polling. */
	haltpoll_test_reflect(f, 0, 500 * HP_US, false);
	KUNIT_EXPECT_EQ(test, hc->near_count, HALTPOLL_NEAR_TIMER_TOP - 1);

	/* A selection cpuidle did not reflect (-EBUSY) leaves nothing. */
	KUNIT_ASSERT_EQ(test, haltpoll_test_select(f, &stop_tick), 0);
	f->next_timer_ns = U64_MAX;
	KUNIT_EXPECT_EQ(test, haltpoll_test_select(f, &stop_tick), 0);
	KUNIT_EXPECT_EQ(test, hc->near_timer_ns, 0);

	/* Timers a tick or more away change nothing. */
	f->next_timer_ns = TICK_NSEC;
	KUNIT_EXPECT_EQ(test, haltpoll_test_select(f, &stop_tick), 0);
	KUNIT_EXPECT_EQ(test, hc->near_timer_ns, 0);
}

/*
 * Caught wakeups with no timer due: after HALTPOLL_TIMER_WALK_MIN of them
 * the timers are looked for on one idle entry in HALTPOLL_TIMER_WALK_EVERY.
 * A timer due inside the window is then found within that many entries,
 * and every entry looks again from there on.
 */
static void haltpoll_select_timer_walk_test(struct kunit *test)
{
	struct haltpoll_select_fixture *f = test->priv;
	struct haltpoll_cpu *hc = haltpoll_test_cpu(f);
	unsigned int i, halted_after = 0;
	bool stop_tick;

	/* Stop just after a walk, so that the next entries do not look. */
	hc->window_ns = 200 * HP_US;
	for (i = 0; i < HALTPOLL_TIMER_WALK_MIN + 2 * HALTPOLL_TIMER_WALK_EVERY; i++) {
		KUNIT_ASSERT_EQ(test, haltpoll_test_select(f, &stop_tick), 0);
		haltpoll_test_reflect(f, 0, 10 * HP_US, false);
	}
	KUNIT_EXPECT_EQ(test, f->walks, HALTPOLL_TIMER_WALK_MIN + 2);

	f->next_timer_ns = 150 * HP_US;
	for (i = 1; i <= HALTPOLL_TIMER_WALK_EVERY && !halted_after; i++) {
		if (haltpoll_test_select(f, &stop_tick) == 1)
			halted_after = i;
		/* A wakeup before the early one, as the timer test has. */
		haltpoll_test_reflect(f, halted_after ? 1 : 0, 10 * HP_US, false);
	}
	KUNIT_EXPECT_EQ(test, halted_after, HALTPOLL_TIMER_WALK_EVERY);
	KUNIT_EXPECT_EQ(test, hc->timerless, 0);
	f->walks = 0;
	for (i = 0; i < 3; i++) {
		KUNIT_EXPECT_EQ(test, haltpoll_test_select(f, &stop_tick), 1);
		haltpoll_test_reflect(f, 1, 10 * HP_US, false);
	}
	KUNIT_EXPECT_EQ(test, f->walks, 3);
}

/*
 * Wakeups every 300 us, taken 20 us late from the halt, with
 * guest_halt_poll_ns at 200 us, until HALTPOLL_RECUR_MIN intervals make
 * them steady; the window stays closed. The next wakeup is due 260 us
 * after the CPU idles again, 20 us from now.
 */
static void haltpoll_test_recur_steady(struct kunit *test,
				       struct haltpoll_select_fixture *f)
{
	struct haltpoll_cpu *hc = haltpoll_test_cpu(f);
	bool stop_tick;
	int i;

	WRITE_ONCE(haltpoll_params.max_ns, 200 * HP_US);
	haltpoll_test_wake(f)->lateness =
		(struct haltpoll_lateness){ .avg_ns = 20 * HP_US };
	/* The task runs 20 us after each wakeup, then the CPU idles again. */
	for (i = 0; i <= HALTPOLL_RECUR_MIN; i++) {
		f->now_ns += 20 * HP_US;
		KUNIT_ASSERT_EQ(test, haltpoll_test_select(f, &stop_tick), 1);
		KUNIT_ASSERT_EQ(test, hc->timer_halt_ns, 0);
		f->now_ns += 280 * HP_US;
		/* No reschedule pending: an interrupt that woke no task. */
		cond_resched();
		haltpoll_test_reflect(f, 1, 280 * HP_US, false);
	}
	KUNIT_ASSERT_TRUE(test, haltpoll_recur_steady(&hc->recur));
	KUNIT_ASSERT_EQ(test, hc->window_ns, 0);
}

/*
 * Select, and expect a halt for an expected wakeup, its early wakeup
 * armed @after_ns from now: the first such halt of the test.
 */
static void haltpoll_test_expect_recur_halt(struct kunit *test,
					    struct haltpoll_select_fixture *f,
					    u64 after_ns)
{
	struct haltpoll_cpu *hc = haltpoll_test_cpu(f);
	bool stop_tick;

	KUNIT_ASSERT_EQ(test, haltpoll_test_select(f, &stop_tick), 1);
	KUNIT_EXPECT_EQ(test, hc->timer_halt_ns, after_ns);
	KUNIT_EXPECT_TRUE(test, haltpoll_test_armed(f, after_ns));
	KUNIT_EXPECT_EQ(test, hc->recur_halts, 1);
}

/*
 * With polling off, 20 us on, as the task of the last wakeup ran: select,
 * and expect a plain halt, no early wakeup armed.
 */
static void haltpoll_test_plain_halt(struct kunit *test,
				     struct haltpoll_select_fixture *f)
{
	bool stop_tick;

	WRITE_ONCE(haltpoll_params.max_ns, 0);
	f->now_ns += 20 * HP_US;
	KUNIT_ASSERT_EQ(test, haltpoll_test_select(f, &stop_tick), 1);
	KUNIT_ASSERT_EQ(test, haltpoll_test_cpu(f)->timer_halt_ns, 0);
}

/*
 * Once the wakeups of haltpoll_test_recur_steady() are steady, after
 * HALTPOLL_RECUR_MIN intervals the CPU halts with an early wakeup the lead
 * (20 us) before the next wakeup, then polls until the latest it is
 * expected, 2 dev_ns after it (30 us after nine equal intervals); the
 * halt leaves the window closed. A timer due first, guest_halt_poll_ns=0
 * or guest_halt_poll_recurring=N mean a plain halt.
 */
static void haltpoll_select_recurring_wakeup_test(struct kunit *test)
{
	struct haltpoll_select_fixture *f = test->priv;
	struct haltpoll_cpu *hc = haltpoll_test_cpu(f);
	struct hrtimer *timer = &haltpoll_test_wake(f)->timer;
	bool stop_tick;

	haltpoll_test_recur_steady(test, f);

	/* Polling turned off: a plain halt, ending as the others. */
	haltpoll_test_plain_halt(test, f);
	f->now_ns += 280 * HP_US;
	haltpoll_test_reflect(f, 1, 280 * HP_US, false);
	WRITE_ONCE(haltpoll_params.max_ns, 200 * HP_US);
	f->now_ns += 20 * HP_US;

	/* The rule turned off: a plain halt (not reflected: -EBUSY). */
	WRITE_ONCE(haltpoll_recurring, false);
	KUNIT_EXPECT_EQ(test, haltpoll_test_select(f, &stop_tick), 1);
	KUNIT_EXPECT_EQ(test, hc->timer_halt_ns, 0);
	WRITE_ONCE(haltpoll_recurring, true);

	/* Due in 260 us: halt until 20 us before it. */
	haltpoll_test_expect_recur_halt(test, f, 240 * HP_US);
	/*
	 * As if the early wakeup ended the halt alone: no reschedule is
	 * pending (one would stand for the expected wakeup coming with it).
	 */
	haltpoll_test_early_woke(f);
	cond_resched();
	f->now_ns += 240 * HP_US;
	haltpoll_test_reflect(f, 1, 240 * HP_US, false);
	KUNIT_EXPECT_EQ(test, hc->early_wakes, 1);
	KUNIT_EXPECT_EQ(test, hc->window_ns, 0);

	/* 20 us to go: poll, until twice the deviation past the due time. */
	KUNIT_ASSERT_EQ(test, haltpoll_test_select(f, &stop_tick), 0);
	KUNIT_EXPECT_GE(test, f->dev.poll_limit_ns, 50 * HP_US);
	KUNIT_EXPECT_LE(test, f->dev.poll_limit_ns, 51 * HP_US);
	f->now_ns += 20 * HP_US;
	haltpoll_test_reflect(f, 0, 20 * HP_US, false);
	KUNIT_EXPECT_EQ(test, hc->polls_caught, 1);
	KUNIT_EXPECT_EQ(test, hc->window_ns, 0);

	/*
	 * A timer due before the expected wakeup ends the halt anyway: a
	 * plain halt, the tick kept, as the timer is due within one.
	 */
	f->now_ns += 20 * HP_US;
	f->next_timer_ns = 100 * HP_US;
	KUNIT_EXPECT_EQ(test, haltpoll_test_select(f, &stop_tick), 1);
	KUNIT_EXPECT_EQ(test, hc->timer_halt_ns, 0);
	KUNIT_EXPECT_FALSE(test, hrtimer_is_queued(timer));
	KUNIT_EXPECT_FALSE(test, stop_tick);
}

/*
 * Early wakeups that came 250 us late, as on a slow host: the lead plus a
 * halt's cost, 270 us, is past the wakeup due in 260 us. With
 * guest_halt_poll_ns at 400 us a poll reaches the wakeup: poll for it. At
 * 200 us the poll would run out and halt before it: halt until the lead,
 * at most those 200 us, before it.
 */
static void haltpoll_select_recurring_slow_host_test(struct kunit *test)
{
	struct haltpoll_select_fixture *f = test->priv;
	struct haltpoll_cpu *hc = haltpoll_test_cpu(f);
	bool stop_tick;

	haltpoll_test_recur_steady(test, f);
	haltpoll_test_wake(f)->lateness =
		(struct haltpoll_lateness){ .avg_ns = 250 * HP_US };

	/* Until 2 dev_ns (40 us after eight equal intervals) past it. */
	WRITE_ONCE(haltpoll_params.max_ns, 400 * HP_US);
	f->now_ns += 20 * HP_US;
	KUNIT_ASSERT_EQ(test, haltpoll_test_select(f, &stop_tick), 0);
	KUNIT_EXPECT_GE(test, f->dev.poll_limit_ns, 300 * HP_US);
	KUNIT_EXPECT_LE(test, f->dev.poll_limit_ns, 301 * HP_US);
	KUNIT_EXPECT_EQ(test, hc->recur_halts, 0);
	/* Caught when expected: the interval stays 300 us. */
	f->now_ns += 260 * HP_US;
	haltpoll_test_reflect(f, 0, 260 * HP_US, false);
	KUNIT_ASSERT_TRUE(test, haltpoll_recur_steady(&hc->recur));

	WRITE_ONCE(haltpoll_params.max_ns, 200 * HP_US);
	f->now_ns += 40 * HP_US;
	haltpoll_test_expect_recur_halt(test, f, 60 * HP_US);
}

/*
 * Early wakeups 20 us late on average, 10 us either way: a timer's lead
 * would be 40 us. The wakeups of haltpoll_test_recur_steady() deviate by
 * about 20 us after eight equal intervals, half a halted wakeup's price
 * (20 us late plus a halt's 20 us cost): half the 20 us margin is left,
 * a lead of about 30 us, and the CPU halts until about 230 us from now.
 */
static void haltpoll_select_recurring_lead_test(struct kunit *test)
{
	struct haltpoll_select_fixture *f = test->priv;
	struct haltpoll_cpu *hc = haltpoll_test_cpu(f);
	bool stop_tick;

	haltpoll_test_recur_steady(test, f);
	haltpoll_test_wake(f)->lateness =
		(struct haltpoll_lateness){ .avg_ns = 20 * HP_US,
					    .dev_ns = 10 * HP_US };
	KUNIT_ASSERT_EQ(test, haltpoll_lead_ns(&haltpoll_test_wake(f)->lateness),
			40 * HP_US);
	f->now_ns += 20 * HP_US;
	KUNIT_ASSERT_EQ(test, haltpoll_test_select(f, &stop_tick), 1);
	KUNIT_EXPECT_EQ(test, hc->recur_halts, 1);
	KUNIT_EXPECT_GE(test, hc->timer_halt_ns, 229 * HP_US);
	KUNIT_EXPECT_LE(test, hc->timer_halt_ns, 231 * HP_US);
	KUNIT_EXPECT_TRUE(test, haltpoll_test_armed(f, hc->timer_halt_ns));
}

/*
 * A wakeup expected inside the window, if past it at the latest, is the
 * window's to catch: poll at once, rather than halt and give up the
 * wakeups that come before the lead, and on until the latest expected
 * time, as after an early wakeup that leaves the wakeup due inside an
 * open window.
 */
static void haltpoll_select_recurring_inside_window_test(struct kunit *test)
{
	struct haltpoll_select_fixture *f = test->priv;
	struct haltpoll_cpu *hc = haltpoll_test_cpu(f);
	bool stop_tick;

	haltpoll_test_recur_steady(test, f);
	/* Due in 260 us, at the latest in 300 us. */
	WRITE_ONCE(haltpoll_params.max_ns, 400 * HP_US);
	hc->window_ns = 280 * HP_US;
	f->now_ns += 20 * HP_US;
	KUNIT_EXPECT_EQ(test, haltpoll_test_select(f, &stop_tick), 0);
	KUNIT_EXPECT_GE(test, f->dev.poll_limit_ns, 300 * HP_US);
	KUNIT_EXPECT_LE(test, f->dev.poll_limit_ns, 301 * HP_US);
	KUNIT_EXPECT_EQ(test, hc->recur_halts, 0);
	KUNIT_EXPECT_EQ(test, hc->timer_halt_ns, 0);
}

/*
 * The wakeups haltpoll-recurring-wakeup dates outside a plain reflection:
 * one pending as cpuidle entered the state (-EBUSY, no reflection) ended
 * the period at its start; one that came as a poll timed out, in the gap
 * before the halt, ended the poll's period, and the halt after it begins
 * a period of its own, dated back by the poll. Both are tasks' wakeups.
 */
static void haltpoll_select_recurring_edges_test(struct kunit *test)
{
	struct haltpoll_select_fixture *f = test->priv;
	struct haltpoll_cpu *hc = haltpoll_test_cpu(f);
	u64 start_ns = f->now_ns;
	bool stop_tick;

	KUNIT_ASSERT_EQ(test, haltpoll_test_select(f, &stop_tick), 1);
	f->now_ns += 300 * HP_US;
	KUNIT_ASSERT_EQ(test, haltpoll_test_select(f, &stop_tick), 1);
	KUNIT_EXPECT_EQ(test, hc->recur.last_ns, start_ns);

	f->now_ns += 10 * HP_US;
	/* No reschedule pending: an interrupt that woke no task. */
	cond_resched();
	haltpoll_test_reflect(f, 1, 10 * HP_US, false);
	hc->window_ns = 200 * HP_US;
	f->now_ns += 20 * HP_US;
	KUNIT_ASSERT_EQ(test, haltpoll_test_select(f, &stop_tick), 0);
	f->now_ns += 200 * HP_US;
	haltpoll_test_reflect_woken(f, 0, 200 * HP_US, true);
	KUNIT_EXPECT_EQ(test, hc->recur.last_ns, f->now_ns);
	KUNIT_EXPECT_FALSE(test, hc->recur.last_irq_only);
	KUNIT_EXPECT_TRUE(test, hc->late_catch);
	f->now_ns += 50 * HP_US;
	KUNIT_ASSERT_EQ(test, haltpoll_test_select(f, &stop_tick), 1);
	KUNIT_EXPECT_EQ(test, hc->entry_ns, f->now_ns - 200 * HP_US);
}

/*
 * The steady wakeups of haltpoll_test_recur_steady() all end halts with no
 * task woken, as an interrupt does, each dated back by the 20 us lateness.
 * A plain halt (polling off) begun 20 us after the last ended, that a
 * task's wakeup ends 10 us on, dated back by those 10 us, comes 40 us
 * after the last: that interrupt's request, dated twice. Left out, the
 * interval runs on from the interrupt, still steady.
 */
static void haltpoll_select_recurring_split_test(struct kunit *test)
{
	struct haltpoll_select_fixture *f = test->priv;
	struct haltpoll_cpu *hc = haltpoll_test_cpu(f);
	u64 last_ns;

	haltpoll_test_recur_steady(test, f);
	KUNIT_ASSERT_TRUE(test, hc->recur.last_irq_only);
	last_ns = hc->recur.last_ns;
	haltpoll_test_plain_halt(test, f);
	f->now_ns += 10 * HP_US;
	haltpoll_test_reflect_woken(f, 1, 10 * HP_US, false);
	KUNIT_EXPECT_EQ(test, hc->recur.last_ns, last_ns);
	KUNIT_EXPECT_FALSE(test, hc->recur.last_irq_only);
	KUNIT_EXPECT_TRUE(test, haltpoll_recur_steady(&hc->recur));
}

/*
 * A poll that ran past its window: the window closed when the poll gave
 * up, so a wakeup 150 us after that, within guest_halt_poll_ns, grows the
 * window. Counted from the window's nominal end, it came 230 us after and
 * shrank it.
 */
static void haltpoll_select_poll_overrun_test(struct kunit *test)
{
	struct haltpoll_select_fixture *f = test->priv;
	struct haltpoll_cpu *hc = haltpoll_test_cpu(f);
	bool stop_tick;

	WRITE_ONCE(haltpoll_params.max_ns, 200 * HP_US);
	hc->window_ns = 100 * HP_US;
	KUNIT_ASSERT_EQ(test, haltpoll_test_select(f, &stop_tick), 0);
	haltpoll_test_reflect(f, 0, 180 * HP_US, true);
	KUNIT_ASSERT_EQ(test, haltpoll_test_select(f, &stop_tick), 1);
	haltpoll_test_reflect(f, 1, 150 * HP_US, false);
	KUNIT_EXPECT_EQ(test, hc->window_ns, 200 * HP_US);
	KUNIT_EXPECT_EQ(test, hc->last_idle_ns, 330 * HP_US);
}

/*
 * HALTPOLL_CEIL_POLLS idle periods, each a poll of @poll_ns that ran out
 * and a halt of @halt_ns that a task's wakeup ended; the next poll's limit.
 */
static u64 haltpoll_test_ceiling_after(struct kunit *test, u64 poll_ns,
				       u64 halt_ns)
{
	struct haltpoll_select_fixture *f = test->priv;
	bool stop_tick;
	unsigned int i;

	for (i = 0; i < HALTPOLL_CEIL_POLLS; i++) {
		KUNIT_ASSERT_EQ(test, haltpoll_test_select(f, &stop_tick), 0);
		KUNIT_ASSERT_EQ(test, f->dev.poll_limit_ns, poll_ns);
		haltpoll_test_reflect(f, 0, poll_ns, true);
		KUNIT_ASSERT_EQ(test, haltpoll_test_select(f, &stop_tick), 1);
		haltpoll_test_reflect_woken(f, 1, halt_ns, false);
	}
	KUNIT_EXPECT_EQ(test, haltpoll_test_select(f, &stop_tick), 0);
	return f->dev.poll_limit_ns;
}

/*
 * Select with a timer due @timer_ns from now, on an entry that looks for
 * it, and expect a halt for it; a wakeup before its early wakeup ends
 * the halt. Return: how long after now the early wakeup was armed.
 */
static u64 haltpoll_test_timer_halt(struct kunit *test, u64 timer_ns)
{
	struct haltpoll_select_fixture *f = test->priv;
	struct haltpoll_cpu *hc = haltpoll_test_cpu(f);
	bool stop_tick;
	u64 halt_ns;

	hc->timerless = 0;	/* a walk on this entry: haltpoll-timer-walk */
	f->next_timer_ns = timer_ns;
	/* Early wakeups in the future: the test cancels them. */
	f->now_ns = ktime_get_ns();
	KUNIT_EXPECT_EQ(test, haltpoll_test_select(f, &stop_tick), 1);
	halt_ns = hc->timer_halt_ns;
	haltpoll_test_reflect(f, 1, 10 * HP_US, false);
	return halt_ns;
}

/*
 * haltpoll-poll-ceiling on a CPU whose halted wakeups come 100 us late.
 * Wakeups 90 us after a 200 us poll ran out (190 us into the halt) lower
 * its ceiling to 120 us; then wakeups 50 us after the 120 us poll, which
 * a 200 us poll would have caught, raise it back. hc->window_ns stays
 * at guest_halt_poll_ns throughout: the ceiling bounds the polls each
 * selection makes, a timer's too. With guest_halt_poll_learn_ceiling
 * off, as by default, nothing is learnt and a lowered ceiling does not
 * apply; on, nothing is learnt before a lateness is measured.
 */
static void haltpoll_select_ceiling_test(struct kunit *test)
{
	struct haltpoll_select_fixture *f = test->priv;
	struct haltpoll_cpu *hc = haltpoll_test_cpu(f);
	unsigned int polls;
	bool stop_tick;

	WRITE_ONCE(haltpoll_params.max_ns, 200 * HP_US);
	hc->window_ns = 200 * HP_US;
	haltpoll_test_wake(f)->lateness =
		(struct haltpoll_lateness){ .avg_ns = 100 * HP_US };
	/* Off, as by default, the CPU learns nothing. */
	WRITE_ONCE(haltpoll_learn_ceiling, false);
	KUNIT_EXPECT_EQ(test, haltpoll_test_ceiling_after(test, 200 * HP_US,
							  190 * HP_US),
			200 * HP_US);
	KUNIT_EXPECT_EQ(test, hc->ceiling.level, 0);
	/* On, but without a lateness measured, the ceiling stays. */
	WRITE_ONCE(haltpoll_learn_ceiling, true);
	haltpoll_test_wake(f)->lateness = (struct haltpoll_lateness){ };
	KUNIT_EXPECT_EQ(test, haltpoll_test_ceiling_after(test, 200 * HP_US,
							  190 * HP_US),
			200 * HP_US);
	haltpoll_test_wake(f)->lateness =
		(struct haltpoll_lateness){ .avg_ns = 100 * HP_US };
	KUNIT_EXPECT_EQ(test, haltpoll_test_ceiling_after(test, 200 * HP_US,
							  190 * HP_US),
			120 * HP_US);
	KUNIT_EXPECT_EQ(test, hc->window_ns, 200 * HP_US);
	KUNIT_EXPECT_EQ(test, hc->ceiling_ns, 120 * HP_US);
	/* The poll selected last goes unreflected, as if cpuidle said -EBUSY. */
	KUNIT_EXPECT_EQ(test, haltpoll_test_ceiling_after(test, 120 * HP_US,
							  150 * HP_US),
			200 * HP_US);
	KUNIT_EXPECT_EQ(test, hc->window_ns, 200 * HP_US);

	/*
	 * The ceiling bounds a timer's poll and lead too. A timer due within
	 * the lead is polled for up to the ceiling; one due in 100 us, which
	 * the 200 us window would poll for (within its 100 us lead plus a
	 * halt's cost), is halted for: the lead is at most half the ceiling.
	 */
	hc->ceiling.level = 1;
	polls = hc->ceiling.polls;
	hc->timerless = 0;	/* a walk on this entry: haltpoll-timer-walk */
	f->next_timer_ns = 10 * HP_US;
	KUNIT_EXPECT_EQ(test, haltpoll_test_select(f, &stop_tick), 0);
	KUNIT_EXPECT_EQ(test, f->dev.poll_limit_ns, 120 * HP_US);
	haltpoll_test_reflect(f, 0, 10 * HP_US, false);
	/*
	 * A poll for a timer is for a wakeup known to come: no lesson
	 * (the mutant ceiling-learns-timer-poll fails here).
	 */
	KUNIT_EXPECT_EQ(test, hc->ceiling.polls, polls);
	KUNIT_EXPECT_EQ(test, haltpoll_test_timer_halt(test, 100 * HP_US),
			40 * HP_US);
	/* One due past the ceiling but inside the window: halted for too. */
	KUNIT_EXPECT_EQ(test, haltpoll_test_timer_halt(test, 150 * HP_US),
			90 * HP_US);
	f->next_timer_ns = U64_MAX;

	WRITE_ONCE(haltpoll_learn_ceiling, false);
	KUNIT_EXPECT_EQ(test, haltpoll_test_select(f, &stop_tick), 0);
	KUNIT_EXPECT_EQ(test, f->dev.poll_limit_ns, 200 * HP_US);
}

/*
 * With the ceiling on, a wakeup expected past it is halted for as one
 * past guest_halt_poll_ns would be: those of haltpoll_test_recur_steady(),
 * due in 260 us and at the latest in 300 us, inside a 280 us window that
 * a 240 us ceiling (one step below 400 us) cuts, the lead 20 us.
 */
static void haltpoll_select_ceiling_recurring_test(struct kunit *test)
{
	struct haltpoll_select_fixture *f = test->priv;
	struct haltpoll_cpu *hc = haltpoll_test_cpu(f);

	haltpoll_test_recur_steady(test, f);
	WRITE_ONCE(haltpoll_params.max_ns, 400 * HP_US);
	WRITE_ONCE(haltpoll_learn_ceiling, true);
	hc->ceiling.level = 1;
	hc->window_ns = 280 * HP_US;
	f->now_ns += 20 * HP_US;
	haltpoll_test_expect_recur_halt(test, f, 240 * HP_US);
}

struct haltpoll_polled_timer_case {
	const char *name;
	u64 timer_ns;		/* U64_MAX: none */
	u64 ended_ns;		/* from the idle entry to the poll's end */
	u64 residency_ns;
	bool timed_out;
	u64 polled_avg_ns;	/* after the poll */
};

/*
 * A 200 us window, timers 200 us late to a halted CPU and 80 us to a
 * polling one: the lead, 120 us, is capped at 100 us, and a timer within
 * 120 us is polled for. A sample takes an eighth of the average.
 */
#define HP_POLLED_NS	(80 * HP_US)
#define HP_POLLED_AFTER(late_ns)	(HP_POLLED_NS - HP_POLLED_NS / 8 + (late_ns) / 8)

static const struct haltpoll_polled_timer_case haltpoll_polled_timer_cases[] = {
	{ "ended 30 us after the timer: a sample", 50 * HP_US, 80 * HP_US,
	  80 * HP_US, false, HP_POLLED_AFTER(30 * HP_US) },
	{ "ended on the timer: an on-time sample", 50 * HP_US, 50 * HP_US,
	  50 * HP_US, false, HP_POLLED_AFTER(0) },
	{ "began 5 us after the entry, ended on the timer: on time",
	  50 * HP_US, 50 * HP_US, 45 * HP_US, false, HP_POLLED_AFTER(0) },
	{ "ended 250 us after the timer: capped at the halted lead",
	  50 * HP_US, 300 * HP_US, 300 * HP_US, false,
	  HP_POLLED_AFTER(200 * HP_US) },
	{ "ended before the timer: another wakeup", 50 * HP_US, 40 * HP_US,
	  40 * HP_US, false, HP_POLLED_NS },
	{ "ran out: no timer ended it", 50 * HP_US, 200 * HP_US, 200 * HP_US,
	  true, HP_POLLED_NS },
	{ "the window's poll, no timer", U64_MAX, 80 * HP_US, 80 * HP_US,
	  false, HP_POLLED_NS },
};

/*
 * haltpoll-timer-lead: how late a timer comes to a polling CPU is
 * measured from the polls for a timer that ended on or after it, by the
 * idle entry time at the reflection, which the interrupt that ended the
 * poll moves to the poll's end, as the test does. A poll for a timer
 * that cpuidle never entered (-EBUSY) leaves nothing for the next poll's
 * reflection.
 */
static void haltpoll_select_polled_timer_test(struct kunit *test)
{
	const struct haltpoll_polled_timer_case *c;
	struct haltpoll_select_fixture *f = test->priv;
	struct haltpoll_cpu *hc = haltpoll_test_cpu(f);
	struct haltpoll_wake *w = haltpoll_test_wake(f);
	bool stop_tick;

	for (c = haltpoll_polled_timer_cases;
	     c < haltpoll_polled_timer_cases + ARRAY_SIZE(haltpoll_polled_timer_cases);
	     c++) {
		haltpoll_enable_device(&f->drv, &f->dev);
		hc->window_ns = 200 * HP_US;
		w->lateness = (struct haltpoll_lateness){ .avg_ns = 200 * HP_US };
		w->polled = (struct haltpoll_lateness){ .avg_ns = HP_POLLED_NS };
		f->next_timer_ns = c->timer_ns;
		KUNIT_EXPECT_EQ_MSG(test, haltpoll_test_select(f, &stop_tick), 0,
				    "case: %s", c->name);
		f->now_ns += c->ended_ns;
		haltpoll_test_reflect(f, 0, c->residency_ns, c->timed_out);
		KUNIT_EXPECT_EQ_MSG(test, w->polled.avg_ns, c->polled_avg_ns,
				    "case: %s", c->name);
		/* A halt after a poll that ran out is no poll for the timer. */
		if (c->timed_out) {
			haltpoll_test_select(f, &stop_tick);
			haltpoll_test_reflect(f, 1, 100 * HP_US, false);
			KUNIT_EXPECT_EQ_MSG(test, w->polled.avg_ns, HP_POLLED_NS,
					    "case: %s, halt", c->name);
		}
	}

	/* A poll for a timer left unreflected, then the window's poll. */
	f->next_timer_ns = 50 * HP_US;
	KUNIT_EXPECT_EQ(test, haltpoll_test_select(f, &stop_tick), 0);
	KUNIT_EXPECT_NE(test, hc->timer_due_ns, 0);
	f->next_timer_ns = U64_MAX;
	KUNIT_EXPECT_EQ(test, haltpoll_test_select(f, &stop_tick), 0);
	f->now_ns += 80 * HP_US;
	haltpoll_test_reflect(f, 0, 80 * HP_US, false);
	KUNIT_EXPECT_EQ(test, w->polled.avg_ns, HP_POLLED_NS);
}

/*
 * A timer that comes 80 us late to a polling CPU and 100 us late to a
 * halted one leaves a 20 us lead: one due in 100 us, polled for all along
 * with the halted lead alone, is halted for until 80 us. If the timer's
 * wakeup comes with that early wakeup, the CPU polled for nothing: the
 * miss counts as a timer polled for on time, and the lead grows back.
 * Where half the window caps both leads alike (140 us halted, 110 us less
 * the polled lateness, 100 us in use), the polled lateness shortened
 * nothing, and a miss leaves it as it is.
 */
static void haltpoll_select_polled_lead_test(struct kunit *test)
{
	struct haltpoll_select_fixture *f = test->priv;
	struct haltpoll_cpu *hc = haltpoll_test_cpu(f);
	struct haltpoll_wake *w = haltpoll_test_wake(f);
	bool stop_tick;

	hc->window_ns = 200 * HP_US;
	w->lateness = (struct haltpoll_lateness){ .avg_ns = 100 * HP_US };
	f->next_timer_ns = 100 * HP_US;
	KUNIT_EXPECT_EQ(test, haltpoll_test_select(f, &stop_tick), 0);
	haltpoll_test_reflect(f, 0, 10 * HP_US, false);
	w->polled = (struct haltpoll_lateness){ .avg_ns = 80 * HP_US };
	KUNIT_EXPECT_EQ(test, haltpoll_test_select(f, &stop_tick), 1);
	KUNIT_EXPECT_EQ(test, hc->timer_halt_ns, 80 * HP_US);
	KUNIT_EXPECT_TRUE(test, haltpoll_test_armed(f, 80 * HP_US));
	haltpoll_test_early_woke(f);
	haltpoll_test_reflect_woken(f, 1, 100 * HP_US, false);
	KUNIT_EXPECT_EQ(test, hc->lead_misses, 1);
	KUNIT_EXPECT_EQ(test, w->polled.avg_ns, 80 * HP_US - 80 * HP_US / 8);

	w->lateness = (struct haltpoll_lateness){ .avg_ns = 140 * HP_US };
	w->polled = (struct haltpoll_lateness){ .avg_ns = 30 * HP_US };
	f->next_timer_ns = 150 * HP_US;
	KUNIT_EXPECT_EQ(test, haltpoll_test_select(f, &stop_tick), 1);
	KUNIT_EXPECT_EQ(test, hc->timer_halt_ns, 50 * HP_US);
	haltpoll_test_early_woke(f);
	haltpoll_test_reflect_woken(f, 1, 50 * HP_US, false);
	KUNIT_EXPECT_EQ(test, hc->lead_misses, 2);
	KUNIT_EXPECT_EQ(test, w->polled.avg_ns, 30 * HP_US);
}

/*
 * The lead before an expected wakeup (haltpoll-recurring-wakeup) is not a
 * timer's: a miss of its early wakeup leaves the polled lateness alone.
 */
static void haltpoll_select_recur_miss_test(struct kunit *test)
{
	struct haltpoll_select_fixture *f = test->priv;
	struct haltpoll_cpu *hc = haltpoll_test_cpu(f);
	struct haltpoll_wake *w = haltpoll_test_wake(f);

	haltpoll_test_recur_steady(test, f);
	w->polled = (struct haltpoll_lateness){ .avg_ns = 10 * HP_US };
	f->now_ns += 20 * HP_US;
	haltpoll_test_expect_recur_halt(test, f, 240 * HP_US);
	haltpoll_test_early_woke(f);
	f->now_ns += 240 * HP_US;
	haltpoll_test_reflect_woken(f, 1, 240 * HP_US, false);
	KUNIT_EXPECT_EQ(test, hc->lead_misses, 1);
	KUNIT_EXPECT_EQ(test, w->polled.avg_ns, 10 * HP_US);
}

static enum hrtimer_restart haltpoll_test_timer_fn(struct hrtimer *timer)
{
	return HRTIMER_NORESTART;
}

/*
 * The real lookup leaves the tick out: with an hrtimer 50 ms away on this
 * CPU, the next timer is not the tick, at most a tick away while it runs,
 * as it does in this thread (and, with nohz=off, in idle too). Another
 * hrtimer of the CPU may come first by chance: the latest of a few looks,
 * 5 ms apart, counts.
 */
static void haltpoll_next_timer_leaves_out_tick_test(struct kunit *test)
{
	struct hrtimer *timer;
	u64 next_ns = 0;
	int i;

	timer = kunit_kzalloc(test, sizeof(*timer), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, timer);
	kunit_deactivate_static_stub(test, haltpoll_next_timer_ns);
	/* Out of idle, the idle entry time the governor takes is stale. */
	kunit_activate_static_stub(test, haltpoll_now_ns,
				   haltpoll_test_clock_ns);
	hrtimer_init(timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED);
	timer->function = haltpoll_test_timer_fn;
	/* Built-in suites run early in boot: give hrtimers 2 s to go high res. */
	for (i = 0; i < 100 && !hrtimer_is_hres_active(timer); i++)
		msleep(20);
	hrtimer_start(timer, ms_to_ktime(50), HRTIMER_MODE_REL_PINNED);
	for (i = 0; i < 5 && next_ns <= TICK_NSEC; i++) {
		if (i)
			usleep_range(5000, 6000);
		local_irq_disable();
		next_ns = max(next_ns, haltpoll_next_timer_ns());
		local_irq_enable();
	}
	hrtimer_cancel(timer);
	if (next_ns == U64_MAX)
		kunit_skip(test, "hrtimers are not in high resolution mode");
	KUNIT_EXPECT_GT(test, next_ns, TICK_NSEC);
	KUNIT_EXPECT_LE(test, next_ns, 50 * NSEC_PER_MSEC);
}

/* Select at @after_ns past the test's now, and reflect a short halt. */
static int haltpoll_test_select_at(struct haltpoll_select_fixture *f,
				   u64 after_ns)
{
	bool stop_tick;
	int index;

	f->now_ns += after_ns;
	index = haltpoll_test_select(f, &stop_tick);
	if (index)
		haltpoll_test_reflect_woken(f, 1, 80 * HP_US, false);
	else
		haltpoll_test_reflect_woken(f, 0, 20 * HP_US, false);
	return index;
}

/*
 * On a host that preempts a good share of the CPU's polls, a poll the
 * host preempted holds polling off from the next idle entry that could
 * poll (haltpoll-host-preemption): the CPU halts until the hold ends,
 * then polls again; the host preempting that poll too doubles the hold,
 * one after HALTPOLL_HOLD_RECENT_NS starts it over. A preempted poll that
 * ran out is followed by its halt first, as any that ran out. On a quiet
 * CPU, a lone preempted poll holds nothing off. With
 * guest_halt_poll_preempt_hold off (its default), a preempted poll is
 * still counted and the CPU polls on, and turned back on, no hold is
 * left in force.
 */
static void haltpoll_select_host_preempted_test(struct kunit *test)
{
	struct haltpoll_select_fixture *f = test->priv;
	struct haltpoll_cpu *hc = haltpoll_test_cpu(f);
	u64 hold_ns = HALTPOLL_HOLD_MIN_NS;
	bool stop_tick;
	int round;

	WRITE_ONCE(haltpoll_preempt_hold, true);
	/* A wakeup just after the closed window opens it. */
	KUNIT_ASSERT_EQ(test, haltpoll_test_select_at(f, 0), 1);
	KUNIT_ASSERT_EQ(test, haltpoll_test_select(f, &stop_tick), 0);
	haltpoll_test_reflect_preempted(f, 20 * HP_US, false);
	KUNIT_EXPECT_EQ_MSG(test, haltpoll_test_select_at(f, 0), 0,
			    "a quiet CPU polls on");
	/* A host that preempts one poll in eight. */
	hc->preempt_share = HALTPOLL_PREEMPT_ONE / 8;
	for (round = 1; round <= 3; round++, hold_ns *= 2) {
		if (round == 3) {
			f->now_ns += HALTPOLL_HOLD_RECENT_NS;
			hold_ns = HALTPOLL_HOLD_MIN_NS;
		}
		f->now_ns += 1;
		KUNIT_ASSERT_EQ_MSG(test, haltpoll_test_select(f, &stop_tick),
				    0, "round %d: polls", round);
		haltpoll_test_reflect_preempted(f, 20 * HP_US, round == 2);
		KUNIT_EXPECT_EQ(test, hc->preempted_polls, round + 1);
		if (round == 2)
			KUNIT_EXPECT_EQ_MSG(test, haltpoll_test_select_at(f, 0),
					    1, "round 2: the poll's halt");
		KUNIT_EXPECT_EQ_MSG(test, haltpoll_test_select_at(f, 0), 1,
				    "round %d: the hold starts", round);
		KUNIT_EXPECT_EQ_MSG(test, hc->hold_ns, hold_ns,
				    "round %d: the hold", round);
		KUNIT_EXPECT_EQ_MSG(test, haltpoll_test_select_at(f, hold_ns - 1),
				    1, "round %d: held to its end", round);
	}

	/* Turned off while a hold is in force, the CPU polls at once. */
	WRITE_ONCE(haltpoll_preempt_hold, false);
	KUNIT_EXPECT_EQ_MSG(test, haltpoll_test_select_at(f, 0), 0,
			    "off: the hold ends");
	KUNIT_ASSERT_EQ(test, haltpoll_test_select(f, &stop_tick), 0);
	haltpoll_test_reflect_preempted(f, 20 * HP_US, false);
	KUNIT_EXPECT_EQ(test, hc->preempted_polls, 5);
	KUNIT_EXPECT_EQ_MSG(test, haltpoll_test_select_at(f, 0), 0,
			    "off: polls on");
	KUNIT_EXPECT_EQ(test, hc->preempt_share, 0);
	WRITE_ONCE(haltpoll_preempt_hold, true);
	KUNIT_EXPECT_EQ_MSG(test, haltpoll_test_select_at(f, 0), 0,
			    "on again: no hold left");

	/* Clean polls bring a crowded share back down. */
	hc->preempt_share = HALTPOLL_PREEMPT_ONE / 8;
	for (round = 0; round < 100; round++)
		KUNIT_ASSERT_EQ(test, haltpoll_test_select_at(f, 0), 0);
	KUNIT_ASSERT_EQ(test, haltpoll_test_select(f, &stop_tick), 0);
	haltpoll_test_reflect_preempted(f, 20 * HP_US, false);
	KUNIT_EXPECT_EQ_MSG(test, haltpoll_test_select_at(f, 0), 0,
			    "a share the clean polls brought down: polls on");
}

/*
 * Switched away, the governor leaves no poll limit of its own behind: the
 * next governor's polls are bounded by cpuidle_poll_time()'s default (here
 * the halt state's target residency), not by the last window; and no
 * early wakeup stays queued.
 */
static void haltpoll_select_disable_test(struct kunit *test)
{
	struct haltpoll_select_fixture *f = test->priv;
	struct haltpoll_wake *w = haltpoll_test_wake(f);
	bool stop_tick;

	f->drv.states[1].target_residency_ns = 20 * HP_US;
	haltpoll_test_cpu(f)->window_ns = 10000 * HP_US;
	KUNIT_ASSERT_EQ(test, haltpoll_test_select(f, &stop_tick), 0);
	KUNIT_ASSERT_EQ(test, f->dev.poll_limit_ns, 10000 * HP_US);
	haltpoll_test_reflect_woken(f, 0, 10 * HP_US, false);
	/*
	 * A timer in the window: a halt and an early wakeup before it, armed
	 * a second ahead of the real clock, so that it is still queued
	 * however long the case is descheduled.
	 */
	w->lateness.avg_ns = 5 * HP_US;
	f->next_timer_ns = 9000 * HP_US;
	f->now_ns = ktime_get_ns() + NSEC_PER_SEC;
	KUNIT_ASSERT_EQ(test, haltpoll_test_select(f, &stop_tick), 1);
	KUNIT_ASSERT_TRUE(test, hrtimer_is_queued(&w->timer));

	/* What cpuidle calls, through the governor it registered. */
	KUNIT_ASSERT_PTR_EQ(test, haltpoll_governor.disable,
			    &haltpoll_disable_device);
	haltpoll_governor.disable(&f->drv, &f->dev);
	KUNIT_EXPECT_FALSE(test, hrtimer_is_queued(&w->timer));
	KUNIT_EXPECT_EQ(test, f->dev.poll_limit_ns, 0);
	KUNIT_EXPECT_EQ(test, cpuidle_poll_time(&f->drv, &f->dev),
			20 * HP_US);
}

static struct kunit_case haltpoll_select_cases[] = {
	KUNIT_CASE(haltpoll_select_closed_window_test),
	KUNIT_CASE(haltpoll_select_no_polling_keeps_tick_test),
	KUNIT_CASE(haltpoll_select_opens_window_test),
	KUNIT_CASE(haltpoll_select_timer_test),
	KUNIT_CASE(haltpoll_select_early_wakeup_test),
	KUNIT_CASE(haltpoll_select_halt_until_tick_test),
	KUNIT_CASE(haltpoll_select_ebusy_test),
	KUNIT_CASE(haltpoll_select_disabled_state_test),
	KUNIT_CASE(haltpoll_select_no_poll_state_test),
	KUNIT_CASE(haltpoll_select_near_timer_test),
	KUNIT_CASE(haltpoll_select_timer_walk_test),
	KUNIT_CASE(haltpoll_select_walk_horizon_test),
	KUNIT_CASE(haltpoll_select_recurring_wakeup_test),
	KUNIT_CASE(haltpoll_select_recurring_slow_host_test),
	KUNIT_CASE(haltpoll_select_recurring_lead_test),
	KUNIT_CASE(haltpoll_select_recurring_inside_window_test),
	KUNIT_CASE(haltpoll_select_recurring_edges_test),
	KUNIT_CASE(haltpoll_select_recurring_split_test),
	KUNIT_CASE(haltpoll_select_poll_overrun_test),
	KUNIT_CASE(haltpoll_select_ceiling_test),
	KUNIT_CASE(haltpoll_select_ceiling_recurring_test),
	KUNIT_CASE(haltpoll_select_polled_timer_test),
	KUNIT_CASE(haltpoll_select_polled_lead_test),
	KUNIT_CASE(haltpoll_select_recur_miss_test),
	KUNIT_CASE(haltpoll_next_timer_leaves_out_tick_test),
	KUNIT_CASE(haltpoll_select_host_preempted_test),
	KUNIT_CASE(haltpoll_select_disable_test),
	{}
};

static struct kunit_suite haltpoll_select_suite = {
	.name = "haltpoll_select",
	.init = haltpoll_select_test_init,
	.exit = haltpoll_select_test_exit,
	.test_cases = haltpoll_select_cases,
};

kunit_test_suite(haltpoll_select_suite);

#endif /* _HALTPOLL_SELECT_KUNIT_H */
