#!/usr/bin/env bash
# scripts/device/experiments/rows64_run.sh -- one device call for the 64-row weight tiles as planned (run from the
# repository root on the GPU machine): builds (/tmp/b), runs the GEMM tests (the decode ones under compute-sanitizer
# too), the decode set and the small batches (three rounds), the planner against the 128-row tiles at batches 24-64,
# and the planner's grid; results under $OUT (rows64.tar.xz) and a summary on stdout.  About 400 s.
set -u
cd "$(dirname "$0")/../../.."
O=/tmp/o; T=/tmp/b/tests/kernel_gemm; mkdir -p $O; t0=$(date +%s); el() { echo $(( $(date +%s) - t0 )); }
export TESSERA_GIT_COMMIT="${TESSERA_GIT_COMMIT:-$(git rev-parse --short HEAD)}"
cmake -S . -B /tmp/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DTESSERA_BUILD_TESTS=ON -DTESSERA_BUILD_TOOLS=ON \
  -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc > $O/cfg.log 2>&1 || { tail $O/cfg.log; exit 1; }
cmake --build /tmp/b -j 16 --target tessera_cli gemm_host_test gemm_device_test > $O/build.log 2>&1 || { grep -A5 error $O/build.log | head -30; exit 1; }
echo "built at $(el) s"; grep -E "C75[0-9]+" $O/build.log | head -3
timeout 60 $T/gemm_host_test > $O/ht.log 2>&1; echo "host rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/ht.log | tr '\n' ' ')"
timeout 240 $T/gemm_device_test > $O/dt.log 2>&1; echo "device rc=$? $(grep -E '^\[  (PASSED|FAILED)' $O/dt.log | tr '\n' ' ') at $(el) s"; grep -B2 -A6 Failure $O/dt.log | head -30
for tool in memcheck racecheck synccheck; do
  timeout 120 compute-sanitizer --tool $tool --error-exitcode 3 $T/gemm_device_test --gtest_filter='GemmDevice.Wgmma64Decode:GemmDevice.HopperDecodePlans' > $O/san_$tool.log 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|^\[  (PASSED|FAILED)' $O/san_$tool.log | head -3 | tr '\n' ' ') at $(el) s"
done
B=/tmp/b/tools/tessera
SB=2x4096x4096,4x4096x4096,8x4096x4096,16x4096x4096,2x8192x8192,4x8192x8192,8x8192x8192,16x8192x8192
for r in 1 2 3; do
  timeout 60 $B bench gemm --shapes decode --repeats 10 --json $O/decode_$r.json > $O/decode_$r.log 2>&1 || echo "decode $r failed"
  timeout 60 $B bench gemm --shapes $SB --repeats 20 --json $O/small_$r.json > $O/small_$r.log 2>&1 || echo "small $r failed"
  timeout 60 $B bench gemm --shapes 40x4096x4096,48x4096x4096,56x4096x4096,48x4096x14336 --repeats 10 --versus wgmma128x64x64:2 --json $O/vs128_4096_$r.json > $O/vs128_4096_$r.log 2>&1 || echo "vs128 $r failed"
  timeout 60 $B bench gemm --shapes 40x8192x8192,48x8192x8192,56x8192x8192 --repeats 10 --versus wgmma128x64x64:1 --json $O/vs128_8192_$r.json > $O/vs128_8192_$r.log 2>&1 || echo "vs128b $r failed"
  timeout 60 $B bench gemm --shapes 32x4096x4096,32x4096x14336 --repeats 10 --versus wgmma64x64x64:2 --json $O/vs64_$r.json > $O/vs64_$r.log 2>&1 || echo "vs64 $r failed"
  echo "round $r at $(el) s"
done
python3 scripts/device/gemm_ratios.py $O/decode_*.json 2>&1 | tail -12
python3 - <<'PY'
import json, glob
for f in sorted(glob.glob('/tmp/o/vs*.json')) + sorted(glob.glob('/tmp/o/small_*.json')):
    out = [f"{r['shape']} {r['case'][:4]} {r['ratio']:.3f}" for r in json.load(open(f))['records'] if r['case'] in ('bare', 'plan_vs_forced')]
    print(f.split('/')[-1], ' | '.join(out))
PY
timeout 150 $B bench gemm --plans --shapes decode-grid --repeats 10 --json $O/plans.json > $O/plans.log 2>&1; echo "plans rc=$? at $(el) s"; grep -E "within" $O/plans.log
cd $O && tar cf - *.json *.log | xz -1 > $OUT/rows64.tar.xz
echo "all done at $(el) s"
