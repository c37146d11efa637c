# scripts/device/experiments/probe_summary.py PROBE_JSON_TGZ -- one line per decode_probe.sh run: each shape's Tessera time (us) and
# ratio to cuBLAS from its "decode" records.
import json, sys, tarfile, io
t = tarfile.open(sys.argv[1])
rows = {}
for m in sorted(t.getmembers(), key=lambda m: m.name):
    d = json.load(t.extractfile(m))
    out = []
    for r in d['records']:
        if r['case'] == 'decode':
            mm, n, k = map(int, r['shape'].split('x'))
            us = 2 * mm * n * k / (r['figure'] * 1e12) * 1e6
            out.append(f"{r['shape']}:{us:.1f}us/{r['ratio']:.3f}")
    print(m.name, ' '.join(out))
