#!/usr/bin/env python3
"""Draw the probe suite's sweeps from the JSON that `gemmlab probe` writes (src/probe/report.hpp).

One PNG per plot in the output folder:
  latency.png      pointer-chase latency vs footprint (probe `latency`)
  smem_bank.png    cycles per access vs shared-memory stride (probe `smem-bank`)
  launch_rate.png  threads per cycle vs threads per block, 1D / 2D / 3D (probe `launch-rate`)
  fma_blocks.png   FMA rate vs number of blocks (probe `fma`)
  tensor.png       mma.sync FLOP/clk/SM vs warps per SM, one panel per shape and one line per
                   chain count, plus wgmma FLOP/clk/SM vs N (probe `tensor`)
With --all, also one PNG per table of every probe (first column against the others).

Usage: /usr/bin/python3 scripts/plot_probe.py results.json [-o plots/] [--all]
Needs only matplotlib.
"""

import argparse
import json
import math
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402


def load(path):
    with open(path, encoding="utf-8") as f:
        report = json.load(f)
    if not str(report.get("schema", "")).startswith("gemmlab-probe/"):
        sys.exit(f"{path}: not a gemmlab probe report (schema {report.get('schema')!r})")
    return report


def probe(report, name):
    for p in report.get("probes", []):
        if p.get("name") == name:
            return p
    return None


def find_table(p, first_column=None, needs=(), title_has=None):
    """First table of probe `p` whose first column / columns / title match."""
    if p is None:
        return None
    for t in p.get("tables", []):
        cols = t.get("columns", [])
        if first_column and (not cols or cols[0] != first_column):
            continue
        if any(c not in cols for c in needs):
            continue
        if title_has and title_has not in t.get("title", ""):
            continue
        return t
    return None


def column(t, index):
    """Values of one column; null (non-finite) becomes NaN."""
    return [math.nan if row[index] is None else row[index] for row in t["rows"]]


def label(t, index):
    unit = t["units"][index]
    return f"{t['columns'][index]} ({unit})" if unit else t["columns"][index]


def kib_text(kib):
    """1 -> '1 KiB', 2048 -> '2 MiB'."""
    for unit, scale in (("GiB", 1 << 20), ("MiB", 1 << 10)):
        if kib >= scale:
            return f"{kib / scale:g} {unit}"
    return f"{kib:g} KiB"


def subtitle(report):
    d = report.get("device", {})
    clock = d.get("clock_mhz")
    clock = f", {clock:.0f} MHz" if isinstance(clock, (int, float)) else ""
    return f"{d.get('name', '?')}: {d.get('sm_count', '?')} SMs{clock}"


def save(fig, out_dir, name, written):
    path = os.path.join(out_dir, name)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    written.append(path)


def plot_latency(report, out_dir, written):
    t = find_table(probe(report, "latency"), first_column="footprint")
    if t is None:
        return
    x = column(t, 0)
    fig, ax = plt.subplots(figsize=(8, 5))
    for i, unit in enumerate(t["units"]):
        if i > 0 and unit == "cycles":
            ax.plot(x, column(t, i), marker="o", ms=3, label=t["columns"][i])
    ax.set_xscale("log", base=2)
    if t["units"][0] == "KiB":
        ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: kib_text(v)))
    ax.set_xlabel(t["columns"][0])
    ax.set_ylabel("latency (cycles)")
    l2 = report.get("device", {}).get("l2_bytes")
    if l2:
        ax.axvline(l2 / 1024, color="gray", ls="--", lw=1)
        ax.text(l2 / 1024, ax.get_ylim()[1], " L2 size", va="top", fontsize=8, color="gray")
    ax.set_title(f"Dependent-load latency vs footprint\n{subtitle(report)}")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    save(fig, out_dir, "latency.png", written)


def plot_smem_bank(report, out_dir, written):
    t = find_table(probe(report, "smem-bank"), needs=("stride", "cycles per access"))
    if t is None:
        return
    xi, yi = t["columns"].index("stride"), t["columns"].index("cycles per access")
    fig, ax = plt.subplots(figsize=(8, 5))
    ax.plot(column(t, xi), column(t, yi), marker="o", ms=3)
    ax.set_xlabel(label(t, xi))
    ax.set_ylabel(label(t, yi))
    ax.set_title(f"Shared-memory load cost vs stride\n{subtitle(report)}")
    ax.grid(True, alpha=0.3)
    save(fig, out_dir, "smem_bank.png", written)


def plot_launch_rate(report, out_dir, written):
    p = probe(report, "launch-rate")
    series = [
        ("1D", find_table(p, first_column="threads per block")),
        ("2D n x n", find_table(p, first_column="n", needs=("threads per block",))),
        ("3D", find_table(p, first_column="x", needs=("threads per block",))),
    ]
    series = [(n, t) for n, t in series if t is not None]
    if not series:
        return
    fig, ax = plt.subplots(figsize=(8, 5))
    for name, t in series:
        xi = t["columns"].index("threads per block")
        yi = t["columns"].index("threads per cycle")
        pts = sorted(zip(column(t, xi), column(t, yi)))
        ax.plot([a for a, _ in pts], [b for _, b in pts], marker="o", ms=3, label=name)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("threads per block")
    ax.set_ylabel("threads created per cycle")
    ax.set_title(f"Thread creation rate of an empty kernel\n{subtitle(report)}")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    save(fig, out_dir, "launch_rate.png", written)


def plot_fma_blocks(report, out_dir, written):
    t = find_table(probe(report, "fma"), first_column="blocks")
    if t is None:
        return
    cols = t["columns"]
    x = column(t, 0)
    fig, ax = plt.subplots(figsize=(9, 5))
    yi = cols.index("FMA per cycle") if "FMA per cycle" in cols else len(cols) - 1
    ax.plot(x, column(t, yi), lw=1.2, label=label(t, yi))
    ax.set_xlabel(label(t, 0))
    ax.set_ylabel(label(t, yi))
    sms = report.get("device", {}).get("sm_count")
    if isinstance(sms, int) and sms > 0:
        for k in range(1, int(max(x) // sms) + 1):
            ax.axvline(k * sms, color="gray", ls="--", lw=0.8)
    # time on a second axis: the step at every multiple of the SM count
    ti = next((i for i, u in enumerate(t["units"]) if u == "us"), None)
    if ti is not None:
        ax2 = ax.twinx()
        ax2.plot(x, column(t, ti), color="tab:red", lw=0.8, alpha=0.7, label=label(t, ti))
        ax2.set_ylabel(label(t, ti), color="tab:red")
    ax.set_title(f"FP32 FMA rate vs blocks of 1024 threads\n{subtitle(report)}")
    ax.grid(True, alpha=0.3)
    save(fig, out_dir, "fma_blocks.png", written)


def plot_tensor(report, out_dir, written):
    """One panel per mma.sync shape (rate vs warps per SM, a line per chains per warp), then wgmma.

    The throughput tables hold one row per (warps, chains) point, so plotting their first column
    against the rest, as --all does, would zigzag between chain counts.
    """
    p = probe(report, "tensor")
    if p is None:
        return
    rate = "FLOP per clk per SM (clock64)"
    shapes = [t for t in p.get("tables", [])
              if "mma.sync throughput" in t.get("title", "")
              and all(c in t.get("columns", []) for c in ("warps per SM", "chains per warp", rate))]
    wgmma = find_table(p, first_column="N", needs=("warpgroups per SM", rate))
    panels = len(shapes) + (1 if wgmma else 0)
    if panels == 0:
        return
    cols = min(4, panels)
    rows = (panels + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4 * cols, 3.4 * rows), squeeze=False)
    flat = [ax for row in axes for ax in row]
    for ax, t in zip(flat, shapes):
        wi, ci, ri = (t["columns"].index(c) for c in ("warps per SM", "chains per warp", rate))
        for chains in sorted({row[ci] for row in t["rows"]}):
            pts = sorted((row[wi], row[ri]) for row in t["rows"] if row[ci] == chains)
            ax.plot([a for a, _ in pts], [b for _, b in pts], marker="o", ms=3,
                    label=f"{chains:g} chain{'s' if chains != 1 else ''}")
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
        ax.set_xlabel("warps per SM")
        ax.set_ylabel("FLOP/clk/SM")
        ax.set_title(t["title"].split(" mma.sync")[0] + " mma.sync", fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    if wgmma:
        ax = flat[len(shapes)]
        ni, gi, ri = (wgmma["columns"].index(c) for c in ("N", "warpgroups per SM", rate))
        for groups in sorted({row[gi] for row in wgmma["rows"]}):
            pts = sorted((row[ni], row[ri]) for row in wgmma["rows"] if row[gi] == groups)
            ax.plot([a for a, _ in pts], [b for _, b in pts], marker="o", ms=3,
                    label=f"{groups:g} warpgroup{'s' if groups != 1 else ''}/SM")
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}"))
        ax.set_xlabel("N of m64nNk16")
        ax.set_ylabel("FLOP/clk/SM")
        ax.set_title("wgmma bf16 (A, B in shared memory)", fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    for ax in flat[panels:]:
        ax.set_visible(False)
    fig.suptitle(f"Tensor-core throughput per SM\n{subtitle(report)}", fontsize=10)
    save(fig, out_dir, "tensor.png", written)


def slug(text):
    return re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")[:60]


def plot_all_tables(report, out_dir, written):
    """Every table: first column against the other columns of the most common unit."""
    for p in report.get("probes", []):
        for k, t in enumerate(p.get("tables", [])):
            if len(t.get("columns", [])) < 2 or not t.get("rows"):
                continue
            units = t["units"][1:]
            unit = max(set(units), key=units.count)
            fig, ax = plt.subplots(figsize=(8, 5))
            for i in range(1, len(t["columns"])):
                if t["units"][i] == unit:
                    ax.plot(column(t, 0), column(t, i), marker="o", ms=3, label=t["columns"][i])
            ax.set_xlabel(label(t, 0))
            ax.set_ylabel(unit)
            ax.set_title(f"{p.get('name')}: {t.get('title', '')}", fontsize=9)
            ax.grid(True, alpha=0.3)
            ax.legend(fontsize=8)
            save(fig, out_dir, f"{slug(p.get('name', 'probe'))}_{k}_{slug(t.get('title', ''))}.png",
                 written)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("json", help="probe report written by `gemmlab probe --json`")
    ap.add_argument("-o", "--out", default="probe-plots",
                    help="output folder (default probe-plots)")
    ap.add_argument("--all", action="store_true", help="also draw every table of every probe")
    args = ap.parse_args()

    report = load(args.json)
    os.makedirs(args.out, exist_ok=True)
    written = []
    plot_latency(report, args.out, written)
    plot_smem_bank(report, args.out, written)
    plot_launch_rate(report, args.out, written)
    plot_fma_blocks(report, args.out, written)
    plot_tensor(report, args.out, written)
    if args.all:
        plot_all_tables(report, args.out, written)
    for path in written:
        print(path)
    if not written:
        print("no plottable tables found", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
