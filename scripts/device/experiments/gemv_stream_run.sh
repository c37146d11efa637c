#!/usr/bin/env bash
# scripts/device/experiments/gemv_stream_run.sh -- one device call (from the repository root on the GPU machine, the tree
# clean): gemv_groups.patch applied and built (/tmp/b: tessera_cli, gemm_host_test, gemm_device_test); the GEMM tests
# whole and memcheck / racecheck / synccheck on GemmDevice.Gemv (the dealt grid at 6403 and 13001 rows) and
# GemmSanitize.*; ROUNDS (default 2) rounds of the decode set with the GEMV's dealt grid (main's) and with
# TESSERA_GEMV_GROUPS=1 (one block a group: since 2169fba the one-group kernel, run_one) in turn.  Pass TESSERA_GIT_COMMIT.  Results under $OUT (gemv.tar.xz).
# About 450 s.
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, T, el, patch_build, gemm_tests, ab_decode)
patch_build gemv_groups.patch tessera_cli gemm_host_test gemm_device_test || exit 1
gemm_tests 'GemmDevice.Gemv:GemmSanitize.*' 380
ab_decode dealt groups TESSERA_GEMV_GROUPS "${ROUNDS:-2}" gemv.tar.xz
echo "all done at $(el) s"
