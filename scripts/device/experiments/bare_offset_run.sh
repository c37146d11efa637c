#!/usr/bin/env bash
# scripts/device/experiments/bare_offset_run.sh -- one device call (from the repository root on the GPU machine, the tree
# clean): bare_offset.patch (TESSERA_EXP_OFFSET=1: the persistent bare-menus kernel's consumers out of phase at every
# unit -- consumer 1 issues a unit's K tile 0 once consumer 0 has issued its own, consumer 0 starts a unit once
# consumer 1 has issued the last K tile of the one before -- as the FP8 bare kernel's are, so that one consumer's drain
# and pack run beside the other's wgmma) built with tessera_cli, gemm_device_test and gemm_fp8_test; the persistent
# device tests and GemmInt8.* with the switch on; L (bf16) main / offset in turn (ROUNDS, default 3), each its own
# process, then INT8 on L once each; then, time allowing (GUARD, default 470 s), compute-sanitizer on
# GemmDevice.CooperativeBareAcrossUnits and GemmDevice.StreamKTail with the switch on.  Everything in $OUT/bo.tar.xz
# after each step.  Pass TESSERA_GIT_COMMIT.  About 450 s.
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, T, el, patch_results, sanitize)
patch_results bare_offset.patch bo  # (R, B, base)
pack() { tar -C $O -cJf $OUT/bo.tar.xz bo; }
TESSERA_EXP_OFFSET=1 timeout 150 $T/gemm_device_test --gtest_filter='GemmDevice.Persistent*:GemmDevice.Cooperative*:GemmDevice.StreamKTail:GemmSanitize.*' > $R/dt.log 2>&1
echo "device (offset) rc=$? $(grep -E '^\[  (PASSED|FAILED)' $R/dt.log | tr '\n' ' ') at $(el) s"
TESSERA_EXP_OFFSET=1 timeout 90 $T/gemm_fp8_test --gtest_filter='GemmInt8.*:GemmFp8.BareKernel*' > $R/i8.log 2>&1
echo "int8 / fp8 bare (offset) rc=$? $(grep -E '^\[  (PASSED|FAILED)' $R/i8.log | tr '\n' ' ') at $(el) s"
grep -A8 Failure $R/dt.log $R/i8.log | head -30
pack
L=4096x4096x4096,8192x8192x8192,8192x4096x4096,8192x14336x4096,8192x4096x14336
for r in $(seq 1 "${ROUNDS:-3}"); do
  for v in main offset; do
    env $([ $v = offset ] && echo TESSERA_EXP_OFFSET=1) TESSERA_GIT_COMMIT=$base+$v timeout 40 $B bench gemm --shapes $L \
      --repeats 10 --json $R/l_${v}_$r.json > $R/l_${v}_$r.log 2>&1 || echo "L $v $r failed"
  done
  python3 scripts/device/gemm_ratios.py $R/l_main_$r.json $R/l_offset_$r.json
  bare_us $R/l_main_$r.json $R/l_offset_$r.json
  pack
done
for v in main offset; do
  env $([ $v = offset ] && echo TESSERA_EXP_OFFSET=1) TESSERA_GIT_COMMIT=$base+$v timeout 60 $B bench gemm --dtype s8 --shapes $L \
    --repeats 10 --json $R/i8_$v.json > $R/i8_$v.log 2>&1; echo "int8 $v rc=$? at $(el) s"
  grep -v '^\[gemm\]' $R/i8_$v.log | tail -6 | cut -c1-150
done
pack
export TESSERA_EXP_OFFSET=1
sanitize 'GemmDevice.CooperativeBareAcrossUnits:GemmDevice.StreamKTail' ${GUARD:-470} 60 $R
pack; echo "all done at $(el) s"
