#!/usr/bin/env python3
"""Markdown of a `gemmlab probe --json` run: per probe its sweeps (selected rows) and headlines.

usage: scripts/probe_doc.py PROBE.json > measured.md
Rows are printed exactly as measured (6 significant digits); long sweeps are thinned to at most
MAX_ROWS evenly spaced rows, and the table says so.
"""
import json
import sys

MAX_ROWS = 12


def fmt(v):
    return "-" if v is None else f"{v:.6g}"


def table(t):
    rows = t["rows"]
    picked = rows
    note = ""
    if len(rows) > MAX_ROWS:
        step = (len(rows) - 1) / (MAX_ROWS - 1)
        picked = [rows[round(i * step)] for i in range(MAX_ROWS)]
        note = f" ({MAX_ROWS} of {len(rows)} rows, evenly spaced; all in the JSON)"
    head = [c + (f" ({u})" if u else "") for c, u in zip(t["columns"], t["units"])]
    out = [f"*{t['title']}*{note}", "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(fmt(v) for v in r) + " |" for r in picked]
    return "\n".join(out) + "\n"


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    with open(sys.argv[1]) as f:
        run = json.load(f)
    for p in run["probes"]:
        print(f"### Measured: `{p['name']}`\n")
        for t in p["tables"]:
            print(table(t))
        for h in p["headlines"]:
            print(f"- {h['text']}")
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
