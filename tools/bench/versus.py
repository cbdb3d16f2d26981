#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The project against Linux 6.12's haltpoll (the stock build), from the
boots of tools/bench/run: per load, the median over the rounds of each
kernel's latency, poll time and halts per operation (from the cpuidle
counters both kernels have) and host CPU per operation (from the host
sampler), the ratios project / stock against the targets, for the
ping-pong loads the median and 99th percentile round trip beside the
mean the targets take, and a JSON record of where and how it was
measured."""

import argparse
import json
import random
import re
import statistics
import sys

from baselines import phase_busy, sample_phase, update_record

PIPE_LOADS = ["unpaced", "pace50", "pace100", "pace300", "pace1000"]
PACED_LOADS = PIPE_LOADS[1:]
CYCLIC_LOADS = ["cyclic100", "cyclic200", "cyclic500"]
KERNELS = ["project", "stock"]

# (label, loads, metric, bound): the ratio project / stock of the metric
# must not exceed the bound on any of the loads.
TARGETS = [
    ("latency", PIPE_LOADS, "latency_us", 1.05),
    ("poll time per round trip", PIPE_LOADS, "poll_us_per_op", 1.0),
    ("cyclictest mean latency", CYCLIC_LOADS, "latency_us", 1.05),
    ("idle host cost", ["idle"], "host_cpu", 1.05),
]
SUMMED_POLL_BOUND = 0.6
# The one-value lines of tools/guest/bench/versus.sh, and their metrics.
LINE_KEYS = {"OPS": "ops", "LATENCY": "latency_us", "PERIOD": "period_us",
             "SLEEPS": "sleeps", "WAKELATE": "wake_late_us",
             "MEDIAN": "median_us", "P99": "p99_us",
             "OUT": "out_median_us", "BACK": "back_median_us"}
# Resamples of the boots behind each target's interval, and its coverage.
RESAMPLES = 1000
INTERVAL = 0.90
# Fewer boots of a kernel than this give no interval: the median of a
# resample of three boots is one of those three values, too coarse a
# spread to trust.
INTERVAL_MIN_BOOTS = 5
# Fewer resamples with a value than this share of RESAMPLES give none.
INTERVAL_MIN_SHARE = 0.9
# A boot whose unpaced round trip took this many times the run's lower
# quartile (over both kernels) ran through a slow spell of the host: under
# TCG, clean boots of either kernel come within about 1.15x of each other,
# boots in a busy hour at 1.5 to 2.5x, in clusters of a few rounds.
SLOW_BOOT_FACTOR = 1.3
# Slow boots in one kernel's slot outnumbering the other's by this many
# move the medians by more than the resampled intervals show.
SLOW_BOOT_UNEVEN = 2


# A counter parse_guest() keeps per CPU as well: "poll_us_cpu1".
PER_CPU_KEY = re.compile(r"_cpu[0-9]+$")


def accumulate(m, key, value):
    m[key] = m.get(key, 0) + value


def add_hpstat(loads, begin, w):
    """Fold one HPSTAT line (the project's haltpoll-stat) into @loads.

    Fields after the CPU: window, polls caught, polls timed out, ns they
    wasted, ..., and 12th the polls the host preempted; the caught
    polls, the waste and the preempted polls per load, over both CPUs.
    versus.sh reads them just outside the cpuidle counters (IDLE), so the
    waste may take in a poll or two that the poll time does not. An end
    without its begin (a garbled console line) is left out.
    """
    load, when, cpu = w[2], w[3], w[4]
    c = [int(x) for x in w[6:9]] + [int(x) for x in w[16:17]]
    if when == "begin":
        begin[("hp", load, cpu)] = c
        return
    b = begin.pop(("hp", load, cpu), None)
    if b is None:
        return
    d = [e - x for e, x in zip(c, b)]
    m = loads.setdefault(load, {})
    accumulate(m, "polls_caught", d[0])
    accumulate(m, "wasted_us", d[2] / 1e3)
    if len(d) > 3:
        accumulate(m, "preempted_polls", d[3])


def parse_guest(path):
    """{load: metrics} of one boot from its IDLE, HPSTAT and LINE_KEYS
    lines."""
    loads, begin = {}, {}
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) == 4 and w[0] in LINE_KEYS:
                loads.setdefault(w[2], {})[LINE_KEYS[w[0]]] = float(w[3])
            elif len(w) >= 9 and w[0] == "HPSTAT":
                add_hpstat(loads, begin, w)
            elif len(w) == 9 and w[0] == "IDLE":
                load, when, cpu = w[2], w[3], w[4]
                c = [int(x) for x in w[5:9]]
                if when == "begin":
                    begin[(load, cpu)] = c
                    continue
                d = [e - b for e, b in zip(c, begin.pop((load, cpu)))]
                m = loads.setdefault(load, {})
                accumulate(m, "polls", d[0])
                for key, value in (("poll_us", d[1]), ("halts", d[2])):
                    accumulate(m, key, value)
                    accumulate(m, f"{key}_cpu{cpu}", value)
    return loads


def booted_build(path):
    """The booted kernel's uname -v from one boot's BUILD line, or None
    for an output from before the line was printed."""
    with open(path) as f:
        for line in f:
            w = line.split(None, 1)
            if len(w) == 2 and w[0] == "BUILD":
                return w[1].strip()
    return None


def phase_placement(samples_path):
    """{phase: {share: value}}: of the sampler's lines in each phase, the
    share in which the two vCPU threads had last run on one host CPU
    ("vcpus_together") and, with --busy, in which the host's CPU-bound task
    had last run on vCPU 0's host CPU ("busy_with_vcpu0") or vCPU 1's. Host
    placement, not guest code: a vCPU that shares a host CPU with a
    CPU-bound task waits for the host to preempt it before it answers a
    wakeup."""
    counts = {}
    with open(samples_path) as f:
        for line in f:
            words = dict(w.split("=", 1) for w in line.split() if "=" in w)
            cpus = words.get("cpus", "").split(",")
            if len(cpus) != 2 or "-" in cpus:
                continue
            phase = sample_phase(line.split())
            c = counts.setdefault(phase, [0, 0, 0, 0])
            c[0] += 1
            c[1] += cpus[0] == cpus[1]
            if "busy" in words:
                c[2] += words["busy"] == cpus[0]
                c[3] += words["busy"] == cpus[1]
    shares = {}
    for phase, (n, together, busy0, busy1) in counts.items():
        shares[phase] = {"vcpus_together": together / n}
        if busy0 + busy1:
            shares[phase].update(busy_with_vcpu0=busy0 / n,
                                 busy_with_vcpu1=busy1 / n)
    return shares


def boot_metrics(out_path, samples_path):
    """Everything measured in one boot, per load."""
    loads = parse_guest(out_path)
    for column, name in ((1, "host_cpu"), (2, "host_vcpu"),
                         (3, "host_vcpu_wait")):
        busy, wall = phase_busy(samples_path, column)
        for phase, cpu_s in busy.items():
            load = phase.rsplit("_", 1)[1]
            if load in loads and wall[phase] > 0:
                loads[load][name + "_s"] = cpu_s
                loads[load][name] = cpu_s / wall[phase]
    for phase, shares in phase_placement(samples_path).items():
        load = phase.rsplit("_", 1)[-1]
        if load in loads:
            loads[load].update(shares)
    for m in loads.values():
        ops = m.get("ops")
        if not ops:
            continue
        m["poll_us_per_op"] = m.get("poll_us", 0) / ops
        if "wasted_us" in m:
            m["caught_poll_us"] = m["poll_us"] - m["wasted_us"]
        m["halts_per_op"] = m.get("halts", 0) / ops
        for key in [k for k in m if PER_CPU_KEY.search(k)]:
            m[key + "_per_op"] = m[key] / ops
        if m.get("period_us"):
            m["poll_share"] = m["poll_us_per_op"] / m["period_us"]
        if "sleeps" in m:
            m["sleeps_per_op"] = m["sleeps"] / ops
        if "host_cpu_s" in m:
            m["host_cpu_us_per_op"] = m["host_cpu_s"] * 1e6 / ops
        if "preempted_polls" in m:
            m["preempted_polls_per_op"] = m["preempted_polls"] / ops
        if "host_vcpu_wait_s" in m:
            m["host_vcpu_wait_us_per_op"] = m["host_vcpu_wait_s"] * 1e6 / ops
    return loads


def medians(boots):
    """{load: {metric: median over boots}}, and the runs behind each."""
    runs = {}
    for loads in boots:
        for load, m in loads.items():
            for metric, value in m.items():
                runs.setdefault(load, {}).setdefault(metric, []).append(value)
    return ({load: {k: statistics.median(v) for k, v in m.items()}
             for load, m in runs.items()}, runs)


def ratio(table, load, metric):
    try:
        return table["project"][load][metric] / table["stock"][load][metric]
    except (KeyError, ZeroDivisionError):
        return None


def print_table(table, loads, columns):
    head = "".join(f"{name:>26s}" for name, _, _ in columns)
    print(f"  {'load':10s}{head}")
    for load in loads:
        cells = []
        for _, metric, fmt in columns:
            vals = [table[k].get(load, {}).get(metric) for k in KERNELS]
            if None in vals:
                cells.append(f"{'-':>26s}")
                continue
            r = ratio(table, load, metric)
            rs = f"{r:5.2f}" if r is not None else "  -  "
            cells.append(f"{fmt.format(vals[0]):>9s} /{fmt.format(vals[1]):>8s} {rs:>6s}")
        print(f"  {load:10s}" + "".join(cells))


def print_unheld_paces(table):
    """Say where a kernel did not hold a pace, which the poll time shows.

    The pacing CPU starts a round trip every N us unless round trips fall
    behind or its pauses wake late (under TCG tens of microseconds past
    their slot: the more round trips find their slot ahead, the more such
    late pauses). Then the period stretches (under TCG, at 50 and 100 us,
    in both kernels), the CPUs wait longer between round trips, and the
    poll time per round trip grows with the period, whatever the governor.
    """
    for load in PACED_LOADS:
        pace_us = int(load[len("pace"):])
        periods = [table[k].get(load, {}).get("period_us") for k in KERNELS]
        if None in periods or max(periods) <= pace_us * 1.1:
            continue
        print(f"  {load}: pace not held (period {periods[0]:.0f} /"
              f" {periods[1]:.0f} us): poll time per op compares periods of"
              " different lengths; poll per us of period does not")


def paced_sum(table, kernel, metric, loads=PACED_LOADS):
    """@kernel's @metric summed over @loads; KeyError if one is missing."""
    return sum(table[kernel][load][metric] for load in loads)


def check_targets(table):
    results = []
    for label, loads, metric, bound in TARGETS:
        for load in loads:
            r = ratio(table, load, metric)
            results.append({"target": f"{load} {label}", "value": r,
                            "target_max": bound, "loads": [load],
                            "metric": metric,
                            "met": r is not None and r <= bound})
    # A run of some of the loads (--loads) has no sum over all of them.
    r = None
    if all("poll_us" in table[k].get(load, {}) for k in KERNELS
           for load in PACED_LOADS):
        sums = [paced_sum(table, k, "poll_us") for k in KERNELS]
        r = sums[0] / sums[1] if sums[1] else None
    results.append({"target": "poll time summed over the paced loads",
                    "value": r, "target_max": SUMMED_POLL_BOUND,
                    "loads": PACED_LOADS, "metric": "poll_us",
                    "met": r is not None and r <= SUMMED_POLL_BOUND})
    return results


def catch_only_ratio(table):
    """The project's summed paced poll less its timed-out polls, / stock's.

    What the project would have polled had no poll of its run out its
    window, every catch kept as it came: the least poll time of a policy
    that catches every wakeup the project caught, each poll begun when
    the project began it. Below it lies only polling less for the
    catches themselves: halting first and waking early before the
    wakeup, as the project does for timers and recurring wakeups, which
    pays where the early wakeup's lead (haltpoll-stat's lead_ns) is
    short of the wait. Summed over the loads as the summed target is
    (check_targets()), the medians of each load's totals.
    """
    try:
        caught = paced_sum(table, "project", "caught_poll_us")
        stock = paced_sum(table, "stock", "poll_us")
    except KeyError:
        return None
    return caught / stock if stock else None


def summed_poll_left(table):
    """Each paced load's share of stock's summed poll, and what the summed
    bound leaves the longer paces.

    The summed target adds the loads' poll times, so a load weighs by
    how long stock polls through it: under TCG the two shortest paces
    run at about the same period (the pacer's sleep wakes late), both
    kernels poll through it, and they carry over half of stock's sum.
    Holding the project's two shortest paces at their measured ratios,
    the ratio of poll time the longer paces together may come to for the
    sum to meet SUMMED_POLL_BOUND (below 0 where no poll there would
    do). Return: ({load: share}, left), None if a load's poll time is
    missing or stock polled for none.
    """
    try:
        total = paced_sum(table, "stock", "poll_us")
        rest = paced_sum(table, "stock", "poll_us", PACED_LOADS[2:])
        short = paced_sum(table, "project", "poll_us", PACED_LOADS[:2])
    except KeyError:
        return None
    if not total or not rest:
        return None
    shares = {load: table["stock"][load]["poll_us"] / total
              for load in PACED_LOADS}
    return shares, (SUMMED_POLL_BOUND * total - short) / rest


def print_summed_poll_left(table, left):
    """@left from summed_poll_left(), as an info line."""
    if left is None:
        return
    shares, rest = left
    short, longer = PACED_LOADS[:2], PACED_LOADS[2:]
    measured = ", ".join("n/a" if r is None else f"{r:.3f}"
                         for r in (ratio(table, load, "poll_us")
                                   for load in short))
    print("  info: stock's summed paced poll by load: " +
          ", ".join(f"{load} {shares[load]:.2f}" for load in PACED_LOADS) +
          f";\n  with {' and '.join(short)} as measured ({measured}),"
          f" {SUMMED_POLL_BOUND} leaves {' and '.join(longer)}"
          f" {rest:.3f} of stock's poll there")


def catch_only_interval(boots):
    """catch_only_ratio()'s interval over resampled boots, as add_intervals()
    gives the targets'; None with too few boots."""
    if min(len(b) for b in boots.values()) < INTERVAL_MIN_BOOTS:
        return None
    rng = random.Random(0)
    return percentile_interval(catch_only_ratio(resampled_table(boots, rng))
                               for _ in range(RESAMPLES))


def percentile_interval(values):
    """The INTERVAL of @values (None where a resample gave no value), or
    None if too few resamples gave one."""
    values = sorted(v for v in values if v is not None)
    if len(values) < INTERVAL_MIN_SHARE * RESAMPLES:
        return None
    tail = (1 - INTERVAL) / 2
    return [values[int(tail * (len(values) - 1))],
            values[int((1 - tail) * (len(values) - 1))]]


def resampled_table(boots, rng):
    """The medians once more, from boots drawn with replacement."""
    return {k: medians([rng.choice(boots[k]) for _ in boots[k]])[0]
            for k in KERNELS}


def resampled_values(boots, rng):
    """Each target's value once more, from boots drawn with replacement."""
    return [t["value"] for t in check_targets(resampled_table(boots, rng))]


def add_intervals(results, boots):
    """Give each target the interval its value falls in over resampled boots.

    A ratio of two medians of a few boots moves with which boots the host
    happened to run slowly: drawing each kernel's boots again with
    replacement and taking the ratio anew shows how far (a nominal 90%:
    a percentile interval of a median from ten boots tends to be narrow).
    The verdict is resolved only where the interval lies on the side of
    the bound the value fell on. The draws are seeded, so one set of boots
    always gives the same intervals.
    """
    for t in results:
        t["interval"], t["resolved"] = None, False
    if min(len(b) for b in boots.values()) < INTERVAL_MIN_BOOTS:
        return
    rng = random.Random(0)
    draws = [resampled_values(boots, rng) for _ in range(RESAMPLES)]
    for i, t in enumerate(results):
        interval = percentile_interval(d[i] for d in draws)
        if t["value"] is None or not interval:
            continue
        t["interval"] = interval
        lo, hi = interval
        bound = t["target_max"]
        t["resolved"] = hi <= bound if t["met"] else lo > bound


def round_values(boots, loads, metric):
    """Per round, each kernel's @metric summed over @loads, or None for a
    round where a boot lacks it."""
    values = []
    for pair in zip(*(boots[k] for k in KERNELS)):
        try:
            values.append([sum(b[load][metric] for load in loads)
                           for b in pair])
        except KeyError:
            values.append(None)
    return values


def add_paired(results, boots):
    """Give each target the median of its per-round ratios and the rounds
    in which the project's boot came out higher.

    The two boots of a round run back to back, about half a minute each,
    so a slow host spell that lasts a round weighs on both: where the
    ratio of medians and the paired median part, the boots' scatter, not
    the kernels, set the ratio. Information only; the verdict stays on
    the ratio of medians.
    """
    for t in results:
        pairs = [v for v in round_values(boots, t["loads"], t["metric"])
                 if v is not None and v[1] > 0]
        t["paired"] = None
        if pairs:
            t["paired"] = {"median": statistics.median(p / s for p, s in pairs),
                           "project_higher": sum(p > s for p, s in pairs),
                           "rounds": len(pairs)}


def slow_boots(boots):
    """The rounds, per kernel, whose boot ran through a slow host spell.

    Resampling draws boots independently, but a host's slow spells last
    for several rounds and can fall on one kernel's boots more than the
    other's: an A/A run then "resolves" a difference that is the host's.
    The unpaced round trip, the first load of each boot and the one most
    sensitive to host noise, marks those boots. A kernel slower by the
    factor in every boot would have all its boots marked: the count says
    where to look, an A/A run says which it is. Return None without it.
    """
    lat = {k: [b.get("unpaced", {}).get("latency_us") for b in boots[k]]
           for k in KERNELS}
    every = sorted(v for k in KERNELS for v in lat[k] if v is not None)
    if len(every) < 2 * INTERVAL_MIN_BOOTS:
        return None
    threshold_us = SLOW_BOOT_FACTOR * every[(len(every) - 1) // 4]
    rounds = {k: [i + 1 for i, v in enumerate(lat[k])
                  if v is not None and v > threshold_us] for k in KERNELS}
    return {"threshold_us": threshold_us, "rounds": rounds,
            "uneven": abs(len(rounds["project"]) - len(rounds["stock"]))
            >= SLOW_BOOT_UNEVEN}


def print_slow_boots(slow, boots):
    if slow is None:
        return
    counts = []
    for k in KERNELS:
        rounds = slow["rounds"][k]
        where = f" (rounds {', '.join(map(str, rounds))})" if rounds else ""
        counts.append(f"{k} {len(rounds)} of {len(boots[k])}{where}")
    print(f"  slow host boots (unpaced round trip over {SLOW_BOOT_FACTOR}x"
          f" the run's lower quartile, {slow['threshold_us']:.1f} us):"
          f" {'; '.join(counts)}")
    if slow["uneven"]:
        print("  uneven: one kernel has more slow boots; unless it is that"
              " much slower itself (an A/A\n  run in the same hour tells),"
              " its ratios and intervals carry the host's spells:"
              " rerun\n  in a quieter hour before reading them")


def target_line(t):
    """One target: its value, interval, bound and verdict."""
    if t["value"] is None:
        return (f"    {t['target']:48s} {'missing':>7s}"
                f"  <= {t['target_max']:<5} not met")
    verdict = "met" if t["met"] else "not met"
    if not t["resolved"]:
        verdict += ", not resolved"
    interval = "[no interval]"
    if t["interval"]:
        interval = "[{:.2f}, {:.2f}]".format(*t["interval"])
    paired = ""
    if t.get("paired"):
        p = t["paired"]
        paired = (f"\n      paired by round {p['median']:.3f}, project higher"
                  f" in {p['project_higher']} of {p['rounds']}")
    return (f"    {t['target']:48s} {t['value']:7.3f}  {interval}"
            f"  <= {t['target_max']:<5} {verdict}{paired}")


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--json", required=True,
                    help="JSON record to add this comparison to, under --key")
    ap.add_argument("--key", default="versus_stock")
    ap.add_argument("--meta", required=True,
                    help="JSON file of what the host script knows of the run")
    ap.add_argument("--title", default="default parameters")
    ap.add_argument("boots", nargs="+",
                    help="KERNEL:GUEST_OUTPUT:SAMPLES for every boot")
    args = ap.parse_args()

    boots = {k: [] for k in KERNELS}
    builds = {k: set() for k in KERNELS}
    for spec in args.boots:
        kernel, out_path, samples_path = spec.split(":")
        boots[kernel].append(boot_metrics(out_path, samples_path))
        builds[kernel].add(booted_build(out_path))
    # Which build each side ran (uname -v: its number and date), so that a
    # record can be told apart from one of a kernel left from another tree.
    builds = {k: sorted(b or "unknown" for b in builds[k]) for k in KERNELS}
    # One side's medians over two kernels would compare neither with the
    # other side: refuse them rather than record them.
    mixed = [k for k in KERNELS if len(builds[k]) > 1]
    if mixed:
        sys.exit(f"versus.py: the {' and the '.join(mixed)} boots ran more"
                 f" than one build: {builds}")
    table, runs = {}, {}
    for k in KERNELS:
        table[k], runs[k] = medians(boots[k])

    rounds = len(boots["project"])
    print(f"\nproject / stock 6.12 haltpoll ({args.title}), medians of {rounds}"
          " interleaved boots each;\neach cell: project / stock, ratio")
    for k in KERNELS:
        print(f"  {k} kernel: {'; '.join(builds[k])}")
    print_table(table, PIPE_LOADS + CYCLIC_LOADS, [
        ("latency us", "latency_us", "{:.1f}"),
        ("poll us per op", "poll_us_per_op", "{:.1f}"),
        ("halts per op", "halts_per_op", "{:.3f}"),
        ("host CPU us per op", "host_cpu_us_per_op", "{:.0f}"),
    ])
    # The latency above is the mean round trip, as the targets take it;
    # under TCG a few round trips in a hundred stall for milliseconds on
    # the host and can carry much of it.
    print_table(table, PIPE_LOADS, [("round trip median us", "median_us",
                                     "{:.1f}"),
                                    ("99th percentile us", "p99_us",
                                     "{:.0f}")])
    # Which wakeup a slower round trip waits on: the echoing CPU's, idle
    # through the pause, or the pinging CPU's, idle through one leg.
    print_table(table, PIPE_LOADS, [("median leg out us", "out_median_us",
                                     "{:.1f}"),
                                    ("median leg back us", "back_median_us",
                                     "{:.1f}")])
    print_table(table, PACED_LOADS, [("period us", "period_us", "{:.0f}"),
                                     ("poll per us of period",
                                      "poll_share", "{:.2f}"),
                                     ("pacer slept per op",
                                      "sleeps_per_op", "{:.2f}"),
                                     ("its wakeup late us",
                                      "wake_late_us", "{:.1f}")])
    print_unheld_paces(table)
    # Which CPU polls: pipe-bench's pacing one (CPU 0) through its own
    # sleep (a timer), or its echoing one (CPU 1) for the next request; a
    # poll that ran out its window is followed by a halt.
    print_table(table, PACED_LOADS, [
        ("pacer CPU poll us per op", "poll_us_cpu0_per_op", "{:.1f}"),
        ("halts per op", "halts_cpu0_per_op", "{:.2f}"),
        ("echo CPU poll us per op", "poll_us_cpu1_per_op", "{:.1f}"),
        ("halts per op", "halts_cpu1_per_op", "{:.2f}"),
    ])
    # Where the host ran the vCPU threads, and how long they waited for
    # it: on a busy host, round trips the guest cannot shorten.
    print_table(table, PIPE_LOADS, [
        ("vCPU host wait us per op", "host_vcpu_wait_us_per_op", "{:.1f}"),
        ("vCPUs on one host CPU", "vcpus_together", "{:.2f}"),
        ("busy task with vCPU 0", "busy_with_vcpu0", "{:.2f}"),
        ("busy task with vCPU 1", "busy_with_vcpu1", "{:.2f}"),
    ])
    print_table(table, ["idle"], [("host CPU s/s", "host_cpu", "{:.4f}"),
                                  ("of it vCPU threads", "host_vcpu",
                                   "{:.4f}"),
                                  ("halts", "halts", "{:.0f}")])
    slow = slow_boots(boots)
    print_slow_boots(slow, boots)
    results = check_targets(table)
    add_intervals(results, boots)
    add_paired(results, boots)
    print(f"  targets (project / stock; [{INTERVAL:.0%} interval over"
          " resampled boots];\n  not resolved: the interval is not all on"
          " the value's side of the bound):")
    for t in results:
        print(target_line(t))
    catch_only = catch_only_ratio(table)
    catch_only_iv = catch_only_interval(boots)
    if catch_only is not None:
        iv = ("[{:.2f}, {:.2f}]".format(*catch_only_iv) if catch_only_iv
              else "[no interval]")
        print(f"  info: poll time summed over the paced loads, the project's"
              f" caught polls only\n  (none timed out) / stock's:"
              f" {catch_only:.3f} {iv}")
    left = summed_poll_left(table)
    print_summed_poll_left(table, left)
    with open(args.meta) as f:
        meta = json.load(f)
    record = {"title": args.title, "meta": meta, "rounds": rounds,
              "kernel_builds": builds,
              "median": table, "runs": runs, "slow_boots": slow,
              "targets": results, "catch_only_summed_poll": catch_only,
              "catch_only_summed_poll_interval": catch_only_iv,
              "summed_poll_left": left and {"shares": left[0],
                                            "longer_paces": left[1]},
              "targets_met": all(t["met"] for t in results),
              "targets_resolved": all(t["resolved"] for t in results)}
    update_record(args.json, {args.key: record})
    print(f"  written to {args.json} ({args.key})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
