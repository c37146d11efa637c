#!/usr/bin/env bash
# scripts/device/quant_ab.sh PATCH -- the quantisation kernels of the working tree (new) and of the tree with PATCH
# reversed (base), each built alone with scripts/device/quant_probe.cu (src/quantize*.cu: about 50 s on 16 cores for
# both, against minutes for the whole library), then the probe three times, the builds in turn.  QUANT_REPS: launches
# per median (default 25).  Prints each build's ratios per case, then the cases side by side.
set -uo pipefail
cd "$(dirname "$0")/../.."
P=$(realpath "$1")
rm -rf /tmp/qsrc-base && mkdir -p /tmp/qsrc-base && cp -r src include tests /tmp/qsrc-base/ &&
  (cd /tmp/qsrc-base && git apply -R --include='src/*' --include='include/*' --include='tests/*' "$P") || { echo "reverse failed"; exit 1; }
F="-std=c++20 -O3 -DNDEBUG --generate-code=arch=compute_90a,code=[sm_90a]"
bq() {  # tree out
  mkdir -p "$2"
  for f in quantize quantize_bf16 quantize_f16 quantize_f32; do nvcc $F -I"$1/src" -I"$1/include" -c "$1/src/$f.cu" -o "$2/$f.o" & done
  nvcc $F -I"$1/include" -c scripts/device/quant_probe.cu -o "$2/probe.o" & wait
  nvcc "$2"/*.o -o "$2/quant_probe"
}
t0=$(date +%s)
bq . /tmp/q-new & bq /tmp/qsrc-base /tmp/q-base & wait
echo "builds $(( $(date +%s) - t0 )) s"
for rep in 1 2 3; do
  for b in base new; do
    echo "== $b rep $rep"
    timeout 120 "/tmp/q-$b/quant_probe" "${QUANT_REPS:-25}"
  done
done | tee /tmp/quant_ab.log
python3 - /tmp/quant_ab.log <<'PY'
import re, sys, collections
d = collections.defaultdict(lambda: collections.defaultdict(list)); cur = None
for l in open(sys.argv[1]):
    m = re.match(r'== (\w+) rep', l)
    if m: cur = m.group(1); continue
    m = re.match(r'(\S+)\s+(\S+)\s+(\d+x\d+)\s.*ratio (\S+)', l)
    if m and cur: d[m.groups()[:3]][cur].append(m.group(4))
print("\ncase  base (3 runs)  new (3 runs)")
for k, v in d.items(): print(" ".join(k), " base", " ".join(v["base"]), " new", " ".join(v["new"]))
PY
