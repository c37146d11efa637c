#!/usr/bin/env bash
# scripts/device/experiments/gemv_balanced_run.sh -- one device call (from the repository root on the GPU machine, the
# tree clean): scripts/device/share_probe.cu built and run (share.log); the tree built (/tmp/b: tessera_cli,
# gemm_host_test, gemm_device_test); the GEMM tests whole and memcheck / racecheck / synccheck on GemmDevice.Gemv; ROUNDS
# (default 1) rounds of the decode set (dec_r.json).  Pass TESSERA_GIT_COMMIT.  Results under $OUT.  About 360 s.
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, T, el, tree_build, gemm_tests)
nvcc -std=c++20 -O3 -gencode arch=compute_90a,code=sm_90a -I include -I scripts/device scripts/device/share_probe.cu \
  -o /tmp/shp -lcublas > $O/share_build.log 2>&1 && timeout 120 /tmp/shp > $O/share.log 2>&1
echo "share probe rc=$? at $(el) s"; cat $O/share.log; cp $O/share.log "$OUT/"
tree_build tessera_cli gemm_host_test gemm_device_test || exit 1
gemm_tests 'GemmDevice.Gemv' 420
for r in $(seq 1 "${ROUNDS:-1}"); do
  timeout 40 /tmp/b/tools/tessera bench gemm --shapes decode --repeats 10 --json "$OUT/dec_$r.json" > $O/dec_$r.log 2>&1 ||
    echo "round $r failed"
  python3 scripts/device/gemm_ratios.py "$OUT/dec_$r.json" | grep -E "json|^bare|cost_bias_sil|cost_bias_gel|^decode"
done
cp $O/*.log "$OUT/" 2>/dev/null
echo "all done at $(el) s"
