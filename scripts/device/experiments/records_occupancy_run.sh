#!/usr/bin/env bash
# scripts/device/experiments/records_occupancy_run.sh -- one device call (from the repository root on the GPU machine, the
# tree clean): scripts/device/share_probe.cu's occupancy mode first (the K split and the ring's size, so that two or three
# blocks share an SM, at the decode shapes below 0.95 of cuBLAS); then main built (/tmp/b: tessera_cli) and its records:
# ROUNDS (default 2) rounds of the bf16 decode set (decode_R.json), one of the FP8 e4m3 decode set (fp8_decode.json),
# and `--plans --shapes decode-grid` (plans.json).  Everything in $OUT/r.tar.xz (the call returns a bounded number of
# files).  Pass TESSERA_GIT_COMMIT.  About 300 s.
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, T, el, tree_build)
R=$O/r; mkdir -p $R
nvcc -std=c++20 -O3 -gencode arch=compute_90a,code=sm_90a -I include -I scripts/device scripts/device/share_probe.cu \
  -o /tmp/shp -lcublas > $R/probe_build.log 2>&1 && timeout 120 /tmp/shp occupancy > $R/probe.log 2>&1
echo "probe rc=$? at $(el) s"; cat $R/probe.log | head -80
tree_build tessera_cli || { tar -C $O -cJf $OUT/r.tar.xz r build.log cfg.log; exit 1; }
bin=/tmp/b/tools/tessera
for r in $(seq 1 "${ROUNDS:-2}"); do
  timeout 90 $bin bench gemm --shapes decode --repeats 10 --json $R/decode_$r.json > $R/decode_$r.log 2>&1 || echo "decode $r failed"
  python3 scripts/device/gemm_ratios.py $R/decode_$r.json | grep -E "^bare|^epilogue_cost_bias_silu"
done
timeout 90 $bin bench gemm --dtype e4m3 --fp8-accum promoted --shapes decode --repeats 10 --json $R/fp8_decode.json \
  > $R/fp8_decode.log 2>&1 || echo "fp8 decode failed"
timeout 200 $bin bench gemm --plans --shapes decode-grid --repeats 10 --json $R/plans.json > $R/plans.log 2>&1
echo "plans rc=$? at $(el) s"; tail -2 $R/plans.log
cp $O/build.log $O/cfg.log $R/ 2>/dev/null
tar -C $O -cJf $OUT/r.tar.xz r
echo "all done at $(el) s"
