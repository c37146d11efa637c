#!/usr/bin/env bash
# scripts/device/experiments/issue_old_loop_run.sh -- one device call (from the repository root on the GPU machine, the
# tree clean): issue_old_loop.patch applied and built (/tmp/b: tessera_cli, gemm_device_test); the decode tests with
# TESSERA_EXP_ISSUE=old; ROUNDS (default 2) rounds of `tessera bench gemm` on SHAPES (default: the batch-128 row of the
# decode set and three others) with the producer as main has it (pairs by the rule: dec_main_r.json), its single-stage
# loop of b32718e^ (TESSERA_EXP_ISSUE=old: dec_old_r.json) and main's loop one stage at a time (new1: dec_new1_r.json)
# in turn; the bare GEMM's us per shape printed.  Then, time allowing, FULL=1 rounds of the whole decode set main / old.
# Everything in $OUT/io.tar.xz.  Pass TESSERA_GIT_COMMIT.  About 300 s.
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, T, el, patch_build)
R=$O/io; mkdir -p $R
# (WS=1: no_cluster_pair.patch applied too, and the variants ws / oldws -- TESSERA_NO_CLUSTER_PAIR -- timed beside them.)
if [ "${WS:-0}" = 1 ]; then git apply scripts/device/experiments/no_cluster_pair.patch || exit 1; fi
patch_build issue_old_loop.patch tessera_cli gemm_device_test || { tar -C $O -cJf $OUT/io.tar.xz .; exit 1; }
V="main old new1"; [ "${WS:-0}" = 1 ] && V="$V ws oldws"
TESSERA_EXP_ISSUE=old timeout 90 $T/gemm_device_test --gtest_filter='GemmDevice.*Decode*:GemmDevice.ClusterPair*:GemmDevice.ShortBoxes' > $R/dt_old.log 2>&1
echo "old loop decode tests rc=$? $(grep -E '^\[  (PASSED|FAILED)' $R/dt_old.log | tr '\n' ' ') at $(el) s"
grep -A8 Failure $R/dt_old.log | head -20
S=${SHAPES:-128x4096x4096,128x8192x8192,128x14336x4096,128x4096x14336,16x8192x8192,64x4096x4096,16x4096x14336}
bin=/tmp/b/tools/tessera
for r in $(seq 1 "${ROUNDS:-2}"); do
  for v in $V; do
    e=$v; [ $v = main ] && e=""; [ $v = ws ] && e=""; [ $v = oldws ] && e=old
    w=""; case $v in ws|oldws) w=1;; esac
    env ${w:+TESSERA_NO_CLUSTER_PAIR=1} TESSERA_EXP_ISSUE=$e timeout 40 $bin bench gemm --shapes $S --repeats 10 --json $R/dec_${v}_$r.json > $R/dec_${v}_$r.log 2>&1 || echo "$v $r failed"
  done
  bare_us $(for v in $V; do echo $R/dec_${v}_$r.json; done)
  python3 scripts/device/gemm_ratios.py $(for v in $V; do echo $R/dec_${v}_$r.json; done) | grep -E "json|^bare"
  echo "round $r at $(el) s"
done
for r in $(seq 1 "${FULL:-0}"); do
  [ $(el) -gt ${GUARD:-330} ] && { echo "full set skipped (time)"; break; }
  for v in main old; do
    if [ $v = main ]; then e=""; else e=$v; fi
    TESSERA_EXP_ISSUE=$e timeout 40 $bin bench gemm --shapes decode --repeats 10 --json $R/full_${v}_$r.json > $R/full_${v}_$r.log 2>&1 || echo "full $v $r failed"
  done
  python3 scripts/device/gemm_ratios.py $R/full_main_$r.json $R/full_old_$r.json | grep -E "json|^bare"
  bare_us $R/full_main_$r.json $R/full_old_$r.json
done
tar -C $O -cJf $OUT/io.tar.xz io cfg.log build.log
echo "all done at $(el) s"
