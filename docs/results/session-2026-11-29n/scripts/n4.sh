#!/usr/bin/env bash
# Session 2026-11-29n, call 4: the committed code (92d3985), the whole build tree. Every ctest
# (gpu-check tests), then ncu (caches flushed, one launch) of auto's transposed tiles and
# cuBLAS's kernel on BF16 row-major nt 128 x 4608 x 3584 and 512 x 4608 x 3584.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); n4=$(cat build/carry.commit)"
G=build/device/gemmlab
CTEST_JOBS=4 timeout 300 scripts/gpu-check.sh $OUT/gc tests > $OUT/gpu-check.out 2>&1; echo "gpu-check exit $? at $((SECONDS-t0)) s"
tail -4 $OUT/gpu-check.out | cut -c1-600
grep -E "tests? failed|Failed|\*\*\*" $OUT/gc/ctest.log | head -5
NS="--section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy"
for shape in 128x4608x3584 512x4608x3584; do
  for k in auto cublas; do
    re=$( [ $k = auto ] && echo "regex:PersistentTransposedRungOf" || echo "regex:nvjet|gemm" )
    timeout 60 ncu --clock-control none --kernel-name-base demangled -k "$re" -c 1 $NS $G bench --kernels $k --dtype bf16 --layout row --op nt --shapes $shape --reps 1 --min-time 0 > $OUT/ncu-$k-$shape.log 2>&1
    echo "ncu $k $shape exit $? at $((SECONDS-t0)) s: $(grep -E 'warp_specialized_kernel<|nvjet|Duration|Grid Size|Cluster Size|DRAM Throughput|Memory Throughput|highest-utilized|Registers Per' $OUT/ncu-$k-$shape.log | sed 's/  */ /g' | cut -c1-160 | tr '\n' ';')"
  done
done
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
