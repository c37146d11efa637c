#!/usr/bin/env bash
# scripts/device/experiments/share_a_run.sh -- one device call (from the repository root on the GPU machine): the cluster
# pairs sharing A (GemmPlan::pair_shares_a, a batch of 65-128 as A on the 128-row wgmma tiles, one split).  Builds
# (/tmp/b: tessera_cli, gemm_device_test, gemm_host_test), runs the decode and planner tests, PairSharesA under
# compute-sanitizer (memcheck, racecheck, synccheck), then the decode set and the batch-of-128 shapes with
# TESSERA_SHARE_A = 0 and 1 in turn (three rounds), and the planner's grid.  Results under $OUT (share_a.tar.xz) and a
# summary on stdout.  About 330 s.
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, T, el, patch_build, tree_build)
patch_build pair_share_a.patch tessera_cli gemm_device_test gemm_host_test || exit 1
B=/tmp/b/tools/tessera
timeout 60 $T/gemm_host_test > $O/ht.log 2>&1; echo "host rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/ht.log | tr '\n' ' ')"
F='GemmDevice.PairSharesA:GemmDevice.HopperDecodePlans:GemmDevice.Wgmma64Decode:GemmDevice.ClusterPair64Menus:GemmDevice.Wgmma128x16Decode:GemmSanitize.*'
timeout 150 $T/gemm_device_test --gtest_filter="$F" > $O/dt.log 2>&1; rc=$?
echo "device rc=$rc $(grep -E '^\[  (PASSED|FAILED)' $O/dt.log | tr '\n' ' ') at $(el) s"; grep -A6 Failure $O/dt.log | head -30
TESSERA_SHARE_A=0 timeout 60 $T/gemm_device_test --gtest_filter=GemmDevice.PairSharesA > $O/dt0.log 2>&1; echo "share off rc=$?"
if [ $rc -eq 0 ]; then
  for tool in memcheck racecheck synccheck; do
    timeout 100 compute-sanitizer --tool $tool --error-exitcode 3 $T/gemm_device_test --gtest_filter=GemmDevice.PairSharesA > $O/san_$tool.log 2>&1
    echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|^\[  (PASSED|FAILED)' $O/san_$tool.log | head -3 | tr '\n' ' ') at $(el) s"
  done
  S=128x8192x8192,128x14336x4096,128x28672x8192,96x8192x8192,128x8192x28672,100x14336x4096
  for r in 1 2 3; do
    for x in 0 1; do
      TESSERA_SHARE_A=$x timeout 60 $B bench gemm --shapes decode --repeats 10 --json $O/dec_${x}_$r.json > $O/dec_${x}_$r.log 2>&1 || echo "decode $x $r failed"
      TESSERA_SHARE_A=$x timeout 60 $B bench gemm --shapes $S --repeats 10 --json $O/m128_${x}_$r.json > $O/m128_${x}_$r.log 2>&1 || echo "m128 $x $r failed"
    done
    echo "round $r at $(el) s"
  done
  for x in 0 1; do echo "== TESSERA_SHARE_A=$x"; python3 scripts/device/gemm_ratios.py $O/dec_${x}_*.json; python3 scripts/device/gemm_ratios.py $O/m128_${x}_*.json; done
  grep -h "A shared" $O/m128_1_1.log | head -8
  timeout 150 $B bench gemm --plans --shapes decode-grid --repeats 10 --json $O/plans.json > $O/plans.log 2>&1; echo "plans rc=$? at $(el) s"; grep -E "within" $O/plans.log
fi
cd $O && tar cf - *.json *.log | xz -1 > $OUT/share_a.tar.xz
echo "all done at $(el) s"
