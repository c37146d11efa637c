#!/usr/bin/env bash
# scripts/device/experiments/trace_cold_run.sh -- one device call (from the repository root on the GPU machine): the
# non-persistent kernels' timeline (a -DTESSERA_GEMM_TRACE build of tessera_kernels in /tmp/tb, scripts/device/
# trace_gemm.cu linked to it) of one launch right after the L2 eviction, as `tessera bench gemm` times it (TRACE_COLD=1),
# bare, at the decode shapes where the kernel runs furthest over its stream alone (share_probe.cu's occupancy mode):
# 16 x 14336 x 4096 (128 x 16), 128 x 4096^2 (128 x 64, two splits), 16 x 8192^2 (64 x 16), 128 x 14336 x 4096
# (128 x 128), 64 x 4096^2 (64 x 64, two splits).  Logs in $OUT/t.tar.xz.  About 230 s.
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, el, trace_build)
tb=/tmp/tb
trace_build || exit 1
run() {  # name split m n k tile
  local name=$1 split=$2; shift 2
  if [ "$split" = 0 ]; then TRACE_COLD=1 TRACE_VARIANTS=1 timeout 60 $tb/trace_gemm "$@" > $O/t_$name.log 2>&1
  else TRACE_SPLIT=$split TRACE_COLD=1 TRACE_VARIANTS=1 timeout 60 $tb/trace_gemm "$@" > $O/t_$name.log 2>&1; fi
  echo "== $name rc=$?"; cat $O/t_$name.log | head -30
}
run d16 0 16 14336 4096 d
run w128 2 128 4096 4096 w
run e16 0 16 8192 8192 e
run m128 0 128 14336 4096 m
run f64 2 64 4096 4096 f
tar -C $O -cJf $OUT/t.tar.xz .
echo "all done at $(el) s"
