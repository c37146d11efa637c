set -u
B=/tmp/tessera-build
OUT=${OUT:-/tmp/out}
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc -DTESSERA_BUILD_TESTS=OFF -DTESSERA_BUILD_TOOLS=ON > $OUT/cfg.log 2>&1
t0=$(date +%s); cmake --build $B -j 16 --target tessera_cli tessera_gpu > $OUT/build.log 2>&1 || { grep -A5 error $OUT/build.log | head -30; exit 1; }; echo "build $(( $(date +%s)-t0 )) s"
for skip in 0 1 2; do
  timeout 200 ncu --clock-control none -k regex:persistent --launch-skip $skip -c 1 --section WarpStateStats --section SourceCounters --section SpeedOfLight --section SchedulerStats --section InstructionStats -o $OUT/p$skip $B/tools/tessera bench gemm --shapes 4096x4096x4096 --repeats 1 --no-progress > $OUT/ncu$skip.log 2>&1; echo "ncu $skip rc=$?"
  ncu --import $OUT/p$skip.ncu-rep --page source --csv --print-source sass > $OUT/src$skip.csv 2>&1; gzip -f $OUT/src$skip.csv
  ncu --import $OUT/p$skip.ncu-rep --page details > $OUT/det$skip.txt 2>&1
  grep -E "Duration|Issue Slots Busy|Warp Cycles Per Issued|No Eligible|Stall|Executed Ipc A" $OUT/det$skip.txt | head -30
done
ls -la $OUT
