#!/usr/bin/env python3
"""Summarise Nsight Compute CSV exports (optionally gzipped).

    python3 scripts/device/ncu_summary.py raw FILE.csv [--metrics a,b,...]
                                                           # ncu --metrics ... --csv --page raw: one line of
                                                           # the named metrics (default: all) per launch
    python3 scripts/device/ncu_summary.py source FILE.csv.gz [--top 30]
                                                           # ncu --import R --page source --csv --print-source
                                                           # sass: warp-stall samples by reason and the
                                                           # instructions with the most samples
    python3 scripts/device/ncu_summary.py region FILE.csv.gz --rows A:B
                                                           # rows A..B-1 of that page (one kernel's SASS, e.g. a
                                                           # fused body): samples by reason, executed warp
                                                           # instructions and samples by opcode
    python3 scripts/device/ncu_summary.py diff A.csv.gz B.csv.gz [--window 100]
                                                           # two source pages of the same kernel (e.g. two menus
                                                           # of one binary): samples per window of rows, where
                                                           # they differ
"""
import argparse
import collections
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


def source_page(path):
    """The kernel's name and, per row of a source page, (samples, executed, SASS text, {reason: samples})."""
    rows = read_rows(path)
    # the first row names the kernel, the second the columns
    head, data = rows[1], rows[2:]
    col = {h: i for i, h in enumerate(head)}
    samples, executed, sass = col["Warp Stall Sampling (All Samples)"], col["Instructions Executed"], col["Source"]
    reasons = [i for i, h in enumerate(head) if h.startswith("stall_") and "Not Issued" not in h]
    num = lambda r, i: int(r[i] or 0)
    return rows[0][1], [(num(r, samples), num(r, executed), r[sass].strip(), {head[i][6:]: num(r, i) for i in reasons})
                        for r in data]


def source(path, top):
    name, rows = source_page(path)
    total = sum(r[0] for r in rows) or 1
    print(f"{name[:120]}\n{total} samples over {len(rows)} instructions\n\nby reason:")
    by = collections.Counter()
    for r in rows:
        by.update(r[3])
    for reason, v in sorted(by.items(), key=lambda x: -x[1])[:12]:
        print(f"  {'stall_' + reason:26s} {v:8d} {100 * v / total:5.1f}%")
    print(f"\ntop {top} instructions (row in the source page, samples, share, executed, SASS, two main reasons):")
    for idx, (samples, executed, sass, reasons) in sorted(enumerate(rows), key=lambda x: -x[1][0])[:top]:
        main_reasons = sorted(reasons.items(), key=lambda x: -x[1])[:2]
        print(f"  {idx:6d} {samples:7d} {100 * samples / total:5.1f}% {executed:9d}  "
              f"{sass[:58]:58s} {', '.join(f'{n} {v}' for n, v in main_reasons)}")


def region(path, lo, hi):
    rows = source_page(path)[1][lo:hi]
    by_reason, ops_exec, ops_samples = collections.Counter(), collections.Counter(), collections.Counter()
    for samples, executed, sass, reasons in rows:
        by_reason.update(reasons)
        words = sass.split()
        op = (words[1] if words and words[0].startswith("@") and len(words) > 1 else words[0] if words else "?").split(".")[0]
        ops_exec[op] += executed
        ops_samples[op] += samples
    total = sum(r[0] for r in rows) or 1
    print(f"rows {lo}..{hi - 1}: {sum(r[0] for r in rows)} samples, {sum(r[1] for r in rows)} warp instructions executed")
    print("by reason: " + ", ".join(f"{k} {v} ({100 * v / total:.0f}%)" for k, v in by_reason.most_common(8) if v))
    print("by opcode (executed, samples): " + ", ".join(f"{k} {v} {ops_samples[k]}" for k, v in ops_exec.most_common(16)))


def diff(path_a, path_b, window):
    a, b = source_page(path_a)[1], source_page(path_b)[1]
    if len(a) != len(b):
        raise SystemExit(f"the pages have {len(a)} and {len(b)} rows: not the same kernel")
    print(f"samples: {sum(x[0] for x in a)} and {sum(x[0] for x in b)}\n  rows         A       B    B - A  executed A / B  first instruction")
    for lo in range(0, len(a), window):
        sa, sb = sum(x[0] for x in a[lo:lo + window]), sum(x[0] for x in b[lo:lo + window])
        ea, eb = sum(x[1] for x in a[lo:lo + window]), sum(x[1] for x in b[lo:lo + window])
        if abs(sb - sa) > 0.002 * max(sum(x[0] for x in a), 1) or ea != eb:
            print(f"  {lo:5d}+ {sa:7d} {sb:7d} {sb - sa:+7d}  {ea:9d} / {eb:<9d} {b[lo][2][:48]}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("page", choices=("raw", "source", "region", "diff"))
    ap.add_argument("csv")
    ap.add_argument("csv2", nargs="?", help="diff: the second source page")
    ap.add_argument("--rows", default="0:0", help="region: A:B, the rows A .. B-1 of the source page")
    ap.add_argument("--window", type=int, default=100, help="diff: rows per line")
    ap.add_argument("--top", type=int, default=30, help="source: instructions listed")
    ap.add_argument("--metrics", default="", help="raw: comma-separated metric names to show (default: all)")
    args = ap.parse_args()
    if args.page == "raw":
        raw(args.csv, [m for m in args.metrics.split(",") if m])
    elif args.page == "region":
        lo, hi = (int(x) for x in args.rows.split(":"))
        region(args.csv, lo, hi)
    elif args.page == "diff":
        if not args.csv2:
            raise SystemExit("diff: two source pages")
        diff(args.csv, args.csv2, args.window)
    else:
        source(args.csv, args.top)


if __name__ == "__main__":
    main()
