#!/usr/bin/env python3
"""Error against k, one line per rung, from `gemmlab accuracy --json` output (matplotlib only).

usage: scripts/plot_accuracy.py ACCURACY.json [OUT_PREFIX]
Writes OUT_PREFIX-<type>.png (default prefix: the JSON's path without .json), one per type in the
run (f32 holds both of float's precisions): a row of panels per statistic (max |err| / max |ref|,
median |err| / (|A||B|)), a column per input distribution, log-log. cuBLAS is drawn black, auto
thick; TF32 rows dashed. The title names the device, the shape and the date of the run.
"""
import json
import math
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

STATS = [("max_rel", "max |err| / max |ref|"), ("median_rel", "median |err| / (|A||B|)")]
INPUTS = {"signed": "U[-1,1)", "same-sign": "U[0,1)", "wide": "wide range",
          "near-underflow": "near underflow"}


def order(row):
    """cuBLAS, then auto, then the rungs by number; the default call before the TF32 one."""
    if row["kernel"] == "cublas":
        return (0, row["call_precision"] == "tf32")
    if row["kernel"] == "auto":
        return (1, row["call_precision"] == "tf32")
    return (2, row["number"])


def main() -> int:
    if len(sys.argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    with open(sys.argv[1]) as f:
        run = json.load(f)
    prefix = sys.argv[2] if len(sys.argv) == 3 else sys.argv[1].rsplit(".", 1)[0]

    # dtype -> inputs -> label -> [(k, row)]
    series = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    first = {}
    for row in run["rows"]:
        if row.get("error"):
            continue  # a call that failed has no error to plot
        series[row["dtype"]][row["inputs"]][row["label"]].append((row["k"], row))
        first.setdefault((row["dtype"], row["label"]), row)
    if not series:
        print("plot_accuracy.py: no rows to plot", file=sys.stderr)
        return 1

    device = (run.get("device") or {}).get("name", "unknown device")
    palette = plt.get_cmap("tab20")
    written = []
    for dtype, by_input in sorted(series.items()):
        inputs = [i for i in INPUTS if i in by_input]
        fig, axes = plt.subplots(len(STATS), len(inputs), figsize=(6 * len(inputs), 4.8 * len(STATS)),
                                 squeeze=False)
        labels = sorted({label for i in inputs for label in by_input[i]},
                        key=lambda label: order(first[(dtype, label)]))
        for col, inp in enumerate(inputs):
            for r, (key, title) in enumerate(STATS):
                ax = axes[r][col]
                for label in labels:
                    points = sorted(by_input[inp].get(label, []), key=lambda p: p[0])
                    points = [(k, row[key]) for k, row in points
                              if row[key] is not None and math.isfinite(row[key]) and row[key] > 0]
                    if not points:
                        continue
                    row = first[(dtype, label)]
                    style = dict(marker="o", markersize=3)
                    if row["kernel"] == "cublas":
                        style.update(color="black", linewidth=2.2)
                    elif row["kernel"] == "auto":
                        style.update(color="tab:red", linewidth=2.6)
                    else:  # 20 distinct colours by rung number
                        style.update(color=palette(row["number"] % 20), linewidth=1.0, alpha=0.85)
                    if row["math"] == "tf32":
                        style.update(linestyle="--")
                    name = label if row["number"] <= 0 else f'{row["number"]} {label}'
                    ax.plot([p[0] for p in points], [p[1] for p in points], label=name, **style)
                ax.set_xscale("log", base=2)
                ax.set_yscale("log")
                ax.set_xlabel("k")
                ax.set_ylabel(title)
                ax.set_title(f"{dtype}, {INPUTS[inp]} inputs")
                ax.grid(True, which="both", alpha=0.3)
        handles, names = axes[0][0].get_legend_handles_labels()
        fig.legend(handles, names, loc="center right", fontsize=8)
        fig.suptitle(f'gemmlab accuracy: {dtype}, {run["m"]}x{run["n"]} {run["layout"]}-major '
                     f'{run["op"]}, {device}, {run["date"]}')
        fig.tight_layout(rect=(0, 0, 0.84, 0.96))
        out = f"{prefix}-{dtype}.png"
        fig.savefig(out, dpi=110)
        plt.close(fig)
        written.append(out)
    for out in written:
        print("wrote", out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
