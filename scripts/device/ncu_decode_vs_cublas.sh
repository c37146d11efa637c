#!/usr/bin/env bash
# scripts/device/ncu_decode_vs_cublas.sh [SHAPE...] -- Tessera's and cuBLAS's kernels of `tessera bench gemm` on each
# decode shape, side by side under Nsight Compute (clocks and caches left alone: the bench evicts L2 itself before
# each run): per kernel, the median over its launches of the time, DRAM throughput (% of peak), DRAM bytes read, L2
# bytes (lts__t_bytes: what the L2 slices served) and the bytes the SMs received from L2 (xbar2l1tex), and the launch
# shape (grid, cluster, shared memory, registers).  TESSERA_BIN: the folder holding tessera and tessera-gpu (default
# /tmp/tessera-build/tools); OUT: where the CSVs go (default /tmp/ncu-decode).  Default shapes: the decode set's
# shapes below 0.95 of cuBLAS on the H200 (docs/PERF.md, fifty-sixth section).
set -uo pipefail
cd "$(dirname "$0")/../.."
BIN=${TESSERA_BIN:-/tmp/tessera-build/tools}
OUT=${OUT:-/tmp/ncu-decode}
mkdir -p "$OUT"
[ $# -ge 1 ] || set -- 128x8192x8192 16x4096x14336 64x4096x4096 16x8192x8192 128x14336x4096
M=gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,lts__t_bytes.sum,l1tex__m_xbar2l1tex_read_bytes.sum,launch__grid_size,launch__cluster_dim_x,launch__cluster_dim_z,launch__shared_mem_per_block_dynamic,launch__registers_per_thread
for s in "$@"; do
  timeout 150 ncu --clock-control none --cache-control none --target-processes all --kernel-name-base demangled \
    -k regex:"${NCU_REGEX:-nvjet|xmma|gemm_sm90|gemv|splitK}" --launch-count ${NCU_COUNT:-40} --metrics $M --csv \
    "$BIN/tessera" bench gemm --shapes "$s" --repeats 1 > "$OUT/ncu_$s.csv" 2> "$OUT/ncu_$s.err"
  echo "$s: ncu rc=$?"
  python3 - "$OUT/ncu_$s.csv" <<'PY'
import collections, csv, statistics, sys
hdr, launches = None, collections.OrderedDict()
for r in csv.reader(open(sys.argv[1])):
    if r and r[0] == 'ID':
        hdr = r
    elif hdr and len(r) == len(hdr):
        d = dict(zip(hdr, r))
        launches.setdefault((d['ID'], d['Kernel Name']), {})[d['Metric Name']] = d['Metric Value']
kernels = collections.OrderedDict()
for (_, name), m in launches.items():
    kernels.setdefault(name, []).append(m)
for name, ms in kernels.items():
    med = lambda k: statistics.median(float(m[k].replace(',', '')) for m in ms)
    m = ms[0]
    print(f"  {name[:72]:72s} launches {len(ms):2d}  {med('gpu__time_duration.sum') / 1e3:6.2f} us"
          f"  DRAM {med('dram__throughput.avg.pct_of_peak_sustained_elapsed'):5.1f}%"
          f" {med('dram__bytes_read.sum') / 1e6:5.0f} MB  L2 {med('lts__t_bytes.sum') / 1e6:5.0f} MB"
          f"  to SMs {med('l1tex__m_xbar2l1tex_read_bytes.sum') / 1e6:5.0f} MB  grid {m['launch__grid_size']}"
          f" cluster {m['launch__cluster_dim_x']}x{m['launch__cluster_dim_z']} (x, z)"
          f" smem {m['launch__shared_mem_per_block_dynamic']} regs {m['launch__registers_per_thread']}")
PY
done
