// SPDX-License-Identifier: GPL-2.0
/*
 * haltpoll-stat: show the haltpoll governor's per-CPU statistics, as
 * cpupower idle-info shows the idle states.
 *
 * Reads /sys/kernel/debug/haltpoll/stats (mounting debugfs if needed) and
 * prints, per CPU, the poll window, the polls that caught a wakeup and
 * those that ran out, the share caught, the poll time wasted, and the
 * halts that woke early to poll for a timer, the early wakeups that came
 * too late, the lead they currently take, the halts chosen for a near
 * timer and for an expected wakeup, the poll ceiling in force, and the
 * polls the host preempted (a sign that it runs other tasks on the vCPU's
 * host CPU).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>

#define STATS "/sys/kernel/debug/haltpoll/stats"

static FILE *open_stats(void)
{
	FILE *f = fopen(STATS, "r");

	if (!f && errno == ENOENT) {
		mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
		f = fopen(STATS, "r");
	}
	return f;
}

int main(void)
{
	uint64_t window_ns, caught, timed_out, wasted_ns, early_wakes, misses, lead_ns;
	uint64_t near_halts, recur_halts, ceiling_ns, timer_lead_ns, preempted;
	unsigned int cpu;
	char header[256], line[512];
	FILE *f = open_stats();

	if (!f) {
		fprintf(stderr, "haltpoll-stat: %s: %s (is the haltpoll governor built in?)\n",
			STATS, strerror(errno));
		return 1;
	}
	if (!fgets(header, sizeof(header), f)) {
		fprintf(stderr, "haltpoll-stat: %s is empty\n", STATS);
		return 1;
	}
	printf("%-4s %10s %12s %12s %8s %12s %12s %8s %8s %10s %11s %10s %13s %10s\n",
	       "cpu", "window_us", "caught", "timed_out", "caught%", "wasted_ms",
	       "early_wakes", "misses", "lead_us", "near_halts", "recur_halts",
	       "ceiling_us", "timer_lead_us", "preempted");
	/* One line per CPU, read whole: a short line ends the listing. */
	while (fgets(line, sizeof(line), f) &&
	       sscanf(line, "%u %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
		      " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
		      " %" SCNu64 " %" SCNu64 " %" SCNu64,
		      &cpu, &window_ns, &caught, &timed_out, &wasted_ns,
		      &early_wakes, &misses, &lead_ns, &near_halts,
		      &recur_halts, &ceiling_ns, &timer_lead_ns,
		      &preempted) == 13) {
		uint64_t polls = caught + timed_out;

		printf("%-4u %10.1f %12" PRIu64 " %12" PRIu64 " %8.1f %12.3f %12"
		       PRIu64 " %8" PRIu64 " %8.1f %10" PRIu64 " %11" PRIu64
		       " %10.1f %13.1f %10" PRIu64 "\n",
		       cpu, window_ns / 1e3, caught, timed_out,
		       polls ? 100.0 * caught / polls : 0.0, wasted_ns / 1e6,
		       early_wakes, misses, lead_ns / 1e3, near_halts,
		       recur_halts, ceiling_ns / 1e3, timer_lead_ns / 1e3,
		       preempted);
	}
	fclose(f);
	return 0;
}
