#!/usr/bin/env bash
# scripts/device/experiments/issue_forms_run.sh -- one device call (from the repository root on the GPU machine, the tree
# clean): issue_forms.patch applied and built (/tmp/b: tessera_cli, gemm_device_test, gemm_fp8_test); the decode tests
# and FP8's decode plans; compute-sanitizer on two decode tests (time allowing); ROUNDS (default 2) rounds of `tessera
# bench gemm` on SHAPES (the decode set less its batch-of-1 GEMV shapes) with the producer's two written-out loops by
# the pairs' rule (cand), the same with pairs off (TESSERA_EXP_ISSUE=off) and the loop over a run-time step of
# b32718e..4675e6a by the rule (main) in turn, the bare GEMM's us per shape printed; then one run of the whole decode
# set (cand: full_cand.json).  Everything in $OUT/if.tar.xz.  Pass TESSERA_GIT_COMMIT.  About 420 s.
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, T, el, patch_build, sanitize)
R=$O/if; mkdir -p $R
patch_build issue_forms.patch tessera_cli gemm_device_test gemm_fp8_test || { tar -C $O -cJf $OUT/if.tar.xz .; exit 1; }
timeout 90 $T/gemm_device_test --gtest_filter='GemmDevice.*Decode*:GemmDevice.ClusterPair*:GemmDevice.ShortBoxes:GemmDevice.WgmmaTiles' > $R/dt.log 2>&1
echo "decode tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $R/dt.log | tr '\n' ' ') at $(el) s"
timeout 60 $T/gemm_fp8_test --gtest_filter='GemmFp8.DecodePlans' > $R/f8.log 2>&1
echo "fp8 decode rc=$? $(grep -E '^\[  (PASSED|FAILED)' $R/f8.log | tr '\n' ' ') at $(el) s"
grep -A8 Failure $R/dt.log $R/f8.log | head -20
sanitize 'GemmDevice.Wgmma64Decode:GemmDevice.ShortBoxes' ${SANGUARD:-260} 50 $R
S=${SHAPES:-16x4096x4096,64x4096x4096,128x4096x4096,16x8192x8192,64x8192x8192,128x8192x8192,16x14336x4096,128x14336x4096,16x4096x14336,128x4096x14336}
bin=/tmp/b/tools/tessera
V="cand off main"
for r in $(seq 1 "${ROUNDS:-2}"); do
  for v in $V; do
    e=$v; [ $v = cand ] && e=""
    TESSERA_EXP_ISSUE=$e timeout 40 $bin bench gemm --shapes $S --repeats 10 --json $R/dec_${v}_$r.json > $R/dec_${v}_$r.log 2>&1 || echo "$v $r failed"
  done
  bare_us $(for v in $V; do echo $R/dec_${v}_$r.json; done)
  python3 scripts/device/gemm_ratios.py $(for v in $V; do echo $R/dec_${v}_$r.json; done) | grep -E "json|^bare|cost_bias_sil"
  echo "round $r at $(el) s"
done
if [ $(el) -lt ${GUARD:-480} ]; then
  timeout 40 $bin bench gemm --shapes decode --repeats 10 --json $R/full_cand.json > $R/full_cand.log 2>&1 || echo "full failed"
  python3 scripts/device/gemm_ratios.py $R/full_cand.json | grep -E "json|^bare|cost_bias_sil"; bare_us $R/full_cand.json
fi
tar -C $O -cJf $OUT/if.tar.xz if cfg.log build.log
echo "all done at $(el) s"
