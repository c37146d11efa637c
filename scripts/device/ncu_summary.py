#!/usr/bin/env python3
"""Summarise Nsight Compute CSV exports (optionally gzipped).

    python3 scripts/device/ncu_summary.py raw FILE.csv [--metrics a,b,...]
                                                           # ncu --metrics ... --csv --page raw: one line of
                                                           # the named metrics (default: all) per launch
    python3 scripts/device/ncu_summary.py source FILE.csv.gz [--top 30]
                                                           # ncu --import R --page source --csv --print-source
                                                           # sass: warp-stall samples by reason and the
                                                           # instructions with the most samples
"""
import argparse
import csv
import gzip


def read_rows(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        # ncu prints its own progress lines before the table; the table's lines are quoted
        return list(csv.reader(line for line in f if line.startswith('"')))


def raw(path, names):
    rows = read_rows(path)
    if len(rows) < 3:
        raise SystemExit(f"{path}: no kernel rows (did ncu match a kernel?)")
    head = rows[0]  # rows[1] holds the units
    metrics = [i for i, h in enumerate(head) if (h in names if names else "__" in h)]
    for r in rows[2:]:
        d = dict(zip(head, r))
        print(d.get("Kernel Name", "?")[:150])
        print("   " + "  ".join(f"{head[i]}={r[i]}" for i in metrics))


def source(path, top):
    rows = read_rows(path)
    # the first row names the kernel, the second the columns
    head, data = rows[1], rows[2:]
    col = {h: i for i, h in enumerate(head)}
    samples, executed, sass = col["Warp Stall Sampling (All Samples)"], col["Instructions Executed"], col["Source"]
    reasons = [i for i, h in enumerate(head) if h.startswith("stall_") and "Not Issued" not in h]
    num = lambda r, i: int(r[i] or 0)
    total = sum(num(r, samples) for r in data) or 1
    print(f"{rows[0][1][:120]}\n{total} samples over {len(data)} instructions\n\nby reason:")
    by = {head[i]: sum(num(r, i) for r in data) for i in reasons}
    for name, v in sorted(by.items(), key=lambda x: -x[1])[:12]:
        print(f"  {name:26s} {v:8d} {100 * v / total:5.1f}%")
    print(f"\ntop {top} instructions (row in the source page, samples, share, executed, SASS, two main reasons):")
    for idx, r in sorted(enumerate(data), key=lambda x: -num(x[1], samples))[:top]:
        main_reasons = sorted(((head[i], num(r, i)) for i in reasons), key=lambda x: -x[1])[:2]
        print(f"  {idx:6d} {num(r, samples):7d} {100 * num(r, samples) / total:5.1f}% {r[executed]:>9s}  "
              f"{r[sass].strip()[:58]:58s} {', '.join(f'{n[6:]} {v}' for n, v in main_reasons)}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("page", choices=("raw", "source"))
    ap.add_argument("csv")
    ap.add_argument("--top", type=int, default=30, help="source: instructions listed")
    ap.add_argument("--metrics", default="", help="raw: comma-separated metric names to show (default: all)")
    args = ap.parse_args()
    if args.page == "raw":
        raw(args.csv, [m for m in args.metrics.split(",") if m])
    else:
        source(args.csv, args.top)


if __name__ == "__main__":
    main()
