#!/usr/bin/env bash
# scripts/device/experiments/pairs_rule_run.sh -- one device call (from the repository root on the GPU machine, the tree
# clean): pairs_rule.patch applied and built (/tmp/b: tessera_cli and the GEMM tests); gemm_host_test whole, the decode
# and tile tests, FP8's decode plans; the bf16 decode set with main's rule (pairs on the 128 x 128 tile alone: cand) and
# the earlier one (every ring of six or more: TESSERA_EXP_ISSUE=on) as cand / on / cand; batches of 256 (three weight
# shapes) cand / on; the FP8 decode set cand / on.  The bare GEMM's us per shape printed.  Everything in $OUT/pr.tar.xz.
# Pass TESSERA_GIT_COMMIT.  About 450 s.
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, T, el, patch_build)
R=$O/pr; mkdir -p $R
patch_build pairs_rule.patch tessera_cli gemm_host_test gemm_device_test gemm_fp8_test || { tar -C $O -cJf $OUT/pr.tar.xz .; exit 1; }
timeout 60 $T/gemm_host_test > $R/ht.log 2>&1; echo "host rc=$? $(grep -E '^\[  (PASSED|FAILED)' $R/ht.log | tr '\n' ' ')"
timeout 120 $T/gemm_device_test --gtest_filter='GemmDevice.*Decode*:GemmDevice.ClusterPair*:GemmDevice.ShortBoxes:GemmDevice.WgmmaTiles:GemmDevice.EpilogueReadAhead' > $R/dt.log 2>&1
echo "device rc=$? $(grep -E '^\[  (PASSED|FAILED)' $R/dt.log | tr '\n' ' ') at $(el) s"
timeout 60 $T/gemm_fp8_test --gtest_filter='GemmFp8.DecodePlans' > $R/f8.log 2>&1
echo "fp8 decode rc=$? $(grep -E '^\[  (PASSED|FAILED)' $R/f8.log | tr '\n' ' ') at $(el) s"
grep -A8 Failure $R/ht.log $R/dt.log $R/f8.log | head -20
bin=/tmp/b/tools/tessera
for v in cand1 on cand2; do
  e=""; [ $v = on ] && e=on
  TESSERA_EXP_ISSUE=$e timeout 40 $bin bench gemm --shapes decode --repeats 10 --json $R/dec_$v.json > $R/dec_$v.log 2>&1 || echo "decode $v failed"
done
python3 scripts/device/gemm_ratios.py $R/dec_cand1.json $R/dec_on.json $R/dec_cand2.json | grep -E "json|^bare|cost_bias_sil"
bare_us $R/dec_cand1.json $R/dec_on.json $R/dec_cand2.json
grep -h "streamed" $R/dec_cand1.log $R/dec_cand2.log | head -4
echo "bf16 decode at $(el) s"
for v in cand on; do
  e=""; [ $v = on ] && e=on
  TESSERA_EXP_ISSUE=$e timeout 30 $bin bench gemm --shapes 256x4096x4096,256x8192x8192,256x4096x14336 --repeats 10 --json $R/b256_$v.json > $R/b256_$v.log 2>&1 || echo "256 $v failed"
done
bare_us $R/b256_cand.json $R/b256_on.json
for v in cand on; do
  [ $(el) -gt ${GUARD:-470} ] && { echo "fp8 $v skipped (time)"; continue; }
  e=""; [ $v = on ] && e=on
  TESSERA_EXP_ISSUE=$e timeout 50 $bin bench gemm --dtype e4m3 --shapes decode --repeats 10 --json $R/f8_$v.json > $R/f8_$v.log 2>&1 || echo "fp8 $v failed"
  grep -v '^\[gemm\]' $R/f8_$v.log | grep -i "geomean\|geometric" | head -3
done
bare_us $R/f8_cand.json $R/f8_on.json 2>/dev/null
tar -C $O -cJf $OUT/pr.tar.xz pr cfg.log build.log
echo "all done at $(el) s"
