// SPDX-License-Identifier: GPL-2.0
/*
 * haltpoll.c - adaptive poll-then-halt cpuidle governor for guests
 *
 * Copyright 2019 Red Hat, Inc. and/or its affiliates.
 *
 * Authors: Marcelo Tosatti <mtosatti@redhat.com>
 */

/**
 * DOC: haltpoll-description
 *
 * An idle vCPU that halts exits to the host and is descheduled there; its
 * next wakeup costs an IPI, a host wakeup and a VM entry, tens of
 * microseconds. A vCPU that polls with TIF_POLLING_NRFLAG set is woken by a
 * plain store to its thread flags instead, within nanoseconds, but every
 * nanosecond it polls is host CPU time. The governor's observation is that
 * guest wakeups come in patterns (request/response traffic, a pipe, a lock
 * hand-off), so the recent past says whether a short poll will pay off.
 *
 * Metrics, per CPU:
 *
 * - window_ns: how long the poll state may spin before giving up. Starts at
 *   0 (no polling) when the CPU's cpuidle device is enabled.
 * - idle_ns: length of the idle period that just ended: the time spent
 *   polling plus, if the poll timed out, the time spent halted; as the
 *   window sees it, the poll counts for at most the window.
 *
 * Procedure, on every idle entry (haltpoll_select()):
 *
 * 1. If PM QoS allows no exit latency, poll, keeping the tick.
 * 2. If the last poll ran out its window, halt now: the wakeup is not coming
 *    soon. With guest_halt_poll_preempt_hold set, if the host preempted a
 *    recent poll, and more than one in sixteen of the CPU's recent polls,
 *    halt for a hold of a millisecond to a second: the host needs the CPU
 *    for another task (haltpoll-host-preemption in haltpoll_window.h).
 *    If the next timer, not counting the tick, expires before the window
 *    would close, a poll would spin until the timer fires: halt instead,
 *    but set an hrtimer to wake the CPU a lead time before that
 *    timer, so that the timer finds the CPU polling. A halted vCPU takes
 *    its timer interrupt late (the host must wake it); the lead is the
 *    average lateness of these early wakeups plus twice its average
 *    deviation, less how late the timers the CPU polled for came (polling
 *    buys only the difference), measured per CPU, at most half the window
 *    (haltpoll-timer-lead in haltpoll_window.h), so the CPU gets polling's
 *    timer latency for a poll of about the lead. A timer due within the
 *    lead plus a halt's host cost (HALTPOLL_HALT_COST_NS) is polled for
 *    at once: the halt would save less poll time than its exit and early
 *    wakeup cost. If the CPU's wakeups have come at a steady interval
 *    and the next is expected past the window (or the window is closed),
 *    halt for it as for a timer due then, and poll from a lead before
 *    it (shorter than a timer's as the interval scatters) until the
 *    latest it is expected (haltpoll-recurring-wakeup in
 *    haltpoll_window.h). If a timer is due past the window but within a
 *    tick, and such idle periods have lately been ending on their timer
 *    rather than on a wakeup, halt through it (haltpoll-near-timer). A
 *    CPU that has had no timer due within its window or a tick for a
 *    while looks for one on some idle entries only (haltpoll-timer-walk).
 *    Otherwise poll for window_ns, keeping the tick (it is not stopped
 *    for a period that short).
 *    A wakeup that came after a poll ran out, before its halt was
 *    entered, was not caught by the window either: halt at the next idle
 *    entry (a late catch: haltpoll_reflect(),
 *    haltpoll_forget_unreflected()).
 * 3. When halting for a timer or an early wakeup due within a tick, keep
 *    the tick, as menu does for an idle period it predicts that short
 *    (haltpoll_halt_until()); so too with the window closed, when the next
 *    timer is due within a tick. Otherwise stop it, as Linux 6.12 does,
 *    but on a CPU that does not poll (guest_halt_poll_ns 0, its poll
 *    state disabled, or a driver without one), which halts on every idle
 *    entry: there stop it only if the last idle period lasted at least
 *    half a tick, as restarting it around every short halt costs more
 *    than the halt saves (haltpoll_keep_tick()).
 *
 * And on every idle exit (haltpoll_reflect()), for a period that ended in
 * the halt state, i.e. one the window did not catch:
 *
 * 4. If the wakeup came within guest_halt_poll_ns of the window closing
 *    (the halt lasted at most that long; the window closed when the poll
 *    gave up, which may be past window_ns: haltpoll_idle_for_window()),
 *    a larger window would have caught it: grow the window, multiplying
 *    it by guest_halt_poll_grow, starting from guest_halt_poll_grow_start,
 *    capped at guest_halt_poll_ns.
 * 5. Otherwise polling was wasted: if guest_halt_poll_allow_shrink, divide
 *    the window by guest_halt_poll_shrink, dropping to 0 below
 *    guest_halt_poll_grow_start.
 *
 * A poll that caught its wakeup leaves the window as it is, and so does a
 * halt chosen in step 2 that its early wakeup ended: a timer says nothing
 * of the wakeups a window is for.
 *
 * 6. With guest_halt_poll_learn_ceiling set, the CPU's poll ceiling
 *    bounds the polls of step 2 and its lead, as guest_halt_poll_ns
 *    does. It starts at guest_halt_poll_ns and steps down while the last
 *    stretch of its polls wastes more poll time than the halted wakeups
 *    it spares are worth, and up while wakeups just past it would have
 *    paid for a longer poll (haltpoll-poll-ceiling in haltpoll_window.h).
 *    Step 2 still halts for a timer anywhere in the window, and a poll
 *    for a timer teaches the ceiling nothing. The window keeps growing
 *    and shrinking against guest_halt_poll_ns.
 *
 * The arithmetic of steps 2 to 6 lives in haltpoll_window.h as pure
 * functions, so that it can be tested, and replayed against idle traces,
 * away from a running CPU.
 * Linux 6.12 grew the window only when the halt outlasted the window
 * itself, so a window just short of a steady wakeup never caught up with
 * it.
 *
 * The parameters take every value Linux 6.12 took but grow_start 0, with
 * which a closed window would never open again; no value, or combination
 * of values, makes a window longer than HALTPOLL_WINDOW_CAP_NS.
 */

#include <kunit/static_stub.h>
#include <linux/cpuidle.h>
#include <linux/debugfs.h>
#include <linux/hrtimer.h>
#include <linux/kernel.h>
#include <linux/moduleparam.h>
#include <linux/once.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/tick.h>
#include <trace/events/power.h>

#include "haltpoll_window.h"

/**
 * struct haltpoll_cpu - per-CPU governor state
 * @window_ns: current poll window
 * @poll_ns: time the current idle period polled before its poll timed out;
 *	non-zero only until a halt after it is entered (a timed-out poll
 *	lasted longer than its limit, so it is never 0)
 * @last_idle_ns: length of the previous idle period
 * @polls_caught: polls that ended on a wakeup, since the CPU's cpuidle
 *	device was enabled
 * @polls_timed_out: polls that ran out their window
 * @wasted_ns: time spent in polls that ran out their window
 * @timer_halt_ns: how long after its selection the halt chosen for a
 *	timer or an expected wakeup is to end (the early wakeup
 *	haltpoll_halt_for_timer() or haltpoll_halt_for_wakeup() set), until
 *	it ends; 0 for none
 * @early_wakes: halts that ended on their early wakeup
 * @lead_misses: early wakeups that came with the timer's own wakeup
 * @near_timer_ns: time from the idle entry to the near timer of the
 *	current idle period (haltpoll-near-timer); 0 for none
 * @near_count: the count of near-timer periods, polled for while high
 * @timerless: idle entries since a timer was last found due within the
 *	window or a tick, whichever is longer (haltpoll-timer-walk)
 * @near_halts: halts chosen for a near timer
 * @recur: the interval between the CPU's wakeups (haltpoll-recurring-wakeup)
 * @entry_ns: when the current idle period began, by haltpoll_now_ns(); 0
 *	while guest_halt_poll_recurring is off, which then costs nothing
 * @late_catch: the poll that timed out caught its wakeup in the gap before
 *	its halt: the halt that follows starts a new idle period
 * @recur_halts: halts chosen for an expected wakeup
 * @reflect_due: a state was selected and its outcome not yet reflected
 * @no_poll_state: the driver's first state does not poll: only pick it;
 *	set when the device is enabled
 * @ceiling: the CPU's learned poll ceiling (haltpoll-poll-ceiling)
 * @ceiling_ns: the poll ceiling of the last selection that could poll
 * @poll_limit_ns: the limit without the ceiling of the poll that began the
 *	current idle period, until its wakeup is learned from; 0 for none
 * @timer_due_ns: when the timer the current poll is for is due, by
 *	haltpoll_now_ns(), until the poll is reflected; 0 for none
 * @lead_shortened: the early wakeup of the current halt precedes a timer
 *	by a lead the polled lateness shortened (haltpoll-timer-lead)
 * @hold_ns: the last hold after a poll the host preempted
 *	(haltpoll-host-preemption), 0 for none
 * @hold_until_ns: when the last hold ends or ended, by haltpoll_now_ns();
 *	0 for none
 * @hold_due: the host preempted the last poll, one of a share that says it
 *	is crowded: a hold starts at the next selection
 * @preempt_share: the share of recent polls the host preempted, while
 *	guest_halt_poll_preempt_hold is on (haltpoll_preempt_share_next())
 * @preempted_polls: polls the host preempted
 *
 * Written only by the CPU itself; the statistics are read locklessly by
 * debugfs, a snapshot good enough for an operator.
 */
struct haltpoll_cpu {
	u64 window_ns;
	u64 poll_ns;
	u64 last_idle_ns;
	u64 polls_caught;
	u64 polls_timed_out;
	u64 wasted_ns;
	u64 timer_halt_ns;
	u64 early_wakes;
	u64 lead_misses;
	u64 near_timer_ns;
	u64 near_halts;
	struct haltpoll_recurrence recur;
	u64 entry_ns;
	u64 recur_halts;
	bool late_catch;
	unsigned int near_count;
	unsigned int timerless;
	bool reflect_due;
	bool no_poll_state;
	struct haltpoll_ceiling ceiling;
	u64 ceiling_ns;
	u64 poll_limit_ns;
	u64 timer_due_ns;
	bool lead_shortened;
	u64 hold_ns;
	u64 hold_until_ns;
	bool hold_due;
	unsigned int preempt_share;
	u64 preempted_polls;
};

static DEFINE_PER_CPU(struct haltpoll_cpu, haltpoll_cpus);

/**
 * struct haltpoll_wake - per-CPU early wakeup before a timer
 * @timer: ends a halt lead_ns before the timer it was chosen for
 * @lateness: how late @timer's interrupts came (haltpoll-timer-lead)
 * @polled: how late the timers the CPU polled for came (haltpoll-timer-lead),
 *	kept across device enables as @lateness is
 * @ended_halt: @timer fired in idle with no wakeup pending, so it ended the
 *	halt, until the halt is reflected; set in hard interrupt context
 *
 * Apart from struct haltpoll_cpu, which is cleared when a CPU's cpuidle
 * device is enabled: a queued hrtimer must not be cleared, and the
 * lateness is the host's, not the device's.
 */
struct haltpoll_wake {
	struct hrtimer timer;
	struct haltpoll_lateness lateness;
	struct haltpoll_lateness polled;
	bool ended_halt;
};

static DEFINE_PER_CPU(struct haltpoll_wake, haltpoll_wakes);

static bool haltpoll_recurring __read_mostly = true;
static bool haltpoll_learn_ceiling __read_mostly;
static bool haltpoll_preempt_hold __read_mostly;

static struct haltpoll_params haltpoll_params __read_mostly = {
	.max_ns		= 200000,
	.grow_start_ns	= 50000,
	.grow		= 2,
	.shrink		= 2,
	.allow_shrink	= true,
};

/* The longest poll guest_halt_poll_ns allows, as now written. */
static u64 haltpoll_max_ns(void)
{
	return min_t(u64, READ_ONCE(haltpoll_params.max_ns),
		     HALTPOLL_WINDOW_CAP_NS);
}

static struct haltpoll_params haltpoll_params_snapshot(void)
{
	struct haltpoll_params p = {
		.max_ns		= READ_ONCE(haltpoll_params.max_ns),
		.grow_start_ns	= READ_ONCE(haltpoll_params.grow_start_ns),
		.grow		= READ_ONCE(haltpoll_params.grow),
		.shrink		= READ_ONCE(haltpoll_params.shrink),
		.allow_shrink	= READ_ONCE(haltpoll_params.allow_shrink),
	};

	return p;
}

/*
 * Every value Linux 6.12 took is taken and reads back as written, but for
 * the one that would make the governor misbehave (haltpoll_params_invalid()).
 * Windows stop at HALTPOLL_WINDOW_CAP_NS whatever guest_halt_poll_ns and
 * guest_halt_poll_grow_start say; a write above it is told so. Messages
 * are rate-limited: a tuning loop gone wrong must not flood the log.
 */
static int haltpoll_param_set_ns(const char *val,
				 const struct kernel_param *kp)
{
	struct haltpoll_params next = haltpoll_params;
	unsigned int *field, value;
	const char *why;
	int ret;

	ret = kstrtouint(val, 0, &value);
	if (ret) {
		pr_warn_ratelimited("%s: not an unsigned integer\n", kp->name);
		return ret;
	}

	/* Check the write with all other parameters, on a copy. */
	field = (unsigned int *)((char *)&next +
				 ((char *)kp->arg - (char *)&haltpoll_params));
	*field = value;
	why = haltpoll_params_invalid(&next);
	if (why) {
		pr_warn_ratelimited("%s=%u refused: %s\n", kp->name, value, why);
		return -EINVAL;
	}
	if (value > HALTPOLL_WINDOW_CAP_NS)
		pr_notice_ratelimited("%s=%u: windows stop at the %llu ns cap\n",
				      kp->name, value, HALTPOLL_WINDOW_CAP_NS);

	WRITE_ONCE(*(unsigned int *)kp->arg, value);
	return 0;
}

static const struct kernel_param_ops haltpoll_ns_ops = {
	.set = haltpoll_param_set_ns,
	.get = param_get_uint,
};

module_param_cb(guest_halt_poll_ns, &haltpoll_ns_ops,
		&haltpoll_params.max_ns, 0644);
MODULE_PARM_DESC(guest_halt_poll_ns,
		 "Largest poll window in ns (0 disables polling; windows stop at 10 ms)");

module_param_cb(guest_halt_poll_grow_start, &haltpoll_ns_ops,
		&haltpoll_params.grow_start_ns, 0644);
MODULE_PARM_DESC(guest_halt_poll_grow_start,
		 "First window in ns when growing from 0 (not 0)");

module_param_named(guest_halt_poll_grow, haltpoll_params.grow, uint, 0644);
MODULE_PARM_DESC(guest_halt_poll_grow,
		 "Window multiplier on growth (a closed window opens at grow_start; 0 sets a growing one to it, 1 keeps it)");

module_param_named(guest_halt_poll_shrink, haltpoll_params.shrink, uint, 0644);
MODULE_PARM_DESC(guest_halt_poll_shrink,
		 "Window divisor on shrink (0 resets the window to 0)");

module_param_named(guest_halt_poll_allow_shrink, haltpoll_params.allow_shrink,
		   bool, 0644);
MODULE_PARM_DESC(guest_halt_poll_allow_shrink,
		 "Shrink the window after idle periods longer than guest_halt_poll_ns");

module_param_named(guest_halt_poll_recurring, haltpoll_recurring, bool, 0644);
MODULE_PARM_DESC(guest_halt_poll_recurring,
		 "Halt for wakeups that recur at a steady interval past the window, polling just before them");

module_param_named(guest_halt_poll_learn_ceiling, haltpoll_learn_ceiling,
		   bool, 0644);
MODULE_PARM_DESC(guest_halt_poll_learn_ceiling,
		 "Learn per CPU a poll limit below guest_halt_poll_ns where the last stretch of a poll wastes more than it catches (default off)");

module_param_named(guest_halt_poll_preempt_hold, haltpoll_preempt_hold, bool, 0644);
MODULE_PARM_DESC(guest_halt_poll_preempt_hold,
		 "Halt instead of polling for a while on a CPU whose poll the host preempted to run another task (default off)");

/* Halt; @polling: the CPU polls at all (haltpoll_keep_tick()). */
static int haltpoll_halt(struct haltpoll_cpu *hc, bool polling,
			 bool *stop_tick)
{
	*stop_tick = !haltpoll_keep_tick(polling, hc->last_idle_ns, TICK_NSEC);
	return 1;
}

/*
 * Halt for a timer or an early wakeup due @until_ns from now. For a halt
 * that short, keep the tick, as menu keeps it for an idle period it
 * predicts shorter than a tick: stopping it, which in high resolution
 * mode the idle loop would do whatever hrtimer is due, then restarting
 * it costs up to two clockevent programmings and a walk of the timer
 * wheel, the restart on the way out of the halt; and the halt ends on
 * its timer before the tick, or on the tick at most once.
 */
static int haltpoll_halt_until(u64 until_ns, bool *stop_tick)
{
	*stop_tick = until_ns >= TICK_NSEC;
	return 1;
}

/*
 * Poll for @limit_ns. The ceiling learns from the poll only through
 * haltpoll_poll(), which notes the poll's limit.
 */
static int haltpoll_poll_plain(struct cpuidle_device *dev, u64 limit_ns,
			       bool *stop_tick)
{
	/* Set on every selection: cpuidle_poll_time() fills a zero with its own default. */
	dev->poll_limit_ns = limit_ns;
	*stop_tick = false;
	return 0;
}

/* Poll for @limit_ns, or up to the CPU's ceiling if that is lower. */
static int haltpoll_poll(struct cpuidle_device *dev, struct haltpoll_cpu *hc,
			 u64 limit_ns, bool *stop_tick)
{
	hc->poll_limit_ns = limit_ns;
	return haltpoll_poll_plain(dev, min(limit_ns, hc->ceiling_ns),
				   stop_tick);
}

/* The poll ceiling in force, at most @max_ns (haltpoll-poll-ceiling). */
static u64 haltpoll_ceiling_in_use(struct haltpoll_cpu *hc, u64 max_ns)
{
	if (!READ_ONCE(haltpoll_learn_ceiling))
		return max_ns;
	/* A poll limit of 0 would be cpuidle_poll_time()'s default. */
	return max_t(u64, haltpoll_ceiling_ns(hc->ceiling.level, max_ns), 1);
}

/*
 * The governor's clock, CLOCK_MONOTONIC: when the idle loop was entered,
 * or an interrupt in idle left, a time the tick code has read already and
 * menu and teo take too, through tick_nohz_get_sleep_length(). It runs
 * behind the selection by the path from there to the governor, or by a
 * halt that ended without an interrupt (an NMI, say): a timer or an
 * expected wakeup then looks that much further away, and the period
 * begins that much earlier. Early wakeups are armed on it, and come when
 * meant. What it saves is a clock read on every idle entry, on the path
 * to a wakeup that comes while the governor runs.
 */
static u64 haltpoll_now_ns(void)
{
	KUNIT_STATIC_STUB_REDIRECT(haltpoll_now_ns);
	return ktime_to_ns(tick_nohz_get_idle_entrytime());
}

/*
 * haltpoll_now_ns() from the reflection, which cpuidle calls with
 * interrupts enabled: the idle entry time may be taken only with them
 * disabled. There it is when the interrupt that ended the idle period
 * came in: the tick code stamps it on entry of the first outermost
 * interrupt in idle that goes through irq_enter_rcu() (not x86's simple
 * system vectors, such as the reschedule IPI), and, except on a nohz_full
 * CPU, not again once an interrupt leaves a wakeup pending. That is close
 * to where haltpoll_wake_fn() reads the clock for a halted CPU's lateness,
 * a little before it, and no clock is read on the way to the task the
 * interrupt woke.
 */
static u64 haltpoll_reflect_now_ns(void)
{
	unsigned long flags;
	u64 now_ns;

	local_irq_save(flags);
	now_ns = haltpoll_now_ns();
	local_irq_restore(flags);
	return now_ns;
}

/*
 * Time from now (haltpoll_now_ns()) to the next hrtimer other than the
 * tick, U64_MAX for none: a poll runs through the tick, which wakes no
 * task, so only a timer that does can end the poll. Counting the tick
 * would make a window longer than a tick halt on most idle entries, and
 * tick_nohz_get_sleep_length() counts it whenever the tick cannot be
 * stopped (nohz=off, RCU or irq_work pending). Timer-wheel timers, which
 * run from the tick, are left out with it.
 *
 * One walk of this CPU's hrtimer bases under their lock, as
 * tick_nohz_get_sleep_length() does for menu and teo.
 */
static u64 haltpoll_next_timer_ns(void)
{
	ktime_t next_ns;

	KUNIT_STATIC_STUB_REDIRECT(haltpoll_next_timer_ns);
	next_ns = tick_nohz_get_next_hrtimer_without_tick();
	if (next_ns == KTIME_MAX)
		return U64_MAX;
	return max_t(s64, ktime_to_ns(next_ns) - haltpoll_now_ns(), 0);
}

/*
 * The next timer as haltpoll_next_timer_ns(), looked for when due
 * (haltpoll-timer-walk). A timer within the window or a tick, whichever
 * is longer, is one the timer rules act on.
 */
static u64 haltpoll_next_timer_sampled_ns(struct haltpoll_cpu *hc,
					  u64 window_ns)
{
	u64 horizon_ns = max_t(u64, window_ns, TICK_NSEC);
	u64 timer_ns = U64_MAX;

	if (haltpoll_timer_walk_due(hc->timerless))
		timer_ns = haltpoll_next_timer_ns();
	hc->timerless = haltpoll_timerless_next(hc->timerless,
						timer_ns < horizon_ns);
	return timer_ns;
}

/*
 * Halt, and wake @until_ns from now to poll for what comes after. Armed
 * on the governor's own clock, so that the early wakeup comes the lead
 * before the timer or the expected wakeup however far behind the
 * selection that clock runs. @lead_shortened: the lead before a timer
 * is shorter for the polled lateness (haltpoll_early_woke()).
 */
static int haltpoll_halt_early(struct haltpoll_cpu *hc, u64 until_ns,
			       bool lead_shortened, bool *stop_tick)
{
	struct haltpoll_wake *w = this_cpu_ptr(&haltpoll_wakes);

	hc->timer_halt_ns = until_ns;
	hc->lead_shortened = lead_shortened;
	WRITE_ONCE(w->ended_halt, false);
	hrtimer_start(&w->timer, ns_to_ktime(haltpoll_now_ns() + until_ns),
		      HRTIMER_MODE_ABS_PINNED_HARD);
	return haltpoll_halt_until(until_ns, stop_tick);
}

/*
 * Halt for a timer due inside the window, and wake lead_ns before it to
 * poll for it: the timer's interrupt then finds the CPU polling, as if it
 * had polled all along, and the CPU polls for about the lead only. A timer
 * due within the lead plus a halt's cost (haltpoll_timer_halt_pays()),
 * such as the one an early wakeup was for, is polled for at once, up to
 * the window and not only the lead: a timer's interrupt may come later
 * than the lead (a vCPU the host has not scheduled takes it late).
 * @window_ns is at most the CPU's ceiling, and so is twice the lead. Such
 * a poll is for a wakeup known to come, and teaches the ceiling nothing;
 * it measures how late the timer comes to a polling CPU.
 */
static int haltpoll_halt_for_timer(struct cpuidle_device *dev,
				   struct haltpoll_cpu *hc, u64 window_ns,
				   u64 timer_ns, bool *stop_tick)
{
	struct haltpoll_wake *w = this_cpu_ptr(&haltpoll_wakes);
	u64 halted_ns = haltpoll_lead_ns(&w->lateness);
	u64 lead_ns = haltpoll_timer_lead_ns(&w->lateness, &w->polled);

	lead_ns = haltpoll_lead_in_use(lead_ns, window_ns);
	if (!haltpoll_timer_halt_pays(timer_ns, lead_ns)) {
		hc->timer_due_ns = haltpoll_now_ns() + timer_ns;
		return haltpoll_poll_plain(dev, window_ns, stop_tick);
	}
	halted_ns = haltpoll_lead_in_use(halted_ns, window_ns);
	return haltpoll_halt_early(hc, timer_ns - lead_ns, lead_ns < halted_ns,
				   stop_tick);
}

/*
 * For a poll, note a timer due @timer_ns from now, past the window (timers
 * inside it have been dealt with) but within a tick, and say whether to
 * halt through it instead (haltpoll-near-timer).
 */
static bool haltpoll_halt_for_near_timer(struct haltpoll_cpu *hc, u64 timer_ns)
{
	if (timer_ns >= TICK_NSEC)
		return false;
	hc->near_timer_ns = timer_ns;
	if (haltpoll_near_timer_poll(hc->near_count))
		return false;
	WRITE_ONCE(hc->near_halts, hc->near_halts + 1);
	return true;
}

/*
 * Halt for a wakeup that may come past the window
 * (haltpoll-recurring-wakeup) and wake a lead before it to poll for it,
 * as for a timer, the lead being from the lateness of the same early
 * wakeup (not less a polled timer's: the wakeup is not a timer of this
 * CPU), less as the interval scatters, here at most the longest poll, as
 * the window may be closed: @max_ns (guest_halt_poll_ns, capped) or the
 * CPU's ceiling if lower.
 * @due_ns is the time to the expected wakeup, @latest_ns to the latest it
 * is expected: a poll, also one for a wakeup expected inside @window_ns,
 * lasts until then, never past the longest poll.
 */
static int haltpoll_halt_for_wakeup(struct cpuidle_device *dev,
				    struct haltpoll_cpu *hc, u64 window_ns,
				    u64 max_ns, u64 due_ns, u64 latest_ns,
				    bool *stop_tick)
{
	struct haltpoll_wake *w = this_cpu_ptr(&haltpoll_wakes);
	u64 longest_ns = min(max_ns, hc->ceiling_ns);
	u64 lead_ns = min(haltpoll_wakeup_lead_ns(&w->lateness,
						  hc->recur.interval.dev_ns),
			  longest_ns);

	if (!haltpoll_wakeup_halt_pays(due_ns, lead_ns, window_ns, longest_ns))
		return haltpoll_poll(dev, hc, min(latest_ns, max_ns), stop_tick);
	WRITE_ONCE(hc->recur_halts, hc->recur_halts + 1);
	return haltpoll_halt_early(hc, due_ns - lead_ns, false, stop_tick);
}

/*
 * Learn from an idle period that had a near timer: did a wakeup end it
 * before the timer? Whether a poll would have caught that wakeup is the
 * window's business. A halt that the tick ended says nothing either way.
 */
static void haltpoll_learn_near_timer(struct haltpoll_cpu *hc, int index,
				      bool got_tick)
{
	bool woken;

	if (!hc->near_timer_ns)
		return;
	if (index == 0 || !got_tick) {
		woken = hc->last_idle_ns < hc->near_timer_ns;
		hc->near_count = haltpoll_near_timer_count(hc->near_count, woken);
	}
	hc->near_timer_ns = 0;
}

/*
 * The idle loop runs again after any interrupt: only the lateness matters,
 * and whether the early wakeup ended a halt. One left queued by a halt
 * cpuidle could not enter (-EBUSY) may fire while a task runs, which takes
 * it at once, and one may fire just after a wakeup ended the halt, before
 * the CPU cancels it: neither ended the halt, nor says how late a halted
 * vCPU wakes. (One that fires after an interrupt that woke nothing ended
 * the halt, before the cancel, is taken as the halt's end: a window of
 * the reflection's length, which counts one early wakeup too many.) One
 * that CPU hotplug moved to another CPU belongs to none.
 */
static enum hrtimer_restart haltpoll_wake_fn(struct hrtimer *timer)
{
	struct haltpoll_wake *w = container_of(timer, struct haltpoll_wake, timer);
	ktime_t late;

	if (w != this_cpu_ptr(&haltpoll_wakes))
		return HRTIMER_NORESTART;
	if (!is_idle_task(current) || need_resched())
		return HRTIMER_NORESTART;

	WRITE_ONCE(w->ended_halt, true);
	late = ktime_sub(hrtimer_cb_get_time(timer), hrtimer_get_expires(timer));
	/* Later than any window: the host did not run the vCPU for a while. */
	haltpoll_lateness_add(&w->lateness, ktime_to_ns(late),
			      haltpoll_max_ns());
	return HRTIMER_NORESTART;
}

/*
 * End the per-period state of a halt with an early wakeup, and cancel the
 * wakeup if it is still queued: pinned to this CPU, it cannot be running.
 * Return: true if the halt ended on its early wakeup; not if the wakeup
 * fired after another one ended the halt, before this cancel.
 */
static bool haltpoll_end_timer_halt(struct haltpoll_cpu *hc)
{
	struct haltpoll_wake *w = this_cpu_ptr(&haltpoll_wakes);
	bool ended;

	if (!hc->timer_halt_ns)
		return false;
	hc->timer_halt_ns = 0;
	hc->lead_shortened = false;
	hrtimer_try_to_cancel(&w->timer);
	ended = READ_ONCE(w->ended_halt);
	WRITE_ONCE(w->ended_halt, false);
	return ended;
}

/*
 * A halt that ended on its early wakeup. If a wakeup is pending by the
 * reflection, the one the halt was to precede, the timer's or the expected
 * one, came with it (or another did): the lead was too short, or the
 * wakeup early. Count it; the lateness measured by haltpoll_wake_fn()
 * raises the lead. If the lead was one for a timer that the polled
 * lateness shortened (@lead_shortened), the CPU did not poll for the timer
 * and measured no polled lateness: count the miss as a timer polled for
 * on time, so that a lead shortened too far grows back until polls for
 * the timer measure again (haltpoll-timer-lead). Under an emulator, where
 * a timer comes as late to a polling CPU, such misses cost no latency,
 * and the lead comes back down.
 */
static void haltpoll_early_woke(struct haltpoll_cpu *hc, bool lead_shortened)
{
	struct haltpoll_wake *w = this_cpu_ptr(&haltpoll_wakes);

	WRITE_ONCE(hc->early_wakes, hc->early_wakes + 1);
	if (!need_resched())
		return;
	WRITE_ONCE(hc->lead_misses, hc->lead_misses + 1);
	if (lead_shortened)
		haltpoll_lateness_add(&w->polled, 0, 0);
}

/*
 * cpuidle does not reflect a state it could not enter (need_resched() set
 * on the way in, -EBUSY): forget what the previous selection left for its
 * reflection, or it would shape an unrelated idle period. The pending
 * wakeup did end that period: note it for haltpoll-recurring-wakeup.
 *
 * Except the halt after a poll that ran out: a wakeup in the gap before
 * that halt was not caught by the window, like one pending when the poll
 * was reflected (a late catch, haltpoll_reflect()), and is taken as one.
 * The poll's length is kept, so that the next idle entry halts, as Linux
 * 6.12 does (its state still says "a poll that ran out"), and the window
 * learns from that halt as after a late catch. Polling there instead
 * keeps a CPU whose wakeups come about a window apart polling where a
 * halt gives the host CPU back, which a host with more runnable threads
 * than CPUs needs to run the other vCPUs. The poll ceiling learns
 * nothing from such a poll.
 */
static void haltpoll_forget_unreflected(struct haltpoll_cpu *hc)
{
	if (!hc->reflect_due)
		return;
	/* A wakeup was pending as the state was entered: it ended the period. */
	if (hc->entry_ns)
		haltpoll_recur_woken(&hc->recur, hc->entry_ns + hc->poll_ns,
				     true);
	hc->late_catch = hc->entry_ns && hc->poll_ns;
	hc->poll_limit_ns = 0;
	hc->near_timer_ns = 0;
	hc->timer_due_ns = 0;
	haltpoll_end_timer_halt(hc);
}

/*
 * Note when an idle period begins, for haltpoll-recurring-wakeup: at this
 * entry, unless it is the halt after a poll that timed out, which
 * continues the poll's period. When that poll caught its wakeup late, in
 * the gap before the halt, the halt begins a period of its own; dated
 * back by the poll, so that the period's length, the poll's and the
 * halt's, ends where the halt does. A CPU that only polls (PM QoS, the
 * halt disabled) has no halt to continue a poll, nor one to time for a
 * wakeup; its polls that run out follow each other in one pass of the
 * idle loop, which haltpoll_now_ns() does not tell apart: it dates no
 * period.
 */
static void haltpoll_enter_period(struct haltpoll_cpu *hc, bool poll_only)
{
	if (poll_only)
		hc->poll_ns = 0;
	if (poll_only || !READ_ONCE(haltpoll_recurring)) {
		hc->entry_ns = 0;
		hc->late_catch = false;
		return;
	}
	if (!hc->poll_ns || !hc->entry_ns)
		hc->entry_ns = haltpoll_now_ns();
	else if (hc->late_catch)
		hc->entry_ns = haltpoll_now_ns() - hc->poll_ns;
	hc->late_catch = false;
}

/*
 * Whether a hold keeps the CPU from polling (haltpoll-host-preemption):
 * one starts at the first selection after the poll the host preempted
 * that may poll, dated by the idle entry as the CPU's other periods are.
 * With guest_halt_poll_preempt_hold off, none starts, and none is in force
 * when it is turned back on.
 */
static bool haltpoll_held(struct haltpoll_cpu *hc)
{
	u64 now_ns;

	/* Most idle entries: no preempted poll yet, nothing to store. */
	if (!hc->hold_due && !hc->hold_until_ns)
		return false;
	if (!READ_ONCE(haltpoll_preempt_hold)) {
		hc->hold_due = false;
		hc->hold_until_ns = 0;
		return false;
	}
	now_ns = haltpoll_now_ns();
	if (hc->hold_due) {
		u64 since_ns = now_ns - min(now_ns, hc->hold_until_ns);

		hc->hold_due = false;
		hc->hold_ns = haltpoll_hold_next_ns(hc->hold_ns, since_ns);
		hc->hold_until_ns = now_ns + hc->hold_ns;
	}
	return now_ns < hc->hold_until_ns;
}

/**
 * haltpoll_select - selects the next idle state to enter
 * @drv: cpuidle driver containing state data
 * @dev: the CPU
 * @stop_tick: set to false to keep the scheduler tick running
 */
static int haltpoll_select(struct cpuidle_driver *drv,
			   struct cpuidle_device *dev, bool *stop_tick)
{
	struct haltpoll_cpu *hc = per_cpu_ptr(&haltpoll_cpus, dev->cpu);
	/* A lowered guest_halt_poll_ns applies at once, not at the next halt. */
	u64 max_ns = haltpoll_max_ns();
	u64 window_ns = min(hc->window_ns, max_ns);
	u64 timer_ns, open_ns, due_ns = 0, latest_ns = 0;
	bool poll_only, polling;

	haltpoll_forget_unreflected(hc);
	hc->reflect_due = true;
	if (hc->no_poll_state) {
		*stop_tick = !haltpoll_keep_tick(false, hc->last_idle_ns,
						 TICK_NSEC);
		return 0;
	}
	poll_only = dev->states_usage[1].disable ||
		    cpuidle_governor_latency_req(dev->cpu) == 0;
	haltpoll_enter_period(hc, poll_only);
	/* Nothing to halt for instead: no ceiling, nothing to learn. */
	if (poll_only)
		return haltpoll_poll_plain(dev, window_ns, stop_tick);
	WRITE_ONCE(hc->ceiling_ns, haltpoll_ceiling_in_use(hc, max_ns));
	/*
	 * The ceiling bounds the polls as guest_halt_poll_ns does, a timer's
	 * and its lead too. Timers are looked for as far as the window
	 * reaches without it: one due past the ceiling is halted for, with
	 * the lead the ceiling allows, rather than polled for to the ceiling
	 * in vain. The window's own poll keeps that limit, which tells the
	 * ceiling how far the poll could have reached.
	 */
	open_ns = window_ns;
	window_ns = min(window_ns, hc->ceiling_ns);
	polling = max_ns && !dev->states_usage[0].disable;
	/*
	 * No timer rule applies to a CPU that does not poll, nor to the halt
	 * after a poll that timed out (poll_ns is set until one is entered).
	 */
	if (!polling || hc->poll_ns)
		return haltpoll_halt(hc, polling, stop_tick);
	/* A held CPU halts as one that does not poll, short halts and all. */
	if (haltpoll_held(hc))
		return haltpoll_halt(hc, false, stop_tick);
	if (hc->entry_ns)
		latest_ns = haltpoll_recur_expected(&hc->recur, hc->entry_ns,
						    &due_ns);
	timer_ns = haltpoll_next_timer_sampled_ns(hc, open_ns);
	if (haltpoll_timer_first(open_ns, timer_ns))
		return haltpoll_halt_for_timer(dev, hc, window_ns, timer_ns,
					       stop_tick);
	/* A timer due by the latest expected time may be the wakeup itself. */
	if (latest_ns > window_ns && latest_ns < timer_ns)
		return haltpoll_halt_for_wakeup(dev, hc, window_ns, max_ns,
						due_ns, latest_ns, stop_tick);
	/*
	 * The window is closed: halt, stopping the tick as a CPU that polls
	 * does (haltpoll_keep_tick()), unless the next timer is due within a
	 * tick, which bounds the halt as a timer rule's halt is bounded.
	 */
	if (!haltpoll_should_poll(window_ns, false))
		return haltpoll_halt_until(timer_ns, stop_tick);
	if (haltpoll_halt_for_near_timer(hc, timer_ns))
		return haltpoll_halt_until(timer_ns, stop_tick);
	return haltpoll_poll(dev, hc, open_ns, stop_tick);
}

static void haltpoll_adapt_window(struct haltpoll_cpu *hc, u64 idle_ns)
{
	struct haltpoll_params p = haltpoll_params_snapshot();
	u64 old_ns = hc->window_ns;
	u64 new_ns = haltpoll_window_next(&p, old_ns, idle_ns);

	if (new_ns > old_ns)
		trace_guest_halt_poll_ns_grow(new_ns, old_ns);
	else if (new_ns < old_ns)
		trace_guest_halt_poll_ns_shrink(new_ns, old_ns);
	WRITE_ONCE(hc->window_ns, new_ns);
}

/*
 * When the wakeup that ended the idle period came: at its end for a poll,
 * which takes it at once; for a halt, as long before as the CPU's early
 * wakeups come late (within the period), or a halted CPU would expect its
 * next wakeup later by its own wakeup latency, halt for it, take it late
 * again, and never catch up. The end is the start the governor noted plus
 * the length cpuidle measured: no clock is read on the way out of idle.
 */
static u64 haltpoll_woken_at(struct haltpoll_cpu *hc, int index)
{
	u64 late_ns = index ? this_cpu_ptr(&haltpoll_wakes)->lateness.avg_ns : 0;

	return hc->entry_ns + hc->last_idle_ns - min(late_ns, hc->last_idle_ns);
}

/*
 * Learn the poll ceiling from the poll that began the idle period that
 * just ended, in state @index after @poll_ns of a poll that ran out (0 for
 * none): the wakeup came at the poll's end if it caught it, else in the
 * halt after it, dated back by the lateness as haltpoll_woken_at() dates
 * it, from the poll's limit: the bands are lengths of poll by limit, and
 * a longer limit would overrun it as this one did. What a
 * halted wakeup costs is the lateness of the CPU's early wakeups: until
 * one has been measured, the ceiling stays where it is, rather than
 * price a halted wakeup at its host cost alone.
 */
static void haltpoll_ceiling_learn(struct haltpoll_cpu *hc,
				   struct cpuidle_device *dev, int index,
				   u64 poll_ns, u64 residency_ns)
{
	struct haltpoll_lateness *l = &this_cpu_ptr(&haltpoll_wakes)->lateness;
	u64 limit_ns = hc->poll_limit_ns;
	u64 woke_ns = residency_ns;
	bool woke_task = true;

	hc->poll_limit_ns = 0;
	/* A halt chosen without a poll before it has no poll to learn from. */
	if (!limit_ns || (index && !poll_ns) ||
	    !READ_ONCE(haltpoll_learn_ceiling))
		return;
	/* No early wakeup measured yet: a halted wakeup has no price. */
	if (!l->avg_ns && !l->dev_ns)
		return;
	if (index) {
		/* After the poll's limit, however early the dating makes it. */
		woke_ns = min(poll_ns, dev->poll_limit_ns) +
			  max(residency_ns - min(l->avg_ns, residency_ns), 1ULL);
		/* A halt the tick ended dates no wakeup. */
		woke_task = need_resched();
	}
	haltpoll_ceiling_add(&hc->ceiling, haltpoll_max_ns(), limit_ns, woke_ns,
			     woke_task, l->avg_ns + HALTPOLL_HALT_COST_NS);
}

/*
 * How late the timer the poll that just ended was for came to the polling
 * CPU (haltpoll-timer-lead): from the timer's time to when the interrupt
 * that ended the poll came in (haltpoll_reflect_now_ns()). A poll that ran
 * out was ended by no timer; one that ended before the timer's time, by a
 * wakeup that needed none. Whatever ended the poll after the timer's time
 * is taken as the timer; a poll ended by a remote wakeup, which sends no
 * interrupt to a polling CPU, is dated earlier, at the idle entry or the
 * exit of the last interrupt that woke nothing, and gives no sample, or
 * one early. A sample is capped at the halted lead, beyond which polling
 * could buy nothing. A nohz_full CPU gives none: there the tick code
 * stamps the idle entry time again on every interrupt's exit, and the
 * lead stays the halted one.
 */
static void haltpoll_learn_polled_timer(struct haltpoll_cpu *hc,
					struct cpuidle_device *dev)
{
	struct haltpoll_wake *w = this_cpu_ptr(&haltpoll_wakes);
	u64 due_ns = hc->timer_due_ns;
	u64 now_ns;

	hc->timer_due_ns = 0;
	if (!due_ns)
		return;
	if (dev->poll_time_limit)
		return;		/* no timer ended it */
	if (tick_nohz_full_cpu(dev->cpu))
		return;
	now_ns = haltpoll_reflect_now_ns();
	if (now_ns < due_ns)
		return;		/* another wakeup ended it first */
	haltpoll_lateness_add(&w->polled, now_ns - due_ns,
			      haltpoll_lead_ns(&w->lateness));
}

/*
 * Count a poll the host preempted, and hold polling off after it if the
 * host preempts such a share of the CPU's polls that it looks crowded
 * (haltpoll-host-preemption). The share is kept only while
 * guest_halt_poll_preempt_hold is on, and starts from none when it is
 * turned on again: off, a clean poll costs no store here.
 */
static void haltpoll_learn_preemption(struct haltpoll_cpu *hc, bool preempted)
{
	if (preempted)
		WRITE_ONCE(hc->preempted_polls, hc->preempted_polls + 1);
	if (!READ_ONCE(haltpoll_preempt_hold)) {
		if (hc->preempt_share)
			hc->preempt_share = 0;
		return;
	}
	hc->preempt_share = haltpoll_preempt_share_next(hc->preempt_share,
							preempted);
	if (preempted && haltpoll_preempt_crowded(hc->preempt_share))
		hc->hold_due = true;
}

/**
 * haltpoll_reflect - learn from the idle period that just ended
 * @dev: the CPU
 * @index: the state actually entered
 */
static void haltpoll_reflect(struct cpuidle_device *dev, int index)
{
	struct haltpoll_cpu *hc = per_cpu_ptr(&haltpoll_cpus, dev->cpu);
	u64 residency_ns = dev->last_residency_ns;
	u64 poll_ns;
	bool got_tick, early, woke_task, lead_shortened;

	/* Whether the tick ran since the last exit, on every exit, as menu. */
	got_tick = tick_nohz_idle_got_tick();
	hc->reflect_due = false;
	haltpoll_learn_polled_timer(hc, dev);
	if (hc->no_poll_state) {
		hc->last_idle_ns = residency_ns;
		return;
	}
	if (index == 0)
		haltpoll_learn_preemption(hc, dev->poll_preempted);
	if (index == 0 && dev->poll_time_limit) {
		/* The halt that follows continues this idle period... */
		hc->poll_ns = residency_ns;
		WRITE_ONCE(hc->polls_timed_out, hc->polls_timed_out + 1);
		WRITE_ONCE(hc->wasted_ns, hc->wasted_ns + residency_ns);
		/* ...unless the wakeup came in the gap before it. */
		hc->late_catch = hc->entry_ns && need_resched();
		if (hc->late_catch)
			haltpoll_recur_woken(&hc->recur,
					     hc->entry_ns + residency_ns, true);
		/* A wakeup in the gap came as the poll ended. */
		if (need_resched())
			haltpoll_ceiling_learn(hc, dev, 0, 0, residency_ns);
		return;
	}
	if (index == 0)
		WRITE_ONCE(hc->polls_caught, hc->polls_caught + 1);

	poll_ns = hc->poll_ns;
	hc->poll_ns = 0;
	hc->last_idle_ns = poll_ns + residency_ns;
	haltpoll_ceiling_learn(hc, dev, index, poll_ns, residency_ns);
	haltpoll_learn_near_timer(hc, index, got_tick);
	lead_shortened = hc->lead_shortened;
	early = haltpoll_end_timer_halt(hc);
	if (early)
		haltpoll_early_woke(hc, lead_shortened);
	woke_task = need_resched();
	if (hc->entry_ns &&
	    haltpoll_recur_counts(index != 0, got_tick, early, woke_task))
		haltpoll_recur_woken(&hc->recur, haltpoll_woken_at(hc, index),
				     woke_task);
	/* A timer says nothing of the wakeups a window is for. */
	if (early)
		return;
	if (index != 0)
		haltpoll_adapt_window(hc, haltpoll_idle_for_window(hc->window_ns,
								   poll_ns,
								   residency_ns));
}

/*
 * A CPU's lateness as another CPU reads it: written by the CPU itself,
 * in its early wakeup's hard interrupt and in its reflection.
 */
static struct haltpoll_lateness
haltpoll_lateness_read(const struct haltpoll_lateness *l)
{
	return (struct haltpoll_lateness){
		.avg_ns = READ_ONCE(l->avg_ns),
		.dev_ns = READ_ONCE(l->dev_ns),
	};
}

/*
 * /sys/kernel/debug/haltpoll/stats: per CPU, the window and what polling
 * caught and wasted since the CPU's cpuidle device was last enabled.
 */
static int haltpoll_stats_show(struct seq_file *m, void *unused)
{
	unsigned int cpu;

	seq_puts(m, "cpu window_ns polls_caught polls_timed_out wasted_ns early_wakes lead_misses lead_ns near_halts recur_halts ceiling_ns timer_lead_ns preempted_polls\n");
	for_each_online_cpu(cpu) {
		struct haltpoll_cpu *hc = per_cpu_ptr(&haltpoll_cpus, cpu);
		struct haltpoll_wake *w = per_cpu_ptr(&haltpoll_wakes, cpu);
		struct haltpoll_lateness late = haltpoll_lateness_read(&w->lateness);
		struct haltpoll_lateness polled = haltpoll_lateness_read(&w->polled);

		seq_printf(m, "%u %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu\n",
			   cpu,
			   READ_ONCE(hc->window_ns), READ_ONCE(hc->polls_caught),
			   READ_ONCE(hc->polls_timed_out),
			   READ_ONCE(hc->wasted_ns), READ_ONCE(hc->early_wakes),
			   READ_ONCE(hc->lead_misses),
			   haltpoll_lead_ns(&late),
			   READ_ONCE(hc->near_halts),
			   READ_ONCE(hc->recur_halts),
			   READ_ONCE(hc->ceiling_ns),
			   haltpoll_timer_lead_ns(&late, &polled),
			   READ_ONCE(hc->preempted_polls));
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(haltpoll_stats);

static void haltpoll_debugfs_init(void)
{
	debugfs_create_file("stats", 0444, debugfs_create_dir("haltpoll", NULL),
			    NULL, &haltpoll_stats_fops);
}

/**
 * haltpoll_enable_device - start a CPU with a closed window
 * @drv: cpuidle driver
 * @dev: the CPU
 */
static int haltpoll_enable_device(struct cpuidle_driver *drv,
				  struct cpuidle_device *dev)
{
	struct haltpoll_cpu *hc = per_cpu_ptr(&haltpoll_cpus, dev->cpu);
	struct haltpoll_wake *w = per_cpu_ptr(&haltpoll_wakes, dev->cpu);

	/* Statistics where the governor runs, not on every machine built. */
	DO_ONCE_SLEEPABLE(haltpoll_debugfs_init);
	hrtimer_cancel(&w->timer);
	WRITE_ONCE(w->ended_halt, false);
	/*
	 * An operator may pick this governor for a driver whose first state
	 * does not poll (WFI on cpuidle-psci, say): there is no window to
	 * keep, only that shallowest state to pick. The driver is fixed for
	 * as long as the device is enabled: decide it here, not per idle entry.
	 */
	*hc = (struct haltpoll_cpu){
		.near_count = HALTPOLL_NEAR_TIMER_TOP,
		.no_poll_state = !(drv->states[0].flags & CPUIDLE_FLAG_POLLING),
	};
	return 0;
}

/**
 * haltpoll_disable_device - hand a CPU over to another governor
 * @drv: cpuidle driver
 * @dev: the CPU
 *
 * cpuidle_poll_time() takes a non-zero dev->poll_limit_ns as the poll
 * limit and computes its own only in place of 0: left as this governor
 * set it, a governor switched to after it (menu, teo) would poll with
 * the last window, up to the 10 ms cap. An early wakeup still queued was
 * for a halt this governor chose: cancel it too. cpuidle calls this with
 * its idle handler uninstalled (cpuidle_pause_and_lock(),
 * cpuidle_switch_governor()): no CPU selects a state meanwhile, and a
 * reflection still running arms no early wakeup and leaves the poll
 * limit alone.
 */
static void haltpoll_disable_device(struct cpuidle_driver *drv,
				    struct cpuidle_device *dev)
{
	hrtimer_cancel(&per_cpu_ptr(&haltpoll_wakes, dev->cpu)->timer);
	dev->poll_limit_ns = 0;
}

/*
 * The rating is below menu's and teo's: the governor is only picked by a
 * driver that names it (cpuidle-haltpoll) or by an operator.
 */
static struct cpuidle_governor haltpoll_governor = {
	.name =			"haltpoll",
	.rating =		9,
	.enable =		haltpoll_enable_device,
	.disable =		haltpoll_disable_device,
	.select =		haltpoll_select,
	.reflect =		haltpoll_reflect,
};

/*
 * Registered whatever the hypervisor: nothing here depends on KVM, and the
 * driver decides on its own whether polling is wanted.
 */
static int __init init_haltpoll(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct hrtimer *t = &per_cpu_ptr(&haltpoll_wakes, cpu)->timer;

		hrtimer_init(t, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
		t->function = haltpoll_wake_fn;
	}
	return cpuidle_register_governor(&haltpoll_governor);
}

postcore_initcall(init_haltpoll);

/* The tests of select and reflect need the static functions above. */
#if IS_BUILTIN(CONFIG_HALTPOLL_GOVERNOR_KUNIT_TEST)
#include "tests/haltpoll_select_kunit.h"
#endif
