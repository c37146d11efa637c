#!/usr/bin/env bash
# scripts/device/experiments/short_box_run.sh -- one device call (from the repository root on the GPU machine, the tree
# clean): short_box.patch (a K-major operand one tile high and shorter than the tile comes in boxes of its own rows,
# rounded up to 8, not of the tile's) built and tested, then measured.  Builds /tmp/b (tessera_cli, gemm_device_test,
# gemm_host_test) with the patch, runs gemm_device_test whole and its GemmSanitize subset with the decode tests under
# compute-sanitizer (memcheck, racecheck, synccheck), then `--plans` at batches of 72-120 against issue 11's weights, the
# decode grid (batches of 1-256) and the decode set (three rounds), each step after the tests within a time guard.
# Results under $OUT (short_box.tar.xz), a summary on stdout.  About 420-540 s.
# The patch is in the tree from 389599c on (it applies to ef8282f only): from there, the same measurements are
# short_box_verify.sh's or the bench commands below run on the tree as it is.
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, T, el, patch_build)
patch_build short_box.patch tessera_cli gemm_device_test gemm_host_test || exit 1
B=/tmp/b/tools/tessera
timeout 60 $T/gemm_host_test > $O/ht.log 2>&1; echo "host rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/ht.log | tr '\n' ' ')"
timeout 150 $T/gemm_device_test > $O/dt.log 2>&1; echo "device rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/dt.log | tr '\n' ' ') at $(el) s"; grep -A6 Failure $O/dt.log | head -30
F='GemmSanitize.*:GemmDevice.Wgmma128x16Decode:GemmDevice.Wgmma64Decode:GemmDevice.HopperDecodePlans'
for tool in memcheck racecheck synccheck; do
  [ $(el) -gt 380 ] && { echo "$tool skipped (time)"; continue; }
  timeout 90 compute-sanitizer --tool $tool --error-exitcode 3 $T/gemm_device_test --gtest_filter="$F" > $O/san_$tool.log 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|^\[  (PASSED|FAILED)' $O/san_$tool.log | head -3 | tr '\n' ' ') at $(el) s"
done
S=""
for w in 4096x4096 8192x8192 14336x4096 4096x14336; do for b in 72 96 112 120; do S="$S${S:+,}${b}x$w"; done; done
timeout 100 $B bench gemm --plans --shapes $S --repeats 10 --json $O/plans_b65.json > $O/plans_b65.log 2>&1; echo "plans b65 rc=$?"
grep -E "^M=|within" $O/plans_b65.log | cut -c1-170
timeout 100 $B bench gemm --plans --shapes decode-grid --repeats 10 --json $O/plans.json > $O/plans.log 2>&1; echo "grid rc=$?"
grep -E "^M=(2|4|8|32),|within" $O/plans.log | cut -c1-170
for r in 1 2 3; do [ $(el) -gt 520 ] && break; timeout 40 $B bench gemm --shapes decode --repeats 10 --json $O/dec_$r.json > $O/dec_$r.log 2>&1; done
python3 scripts/device/gemm_ratios.py $O/dec_*.json | grep -E "json|^bare|cost_bias_sil"
cd $O && tar cf - *.json *.log | xz -1 > $OUT/short_box.tar.xz
echo "all done at $(el) s"
