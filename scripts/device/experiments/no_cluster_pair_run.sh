#!/usr/bin/env bash
# scripts/device/experiments/no_cluster_pair_run.sh -- one device call (from the repository root on the GPU machine, the
# tree clean): no_cluster_pair.patch applied and built (/tmp/b: tessera_cli, gemm_device_test); gemm_device_test's decode
# and split tests with TESSERA_NO_CLUSTER_PAIR=1 and the three sanitizers on two of them with it; ROUNDS (default 3)
# rounds of the decode set without and with the switch in turn (dec_pair_r.json, dec_ws_r.json).  Everything in
# $OUT/ncp.tar.xz.  Pass TESSERA_GIT_COMMIT.  About 330 s.
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, T, el, patch_build, sanitize, ab_decode)
patch_build no_cluster_pair.patch tessera_cli gemm_device_test || { tar -C $O -cJf $OUT/ncp.tar.xz .; exit 1; }
export TESSERA_NO_CLUSTER_PAIR=1
timeout 120 $T/gemm_device_test --gtest_filter='GemmDevice.*Decode*:GemmDevice.SplitK*:GemmDevice.ShortBoxes:GemmDevice.WgmmaTiles' \
  > $O/dt_ws.log 2>&1
echo "device (no cluster pairs) rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/dt_ws.log | tr '\n' ' ') at $(el) s"
grep -A8 Failure $O/dt_ws.log | head -20
sanitize 'GemmDevice.Wgmma64Decode:GemmDevice.SplitK' 300 60
unset TESSERA_NO_CLUSTER_PAIR
ab_decode pair ws TESSERA_NO_CLUSTER_PAIR "${ROUNDS:-3}" ncp.tar.xz
echo "all done at $(el) s"
