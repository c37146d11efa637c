#!/usr/bin/env bash
# scripts/device/experiments/store_pairs_run.sh -- one device call (from the repository root on the GPU machine, the tree
# clean): the tree built (/tmp/b: tessera_cli, gemm_device_test, gemm_host_test) and tested (gemm_host_test,
# gemm_device_test whole, compute-sanitizer memcheck / racecheck / synccheck on GemmSanitize.*), two rounds of the
# decode set, the small square shapes and 8000 x 5000 x 3000 once, then (time allowing) the non-persistent kernels'
# timeline (a -DTESSERA_GEMM_TRACE build of tessera_kernels, scripts/device/trace_gemm.cu) at 128 x 14336 x 4096
# (128 x 128 tile) and 128 x 4096^2 (128 x 64 tile, two splits).  Run at 975da48, whose staged store pass took two
# vectors a step; since cc24144 that is store_pairs.patch beside it (apply it first to run the same again).
# Pass TESSERA_GIT_COMMIT.  Results under $OUT (store_pairs.tar.xz), a summary on stdout.  About 500 s.
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, T, el, tree_build, gemm_tests, trace_m128)
tree_build tessera_cli gemm_device_test gemm_host_test || exit 1
B=/tmp/b/tools/tessera
gemm_tests 'GemmSanitize.*' 330
for r in 1 2; do
  timeout 40 $B bench gemm --shapes decode --repeats 10 --json $O/dec_$r.json > $O/dec_$r.log 2>&1 || echo "decode round $r failed"
done
python3 scripts/device/gemm_ratios.py $O/dec_*.json | grep -E "json|^bare|cost_bias_sil"
timeout 40 $B bench gemm --shapes 2048x2048x2048,1024x1024x1024,8000x5000x3000 --repeats 10 --json $O/small.json > $O/small.log 2>&1
echo "small rc=$? at $(el) s"; grep -E "^M=" $O/small.log | cut -c1-200
(cd $O && tar cf - *.json *.log | xz -1 > $OUT/store_pairs.tar.xz)  # (kept should the trace step run out of time)
[ $(el) -lt 330 ] && trace_m128 '^(bare|bias)|epilogue \(|staged epilogue'
cd $O && tar cf - *.json *.log | xz -1 > $OUT/store_pairs.tar.xz
echo "all done at $(el) s"
