#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the guest's RESULT lines into medians, ratios and a JSON record."""

import argparse
import json
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


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--arch", required=True)
    ap.add_argument("--json", required=True)
    ap.add_argument("outputs", nargs="+")
    args = ap.parse_args()

    runs, clocksources = parse(args.outputs)
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
        goal = f"target <= {bound}" if bound else "no target"
        print(f"  {label:32s} {ratio:6.3f}   {goal:14s} {'met' if ok else 'MISSED'}")
        ratios.append({"ratio": label, "value": round(ratio, 4),
                       "target_max": bound, "met": ok})

    with open(args.json, "w") as f:
        json.dump({"arch": args.arch, "unit": "usecs/op",
                   "clocksource": clocksources, "median": medians,
                   "runs": runs, "ratios": ratios, "targets_met": met},
                  f, indent=2)
    print(f"  written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
