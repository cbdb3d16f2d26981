/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Poll window arithmetic of the haltpoll cpuidle governor.
 *
 * Everything here is a pure function of its arguments: no per-CPU data, no
 * module parameters, no clock. The governor (haltpoll.c) and its KUnit
 * suite compile this very file, and so can a userspace model of the policy,
 * so what is tested and modelled is what runs in the kernel. Only
 * <linux/types.h> and <linux/math64.h> are needed; userspace supplies its
 * own.
 */
#ifndef _HALTPOLL_WINDOW_H
#define _HALTPOLL_WINDOW_H

#include <linux/math64.h>
#include <linux/types.h>

/*
 * Largest poll window, whatever the parameters ask for: 10 ms. A window is
 * meant to bridge the gap between a request and its reply; past a few
 * scheduler ticks (4 ms at HZ=250) the vCPU is simply busy-waiting on the
 * host's dime, and an operator who wants that should boot with idle=poll
 * instead.
 */
#define HALTPOLL_WINDOW_CAP_NS	10000000ULL

/**
 * struct haltpoll_params - one consistent snapshot of the tunables
 * @max_ns:		guest_halt_poll_ns, the largest window
 * @grow_start_ns:	guest_halt_poll_grow_start, first non-zero window
 * @grow:		guest_halt_poll_grow, multiplier on growth
 * @shrink:		guest_halt_poll_shrink, divisor on shrink (0: reset)
 * @allow_shrink:	guest_halt_poll_allow_shrink
 */
struct haltpoll_params {
	unsigned int max_ns;
	unsigned int grow_start_ns;
	unsigned int grow;
	unsigned int shrink;
	bool allow_shrink;
};

/**
 * haltpoll_params_invalid - say why a set of tunables cannot be obeyed
 * @p: candidate parameters
 *
 * Only grow_start 0 is: 0 times grow is 0, so a window that shrank to 0
 * could never open again. Linux 6.12 took it: a CPU whose governor was
 * enabled with it (at boot, on coming online, on a governor switch) never
 * polled, and one that had polled stopped for good once shrinks had
 * brought its window to 0. An operator who wants no polling sets
 * guest_halt_poll_ns to 0. Values above HALTPOLL_WINDOW_CAP_NS are usable:
 * haltpoll_window_limit_ns() caps the window.
 *
 * Return: NULL if @p is usable, otherwise a message for the operator.
 */
static inline const char *haltpoll_params_invalid(const struct haltpoll_params *p)
{
	if (p->grow_start_ns == 0)
		return "a closed window could never open (guest_halt_poll_ns=0 disables polling)";
	return NULL;
}

static inline u64 haltpoll_min_u64(u64 a, u64 b)
{
	return a < b ? a : b;
}

/**
 * haltpoll_window_limit_ns - the largest window @p allows
 * @p: parameters
 *
 * Clamped to the cap again so that no combination of values, even one a
 * concurrent parameter write has only half installed, polls for longer.
 */
static inline u64 haltpoll_window_limit_ns(const struct haltpoll_params *p)
{
	return haltpoll_min_u64(p->max_ns, HALTPOLL_WINDOW_CAP_NS);
}

/**
 * haltpoll_window_grow - next window after a wakeup the window just missed
 * @p: parameters
 * @window_ns: current window
 *
 * Multiplies by @p->grow, starts at @p->grow_start_ns, stops at the limit.
 * The product cannot overflow: the window never exceeds the 10 ms cap
 * (fewer than 2^24 ns) and the factor is 32 bits wide.
 */
static inline u64 haltpoll_window_grow(const struct haltpoll_params *p,
				       u64 window_ns)
{
	u64 limit_ns = haltpoll_window_limit_ns(p);
	u64 next_ns = haltpoll_min_u64(window_ns, limit_ns) * p->grow;

	if (next_ns < p->grow_start_ns)
		next_ns = p->grow_start_ns;
	return haltpoll_min_u64(next_ns, limit_ns);
}

/**
 * haltpoll_window_shrink - next window after an idle period out of reach
 * @p: parameters
 * @window_ns: current window
 *
 * Divides by @p->shrink (0 resets the window at once) and drops to 0 below
 * @p->grow_start_ns, where polling has stopped paying for itself.
 */
static inline u64 haltpoll_window_shrink(const struct haltpoll_params *p,
					 u64 window_ns)
{
	u64 next_ns;

	if (!p->allow_shrink)
		return haltpoll_min_u64(window_ns, haltpoll_window_limit_ns(p));
	if (p->shrink == 0)
		return 0;
	next_ns = haltpoll_min_u64(window_ns / p->shrink,
				   haltpoll_window_limit_ns(p));
	return next_ns < p->grow_start_ns ? 0 : next_ns;
}

/**
 * haltpoll_window_next - adapt the window to the idle period that just ended
 * @p: parameters
 * @window_ns: window in force during that period
 * @idle_ns: the idle period as the window sees it, poll time (at most the
 *	window) plus halt time: haltpoll_idle_for_window()
 *
 * Called for idle periods that ended in the halt state. If the window
 * covered the whole period (the poll state was disabled) there is nothing
 * to learn. If the wakeup came within @p->max_ns of the window closing, a
 * larger window would have caught it, or will catch the next one after
 * a few more steps: grow. If even the halt outlasted @p->max_ns, no window
 * allowed would have: polling was wasted, shrink.
 *
 * Linux 6.12 grew only when the halt alone outlasted the window, so a
 * window just short of a steady wakeup (a poll of 100 us for a wakeup at
 * 150 us: a 50 us halt) stayed short for ever.
 *
 * Return: the window for the next idle period.
 */
static inline u64 haltpoll_window_next(const struct haltpoll_params *p,
				       u64 window_ns, u64 idle_ns)
{
	u64 limit_ns = haltpoll_window_limit_ns(p);

	if (idle_ns <= window_ns)
		return haltpoll_min_u64(window_ns, limit_ns);
	if (idle_ns - window_ns <= limit_ns)
		return haltpoll_window_grow(p, window_ns);
	return haltpoll_window_shrink(p, window_ns);
}

/**
 * haltpoll_idle_for_window - an idle period as its window sees it
 * @window_ns: window in force during that period
 * @poll_ns: how long the poll before the halt ran, 0 for none
 * @halt_ns: how long the halt lasted
 *
 * A poll reads the clock only between two of its spins, so one that timed
 * out ran some time past its window: a few microseconds on hardware, tens
 * and at times hundreds under emulation. The window closed when the poll
 * gave up, so the wakeup came @halt_ns after the window, not after
 * @window_ns: measuring from the window's nominal end would shrink it for a
 * wakeup that came well within guest_halt_poll_ns of the poll's end (Linux
 * 6.12 measured the halt alone, too).
 *
 * Return: the idle period to pass to haltpoll_window_next().
 */
static inline u64 haltpoll_idle_for_window(u64 window_ns, u64 poll_ns,
					   u64 halt_ns)
{
	return haltpoll_min_u64(poll_ns, window_ns) + halt_ns;
}

/**
 * haltpoll_should_poll - pick between the poll and the halt state
 * @window_ns: current window
 * @poll_timed_out: the previous state was a poll that hit its limit
 *
 * A poll that ran out its window is followed by a halt; anything else polls
 * again if there is a window at all.
 */
static inline bool haltpoll_should_poll(u64 window_ns, bool poll_timed_out)
{
	return window_ns && !poll_timed_out;
}

/**
 * haltpoll_timer_first - whether a timer will end the idle period first
 * @window_ns: the window a poll would have
 * @next_timer_ns: time to the next timer event
 *
 * A poll would then spin until the timer fires, a wakeup the CPU takes as
 * well from a halt: the timer interrupt comes either way. Halt instead.
 */
static inline bool haltpoll_timer_first(u64 window_ns, u64 next_timer_ns)
{
	return next_timer_ns < window_ns;
}

/*
 * Bounds of the lead: below the minimum, the poll after an early wakeup
 * would be too short to be worth the extra interrupt, so the CPU polls
 * through the timer instead.
 */
#define HALTPOLL_LEAD_MIN_NS	2000ULL

/**
 * DOC: haltpoll-timer-lead
 *
 * To get polling's timer latency at a fraction of its cost, the governor
 * halts until lead_ns before a timer due inside the window, then polls for
 * the rest. The early wakeup's own interrupt comes late: on KVM the host
 * must notice the expiry, wake the vCPU's thread and enter the guest; an
 * emulator may add its own timer slack. If it comes later than the timer
 * it was to precede, one interrupt runs both, and the CPU never polled for
 * the timer. So the lead is the early wakeups' lateness, measured when
 * they fire: its average plus twice its average deviation, as TCP sets its
 * retransmit timeout from round trip times.
 *
 * A timer's interrupt may come late to a polling CPU too: under an
 * emulator, whose own timer slack delays it whatever the vCPU does. The
 * CPU would then poll for that lateness after every early wakeup, and
 * catch the timer no sooner than from a halt. So the lead is shortened
 * by the average lateness of the timers the CPU polled for (measured when
 * such a poll ends on or after its timer's time, dated when the
 * interrupt that ended it came in, close to where an early wakeup's
 * lateness is read; not on a nohz_full CPU, whose lead stays the halted
 * one):
 * polling buys only the difference. The CPU then polls for about twice
 * the deviation. An early wakeup that comes with its timer's, which a lead
 * shortened that far brings, measures no polled lateness: when the polled
 * lateness did shorten the lead in use, such a miss counts as a timer
 * polled for on time, so that the lead grows back while the CPU does not
 * poll. An early wakeup that fires after another wakeup ended the halt
 * counts as none (haltpoll_end_timer_halt()). On KVM a
 * polling vCPU takes its timer within microseconds, and the lead should
 * stay about the halted lateness.
 *
 * The lead in use is at most half the window (haltpoll_lead_in_use()):
 * timers due later than that keep being halted for, so lateness samples
 * keep coming even after a few very late ones raised the lead.
 */

/**
 * struct haltpoll_lateness - running lateness of a CPU's early wakeups
 * @avg_ns: average lateness
 * @dev_ns: average absolute deviation from @avg_ns
 */
struct haltpoll_lateness {
	u64 avg_ns;
	u64 dev_ns;
};

static inline u64 haltpoll_abs_diff_u64(u64 a, u64 b)
{
	return a > b ? a - b : b - a;
}

/**
 * haltpoll_lateness_add - fold one early wakeup's lateness into @l
 * @l: running lateness
 * @late_ns: how late the wakeup's interrupt came, in ns (negative: early)
 * @max_ns: largest sample taken as is: a vCPU the host did not run for a
 *	while says nothing of its usual wakeup latency
 *
 * Averages with weight 1/8 for the average and 1/4 for the deviation, as
 * TCP's round trip estimator does.
 */
static inline void haltpoll_lateness_add(struct haltpoll_lateness *l,
					 s64 late_ns, u64 max_ns)
{
	u64 sample_ns = late_ns < 0 ? 0 : haltpoll_min_u64(late_ns, max_ns);
	u64 diff_ns = haltpoll_abs_diff_u64(sample_ns, l->avg_ns);

	l->dev_ns = l->dev_ns - l->dev_ns / 4 + diff_ns / 4;
	l->avg_ns = l->avg_ns - l->avg_ns / 8 + sample_ns / 8;
}

/**
 * haltpoll_lead_ns - how long before a timer to wake a halted CPU
 * @l: running lateness of the CPU's early wakeups
 *
 * Return: the lead, at least HALTPOLL_LEAD_MIN_NS.
 */
static inline u64 haltpoll_lead_ns(const struct haltpoll_lateness *l)
{
	u64 lead_ns = l->avg_ns + 2 * l->dev_ns;

	return lead_ns < HALTPOLL_LEAD_MIN_NS ? HALTPOLL_LEAD_MIN_NS : lead_ns;
}

/**
 * haltpoll_timer_lead_ns - how long before a timer to wake a halted CPU
 * @halted: running lateness of the CPU's early wakeups
 * @polled: running lateness of the timers the CPU polled for
 *
 * Return: haltpoll_lead_ns() of @halted less the average of @polled, at
 * least HALTPOLL_LEAD_MIN_NS (haltpoll-timer-lead).
 */
static inline u64 haltpoll_timer_lead_ns(const struct haltpoll_lateness *halted,
					 const struct haltpoll_lateness *polled)
{
	u64 lead_ns = haltpoll_lead_ns(halted);

	if (lead_ns < polled->avg_ns + HALTPOLL_LEAD_MIN_NS)
		return HALTPOLL_LEAD_MIN_NS;
	return lead_ns - polled->avg_ns;
}

/**
 * haltpoll_lead_in_use - the lead to take with a given window
 * @lead_ns: the lead the lateness asks for
 * @window_ns: the window in force
 *
 * Return: @lead_ns, at most half of @window_ns.
 */
static inline u64 haltpoll_lead_in_use(u64 lead_ns, u64 window_ns)
{
	return haltpoll_min_u64(lead_ns, window_ns / 2);
}

/*
 * What a halt for a timer costs, in poll time it must save to pay: the
 * host's work for the exit, the early wakeup's interrupt and the entry.
 * An empirical bound, not a measured price: it covers a few microseconds
 * of exit and entry on KVM with room, and keeps polls that short, which
 * cost the host little.
 */
#define HALTPOLL_HALT_COST_NS	20000ULL

/**
 * haltpoll_timer_halt_pays - whether to halt for a timer or poll for it
 * @timer_ns: time to the timer
 * @lead_ns: the lead in use
 *
 * Halting saves the poll up to the lead before the timer, timer_ns -
 * lead_ns, and costs the host an exit, the early wakeup's interrupt and
 * an entry (HALTPOLL_HALT_COST_NS). The lead itself is no cost as long
 * as the early wakeup comes before the timer: the vCPU is halted while
 * the host is late, and the host has the CPU to itself. Below the lead
 * plus that cost, poll for the timer: a CPU paced by a short timer would
 * otherwise halt on almost every idle entry, paying the exit and the
 * early wakeup to save a poll shorter than both.
 *
 * Where the lead in use is capped at half the window, a timer past it
 * plus the cost is halted for too, though its early wakeup may come
 * after it: such a timer takes a halted wakeup's latency, the price of
 * the lateness samples that let a lead raised by a few late wakeups come
 * down again (haltpoll-timer-lead).
 *
 * Return: true if the halt saves more than it costs.
 */
static inline bool haltpoll_timer_halt_pays(u64 timer_ns, u64 lead_ns)
{
	return timer_ns > lead_ns + HALTPOLL_HALT_COST_NS;
}

/**
 * DOC: haltpoll-near-timer
 *
 * A CPU that sleeps on short timers of its own (a pacing loop, a periodic
 * thread) has idle periods of two kinds: those its timer ends, and those a
 * wakeup from elsewhere ends, such as a reply. One window serves both, and
 * they pull it apart: a reply coming shortly after a closed window opens
 * it, and the next timer period then polls the window in vain, halts, and
 * closes it again. Each opening is a wasted poll that never catches
 * anything: one poll of the window in vain per timer period. Linux 6.12
 * does the same.
 *
 * The governor knows when an hrtimer is due. Periods with one (other than
 * the tick) due past the window but within a tick get a 2-bit count of
 * their own: a wakeup before the timer sets it to its top, the timer
 * ending the period takes one from it (a halt the tick ended counts for
 * nothing), and while it is in its lower half such periods halt
 * instead of polling. The window itself learns from them as before: left
 * out, as early-woken halts are, they would leave the window open for the
 * wakeups between the timers, caught then at several times the poll time,
 * a trade guest_halt_poll_ns already offers. The
 * horizon of a tick keeps the count to the timers a workload sleeps on
 * between its wakeups, not those that only guard against a wakeup never
 * coming (a watchdog, a 10 ms timeout). Timer-wheel timers (msleep(),
 * schedule_timeout()) run from the tick and are not seen.
 */
#define HALTPOLL_NEAR_TIMER_TOP		3U

/**
 * haltpoll_near_timer_poll - whether to poll with a near timer due
 * @count: the CPU's count of near-timer periods
 *
 * Return: true if such periods have caught wakeups lately.
 */
static inline bool haltpoll_near_timer_poll(unsigned int count)
{
	return count > HALTPOLL_NEAR_TIMER_TOP / 2;
}

/**
 * haltpoll_near_timer_count - learn from a period with a near timer
 * @count: the CPU's count of near-timer periods
 * @woken: a wakeup, not the timer, ended the period
 *
 * Return: the new count.
 */
static inline unsigned int haltpoll_near_timer_count(unsigned int count,
						     bool woken)
{
	if (woken)
		return HALTPOLL_NEAR_TIMER_TOP;
	return count ? count - 1 : 0;
}

/**
 * DOC: haltpoll-timer-walk
 *
 * Finding the next timer takes the CPU's hrtimer base lock and walks its
 * queues on every idle entry of a CPU that polls, but the halt after a
 * poll that ran out, a cost paid on the path to every wakeup. A CPU whose
 * idle periods have no timer due within the window or a tick, whichever
 * is longer (request/response traffic with nothing else to do), has
 * nothing for the timer rules, or for the tick kept through a closed
 * window's halt, to act on. After
 * HALTPOLL_TIMER_WALK_MIN such walks in a row, walk only once in
 * HALTPOLL_TIMER_WALK_EVERY idle entries until a walk finds a timer
 * again. A timer queued in between is polled through, as Linux 6.12 does
 * for every timer, for at most that many idle periods; a CPU that sleeps
 * on timers of its own finds one on every other entry and never samples.
 */
#define HALTPOLL_TIMER_WALK_MIN		16U
#define HALTPOLL_TIMER_WALK_EVERY	8U

/**
 * haltpoll_timer_walk_due - whether this idle entry looks for the next timer
 * @timerless: idle entries since a walk last found a timer within the
 *	window or a tick
 *
 * Return: true if the entry must walk the hrtimer queues.
 */
static inline bool haltpoll_timer_walk_due(unsigned int timerless)
{
	/* haltpoll_timerless_next() keeps it below the last value. */
	return timerless < HALTPOLL_TIMER_WALK_MIN ||
	       timerless == HALTPOLL_TIMER_WALK_MIN + HALTPOLL_TIMER_WALK_EVERY - 1;
}

/**
 * haltpoll_timerless_next - count an idle entry for haltpoll_timer_walk_due()
 * @timerless: the count so far
 * @found: the entry walked and found a timer due within the window or a
 *	tick
 *
 * Return: the new count, kept below HALTPOLL_TIMER_WALK_MIN +
 * HALTPOLL_TIMER_WALK_EVERY without breaking its period.
 */
static inline unsigned int haltpoll_timerless_next(unsigned int timerless,
						   bool found)
{
	if (found)
		return 0;
	timerless++;
	if (timerless >= HALTPOLL_TIMER_WALK_MIN + HALTPOLL_TIMER_WALK_EVERY)
		timerless -= HALTPOLL_TIMER_WALK_EVERY;
	return timerless;
}

/**
 * DOC: haltpoll-recurring-wakeup
 *
 * Paced traffic wakes a CPU at a steady interval: a request every 300 us,
 * a frame every millisecond. An interval longer than the window is one the
 * window cannot catch: the CPU polls the window in vain and halts, and
 * takes the wakeup late, or, once the window has shrunk to 0, halts at
 * once. Yet the wakeup is as predictable as a timer.
 *
 * Per CPU, the governor measures the interval between the wakeups that end
 * idle periods (not the tick's, not its own early wakeups), its average
 * and average deviation with the lead's estimator (haltpoll-timer-lead),
 * starting from the first interval seen. After HALTPOLL_RECUR_MIN
 * intervals, while the deviation is at most 1/HALTPOLL_RECUR_JITTER of the
 * average, the next wakeup is expected at the last one plus the average,
 * and at the latest twice the deviation after that. An idle entry whose
 * latest expected time lies past the window is then treated as one with
 * a timer due at the expected time: it halts with an early wakeup a lead
 * (below) before it if the halt pays (haltpoll_wakeup_halt_pays()), else
 * polls at once, and polls until the latest expected time, never longer
 * than guest_halt_poll_ns; a wakeup earlier than the lead finds the CPU
 * halted. A wakeup expected inside the window is polled for at once: the
 * window reaches it from the start of the period. A timer due by the
 * latest expected time is left to the timer rules: it may be the very
 * wakeup expected (a CPU woken by its own periodic timer).
 * Menu's typical-interval detection looks at idle durations to pick a
 * state depth; this needs the wakeup's time, to place a poll before it.
 * An interval above HALTPOLL_RECUR_MAX_NS starts the measurement over:
 * wakeups that rare save little by a poll before each.
 * haltpoll_recur_counts() says which idle periods end on a wakeup.
 *
 * A deviation of up to a third of the interval lets the poll run up to
 * two thirds of an interval past the expected time, capped at
 * guest_halt_poll_ns. That takes in the CPU that answers a paced
 * request, whose wakeups carry the request's varying transit on top of
 * the pace, and still leaves out wakeups that come at random, whose
 * average deviation is about three quarters of their average interval.
 *
 * The lead before an expected wakeup is a timer's, the early wakeups'
 * average lateness plus twice its deviation, with that margin scaled down
 * by the interval's deviation (haltpoll_wakeup_lead_ns()). The margin is
 * for the lateness: it lets the early wakeup precede a timer on nearly
 * every halt. An expected wakeup comes anywhere within about the
 * interval's deviation of its time, so a microsecond of margin is a
 * microsecond more poll on every early wakeup, for the few wakeups that
 * fall in it, the fewer the wider they scatter. That pays while a halted
 * wakeup, priced as haltpoll-poll-ceiling prices it (the early wakeups'
 * average lateness plus HALTPOLL_HALT_COST_NS), is dear next to the
 * interval's deviation. The margin shrinks in proportion as that
 * deviation nears the price, the simplest ramp between the two ends, and
 * is gone once it reaches it: a wakeup as sharp as a timer gets a timer's
 * lead, one that scatters by as much as a halted wakeup costs the average
 * lateness alone.
 *
 * An interrupt that ends a halt and wakes no task counts as a wakeup: it
 * may be the request whose task runs later. When the next wakeup counted
 * is a task's, under 1/HALTPOLL_RECUR_SPLIT of the average interval after
 * the interrupt, the two are taken for one request, dated twice, and the
 * task's is left out: counted, its short interval and the long one after
 * it would break the recurrence for the next several periods. The
 * interrupt's date stands, the earlier and nearer the request's arrival.
 * Little is lost if they were two: an interval that short would break the
 * recurrence anyway. The two dates lie about the CPU's wakeup latency
 * apart (the interrupt's end is dated back by it, the task's wakeup in a
 * short period can be by little): at a pace under four times that, they
 * still count as two. A short interval after a task's wakeup still
 * counts: a CPU that sends a request on its timer and waits for the reply
 * wakes twice per period, and left out, the reply's wakeup would look
 * like the timer's, expected a period later, and not be polled for.
 */
#define HALTPOLL_RECUR_MIN	8U
#define HALTPOLL_RECUR_JITTER	3U
#define HALTPOLL_RECUR_SPLIT	4U
#define HALTPOLL_RECUR_MAX_NS	20000000ULL

/**
 * struct haltpoll_recurrence - the interval between a CPU's wakeups
 * @last_ns: time of the last wakeup, 0 for none yet
 * @interval: average interval and its average deviation
 * @seen: intervals measured, up to HALTPOLL_RECUR_MIN
 * @last_irq_only: the last wakeup was an interrupt that woke no task
 */
struct haltpoll_recurrence {
	u64 last_ns;
	struct haltpoll_lateness interval;
	unsigned int seen;
	bool last_irq_only;
};

/*
 * Whether a task's wakeup @interval_ns after an interrupt that woke no
 * task is that interrupt's request, dated twice (haltpoll-recurring-wakeup).
 */
static inline bool
haltpoll_recur_same_request(const struct haltpoll_recurrence *r,
			    u64 interval_ns, bool woke_task)
{
	return woke_task && r->last_irq_only && r->seen &&
	       interval_ns * HALTPOLL_RECUR_SPLIT < r->interval.avg_ns;
}

/**
 * haltpoll_recur_woken - note a wakeup that ended an idle period
 * @r: the CPU's recurrence
 * @now_ns: the time of the wakeup
 * @woke_task: a task was woken (else an interrupt ended a halt, no more)
 *
 * A wakeup dated at or before the last one changes nothing, nor does a
 * task's that is the last interrupt's request
 * (haltpoll_recur_same_request()).
 */
static inline void haltpoll_recur_woken(struct haltpoll_recurrence *r,
					u64 now_ns, bool woke_task)
{
	u64 interval_ns = now_ns - r->last_ns;

	/* A wakeup dated back past the last one is no interval. */
	if (r->last_ns && now_ns <= r->last_ns)
		return;
	if (haltpoll_recur_same_request(r, interval_ns, woke_task)) {
		r->last_irq_only = false;
		return;
	}
	if (!r->last_ns || interval_ns > HALTPOLL_RECUR_MAX_NS) {
		r->seen = 0;
	} else if (!r->seen) {
		r->interval.avg_ns = interval_ns;
		r->interval.dev_ns = interval_ns / 2;
		r->seen = 1;
	} else {
		haltpoll_lateness_add(&r->interval, interval_ns,
				      HALTPOLL_RECUR_MAX_NS);
		r->seen += r->seen < HALTPOLL_RECUR_MIN;
	}
	r->last_ns = now_ns;
	r->last_irq_only = !woke_task;
}

/**
 * haltpoll_recur_counts - whether an idle period ended on a wakeup to time
 * @halted: the period ended in the halt state
 * @got_tick: the tick ran during it
 * @early: the governor's early wakeup ended the halt
 * @resched: the idle loop is to reschedule (need_resched())
 *
 * An idle period ends when the CPU has something to run. A halt that the
 * tick or the early wakeup ended with nothing to run is not such an end:
 * the CPU goes back to idle, and the interval runs on. A halt at whose end
 * a task is to run is one, the tick run in it or not: that covers a task
 * woken by the tick's own work, and a wakeup that came before a tick on a
 * host that runs a halted vCPU late, where the tick falls into the delay
 * on some idle periods; left out, each of those would double an interval
 * and break the recurrence for the next several. An interrupt that woke no
 * task still counts only without the tick in the halt.
 *
 * Return: true if the period's end is a wakeup for the recurrence.
 */
static inline bool haltpoll_recur_counts(bool halted, bool got_tick,
					 bool early, bool resched)
{
	return resched || !(early || (halted && got_tick));
}

/**
 * haltpoll_recur_steady - whether a CPU's wakeups come at a steady interval
 * @r: the CPU's recurrence
 */
static inline bool haltpoll_recur_steady(const struct haltpoll_recurrence *r)
{
	return r->seen >= HALTPOLL_RECUR_MIN &&
	       r->interval.dev_ns * HALTPOLL_RECUR_JITTER <= r->interval.avg_ns;
}

/**
 * haltpoll_recur_expected - when the next wakeup is expected
 * @r: the CPU's recurrence
 * @now_ns: the current time
 * @due_ns: set to the time from now to the expected wakeup, 0 if past
 *
 * Return: the time from now to the latest the wakeup is expected, 0 for
 * no expected wakeup: the wakeups are not steady, or the latest time has
 * passed.
 */
static inline u64 haltpoll_recur_expected(const struct haltpoll_recurrence *r,
					  u64 now_ns, u64 *due_ns)
{
	u64 expected_ns = r->last_ns + r->interval.avg_ns;
	u64 latest_ns = expected_ns + 2 * r->interval.dev_ns;

	if (!haltpoll_recur_steady(r) || latest_ns <= now_ns)
		return 0;
	*due_ns = expected_ns > now_ns ? expected_ns - now_ns : 0;
	return latest_ns - now_ns;
}

/**
 * haltpoll_wakeup_lead_ns - how long before an expected wakeup to wake
 * @late: running lateness of the CPU's early wakeups
 * @interval_dev_ns: average deviation of the interval between its wakeups
 *
 * Return: the average of @late, plus twice its deviation times
 * (price - @interval_dev_ns) / price while @interval_dev_ns is under the
 * price, the average of @late plus HALTPOLL_HALT_COST_NS; at least
 * HALTPOLL_LEAD_MIN_NS (haltpoll-recurring-wakeup).
 */
static inline u64 haltpoll_wakeup_lead_ns(const struct haltpoll_lateness *late,
					  u64 interval_dev_ns)
{
	u64 price_ns = late->avg_ns + HALTPOLL_HALT_COST_NS;
	u64 lead_ns = late->avg_ns;

	if (interval_dev_ns < price_ns)
		lead_ns += div64_u64(2 * late->dev_ns *
				     (price_ns - interval_dev_ns), price_ns);
	return lead_ns < HALTPOLL_LEAD_MIN_NS ? HALTPOLL_LEAD_MIN_NS : lead_ns;
}

/**
 * haltpoll_wakeup_halt_pays - whether to halt for an expected wakeup
 * @due_ns: time to the expected wakeup
 * @lead_ns: the lead in use
 * @window_ns: the window in force
 * @max_ns: the longest poll allowed (guest_halt_poll_ns, capped)
 *
 * A wakeup expected inside the window is the window's to catch: a poll
 * from now reaches it, where a halt would give up those that come before
 * the lead. Otherwise as for a timer (haltpoll_timer_halt_pays()),
 * unless the wakeup is due past the longest poll: a poll would then run
 * out before it and halt, and the wakeup find the CPU halted all the
 * same. Halting at once costs a halted wakeup too, the early one (and
 * one more if the poll after it runs out), and saves the poll; the
 * wakeup finds the CPU polling when the early wakeup is in time. Where
 * halted wakeups come late, the lead can exceed an interval the window
 * cannot reach: under QEMU TCG, leads of 150 us and more would keep a
 * CPU woken every 300 us polling out its 200 us on most of its idle
 * periods.
 *
 * Return: true if halting until the lead before the wakeup beats polling.
 */
static inline bool haltpoll_wakeup_halt_pays(u64 due_ns, u64 lead_ns,
					     u64 window_ns, u64 max_ns)
{
	if (due_ns < window_ns)
		return false;
	/* due_ns > max_ns >= lead_ns; a shorter halt is not worth its timer. */
	if (due_ns > max_ns && due_ns - lead_ns >= HALTPOLL_LEAD_MIN_NS)
		return true;
	return haltpoll_timer_halt_pays(due_ns, lead_ns);
}

/**
 * DOC: haltpoll-poll-ceiling
 *
 * guest_halt_poll_ns bounds every poll, and the window grows to it for a
 * wakeup that came up to that long after the window closed. Whether the
 * last stretch of such a poll pays depends on the host and the load: a
 * wakeup it catches there saves the latency of a halted wakeup, and one
 * that comes later costs the host the whole stretch in vain. Where the
 * operator allows it (guest_halt_poll_learn_ceiling), each CPU learns a
 * ceiling of its own below guest_halt_poll_ns, in steps of
 * HALTPOLL_CEIL_NUM / HALTPOLL_CEIL_DEN, at most HALTPOLL_CEIL_LEVELS
 * steps down.
 *
 * Metrics, per CPU, over two bands of poll length: the top stretch below
 * the ceiling in force, from one step below it to it, and the stretch one
 * step above it. For each poll that could reach into a band (its limit
 * without the ceiling, the window or the time to an expected wakeup,
 * bounds what it could catch), from when its wakeup came after the poll
 * began:
 *
 * - gain_ns: for a wakeup inside the band, the latency a halted wakeup
 *   would have cost: the lateness of the CPU's early wakeups plus a halt's
 *   host cost (HALTPOLL_HALT_COST_NS).
 * - cost_ns: for a wakeup past the band, the poll time spent in it in
 *   vain: all of the band.
 *
 * The poll time a caught wakeup took in the band is not counted against
 * it: that is the price of its latency, which Linux 6.12 pays as well.
 * A poll cut off by the ceiling is followed by a halt, whose end dates
 * the wakeup, back by the same lateness, so the band above the ceiling
 * is measured as well as the one below: the same sums over the same idle
 * periods. A halt that ended with no task to run (the tick) says nothing
 * of a wakeup inside a band; it counts only as one past it.
 *
 * Procedure: every HALTPOLL_CEIL_POLLS such polls, raise the ceiling a
 * step if the band above it would have gained more than it cost; else
 * lower it a step if the top band cost more than it gained; else keep it,
 * and halve the sums, so that the next decision weighs these polls half
 * as much as its own. Raising comes first: wakeups just above the ceiling
 * leave nothing for the top band to catch. Poll time in vain and wakeup
 * latency weigh the same, a nanosecond of the host's for one of the
 * guest's. Linux 6.12 weighs latency above any poll time up to
 * guest_halt_poll_ns, and so does this governor unless told otherwise:
 * where halted wakeups come fast, the ceiling gives up catches of
 * wakeups that come at random for the poll time they cost.
 */
#define HALTPOLL_CEIL_NUM	3U
#define HALTPOLL_CEIL_DEN	5U
#define HALTPOLL_CEIL_LEVELS	4U
#define HALTPOLL_CEIL_POLLS	32U

/**
 * struct haltpoll_band - what polls gained and cost in a band of poll length
 * @gain_ns: halted wakeup latency the band's catches saved
 * @cost_ns: poll time the band spent, or would have, in vain
 */
struct haltpoll_band {
	u64 gain_ns;
	u64 cost_ns;
};

/**
 * struct haltpoll_ceiling - a CPU's learned poll ceiling
 * @below: the band from one step below the ceiling to it
 * @above: the band from the ceiling to one step above it
 * @level: steps below guest_halt_poll_ns, 0 to HALTPOLL_CEIL_LEVELS
 * @polls: polls added since the last decision
 */
struct haltpoll_ceiling {
	struct haltpoll_band below;
	struct haltpoll_band above;
	unsigned int level;
	unsigned int polls;
};

/* The ceiling one step below @ceil_ns. */
static inline u64 haltpoll_ceiling_step_down(u64 ceil_ns)
{
	return ceil_ns * HALTPOLL_CEIL_NUM / HALTPOLL_CEIL_DEN;
}

/**
 * haltpoll_ceiling_ns - the poll ceiling a number of steps below a limit
 * @level: steps below @max_ns
 * @max_ns: the largest poll, haltpoll_window_limit_ns()
 */
static inline u64 haltpoll_ceiling_ns(unsigned int level, u64 max_ns)
{
	while (level--)
		max_ns = haltpoll_ceiling_step_down(max_ns);
	return max_ns;
}

/**
 * haltpoll_band_add - add one poll's outcome to a band
 * @b: the band
 * @lo_ns: where the band begins, in time since the poll began
 * @hi_ns: where it ends, at most the poll's limit without the ceiling
 * @woke_ns: when the wakeup came, in time since the poll began
 * @dated: @woke_ns is a wakeup's time, not a tick's
 * @worth_ns: what a wakeup caught rather than halted for is worth
 */
static inline void haltpoll_band_add(struct haltpoll_band *b, u64 lo_ns,
				     u64 hi_ns, u64 woke_ns, bool dated,
				     u64 worth_ns)
{
	if (hi_ns <= lo_ns || woke_ns <= lo_ns)
		return;
	if (woke_ns > hi_ns)
		b->cost_ns += hi_ns - lo_ns;
	else if (dated)
		b->gain_ns += worth_ns;
}

/*
 * Halve what the bands hold after a decision that kept the ceiling: the
 * next one weighs this round's polls half as much as its own, so that
 * one round with a few more polls in vain than usual does not move it.
 */
static inline void haltpoll_ceiling_decay(struct haltpoll_ceiling *c)
{
	c->below.gain_ns /= 2;
	c->below.cost_ns /= 2;
	c->above.gain_ns /= 2;
	c->above.cost_ns /= 2;
	c->polls = 0;
}

/**
 * haltpoll_ceiling_add - learn from one poll and its wakeup
 * @c: the CPU's ceiling
 * @max_ns: the largest poll, haltpoll_window_limit_ns()
 * @limit_ns: the poll's limit without the ceiling
 * @woke_ns: when the wakeup came, in time since the poll began
 * @dated: @woke_ns is a wakeup's time, not a tick's
 * @worth_ns: the latency of a halted wakeup, plus a halt's host cost
 *
 * Every HALTPOLL_CEIL_POLLS polls that reach into a band, move the
 * ceiling a step (haltpoll-poll-ceiling).
 */
static inline void haltpoll_ceiling_add(struct haltpoll_ceiling *c,
					u64 max_ns, u64 limit_ns, u64 woke_ns,
					bool dated, u64 worth_ns)
{
	/* The band above is empty at guest_halt_poll_ns: high is ceil. */
	u64 high_ns = haltpoll_ceiling_ns(c->level ? c->level - 1 : 0, max_ns);
	u64 ceil_ns = c->level ? haltpoll_ceiling_step_down(high_ns) : high_ns;
	u64 low_ns = haltpoll_ceiling_step_down(ceil_ns);

	if (limit_ns <= low_ns)
		return;
	if (c->level < HALTPOLL_CEIL_LEVELS)
		haltpoll_band_add(&c->below, low_ns,
				  haltpoll_min_u64(limit_ns, ceil_ns),
				  woke_ns, dated, worth_ns);
	haltpoll_band_add(&c->above, ceil_ns,
			  haltpoll_min_u64(limit_ns, high_ns),
			  woke_ns, dated, worth_ns);
	if (++c->polls < HALTPOLL_CEIL_POLLS)
		return;
	/* Wakeups above the ceiling leave the top band nothing to catch. */
	if (c->level && c->above.gain_ns > c->above.cost_ns) {
		c->level--;
	} else if (c->below.cost_ns > c->below.gain_ns &&
		   c->level < HALTPOLL_CEIL_LEVELS) {
		c->level++;
	} else {
		haltpoll_ceiling_decay(c);
		return;
	}
	*c = (struct haltpoll_ceiling){ .level = c->level };
}

/**
 * haltpoll_keep_tick - whether a halt should leave the scheduler tick running
 * @polling: the CPU polls at all: guest_halt_poll_ns is not 0, and it has
 *	a poll state, enabled
 * @last_idle_ns: length of the previous idle period
 * @tick_ns: length of a tick period
 *
 * A CPU that does not poll halts on every idle entry, however short, and
 * stopping the tick and starting it again costs two clockevent programmings
 * per idle period, more than a short halt saves (it made the driver with
 * polling disabled slower than no driver at all). Like the generic idle
 * loop, which stops the tick only after an idle period the tick fired in,
 * keep it there unless the CPU was last idle for at least half a tick.
 *
 * A CPU that polls halts only when polling was not expected to pay: its
 * poll ran out, or its window is closed. Keeping the tick through those
 * halts measured worse than stopping it, as Linux 6.12 does: for wakeups a
 * window or a few apart, the CPU halted more often and woke later. Stop it;
 * the caller keeps it for a halt it knows a timer within a tick ends.
 *
 * Return: true if the halt should keep the tick.
 */
static inline bool haltpoll_keep_tick(bool polling, u64 last_idle_ns,
				      u64 tick_ns)
{
	return !polling && last_idle_ns < tick_ns / 2;
}

/**
 * DOC: haltpoll-host-preemption
 *
 * A polling vCPU stays runnable on the host, so it holds a host CPU for as
 * long as it polls, whether or not another task there wants that CPU; the
 * vCPU whose store would end the poll may be that task. KVM's own halt
 * polling on the host stops as soon as another task is runnable on its
 * CPU (single_task_running()); a guest cannot see the host's run queue.
 * It can see the host take the CPU from a poll: the poll state ends a poll
 * whose clock jumped between two of its reads and reports it in
 * dev->poll_preempted (drivers/cpuidle/poll_state.h).
 *
 * After such a poll, the CPU halts instead of polling for a hold: the host
 * then runs the other task, and a wakeup reaches the halted vCPU as an
 * interrupt. A host that preempts one poll in many is crowded all the
 * same: the polls it left alone held the CPU as long. So a poll the host
 * preempts within HALTPOLL_HOLD_RECENT_NS of the end of the last hold
 * doubles the hold, up to HALTPOLL_HOLD_MAX_NS, and one later starts over
 * at HALTPOLL_HOLD_MIN_NS: preemptions ten times a second or more mean a
 * crowded host; rarer ones, a passing spell (or a guest interrupt handler
 * that ran over the poll state's threshold), each of which costs a
 * millisecond of halts. The hold grows while preemptions keep coming
 * soon after each hold ends, and is never longer than a second once they
 * stop. The window keeps its own rules meanwhile, learning from the
 * halts.
 *
 * A host with nothing else to run preempts a poll now and then too: its
 * own threads (under an emulator, the one that fires the guest's timers)
 * need the CPU for a moment. A hold there only turns catches into halted
 * wakeups. So a preempted poll starts a hold only where such polls are
 * common: the share of the CPU's recent polls that the host preempted,
 * an average over about 1 << HALTPOLL_PREEMPT_SHIFT polls that counts
 * the poll just preempted, must exceed 1/HALTPOLL_PREEMPT_CROWDED. From
 * none, that takes three preempted polls in a row; polls preempted at a
 * steady one in twenty reach it. On the bench host (QEMU TCG, 2.4 ms
 * windows), the host preempted one poll in 150 to 340 with nothing else
 * to run, and one in 8 to 17 beside a CPU-bound task. The share ages by
 * polls, not by time: a CPU that stops polling keeps it, which costs at
 * most a hold that starts over, as a later preemption starts it.
 */
#define HALTPOLL_HOLD_MIN_NS		1000000ULL
#define HALTPOLL_HOLD_MAX_NS		1000000000ULL
#define HALTPOLL_HOLD_RECENT_NS		100000000ULL
#define HALTPOLL_PREEMPT_ONE		65536U
#define HALTPOLL_PREEMPT_SHIFT		5U
#define HALTPOLL_PREEMPT_CROWDED	16U

/**
 * haltpoll_preempt_share_next - the share of preempted polls after a poll
 * @share: the share so far, in 1/HALTPOLL_PREEMPT_ONE
 * @preempted: the host preempted this poll
 *
 * An exponential average: each poll weighs 1 / (1 << HALTPOLL_PREEMPT_SHIFT).
 * Rounded down, the decay stops a little above 0, far below the threshold.
 *
 * Return: the new share, at most HALTPOLL_PREEMPT_ONE.
 */
static inline unsigned int haltpoll_preempt_share_next(unsigned int share,
						       bool preempted)
{
	share -= share >> HALTPOLL_PREEMPT_SHIFT;
	if (preempted)
		share += HALTPOLL_PREEMPT_ONE >> HALTPOLL_PREEMPT_SHIFT;
	return share;
}

/* Whether @share says the host is crowded (haltpoll-host-preemption). */
static inline bool haltpoll_preempt_crowded(unsigned int share)
{
	return share * HALTPOLL_PREEMPT_CROWDED > HALTPOLL_PREEMPT_ONE;
}

/**
 * haltpoll_hold_next_ns - the hold after a preempted poll
 * @hold_ns: the last hold, 0 for none
 * @polled_ns: time from the end of the last hold to now
 *
 * See haltpoll-host-preemption.
 *
 * Return: the hold to halt for from now.
 */
static inline u64 haltpoll_hold_next_ns(u64 hold_ns, u64 polled_ns)
{
	if (polled_ns >= HALTPOLL_HOLD_RECENT_NS ||
	    hold_ns < HALTPOLL_HOLD_MIN_NS)
		return HALTPOLL_HOLD_MIN_NS;
	return hold_ns < HALTPOLL_HOLD_MAX_NS / 2 ? 2 * hold_ns :
						     HALTPOLL_HOLD_MAX_NS;
}

#endif /* _HALTPOLL_WINDOW_H */
