#!/usr/bin/env bash
# scripts/device/experiments/gemv_stream_run.sh -- one device call (from the repository root on the GPU machine, the tree
# clean): gemv_switches.patch applied and built (/tmp/b: tessera_cli, gemm_host_test, gemm_device_test); the GEMM tests
# whole (GemmDevice.Gemv: the dealt kernel at 6403 and 13001 rows, the one-group kernel elsewhere) and memcheck /
# racecheck / synccheck on GemmDevice.Gemv and GemmSanitize.*; ROUNDS (default 2) rounds of the decode set with the
# GEMV's grids as planned and with TESSERA_GEMV_GROUPS=1 (one block a group: the one-group kernel) in turn; then
# ROUNDS rounds as planned and with TESSERA_GEMV_BALANCED=1 (1 x 4096 x 14336 on the dealt kernel over a balanced grid)
# in turn.  Pass TESSERA_GIT_COMMIT.  Results under $OUT (gemv.tar.xz, gemv_balanced.tar.xz).  About 480 s.
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, T, el, patch_build, gemm_tests, ab_decode)
patch_build gemv_switches.patch tessera_cli gemm_host_test gemm_device_test || exit 1
gemm_tests 'GemmDevice.Gemv:GemmSanitize.*' 380
ab_decode dealt groups TESSERA_GEMV_GROUPS "${ROUNDS:-2}" gemv.tar.xz
ab_decode planned balanced TESSERA_GEMV_BALANCED "${ROUNDS:-2}" gemv_balanced.tar.xz
echo "all done at $(el) s"
