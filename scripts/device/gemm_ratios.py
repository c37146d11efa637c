#!/usr/bin/env python3
"""scripts/device/gemm_ratios.py JSON... -- the issue-10 ratios of `tessera bench gemm --json` files, one line per
case (bare, bias_gelu, bias_silu_residual and the two epilogue costs), the shapes in the file's order, then the
geometric mean over those shapes in parentheses."""
import json
import math
import sys

CASES = ['bare', 'bias_gelu', 'bias_silu_residual', 'epilogue_cost_bias_gelu', 'epilogue_cost_bias_silu_residual']

for f in sys.argv[1:]:
    d = json.load(open(f))
    by = {}
    for r in d['records']:
        by.setdefault(r['case'], {})[r['shape']] = r['ratio']
    shapes = list(by['bare'].keys())
    print(f.split('/')[-1], d.get('git_commit', ''))
    for c in CASES:
        v = [by.get(c, {}).get(s, float('nan')) for s in shapes]
        ok = [x for x in v if x > 0]
        g = math.exp(sum(math.log(x) for x in ok) / len(ok)) if len(ok) == len(v) else float('nan')
        print(f"{c[:22]:22s} " + " ".join(f"{x:.3f}" for x in v) + f" ({g:.3f})")
