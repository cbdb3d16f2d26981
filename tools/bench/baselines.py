#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the guest's RESULT lines into medians, ratios and a JSON record;
with --cost, also the host CPU time QEMU used per second of each phase."""

import argparse
import json
import os
import statistics
import sys

# name: (numerator, denominator, bound) -- the project's targets.
TARGETS = {
    "x86_64": [
        ("haltpoll / no_driver", "haltpoll", "no_driver", 0.45),
        ("haltpoll / idle_poll", "haltpoll", "idle_poll", 1.2),
        ("haltpoll_poll_off / no_driver", "haltpoll_poll_off", "no_driver", 1.1),
    ],
    "arm64": [
        ("haltpoll / no_driver", "haltpoll", "no_driver", 0.62),
        ("haltpoll_poll_off / no_driver", "haltpoll_poll_off", "no_driver", 1.1),
    ],
}


# The cost targets, x86_64: (label, config, load, against, metric, bound).
COST_TARGETS = {
    "x86_64": [
        ("idle cost, haltpoll / no_driver", "haltpoll", "idle", "no_driver", "cost", 1.1),
        ("pace50 latency, haltpoll / idle_poll", "haltpoll", "pace50", "idle_poll", "latency", 1.25),
        ("pace50 cost, haltpoll / idle_poll", "haltpoll", "pace50", "idle_poll", "cost", 0.5),
        ("pace150 latency, haltpoll / idle_poll", "haltpoll", "pace150", "idle_poll", "latency", 1.25),
        ("pace150 cost, haltpoll / idle_poll", "haltpoll", "pace150", "idle_poll", "cost", 0.5),
        ("pace1000 cost, haltpoll / no_driver", "haltpoll", "pace1000", "no_driver", "cost", 1.1),
    ],
    "arm64": [
        ("idle cost, haltpoll / no_driver", "haltpoll", "idle", "no_driver", "cost", 1.1),
        ("pace1000 cost, haltpoll / no_driver", "haltpoll", "pace1000", "no_driver", "cost", 1.1),
    ],
}
# The loads of tools/guest/bench/cost.sh, in the order tables show them.
COST_LOADS = ["idle", "pace50", "pace150", "pace1000"]


def read_record(path):
    """The JSON record at path, {} if there is none; exits if it is not a
    JSON object, which holds earlier runs that a new one must not drop.
    tools/bench/run calls it before its boots, so that such a record
    fails the run before, not after them."""
    record = {}
    try:
        with open(path) as f:
            record = json.load(f)
    except FileNotFoundError:
        pass
    except ValueError as e:
        sys.exit(f"{path}: not JSON ({e}); move it aside to start anew")
    if not isinstance(record, dict):
        sys.exit(f"{path}: not a JSON object; move it aside to start anew")
    return record


def update_record(path, fields):
    """Merge fields into the JSON record at path (read_record()), keeping
    the keys other scripts wrote there (versus.py's, lateness.py's).
    Written whole and renamed into place, so that an interrupted run
    never leaves half a file."""
    record = read_record(path)
    record.update(fields)
    with open(path + ".tmp", "w") as f:
        json.dump(record, f, indent=2)
    os.replace(path + ".tmp", path)


def sample_phase(words):
    """The phase a sampler line's last word names: "config_load", "none"."""
    return words[-1].strip("@").replace("PHASE_", "")


def phase_busy(samples_path, column=1):
    """Host CPU seconds and wall seconds of each phase, from the sampler's
    lines "TIME ALL_NS [VCPU_NS [VCPU_WAIT_NS cpus=... [busy=N]]]
    @@PHASE_config_load@@" (column 1: all of QEMU's threads; 2: its vCPU
    threads; 3: the time they waited for a host CPU, where sampled; the
    placement words are phase_placement()'s): an interval counts
    for a phase only when both its ends lie in it, so phase edges do not
    smear. The CPU time sums the live threads' run times, so an interval in
    which a thread exited (its time leaves the sum) is dropped."""
    busy, wall, prev = {}, {}, None
    with open(samples_path) as f:
        for line in f:
            words = line.split()
            if len(words) < 3 or column >= len(words) - 1 or \
               not words[column].isdigit():
                continue
            t, cpu_ns = float(words[0]), float(words[column])
            phase = sample_phase(words)
            if prev and prev[2] == phase and phase != "none" and cpu_ns >= prev[1]:
                busy[phase] = busy.get(phase, 0) + (cpu_ns - prev[1]) / 1e9
                wall[phase] = wall.get(phase, 0) + t - prev[0]
            prev = (t, cpu_ns, phase)
    return busy, wall


def parse_guest_line(words, table, hpstat):
    """LATENCY/PERIOD config load usecs (a load runs several times: their
    mean), and HPSTAT config load when cpu window caught timed_out
    wasted_ns (the governor's counters)."""
    if len(words) == 4 and words[0] in ("LATENCY", "PERIOD"):
        cell = table.setdefault(words[1], {}).setdefault(words[2], {})
        runs = cell.setdefault("runs_" + words[0].lower(), [])
        runs.append(float(words[3]))
        # Each run of a load has the same number of round trips.
        cell[words[0].lower()] = statistics.mean(runs)
    elif len(words) >= 9 and words[0] == "HPSTAT":
        config, load, when, cpu = words[1:5]
        counters = [int(w) for w in words[6:9]]
        entry = hpstat.setdefault((config, load, cpu), {"sum": [0, 0, 0]})
        if when == "begin":
            entry["begin"] = counters
        elif "begin" in entry:
            entry["sum"] = [s + e - b for s, b, e in
                            zip(entry["sum"], entry.pop("begin"), counters)]


def poll_counts(hpstat):
    """{config: {load: {cpu: (caught, timed_out, wasted_ms)}}} over each
    load, from the counters at its beginnings and its ends."""
    counts = {}
    for (config, load, cpu), entry in hpstat.items():
        caught, timed_out, wasted_ns = entry["sum"]
        counts.setdefault(config, {}).setdefault(load, {})[cpu] = (
            caught, timed_out, wasted_ns / 1e6)
    return counts


def parse_cost(paths):
    """{config: {load: {"cost": cpus, "latency": usecs, "period": usecs}}}
    and the governor's poll counts per load (see poll_counts())."""
    table, hpstat, busy, wall = {}, {}, {}, {}
    for path in paths:
        if path.endswith(".samples"):
            # Several boots of a mode: their phases of one name add up.
            b, w = phase_busy(path)
            for phase in b:
                busy[phase] = busy.get(phase, 0) + b[phase]
                wall[phase] = wall.get(phase, 0) + w[phase]
            continue
        with open(path) as f:
            for line in f:
                parse_guest_line(line.split(), table, hpstat)
    for phase in busy:
        if wall[phase] > 0:
            config, load = phase.rsplit("_", 1)
            cell = table.setdefault(config, {}).setdefault(load, {})
            cell["cost"] = busy[phase] / wall[phase]
    return table, poll_counts(hpstat)


def report_polls(counts):
    """What the governor did during each load: that is what the cost of
    haltpoll is made of."""
    for config, loads in counts.items():
        print(f"  {config} per CPU: polls caught / timed out, poll time wasted")
        for load in COST_LOADS:
            cpus = loads.get(load, {})
            cells = "   ".join(f"cpu{cpu} {c}/{t} {w:.1f}ms"
                               for cpu, (c, t, w) in sorted(cpus.items()))
            print(f"    {load:10s} {cells}")


def verdict(label, value, bound, ok, quick):
    """One target line; a quick run (make run) leaves out the verdict of
    a target it misses: README says which ones TCG cannot show."""
    if ok:
        goal = f"target <= {bound}" if bound else "no target"
        print(f"  {label:40s} {value:6.3f}   {goal:14s} met")
    elif quick:
        print(f"  {label:40s} {value:6.3f}")
    else:
        print(f"  {label:40s} {value:6.3f}   target <= {bound:<5} MISSED")


def report_cost(arch, table, quick):
    loads = COST_LOADS
    print(f"\n{arch} host CPU cost (QEMU CPU seconds per second) and latency"
          " (usecs per round trip)")
    print("  (cost, latency, and the period a paced load achieved: longer than"
          " asked\n   means the round trips could not keep up, less work was"
          " offered)")
    print(f"  {'config':12s}" + "".join(f"{l:>28s}" for l in loads))
    for config, row in table.items():
        cells = []
        for load in loads:
            c = row.get(load, {})
            cost = f"{c['cost']:.3f}" if "cost" in c else "-"
            lat = f"{c['latency']:.1f}us" if "latency" in c else ""
            period = f"/{c['period']:.0f}us" if "period" in c else ""
            cells.append(f"{cost:>10s} {lat:>9s} {period:>7s}")
        print(f"  {config:12s}" + "".join(cells))
    results, met = [], True
    for label, config, load, against, metric, bound in COST_TARGETS[arch]:
        try:
            value = table[config][load][metric] / table[against][load][metric]
        except (KeyError, ZeroDivisionError):
            print(f"  {label}: missing measurements")
            met = False
            continue
        ok = value <= bound
        met = met and ok
        verdict(label, value, bound, ok, quick)
        results.append({"ratio": label, "value": round(value, 4),
                        "target_max": bound, "met": ok})
    return results, met


def parse(paths):
    runs, clocksources = {}, set()
    for path in paths:
        with open(path) as f:
            for line in f:
                words = line.split()
                if len(words) == 3 and words[0] == "RESULT":
                    runs.setdefault(words[1], []).append(float(words[2]))
                elif len(words) == 2 and words[0] == "CLOCKSOURCE":
                    clocksources.add(words[1])
    return runs, sorted(clocksources)


def check_counts(runs, expected):
    """A measurement the guest failed to print must not go unnoticed."""
    ok = True
    for name, values in runs.items():
        if expected and len(values) != expected:
            print(f"  {name}: {len(values)} measurements, expected {expected}")
            ok = False
    return ok and bool(runs)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--arch", required=True)
    ap.add_argument("--json", required=True)
    ap.add_argument("--cost", nargs="*", default=[],
                    help="cost-MODE.out and cost-MODE.samples files")
    ap.add_argument("--meta", help="JSON of the commit, versions and host")
    ap.add_argument("--runs", type=int, default=0,
                    help="measurements each configuration must have")
    ap.add_argument("--quick", action="store_true",
                    help="print the targets met, and only the ratio of others")
    ap.add_argument("outputs", nargs="+")
    args = ap.parse_args()

    runs, clocksources = parse(args.outputs)
    counted = check_counts(runs, args.runs)
    medians = {k: statistics.median(v) for k, v in runs.items()}
    print(f"{args.arch} pipe ping-pong, usecs per round trip "
          f"(guest clocksource: {', '.join(clocksources)})")
    for name, values in runs.items():
        spread = " ".join(f"{v:.1f}" for v in values)
        print(f"  {name:20s} median {medians[name]:8.2f}   runs: {spread}")

    ratios, met = [], True
    for label, num, den, bound in TARGETS[args.arch]:
        if num not in medians or den not in medians:
            print(f"  {label}: missing measurements")
            met = False
            continue
        ratio = medians[num] / medians[den]
        ok = bound is None or ratio <= bound
        met = met and ok
        verdict(label, ratio, bound, ok, args.quick)
        ratios.append({"ratio": label, "value": round(ratio, 4),
                       "target_max": bound, "met": ok})

    cost_table, cost_ratios, polls = {}, [], {}
    if args.cost:
        cost_table, polls = parse_cost(args.cost)
        cost_ratios, cost_met = report_cost(args.arch, cost_table, args.quick)
        report_polls(polls)
        met = met and cost_met

    meta = {}
    if args.meta:
        with open(args.meta) as f:
            meta = json.load(f)
    if args.quick and not met:
        print("  (a ratio printed without a verdict misses its target in this"
              " short run;\n   README, \"Measured\", says which targets QEMU"
              " TCG keeps out of reach, and why)")
    update_record(args.json, {
        "arch": args.arch, "meta": meta, "unit": "usecs/op",
        "clocksource": clocksources, "median": medians, "runs": runs,
        "ratios": ratios, "cost": cost_table, "cost_loads": COST_LOADS,
        "polls": polls, "cost_unit": "host CPU seconds per second",
        "cost_ratios": cost_ratios, "targets_met": met})
    print(f"  written to {args.json}")
    return 0 if counted else 1


if __name__ == "__main__":
    sys.exit(main())
