#!/usr/bin/env python3
"""GFLOP/s vs size, one line per kernel, from `gemmlab bench --json` output (matplotlib only).

usage: scripts/plot.py BENCH.json [OUT.png]
One panel per (dtype, layout/op); the title names the device and the date of the run.
"""
import json
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main() -> int:
    if len(sys.argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    with open(sys.argv[1]) as f:
        run = json.load(f)
    out = sys.argv[2] if len(sys.argv) == 3 else sys.argv[1].rsplit(".", 1)[0] + ".png"

    panels = defaultdict(lambda: defaultdict(list))  # (dtype, layout/op) -> kernel -> [(size, gflops)]
    for row in run["rows"]:
        if not row.get("pass"):
            continue  # a failing row has no meaningful speed
        size = round((row["m"] * row["n"] * row["k"]) ** (1 / 3))
        label = f'{row["number"]:>2} {row["kernel"]}' if row["number"] >= 0 else row["kernel"]
        panels[(row["dtype"], f'{row["layout"]}/{row["op"]}')][label].append((size, row["gflops"]))
    if not panels:
        print("plot.py: no passing rows to plot", file=sys.stderr)
        return 1

    fig, axes = plt.subplots(1, len(panels), figsize=(7 * len(panels), 5.5), squeeze=False)
    for ax, (key, kernels) in zip(axes[0], sorted(panels.items())):
        def order(label):  # rungs by number, auto last
            head = label.split()[0]
            return int(head) if head.isdigit() else 1 << 30

        colors = plt.get_cmap("tab20").colors
        for i, label in enumerate(sorted(kernels, key=order)):
            pts = sorted(kernels[label])
            style = dict(color="black", linestyle="--") if order(label) == 1 << 30 else dict(color=colors[i % 20])
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=label, **style)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("size (cube root of m*n*k)")
        ax.set_ylabel("GFLOP/s")
        ax.set_title(f"{key[0]} {key[1]}")
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7)
    device = (run.get("device") or {}).get("name", "CPU")
    fig.suptitle(f"gemmlab bench on {device}, {run.get('date', '')}")
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
