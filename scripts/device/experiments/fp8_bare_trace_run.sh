#!/usr/bin/env bash
# scripts/device/experiments/fp8_bare_trace_run.sh -- one device call (from the repository root on the GPU machine): the
# persistent FP8 kernel's per-unit timeline (scripts/device/trace_gemm.cu, e4m3, promoted) with the bare GEMM on the
# general kernel (TESSERA_FP8_BARE=0, fp8_bare_switch.patch) and on the bare-menus kernel (1), at 4096^3 and 8192^3, the
# cooperative tile forced; the fused menus (bias+GELU, bias+SiLU+residual) run the general kernel in both.  Output in
# the call's log; about 250 s.
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, el, trace_build)
git apply scripts/device/experiments/fp8_bare_switch.patch || { echo "switch patch does not apply"; exit 1; }
trace_build || exit 1
for shape in "4096 4096 4096" "8192 8192 8192"; do
  for v in 0 1; do
    echo "== $shape, TESSERA_FP8_BARE=$v"
    TESSERA_FP8_BARE=$v TRACE_DTYPE=e4m3 timeout 100 /tmp/tb/trace_gemm $shape c 2>&1 | grep -v "^\[gemm\]" | head -40
  done
done
echo "all done at $(el) s"
