// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the haltpoll governor's decisions: the poll window
 * arithmetic, parameter validation, and the poll/halt and tick choices.
 * They exercise haltpoll_window.h, the very code the governor runs.
 */

#include <kunit/test.h>

#include "../haltpoll_window.h"

#define US	1000ULL
#define MS	1000000ULL

/* The defaults of Linux 6.12, and the SAP HANA tuning profile. */
static const struct haltpoll_params defaults = {
	.max_ns = 200 * US, .grow_start_ns = 50 * US,
	.grow = 2, .shrink = 2, .allow_shrink = true,
};

static const struct haltpoll_params sap_hana = {
	.max_ns = 2400 * US, .grow_start_ns = 2400 * US,
	.grow = 2, .shrink = 2, .allow_shrink = true,
};

static const struct haltpoll_params no_shrink = {
	.max_ns = 200 * US, .grow_start_ns = 50 * US,
	.grow = 2, .shrink = 2, .allow_shrink = false,
};

static const struct haltpoll_params reset_on_shrink = {
	.max_ns = 200 * US, .grow_start_ns = 50 * US,
	.grow = 2, .shrink = 0, .allow_shrink = true,
};

static const struct haltpoll_params huge_grow = {
	.max_ns = 10 * MS, .grow_start_ns = 1,
	.grow = 4294967295U, .shrink = 4294967295U, .allow_shrink = true,
};

static const struct haltpoll_params fixed_window = {
	.max_ns = 200 * US, .grow_start_ns = 100 * US,
	.grow = 1, .shrink = 2, .allow_shrink = true,
};

static const struct haltpoll_params grow_zero = {
	.max_ns = 200 * US, .grow_start_ns = 100 * US,
	.grow = 0, .shrink = 2, .allow_shrink = true,
};

/* An arm64 vendor guide's setting. */
static const struct haltpoll_params two_seconds = {
	.max_ns = 2000 * MS, .grow_start_ns = 50 * US,
	.grow = 2, .shrink = 2, .allow_shrink = false,
};

static const struct haltpoll_params polling_off = {
	.max_ns = 0, .grow_start_ns = 50 * US,
	.grow = 2, .shrink = 2, .allow_shrink = true,
};

struct window_case {
	const char *name;
	const struct haltpoll_params *params;
	u64 window_ns;
	u64 idle_ns;
	u64 expected_ns;
};

static const struct window_case window_cases[] = {
	{ "closed window opens at grow_start", &defaults, 0, 80 * US, 50 * US },
	{ "grow multiplies", &defaults, 50 * US, 90 * US, 100 * US },
	{ "grow stops at guest_halt_poll_ns", &defaults, 150 * US, 180 * US, 200 * US },
	{ "idle at the limit still grows", &defaults, 100 * US, 200 * US, 200 * US },
	{ "halt past the limit shrinks", &defaults, 200 * US, 401 * US, 100 * US },
	{ "halt within the limit grows, capped", &defaults, 200 * US, 250 * US, 200 * US },
	{ "halt at the limit still grows", &defaults, 100 * US, 300 * US, 200 * US },
	{ "a 50 us halt after a 100 us poll grows", &defaults, 100 * US, 150 * US, 200 * US },
	{ "shrink below grow_start drops to 0", &defaults, 50 * US, 5 * MS, 0 },
	{ "closed window stays closed on long idle", &defaults, 0, 5 * MS, 0 },
	{ "idle within the window teaches nothing", &defaults, 100 * US, 60 * US, 100 * US },
	{ "allow_shrink=N keeps the window", &no_shrink, 200 * US, 5 * MS, 200 * US },
	{ "shrink 0 resets", &reset_on_shrink, 200 * US, 5 * MS, 0 },
	{ "SAP profile opens at 2.4 ms", &sap_hana, 0, 1 * MS, 2400 * US },
	{ "SAP profile stays at 2.4 ms on a 3 ms idle", &sap_hana, 2400 * US, 3 * MS, 2400 * US },
	{ "SAP profile shrinks to 0", &sap_hana, 2400 * US, 5 * MS, 0 },
	{ "UINT_MAX grow is capped", &huge_grow, 8 * MS, 9 * MS, 10 * MS },
	{ "UINT_MAX grow from 0 opens at grow_start", &huge_grow, 0, 9 * MS, 1 },
	{ "UINT_MAX shrink drops to 0", &huge_grow, 10 * MS, 21 * MS, 0 },
	{ "grow 1 is a fixed window", &fixed_window, 100 * US, 150 * US, 100 * US },
	{ "grow 0 is a fixed window, as in 6.12", &grow_zero, 100 * US, 150 * US, 100 * US },
	{ "a 2 s window stops at the cap", &two_seconds, 10 * MS, 15 * MS, 10 * MS },
	{ "polling off never opens", &polling_off, 0, 10 * US, 0 },
	{ "lowered limit clamps the window", &polling_off, 100 * US, 150 * US, 0 },
};

static void haltpoll_window_next_test(struct kunit *test)
{
	const struct window_case *c;

	for (c = window_cases; c < window_cases + ARRAY_SIZE(window_cases); c++)
		KUNIT_EXPECT_EQ_MSG(test,
				    haltpoll_window_next(c->params, c->window_ns, c->idle_ns),
				    c->expected_ns, "case: %s", c->name);
}

/* Wakeups just after the window closes, within reach, open it to the limit. */
static void haltpoll_window_grows_to_limit_test(struct kunit *test)
{
	u64 window_ns = 0, prev_ns, idle_ns;
	int i;

	for (i = 0; i < 10; i++) {
		prev_ns = window_ns;
		idle_ns = min(window_ns + US, 200 * US);
		window_ns = haltpoll_window_next(&defaults, window_ns, idle_ns);
		KUNIT_EXPECT_GE(test, window_ns, prev_ns);
	}
	KUNIT_EXPECT_EQ(test, window_ns, 200 * US);
}

/* Idle periods no window can reach must close it. */
static void haltpoll_window_shrinks_to_zero_test(struct kunit *test)
{
	u64 window_ns = 200 * US, prev_ns;
	int i;

	for (i = 0; i < 10; i++) {
		prev_ns = window_ns;
		window_ns = haltpoll_window_next(&defaults, window_ns, 4 * MS);
		KUNIT_EXPECT_LE(test, window_ns, prev_ns);
	}
	KUNIT_EXPECT_EQ(test, window_ns, 0);
}

struct params_case {
	const char *name;
	struct haltpoll_params params;
	bool valid;
};

/* Every value Linux 6.12 took is valid, but grow_start 0. */
static const struct params_case params_cases[] = {
	{ "defaults", { 200 * US, 50 * US, 2, 2, true }, true },
	{ "SAP profile", { 2400 * US, 2400 * US, 2, 2, true }, true },
	{ "polling disabled", { 0, 50 * US, 2, 2, true }, true },
	{ "window at the cap", { 10 * MS, 50 * US, 2, 2, true }, true },
	{ "window above the cap", { 10 * MS + 1, 50 * US, 2, 2, true }, true },
	{ "2 s window", { 2000 * MS, 50 * US, 2, 2, false }, true },
	{ "grow_start above the cap", { 200 * US, 10 * MS + 1, 2, 2, true }, true },
	{ "grow_start above the window", { 200 * US, 400 * US, 2, 2, true }, true },
	{ "grow 0", { 200 * US, 50 * US, 0, 2, true }, true },
	{ "grow 1 with grow_start", { 200 * US, 50 * US, 1, 2, true }, true },
	{ "grow 1 without grow_start", { 200 * US, 0, 1, 2, true }, false },
	{ "grow 2 without grow_start", { 200 * US, 0, 2, 2, true }, false },
	{ "grow_start 1 ns", { 200 * US, 1, 2, 2, true }, true },
	{ "grow UINT_MAX", { 200 * US, 50 * US, 4294967295U, 2, true }, true },
	{ "shrink 0", { 200 * US, 50 * US, 2, 0, true }, true },
	{ "shrink UINT_MAX", { 200 * US, 50 * US, 2, 4294967295U, true }, true },
};

static void haltpoll_params_invalid_test(struct kunit *test)
{
	const struct params_case *c;

	for (c = params_cases; c < params_cases + ARRAY_SIZE(params_cases); c++)
		KUNIT_EXPECT_EQ_MSG(test, !haltpoll_params_invalid(&c->params),
				    c->valid, "case: %s", c->name);
}

struct select_case {
	const char *name;
	u64 window_ns;
	bool poll_timed_out;
	bool poll;
};

static const struct select_case select_cases[] = {
	{ "open window polls", 100 * US, false, true },
	{ "caught poll polls again", 100 * US, false, true },
	{ "timed-out poll halts", 100 * US, true, false },
	{ "closed window halts", 0, false, false },
	{ "closed window after timeout halts", 0, true, false },
};

static void haltpoll_should_poll_test(struct kunit *test)
{
	const struct select_case *c;

	for (c = select_cases; c < select_cases + ARRAY_SIZE(select_cases); c++)
		KUNIT_EXPECT_EQ_MSG(test,
				    haltpoll_should_poll(c->window_ns, c->poll_timed_out),
				    c->poll, "case: %s", c->name);
}

struct window_idle_case {
	const char *name;
	u64 window_ns;
	u64 poll_ns;
	u64 halt_ns;
	u64 idle_ns;		/* as the window sees it */
	u64 next_window_ns;	/* with the defaults */
};

static const struct window_idle_case window_idle_cases[] = {
	{ "no poll: the halt", 0, 0, 150 * US, 150 * US, 50 * US },
	{ "poll ended on time", 100 * US, 100 * US, 150 * US, 250 * US,
	  200 * US },
	/* From the window's nominal end it came 230 us after: shrink. */
	{ "poll ran 80 us past: measured from its end", 100 * US, 180 * US,
	  150 * US, 250 * US, 200 * US },
	{ "long halt after an overrun still shrinks", 100 * US, 180 * US,
	  300 * US, 400 * US, 50 * US },
	{ "poll cut short by a timer", 200 * US, 60 * US, 50 * US, 110 * US,
	  200 * US },
};

/* A poll that overran its window: the window closed when the poll ended. */
static void haltpoll_idle_for_window_test(struct kunit *test)
{
	const struct window_idle_case *c;
	u64 idle_ns;

	for (c = window_idle_cases;
	     c < window_idle_cases + ARRAY_SIZE(window_idle_cases); c++) {
		idle_ns = haltpoll_idle_for_window(c->window_ns, c->poll_ns,
						   c->halt_ns);
		KUNIT_EXPECT_EQ_MSG(test, idle_ns, c->idle_ns, "case: %s",
				    c->name);
		KUNIT_EXPECT_EQ_MSG(test,
				    haltpoll_window_next(&defaults, c->window_ns,
							 idle_ns),
				    c->next_window_ns, "case: %s", c->name);
	}
}

struct near_timer_case {
	const char *name;
	unsigned int count;
	bool woken;
	unsigned int next;
	bool poll;		/* with the next count */
};

static const struct near_timer_case near_timer_cases[] = {
	{ "a fresh CPU polls, one miss keeps it polling", 3, false, 2, true },
	{ "two misses in a row halt", 2, false, 1, false },
	{ "misses bottom out", 0, false, 0, false },
	{ "one catch polls again at once", 0, true, 3, true },
	{ "a catch tops the count", 2, true, 3, true },
};

static void haltpoll_near_timer_test(struct kunit *test)
{
	const struct near_timer_case *c;
	unsigned int next;

	for (c = near_timer_cases;
	     c < near_timer_cases + ARRAY_SIZE(near_timer_cases); c++) {
		next = haltpoll_near_timer_count(c->count, c->woken);
		KUNIT_EXPECT_EQ_MSG(test, next, c->next, "case: %s", c->name);
		KUNIT_EXPECT_EQ_MSG(test, haltpoll_near_timer_poll(next), c->poll,
				    "case: %s", c->name);
	}
}

struct tick_case {
	const char *name;
	bool polling;
	u64 last_idle_ns;
	bool keep;
};

/* With a 4 ms tick (HZ=250). */
static const struct tick_case tick_cases[] = {
	{ "not polling, short idle keeps the tick", false, 30 * US, true },
	{ "not polling, no idle yet keeps the tick", false, 0, true },
	{ "not polling, just under half a tick keeps it", false, 2 * MS - 1, true },
	{ "not polling, half a tick stops it", false, 2 * MS, false },
	{ "not polling, long idle stops it", false, 1000 * MS, false },
	{ "polling, short idle stops it", true, 30 * US, false },
	{ "polling, no idle yet stops it", true, 0, false },
	{ "polling, long idle stops it", true, 1000 * MS, false },
};

static void haltpoll_keep_tick_test(struct kunit *test)
{
	const struct tick_case *c;
	bool keep;

	for (c = tick_cases; c < tick_cases + ARRAY_SIZE(tick_cases); c++) {
		keep = haltpoll_keep_tick(c->polling, c->last_idle_ns, 4 * MS);
		KUNIT_EXPECT_EQ_MSG(test, keep, c->keep, "case: %s", c->name);
	}
}

struct halt_pays_case {
	const char *name;
	u64 timer_ns;
	u64 lead_ns;
	bool pays;
};

static const struct halt_pays_case halt_pays_cases[] = {
	{ "far timer, short lead (KVM)", 150 * US, 15 * US, true },
	{ "timer at the lead plus a halt's cost",
	  100 * US + HALTPOLL_HALT_COST_NS, 100 * US, false },
	{ "timer just past the lead plus a halt's cost",
	  100 * US + HALTPOLL_HALT_COST_NS + 1, 100 * US, true },
	{ "a late host's lead is no cost: timer under twice the lead",
	  150 * US, 100 * US, true },
	{ "short timer, shortest lead: the halt costs more than it saves",
	  HALTPOLL_HALT_COST_NS, HALTPOLL_LEAD_MIN_NS, false },
	{ "timer within the lead (slow host)", 60 * US, 100 * US, false },
	{ "timer due now", 0, HALTPOLL_LEAD_MIN_NS, false },
};

/*
 * A halt for a timer pays only when the poll it saves, up to the lead
 * before the timer, is longer than what the halt costs the host.
 */
static void haltpoll_timer_halt_pays_test(struct kunit *test)
{
	const struct halt_pays_case *c;

	for (c = halt_pays_cases;
	     c < halt_pays_cases + ARRAY_SIZE(halt_pays_cases); c++)
		KUNIT_EXPECT_EQ_MSG(test,
				    haltpoll_timer_halt_pays(c->timer_ns, c->lead_ns),
				    c->pays, "case: %s", c->name);
}

struct wakeup_pays_case {
	const char *name;
	u64 due_ns;
	u64 lead_ns;
	u64 window_ns;
	u64 max_ns;
	bool pays;
};

static const struct wakeup_pays_case wakeup_pays_cases[] = {
	{ "far wakeup, short lead (KVM)", 150 * US, 15 * US, 0, 200 * US,
	  true },
	{ "past the lead plus a halt's cost, under twice the lead", 150 * US,
	  100 * US, 0, 200 * US, true },
	{ "within the lead plus a halt's cost, poll reaches it", 110 * US,
	  100 * US, 0, 200 * US, false },
	{ "within the lead plus a halt's cost, poll runs out first", 210 * US,
	  195 * US, 0, 200 * US, true },
	{ "due at the poll's end", 200 * US, 190 * US, 0, 200 * US, false },
	{ "due just past the poll's end", 200 * US + 1, 190 * US, 0, 200 * US,
	  true },
	{ "past the poll's end, less than the minimum lead past the lead",
	  200 * US + 1, 200 * US, 0, 200 * US, false },
	{ "expected inside the window", 150 * US, 15 * US, 200 * US, 200 * US,
	  false },
	{ "expected at the window's end", 200 * US, 15 * US, 200 * US,
	  200 * US, true },
	{ "due now", 0, HALTPOLL_LEAD_MIN_NS, 0, 200 * US, false },
};

/*
 * A halt for an expected wakeup pays as one for a timer, or whenever the
 * poll would run out before the wakeup, but never for one the window
 * reaches.
 */
static void haltpoll_wakeup_halt_pays_test(struct kunit *test)
{
	const struct wakeup_pays_case *c;

	for (c = wakeup_pays_cases;
	     c < wakeup_pays_cases + ARRAY_SIZE(wakeup_pays_cases); c++)
		KUNIT_EXPECT_EQ_MSG(test,
				    haltpoll_wakeup_halt_pays(c->due_ns,
							      c->lead_ns,
							      c->window_ns,
							      c->max_ns),
				    c->pays, "case: %s", c->name);
}

struct timer_case {
	const char *name;
	u64 window_ns;
	u64 timer_ns;
	bool timer_first;
};

static const struct timer_case timer_cases[] = {
	{ "timer inside the window", 200 * US, 50 * US, true },
	{ "timer past the window", 100 * US, 4 * MS, false },
	{ "timer at the window's end", 100 * US, 100 * US, false },
	{ "timer already due", 100 * US, 0, true },
};

/* Which timers end the window's poll early. */
static void haltpoll_timer_first_test(struct kunit *test)
{
	const struct timer_case *c;

	for (c = timer_cases; c < timer_cases + ARRAY_SIZE(timer_cases); c++)
		KUNIT_EXPECT_EQ_MSG(test, haltpoll_timer_first(c->window_ns, c->timer_ns),
				    c->timer_first, "case: %s", c->name);
}

struct lead_case {
	const char *name;
	s64 late_ns[2];		/* fed in turn, alternating */
	int samples;
	u64 max_ns;
	u64 lead_min_ns;	/* the lead after the samples, within */
	u64 lead_max_ns;
};

static const struct lead_case lead_cases[] = {
	{ "no sample: the minimum", { 0, 0 }, 0, 200 * US,
	  HALTPOLL_LEAD_MIN_NS, HALTPOLL_LEAD_MIN_NS },
	{ "steady 10 us: about 10 us", { 10 * US, 10 * US }, 200, 200 * US,
	  10 * US - 100, 10 * US + 100 },
	{ "5 and 15 us: the spread doubles the lead", { 5 * US, 15 * US }, 200,
	  200 * US, 17 * US, 23 * US },
	{ "early wakeups count as on time", { -5 * US, -5 * US }, 200, 200 * US,
	  HALTPOLL_LEAD_MIN_NS, HALTPOLL_LEAD_MIN_NS },
	{ "1 s descheduled counts as max_ns", { 1000 * MS, 1000 * MS }, 1, 200 * US,
	  200 * US / 8 + 2 * (200 * US / 4) - 1, 200 * US / 8 + 2 * (200 * US / 4) },
};

/* The lead an early wakeup takes, from the lateness of those before it. */
static void haltpoll_lead_test(struct kunit *test)
{
	const struct lead_case *c;

	for (c = lead_cases; c < lead_cases + ARRAY_SIZE(lead_cases); c++) {
		struct haltpoll_lateness l = { };
		int i;

		for (i = 0; i < c->samples; i++)
			haltpoll_lateness_add(&l, c->late_ns[i % 2], c->max_ns);
		KUNIT_EXPECT_GE_MSG(test, haltpoll_lead_ns(&l), c->lead_min_ns,
				    "case: %s", c->name);
		KUNIT_EXPECT_LE_MSG(test, haltpoll_lead_ns(&l), c->lead_max_ns,
				    "case: %s", c->name);
	}
}

/* A wakeup later than the lead expected must raise it, an earlier one lower it. */
static void haltpoll_lead_follows_lateness_test(struct kunit *test)
{
	struct haltpoll_lateness l = { };
	u64 before_ns;
	int i;

	for (i = 0; i < 100; i++)
		haltpoll_lateness_add(&l, 20 * US, 200 * US);
	before_ns = haltpoll_lead_ns(&l);
	haltpoll_lateness_add(&l, 80 * US, 200 * US);
	KUNIT_EXPECT_GT(test, haltpoll_lead_ns(&l), before_ns);
	for (i = 0; i < 100; i++)
		haltpoll_lateness_add(&l, 5 * US, 200 * US);
	KUNIT_EXPECT_LT(test, haltpoll_lead_ns(&l), before_ns);
}

struct timer_lead_case {
	const char *name;
	struct haltpoll_lateness halted;
	struct haltpoll_lateness polled;
	u64 expected_ns;
};

static const struct timer_lead_case timer_lead_cases[] = {
	{ "nothing polled: the halted lead", { 100 * US, 10 * US }, { },
	  120 * US },
	{ "KVM: polled timers on time, the halted lead", { 30 * US, 5 * US },
	  { 1 * US, 1 * US }, 39 * US },
	{ "polling buys the difference", { 100 * US, 10 * US },
	  { 80 * US, 30 * US }, 40 * US },
	{ "TCG: as late polled as halted, the minimum", { 75 * US, 20 * US },
	  { 115 * US, 20 * US }, HALTPOLL_LEAD_MIN_NS },
	{ "just above the minimum", { 100 * US, 0 },
	  { 100 * US - HALTPOLL_LEAD_MIN_NS - 1, 0 }, HALTPOLL_LEAD_MIN_NS + 1 },
};

/* The lead before a timer, less what a polled timer's lateness leaves. */
static void haltpoll_timer_lead_test(struct kunit *test)
{
	const struct timer_lead_case *c;

	for (c = timer_lead_cases;
	     c < timer_lead_cases + ARRAY_SIZE(timer_lead_cases); c++)
		KUNIT_EXPECT_EQ_MSG(test,
				    haltpoll_timer_lead_ns(&c->halted, &c->polled),
				    c->expected_ns, "case: %s", c->name);
}

struct wakeup_lead_case {
	const char *name;
	struct haltpoll_lateness late;
	u64 interval_dev_ns;
	u64 expected_ns;
};

static const struct wakeup_lead_case wakeup_lead_cases[] = {
	{ "no sample: the minimum", { }, 0, HALTPOLL_LEAD_MIN_NS },
	{ "no deviation: the average", { 100 * US, 0 }, 0, 100 * US },
	{ "as sharp as a timer: a timer's lead", { 20 * US, 5 * US }, 0,
	  30 * US },
	{ "KVM, 1 us either way: about a timer's lead", { 20 * US, 5 * US },
	  1 * US, 20 * US + 10 * US * 39 / 40 },
	{ "half the price: half the margin", { 100 * US, 20 * US }, 60 * US,
	  120 * US },
	{ "at the price: the average", { 100 * US, 40 * US }, 120 * US,
	  100 * US },
	{ "past the price: the average", { 100 * US, 40 * US }, 300 * US,
	  100 * US },
	{ "TCG, 1000 us pace: an eighth of the margin", { 148 * US, 61 * US },
	  147 * US, 148 * US + 122 * US / 8 },
	{ "average under the minimum", { 1 * US, 0 }, 0, HALTPOLL_LEAD_MIN_NS },
};

/* The lead before an expected wakeup, its margin as sharp as the wakeup. */
static void haltpoll_wakeup_lead_test(struct kunit *test)
{
	const struct wakeup_lead_case *c;

	for (c = wakeup_lead_cases;
	     c < wakeup_lead_cases + ARRAY_SIZE(wakeup_lead_cases); c++)
		KUNIT_EXPECT_EQ_MSG(test,
				    haltpoll_wakeup_lead_ns(&c->late,
							    c->interval_dev_ns),
				    c->expected_ns, "case: %s", c->name);
}

struct lead_use_case {
	const char *name;
	u64 lead_ns;
	u64 window_ns;
	u64 expected_ns;
};

static const struct lead_use_case lead_use_cases[] = {
	{ "short lead as is", 20 * US, 200 * US, 20 * US },
	{ "long lead: half the window", 150 * US, 200 * US, 100 * US },
	{ "SAP window leaves a long lead", 800 * US, 2400 * US, 800 * US },
	{ "closed window, no lead", 20 * US, 0, 0 },
};

static void haltpoll_lead_in_use_test(struct kunit *test)
{
	const struct lead_use_case *c;

	for (c = lead_use_cases; c < lead_use_cases + ARRAY_SIZE(lead_use_cases); c++)
		KUNIT_EXPECT_EQ_MSG(test, haltpoll_lead_in_use(c->lead_ns, c->window_ns),
				    c->expected_ns, "case: %s", c->name);
}

/*
 * The timer walk count over a run of idle entries: every entry walks
 * until HALTPOLL_TIMER_WALK_MIN found nothing, then one in
 * HALTPOLL_TIMER_WALK_EVERY, for ever, until a walk finds a timer.
 */
static void haltpoll_timer_walk_test(struct kunit *test)
{
	unsigned int timerless = 0, walks = 0, i;

	for (i = 0; i < HALTPOLL_TIMER_WALK_MIN; i++) {
		KUNIT_EXPECT_TRUE(test, haltpoll_timer_walk_due(timerless));
		timerless = haltpoll_timerless_next(timerless, false);
	}
	for (i = 0; i < 1000 * HALTPOLL_TIMER_WALK_EVERY; i++) {
		walks += haltpoll_timer_walk_due(timerless);
		timerless = haltpoll_timerless_next(timerless, false);
		KUNIT_ASSERT_LT(test, timerless,
				HALTPOLL_TIMER_WALK_MIN + HALTPOLL_TIMER_WALK_EVERY);
	}
	KUNIT_EXPECT_EQ(test, walks, 1000);
	/* A timer found starts the count again: every entry walks. */
	timerless = haltpoll_timerless_next(timerless, true);
	KUNIT_EXPECT_EQ(test, timerless, 0);
	KUNIT_EXPECT_TRUE(test, haltpoll_timer_walk_due(timerless));
	KUNIT_EXPECT_TRUE(test, haltpoll_timer_walk_due(1));
}

struct recur_case {
	const char *name;
	u64 interval_ns[2];	/* fed in turn, alternating */
	int intervals;
	u64 last_ns;		/* one more interval, 0 for none */
	u64 since_ns;		/* from the last wakeup to the question */
	bool steady;
	u64 due_ns;		/* expected: time to the wakeup */
	u64 latest_ns;		/* and to the latest, 0 for none */
	u64 slack_ns;		/* either within */
	bool no_task[2];	/* interval ends on an interrupt, no task */
};

/*
 * The first interval sets the deviation to half of itself, each equal one
 * after it takes a quarter off: 20 us after eight intervals of 300 us, so
 * the latest comes 40 us after the due time. A task's wakeup under a
 * quarter interval after an interrupt's is left out: the times are then
 * counted from the interrupt.
 */
static const struct recur_case recur_cases[] = {
	{ "one wakeup: nothing expected", { 0, 0 }, 0, 0, 0, false, 0, 0, 0 },
	{ "seven intervals are too few", { 300 * US, 300 * US }, 7, 0, 20 * US,
	  false, 0, 0, 0 },
	{ "eight steady 300 us: due 300 us after the last", { 300 * US, 300 * US },
	  8, 0, 20 * US, true, 280 * US, 320 * US, 1 * US },
	{ "200 and 400 us: too much jitter (dev 0.35 of the average)",
	  { 200 * US, 400 * US }, 40, 0, 20 * US, false, 0, 0, 0 },
	{ "210 and 390 us: steady (dev 96 us, 0.31), latest 192 us after due",
	  { 210 * US, 390 * US }, 40, 0, 0, true, 306 * US, 498 * US, 1 * US },
	{ "235 and 365 us: steady (dev 69 us, 0.23), latest 139 us after due",
	  { 235 * US, 365 * US }, 41, 0, 0, true, 295 * US, 434 * US, 1 * US },
	{ "290 and 310 us: steady about 300 us", { 290 * US, 310 * US }, 41, 0,
	  0, true, 300 * US, 321 * US, 1 * US },
	{ "past the due time: due now, latest ahead", { 290 * US, 310 * US }, 41, 0,
	  305 * US, true, 0, 15 * US, 1 * US },
	{ "past the latest: nothing expected", { 300 * US, 300 * US }, 20, 0,
	  400 * US, true, 0, 0, 0 },
	{ "an interval past the cap starts over", { 300 * US, 300 * US }, 20,
	  HALTPOLL_RECUR_MAX_NS + 1, 20 * US, false, 0, 0, 0 },
	{ "up to the cap (20 ms, 50 Hz) is an interval", { 20 * MS, 20 * MS }, 8,
	  0, 0, true, 20 * MS, 22670 * US, 1 * US },
	{ "an interrupt, its task 30 us on: steady 300 us from the interrupt",
	  { 270 * US, 30 * US }, 40, 0, 0, true, 268 * US, 278 * US, 1 * US,
	  { true, false } },
	{ "a task, another 30 us on: both count, too much jitter",
	  { 270 * US, 30 * US }, 40, 0, 0, false, 0, 0, 0 },
	{ "an interrupt, another 30 us on: both count, too much jitter",
	  { 270 * US, 30 * US }, 40, 0, 0, false, 0, 0, 0, { true, true } },
	{ "a task 74.999 us after an interrupt, under a quarter: left out",
	  { 300 * US, 300 * US }, 20, 74999, 0, true, 225 * US, 226 * US,
	  1 * US, { true, true } },
	{ "a task 75 us after an interrupt, a quarter interval: an interval",
	  { 300 * US, 300 * US }, 20, 75 * US, 0, true, 272 * US, 385 * US,
	  1 * US, { true, true } },
};

static void expect_within(struct kunit *test, u64 value, u64 expected,
			  u64 slack, const char *name)
{
	KUNIT_EXPECT_GE_MSG(test, value, expected > slack ? expected - slack : 0,
			    "case: %s", name);
	KUNIT_EXPECT_LE_MSG(test, value, expected + slack, "case: %s", name);
}

/*
 * The wakeup the recurrence expects (haltpoll-recurring-wakeup), from
 * wakeups at the given intervals.
 */
static void haltpoll_recurrence_test(struct kunit *test)
{
	const struct recur_case *c;

	for (c = recur_cases; c < recur_cases + ARRAY_SIZE(recur_cases); c++) {
		struct haltpoll_recurrence r = { };
		u64 now_ns = 1 * MS, due_ns = U64_MAX, latest_ns;
		int i;

		haltpoll_recur_woken(&r, now_ns, true);
		for (i = 0; i < c->intervals; i++) {
			now_ns += c->interval_ns[i % 2];
			haltpoll_recur_woken(&r, now_ns, !c->no_task[i % 2]);
		}
		if (c->last_ns) {
			now_ns += c->last_ns;
			haltpoll_recur_woken(&r, now_ns, true);
		}
		/* A wakeup dated back past the last one changes nothing. */
		haltpoll_recur_woken(&r, r.last_ns - 1, true);
		KUNIT_EXPECT_EQ_MSG(test, haltpoll_recur_steady(&r), c->steady,
				    "case: %s", c->name);
		latest_ns = haltpoll_recur_expected(&r, now_ns + c->since_ns,
						    &due_ns);
		expect_within(test, latest_ns, c->latest_ns, c->slack_ns, c->name);
		if (c->latest_ns)
			expect_within(test, due_ns, c->due_ns, c->slack_ns,
				      c->name);
	}
}

struct recur_gate_case {
	const char *name;
	u64 avg_ns;
	u64 dev_ns;
	unsigned int seen;
	bool steady;
};

/*
 * The gate alone, at its bound: steady from HALTPOLL_RECUR_MIN intervals
 * on, while the deviation is at most a third of the average.
 */
static const struct recur_gate_case recur_gate_cases[] = {
	{ "a third of 300 us: steady", 300 * US, 100 * US, HALTPOLL_RECUR_MIN,
	  true },
	{ "a third and 1 ns: not steady", 300 * US, 100 * US + 1,
	  HALTPOLL_RECUR_MIN, false },
	{ "a quarter: steady", 300 * US, 75 * US, HALTPOLL_RECUR_MIN, true },
	{ "no deviation, one interval too few", 300 * US, 0,
	  HALTPOLL_RECUR_MIN - 1, false },
};

static void haltpoll_recur_steady_test(struct kunit *test)
{
	const struct recur_gate_case *c;

	for (c = recur_gate_cases;
	     c < recur_gate_cases + ARRAY_SIZE(recur_gate_cases); c++) {
		struct haltpoll_recurrence r = {
			.interval = { .avg_ns = c->avg_ns, .dev_ns = c->dev_ns },
			.seen = c->seen,
		};

		KUNIT_EXPECT_EQ_MSG(test, haltpoll_recur_steady(&r), c->steady,
				    "case: %s", c->name);
	}
}

struct counts_case {
	const char *name;
	bool halted;
	bool got_tick;
	bool early;
	bool resched;
	bool counts;
};

/*
 * A poll ends only with something to run or at its limit, and one that
 * timed out never gets here (haltpoll_reflect() returns first; a wakeup
 * in the gap after it is haltpoll_select_recurring_edges_test()'s).
 */
static const struct counts_case counts_cases[] = {
	{ "a poll that caught a wakeup", false, false, false, true, true },
	{ "a halt a task's wakeup ended", true, false, false, true, true },
	{ "a halt an interrupt ended, nothing to run", true, false, false,
	  false, true },
	{ "a halt the tick ended, nothing to run", true, true, false, false,
	  false },
	{ "a halt the early wakeup ended, nothing to run", true, false, true,
	  false, false },
	{ "a halt the early wakeup ended, a wakeup pending", true, false, true,
	  true, true },
	{ "a task to run and the tick in the halt (woken late, or by the tick)",
	  true, true, false, true, true },
	{ "the early wakeup and the tick, nothing to run", true, true, true,
	  false, false },
	{ "the early wakeup, the tick and a task to run", true, true, true,
	  true, true },
};

/* Which idle periods end on a wakeup haltpoll-recurring-wakeup times. */
static void haltpoll_recur_counts_test(struct kunit *test)
{
	const struct counts_case *c;

	for (c = counts_cases; c < counts_cases + ARRAY_SIZE(counts_cases); c++)
		KUNIT_EXPECT_EQ_MSG(test,
				    haltpoll_recur_counts(c->halted, c->got_tick,
							  c->early, c->resched),
				    c->counts, "case: %s", c->name);
}

struct band_case {
	const char *name;
	u64 lo_ns, hi_ns, woke_ns;
	bool dated;
	u64 gain_ns, cost_ns;
};

/* One poll's outcome in the band from 120 to 200 us, a catch worth 150 us. */
static const struct band_case band_cases[] = {
	{ "woken before the band", 120 * US, 200 * US, 100 * US, true, 0, 0 },
	{ "woken at its start", 120 * US, 200 * US, 120 * US, true, 0, 0 },
	{ "woken inside it", 120 * US, 200 * US, 150 * US, true, 150 * US, 0 },
	{ "woken at its end", 120 * US, 200 * US, 200 * US, true, 150 * US, 0 },
	{ "woken past it", 120 * US, 200 * US, 350 * US, true, 0, 80 * US },
	{ "a tick inside it dates no wakeup", 120 * US, 200 * US, 150 * US,
	  false, 0, 0 },
	{ "a tick past it: the band polled in vain", 120 * US, 200 * US,
	  350 * US, false, 0, 80 * US },
	{ "an empty band", 200 * US, 200 * US, 350 * US, true, 0, 0 },
	{ "a band a poll's limit cuts off", 120 * US, 100 * US, 350 * US,
	  true, 0, 0 },
};

static void haltpoll_band_add_test(struct kunit *test)
{
	const struct band_case *c;

	for (c = band_cases; c < band_cases + ARRAY_SIZE(band_cases); c++) {
		struct haltpoll_band b = { };

		haltpoll_band_add(&b, c->lo_ns, c->hi_ns, c->woke_ns, c->dated,
				  150 * US);
		KUNIT_EXPECT_EQ_MSG(test, b.gain_ns, c->gain_ns, "case: %s",
				    c->name);
		KUNIT_EXPECT_EQ_MSG(test, b.cost_ns, c->cost_ns, "case: %s",
				    c->name);
	}
}

struct ceiling_ns_case {
	unsigned int level;
	u64 max_ns;
	u64 ceiling_ns;
};

static const struct ceiling_ns_case ceiling_ns_cases[] = {
	{ 0, 200 * US, 200 * US },
	{ 1, 200 * US, 120 * US },
	{ 2, 200 * US, 72 * US },
	{ 4, 200 * US, 25920 },
	{ 1, 2400 * US, 1440 * US },
	{ 3, 0, 0 },
};

static void haltpoll_ceiling_ns_test(struct kunit *test)
{
	const struct ceiling_ns_case *c;

	for (c = ceiling_ns_cases;
	     c < ceiling_ns_cases + ARRAY_SIZE(ceiling_ns_cases); c++)
		KUNIT_EXPECT_EQ_MSG(test, haltpoll_ceiling_ns(c->level, c->max_ns),
				    c->ceiling_ns, "level %u of %llu ns",
				    c->level, c->max_ns);
}

/* @n polls of one kind: when their wakeup came, and whether it was dated. */
struct ceiling_polls {
	unsigned int n;
	u64 woke_ns;
	bool dated;
};

struct ceiling_case {
	const char *name;
	unsigned int level;	/* to start from */
	u64 limit_ns;		/* the polls' limit without the ceiling */
	u64 worth_ns;		/* a halted wakeup's latency and host cost */
	struct ceiling_polls a, b;
	unsigned int next_level;
};

/*
 * guest_halt_poll_ns 200 us: the ceiling steps 200, 120, 72, 43.2 and
 * 25.92 us. A poll woken at 350 us costs each band all of it; one woken at
 * 150 us gains its worth in the band from 120 to 200 us.
 */
static const struct ceiling_case ceiling_cases[] = {
	{ "polls that all run out lower it", 0, 200 * US, 150 * US,
	  { 32, 350 * US, true }, { }, 1 },
	{ "no decision before 32 polls", 0, 200 * US, 150 * US,
	  { 31, 350 * US, true }, { }, 0 },
	{ "catches in the top band keep it", 0, 200 * US, 150 * US,
	  { 32, 150 * US, true }, { }, 0 },
	{ "catches keep it, however little they are worth", 0, 200 * US,
	  1, { 32, 150 * US, true }, { }, 0 },
	{ "cheap catches do not pay for the polls in vain", 0, 200 * US,
	  20 * US, { 8, 150 * US, true }, { 24, 350 * US, true }, 1 },
	{ "a catch in four does not pay for three in vain", 0, 200 * US,
	  150 * US, { 8, 150 * US, true }, { 24, 350 * US, true }, 1 },
	{ "a catch in two pays for one in vain", 0, 200 * US, 150 * US,
	  { 16, 150 * US, true }, { 16, 350 * US, true }, 0 },
	{ "halted wakeups just past a lowered ceiling raise it", 1, 200 * US,
	  150 * US, { 32, 150 * US, true }, { }, 0 },
	{ "a wakeup in four past a lowered ceiling does not raise it", 1,
	  200 * US, 150 * US, { 8, 150 * US, true }, { 24, 350 * US, true },
	  2 },
	{ "ticks past a lowered ceiling lower it again", 1, 200 * US,
	  150 * US, { 32, 150 * US, false }, { }, 2 },
	{ "a round in vain after a round of catches worth more keeps it", 0,
	  200 * US, 200 * US, { 32, 150 * US, true }, { 32, 350 * US, true },
	  0 },
	{ "the catches of the round before count half", 0, 200 * US,
	  100 * US, { 32, 150 * US, true }, { 32, 350 * US, true }, 1 },
	{ "it stops at the lowest level", 4, 200 * US, 150 * US,
	  { 32, 350 * US, true }, { }, 4 },
	{ "polls that cannot reach the bands count for nothing", 0,
	  100 * US, 150 * US, { 64, 350 * US, true }, { }, 0 },
	{ "short polls let a lowered ceiling stay", 1, 50 * US, 150 * US,
	  { 64, 150 * US, true }, { }, 1 },
};

static void haltpoll_ceiling_add_n(struct haltpoll_ceiling *c,
				   const struct ceiling_case *cc,
				   const struct ceiling_polls *polls)
{
	unsigned int i;

	for (i = 0; i < polls->n; i++)
		haltpoll_ceiling_add(c, 200 * US, cc->limit_ns, polls->woke_ns,
				     polls->dated, cc->worth_ns);
}

static void haltpoll_ceiling_test(struct kunit *test)
{
	const struct ceiling_case *cc;

	for (cc = ceiling_cases; cc < ceiling_cases + ARRAY_SIZE(ceiling_cases);
	     cc++) {
		struct haltpoll_ceiling c = { .level = cc->level };

		haltpoll_ceiling_add_n(&c, cc, &cc->a);
		haltpoll_ceiling_add_n(&c, cc, &cc->b);
		KUNIT_EXPECT_EQ_MSG(test, c.level, cc->next_level, "case: %s",
				    cc->name);
	}
}

struct hold_case {
	const char *name;
	u64 hold_ns;
	u64 polled_ns;
	u64 next_ns;
};

static const struct hold_case hold_cases[] = {
	{ "a first preempted poll holds the minimum", 0, 0,
	  HALTPOLL_HOLD_MIN_NS },
	{ "a hold below the minimum starts over", 1, 0, HALTPOLL_HOLD_MIN_NS },
	{ "one soon after a hold doubles it", 4 * MS, 35 * MS, 8 * MS },
	{ "doubling stops at the maximum", HALTPOLL_HOLD_MAX_NS / 2 + 1, 0,
	  HALTPOLL_HOLD_MAX_NS },
	{ "the maximum stays", HALTPOLL_HOLD_MAX_NS, 35 * MS,
	  HALTPOLL_HOLD_MAX_NS },
	{ "just inside the recent span doubles", 64 * MS,
	  HALTPOLL_HOLD_RECENT_NS - 1, 128 * MS },
	{ "after the recent span it starts over", 64 * MS,
	  HALTPOLL_HOLD_RECENT_NS, HALTPOLL_HOLD_MIN_NS },
};

static void haltpoll_hold_next_test(struct kunit *test)
{
	const struct hold_case *c;

	for (c = hold_cases; c < hold_cases + ARRAY_SIZE(hold_cases); c++)
		KUNIT_EXPECT_EQ_MSG(test,
				    haltpoll_hold_next_ns(c->hold_ns, c->polled_ns),
				    c->next_ns, "case: %s", c->name);
}

/*
 * A host that stays crowded, preempting a poll 35 ms of polling after
 * each hold: the hold reaches a second in eleven preempted polls, 1 ms to
 * 512 ms and then the cap, and stays there; HALTPOLL_HOLD_RECENT_NS of
 * polling without a preemption starts it over. The count is bounded, so
 * that a hold that never reaches the cap fails the case instead of
 * hanging the suite.
 */
static void haltpoll_hold_sequence_test(struct kunit *test)
{
	u64 hold_ns = 0;
	unsigned int polls;

	for (polls = 0; hold_ns < HALTPOLL_HOLD_MAX_NS && polls < 64; polls++)
		hold_ns = haltpoll_hold_next_ns(hold_ns, 35 * MS);
	KUNIT_EXPECT_EQ(test, polls, 11);
	hold_ns = haltpoll_hold_next_ns(hold_ns, 35 * MS);
	KUNIT_EXPECT_EQ(test, hold_ns, HALTPOLL_HOLD_MAX_NS);
	hold_ns = haltpoll_hold_next_ns(hold_ns, HALTPOLL_HOLD_RECENT_NS);
	KUNIT_EXPECT_EQ(test, hold_ns, HALTPOLL_HOLD_MIN_NS);
}

#define SHARE_ONE	HALTPOLL_PREEMPT_ONE
#define SHARE_STEP	(HALTPOLL_PREEMPT_ONE >> HALTPOLL_PREEMPT_SHIFT)

struct preempt_share_case {
	const char *name;
	unsigned int share;
	bool preempted;
	unsigned int next;
	bool crowded;
};

static const struct preempt_share_case preempt_share_cases[] = {
	{ "a clean poll keeps a quiet CPU at 0", 0, false, 0, false },
	{ "one preempted poll is not crowded", 0, true, SHARE_STEP, false },
	{ "two in a row are not", SHARE_STEP, true,
	  2 * SHARE_STEP - SHARE_STEP / 32, false },
	{ "three in a row are", 2 * SHARE_STEP - SHARE_STEP / 32, true,
	  5954, true },
	{ "a clean poll takes a 32nd off", SHARE_ONE, false,
	  SHARE_ONE - SHARE_STEP, true },
	{ "every poll preempted stays at one", SHARE_ONE, true, SHARE_ONE,
	  true },
	{ "a 16th is not crowded", 4228, false, SHARE_ONE / 16, false },
	{ "just over a 16th is", 4229, false, SHARE_ONE / 16 + 1, true },
};

static void haltpoll_preempt_share_test(struct kunit *test)
{
	const struct preempt_share_case *c;
	unsigned int next;

	for (c = preempt_share_cases;
	     c < preempt_share_cases + ARRAY_SIZE(preempt_share_cases); c++) {
		next = haltpoll_preempt_share_next(c->share, c->preempted);
		KUNIT_EXPECT_EQ_MSG(test, next, c->next, "case: %s", c->name);
		KUNIT_EXPECT_EQ_MSG(test, haltpoll_preempt_crowded(next),
				    c->crowded, "case: %s", c->name);
	}
}

/*
 * Whether a host that preempts one poll in @every is taken for crowded at
 * its preempted polls, once the share has settled: each of them, or none.
 */
static void haltpoll_test_preempt_every(struct kunit *test,
					unsigned int every, bool crowded)
{
	unsigned int share = 0, poll, seen = 0, found = 0;

	for (poll = 1; poll <= 64 * every; poll++) {
		share = haltpoll_preempt_share_next(share, poll % every == 0);
		if (poll % every || poll <= 32 * every)
			continue;
		seen++;
		found += haltpoll_preempt_crowded(share);
	}
	KUNIT_EXPECT_EQ(test, seen, 32);
	KUNIT_EXPECT_EQ_MSG(test, found, crowded ? seen : 0,
			    "one preempted poll in %u", every);
}

/*
 * The bench host preempted one poll in 8 to 17 beside a CPU-bound task,
 * one in 150 to 340 with nothing else to run: crowded up to one in
 * twenty, and not from one in twenty-two.
 */
static void haltpoll_preempt_crowded_test(struct kunit *test)
{
	haltpoll_test_preempt_every(test, 8, true);
	haltpoll_test_preempt_every(test, 17, true);
	haltpoll_test_preempt_every(test, 20, true);
	haltpoll_test_preempt_every(test, 22, false);
	haltpoll_test_preempt_every(test, 150, false);
}

static struct kunit_case haltpoll_governor_cases[] = {
	KUNIT_CASE(haltpoll_window_next_test),
	KUNIT_CASE(haltpoll_window_grows_to_limit_test),
	KUNIT_CASE(haltpoll_window_shrinks_to_zero_test),
	KUNIT_CASE(haltpoll_params_invalid_test),
	KUNIT_CASE(haltpoll_should_poll_test),
	KUNIT_CASE(haltpoll_idle_for_window_test),
	KUNIT_CASE(haltpoll_near_timer_test),
	KUNIT_CASE(haltpoll_timer_halt_pays_test),
	KUNIT_CASE(haltpoll_wakeup_halt_pays_test),
	KUNIT_CASE(haltpoll_keep_tick_test),
	KUNIT_CASE(haltpoll_timer_first_test),
	KUNIT_CASE(haltpoll_lead_test),
	KUNIT_CASE(haltpoll_lead_follows_lateness_test),
	KUNIT_CASE(haltpoll_timer_lead_test),
	KUNIT_CASE(haltpoll_wakeup_lead_test),
	KUNIT_CASE(haltpoll_lead_in_use_test),
	KUNIT_CASE(haltpoll_timer_walk_test),
	KUNIT_CASE(haltpoll_recurrence_test),
	KUNIT_CASE(haltpoll_recur_steady_test),
	KUNIT_CASE(haltpoll_recur_counts_test),
	KUNIT_CASE(haltpoll_band_add_test),
	KUNIT_CASE(haltpoll_ceiling_ns_test),
	KUNIT_CASE(haltpoll_ceiling_test),
	KUNIT_CASE(haltpoll_hold_next_test),
	KUNIT_CASE(haltpoll_hold_sequence_test),
	KUNIT_CASE(haltpoll_preempt_share_test),
	KUNIT_CASE(haltpoll_preempt_crowded_test),
	{}
};

static struct kunit_suite haltpoll_governor_suite = {
	.name = "haltpoll_governor",
	.test_cases = haltpoll_governor_cases,
};

kunit_test_suite(haltpoll_governor_suite);

MODULE_DESCRIPTION("KUnit tests for the haltpoll cpuidle governor");
MODULE_LICENSE("GPL");
