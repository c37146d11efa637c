#!/usr/bin/env bash
# scripts/device/experiments/fp8_bare_run.sh -- one device call (from the repository root on the GPU machine): FP8 on the
# persistent bare-menus kernel.  Applies fp8_bare_switch.patch (TESSERA_FP8_BARE=0: the host launches the general kernel
# for FP8 as before), builds tessera_cli, gemm_device_test and gemm_fp8_test in /tmp/b, runs gemm_fp8_test whole, sums
# up the e4m3 unit's SASS (spills and QGMMA of each kernel), times FP8 e4m3 per-tensor (promoted) on L with the switch
# off / on, ROUNDS times (default 2; the records' `commit` says which: +general / +bare), channel scales once each
# (CHANNEL=0: not), and, past that,
# compute-sanitizer on GemmFp8Sanitize.* as time allows (SAN=memcheck,racecheck,synccheck).  Everything in
# $OUT/fp8bare.tar.xz.  Pass TESSERA_GIT_COMMIT.
set -u
cd "$(dirname "$0")/../../.."
. scripts/device/experiments/patch_build.sh  # (O, T, el, results_build, fp8_ab)
git apply scripts/device/experiments/fp8_bare_switch.patch || { echo "switch patch does not apply"; exit 1; }
results_build fp8bare  # (R, B)
base=$TESSERA_GIT_COMMIT
L=4096x4096x4096,8192x8192x8192,8192x4096x4096,8192x14336x4096,8192x4096x14336
if [ "${TESTS:-1}" = 1 ]; then
  timeout 150 $T/gemm_fp8_test > $R/f8.log 2>&1; echo "fp8 rc=$? $(grep -E '^\[  (PASSED|FAILED)' $R/f8.log | tr '\n' ' ') at $(el) s"
  grep -A8 Failure $R/f8.log | head -30; grep -E "^\[  FAILED" $R/f8.log | head
fi
obj=/tmp/b/CMakeFiles/tessera_kernels.dir/src/gemm_sm90_persistent_e4m3_e4m3_coop_kk.cu.o
cuobjdump -sass $obj > $R/e4m3.sass 2>/dev/null && python3 - $R/e4m3.sass <<'PY' | tee $R/sass_summary.txt
import re, sys
s = open(sys.argv[1]).read()
for f in re.split(r'\n\s*Function : ', s)[1:]:
    name = f.split('\n', 1)[0]
    lines = f.split('\n')
    q = [i for i, l in enumerate(lines) if 'QGMMA' in l]
    sp = [i for i, l in enumerate(lines) if re.search(r'\b(STL|LDL)', l)]
    kind = 'bare' if 'Lb1EEEv' in name else 'general'
    print(kind, 'instructions', len(lines), 'QGMMA', len(q), 'STL/LDL', len(sp), 'DEPBAR', sum('WARPGROUP.DEPBAR' in l for l in lines))
    for i in sp:
        inside = any(a < i < b for a, b in zip(q, q[1:]) if b - a < 400)
        print('  ', i, lines[i].strip()[:90], '(between QGMMA)' if inside else '')
PY
fp8_ab ${ROUNDS:-2}
for v in $([ "${CHANNEL:-1}" = 1 ] && echo 0 1); do
  lab=$([ $v = 0 ] && echo general || echo bare)
  TESSERA_FP8_BARE=$v TESSERA_GIT_COMMIT=$base+$lab timeout 120 $B bench gemm --dtype e4m3 --fp8-scale channel --shapes $L \
    --repeats 10 --json $R/c_${lab}.json > $R/c_${lab}.log 2>&1
  echo "channel $lab rc=$? at $(el) s"; grep -v '^\[gemm\]' $R/c_${lab}.log | tail -8 | cut -c1-160
done
for tool in $(echo ${SAN:-memcheck,racecheck,synccheck} | tr ',' ' '); do
  [ $(el) -gt ${GUARD:-470} ] && { echo "$tool skipped (time)"; continue; }
  timeout ${SANLIM:-100} compute-sanitizer --tool $tool --error-exitcode 3 $T/gemm_fp8_test --gtest_filter='GemmFp8Sanitize.*' \
    > $R/san_$tool.log 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|^\[  (PASSED|FAILED)' $R/san_$tool.log | head -3 | tr '\n' ' ') at $(el) s"
done
cp $O/build.log $O/cfg.log $R/ 2>/dev/null
tar -C $O -cJf $OUT/fp8bare.tar.xz fp8bare
echo "all done at $(el) s"
