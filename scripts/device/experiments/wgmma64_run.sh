#!/usr/bin/env bash
# scripts/device/experiments/wgmma64_run.sh -- one device call that measures wgmma64_tile.patch (run from the repository
# root on the GPU machine, the tree clean): applies the patch, builds (/tmp/b), runs the 64-row tile's device test and
# the decode tests, under compute-sanitizer too, then `--versus` of the planner against the forced 64-row plans (three
# rounds) and the planner's grid; results under $OUT (wgmma64.tar.xz) and a summary on stdout.  About 450 s.
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, T, el, patch_build)
patch_build wgmma64_tile.patch tessera_cli gemm_host_test gemm_device_test || exit 1
F='GemmDevice.Wgmma64Decode:GemmDevice.Wgmma128x16*:GemmDevice.HopperDecodePlans'
timeout 60 $T/gemm_host_test --gtest_filter='GemmRegistry.*:GemmPlanner.*' > $O/ht.log 2>&1; echo "host rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/ht.log | tr '\n' ' ')"
timeout 150 $T/gemm_device_test --gtest_filter="$F" > $O/dt.log 2>&1; echo "device rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/dt.log | tr '\n' ' ')"; grep -A4 Failure $O/dt.log | head -20
for tool in memcheck racecheck synccheck; do
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 3 $T/gemm_device_test --gtest_filter='GemmDevice.Wgmma64Decode' > $O/san_$tool.log 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|^\[  (PASSED|FAILED)' $O/san_$tool.log | head -3 | tr '\n' ' ') at $(el) s"
done
# planner / forced 64-row plan (speed), three rounds
V=( "64x4096x4096,64x4096x14336:wgmma64x64x64:2" "64x8192x8192:wgmma64x64x64:1" "16x4096x4096,16x4096x14336:wgmma64x16x64:2"
    "16x8192x8192,8x8192x8192:wgmma64x16x64:1" )
for r in 1 2 3; do
  for v in "${V[@]}"; do
    S=${v%%:*}; P=${v#*:}; tag=$(echo "$P" | tr ':' '_')
    timeout 60 /tmp/b/tools/tessera bench gemm --shapes "$S" --repeats 10 --versus "$P" --json $O/vs_${tag}_$r.json > $O/vs_${tag}_$r.log 2>&1 || echo "versus $P round $r failed"
  done
  echo "round $r at $(el) s"
done
python3 - <<'PY'
import json, glob
for f in sorted(glob.glob('/tmp/o/vs_*.json')):
    out = [f"{r['shape']} {r['case'][:4]} {r['ratio']:.3f}" for r in json.load(open(f))['records'] if r['case'] in ('bare', 'plan_vs_forced')]
    print(f.split('/')[-1], ' | '.join(out))
PY
[ $(el) -lt 470 ] && { timeout 100 /tmp/b/tools/tessera bench gemm --plans --shapes decode-grid --repeats 10 --json $O/plans.json > $O/plans.log 2>&1; echo "plans rc=$? at $(el) s"; grep -E "within" $O/plans.log; }
cd /tmp/o && tar cf - *.json *.log | xz -1 > $OUT/wgmma64.tar.xz
echo "all done at $(el) s"
