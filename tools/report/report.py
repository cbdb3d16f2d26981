#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""One HTML page from the simulator's and the benchmark's results.

Reads out/sim/results.json (make sim) and out/bench-ARCH.json (make bench)
and writes out/report/index.html: latency against host cost per
configuration and load, poll time wasted per trace and policy, and the
tables behind both. Plain SVG, no dependencies; a missing input is said
on the page, not invented.
"""

import html
import json
import math
import os
import sys

ROOT = os.path.realpath(os.path.join(os.path.dirname(__file__), "..", ".."))
OUT = os.environ.get("HALTPOLL_OUT", os.path.join(ROOT, "out"))
COLORS = {"no_driver": "#888888", "haltpoll": "#d62728", "idle_poll": "#1f77b4",
          "project": "#d62728", "linux-6.12": "#1f77b4",
          "always-halt": "#888888", "always-poll": "#2ca02c"}
MARKERS = {"idle": "circle", "pace50": "square", "pace150": "diamond",
           "pace1000": "triangle"}


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except FileNotFoundError:
        return None


def axis_scale(lo, hi, log):
    """Map a value to 0..1 on a linear or log axis."""
    if log:
        lo, hi = math.log10(lo), math.log10(hi)
        return lambda v: (math.log10(max(v, 10 ** lo)) - lo) / (hi - lo or 1)
    return lambda v: (v - lo) / (hi - lo or 1)


def marker(shape, x, y, color):
    if shape == "square":
        return f'<rect x="{x-5}" y="{y-5}" width="10" height="10" fill="{color}"/>'
    if shape == "diamond":
        return (f'<polygon points="{x},{y-7} {x+7},{y} {x},{y+7} {x-7},{y}" '
                f'fill="{color}"/>')
    if shape == "triangle":
        return (f'<polygon points="{x},{y-7} {x+7},{y+6} {x-7},{y+6}" '
                f'fill="{color}"/>')
    return f'<circle cx="{x}" cy="{y}" r="5" fill="{color}"/>'


def scatter(bench):
    """Latency (log) against host cost, a point per configuration and load."""
    points = [(cfg, load, c["cost"], c["latency"])
              for cfg, row in bench.get("cost", {}).items()
              for load, c in row.items() if "cost" in c and "latency" in c]
    if not points:
        return "<p>No cost measurements in this bench result.</p>"
    w, h, m = 640, 400, 60
    sx = axis_scale(0, max(p[2] for p in points) * 1.1, False)
    sy = axis_scale(min(p[3] for p in points) * 0.8,
                    max(p[3] for p in points) * 1.2, True)
    svg = [f'<svg width="{w}" height="{h}" xmlns="http://www.w3.org/2000/svg">',
           f'<line x1="{m}" y1="{h-m}" x2="{w-20}" y2="{h-m}" stroke="black"/>',
           f'<line x1="{m}" y1="20" x2="{m}" y2="{h-m}" stroke="black"/>',
           f'<text x="{w/2}" y="{h-20}" text-anchor="middle">host CPU seconds '
           'per second (QEMU)</text>',
           f'<text x="15" y="{h/2}" transform="rotate(-90 15 {h/2})" '
           'text-anchor="middle">usecs per round trip (log)</text>']
    for cfg, load_name, cost, lat in points:
        x = m + sx(cost) * (w - m - 30)
        y = (h - m) - sy(lat) * (h - m - 30)
        svg.append(marker(MARKERS.get(load_name, "circle"), x, y,
                          COLORS.get(cfg, "black")))
        svg.append(f'<text x="{x+8}" y="{y-6}" font-size="10">'
                   f'{html.escape(cfg)} {load_name} {lat:.0f}us</text>')
    svg.append("</svg>")
    return "\n".join(svg)


def waste_bars(sim):
    """Poll time wasted per trace, one bar per policy (log scale)."""
    traces = sim["traces"]
    policies = list(traces[0]["policies"])
    w, row_h, m = 760, 16 * len(policies) + 8, 210
    h = row_h * len(traces) + 40
    top = max(t["policies"][p]["wasted_ns"] for t in traces for p in policies)
    scale = axis_scale(1e4, max(top, 1e5), True)
    svg = [f'<svg width="{w}" height="{h}" xmlns="http://www.w3.org/2000/svg">']
    for i, t in enumerate(traces):
        y0 = 20 + i * row_h
        svg.append(f'<text x="{m-8}" y="{y0+row_h/2}" text-anchor="end" '
                   f'font-size="11">{html.escape(t["name"])}</text>')
        for j, p in enumerate(policies):
            ns = t["policies"][p]["wasted_ns"]
            bw = scale(ns) * (w - m - 90) if ns > 0 else 0
            y = y0 + j * 16
            svg.append(f'<rect x="{m}" y="{y}" width="{bw:.1f}" height="13" '
                       f'fill="{COLORS.get(p, "black")}"/>')
            svg.append(f'<text x="{m+bw+4:.1f}" y="{y+11}" font-size="10">'
                       f'{ns/1e6:.1f} ms</text>')
    svg.append("</svg>")
    legend = " ".join(f'<span style="color:{COLORS.get(p, "black")}">'
                      f'&#9632; {p}</span>' for p in policies)
    return legend + "<br>" + "\n".join(svg)


def sim_table(sim):
    rows = ["<tr><th>trace</th>" + "".join(
        f"<th>{p}<br>caught / wasted ms</th>" for p in sim["traces"][0]["policies"])
        + "</tr>"]
    for t in sim["traces"]:
        cells = "".join(f'<td>{v["caught"]} / {v["wasted_ns"]/1e6:.1f}</td>'
                        for v in t["policies"].values())
        rows.append(f"<tr><td>{html.escape(t['name'])}</td>{cells}</tr>")
    return "<table>" + "\n".join(rows) + "</table>"


def cost_table(bench):
    loads = bench.get("cost_loads", [])
    rows = ["<tr><th>config</th>" + "".join(
        f"<th>{l}<br>cost / latency / period</th>" for l in loads) + "</tr>"]
    for cfg, row in bench.get("cost", {}).items():
        cells = []
        for l in loads:
            c = row.get(l, {})
            cost = f"{c['cost']:.3f}" if "cost" in c else "-"
            lat = f" / {c['latency']:.1f} us" if "latency" in c else ""
            lat += f" / {c['period']:.0f} us" if "period" in c else ""
            cells.append(f"<td>{cost}{lat}</td>")
        rows.append(f"<tr><td>{html.escape(cfg)}</td>{''.join(cells)}</tr>")
    return "<table>" + "\n".join(rows) + "</table>"


def polls_table(bench):
    """The governor's counters over each load: what haltpoll's cost is."""
    rows = ["<tr><th>config</th><th>load</th><th>CPU</th><th>polls caught"
            "</th><th>polls timed out</th><th>wasted ms</th></tr>"]
    for cfg, loads in bench.get("polls", {}).items():
        for l in bench.get("cost_loads", []):
            for cpu, (caught, timed_out, wasted_ms) in sorted(
                    loads.get(l, {}).items()):
                rows.append(f"<tr><td>{html.escape(cfg)}</td><td>{l}</td>"
                            f"<td>{cpu}</td><td>{caught}</td><td>{timed_out}"
                            f"</td><td>{wasted_ms:.1f}</td></tr>")
    return "<table>" + "\n".join(rows) + "</table>" if len(rows) > 1 else ""


def ratio_table(bench):
    rows = ["<tr><th>ratio</th><th>value</th><th>target</th><th></th></tr>"]
    for r in bench.get("ratios", []) + bench.get("cost_ratios", []):
        rows.append(f"<tr><td>{html.escape(r['ratio'])}</td><td>{r['value']:.3f}"
                    f"</td><td>&le; {r['target_max']}</td><td>"
                    f"{'met' if r['met'] else '<b>missed</b>'}</td></tr>")
    return "<table>" + "\n".join(rows) + "</table>"


def bench_section(arch):
    bench = load(os.path.join(OUT, f"bench-{arch}.json"))
    if not bench:
        return (f"<h2>{arch}</h2><p>Not measured in this tree: run "
                f"<code>make bench ARCH={arch}</code>.</p>")
    medians = ", ".join(f"{k} {v:.1f}" for k, v in bench["median"].items())
    return (f"<h2>{arch}: latency and host cost</h2>"
            f"<p>Pipe ping-pong medians (usecs/op, clocksource "
            f"{', '.join(bench.get('clocksource', []))}): {medians}</p>"
            f"{scatter(bench)}<p>Circle: idle (no latency, cost only in the "
            f"table); square, diamond, triangle: a round trip every 50, 150, "
            f"1000 us. Grey: no driver; red: haltpoll; blue: idle=poll.</p>"
            f"{cost_table(bench)}<p>Period: the one the paced load achieved "
            f"(asked: 50, 150, 1000 us).</p>{polls_table(bench)}<br>"
            f"{ratio_table(bench)}")


def main():
    sim = load(os.path.join(OUT, "sim", "results.json"))
    parts = ["<!DOCTYPE html><html><head><meta charset='utf-8'>"
             "<title>Guest halt polling: report</title><style>"
             "body{font-family:sans-serif;max-width:1000px;margin:auto}"
             "table{border-collapse:collapse;font-size:12px}"
             "td,th{border:1px solid #ccc;padding:2px 6px}</style></head><body>"
             "<h1>Guest halt polling</h1>"
             "<p>Measured under QEMU without KVM (TCG), 2 vCPUs. Latency: "
             "pipe round trip; cost: CPU time of the QEMU process per second, "
             "sampled on the host.</p>"]
    for arch in ("x86_64", "arm64"):
        parts.append(bench_section(arch))
    parts.append("<h2>Simulator: poll time wasted per trace and policy</h2>")
    if sim:
        parts.append(waste_bars(sim) + sim_table(sim))
    else:
        parts.append("<p>No simulator results: run <code>make sim</code>.</p>")
    parts.append("</body></html>")
    out_dir = os.path.join(OUT, "report")
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "index.html")
    with open(path, "w") as f:
        f.write("\n".join(parts))
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
