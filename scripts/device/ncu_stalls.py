#!/usr/bin/env python3
"""Summarise an Nsight Compute source page (ncu --import R --page source --csv --print-source sass, optionally
gzipped): warp-stall samples by reason over the kernel, and the instructions with the most samples.

    python3 scripts/device/ncu_stalls.py src.csv.gz [--top 30]
"""
import argparse
import csv
import gzip


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("csv")
    ap.add_argument("--top", type=int, default=30)
    args = ap.parse_args()
    opener = gzip.open if args.csv.endswith(".gz") else open
    with opener(args.csv, "rt") as f:
        rows = list(csv.reader(f))
    # the first row names the kernel, the second the columns
    head, data = rows[1], rows[2:]
    col = {h: i for i, h in enumerate(head)}
    samples, executed, source = col["Warp Stall Sampling (All Samples)"], col["Instructions Executed"], col["Source"]
    reasons = [i for i, h in enumerate(head) if h.startswith("stall_") and "Not Issued" not in h]
    num = lambda r, i: int(r[i] or 0)
    total = sum(num(r, samples) for r in data) or 1
    print(f"{rows[0][1][:120]}\n{total} samples over {len(data)} instructions\n\nby reason:")
    by = {head[i]: sum(num(r, i) for r in data) for i in reasons}
    for name, v in sorted(by.items(), key=lambda x: -x[1])[:12]:
        print(f"  {name:26s} {v:8d} {100 * v / total:5.1f}%")
    print(f"\ntop {args.top} instructions (row in the source page, samples, share, executed, SASS, two main reasons):")
    for idx, r in sorted(enumerate(data), key=lambda x: -num(x[1], samples))[:args.top]:
        main_reasons = sorted(((head[i], num(r, i)) for i in reasons), key=lambda x: -x[1])[:2]
        print(f"  {idx:6d} {num(r, samples):7d} {100 * num(r, samples) / total:5.1f}% {r[executed]:>9s}  "
              f"{r[source].strip()[:58]:58s} {', '.join(f'{n[6:]} {v}' for n, v in main_reasons)}")


if __name__ == "__main__":
    main()
