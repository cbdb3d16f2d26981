#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check the simulator against the live guest.

Reads the console logs tools/sim/validate recorded from the project's and
stock Linux 6.12's kernels (tools/guest/sim/validate.sh), rebuilds from
each CPU's trace the idle periods as that kernel's governor saw them,
replays them through the simulator's policy for that kernel, and compares
the predicted polls caught and poll time with what the guest counted.

An idle period, as a governor sees it: one cpuidle residency, except that
a poll which ran out its window continues in the halt after it (both
governors take the two as one period), and, in the project's kernel, a
halt that the governor's early wakeup ended continues in the poll for the
timer after it (the simulator replays those as one period that a timer
ended). A poll caught its wakeup when the CPU switched away from the idle
task before its next idle entry; it ran out its window when the halt
followed at once.

What the guest counted: polls caught from the trace (and, in the project's
kernel, haltpoll-stat's polls_caught), poll time from cpuidle's state0
time counter. Only the residencies that counter took in are replayed:
those that ended between the marks of its two reads. Recorded periods
are written to out/sim/validate/ and kept apart from the synthetic traces
and the recorded ones in tools/sim/traces.

The guest runs a "calibrate" load first, which is not replayed: on it
the trace's bracket of a poll (how much wider the trace dates a poll than
cpuidle counts it) is measured, and taken off each replayed poll.
"""
import bisect
import itertools
import json
import math
import os
import re
import statistics
import subprocess
import sys
from collections import defaultdict

TOLERANCE = 0.15
# Replays of each trace, each with its own sequence of the simulator's
# random draws (-s): the verdict takes the median ratio.
DRAWS = 9
# Fewest measured delays to draw from, rather than take their median.
MIN_SAMPLES = 20
EXIT = "4294967295"
# Timers that do not end a period the simulator could predict: the tick
# (the governor leaves it out) and the project's own early wakeup.
OWN_TIMERS = ("tick_nohz_handler", "haltpoll_wake_fn")
# print_foresight(): each period polled whole, then halting first with
# the lead at these quantiles of the early wakeup's lateness (1.0: the
# largest measured, which misses none).
FORESIGHT_LEVELS = (None, 0.5, 0.75, 0.9, 0.95, 0.99, 1.0)
# Issue 11's targets against stock's: each load's latency, and the poll
# time summed over the paced loads.
LATENCY_MAX = 1.05
SUMMED_POLL_MAX = 0.6
POLL_ENDS = ("its timer", "woken", "run out")
# print_schedule_estimate(): the step of halts and poll limits tried
# (ns), the longest halt, past every paced load's periods, the
# lateness's quantiles drawn, and the plain windows replayed for a live
# run to check.
SCHEDULE_STEP_NS = 10000
SCHEDULE_HALT_MAX_NS = 1500000
SCHEDULE_LATENESS_DRAWS = 20
WINDOW_REPLAYS_NS = (120000,)
# A load the guest runs first, traced and counted as the others, only to
# measure the trace's bracket of a poll (calibrate_bracket_ns()).
CALIBRATION_LOAD = "calibrate"


def default_6_12(name):
    """A governor parameter's 6.12 default, from the one file that says."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                        "guest", "tests", "defaults-6.12.sh")
    with open(path) as f:
        m = re.search(rf"^default_{name}=(\S+)$", f.read(), re.M)
    return m.group(1)


# guest_halt_poll_grow_start, the window's smallest size when open.
MIN_WINDOW_NS = int(default_6_12("guest_halt_poll_grow_start"))
# guest_halt_poll_ns, its largest: no poll of the project's is limited to
# more, where one for an expected wakeup may outlast a smaller window.
MAX_WINDOW_NS = int(default_6_12("guest_halt_poll_ns"))
LINE = re.compile(r"(?:-(\d+)\s+)?\[(\d+)\]\s+(\S+)\s+(\d+\.\d+):\s+(\w+):"
                  r"\s+(.*)$")
# Appended to an hrtimer's expiry that haltpoll_wake_fn() would take no
# lateness from: its need-resched flag (the second of ftrace's flags)
# set, a task woken; or a task other than the idle one (pid 0) running.
UNTAKEN = " untaken"
POLICY = {"project": "project", "stock": "linux-6.12"}


def parse_log(path):
    """{load: {"idle": {(when, cpu): [..]}, "hpstat": {..}, "events": [..],
    "ops": round trips, "latency": us per round trip}}"""
    loads, cur = {}, None
    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\r\n")
            m = re.match(r"@@LOAD (\S+)@@", line)
            if m:
                cur = loads[m.group(1)] = {"idle": {}, "hpstat": {},
                                           "events": []}
                continue
            if cur is None:
                continue
            if line == "@@END@@":
                cur = None
                continue
            f_ = line.split()
            if f_[:1] == ["IDLE"]:
                cur["idle"][(f_[1], int(f_[2]))] = [int(x) for x in f_[3:7]]
                continue
            if f_[:1] == ["HPSTAT"]:
                cur["hpstat"][(f_[1], int(f_[2]))] = [int(x) for x in f_[3:]]
                continue
            if f_[:1] in (["OPS"], ["LATENCY"]) and len(f_) == 2:
                cur[f_[0].lower()] = float(f_[1])
                continue
            m = LINE.search(line)
            if m:
                pid, cpu, flags, ts, name, rest = m.groups()
                if name == "hrtimer_expire_entry" and (
                        flags[1:2] in ("N", "n") or pid not in (None, "0")):
                    rest += UNTAKEN
                cur["events"].append((int(cpu), float(ts), name, rest))
    return loads


def clock_offset(events):
    """The trace clock less CLOCK_MONOTONIC, None if no timer expired.

    An hrtimer_expire_entry event carries both clocks, but its trace time
    comes after the interrupt's entry: the smallest difference over the
    load is the closest to the true offset (the trace clock is global).
    """
    diffs = [ts - int(re.search(r"now=(\d+)", rest).group(1)) / 1e9
             for _, ts, name, rest in events
             if name == "hrtimer_expire_entry"]
    return min(diffs) if diffs else None


MARKS = ("@@COUNT begin", "@@COUNTED begin", "@@COUNT end", "@@COUNTED end")
# cpuidle adds a residency to its counters after the exit's event and the
# interrupts run after it: one whose exit is traced this long before a
# read's first mark may still be counted by that read or the next.
COUNT_LAG = 200e-6


def counted_span(events):
    """The four marks around the counters' reads, in MARKS' order.

    cpuidle counts a residency as it ends, so those that end after the
    first read's second mark and before the last read's first mark were
    counted; one that ended within a read's marks (or COUNT_LAG before
    them) may have been. A log without marks (recordings before 11)
    counts every residency; one with some missing (the trace buffer
    overran) is refused.
    """
    marks = {rest.strip(): ts for _, ts, name, rest in events
             if name == "tracing_mark_write" and rest.strip() in MARKS}
    if not marks:
        return (float("-inf"),) * 2 + (float("inf"),) * 2
    if len(marks) != len(MARKS):
        sys.exit(f"validate.py: marks missing: {set(MARKS) - set(marks)}")
    return tuple(marks[m] for m in MARKS)


def in_count(res, span):
    """The residencies counted for sure, and those that may have been."""
    count_begin, counted_begin, count_end, counted_end = span
    counted = [r for r in res if counted_begin < r["end"] <
               count_end - COUNT_LAG]
    unsure = [r for r in res
              if count_begin - COUNT_LAG <= r["end"] <= counted_begin or
              count_end - COUNT_LAG <= r["end"] <= counted_end]
    return counted, unsure


def trace_bracket_ns(rows):
    """How much longer the trace brackets a residency of each state (ns).

    What the trace brackets less what cpuidle counted, over the CPUs and
    loads whose residencies of that state were all counted for sure: the
    entry's event is dated before cpuidle's clock starts, the exit's
    after it stops. A caught poll the simulator replays runs from that
    entry to the wakeup plus the measured delay to the exit, so it
    carries the difference, whose share of the poll time is larger the
    shorter the polls. Over the compared loads it is printed only; the
    replays lose the polls' bracket as measured on the calibration load
    (calibrate_bracket_ns()), apart from the poll time checked.
    """
    cost = {}
    for state, n_key, traced_key, counted_key in (
            (1, "halts", "trace_halt_us", "halt_us"),
            (0, "polls", "trace_poll_us", "poll_us")):
        rows_ok = [r for r in rows if r[f"unsure{state}"] == 0 and
                   r[f"trace_{n_key}"] == r[n_key]]
        n = sum(r[n_key] for r in rows_ok)
        diff = sum(r[traced_key] - r[counted_key] for r in rows_ok)
        cost[state] = (round(diff * 1e3 / n) if n else 0, n)
    return cost


def residencies(events, cpu, offset):
    """The CPU's cpuidle residencies, in order, each a dict.

    Each notes, as "pending", when the earliest timer of the CPU's own
    (not the tick, not the governor's) armed before it began was due, on
    the trace clock: the governor saw that timer coming even when
    something else ended the period first. Timers are taken as pending
    from their arming to their expiry or cancellation; @offset is
    clock_offset() of the load. One that the governor's early wakeup
    ended notes, as "early_late", how late that wakeup came (s); one the
    governor armed that wakeup for as it selected, as "select", how long
    before the idle entry it did (s).
    """
    out, cur, expires, window, pending = [], None, {}, None, {}
    # The governor's early wakeup armed and not yet taken: (hrtimer, ts).
    early_armed = None
    for ecpu, ts, name, rest in events:
        if name == "guest_halt_poll_ns" and ecpu == cpu:
            window = int(re.search(r"halt_poll_ns (\d+)", rest).group(1))
            continue
        if name == "hrtimer_start":
            m = re.search(r"hrtimer=(\S+) function=(\S+) "
                          r"expires=(\d+) softexpires", rest)
            expires[m.group(1)] = (int(m.group(3)), ts)
            # Armed again, maybe on another CPU.
            pending.pop(m.group(1), None)
            if ecpu == cpu and m.group(2) not in OWN_TIMERS:
                pending[m.group(1)] = int(m.group(3))
            if ecpu == cpu and m.group(2) == "haltpoll_wake_fn":
                early_armed = (m.group(1), ts)
            continue
        if name in ("hrtimer_cancel", "hrtimer_expire_entry"):
            timer = re.search(r"hrtimer=(\S+)", rest).group(1)
            pending.pop(timer, None)
            # Cancelled or fired with no idle entry after its arming (the
            # state was not entered): it armed none.
            if cur is None and early_armed and early_armed[0] == timer:
                early_armed = None
            if name == "hrtimer_cancel":
                continue
        if name == "cpu_idle":
            m = re.search(r"state=(\d+) cpu_id=(\d+)", rest)
            if int(m.group(2)) != cpu:
                continue
            if m.group(1) != EXIT:
                cur = {"state": int(m.group(1)), "start": ts, "timers": [],
                       "switched": False, "window": window}
                # Armed since the last exit: by this entry's selection.
                if early_armed:
                    cur["select"] = ts - early_armed[1]
                    early_armed = None
                due = [d / 1e9 + offset for d in pending.values()
                       if offset is not None and d / 1e9 + offset > ts]
                if due:
                    cur["pending"] = min(due)
            elif cur is not None:
                cur["end"] = ts
                out.append(cur)
                cur = None
                early_armed = None
        elif ecpu != cpu:
            continue
        elif name == "hrtimer_expire_entry" and cur is not None:
            m = re.search(r"hrtimer=(\S+) function=(\S+) now=(\d+)", rest)
            cur["timers"].append(m.group(2))
            if m.group(2) not in OWN_TIMERS and m.group(1) in expires:
                # When it was due, on the trace clock: expires and now are
                # CLOCK_MONOTONIC. One armed already expired (a pace that
                # fell behind) was due when it was armed.
                exp_ns, armed = expires[m.group(1)]
                late = (int(m.group(3)) - exp_ns) / 1e9
                cur.setdefault("due", max(ts - late, armed))
            elif m.group(2) == "haltpoll_wake_fn" and m.group(1) in expires:
                # How late the governor's early wakeup came, as
                # early_wakes() measures it.
                cur["early_late"] = (int(m.group(3)) -
                                     expires[m.group(1)][0]) / 1e9
                cur["early_fed"] = not rest.endswith(UNTAKEN)
        elif name == "sched_switch" and cur is None and out:
            out[-1]["switched"] = True
    return out


def early_wakes(events, cpu):
    """How late the project governor's early wakeups on the CPU fired (s).

    From the hrtimer's own events: armed to expire at `expires`, run at
    `now`, both CLOCK_MONOTONIC, so not dated by the idle exit's path.
    All of them, those the governor took no lateness from too (UNTAKEN):
    such a one fired as late as the host ran the vCPU, for the wakeup's
    interrupt first; left out, the samples would lose their late tail.
    """
    expires, late = {}, []
    for ecpu, _, name, rest in events:
        if ecpu != cpu or name not in ("hrtimer_start",
                                       "hrtimer_expire_entry"):
            continue
        m = re.search(r"hrtimer=(\S+) function=haltpoll_wake_fn "
                      r"(?:expires|now)=(\d+)", rest)
        if not m:
            continue
        if name == "hrtimer_start":
            expires[m.group(1)] = int(m.group(2))
        elif m.group(1) in expires:
            late.append((int(m.group(2)) - expires.pop(m.group(1))) / 1e9)
    return late


def wakings(events, cpu):
    """When a task of the CPU was woken (sched_waking, on the waker's CPU)."""
    return [ts for _, ts, name, rest in events if name == "sched_waking"
            and int(re.search(r"target_cpu=(\d+)", rest).group(1)) == cpu]


def lag1_correlation(values):
    """The lag-1 autocorrelation of @values; None for too few or constant."""
    if len(values) < MIN_SAMPLES:
        return None
    mean = statistics.fmean(values)
    var = sum((x - mean) ** 2 for x in values)
    if not var:
        return None
    return sum((a - mean) * (b - mean)
               for a, b in zip(values, values[1:])) / var


def recur_counts(r):
    """Whether the governor counts residency @r's end, which woke no task.

    As haltpoll_recur_counts(): every end but a halt's that the tick or
    the governor's early wakeup came in (a poll ends on a task's wakeup
    or its limit only, so one that ended otherwise was woken too).
    """
    return "haltpoll_wake_fn" not in r["timers"] and not (
        r["state"] == 1 and "tick_nohz_handler" in r["timers"])


def periods(res, woken):
    """Governor periods, each (length_ns, mark), and what the guest counted.

    A period that a task's wakeup ended is cut at the wakeup (sched_waking):
    the CPU's exit from idle comes later, by a few microseconds from a poll
    and by the host's wakeup of a halted vCPU from a halt, and which of the
    two it was is what the simulator decides. The delays are collected:
    the median one from a halt is the simulator's -w. So are the lengths
    of the periods a poll caught, to the poll's end: a timer's interrupt
    comes late to a polling vCPU too under TCG, and the poll lasts until
    it does (in the project's kernel a period its early wakeup ended
    counts its halt as well; print_foresight() takes stock's only).
    A period in which the project governor's early wakeup fired carries
    how late it came (" e NS", or " E NS" where the governor took no
    lateness from it, UNTAKEN): the simulator replays an early wakeup in
    that period as late, not one drawn from all of them, as the host that
    delayed it was then busy or not for the period's wakeup too. One the
    governor armed that early wakeup for carries how long before the idle
    entry it did (" s NS"): it dates the period from its selection. One
    that an interrupt ended with no task woken is marked " i" where the
    governor's haltpoll-recurring-wakeup counts that as a wakeup
    (recur_counts()).
    What the guest counted includes the poll time (s) by what ended each
    poll, POLL_ENDS: a timer of the CPU's (a pacer's sleep), a task's
    wakeup from another CPU, or the window; a poll that something else
    ended (an interrupt that woke no task) is left out.
    """
    counted = {"polls": 0, "caught": 0, "poll_us": 0.0,
               "ends_s": dict.fromkeys(POLL_ENDS, 0.0)}
    delays = {0: [], 1: [], "late": [], "spin": [], "over": [], "gap": [],
              ("late", 0): [], ("late", 1): [], "caught_len": []}
    result, start, w = [], None, 0
    for i, r in enumerate(res):
        nxt = res[i + 1] if i + 1 < len(res) else None
        if start is None:
            start, first_res, early = r["start"], r, None
        if early is None and "early_late" in r:
            early, fed = r["early_late"], r["early_fed"]
        # Only the timer that ended the period counts.
        timer = any(t not in OWN_TIMERS for t in r["timers"])
        if r["state"] == 0:
            counted["polls"] += 1
            counted["poll_us"] += (r["end"] - r["start"]) * 1e6
            ran_out = not r["switched"] and nxt and nxt["state"] == 1
            end_by = "run out" if ran_out else "its timer" if timer else \
                "woken" if r["switched"] else None
            if end_by:
                counted["ends_s"][end_by] += r["end"] - r["start"]
            if ran_out:
                delays["gap"].append(nxt["start"] - r["end"])
                # A poll limited to less than a spin lasts one spin: the
                # shortest window, unless a timer due within it set a
                # shorter limit (the project's; 6.12 polls the window).
                limit = r["start"] + MIN_WINDOW_NS / 1e9
                if r["window"] == MIN_WINDOW_NS and \
                        r.get("pending", math.inf) >= limit:
                    delays["spin"].append(r["end"] - r["start"])
                # A longer one runs past its limit by less than a spin:
                # the first spin is the slow one. Taken where the limit
                # was the window for sure: the largest, a poll that
                # began its period (not one after an early wakeup) and
                # did not end before it (a timer set a shorter limit).
                elif r["window"] == MAX_WINDOW_NS and start == r["start"] \
                        and r["end"] - r["start"] >= r["window"] / 1e9:
                    delays["over"].append(r["end"] - r["start"] -
                                          r["window"] / 1e9)
                continue
            counted["caught"] += 1
        elif "haltpoll_wake_fn" in r["timers"] and nxt and not r["switched"]:
            continue
        end = r["end"]
        # The first wakeup in the period ended it.
        while w < len(woken) and woken[w] < start:
            w += 1
        first = woken[w] if w < len(woken) and woken[w] <= end else None
        mark = ""
        if timer and "due" in r:
            # A timer period lasts until the timer was due, or no time
            # if it was due before the period began.
            late = r["end"] - max(r["due"], start)
            end -= late
            delays["late"].append(late)
            delays[("late", r["state"])].append(late)
            mark = f" t {round(late * 1e9)}"
        elif r["switched"] and first is not None:
            end = first
            delays[r["state"]].append(r["end"] - end)
            mark = f" w {round((r['end'] - end) * 1e9)}" if r["state"] \
                else " w"
        elif timer:
            mark = " t"
        elif "tick_nohz_handler" in r["timers"] and \
                first_res.get("pending", 0) > r["end"]:
            # The tick ended the period before a timer the governor knew.
            mark = f" n {round((first_res['pending'] - start) * 1e9)}"
        elif recur_counts(r):
            mark = " i"
        if "select" in first_res:
            mark += f" s {max(1, round(first_res['select'] * 1e9))}"
        if early is not None:
            # 0 is the simulator's "none": a lateness of 0 is 1 ns.
            mark += f" {'e' if fed else 'E'} {max(1, round(early * 1e9))}"
        result.append((max(1, round((end - start) * 1e9)), mark, start, end))
        if r["state"] == 0:
            delays["caught_len"].append(r["end"] - start)
        start = None
    # The time from each period's end to the next one's start: the CPU's
    # delay in running (where cut at a wakeup) and its run time.
    starts = [per[2] for per in result[1:]] + [result[-1][3] if result else 0]
    lines = [(ns, f"{mark} r {round(max(0.0, nxt - end) * 1e9)}")
             for (ns, mark, _, end), nxt in zip(result, starts)]
    return lines, counted, delays


def quantile_sorted(values, q):
    """quantile() of @values already sorted: no sort per call."""
    return values[min(len(values) - 1, int(q * len(values)))]


def quantile(values, q):
    """The upper nearest-rank @q quantile of @values; 1.0, the largest."""
    return quantile_sorted(sorted(values), q)


def median(values):
    return quantile(values, 0.5) if values else 0


def simulate(sim, path, policy, lead_ns, delays, bracket_ns):
    """Polls caught and poll time (us), one of each per draw sequence.

    A replayed poll runs from its traced entry to the wakeup, plus the
    delay from the wakeup to the traced exit, the delay's mean (a sum of
    polls is compared); it carries the trace's bracket, which cpuidle does
    not count: @bracket_ns per poll is taken off the poll time.
    """
    cmd = [sim, "-j", "-r", "-l", str(lead_ns), "-o", delays["spins"],
           *(["-O", delays["overshoots"]] if delays["overshoots"] else []),
           *(["-W", delays["halt_wakes"]] if delays["halt_wakes"] else []),
           "-g", str(delays["gap_ns"]), "-w",
           f"{delays['halt_wake_ns']},{delays['poll_wake_mean_ns']}"]
    caught, poll_us = [], []
    for seed in range(DRAWS):
        out = json.loads(subprocess.run(cmd + ["-s", str(seed), path],
                                        check=True, capture_output=True,
                                        text=True).stdout)
        o = out["traces"][0]["policies"][policy]
        polls = o["caught"] + o["timer_caught"] + o["timeouts"]
        caught.append(o["caught"] + o["timer_caught"])
        poll_us.append((o["polled_ns"] - polls * bracket_ns) / 1e3)
    return caught, poll_us


def ratio(a, b):
    return a / b if b else (1.0 if a == 0 else float("inf"))


def write_samples(trace, what, values):
    """Write @values (s) in ns next to @trace; its path, None if too few.

    Delays the simulator draws from (-W, -o, -O) are measured per load:
    under TCG they depend on how busy the vCPUs keep the host. With fewer
    than MIN_SAMPLES, the caller falls back to other samples or a median.
    """
    path = f"{os.path.splitext(trace)[0]}-{what}.txt"
    with open(path, "w") as f:
        f.writelines(f"{round(x * 1e9)}\n" for x in values)
    return path if len(values) >= MIN_SAMPLES else None


def record(kernel, path, outdir):
    """Each (load, cpu)'s periods written out, and what the guest counted."""
    traces, gaps, load_spins, load_overs = [], [], {}, {}
    for load, d in parse_log(path).items():
        load_spins[load], load_overs[load] = [], []
        offset = clock_offset(d["events"])
        span = counted_span(d["events"])
        for cpu in sorted({c for (_, c) in d["idle"]}):
            res, unsure = in_count(residencies(d["events"], cpu, offset),
                                   span)
            woken = wakings(d["events"], cpu)
            per, counted, delays = periods(res, woken)
            halts = [r["end"] - r["start"] for r in res if r["state"] == 1]
            early = early_wakes(d["events"], cpu)
            # How late the rule's early wakeup comes: as its own hrtimer
            # fired, else (too few fired) as a halted vCPU's run after a
            # task's wakeup. Timers that ended a halt, dated at the idle
            # exit, come later by the exit's path and fit the guest worse
            # (README).
            lateness = early if len(early) >= MIN_SAMPLES else delays[1]
            # The calibration load measures the trace, not the loads
            # replayed: it adds nothing to the delays they draw from.
            if load != CALIBRATION_LOAD:
                load_spins[load] += delays["spin"]
                load_overs[load] += delays["over"]
                gaps += delays["gap"]
            trace = os.path.join(outdir, f"{kernel}-{load}-cpu{cpu}.txt")
            with open(trace, "w") as f:
                for ns, mark in per:
                    f.write(f"{ns}{mark}\n")
            hp = d["hpstat"].get(("end", cpu))
            b, e = d["idle"][("begin", cpu)], d["idle"][("end", cpu)]
            row = {"kernel": kernel, "load": load, "cpu": cpu,
                   "trace": trace, "periods": len(per),
                   "halt_wakes": write_samples(
                       trace, "early-wakes" if lateness is early
                       else "halt-wakes", lateness),
                   "lead_ns": 0,
                   "halt_wake_ns": round(median(delays[1]) * 1e9),
                   "poll_wake_ns": round(median(delays[0]) * 1e9),
                   "poll_wake_mean_ns": round(
                       (statistics.fmean(delays[0])
                        if len(delays[0]) >= MIN_SAMPLES
                        else median(delays[0])) * 1e9),
                   "timer_late_ns": round(median(delays["late"]) * 1e9),
                   "timer_late_us": {s: [round(x * 1e6, 1) for x in
                                         delays[("late", s)]]
                                     for s in (0, 1)},
                   "ops": d.get("ops"), "latency_us": d.get("latency"),
                   "wake_interval_lag1": lag1_correlation(
                       [b - a for a, b in zip(woken, woken[1:])]),
                   "caught": counted["caught"], "poll_us": e[1] - b[1],
                   "poll_ends_s": counted["ends_s"],
                   "trace_poll_us": round(counted["poll_us"]),
                   "polls": e[0] - b[0], "trace_polls": counted["polls"],
                   "halt_us": e[3] - b[3], "halts": e[2] - b[2],
                   "trace_halts": len(halts),
                   "trace_halt_us": sum(halts) * 1e6,
                   "unsure0": sum(1 for r in unsure if r["state"] == 0),
                   "unsure1": sum(1 for r in unsure if r["state"] == 1),
                   # For print_foresight(), not written out.
                   "caught_s": delays["caught_len"],
                   "lateness_s": lateness,
                   "periods_s": [period_kind(ns, mark) for ns, mark in per]}
            if hp:
                row["hpstat_caught"] = hp[1] - d["hpstat"][("begin", cpu)][1]
                # The model moves the lead with the lateness it draws,
                # from where the load began; without, it keeps the
                # lead the CPU ended with.
                row["lead_ns"] = d["hpstat"][("begin" if row["halt_wakes"]
                                              else "end", cpu)][6]
            traces.append(row)
    # The poll loop's spin is slower the busier the vCPUs keep the host:
    # per load where enough polls timed out at the shortest window,
    # else over all loads.
    spins = [x for values in load_spins.values() for x in values]
    spins_path = os.path.join(outdir, f"{kernel}-spins.txt")
    with open(spins_path, "w") as f:
        f.writelines(f"{round(x * 1e9)}\n" for x in spins)
    overs = [x for values in load_overs.values() for x in values]
    overs_path = write_samples(os.path.join(outdir, f"{kernel}.txt"),
                               "overshoots", overs)
    for load, values in load_spins.items():
        path = write_samples(os.path.join(outdir, f"{kernel}-{load}.txt"),
                             "spins", values)
        spin_ns = round(median(values if path else spins) * 1e9)
        over = write_samples(os.path.join(outdir, f"{kernel}-{load}.txt"),
                             "overshoots", load_overs[load]) or overs_path
        for row in traces:
            if row["load"] == load:
                row["spins"], row["spin_ns"] = path or spins_path, spin_ns
                row["overshoots"] = over
    for row in traces:
        row["gap_ns"] = round(median(gaps) * 1e9)
        row["overshoot_ns"] = round(median(overs) * 1e9)
    return traces


def print_comparison(totals):
    """What the simulator says of project against stock, and the guest."""
    if set(totals) != {"project", "stock"}:
        return
    p, s = totals["project"], totals["stock"]
    print("info    project / stock, simulated and live:")
    for load in p:
        if load not in s:
            continue
        print(f"        {load:9} caught"
              f" {ratio(p[load]['sim_caught'], s[load]['sim_caught']):5.2f}"
              f" / {ratio(p[load]['caught'], s[load]['caught']):5.2f},"
              f" poll time"
              f" {ratio(p[load]['sim_poll_us'], s[load]['sim_poll_us']):5.2f}"
              f" / {ratio(p[load]['poll_us'], s[load]['poll_us']):5.2f}")


def print_poll_ends(rows):
    """Each kernel's paced poll time by what ended each poll, over stock's.

    As traced (each poll a bracket longer than cpuidle counts it), summed
    over the paced loads. A timer of the polling CPU's own ends a pacer's
    sleep: a governor cannot tell it from cyclictest's, whose latency the
    targets hold to stock's.
    """
    sums = defaultdict(lambda: dict.fromkeys(POLL_ENDS, 0.0))
    for row in rows:
        if row["load"].startswith("pace"):
            for end, secs in row["poll_ends_s"].items():
                sums[row["kernel"]][end] += secs
    base = sum(sums["stock"].values())
    if not base:
        return
    print("info    paced poll time as traced, by what ended each poll, over"
          f" stock's ({' / '.join(POLL_ENDS)} = sum):")
    for kernel, by_end in sums.items():
        print(f"        {kernel:8} " +
              " / ".join(f"{by_end[e] / base:.2f}" for e in POLL_ENDS) +
              f" = {sum(by_end.values()) / base:.2f}")


def print_lateness(kernel, rows):
    """How late a timer's interrupt came, to a polling and a halted CPU.

    Under TCG a halted vCPU's timer is delivered by the emulator's timer
    thread, which needs a host CPU: the more the vCPUs poll, the later it
    comes, and the longer the lead an early wakeup must take.
    """
    print(f"info    {kernel}: a timer ends a period late by (median us,"
          " periods) polling / halted:")
    by_load = defaultdict(lambda: {0: [], 1: []})
    for row in rows:
        for state, late in row["timer_late_us"].items():
            by_load[row["load"]][state] += late
    for load, late in by_load.items():
        cells = [f"{median(late[s]):6.1f} ({len(late[s])})" if late[s]
                 else "-" for s in (0, 1)]
        print(f"        {load:9} {cells[0]:>14} / {cells[1]:>14}")


def foresight_poll(lengths, lateness, lead):
    """Poll time (s) and misses of catching @lengths knowing them ahead.

    A CPU that knows its idle period ends in L can halt and set an early
    wakeup @lead before L, polling from when that wakeup comes: after L -
    @lead plus its lateness, drawn from @lateness. A period no longer than
    the lead is polled for whole; one whose early wakeup comes later than
    the lead is missed. Expected values over @lateness, which the caller
    makes sure is not empty.
    """
    spare = sum(lead - x for x in lateness if x <= lead) / len(lateness)
    late = sum(1 for x in lateness if x > lead) / len(lateness)
    n_long = sum(1 for x in lengths if x > lead)
    return (sum(x for x in lengths if x <= lead) + n_long * spare,
            n_long * late)


def foresight_level(q):
    """How print_foresight() names a level of FORESIGHT_LEVELS."""
    return "whole" if q is None else f"q{round(q * 100)}"


def foresight_extra_us(row, lateness_rows):
    """What a catch missed costs a round trip (us), on @row's CPU and load.

    A miss leaves the CPU halted when the wakeup comes: it wakes as a
    halted vCPU does (the median delay from a task's wakeup to the exit
    from a halt), not as a polling one. Both delays are the project's,
    as the lateness is; none if either was not measured.
    """
    r = lateness_rows.get((row["load"], row["cpu"]))
    if not r or not r["halt_wake_ns"] or not r["poll_wake_ns"]:
        return None
    return max(0, r["halt_wake_ns"] - r["poll_wake_ns"]) / 1e3


def project_with_lateness(rows):
    """The project's rows by (load, cpu), where its early wakeups' lateness
    was measured: what the foresight and schedule estimates draw on."""
    return {(r["load"], r["cpu"]): r for r in rows
            if r["kernel"] == "project" and r["lateness_s"]}


def print_foresight(rows, bracket_s):
    """What keeping stock's catches costs in poll time, knowing them ahead.

    Each period stock's poll caught is caught again with no poll wasted,
    by foresight_poll(): polled for whole, or with the lead at a quantile
    of the lateness the project's early wakeups had on that CPU and load
    (a halted vCPU's wakeup delay where too few fired). The periods are
    taken from the trace, less @bracket_s, what it adds to a poll
    (trace_bracket_ns()). Summed over the paced loads and divided by
    stock's counted poll time. An estimate, not a bound: it leaves out a
    halt's exit and entry, but the lateness is that beside the project's
    polling (a TCG host that polled less would deliver timers sooner),
    one lead serves each CPU and load, and a period ended by a timer
    counts how late the timer reached the polling vCPU.

    Each miss adds foresight_extra_us() to stock's latency, spread over
    the load's round trips: the latency such a governor would have, over
    stock's as the guest measured it. A level that meets the summed poll
    target and every paced load's latency bound is one a governor could
    aim for if it could foretell each period; if none does, the targets
    conflict on this host. How far a period can be foretold from the last
    one is printed last: the lag-1 autocorrelation of the intervals
    between the CPU's task wakeups (squared, the share of an interval's
    variance that the last one explains).
    """
    project = project_with_lateness(rows)
    stock = [r for r in rows if r["kernel"] == "stock"]
    left = [f"{r['load']} cpu{r['cpu']}" for r in stock
            if (r["load"], r["cpu"]) not in project]
    stock = [r for r in stock if (r["load"], r["cpu"]) in project]
    if not stock:
        return
    print("info    stock's catches with no poll wasted, known ahead: poll"
          " time / stock's counted (misses / stock's catches) and the"
          " latency the misses add / stock's, polling each whole, then"
          " halting first with the lead at quantiles of the lateness ("
          + ", ".join(foresight_level(q) for q in FORESIGHT_LEVELS) + "):")
    if left:
        print("        left out, no lateness measured: " + ", ".join(left))
    sums, worst = defaultdict(float), {}
    for load in dict.fromkeys(r["load"] for r in stock):
        cpus = [r for r in stock if r["load"] == load]
        counted = sum(r["poll_us"] for r in cpus)
        cells = []
        for q in FORESIGHT_LEVELS:
            poll_us, misses, lat = foresight_load(cpus, project, bracket_s, q)
            if load.startswith("pace"):
                sums[q] += poll_us
                if lat:
                    worst[q] = max(worst.get(q, 0), lat)
            cells.append(f"{ratio(poll_us, counted):4.2f} ({misses:4.2f})" +
                         (f" {lat:4.2f}" if lat else " -"))
        print(f"        {load:9} " + "; ".join(cells))
    paced = sum(r["poll_us"] for r in stock if r["load"].startswith("pace"))
    print_foresight_paced({q: ratio(sums[q], paced) for q in sums}, worst)
    print("        how far the last interval between a CPU's task wakeups"
          " foretells the next (lag-1 autocorrelation, stock's trace): " +
          "; ".join(f"{r['load']} cpu{r['cpu']} {r['wake_interval_lag1']:.2f}"
                    for r in stock if r["load"].startswith("pace") and
                    r["wake_interval_lag1"] is not None))


def foresight_load(cpus, project, bracket_s, q):
    """A load's foresight at level @q, over its stock rows @cpus.

    Return: the poll time (us), the misses over stock's catches, and the
    latency over stock's with each miss priced by foresight_extra_us()
    (None where the guest printed no latency).
    """
    poll_s = missed = added_us = 0.0
    for row in cpus:
        poll, miss = foresight_cost(row, project, bracket_s, q)
        poll_s, missed = poll_s + poll, missed + miss
        extra = foresight_extra_us(row, project)
        if miss and extra is not None and row["ops"]:
            added_us += miss * extra / row["ops"]
    lat = cpus[0]["latency_us"]
    return (poll_s * 1e6, ratio(missed, sum(r["caught"] for r in cpus)),
            1 + added_us / lat if lat else None)


def print_foresight_paced(summed, worst):
    """The paced loads' summed poll and highest latency, level by level."""
    if not summed:
        return
    print("        paced, summed poll: " + "; ".join(
        f"{summed[q]:4.2f}" for q in FORESIGHT_LEVELS))
    if not worst:
        return
    print("        paced, highest latency: " + "; ".join(
        f"{worst[q]:4.2f}" if q in worst else "-" for q in FORESIGHT_LEVELS))
    both = [foresight_level(q) for q in FORESIGHT_LEVELS
            if worst.get(q, LATENCY_MAX + 1) <= LATENCY_MAX
            and summed[q] <= SUMMED_POLL_MAX]
    print(f"        levels meeting the summed poll ({SUMMED_POLL_MAX}) and"
          f" every paced latency ({LATENCY_MAX}): " +
          (", ".join(both) or "none"))


def foresight_cost(row, project, bracket_s, q):
    """foresight_poll() of a stock @row, with the lateness of the @project
    row of its load and CPU; polled whole if @q is None."""
    lengths = [max(0.0, x - bracket_s) for x in row["caught_s"]]
    if q is None:
        return sum(lengths), 0
    late = project[(row["load"], row["cpu"])]["lateness_s"]
    return foresight_poll(lengths, late, quantile(late, q))


def period_kind(ns, mark):
    """A written period (periods()) as (length_s, kind, polled_catch).

    The kind is the mark's letter: "w" a task's wakeup ended it, "t" a
    timer, "n" the tick before a known timer, "i" an interrupt that woke
    no task, "" anything else. A wakeup with no delay after it ended a
    poll: the poll caught it.
    """
    words = mark.split()
    kind = words[0] if words and words[0] in "wtni" else ""
    caught = kind == "w" and (len(words) == 1 or not words[1].isdigit())
    return ns / 1e9, kind, caught


class Schedule:
    """A stock CPU's periods other than its timers', to replay schedules on.

    A schedule halts from the idle entry until an early wakeup (or not at
    all), polls from when that wakeup comes until a wakeup or its reach,
    and halts after. Built from a stock @row, less @bracket_s a period.
    """

    def __init__(self, row, bracket_s):
        rest = [(max(0.0, x - bracket_s), k) for x, k, _ in row["periods_s"]
                if k != "t"]
        self.lengths = sorted(x for x, _ in rest)
        self.sums = [0.0] + list(itertools.accumulate(self.lengths))
        self.woken = sorted(x for x, k in rest if k == "w")
        # cpuidle counts a caught poll until the CPU leaves it.
        self.exit_s = row["poll_wake_mean_ns"] / 1e9
        self.spin_s = row["spin_ns"] / 1e9
        self.over_s = row["overshoot_ns"] / 1e9
        self.caught = sum(1 for _, _, c in row["periods_s"] if c)
        self.own_timers = any(k == "t" for _, k, _ in row["periods_s"])

    def reach_s(self, limit_s):
        """How long a poll limited to @limit_s lasts if nothing ends it.

        The poll loop reads the clock between spins: a poll lasts at
        least one, and runs past its limit by the overshoot (medians).
        """
        return max(self.spin_s, limit_s + self.over_s)

    def cost(self, start_s, end_s):
        """Poll time (s) and task wakeups caught, polling from @start_s
        to @end_s after the idle entry; sorted lengths and their prefix
        sums make it a few bisections."""
        a = self.lengths
        i = bisect.bisect_left(a, start_s)
        j = bisect.bisect_right(a, end_s)
        caught = bisect.bisect_right(self.woken, end_s) - \
            bisect.bisect_left(self.woken, start_s)
        poll = self.sums[j] - self.sums[i] - (j - i) * start_s + \
            (len(a) - j) * (end_s - start_s) + caught * self.exit_s
        return poll, caught


def schedule_front(sched, lateness, limits, per_op_us):
    """The schedules of one CPU that no other beats on both counts.

    Each (poll_s, gain_us, halt_s, limit_s): the expected poll time and
    the latency per round trip its catches save (@per_op_us each), over
    SCHEDULE_LATENESS_DRAWS quantiles of @lateness (the early wakeup
    comes that late; a halt of 0 has none), for each halt in
    SCHEDULE_STEP_NS steps and each poll limit of @limits; and halting
    throughout (halt None), which polls for nothing.
    """
    lateness = sorted(lateness)
    draws = [quantile_sorted(lateness, (i + 0.5) / SCHEDULE_LATENESS_DRAWS)
             for i in range(SCHEDULE_LATENESS_DRAWS)]
    points = [(0.0, 0.0, None, 0.0)]
    for step in range(SCHEDULE_HALT_MAX_NS // SCHEDULE_STEP_NS + 1):
        halt_s = step * SCHEDULE_STEP_NS / 1e9
        late = draws if halt_s else [0.0]
        for limit_s in limits:
            reach_s = sched.reach_s(limit_s)
            costs = [sched.cost(halt_s + x, halt_s + x + reach_s)
                     for x in late]
            poll = statistics.fmean(c[0] for c in costs)
            caught = statistics.fmean(c[1] for c in costs)
            points.append((poll, caught * per_op_us, halt_s, limit_s))
    points.sort(key=lambda p: (-p[1], p[0]))
    front, least = [], math.inf
    for p in points:
        if p[0] < least:
            front.append(p)
            least = p[0]
    return front


def schedule_cpus(cpus, project, bracket_s):
    """Each stock row of @cpus with its Schedule, the latency one of its
    catches saves per round trip (us), and the poll time (s) the project
    gave the CPU's own timers; None if a delay was not measured."""
    out = []
    for row in cpus:
        key = (row["load"], row["cpu"])
        extra_us = foresight_extra_us(row, project)
        if extra_us is None or not row["ops"]:
            return None
        out.append((row, Schedule(row, bracket_s), extra_us / row["ops"],
                    project[key]["poll_ends_s"]["its timer"]))
    return out


def schedule_load(cpus, project, limits):
    """The pair of schedules that polls least within the latency.

    @cpus from schedule_cpus(). Return: (poll time us, latency over
    stock's, [(cpu, halt_s, limit_s, reach_s)]), None if no pair keeps
    the latency within LATENCY_MAX of stock's.
    """
    lat_us = cpus[0][0]["latency_us"]
    fronts = []
    for row, sched, per_op_us, timer_s in cpus:
        front = schedule_front(sched, project[(row["load"], row["cpu"])]
                               ["lateness_s"], limits, per_op_us)
        # Latency added per round trip, against stock's catches.
        fronts.append([(poll + timer_s,
                        sched.caught * per_op_us - gain, halt, limit)
                       for poll, gain, halt, limit in front])
    budget_us = (LATENCY_MAX - 1) * lat_us
    best = None
    for pair in itertools.product(*fronts):
        added_us = sum(p[1] for p in pair)
        poll_s = sum(p[0] for p in pair)
        if added_us <= budget_us and (best is None or poll_s < best[0]):
            best = (poll_s, added_us, pair)
    if best is None:
        return None
    picks = [(row["cpu"], p[2], p[3], sched.reach_s(p[3]))
             for (row, sched, _, _), p in zip(cpus, best[2])]
    return best[0] * 1e6, 1 + best[1] / lat_us, picks


def schedule_pick(cpu, halt_s, limit_s, reach_s):
    """How print_schedule_estimate() names a CPU's schedule."""
    if halt_s is None:
        return f"cpu{cpu} halt"
    return (f"cpu{cpu} {halt_s * 1e6:.0f}+{limit_s * 1e6:.0f}"
            f"~{reach_s * 1e6:.0f}")


def print_schedule_estimate(rows, bracket_s):
    """The least poll time one fixed schedule per CPU and load could have.

    Each CPU of each paced load gets the one schedule (Schedule) that,
    with the other CPU's, polls least over stock's trace while the
    misses it adds, each priced as print_foresight() prices one, keep
    the load's latency within LATENCY_MAX of stock's; a catch stock
    missed is credited as much, on either CPU. Halts run to past every
    paced load's periods, poll limits to guest_halt_poll_ns's default,
    each reaching as far as such a poll does (Schedule.reach_s()), and
    halting throughout is one schedule. The CPU's own timers, which a
    governor knows ahead, count as the project polled for them, trace
    bracket and all; early wakeups come as late as the project's on
    that CPU and load (its halted wakeups' delay where fewer than
    MIN_SAMPLES fired, as for print_foresight()). Chosen knowing the
    whole trace, it is a schedule a governor that learns from the past
    could only approach; unlike print_foresight()'s, that governor
    knows no period ahead, only the spread of them all. An estimate,
    not a bound: it leaves out a halt's entry and exit, and replays the
    schedules on stock's periods, which a policy moves (tools/sim/README).

    Two checks follow. A plain window at the largest limit, where
    stock's window sits while it catches its wakeups, against stock's
    counted poll time and catches on the CPUs no timer of their own
    wakes and whose wakeups stock mostly caught. And plain windows at
    WINDOW_REPLAYS_NS on both CPUs, as a live run of the project's kernel
    with guest_halt_poll_recurring=N, guest_halt_poll_allow_shrink=N and
    guest_halt_poll_grow_start and guest_halt_poll_ns at the window has
    them on a CPU that no timer of its own wakes: that CPU's poll time
    and the load's latency over stock's.
    """
    project = project_with_lateness(rows)
    stock = [r for r in rows if r["kernel"] == "stock" and
             r["load"].startswith("pace") and
             (r["load"], r["cpu"]) in project]
    if not stock:
        return
    limits = [n * SCHEDULE_STEP_NS / 1e9
              for n in range(1, MAX_WINDOW_NS // SCHEDULE_STEP_NS + 1)]
    print("info    one schedule per CPU and load, chosen knowing stock's"
          " whole trace (halt + poll limit ~ the poll's reach, us), the"
          f" least poll time with latency within {LATENCY_MAX} of"
          " stock's: poll time / stock's counted (the project's counted),"
          " latency / stock's:")
    summed = counted = project_counted = 0.0
    left, loads = [], {}
    for load in dict.fromkeys(r["load"] for r in stock):
        rows_load = [r for r in stock if r["load"] == load]
        cpus = schedule_cpus(rows_load, project, bracket_s)
        best = schedule_load(cpus, project, limits) \
            if cpus and rows_load[0]["latency_us"] else None
        if best is None:
            left.append(load)
            print(f"        {load:9} none: " +
                  ("no pair within the latency" if cpus and
                   rows_load[0]["latency_us"] else "a delay not measured"))
            continue
        loads[load] = cpus
        load_counted = sum(r["poll_us"] for r in rows_load)
        load_project = sum(project[(load, r["cpu"])]["poll_us"]
                           for r in rows_load)
        poll_us, lat, picks = best
        summed += poll_us
        counted += load_counted
        project_counted += load_project
        print(f"        {load:9} {ratio(poll_us, load_counted):4.2f}"
              f" ({ratio(load_project, load_counted):4.2f}) {lat:5.3f} " +
              ", ".join(schedule_pick(*p) for p in picks))
    print("        paced, summed poll: " +
          (f"{ratio(summed, counted):4.2f} (the project's counted"
           f" {ratio(project_counted, counted):4.2f})" if not left else
           "n/a, " + ", ".join(left) + " left out"))
    print_schedule_checks(loads, limits[-1])


def print_schedule_checks(loads, top_s):
    """print_schedule_estimate()'s two checks, over @loads' CPUs."""
    checks = []
    for cpus in loads.values():
        for row, sched, _, _ in cpus:
            if sched.own_timers or 2 * sched.caught < len(sched.woken):
                continue
            poll, caught = sched.cost(0.0, sched.reach_s(top_s))
            checks.append(f"{row['load']} cpu{row['cpu']} poll"
                          f" {ratio(poll * 1e6, row['poll_us']):.2f}, caught"
                          f" {ratio(caught, sched.caught):.2f}")
    print(f"        check, a {top_s * 1e6:.0f} us window replayed /"
          " stock's counted: " + ("; ".join(checks) or "none"))
    for window_ns in WINDOW_REPLAYS_NS:
        cells = []
        for load, cpus in loads.items():
            added_us, own = 0.0, []
            for row, sched, per_op_us, _ in cpus:
                poll, caught = sched.cost(
                    0.0, sched.reach_s(window_ns / 1e9))
                added_us += (sched.caught - caught) * per_op_us
                if not sched.own_timers:
                    own.append(f"cpu{row['cpu']}"
                               f" {ratio(poll * 1e6, row['poll_us']):.2f}")
            lat = 1 + added_us / cpus[0][0]["latency_us"]
            cells.append(f"{load} {' '.join(own)} latency {lat:.3f}")
        print(f"        a {window_ns / 1e3:.0f} us window on both CPUs,"
              " poll time / stock's counted where no own timer: " +
              "; ".join(cells))


def calibrate_bracket_ns(kernel, recorded):
    """The trace's bracket of a poll (ns) per CPU, from the calibration load.

    Measured on a load apart from those compared, whose polls the trace
    and cpuidle both counted whole (trace_bracket_ns()), so that taking it
    off the replays does not take it from the very counts they are
    checked against: each CPU's own where its calibration polls were all
    counted, else the mean over those that were. {} (0 for every CPU),
    with a note, where the log has no such load.
    """
    rows = [r for r in recorded if r["load"] == CALIBRATION_LOAD]
    own = {r["cpu"]: trace_bracket_ns([r])[0] for r in rows}
    own = {cpu: ns for cpu, (ns, polls) in own.items() if polls}
    pooled, polls = trace_bracket_ns(rows)[0] if rows else (0, 0)
    if not polls:
        print(f"info    {kernel}: no {CALIBRATION_LOAD} load counted whole:"
              " replayed polls keep the trace's bracket")
        return {}
    brackets = {r["cpu"]: own.get(r["cpu"], pooled) for r in recorded}
    print(f"info    {kernel}: a poll's trace bracket from the"
          f" {CALIBRATION_LOAD} load, taken off each replayed poll: " +
          ", ".join(f"cpu{cpu} {ns / 1e3:.2f} us" +
                    ("" if cpu in own else " (the others')")
                    for cpu, ns in sorted(brackets.items())))
    return brackets


def main():
    if len(sys.argv) < 3 or sys.argv[1] in ("-h", "--help"):
        print("usage: validate.py SIMULATOR OUTDIR KERNEL=CONSOLE_LOG...\n"
              "(run by tools/sim/validate)")
        return 0 if sys.argv[1:2] in (["-h"], ["--help"]) else 2
    sim, outdir = sys.argv[1], sys.argv[2]
    logs = dict(a.split("=", 1) for a in sys.argv[3:])
    os.makedirs(outdir, exist_ok=True)
    rows, failed, totals, costs, brackets = [], 0, {}, {}, {}
    print(f"{'kernel':8} {'load':9} {'cpu':>3} {'caught':>15} {'ratio':>6}"
          f" {'poll_us':>21} {'ratio':>6}  (simulated / counted)")
    for kernel, path in logs.items():
        tot = defaultdict(lambda: defaultdict(float))
        recorded = record(kernel, path, outdir)
        brackets[kernel] = calibrate_bracket_ns(kernel, recorded)
        recorded = [r for r in recorded if r["load"] != CALIBRATION_LOAD]
        cost = costs[kernel] = trace_bracket_ns(recorded)
        draws = defaultdict(lambda: [[0] * DRAWS, [0.0] * DRAWS])
        for row in recorded:
            caught, poll_us = simulate(sim, row["trace"], POLICY[kernel],
                                       row["lead_ns"], row,
                                       brackets[kernel].get(row["cpu"], 0))
            row["sim_caught"] = median(caught)
            sim_poll = median(poll_us)
            row["sim_poll_us"] = round(sim_poll)
            rows.append(row)
            for k in ("caught", "poll_us"):
                tot[row["load"]][k] += row[k]
            for i in range(DRAWS):
                draws[row["load"]][0][i] += caught[i]
                draws[row["load"]][1][i] += poll_us[i]
            print(f"{kernel:8} {row['load']:9} {row['cpu']:>3}"
                  f" {row['sim_caught']:>7} / {row['caught']:<6}"
                  f" {ratio(row['sim_caught'], row['caught']):6.2f}"
                  f" {sim_poll:>9.0f} / {row['poll_us']:<9}"
                  f" {ratio(sim_poll, row['poll_us']):6.2f}")
        spin_us = sorted(r["spin_ns"] / 1e3 for r in rows
                         if r["kernel"] == kernel)
        print(f"        {kernel}: a poll loop's spin takes"
              f" {spin_us[0]:.0f} to {spin_us[-1]:.0f} us by load, the halt"
              f" comes {rows[-1]['gap_ns'] / 1e3:.0f} us after a poll"
              " (medians)")
        print_lateness(kernel, [r for r in rows if r["kernel"] == kernel])
        print(f"info    {kernel}: the trace brackets a residency longer"
              " than cpuidle counts it by " + ", ".join(
                  f"{cost[st][0] / 1e3:.2f} us ({cost[st][1]} {what})"
                  if cost[st][1] else f"n/a (no {what} all counted)"
                  for st, what in ((0, "polls"), (1, "halts"))))
        for load, t in tot.items():
            rcs = sorted(ratio(x, t["caught"]) for x in draws[load][0])
            rps = sorted(ratio(x, t["poll_us"]) for x in draws[load][1])
            rc, rp = median(rcs), median(rps)
            t["sim_caught"] = median(draws[load][0])
            t["sim_poll_us"] = median(draws[load][1])
            ok = abs(rc - 1) <= TOLERANCE and abs(rp - 1) <= TOLERANCE
            failed += not ok
            print(f"{'ok' if ok else 'FAIL':7} sim-vs-live: {kernel} {load}:"
                  f" caught {rc:.2f} [{rcs[0]:.2f}, {rcs[-1]:.2f}],"
                  f" poll time {rp:.2f} [{rps[0]:.2f}, {rps[-1]:.2f}]"
                  f" (simulated / counted, median [range] of {DRAWS}"
                  f" draws, target within {TOLERANCE:.0%})")
        totals[kernel] = tot
    print_comparison(totals)
    print_poll_ends(rows)
    if "stock" in costs:
        # The calibration's bracket where measured, not the compared
        # loads' own (printed above, as the trace's and cpuidle's).
        cal = brackets["stock"]
        bracket_ns = (sum(cal.values()) / len(cal) if cal
                      else costs["stock"][0][0])
        print_foresight(rows, bracket_ns / 1e9)
        print_schedule_estimate(rows, bracket_ns / 1e9)
    with open(os.path.join(outdir, "validate.json"), "w") as f:
        json.dump([{k: v for k, v in r.items()
                    if k not in ("caught_s", "lateness_s", "periods_s")}
                   for r in rows],
                  f, indent=1)
    print(f"{len(rows)} traces; {failed} kernel/load pairs outside"
          f" {TOLERANCE:.0%}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
