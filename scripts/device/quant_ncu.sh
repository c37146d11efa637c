#!/usr/bin/env bash
# scripts/device/quant_ncu.sh CASE... -- Nsight Compute on the quantisation kernels of the working tree, one probe case
# each (scripts/device/quant_probe.cu's q:mode:rows keys, e.g. e4m3:block_1x128:8192): the probe built alone (about
# 30 s), then per case the kernel's fourth launch with the speed-of-light, occupancy, launch, memory and warp-state
# sections; a summary line per case and the full text to $OUT/ncu_<case>.txt when $OUT is set.  QUANT_NCU_STALLS=1:
# warp-stall sampling instead, summarised by scripts/device/ncu_summary.py (source pages to $OUT/src_<case>.csv.gz).
set -uo pipefail
cd "$(dirname "$0")/../.."
F="-std=c++20 -O3 -DNDEBUG --generate-code=arch=compute_90a,code=[sm_90a]"
mkdir -p /tmp/q-ncu
for f in quantize quantize_bf16 quantize_f16 quantize_f32; do nvcc $F -Isrc -Iinclude -c src/$f.cu -o /tmp/q-ncu/$f.o & done
nvcc $F -Iinclude -c scripts/device/quant_probe.cu -o /tmp/q-ncu/probe.o & wait
nvcc /tmp/q-ncu/*.o -o /tmp/q-ncu/quant_probe || exit 1
if [ -n "${QUANT_NCU_STALLS:-}" ]; then  # warp-stall sampling instead: samples by reason and the hottest instructions
  for c in "$@"; do
    o="${OUT:-/tmp}/src_${c//:/_}"
    timeout 120 ncu --clock-control none -k regex:quantize --launch-skip 3 -c 1 --section WarpStateStats --section SourceCounters \
      -o /tmp/q-ncu/stalls -f /tmp/q-ncu/quant_probe 5 "$c" > /dev/null 2>&1
    ncu --import /tmp/q-ncu/stalls.ncu-rep --page source --csv --print-source sass > "$o.csv" 2>&1 && gzip -f "$o.csv"
    echo "== $c (stalls)"
    python3 scripts/device/ncu_summary.py source "$o.csv.gz" --top ${QUANT_NCU_TOP:-25}
  done
  exit 0
fi
for c in "$@"; do
  o="${OUT:-/tmp}/ncu_${c//:/_}.txt"
  timeout 120 ncu --clock-control none -k regex:quantize --launch-skip 3 -c 1 --section SpeedOfLight --section Occupancy \
    --section LaunchStats --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats \
    --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_write.sum,lts__t_sectors_op_read.sum,smsp__inst_executed.sum,smsp__cycles_active.avg \
    /tmp/q-ncu/quant_probe 5 "$c" > "$o" 2>&1
  echo "== $c rc=$?"
  grep -E "quantize_rows|quantize_block|Duration|DRAM Throughput|Memory Throughput|Registers Per|Achieved Occupancy|Theoretical Occ|Issued Warp|No Eligible|Warp Cycles Per Issued|Block Limit Reg|Block Limit Shared|Waves Per SM|dram__bytes|lts__t_sectors|inst_executed|cycles_active|L2 Hit|Mem Busy|Max Bandwidth|Stall" "$o" | grep -v "^ *OPT" | head -40
done
