#!/usr/bin/env bash
# scripts/device/experiments/scatter_run.sh -- one device call (from the repository root on the GPU machine, the tree
# clean): the tree built (/tmp/b: tessera_cli, gemm_device_test, gemm_host_test); gemm_host_test and gemm_device_test
# whole, compute-sanitizer memcheck / racecheck / synccheck on the cluster pairs' tests (GemmSanitize.*, ClusterPair64Menus,
# Wgmma64Decode, Wgmma128x16Decode); then ROUNDS (default 3) rounds of the decode set with the scattered pair (the
# tree's) and with TESSERA_PAIR_SHARE set (the staged exchange) in turn.  Pass TESSERA_GIT_COMMIT.  Results under $OUT
# (scatter.tar.xz), a summary on stdout.  About 380 s.  (Run at c92c2c7, whose tree had the switch; main's has not:
# pair_share_run.sh applies it as a patch.)
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, T, el, tree_build, gemm_tests, ab_decode)
tree_build tessera_cli gemm_device_test gemm_host_test || exit 1
gemm_tests 'GemmSanitize.*:GemmDevice.ClusterPair64Menus:GemmDevice.Wgmma64Decode:GemmDevice.Wgmma128x16Decode' 380
ab_decode scatter share TESSERA_PAIR_SHARE "${ROUNDS:-3}" scatter.tar.xz
echo "all done at $(el) s"
