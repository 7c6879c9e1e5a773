#!/usr/bin/env bash
# Session 2026-11-29r, call 1, one H200: the packed build of build/carry.commit (333c1a0).
# The 64 x 128 tests written after session q's last GPU call (FlatTiles.*, the two 64 x 128
# cases of ClusterSplit.*), memcheck and racecheck over FlatTiles.*, rung 24's tiles on the
# batched set's shapes the 64 x 128 tile could take (whole tiles, n' >= 256), and ncu of the
# 64 x 128 tile at 1000^3 beside 1024^3.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
B=$PWD/build/device
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); build $(cat build/carry.commit)"
timeout 150 $B/tests/test_gemm_gpu --gtest_filter='FlatTiles.*:ClusterSplit.*' > $OUT/flat-tests.log 2>&1; echo "FlatTiles.*:ClusterSplit.* exit $? at $((SECONDS-t0)) s: $(grep -E '^\[  (PASSED|FAILED) |^\[       OK|^\[  FAILED' $OUT/flat-tests.log | tr '\n' ' ')"
timeout 120 compute-sanitizer --tool memcheck $B/tests/test_gemm_gpu --gtest_filter='FlatTiles.*' > $OUT/memcheck-flat.log 2>&1; echo "memcheck exit $? at $((SECONDS-t0)) s: $(grep -E 'ERROR SUMMARY|^\[  (PASSED|FAILED) ' $OUT/memcheck-flat.log | tr '\n' ' ')"
timeout 170 compute-sanitizer --tool racecheck $B/tests/test_gemm_gpu --gtest_filter='FlatTiles.*' > $OUT/racecheck-flat.log 2>&1; echo "racecheck exit $? at $((SECONDS-t0)) s: $(grep -E 'RACECHECK SUMMARY|^\[  (PASSED|FAILED) ' $OUT/racecheck-flat.log | tr '\n' ' ')"
for sb in "256x256x64,512x64x128,256x256x256:256" "512x512x64:64" "512x512x128:32" "256x256x128:128"; do
  s=${sb%%:*}; b=${sb##*:}
  timeout 60 $B/gemmlab_tile_sweep --shapes $s --op nn,nt --reps 20 --batch $b --only persistent > $OUT/sweep-batch$b.log 2>&1; echo "sweep batch $b exit $? at $((SECONDS-t0)) s"
done
grep -hE "cublas|persistent" $OUT/sweep-batch*.log | cut -c1-130
mkdir -p $OUT/ncu
M=gpu__time_duration.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_read.sum,lts__t_bytes.sum,dram__bytes_read.sum,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio
for s in 1000x1000x1000 1024x1024x1024; do
  timeout 60 ncu --clock-control none -k regex:warp_specialized -c 1 --section SpeedOfLight --section MemoryWorkloadAnalysis --metrics $M $B/gemmlab_tile_sweep --shapes $s --op nt --reps 1 --only "persistent 64x128" > $OUT/ncu/flat-$s.log 2>&1; echo "ncu flat $s exit $?"
  grep -E "time_duration|hmma_cycles|lts__t|dram__bytes|stalled|L2 Cache Throughput|DRAM Throughput" $OUT/ncu/flat-$s.log | head -12
done
echo "total $((SECONDS-t0)) s"
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
