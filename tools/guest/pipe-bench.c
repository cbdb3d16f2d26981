// SPDX-License-Identifier: GPL-2.0
/*
 * pipe-bench: two tasks on two CPUs pass a token through a pair of pipes,
 * like "perf bench sched pipe". Each round trip wakes each task once, so
 * the time per round trip is dominated by two idle-CPU wakeups.
 *
 * Prints "usecs/op: X" for the whole run. With -p PERIOD_US the waker
 * starts one round trip every PERIOD_US microseconds on an absolute
 * schedule, to model paced request/response traffic: the offered rate is
 * the same whatever a round trip costs, so configurations are compared at
 * equal work. "usecs/op" then excludes the pause, and "period_us" gives the
 * period achieved, which is longer than asked only if the round trips
 * could not keep up. "sleeps" counts the pauses that slept (the round trip
 * was ahead of its slot) and "wake_late_us" says how late past the slot
 * they woke on average (left out if none slept): a pace is lost to late
 * wakeups as well as to slow round trips.
 *
 * "median_us" and "p99_us" give the median round trip (the lower one of
 * the middle two for an even count) and the 99th percentile, by nearest
 * rank: under an emulator a few round trips in a hundred stall for
 * milliseconds while the host runs something else, enough to move the
 * mean by tens of microseconds, so the mean alone cannot say whether
 * a configuration made the usual round trip slower or the rare one.
 * Each round trip is kept, 8 bytes of memory apiece.
 *
 * "out_median_us" and "back_median_us" split the round trip at the echo:
 * the echoing task reads the clock between its read and its write, so
 * "out" is the waker's write until the echoing task has the token, the
 * wakeup of the echoing CPU, and "back" the rest, the wakeup of the
 * waking CPU. Both CPUs read CLOCK_MONOTONIC, one clock for the machine.
 * The two legs wake CPUs that were idle for different times (the whole
 * pause, or one leg), so they tell which wakeup made a round trip slower.
 * The clock read adds the same to every round trip, the echo's cost.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct options {
	long loops;
	int cpu_a;
	int cpu_b;
	long pace_us;
};

/* The pauses of a paced run that slept, and how late they woke in all. */
struct pace_stats {
	long sleeps;
	long long late_ns;
};

static void die(const char *what)
{
	fprintf(stderr, "pipe-bench: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		die("sched_setaffinity");
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void xfer(int rfd, int wfd, char *token)
{
	if (wfd >= 0 && write(wfd, token, 1) != 1)
		die("write");
	if (rfd >= 0 && read(rfd, token, 1) != 1)
		die("read");
}

/*
 * Echo each token, noting in @recv_ns when it came. The pages are touched
 * before the ready token tells the pinging task to start, so that no page
 * fault lands in a round trip.
 */
static void echo_loop(int rfd, int wfd, long loops, long long *recv_ns)
{
	char token = 'r';
	long i;

	memset(recv_ns, 0, loops * sizeof(*recv_ns));
	xfer(-1, wfd, &token);
	for (i = 0; i < loops; i++) {
		xfer(rfd, -1, &token);
		recv_ns[i] = now_ns();
		xfer(-1, wfd, &token);
	}
	exit(0);
}

/*
 * Sleep until DEADLINE_NS, then move it one period on. The default timer
 * slack (50 us) would stretch every pause by up to that much, so the
 * caller sets it to 1 ns. A round trip that starts more than a period
 * late restarts the schedule from now: missed slots are dropped, not
 * sent back to back.
 */
static void pace_wait(long long *deadline_ns, long long period_ns,
		      long long done_ns, struct pace_stats *stats)
{
	struct timespec ts = {
		.tv_sec = *deadline_ns / 1000000000LL,
		.tv_nsec = *deadline_ns % 1000000000LL,
	};
	bool ahead = done_ns < *deadline_ns;
	long long now;

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
	now = now_ns();
	if (ahead) {
		stats->sleeps++;
		stats->late_ns += now - *deadline_ns;
	}
	*deadline_ns += period_ns;
	if (now - *deadline_ns > period_ns)
		*deadline_ns = now + period_ns;
}

/*
 * Run the pinging side; store each round trip's time in @trip_ns (loops
 * entries) and return their sum.
 */
static long long ping_loop(int rfd, int wfd, const struct options *o,
			   struct pace_stats *stats, long long *trip_ns,
			   long long *recv_ns)
{
	long long period_ns = o->pace_us * 1000LL;
	long long busy_ns = 0, deadline_ns, done_ns, t0;
	char token = 'x';
	long i;

	if (period_ns && prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL))
		die("PR_SET_TIMERSLACK");
	/* When the last round trip ended: ahead of its slot or not. */
	done_ns = now_ns();
	deadline_ns = done_ns + period_ns;
	for (i = 0; i < o->loops; i++) {
		if (period_ns)
			pace_wait(&deadline_ns, period_ns, done_ns, stats);
		t0 = now_ns();
		xfer(rfd, wfd, &token);
		done_ns = now_ns();
		trip_ns[i] = done_ns - t0;
		busy_ns += trip_ns[i];
		/* From here on the echo's slot holds its leg out. */
		recv_ns[i] -= t0;
	}
	return busy_ns;
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

/* The round trip at @permille of @n sorted ones, nearest rank, in us. */
static double rank_us(const long long *sorted_ns, long n, int permille)
{
	long rank = (n * permille + 999) / 1000;

	return sorted_ns[rank > 0 ? rank - 1 : 0] / 1000.0;
}

/*
 * The median legs, then the median and 99th percentile round trip; sorts
 * @trip_ns and overwrites @out_ns.
 */
static void print_spread(long long *trip_ns, long long *out_ns, long n)
{
	long long *back_ns = malloc(n * sizeof(*back_ns));
	long i;

	if (!back_ns)
		die("malloc");
	for (i = 0; i < n; i++)
		back_ns[i] = trip_ns[i] - out_ns[i];
	qsort(out_ns, n, sizeof(*out_ns), cmp_ll);
	qsort(back_ns, n, sizeof(*back_ns), cmp_ll);
	qsort(trip_ns, n, sizeof(*trip_ns), cmp_ll);
	printf("median_us: %.3f\n", rank_us(trip_ns, n, 500));
	printf("p99_us: %.3f\n", rank_us(trip_ns, n, 990));
	printf("out_median_us: %.3f\n", rank_us(out_ns, n, 500));
	printf("back_median_us: %.3f\n", rank_us(back_ns, n, 500));
	free(back_ns);
}

static void usage(void)
{
	fprintf(stderr, "usage: pipe-bench [-l LOOPS] [-a CPU] [-b CPU] [-p PERIOD_US]\n"
		"  -l  round trips (default 20000; each kept, 8 bytes)\n"
		"  -a  CPU of the pinging task (default 0, -1: unpinned)\n"
		"  -b  CPU of the echoing task (default 1, -1: unpinned)\n"
		"  -p  start a round trip every PERIOD_US (default 0: back to back)\n");
	exit(2);
}

static void parse(int argc, char **argv, struct options *o)
{
	int c;

	while ((c = getopt(argc, argv, "l:a:b:p:h")) != -1) {
		switch (c) {
		case 'l':
			o->loops = atol(optarg);
			break;
		case 'a':
			o->cpu_a = atoi(optarg);
			break;
		case 'b':
			o->cpu_b = atoi(optarg);
			break;
		case 'p':
			o->pace_us = atol(optarg);
			break;
		default:
			usage();
		}
	}
	if (o->loops <= 0 || o->pace_us < 0)
		usage();
}

int main(int argc, char **argv)
{
	struct options o = { .loops = 20000, .cpu_a = 0, .cpu_b = 1 };
	struct pace_stats stats = { 0 };
	int to_echo[2], to_ping[2], status;
	long long busy_ns, start_ns, period_ns, *trip_ns, *recv_ns;
	char ready;
	pid_t child;

	parse(argc, argv, &o);
	if (pipe(to_echo) || pipe(to_ping))
		die("pipe");
	recv_ns = mmap(NULL, o.loops * sizeof(*recv_ns), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (recv_ns == MAP_FAILED)
		die("mmap");

	child = fork();
	if (child < 0)
		die("fork");
	if (child == 0) {
		/* Only the ends we use: if one task dies, the other sees EOF. */
		close(to_echo[1]);
		close(to_ping[0]);
		pin(o.cpu_b);
		echo_loop(to_echo[0], to_ping[1], o.loops, recv_ns);
	}

	close(to_echo[0]);
	close(to_ping[1]);
	pin(o.cpu_a);
	/* Touched now, so that no page fault lands between round trips. */
	trip_ns = malloc(o.loops * sizeof(*trip_ns));
	if (!trip_ns)
		die("malloc");
	memset(trip_ns, 0, o.loops * sizeof(*trip_ns));
	/* The echo has touched its pages too. */
	xfer(to_ping[0], -1, &ready);
	start_ns = now_ns();
	busy_ns = ping_loop(to_ping[0], to_echo[1], &o, &stats, trip_ns,
			    recv_ns);
	if (waitpid(child, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status))
		die("echo task");
	period_ns = now_ns() - start_ns;

	printf("loops: %ld pace_us: %ld\n", o.loops, o.pace_us);
	printf("usecs/op: %.3f\n", busy_ns / 1000.0 / o.loops);
	print_spread(trip_ns, recv_ns, o.loops);
	printf("period_us: %.3f\n", period_ns / 1000.0 / o.loops);
	if (o.pace_us) {
		printf("sleeps: %ld\n", stats.sleeps);
		if (stats.sleeps)
			printf("wake_late_us: %.3f\n",
			       stats.late_ns / 1000.0 / stats.sleeps);
	}
	free(trip_ns);
	munmap(recv_ns, o.loops * sizeof(*recv_ns));
	return 0;
}
