# A/B of scripts/device/experiments/l2_prefetch.patch (git apply it first): build, tests, sanitizers, then the bench on L with
# the prefetch off (TESSERA_EXP_L2_LEAD=0) and on (8), twice, alternating.  Run from the repository root on the GPU machine.
set -u
B=/tmp/tessera-build
L=4096x4096x4096,8192x8192x8192,8192x4096x4096,8192x14336x4096,8192x4096x14336
OUT=$OUT GTEST_FILTER='GemmDevice.CooperativeBareAcrossUnits:GemmDevice.StreamKTail:GemmDevice.PingPongPersistent:GemmDevice.ShapesTilesLayouts16Bit' scripts/device/gemm_h100.sh build tests sanitize 2>&1 | grep -v "^\[ RUN\|^gelu\|^silu" | tail -25
for r in 1 2; do
  for lead in 0 8; do
    TESSERA_EXP_L2_LEAD=$lead timeout 200 $B/tools/tessera bench gemm --shapes $L --repeats 10 --json $OUT/ab_${lead}_$r.json > $OUT/ab.log 2>&1
    echo "== lead $lead run $r rc=$?"; grep -E '^M=' $OUT/ab.log | cut -c1-175
  done
done
rm -f $OUT/configure.log $OUT/build.log $OUT/host_test.log $OUT/san_*.log
