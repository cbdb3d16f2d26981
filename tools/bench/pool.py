#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Pool the rounds of several recorded versus runs (keys of
out/bench-ARCH.json, as tools/bench/run --key wrote them) and print, per
target but the summed paced poll, the median of the rounds' own ratios
project / stock, the rounds in which the project came out higher with the
two-sided sign test's p (tied rounds left out), the ratio of the pooled medians, and each run's
own ratio of medians.

Each run interleaves its two kernels round by round, so its rounds are
pairs; pooling pairs adds rounds that one run of ten or fourteen boots
lacks. The pooled medians mix hours whose levels differ, and their ratio
can fall outside every run's own: read the paired median, the sign test
and the runs' ratios first. The runs must share their kernels'
parameters, host load and slots (project against stock, or with --aa
the project's kernel in both); which runs share a governor's behaviour
the reader checks from the commits printed. Information only: the
verdict of a run stays versus.py's."""

import argparse
import json
import math
import statistics
import sys

from versus import KERNELS, TARGETS

# What runs pooled together must share, from their records' "meta": the
# bench's settings, and the machine and base they ran on. The project's
# own parameters (--project-params) are recorded only where given.
SHARED_META = ("governor_params", "project_governor_params",
               "host_busy_task", "kernel_options", "host_cpu", "host_cpus",
               "qemu", "base_linux_source_6.12")


def check_runs(record, keys, same_kernel):
    """Why @keys cannot be pooled, or None."""
    if len(set(keys)) < len(keys):
        return "a run named twice would count its rounds twice"
    for key in keys:
        run = record.get(key)
        if not isinstance(run, dict) or "runs" not in run:
            return f"{key}: no versus run of that key"
        # Kept as the bench's shell wrote it, "0" or "1"; runs recorded
        # before the bench had A/A runs lack it and are project/stock runs.
        slots = str(run["meta"].get("same_kernel_in_both_slots", "0"))
        if slots != str(same_kernel):
            kind = "an A/A run" if same_kernel else "a project/stock run"
            return f"{key}: not {kind}"
    for field in SHARED_META:
        values = {json.dumps(record[k]["meta"].get(field)) for k in keys}
        if len(values) > 1:
            return f"the runs differ in {field}: {', '.join(sorted(values))}"
    return None


def run_pairs(run, load, metric):
    """The (project, stock) pairs of one run's rounds, None if the run has
    no such metric, or if a kernel's list is short of the run's rounds
    (a boot lacked it), which would pair boots of different rounds."""
    try:
        values = [run["runs"][k][load][metric] for k in KERNELS]
    except KeyError:
        return None
    if any(len(v) != run["rounds"] for v in values):
        return None
    return list(zip(*values))


def sign_test_p(higher, n):
    """Two-sided p of @higher of @n rounds higher if either were as likely."""
    tail = min(higher, n - higher)
    p = sum(math.comb(n, i) for i in range(tail + 1)) / 2 ** n
    return min(1.0, 2 * p)


def ratio_of_medians(pairs):
    stock = statistics.median(s for _, s in pairs)
    return statistics.median(p for p, _ in pairs) / stock if stock else None


def figures(record, keys, load, metric):
    """The pooled figures of one target over @keys, None if no run has it."""
    pairs, own, skipped = [], [], []
    for key in keys:
        run_p = run_pairs(record[key], load, metric)
        if run_p is None:
            skipped.append(key)
            continue
        pairs.extend(run_p)
        r = ratio_of_medians(run_p)
        own.append("-" if r is None else f"{r:.3f}")
    paired = [p / s for p, s in pairs if s > 0]
    if not paired:
        return None
    # A tied round favours neither kernel: the sign test leaves it out.
    untied = [(p, s) for p, s in pairs if s > 0 and p != s]
    higher = sum(p > s for p, s in untied)
    pooled = ratio_of_medians(pairs)
    line = (f"{statistics.median(paired):6.3f} "
            f"{f'{higher}/{len(untied)}':>6s} "
            f"p={sign_test_p(higher, len(untied)):<6.2g} "
            f"{'-' if pooled is None else f'{pooled:.3f}':>6s}  "
            f"{' '.join(own)}")
    if len(untied) < len(paired):
        line += f"  ({len(paired) - len(untied)} tied)"
    if skipped:
        line += f"  (no rounds from {', '.join(skipped)})"
    return line


def print_pool(record, keys, title):
    runs = [f"{k} ({record[k]['meta'].get('commit')})" for k in keys]
    print(f"{title}: {', '.join(runs)}")
    print(f"  {'target':40s} {'bound':>5s}  paired higher  sign test  pooled  "
          "each run")
    for label, loads, metric, bound in TARGETS:
        for load in loads:
            line = figures(record, keys, load, metric)
            if line is not None:
                print(f"  {load + ' ' + label:40s} {bound:5.2f}  {line}")


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--json", required=True,
                    help="the bench record, out/bench-x86_64.json")
    ap.add_argument("--aa", default="",
                    help="comma-separated A/A keys to pool apart, beside")
    ap.add_argument("keys", help="comma-separated keys of project/stock runs")
    args = ap.parse_args()

    with open(args.json) as f:
        record = json.load(f)
    keys = args.keys.split(",")
    aa_keys = [k for k in args.aa.split(",") if k]
    why = check_runs(record, keys, 0) or (aa_keys and
                                          check_runs(record, aa_keys, 1))
    if why:
        print(f"pool.py: {why}", file=sys.stderr)
        return 1
    print("per target: median of the rounds' ratios project / stock, rounds "
          "the project came out higher, their\ntwo-sided sign test (ties left out), ratio "
          "of the pooled medians, each run's own ratio of medians")
    print_pool(record, keys, "pooled")
    if aa_keys:
        print_pool(record, aa_keys, "A/A, one kernel in both slots")
    return 0


if __name__ == "__main__":
    sys.exit(main())
