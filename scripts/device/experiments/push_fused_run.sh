#!/usr/bin/env bash
# scripts/device/experiments/push_fused_run.sh -- one device call (from the repository root on the GPU machine, the tree
# clean): push_fused.patch applied and built (/tmp/b: tessera_cli, gemm_device_test, gemm_host_test); gemm_host_test,
# then gemm_device_test whole and compute-sanitizer memcheck / racecheck / synccheck on GemmSanitize.* with
# TESSERA_PUSH_FUSED=1 (the fused menus of the 64-wide pairs pushed); three rounds of the decode set with the switch off
# and on in turn.  Pass TESSERA_GIT_COMMIT.  Results under $OUT (push_fused.tar.xz), a summary on stdout.  About 400 s.
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, T, el, patch_build, gemm_tests, ab_decode)
patch_build push_fused.patch tessera_cli gemm_device_test gemm_host_test || exit 1
export TESSERA_PUSH_FUSED=1
gemm_tests 'GemmSanitize.*' 330
unset TESSERA_PUSH_FUSED
ab_decode off on TESSERA_PUSH_FUSED 3 push_fused.tar.xz
echo "all done at $(el) s"
