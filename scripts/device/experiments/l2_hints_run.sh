#!/usr/bin/env bash
# scripts/device/experiments/l2_hints_run.sh -- one device call (from the repository root on the GPU machine, the tree
# clean): l2_hints.patch (TESSERA_EXP_L2=<bits>, the persistent kernels' store warps: bit 0 D's TMA stores with an L2
# evict_first policy, bit 1 the residual's TMA box loads with it) built with tessera_cli, gemm_device_test and
# gemm_fp8_test; the persistent device tests and FP8 bare tests with bits 3; L (bf16) with bits 0 / 1 / 2 / 3 in turn
# (ROUNDS, default 3, the order rotated each round), each its own process; FP8 e4m3 on L with bits 0 / 1 twice; memcheck
# of GemmDevice.CooperativeBareAcrossUnits with bits 3.  Everything in $OUT/l2.tar.xz after each step.  Pass
# TESSERA_GIT_COMMIT.  About 300 s.
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, T, el, patch_results, switch_tests, sanitize)
patch_results l2_hints.patch l2  # (R, B, base)
pack() { tar -C $O -cJf $OUT/l2.tar.xz l2; }
switch_tests TESSERA_EXP_L2=3 dt gemm_device_test 'GemmDevice.Persistent*:GemmDevice.Cooperative*:GemmDevice.StreamKTail'
switch_tests TESSERA_EXP_L2=3 f8 gemm_fp8_test 'GemmFp8.BareKernel*' 90
pack
L=4096x4096x4096,8192x8192x8192,8192x4096x4096,8192x14336x4096,8192x4096x14336
order=(0 1 2 3)
for r in $(seq 1 "${ROUNDS:-3}"); do
  for v in "${order[@]}"; do
    TESSERA_EXP_L2=$v TESSERA_GIT_COMMIT=$base+l2_$v timeout 40 $B bench gemm --shapes $L \
      --repeats 10 --json $R/l_${v}_$r.json > $R/l_${v}_$r.log 2>&1 || echo "L $v $r failed"
  done
  python3 scripts/device/gemm_ratios.py $R/l_0_$r.json $R/l_1_$r.json $R/l_2_$r.json $R/l_3_$r.json
  bare_us $R/l_0_$r.json $R/l_1_$r.json $R/l_2_$r.json $R/l_3_$r.json
  order=("${order[@]:1}" "${order[0]}")
  pack
done
for r in 1 2; do
  for v in 0 1; do
    TESSERA_EXP_L2=$v TESSERA_GIT_COMMIT=$base+l2_$v timeout 60 $B bench gemm --dtype e4m3 --shapes $L \
      --repeats 10 --json $R/f8_${v}_$r.json > $R/f8_${v}_$r.log 2>&1 || echo "FP8 $v $r failed"
  done
  python3 - $R/f8_0_$r.json $R/f8_1_$r.json <<'PY'
import json, math, sys
for f in sys.argv[1:]:
    d = json.load(open(f)); v = [r['ratio'] for r in d['records'] if r['case'] == 'fp8_tensor']
    print(f.split('/')[-1], ' '.join(f'{x:.3f}' for x in v), f'({math.exp(sum(map(math.log, v)) / len(v)):.3f})' if v else '')
PY
done
pack
export TESSERA_EXP_L2=3
sanitize 'GemmDevice.CooperativeBareAcrossUnits' ${GUARD:-400} 60 $R
pack; echo "all done at $(el) s"
