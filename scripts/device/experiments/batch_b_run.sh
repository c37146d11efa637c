#!/usr/bin/env bash
# scripts/device/experiments/batch_b_run.sh -- one device call (from the repository root on the GPU machine, the tree
# clean): the tree built (/tmp/b: tessera_cli, gemm_device_test, gemm_host_test) and tested (gemm_host_test,
# gemm_device_test whole, compute-sanitizer memcheck / racecheck / synccheck on GemmDevice.ShortBoxes and
# GemmSanitize.*), then a batch of 72-128 given as B (weights x batch x K) and as A (batch x weights x K) against
# cuBLAS, two rounds, and `--plans` of the batch-as-B shapes.  Pass TESSERA_GIT_COMMIT.  Results under $OUT
# (batch_b.tar.xz), a summary on stdout.  About 400 s.
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, T, el, tree_build, gemm_tests)
tree_build tessera_cli gemm_device_test gemm_host_test || exit 1
B=/tmp/b/tools/tessera
gemm_tests 'GemmSanitize.*:GemmDevice.ShortBoxes' 400
grep -E '^\[       OK \] GemmDevice.(ShortBoxes|HopperDecodePlans)' $O/dt.log
SB=8192x96x8192,8192x128x8192,14336x128x4096,4096x128x4096,4096x128x14336,8192x72x8192,8192x112x8192,28672x128x8192
SA=96x8192x8192,128x8192x8192,128x14336x4096,128x4096x4096,128x4096x14336,72x8192x8192,112x8192x8192,128x28672x8192
for r in 1 2; do
  [ $(el) -gt 500 ] && break
  timeout 60 $B bench gemm --shapes $SB,$SA --repeats 10 --json $O/bb_$r.json > $O/bb_$r.log 2>&1; echo "bench round $r rc=$? at $(el) s"
done
grep -E "^M=" $O/bb_*.log | cut -c1-100
[ $(el) -lt 530 ] && { timeout 50 $B bench gemm --plans --shapes $SB --repeats 10 --json $O/plans_b.json > $O/plans_b.log 2>&1; echo "plans rc=$?"; grep -E "^M=|within" $O/plans_b.log | cut -c1-150; }
cd $O && tar cf - *.json *.log | xz -1 > $OUT/batch_b.tar.xz
echo "all done at $(el) s"
