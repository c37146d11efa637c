#!/usr/bin/env bash
# scripts/device/ab_checked.sh PATCH -- scripts/device/ab_gemm.sh PATCH with the working tree's gemm_device_test
# (TESTS=1, ROUNDS rounds, default 3, REPEATS=10), then on that build compute-sanitizer memcheck, racecheck and
# synccheck over GemmSanitize.* and the LDL / STL count of every Hopper object: one device call for an A / B whose new
# side could land.  Logs to $OUT (ab.log, san_*.log); prints the ratios of each round (gemm_ratios.py).
# Time on the H200 (device tool, a fresh machine): 210-260 s for 3 rounds, the builds about 125 s of it.  Leave $OUT
# the tool's own folder when the device time left is near that: a call cut short then still returns ab.log, whose
# rounds gemm_ratios.py can read from the gemm_*.json beside it (a command that prints only at its end returns
# nothing).
cd "$(dirname "$0")/../.."
OUT=${OUT:-/tmp/ab-out}
mkdir -p "$OUT"
TESTS=1 TEST_TIMEOUT=150 ROUNDS=${ROUNDS:-3} REPEATS=${REPEATS:-10} timeout 420 scripts/device/ab_gemm.sh "$1" > "$OUT/ab.log" 2>&1
grep -E "builds|device tests|FAILED|PASSED" "$OUT/ab.log" | head
grep -A3 -E "Failure" "$OUT/ab.log" | head -12
grep -q "device tests rc=0" "$OUT/ab.log" || exit 1
python3 scripts/device/gemm_ratios.py "$OUT"/gemm_new_*.json "$OUT"/gemm_base_*.json
T=${NEW_BUILD:-/tmp/ab-new}/tests/kernel_gemm/gemm_device_test
for tool in memcheck racecheck synccheck; do
  timeout 100 compute-sanitizer --tool $tool --error-exitcode 3 "$T" --gtest_filter='GemmSanitize.*' > "$OUT/san_$tool.log" 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$OUT/san_$tool.log" | head -1)"
done
for f in "${NEW_BUILD:-/tmp/ab-new}"/CMakeFiles/tessera_kernels.dir/src/gemm_sm90*.o; do
  cuobjdump -sass "$f" > /tmp/sass.txt 2>&1
  echo "$(basename "$f"): LDL $(grep -c LDL /tmp/sass.txt) STL $(grep -c STL /tmp/sass.txt)"
done
