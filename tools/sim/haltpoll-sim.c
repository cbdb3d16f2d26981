// SPDX-License-Identifier: GPL-2.0
/*
 * haltpoll-sim: replay idle-period traces through poll window policies.
 *
 * The project's policy is the governor's own arithmetic, compiled from
 * drivers/cpuidle/governors/haltpoll_window.h; the Linux 6.12 policy is
 * re-implemented here from its description, as the reference. For every
 * trace and policy it counts the wakeups caught while polling, the polls
 * that timed out and the poll time they wasted, and the halts.
 *
 * Model of one idle period of length idle_ns under a window window_ns: if
 * the policy polls and idle_ns <= window_ns, the wakeup is caught; if it
 * polls and idle_ns > window_ns, window_ns is wasted, then the CPU halts
 * for the rest; if it does not poll, it halts.
 *
 * A period a timer of the CPU ended (marked in the trace) is a wakeup the
 * CPU knows is coming: the project's governor halts for it when it comes
 * before the window closes (haltpoll_timer_first()) and polls only for
 * the lead before it, 6.12 polls for it all along. Catches of such wakeups are counted apart ("timer"), and
 * the targets count the other wakeups, those a window is for: a waker on
 * another CPU, or a device.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../drivers/cpuidle/governors/haltpoll_window.h"

#define US		1000ULL
#define MS		1000000ULL
#define PERIODS		20000
#define MAX_TRACES	64
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/*
 * A trace: idle periods, for each whether it ended on a timer of the
 * idling CPU (its tick or an hrtimer), which the governor predicts, and,
 * when recorded, how late that timer's interrupt came.
 */
struct trace {
	char name[64];
	u64 *idle_ns;
	bool *timer;
	u64 *late_ns;
	bool *woken;
	u64 *pending_ns;	/* a timer pending past the period's end, or 0 */
	u64 *run_ns;		/* from the period's end to the next's start */
	u64 *early_ns;		/* the guest's early wakeup's lateness, or 0 */
	bool *early_fed;	/* the guest's governor took that lateness */
	bool *interrupted;	/* ended by an interrupt that woke no task */
	u64 *select_ns;		/* the guest armed its early wakeup this long
				 * before the idle entry, or 0
				 */
	u64 typical_select_ns;	/* the median of the recorded select_ns */
	bool marks_wakeups;	/* some period is marked as a task's wakeup */
	size_t n;
};

struct outcome {
	u64 periods;
	u64 caught;
	u64 timer_caught;
	u64 timeouts;
	u64 halts;
	u64 wasted_ns;
	u64 polled_ns;
};

/*
 * A policy: the window for the next period, and what it learns after. It
 * replays a copy of the trace's periods, whose timer periods it may move
 * (carry_to_timer()).
 */
struct policy {
	const char *name;
	void (*replay)(const struct haltpoll_params *p, struct trace *t,
		       struct outcome *o);
};

/*
 * The delays between a wakeup and the CPU running again, which traces
 * recorded without a cpuidle driver hold in their periods (all 0, the
 * default) and those tools/sim/validate cuts at each wakeup leave out, to
 * be measured instead:
 *
 * - halt_wake_ns (-w): a halted vCPU runs this long after a task's wakeup:
 *   the host must wake it and enter it.
 * - poll_wake_ns (-w ,N): a polling one, this long: it sees the flag.
 *
 * Both apply to periods marked as ended by a task's wakeup only; others
 * (ended by an interrupt that woke no task) are as long as recorded.
 *
 * A timer's interrupt comes late by the host's timer handling, tens of
 * microseconds under TCG, polling or halted (and so does the governor's
 * early wakeup, which is why it only changes the poll to the lead). Periods
 * that tools/sim/validate records last until their timer was due, and each
 * carries its lateness (the third field of a trace line).
 */
static u64 sim_halt_wake_ns, sim_poll_wake_ns;

/*
 * How late the governor's early wakeups fired in the guest, or, where
 * too few fired, the delays a halted vCPU took to run after a wakeup (-W
 * FILE, in ns, one per line): the early wakeup of
 * haltpoll-recurring-wakeup comes as late as one of them, drawn at
 * random where the trace does not say how late the guest's came in that
 * period (early_late_ns()), and so may come after the wakeup it was to
 * precede; it moves the lead as early_moves_lead() says. Without them,
 * it comes sim_halt_wake_ns late (or as the trace says), at most the
 * lead, and the lead stays as given.
 * (The timer rule's halts are replayed as catching their timer with a
 * poll of the lead: the timer comes late too. The lead is shortened by
 * how late the timers the replay polled for came, as the governor
 * shortens it, haltpoll_timer_lead_ns(), both after an early wakeup and
 * when polled for at once; the lateness is the trace's for that timer,
 * whether the guest polled or halted for it, which the trace does not
 * tell, and the early wakeup never comes with the timer here, so the
 * governor's lead-miss feedback is not replayed.)
 */
#define MAX_WAKES	100000
static u64 sim_halt_wakes_ns[MAX_WAKES];
static size_t sim_halt_wakes;

/*
 * How long a poll runs: the poll loop reads the clock only between two of
 * its spins (up to 200 PAUSEs, or until the flag changes), so it ends at
 * the first spin's end past its limit: limit rounded up to whole spins,
 * and at least one spin. On hardware a spin takes a few microseconds;
 * under TCG QEMU leaves its CPU loop on every PAUSE, and a spin takes tens
 * to hundreds of microseconds, more while the other vCPU runs. A wakeup
 * that comes before the poll's end is caught; one that comes after it but
 * within the gap before the idle loop enters the halt wakes the CPU too,
 * but both governors saw the poll time out and halt on the next idle entry
 * (a late catch).
 *
 * Measured in the live guest (tools/sim/validate): -o FILE, spin lengths
 * in ns, one per line, one drawn at random for each poll; -g the gap. By
 * default a poll ends exactly at its limit.
 */
#define MAX_SPINS	100000
static u64 sim_spin_ns[MAX_SPINS];
static size_t sim_spins;

/*
 * Under TCG the first spin is the slow one: a poll that outlasts it
 * runs past its limit by less than a spin (a 100 us window's polls that
 * time out last about 130 us, where the first spin takes 90). Measured
 * (-O FILE): how far polls that timed out with a window longer than the
 * shortest ran past it, in ns, one per line, one drawn for each poll
 * that outlasts its first spin. Without them, such a poll runs on in
 * whole spins.
 */
#define MAX_OVERS	100000
static u64 sim_over_ns[MAX_OVERS];
static size_t sim_overs;
static u64 sim_gap_ns;
/* -c: guest_halt_poll_learn_ceiling=Y (haltpoll-poll-ceiling). */
static bool sim_ceiling;

static double uniform(void);

/* One of @n measured values, drawn at random. */
static u64 draw_ns(const u64 *ns, size_t n)
{
	return ns[(size_t)(uniform() * n)];
}

enum poll_end { POLL_TIMED_OUT, POLL_CAUGHT, POLL_CAUGHT_LATE };

/* When a poll limited to @limit_ns ends: at the end of a spin. */
static u64 poll_end_ns(u64 limit_ns)
{
	u64 spin_ns;

	if (!sim_spins)
		return limit_ns;
	spin_ns = draw_ns(sim_spin_ns, sim_spins);
	if (!spin_ns)
		return limit_ns;
	if (sim_overs && limit_ns > spin_ns)
		return limit_ns + draw_ns(sim_over_ns, sim_overs);
	return limit_ns ? (limit_ns + spin_ns - 1) / spin_ns * spin_ns : spin_ns;
}

/*
 * The lead the governor wakes a halted CPU by before a timer (see
 * haltpoll-timer-lead in haltpoll_window.h). The governor measures it
 * from the host's lateness; a trace does not record it, so it is a
 * parameter here (-l): about 10 to 20 us on KVM, the 100 us cap of a 200
 * us window under QEMU TCG. With -W, the lead starts there and moves as
 * the governor's does.
 */
static u64 sim_lead_ns = 20 * US;

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* The median of @n values, sorted in place; 0 if there are none. */
static u64 median_ns(u64 *ns, size_t n)
{
	if (!n)
		return 0;
	qsort(ns, n, sizeof(*ns), cmp_u64);
	return ns[n / 2];
}

/*
 * The lead's estimator as the load began: the governor reports only the
 * lead (avg + 2 * dev); split it at the typical lateness of the samples,
 * at most the lead, so that samples like them keep it where it was.
 */
static struct haltpoll_lateness lateness_seed(void)
{
	struct haltpoll_lateness l = { .avg_ns = sim_lead_ns };
	u64 *sorted;

	if (!sim_halt_wakes)
		return l;
	sorted = malloc(sim_halt_wakes * sizeof(*sorted));
	memcpy(sorted, sim_halt_wakes_ns, sim_halt_wakes * sizeof(*sorted));
	l.avg_ns = haltpoll_min_u64(median_ns(sorted, sim_halt_wakes),
				    sim_lead_ns);
	l.dev_ns = (sim_lead_ns - l.avg_ns) / 2;
	free(sorted);
	return l;
}

/*
 * The tick of the kernels the traces were recorded in (HZ=250): timers
 * due within it are near (haltpoll-near-timer). A trace knows the timers
 * that ended a period, and tools/sim/validate's also one pending when the
 * tick ended a period first, but none a wakeup came before, so the count
 * of near-timer periods only ever goes down here; in the guest, a wakeup
 * before a near timer raises it.
 */
#define SIM_TICK_NS	(4 * MS)

/* When a polling CPU runs again, from the start of the period. */
static u64 polled_end_ns(const struct trace *t, size_t i)
{
	return t->idle_ns[i] + (t->timer[i] ? t->late_ns[i] : 0);
}

/*
 * A timer known to be pending, due past the end of period @i, which the
 * tick ended first: the governor saw it coming (haltpoll-near-timer).
 */
static u64 pending_ns(const struct trace *t, size_t i)
{
	return t->pending_ns && t->pending_ns[i] ? t->pending_ns[i] :
						   UINT64_MAX;
}

/*
 * The time from the end of period @i to the start of the next: the CPU's
 * delay in running, where the period was cut at a wakeup, and its run
 * time. Traces that do not record it (all but tools/sim/validate's) take
 * the CPU to run for no time between periods.
 */
static u64 run_after_ns(const struct trace *t, size_t i)
{
	return t->run_ns ? t->run_ns[i] : 0;
}

/* The length of a period that ended in the halt state, as a governor sees it. */
static u64 halted_ns(const struct trace *t, size_t i)
{
	if (t->timer[i])
		return t->idle_ns[i] + t->late_ns[i];
	if (!t->woken[i])
		return t->idle_ns[i];
	/* The delay recorded where the CPU halted then, else the typical one. */
	return t->idle_ns[i] + (t->late_ns[i] ?: sim_halt_wake_ns);
}

/* How long the halt after a poll of @poll_ns lasted. */
static u64 halt_after(const struct trace *t, size_t i, u64 poll_ns)
{
	u64 idle_ns = halted_ns(t, i);

	return idle_ns > poll_ns ? idle_ns - poll_ns : 0;
}

/*
 * When the CPU ran after the wakeup that ended period @i: in the guest, as
 * recorded (a halted vCPU's delay, or a polling one's); in the replay, a
 * polling CPU's delay unless the policy had it @halted.
 *
 * Return: the guest's delay less the replay's, in ns: positive where the
 * replay had the CPU running sooner.
 */
static s64 ran_sooner_ns(const struct trace *t, size_t i, bool halted)
{
	u64 guest_ns = t->late_ns[i] ?: sim_poll_wake_ns;
	u64 model_ns = halted ? (t->late_ns[i] ?: sim_halt_wake_ns) :
				sim_poll_wake_ns;

	return (s64)guest_ns - (s64)model_ns;
}

/*
 * A CPU's own timer expires at a set time, such as a pacer's sleep until
 * its next slot (pipe-bench sleeps to an absolute time). Where the policy
 * took a wakeup sooner than the guest did (it polled where the guest
 * halted), the CPU went on that much sooner and its next timer period
 * lasts that much longer; where later, shorter. A period another CPU's
 * wakeup ended keeps its length: the waker answers this CPU's own request.
 * Periods the tick ended are not timer periods here and keep theirs, as
 * does a pending timer's due time (pending_ns()): a difference the model
 * does not place. Call with the policy's outcome of period @i - 1
 * (@halted) before replaying period @i; @ahead_ns is how far the replay
 * runs ahead of the guest.
 */
static void carry_to_timer(struct trace *t, size_t i, bool halted,
			   s64 *ahead_ns)
{
	s64 idle_ns;

	if (i && t->woken[i - 1])
		*ahead_ns += ran_sooner_ns(t, i - 1, halted);
	if (!t->timer[i])
		return;
	idle_ns = (s64)t->idle_ns[i] + *ahead_ns;
	/*
	 * A replay that ran behind by more than the sleep finds the slot
	 * passed: the timer fires at once (a period of 1 ns, as validate.py
	 * records one) and the rest of the lag waits for the next slot.
	 */
	t->idle_ns[i] = idle_ns > 0 ? idle_ns : 1;
	*ahead_ns = idle_ns < 0 ? idle_ns : 0;
}

/* A wakeup caught by a poll: a timer's, or one a window is for. */
static void count_caught(struct outcome *o, const struct trace *t, size_t i)
{
	if (t->timer[i])
		o->timer_caught++;
	else
		o->caught++;
}

/*
 * Account period @i of @t polled for at most @limit_ns, and set
 * @polled_ns to how long it polled. Return: how the poll ended.
 */
static enum poll_end poll_period(struct outcome *o, const struct trace *t,
				 size_t i, u64 limit_ns, u64 *polled_ns)
{
	u64 end_ns = polled_end_ns(t, i);
	u64 poll_ns = poll_end_ns(limit_ns);

	if (end_ns <= poll_ns) {
		count_caught(o, t, i);
		*polled_ns = end_ns + (t->woken[i] ? sim_poll_wake_ns : 0);
		o->polled_ns += *polled_ns;
		return POLL_CAUGHT;
	}
	*polled_ns = poll_ns;
	o->polled_ns += poll_ns;
	if (end_ns <= poll_ns + sim_gap_ns) {
		count_caught(o, t, i);
		return POLL_CAUGHT_LATE;
	}
	o->timeouts++;
	o->wasted_ns += poll_ns;
	o->halts++;
	return POLL_TIMED_OUT;
}

/* Whether the trace records how late the guest's early wakeup in @i came. */
static bool guest_woke_early(const struct trace *t, size_t i)
{
	return t->early_ns && t->early_ns[i];
}

/*
 * How late an early wakeup in period @i comes: as late as the guest's in
 * that period, where the guest woke early there too (" e NS"), else as
 * one drawn from all the guest's (-W), else @fallback_ns. The host that
 * delays an early wakeup delays the wakeup it is for as well: under TCG
 * the two lateness figures correlated by 0.77 to 0.84 on the echoing CPU
 * at a 1000 us pace. A drawn one pairs the lateness of a busy spell with
 * the wakeup of a quiet one and the reverse, and makes polls after early
 * wakeups too long (tools/sim/README.md).
 */
static u64 early_late_ns(const struct trace *t, size_t i, u64 fallback_ns)
{
	if (guest_woke_early(t, i))
		return t->early_ns[i];
	return sim_halt_wakes ? draw_ns(sim_halt_wakes_ns, sim_halt_wakes) :
				fallback_ns;
}

/*
 * Whether the early wakeup in period @i, which the replay halted for,
 * moves the lead: haltpoll_wake_fn() takes its lateness unless a task
 * was woken by the time it fired, or one was running. Where the guest's
 * early wakeup in the period is recorded, as it did in the guest, so that
 * the lead takes the guest's samples whatever the replay's timing; else
 * if it came @first, before the wakeup. Taking only those the replay's
 * own timing let in, with an early wakeup later than the guest's by the
 * lead's shortfall, kept out the late ones and lowered the lead further.
 */
static bool early_moves_lead(const struct trace *t, size_t i, bool first)
{
	if (guest_woke_early(t, i))
		return t->early_fed[i];
	return first;
}

/*
 * How much earlier than the idle entry of period @i the governor began it,
 * where it armed its early wakeup: it notes a period's start as it
 * selects, and cpuidle measures the residency it adds from the entry, so
 * a wakeup the halt took is dated early by the time between the two.
 * Under QEMU TCG, from arming the hrtimer to the entry alone takes 3 to 58
 * us (tenth to ninetieth percentile on the echoing CPU at a 1000 us pace),
 * varied enough to scatter the intervals the rule sees. Recorded from the
 * arming (" s NS"); the selection's part before it is not traced, and
 * taken as steady, it drops out of the intervals. Where the guest armed
 * none in the period, the trace's median.
 */
static u64 select_early_ns(const struct trace *t, size_t i)
{
	if (!t->select_ns)
		return 0;
	return t->select_ns[i] ?: t->typical_select_ns;
}

/*
 * The wakeup haltpoll-recurring-wakeup expects, as haltpoll_select()
 * computes it: @due_ns from the period's start, @latest_ns the latest it
 * is expected, @lead_ns how long before @due_ns the early wakeup is set.
 */
struct expected_wakeup {
	u64 due_ns;
	u64 latest_ns;
	u64 lead_ns;
};

/*
 * How a period ended, for dating its wakeup (recur_woken_ns()): @halted if
 * the wakeup found the CPU halted; @dated_early_ns, select_early_ns() if it
 * found it in a halt the early wakeup was armed for, else 0.
 */
struct period_end {
	bool halted;
	u64 dated_early_ns;
};

/*
 * A period halted for the wakeup @e, with an early wakeup its lead before
 * it, as haltpoll_halt_for_wakeup() does. Its lateness moves @lateness.
 * The selection after the early wakeup starts a period of its own (the
 * governor's window learns nothing from a halt its early wakeup ended): it
 * polls until the latest expected time, or for @window_ns if that is
 * longer, for haltpoll_window_limit_ns() at most, to the end of a spin,
 * or halts if neither is left. @ended says how the period ended. Return:
 * the window after the period.
 */
static u64 replay_recurring(const struct haltpoll_params *p,
			    const struct trace *t, size_t i, struct outcome *o,
			    const struct expected_wakeup *e, u64 window_ns,
			    struct haltpoll_lateness *lateness,
			    struct period_end *ended)
{
	u64 max_ns = haltpoll_window_limit_ns(p);
	u64 fallback_ns = haltpoll_min_u64(sim_halt_wake_ns, e->lead_ns);
	u64 late_ns = early_late_ns(t, i, fallback_ns);
	u64 woke_ns = e->due_ns - e->lead_ns + late_ns;
	u64 end_ns = polled_end_ns(t, i);
	u64 limit_ns, poll_ns, halt_ns;

	o->halts++;
	ended->halted = true;
	/* Where the lateness is measured. */
	if (sim_halt_wakes && early_moves_lead(t, i, end_ns > woke_ns))
		haltpoll_lateness_add(lateness, late_ns, max_ns);
	/* The wakeup came first, to the halt: the early wakeup is cancelled. */
	if (end_ns <= woke_ns) {
		ended->dated_early_ns = select_early_ns(t, i);
		return haltpoll_window_next(p, window_ns, halted_ns(t, i));
	}
	limit_ns = e->latest_ns > woke_ns ? e->latest_ns - woke_ns : 0;
	limit_ns = haltpoll_min_u64(limit_ns > window_ns ? limit_ns : window_ns,
				    max_ns);
	/* The period from the early wakeup to the wakeup, halted or polled. */
	halt_ns = halted_ns(t, i) - woke_ns;
	if (!limit_ns) {
		o->halts++;
		return haltpoll_window_next(p, window_ns, halt_ns);
	}
	poll_ns = poll_end_ns(limit_ns);
	if (end_ns - woke_ns <= poll_ns) {
		count_caught(o, t, i);
		o->polled_ns += end_ns - woke_ns +
				(t->woken[i] ? sim_poll_wake_ns : 0);
		ended->halted = false;
		return window_ns;
	}
	o->polled_ns += poll_ns;
	o->wasted_ns += poll_ns;
	o->timeouts++;
	o->halts++;
	return haltpoll_window_next(p, window_ns,
		haltpoll_idle_for_window(window_ns, poll_ns, halt_ns - poll_ns));
}

/*
 * The early wakeup before a timer moves the lead, where the lateness is
 * measured (-W), unless the trace says the guest's in that period did not
 * (early_moves_lead()). Even one later than the timer does: the two
 * expire in one interrupt, the early wakeup's first, before the timer's
 * wakes a task, so haltpoll_wake_fn() takes it.
 */
static void timer_early_wake(struct haltpoll_lateness *lateness,
			     const struct trace *t, size_t i, u64 max_ns)
{
	if (sim_halt_wakes && early_moves_lead(t, i, true))
		haltpoll_lateness_add(lateness, early_late_ns(t, i, 0), max_ns);
}

/*
 * The wakeups haltpoll-recurring-wakeup learns from: most traces hold
 * idle periods, not the time between them, so the model takes the CPU to
 * run for no time between two (a steady run time changes nothing: it
 * comes off the interval and the time to the next wakeup alike).
 * tools/sim/validate's record it (run_after_ns()): there the CPU's delay
 * in running after a halt varies from period to period, and left out it
 * would scatter the intervals the rule sees. Periods the tick ended are
 * not wakeups to it, those its hrtimers ended are. A trace that marks the
 * periods a task's wakeup ended (tools/sim/validate's) marks the
 * hrtimers' too, and leaves the tick's unmarked. It marks " i" a period
 * an interrupt ended with no task woken where the guest's governor counted
 * that end (haltpoll_recur_counts(): not a halt the tick or its early
 * wakeup came in); that counts here however the replay spent the period.
 * A live CPU polling there would run on through the interrupt, but the
 * replay ends the period where the trace does, and a poll of its own that
 * reaches that end ends there, not timed out: haltpoll_recur_counts()
 * counts every such end of a poll. Others mark timers without saying
 * which; none of those counts here. A recorded wakeup comes at its own
 * time: the governor estimates a halted CPU's from the lead's lateness.
 */
static bool recur_wakeup(const struct trace *t, size_t i)
{
	if (t->marks_wakeups)
		return t->woken[i] || t->timer[i] ||
		       (t->interrupted && t->interrupted[i]);
	return !t->timer[i];
}

/*
 * Whether a task was woken at the end of period @i, for
 * haltpoll_recur_woken(): not at an " i" end; at every end of a trace
 * that does not mark them. A timer's end is taken for a task's: the
 * guest's governor asks need_resched(), a trace marks the timer, and the
 * recorded loads' timers are the pacer's sleeps.
 */
static bool recur_task(const struct trace *t, size_t i)
{
	return !t->marks_wakeups || t->woken[i] || t->timer[i];
}

/* The window after period @i, polled for @poll_ns in vain, then halted. */
static u64 window_after_miss(const struct haltpoll_params *p, u64 window_ns,
			     const struct trace *t, size_t i, u64 poll_ns)
{
	return haltpoll_window_next(p, window_ns,
		haltpoll_idle_for_window(window_ns, poll_ns,
					 halt_after(t, i, poll_ns)));
}

/* Period @i halted from its start: count it, return the window after it. */
static u64 replay_halt(const struct haltpoll_params *p, u64 window_ns,
		       const struct trace *t, size_t i, struct outcome *o)
{
	o->halts++;
	return haltpoll_window_next(p, window_ns, halted_ns(t, i));
}

/*
 * When the governor dates the wakeup that ended period @i, which ended
 * @end_ns into the trace (haltpoll_woken_at()): where a poll took it, as
 * it came; where the CPU was halted, by the period's length less @late_ns,
 * the lateness the governor averages (the model's running average where
 * it draws lateness, else the typical delay of a halted vCPU's wakeup);
 * the delay recorded for that period (if the guest halted there too)
 * differs from it as much as the host's wakeups scatter. The dates
 * scatter with it, and so do the intervals the rule sees. A halt the
 * governor armed its early wakeup for is dated earlier still, by
 * @ended->dated_early_ns (select_early_ns()).
 */
static u64 recur_woken_ns(const struct trace *t, size_t i, u64 end_ns,
			  const struct period_end *ended, u64 late_ns)
{
	u64 idle_ns = t->idle_ns[i], ran_ns, woken_ns;

	if (!ended->halted)
		return end_ns;
	ran_ns = halted_ns(t, i);
	woken_ns = end_ns - idle_ns + ran_ns -
		   haltpoll_min_u64(late_ns, ran_ns);
	return woken_ns - haltpoll_min_u64(ended->dated_early_ns, woken_ns - 1);
}

/*
 * As haltpoll_poll() and haltpoll_ceiling_learn(): poll period @i of @t
 * for @limit_ns; with -c, at most the CPU's ceiling @c, then, if @learn,
 * learn it from when the wakeup came (a poll for a timer teaches it
 * nothing). A CPU with no lateness measured (@l) does not learn. The
 * poll after an early wakeup (replay_recurring()) is left out: it is
 * mostly shorter than the ceiling's lower band.
 */
static enum poll_end poll_under_ceiling(struct outcome *o,
					const struct trace *t, size_t i,
					u64 limit_ns, u64 max_ns, bool learn,
					struct haltpoll_ceiling *c,
					const struct haltpoll_lateness *l,
					u64 *polled_ns)
{
	u64 ceil_ns = haltpoll_ceiling_ns(c->level, max_ns);
	enum poll_end end;

	if (!sim_ceiling)
		return poll_period(o, t, i, limit_ns, polled_ns);
	end = poll_period(o, t, i, haltpoll_min_u64(limit_ns, ceil_ns),
			  polled_ns);
	if (learn && (l->avg_ns || l->dev_ns))
		haltpoll_ceiling_add(c, max_ns, limit_ns, polled_end_ns(t, i),
				     end != POLL_TIMED_OUT || recur_task(t, i),
				     l->avg_ns + HALTPOLL_HALT_COST_NS);
	return end;
}

/*
 * As haltpoll_select(): the window the rules use, at most the ceiling
 * with -c; the window's own grow and shrink go on against max_ns.
 */
static u64 window_in_use(u64 window_ns, const struct haltpoll_ceiling *c,
			 u64 max_ns)
{
	if (!sim_ceiling)
		return window_ns;
	return haltpoll_min_u64(window_ns, haltpoll_ceiling_ns(c->level, max_ns));
}

static void replay_project(const struct haltpoll_params *p,
			   struct trace *t, struct outcome *o)
{
	u64 max_ns = haltpoll_window_limit_ns(p);
	u64 window_ns = 0, late_poll_ns = 0, now_ns = 1;
	unsigned int near_count = HALTPOLL_NEAR_TIMER_TOP, timerless = 0;
	struct haltpoll_recurrence recur = { };
	struct haltpoll_ceiling ceiling = { };
	/* The lead as given; it moves with the lateness drawn (-W) only. */
	struct haltpoll_lateness lateness = lateness_seed();
	/* How late the timers polled for came, as the trace says. */
	struct haltpoll_lateness polled = { };
	/* What dates a halted wakeup: the typical, or the running, lateness. */
	u64 *late_ns = sim_halt_wakes ? &lateness.avg_ns : &sim_halt_wake_ns;
	struct period_end ended = { };
	s64 ahead_ns = 0;
	size_t i;

	for (i = 0; i < t->n; now_ns += t->idle_ns[i] + run_after_ns(t, i), i++) {
		u64 idle_ns;

		carry_to_timer(t, i, ended.halted, &ahead_ns);
		idle_ns = t->idle_ns[i];
		/*
		 * A trace tells when a timer comes if it ended the period, or
		 * if the tick ended the period before it (pending_ns()).
		 */
		u64 next_timer_ns = t->timer[i] ? idle_ns : pending_ns(t, i);
		u64 reach_ns = window_in_use(window_ns, &ceiling, max_ns);
		u64 lead_ns = haltpoll_lead_in_use(haltpoll_timer_lead_ns(&lateness,
									  &polled),
						   reach_ns);
		struct expected_wakeup expected = { };
		u64 poll_ns, horizon_ns;
		bool learn = true, timer_poll = false;
		enum poll_end end;

		o->periods++;
		/* The last period's wakeup, dated as the governor dated it. */
		if (i && recur_wakeup(t, i - 1)) {
			u64 prev_end_ns = now_ns - run_after_ns(t, i - 1);

			haltpoll_recur_woken(&recur,
					     recur_woken_ns(t, i - 1, prev_end_ns,
							    &ended, *late_ns),
					     recur_task(t, i - 1));
		}
		ended = (struct period_end){ .halted = true };
		/* As haltpoll_select(): none with polling off. */
		if (!late_poll_ns && max_ns)
			expected.latest_ns =
				haltpoll_recur_expected(&recur, now_ns,
							&expected.due_ns);
		/*
		 * As haltpoll_next_timer_sampled_ns(): not every entry looks,
		 * nor the halt after a poll that ran out, nor a CPU with
		 * polling off; an entry with the window closed does.
		 */
		if (!late_poll_ns && max_ns) {
			if (!haltpoll_timer_walk_due(timerless))
				next_timer_ns = UINT64_MAX;
			horizon_ns = window_ns > SIM_TICK_NS ?
				     window_ns : SIM_TICK_NS;
			timerless = haltpoll_timerless_next(timerless,
							    next_timer_ns < horizon_ns);
		}
		if (!haltpoll_should_poll(window_ns, late_poll_ns != 0) &&
		    !expected.latest_ns) {
			/* A late catch's poll counts with the halt after it. */
			o->halts++;
			window_ns = haltpoll_window_next(p, window_ns,
				haltpoll_idle_for_window(window_ns, late_poll_ns,
							 halted_ns(t, i)));
			late_poll_ns = 0;
			continue;
		}
		/* Timers as far as the window reaches, the ceiling aside. */
		if (haltpoll_timer_first(window_ns, next_timer_ns)) {
			/*
			 * Else a poll for the timer, which teaches the
			 * ceiling nothing and measures the timer's lateness.
			 */
			learn = false;
			timer_poll = true;
			if (haltpoll_timer_halt_pays(next_timer_ns, lead_ns)) {
				/* The tick ended the halt before the timer. */
				if (!t->timer[i]) {
					window_ns = replay_halt(p, window_ns, t,
								i, o);
					continue;
				}
				/*
				 * As haltpoll_select(): halt, wake lead_ns
				 * before the timer and poll for it, both as
				 * late; the window learns nothing.
				 */
				timer_early_wake(&lateness, t, i, max_ns);
				/* The poll after it ends on the timer. */
				haltpoll_lateness_add(&polled, t->late_ns[i],
						      haltpoll_lead_ns(&lateness));
				o->halts++;
				o->timer_caught++;
				o->polled_ns += lead_ns;
				ended.halted = false;
				continue;
			}
		} else if (expected.latest_ns > reach_ns &&
			   expected.latest_ns < next_timer_ns) {
			/* As haltpoll_halt_for_wakeup(). */
			u64 longest_ns = window_in_use(max_ns, &ceiling, max_ns);
			u64 wakeup_lead_ns =
				haltpoll_wakeup_lead_ns(&lateness,
							recur.interval.dev_ns);

			expected.lead_ns = haltpoll_min_u64(wakeup_lead_ns,
							    longest_ns);
			if (haltpoll_wakeup_halt_pays(expected.due_ns,
						      expected.lead_ns,
						      reach_ns, longest_ns)) {
				window_ns = replay_recurring(p, t, i, o,
							     &expected,
							     window_ns,
							     &lateness,
							     &ended);
				continue;
			}
			end = poll_under_ceiling(o, t, i,
						 haltpoll_min_u64(expected.latest_ns,
								  max_ns),
						 max_ns, true, &ceiling, &lateness,
						 &poll_ns);
			if (end == POLL_CAUGHT_LATE)
				late_poll_ns = poll_ns;
			ended.halted = end == POLL_TIMED_OUT;
			if (ended.halted)
				window_ns = window_after_miss(p, window_ns, t, i,
							      poll_ns);
			continue;
		} else if (!window_ns) {
			window_ns = replay_halt(p, window_ns, t, i, o);
			continue;
		} else if (next_timer_ns < SIM_TICK_NS) {
			/*
			 * A near timer (haltpoll-near-timer), which ends the
			 * period: no wakeup came first.
			 */
			bool poll = haltpoll_near_timer_poll(near_count);

			/*
			 * A halt the tick ended first teaches the count
			 * nothing; nor does a poll, which times out before
			 * the tick ends the period.
			 */
			if (t->timer[i])
				near_count = haltpoll_near_timer_count(near_count,
								       false);
			if (!poll) {
				window_ns = replay_halt(p, window_ns, t, i, o);
				continue;
			}
		}
		end = poll_under_ceiling(o, t, i, window_ns, max_ns, learn,
					 &ceiling, &lateness, &poll_ns);
		if (end == POLL_CAUGHT_LATE)
			late_poll_ns = poll_ns;
		ended.halted = end == POLL_TIMED_OUT;
		/* As haltpoll_learn_polled_timer(): a poll the timer ended. */
		if (timer_poll && end == POLL_CAUGHT && t->timer[i])
			haltpoll_lateness_add(&polled, t->late_ns[i],
					      haltpoll_lead_ns(&lateness));
		if (!ended.halted)
			continue;	/* a caught wakeup teaches nothing */
		window_ns = window_after_miss(p, window_ns, t, i, poll_ns);
	}
}

/*
 * Linux 6.12's adjust_poll_limit(), from its description: after a halt
 * that lasted block_ns (the halt alone, not the poll before it), grow if
 * poll_limit < block_ns <= guest_halt_poll_ns, shrink if block_ns >
 * guest_halt_poll_ns; a caught poll changes nothing.
 */
static u64 linux612_adjust(const struct haltpoll_params *p, u64 limit_ns,
			   u64 block_ns)
{
	u64 val;

	if (block_ns > limit_ns && block_ns <= p->max_ns) {
		val = limit_ns * p->grow;
		if (val < p->grow_start_ns)
			val = p->grow_start_ns;
		return val > p->max_ns ? p->max_ns : val;
	}
	if (block_ns > p->max_ns && p->allow_shrink) {
		if (!p->shrink)
			return 0;
		val = limit_ns / p->shrink;
		return val < p->grow_start_ns ? 0 : val;
	}
	return limit_ns;
}

static void replay_linux612(const struct haltpoll_params *p,
			    struct trace *t, struct outcome *o)
{
	u64 limit_ns = 0, poll_ns;
	bool timed_out = false, halted = false;
	s64 ahead_ns = 0;
	size_t i;

	for (i = 0; i < t->n; i++) {
		enum poll_end end;

		carry_to_timer(t, i, halted, &ahead_ns);
		o->periods++;
		halted = true;
		/* 6.12 halts after a poll that timed out, caught late or not. */
		if (limit_ns && !timed_out) {
			end = poll_period(o, t, i, limit_ns, &poll_ns);
			timed_out = end == POLL_CAUGHT_LATE;
			halted = end == POLL_TIMED_OUT;
			if (!halted)
				continue;
			limit_ns = linux612_adjust(p, limit_ns,
						   halt_after(t, i, poll_ns));
		} else {
			o->halts++;
			timed_out = false;
			limit_ns = linux612_adjust(p, limit_ns, halted_ns(t, i));
		}
	}
}

static void replay_always_halt(const struct haltpoll_params *p,
			       struct trace *t, struct outcome *o)
{
	o->periods += t->n;
	o->halts += t->n;
}

static void replay_always_poll(const struct haltpoll_params *p,
			       struct trace *t, struct outcome *o)
{
	size_t i;

	u64 poll_ns;

	for (i = 0; i < t->n; i++) {
		o->periods++;
		poll_period(o, t, i, p->max_ns, &poll_ns);
	}
}

/*
 * Replay @t under @policy on a copy of its periods' lengths, the one array
 * a replay may write (carry_to_timer()).
 */
static void replay_copy(const struct policy *policy,
			const struct haltpoll_params *p, const struct trace *t,
			struct outcome *o)
{
	struct trace copy = *t;

	copy.idle_ns = malloc((t->n ?: 1) * sizeof(*t->idle_ns));
	if (!copy.idle_ns) {
		perror("haltpoll-sim");
		exit(1);
	}
	if (t->n)
		memcpy(copy.idle_ns, t->idle_ns, t->n * sizeof(*t->idle_ns));
	policy->replay(p, &copy, o);
	free(copy.idle_ns);
}

static const struct policy policies[] = {
	{ "project", replay_project },
	{ "linux-6.12", replay_linux612 },
	{ "always-halt", replay_always_halt },
	{ "always-poll", replay_always_poll },
};

#define NR_POLICIES ARRAY_SIZE(policies)

/* Deterministic generators: xorshift, so every run replays the same. */
static u64 rng_state = 88172645463325252ULL;

/*
 * -s: another sequence of the draws a replay makes (-W, -o, -O), the
 * synthetic traces unchanged; 0 keeps the default one.
 */
static void seed_draws(u64 seed)
{
	rng_state ^= seed * 0x9e3779b97f4a7c15ULL;
	if (!rng_state)
		rng_state = 1;
}

static double uniform(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (rng_state >> 11) * (1.0 / 9007199254740992.0);
}

static u64 exponential_ns(u64 mean_ns)
{
	return (u64)(-log(1.0 - uniform()) * mean_ns) + 1;
}

static u64 jitter_ns(u64 base_ns, double fraction)
{
	return (u64)(base_ns * (1.0 + fraction * (2 * uniform() - 1))) + 1;
}

static struct trace *new_trace(struct trace *traces, size_t *count,
			       const char *name)
{
	struct trace *t = &traces[(*count)++];

	snprintf(t->name, sizeof(t->name), "%s", name);
	t->idle_ns = calloc(PERIODS, sizeof(*t->idle_ns));
	t->timer = calloc(PERIODS, sizeof(*t->timer));
	t->late_ns = calloc(PERIODS, sizeof(*t->late_ns));
	t->woken = calloc(PERIODS, sizeof(*t->woken));
	t->n = PERIODS;
	return t;
}

static void gen_synthetic(struct trace *traces, size_t *count)
{
	static const u64 rates_us[] = { 5, 20, 50, 150, 500, 1000, 5000 };
	char name[64];
	struct trace *t;
	size_t r, i;

	for (r = 0; r < ARRAY_SIZE(rates_us); r++) {
		snprintf(name, sizeof(name), "fixed-%" PRIu64 "us", rates_us[r]);
		t = new_trace(traces, count, name);
		for (i = 0; i < t->n; i++)
			t->idle_ns[i] = jitter_ns(rates_us[r] * US, 0.05);
		snprintf(name, sizeof(name), "random-%" PRIu64 "us", rates_us[r]);
		t = new_trace(traces, count, name);
		for (i = 0; i < t->n; i++)
			t->idle_ns[i] = exponential_ns(rates_us[r] * US);
	}

	/* Bursts of 20 to 60 short gaps, between long pauses. */
	t = new_trace(traces, count, "bursts");
	for (i = 0; i < t->n; i++) {
		size_t burst = 20 + (size_t)(uniform() * 40);

		while (burst-- && i < t->n)
			t->idle_ns[i++] = jitter_ns(15 * US, 0.5);
		if (i < t->n)
			t->idle_ns[i] = jitter_ns(5 * MS, 0.8);
	}

	t = new_trace(traces, count, "timer-1ms");
	for (i = 0; i < t->n; i++) {
		t->idle_ns[i] = jitter_ns(1 * MS, 0.02);
		t->timer[i] = true;
	}

	/* An idle CPU woken by its tick (HZ=250) and the odd short event. */
	t = new_trace(traces, count, "idle-ticks");
	for (i = 0; i < t->n; i++) {
		t->timer[i] = uniform() >= 0.1;
		t->idle_ns[i] = t->timer[i] ? jitter_ns(4 * MS, 0.01) :
					      exponential_ns(100 * US);
	}

	/* 60% short request/response, 40% long think time. */
	t = new_trace(traces, count, "mixed");
	for (i = 0; i < t->n; i++)
		t->idle_ns[i] = uniform() < 0.6 ? exponential_ns(20 * US) :
						  exponential_ns(2 * MS);
}

/* One recorded idle period, as a line of a trace file gives it. */
struct period {
	u64 idle_ns, late_ns, pending_ns, run_ns, early_ns, select_ns;
	bool timer, woken, early_fed, interrupted;
};

/* @ptr resized to @n elements of @size bytes; exits if out of memory. */
static void *grow(void *ptr, size_t n, size_t size)
{
	ptr = realloc(ptr, n * size);
	if (!ptr) {
		perror("haltpoll-sim");
		exit(1);
	}
	return ptr;
}

static void trace_append(struct trace *t, size_t *cap,
			 const struct period *p)
{
	if (t->n == *cap) {
		*cap = *cap ? 2 * *cap : 1024;
		t->idle_ns = grow(t->idle_ns, *cap, sizeof(*t->idle_ns));
		t->timer = grow(t->timer, *cap, sizeof(*t->timer));
		t->late_ns = grow(t->late_ns, *cap, sizeof(*t->late_ns));
		t->woken = grow(t->woken, *cap, sizeof(*t->woken));
		t->pending_ns = grow(t->pending_ns, *cap, sizeof(*t->pending_ns));
		t->run_ns = grow(t->run_ns, *cap, sizeof(*t->run_ns));
		t->early_ns = grow(t->early_ns, *cap, sizeof(*t->early_ns));
		t->early_fed = grow(t->early_fed, *cap, sizeof(*t->early_fed));
		t->interrupted = grow(t->interrupted, *cap,
				      sizeof(*t->interrupted));
		t->select_ns = grow(t->select_ns, *cap, sizeof(*t->select_ns));
	}
	t->idle_ns[t->n] = p->idle_ns;
	t->timer[t->n] = p->timer;
	t->late_ns[t->n] = p->late_ns;
	t->woken[t->n] = p->woken;
	t->pending_ns[t->n] = p->pending_ns;
	t->run_ns[t->n] = p->run_ns;
	t->early_ns[t->n] = p->early_ns;
	t->early_fed[t->n] = p->early_fed;
	t->interrupted[t->n] = p->interrupted;
	t->select_ns[t->n] = p->select_ns;
	t->marks_wakeups |= p->woken;
	t->n++;
}

/* Cut the field " KEY NS" off the end of @line; return NS, 0 if absent. */
static u64 cut_field(char *line, const char *key)
{
	char *at = strstr(line, key);

	if (!at)
		return 0;
	*at = '\0';
	return strtoull(at + strlen(key), NULL, 10);
}

/* The median of the recorded select_ns, 0 if none. */
static u64 typical_select_ns(const struct trace *t)
{
	u64 *recorded = grow(NULL, t->n ?: 1, sizeof(*recorded)), typical_ns;
	size_t i, n = 0;

	for (i = 0; i < t->n; i++)
		if (t->select_ns[i])
			recorded[n++] = t->select_ns[i];
	typical_ns = median_ns(recorded, n);
	free(recorded);
	return typical_ns;
}

/*
 * A recorded trace: one idle period in ns per line, followed by " t" when
 * a timer of the idling CPU ended it, and then, if known, by how many ns
 * late that timer's interrupt came, or by " w" when the period lasted
 * until a task's wakeup, the CPU's delay in running left out, and then, if
 * known (the CPU halted), by that delay, or by " n DUE" when the tick
 * ended it before a timer of the CPU's, pending, due DUE ns from the
 * period's start, or by " i" when an interrupt that woke no task ended
 * it (recur_wakeup()); then, if recorded, " s NS": how long before the
 * idle entry the guest's governor armed its early wakeup
 * (select_early_ns()), " e NS": how late that early wakeup came in the
 * guest (" E NS" where a task was woken by then, or running, and the
 * governor did not take it), and " r NS": NS from the period's end to the
 * next one's start.
 */
static int load_trace(struct trace *traces, size_t *count, const char *path)
{
	struct trace *t = &traces[*count];
	size_t cap = 0;
	FILE *f = fopen(path, "r");
	char line[160], mark;
	const char *base = strrchr(path, '/');

	if (!f)
		return -errno;
	memset(t, 0, sizeof(*t));
	snprintf(t->name, sizeof(t->name), "rec:%s", base ? base + 1 : path);
	while (fgets(line, sizeof(line), f)) {
		struct period p = { .early_fed = true };
		u64 third_ns = 0;
		int fields;

		p.run_ns = cut_field(line, " r ");
		p.early_ns = cut_field(line, " e ");
		if (!p.early_ns) {
			p.early_ns = cut_field(line, " E ");
			p.early_fed = !p.early_ns;
		}
		p.select_ns = cut_field(line, " s ");
		fields = sscanf(line, "%" SCNu64 " %c %" SCNu64, &p.idle_ns,
				&mark, &third_ns);
		if (fields < 1)
			continue;
		if (fields == 3 && mark == 'n') {
			p.pending_ns = third_ns;
		} else {
			p.timer = fields >= 2 && mark == 't';
			p.woken = fields >= 2 && mark == 'w';
			p.late_ns = third_ns;
		}
		p.interrupted = fields >= 2 && mark == 'i';
		trace_append(t, &cap, &p);
	}
	fclose(f);
	t->typical_select_ns = typical_select_ns(t);
	(*count)++;
	return 0;
}

/* Read up to @max values in ns, one per line, from @path into @ns. */
static int load_samples(const char *path, u64 *ns, size_t max, size_t *n)
{
	FILE *f = fopen(path, "r");

	if (!f) {
		fprintf(stderr, "haltpoll-sim: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (*n < max && fscanf(f, "%" SCNu64, &ns[*n]) == 1)
		(*n)++;
	fclose(f);
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: haltpoll-sim [-j] [-r] [-c] [-l LEAD_NS]\n"
		"                    [-w HALT_NS[,POLL_NS]]\n"
		"                    [-W HALT_WAKES_FILE] [-o SPINS_FILE]\n"
		"                    [-O OVERSHOOTS_FILE] [-g GAP_NS]\n"
		"                    [-p MAX_NS,GROW_START_NS,GROW,SHRINK]\n"
		"                    [-s SEED]\n"
		"                    [TRACE_FILE...]\n"
		"Replays the synthetic traces and every TRACE_FILE (idle periods\n"
		"in ns, one per line, \" t\" after those a timer ended) through\n"
		"each policy; -j prints JSON; -r leaves the synthetic traces\n"
		"out; -c learns a poll ceiling per CPU, as the governor with\n"
		"guest_halt_poll_learn_ceiling=Y; -l sets the lead of the\n"
		"early wakeup before a timer\n"
		"(default 20000); -w the delays from a wakeup to a halted\n"
		"and a polling CPU running (default 0: the periods hold them);\n"
		"-W how late early wakeups came, in ns, one per line, one drawn\n"
		"at random for each early wakeup before an expected wakeup;\n"
		"-o the measured lengths of a poll loop's spin, in ns, one per\n"
		"line (default: a poll ends at its limit), -O how far polls\n"
		"that outlast their first spin run past their limit, in ns\n"
		"(default: in whole spins), -g the gap from a poll's end to\n"
		"the halt (default 0), -s another sequence of the random\n"
		"draws (default 0).\n"
		"A recorded line may carry a third field, the timer's lateness,\n"
		"and end in \" r NS\", the time to the next period's start.\n");
	exit(2);
}

static void print_table(const struct trace *traces, size_t n,
			struct outcome out[][NR_POLICIES])
{
	size_t t, k;

	printf("%-22s %-12s %8s %8s %8s %8s %12s\n", "trace", "policy", "caught",
	       "timer", "timeouts", "halts", "wasted_ms");
	for (t = 0; t < n; t++)
		for (k = 0; k < NR_POLICIES; k++)
			printf("%-22s %-12s %8" PRIu64 " %8" PRIu64 " %8" PRIu64
			       " %8" PRIu64 " %12.1f\n",
			       k ? "" : traces[t].name, policies[k].name,
			       out[t][k].caught, out[t][k].timer_caught,
			       out[t][k].timeouts, out[t][k].halts,
			       out[t][k].wasted_ns / 1e6);
}

static void print_json(const struct trace *traces, size_t n,
		       struct outcome out[][NR_POLICIES])
{
	size_t t, k;

	printf("{\n  \"traces\": [\n");
	for (t = 0; t < n; t++) {
		printf("    {\"name\": \"%s\", \"periods\": %zu, \"policies\": {",
		       traces[t].name, traces[t].n);
		for (k = 0; k < NR_POLICIES; k++)
			printf("%s\"%s\": {\"caught\": %" PRIu64 ", \"timer_caught\": %"
			       PRIu64 ", \"timeouts\": %" PRIu64 ", "
			       "\"halts\": %" PRIu64 ", \"wasted_ns\": %" PRIu64
			       ", \"polled_ns\": %" PRIu64 "}",
			       k ? ", " : "", policies[k].name, out[t][k].caught,
			       out[t][k].timer_caught, out[t][k].timeouts,
			       out[t][k].halts, out[t][k].wasted_ns,
			       out[t][k].polled_ns);
		printf("}}%s\n", t + 1 < n ? "," : "");
	}
	printf("  ]\n}\n");
}

/* Print one target as a result line; return 1 if it was missed. */
static int target(bool met, const char *fmt, ...)
{
	va_list ap;

	printf("%-7s sim: ", met ? "ok" : "FAIL");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	return !met;
}

/*
 * The targets: against Linux 6.12 on the whole suite, at least as many
 * wakeups caught, at least 30% less poll time wasted, and no trace with
 * more than 5% fewer caught.
 */
static int check_targets(const struct trace *traces, size_t n,
			 struct outcome out[][NR_POLICIES])
{
	u64 caught[2] = { 0, 0 }, timer[2] = { 0, 0 }, wasted[2] = { 0, 0 };
	u64 polled[2] = { 0, 0 };
	double caught_ratio, wasted_ratio;
	int worse = 0, failed = 0;
	size_t t, k;

	for (t = 0; t < n; t++) {
		for (k = 0; k < 2; k++) {
			caught[k] += out[t][k].caught;
			timer[k] += out[t][k].timer_caught;
			wasted[k] += out[t][k].wasted_ns;
			polled[k] += out[t][k].polled_ns;
		}
		if (out[t][0].caught * 100 < out[t][1].caught * 95) {
			printf("        trace %s: project catches %" PRIu64
			       ", linux-6.12 %" PRIu64 "\n", traces[t].name,
			       out[t][0].caught, out[t][1].caught);
			worse++;
		}
	}
	caught_ratio = (double)caught[0] / caught[1];
	wasted_ratio = (double)wasted[0] / wasted[1];
	putchar('\n');
	failed |= target(caught_ratio >= 1.0,
			 "wakeups caught, project / linux-6.12: %" PRIu64 " / %"
			 PRIu64 " = %.3f (target >= 1)", caught[0], caught[1],
			 caught_ratio);
	failed |= target(wasted_ratio <= 0.70,
			 "poll time wasted, project / linux-6.12: %.1f / %.1f ms"
			 " = %.3f (target <= 0.70)", wasted[0] / 1e6,
			 wasted[1] / 1e6, wasted_ratio);
	failed |= target(!worse, "%d of %zu traces with > 5%% fewer caught"
			 " (target 0)", worse, n);
	printf("info    sim: timer wakeups caught, project / linux-6.12: %" PRIu64
	       " / %" PRIu64 " (no target: the project polls only the lead"
	       " before a timer it knows comes first)\n", timer[0], timer[1]);
	printf("info    sim: poll time in all, project / linux-6.12: %.1f / %.1f ms"
	       " (the live guest's state 0 time)\n", polled[0] / 1e6,
	       polled[1] / 1e6);
	return failed;
}

int main(int argc, char **argv)
{
	struct haltpoll_params p = {
		.max_ns = 200 * US, .grow_start_ns = 50 * US,
		.grow = 2, .shrink = 2, .allow_shrink = true,
	};
	static struct trace traces[MAX_TRACES];
	static struct outcome out[MAX_TRACES][NR_POLICIES];
	size_t n = 0, t, k;
	u64 seed = 0;
	int opt, json = 0, recorded_only = 0;
	const char *why;

	while ((opt = getopt(argc, argv, "jrcl:w:W:o:O:g:p:s:h")) != -1) {
		switch (opt) {
		case 'j':
			json = 1;
			break;
		case 'r':
			recorded_only = 1;
			break;
		case 'c':
			sim_ceiling = true;
			break;
		case 'l':
			sim_lead_ns = strtoull(optarg, NULL, 10);
			break;
		case 'o':
			if (load_samples(optarg, sim_spin_ns, MAX_SPINS,
					 &sim_spins))
				return 1;
			break;
		case 'O':
			if (load_samples(optarg, sim_over_ns, MAX_OVERS,
					 &sim_overs))
				return 1;
			break;
		case 'W':
			if (load_samples(optarg, sim_halt_wakes_ns, MAX_WAKES,
					 &sim_halt_wakes))
				return 1;
			break;
		case 'g':
			sim_gap_ns = strtoull(optarg, NULL, 10);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 10);
			break;
		case 'w':
			if (sscanf(optarg, "%" SCNu64 ",%" SCNu64,
				   &sim_halt_wake_ns, &sim_poll_wake_ns) < 1)
				usage();
			break;
		case 'p':
			if (sscanf(optarg, "%u,%u,%u,%u", &p.max_ns,
				   &p.grow_start_ns, &p.grow, &p.shrink) != 4)
				usage();
			break;
		default:
			usage();
		}
	}
	why = haltpoll_params_invalid(&p);
	if (why) {
		fprintf(stderr, "haltpoll-sim: %s\n", why);
		return 2;
	}
	if (!recorded_only)
		gen_synthetic(traces, &n);
	seed_draws(seed);
	for (; optind < argc && n < MAX_TRACES; optind++)
		if (load_trace(traces, &n, argv[optind])) {
			fprintf(stderr, "haltpoll-sim: %s: %s\n", argv[optind],
				strerror(errno));
			return 1;
		}

	for (t = 0; t < n; t++)
		for (k = 0; k < NR_POLICIES; k++)
			replay_copy(&policies[k], &p, &traces[t], &out[t][k]);

	if (json) {
		print_json(traces, n, out);
		return 0;
	}
	print_table(traces, n, out);
	return check_targets(traces, n, out);
}
