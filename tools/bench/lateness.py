#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""How late a halted vCPU takes its timer on this host, from the boots of
tools/bench/run --only lateness: per kernel and per activity of the
sibling vCPU, the median over the rounds of cyclictest's mean and minimum
latency on a vCPU that may only halt, beside the host's own timer latency
measured before and after the boots. No governor decides anything in
these figures, which bound from below what an early wakeup's lead must
cover on this host (cyclictest's include the guest's wakeup of its task,
which the governor's own lateness does not)."""

import argparse
import json
import statistics
import sys

from baselines import update_record

SIBLINGS = ["idle", "busy", "polling"]
KERNELS = ["project", "stock"]
# 6.12's governor ignores a state's disable switch: its CPU 1 cannot be
# made to poll only (tools/guest/bench/lateness.sh).
EXPECTED = {(k, s) for k in KERNELS for s in SIBLINGS} - {("stock", "polling")}


def parse_guest(path):
    """{(kernel, sibling): [(min_us, avg_us, max_us), ...]} of one boot."""
    runs = {}
    with open(path) as f:
        for line in f:
            w = line.split()
            if len(w) == 6 and w[0] == "LATE":
                runs.setdefault((w[1], w[2]), []).append(
                    tuple(int(x) for x in w[3:]))
    return runs


def parse_host(path):
    """[(min_us, avg_us, max_us), ...] of the host's cyclictest runs."""
    with open(path) as f:
        return [tuple(int(x) for x in line.split()[1:4])
                for line in f if line.startswith("HOSTLATE ")]


def median_of(runs, i):
    return statistics.median(r[i] for r in runs) if runs else None


def fmt(runs):
    cell = "-"
    if runs:
        cell = f"{median_of(runs, 1):.0f} ({median_of(runs, 0):.0f})"
    return f"{cell:>17}"


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--json", required=True,
                    help="JSON record to add the figures to, under --key")
    ap.add_argument("--meta", required=True,
                    help="JSON file of what the host script knows of the run")
    ap.add_argument("--host", required=True,
                    help="the host's cyclictest lines (HOSTLATE min avg max)")
    ap.add_argument("--rounds", type=int, required=True,
                    help="rounds each boot ran: every cell must have them")
    ap.add_argument("--key", default="lateness",
                    help="key of the record in --json")
    ap.add_argument("outputs", nargs="+", help="guest outputs of the boots")
    args = ap.parse_args()

    runs = {}
    for path in args.outputs:
        boot = parse_guest(path)
        if not boot:
            print(f"lateness: no LATE lines in {path}", file=sys.stderr)
            return 1
        for key, r in boot.items():
            runs.setdefault(key, []).extend(r)
    # Every boot printed LATE lines, so each kernel booted is here.
    kernels = [k for k in KERNELS if any(kk == k for kk, _ in runs)]
    short = [f"{k} {s}" for k, s in sorted(EXPECTED)
             if k in kernels and len(runs.get((k, s), [])) != args.rounds]
    if short:
        print(f"lateness: not {args.rounds} rounds in: " + ", ".join(short),
              file=sys.stderr)
        return 1
    host = parse_host(args.host)
    if len(host) != 2:
        print("lateness: the host's cyclictest did not run before and after",
              file=sys.stderr)
        return 1
    print(f"\na halted vCPU's timer lateness, us (cyclictest on CPU 0 at 1 ms,"
          f" both CPUs'\nwindows closed), median over {args.rounds} rounds of the"
          " mean (and of the minimum):")
    print("  sibling CPU 1  " + "".join(f"{k:>17}" for k in kernels))
    for s in SIBLINGS:
        print(f"  {s:15s}" + "".join(fmt(runs.get((k, s), []))
                                     for k in kernels))
    print("  the host's own (a SCHED_OTHER thread with 1 ns timer slack, as"
          " QEMU's):\n  " + ", ".join(f"{a} ({m})" for m, a, _ in host) +
          " before and after the boots")
    with open(args.meta) as f:
        meta = json.load(f)
    record = {"meta": meta, "host_runs_us": host,
              "median_avg_us": {k: {s: median_of(runs.get((k, s), []), 1)
                                    for s in SIBLINGS} for k in kernels},
              "median_min_us": {k: {s: median_of(runs.get((k, s), []), 0)
                                    for s in SIBLINGS} for k in kernels}}
    update_record(args.json, {args.key: record})
    print(f"  written to {args.json} ({args.key})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
