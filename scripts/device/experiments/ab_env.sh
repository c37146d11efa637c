#!/usr/bin/env bash
# scripts/device/experiments/ab_env.sh VAR SHAPES [ROUNDS] -- after a build (scripts/device/gemm_h100.sh build), the
# bench on SHAPES with VAR=0 and VAR=1 in turn, ROUNDS times (default 2); a line per round and setting: each shape's
# ratio to cuBLAS and the geomean (--repeats ${REPEATS:-10}).
set -uo pipefail
cd "$(dirname "$0")/../../.."
OUT=${OUT:-/tmp/gemm-out}; B=${TESSERA_BUILD_DIR:-/tmp/tessera-build}
var=$1; shapes=$2; rounds=${3:-2}
for r in $(seq 1 "$rounds"); do
  for v in 0 1; do
    env "$var=$v" timeout 250 "$B/tools/tessera" bench gemm --shapes "$shapes" --repeats ${REPEATS:-10} --json "$OUT/ab_${v}_$r.json" > "$OUT/ab_${v}_$r.log" 2>&1
    echo -n "round $r $var=$v rc=$?: "
    python3 - "$OUT/ab_${v}_$r.json" <<'PY'
import json, math, sys
r = json.load(open(sys.argv[1]))["records"]
x = [(d["shape"], d["ratio"]) for d in r if d["case"] == "bare"]
print(" ".join(f"{s}:{v:.3f}" for s, v in x), "geomean %.4f" % math.exp(sum(math.log(v) for _, v in x) / len(x)))
PY
  done
done
