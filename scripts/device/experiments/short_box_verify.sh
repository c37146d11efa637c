#!/usr/bin/env bash
# scripts/device/experiments/short_box_verify.sh -- one device call (from the repository root on the GPU machine, the
# tree clean) for the short boxes as landed: builds /tmp/b (tessera_cli, gemm_device_test, gemm_host_test) from the tree,
# runs gemm_host_test and gemm_device_test whole, compute-sanitizer (memcheck, racecheck, synccheck) on GemmSanitize.*
# and GemmDevice.ShortBoxes, then `tessera bench gemm` against cuBLAS at batches of 72, 96 and 112 as A with issue 11's
# weights (two rounds).  Pass TESSERA_GIT_COMMIT (the checkout's HEAD may not be the commit).  Results under $OUT
# (short_box_verify.tar.xz), a summary on stdout.  About 330 s.
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, T, el, tree_build, gemm_tests)
tree_build tessera_cli gemm_device_test gemm_host_test || exit 1
B=/tmp/b/tools/tessera
gemm_tests 'GemmSanitize.*:GemmDevice.ShortBoxes' 420
grep -E '^\[       OK \] GemmDevice.ShortBoxes' $O/dt.log
S=""
for w in 4096x4096 8192x8192 14336x4096 4096x14336; do for b in 72 96 112; do S="$S${S:+,}${b}x$w"; done; done
for r in 1 2; do
  [ $(el) -gt 520 ] && break
  timeout 60 $B bench gemm --shapes $S --repeats 10 --json $O/b65_$r.json > $O/b65_$r.log 2>&1; echo "bench b65 round $r rc=$?"
done
grep -E "^M=" $O/b65_*.log | cut -c1-90
cd $O && tar cf - *.json *.log | xz -1 > $OUT/short_box_verify.tar.xz
echo "all done at $(el) s"
