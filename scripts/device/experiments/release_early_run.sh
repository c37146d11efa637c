#!/usr/bin/env bash
# scripts/device/experiments/release_early_run.sh -- one device call (from the repository root on the GPU machine, the
# tree clean): release_early.patch applied and built (/tmp/b: tessera_cli); the decode set, its batch-of-64/128 rows
# and three small GEMMs (non-persistent plans that are not bound by memory), each main / TESSERA_EXP_RELEASE=1 in turn;
# the bare GEMM's us per shape printed.  Results packed into $OUT/re.tar.xz after each step.  Pass TESSERA_GIT_COMMIT.
# About 330 s.
# The patch: every non-persistent bf16 kernel also built with GemmSm90::run<true> (KernelInfo::fn_early), whose
# consumers release a K tile's stage once its group completes (wgmma_wait<0>) instead of one K tile later; the launch
# takes it under TESSERA_EXP_RELEASE=1.  (Its first form chose at run time between the two waits inside one kernel, and
# ptxas serialised every wgmma of two kernels, C7514: docs/PERF.md, sixty-ninth section.  This form compiles without
# C7514 -- checked off the GPU for the 128 x 64, 64 x 16 and MN-major 128 x 64 kernels -- and leaves main's kernels as
# they are.)
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, T, el, patch_build)
R=$O/re; mkdir -p $R
patch_build release_early.patch tessera_cli || { tar -C $O -cJf $OUT/re.tar.xz .; exit 1; }
bin=/tmp/b/tools/tessera
step() {  # NAME SHAPES TIMEOUT
  local v
  for v in main early; do
    env $([ $v = early ] && echo TESSERA_EXP_RELEASE=1) timeout $3 $bin bench gemm --shapes $2 --repeats 10 --json $R/$1_$v.json > $R/$1_$v.log 2>&1 || echo "$1 $v failed"
  done
  python3 scripts/device/gemm_ratios.py $R/$1_main.json $R/$1_early.json | grep -E "json|^bare|cost_bias_sil"
  bare_us $R/$1_main.json $R/$1_early.json
  tar -C $O -cJf $OUT/re.tar.xz re
  echo "$1 at $(el) s"
}
step dec decode 40
step sub 64x4096x4096,128x4096x4096,64x8192x8192,128x8192x8192,64x4096x14336,128x4096x14336,128x14336x4096 30
step small 2048x2048x2048,1024x1024x1024,8000x5000x3000,256x4096x4096 30
echo "all done at $(el) s"
