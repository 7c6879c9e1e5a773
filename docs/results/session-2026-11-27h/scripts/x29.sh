#!/usr/bin/env bash
# Rung 30 (INT8): its 128 x 256 x 128 tile in 4 stages (a, afbd4fc) against variants (b: 128 x 128 x 128 in 6
# stages; c: 2-block clusters with A multicast), packed builds, one per call on the same warm machine. INT8 and Ozaki tests, the
# INT8 bench against cuBLASLt (two rounds), rung 31's double and float at 4096^3 and 8192^3,
# ncu of one launch at 4096^3.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
v=$1
rm -rf $v && mkdir $v && tar xJf $v.txz -C $v
export LD_LIBRARY_PATH=$PWD/$v/bin
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $v=$(head -c 7 $v/bin/COMMIT)"
t0=$SECONDS
timeout 150 $v/bin/test_quantized_gpu --gtest_filter='Int8Gpu.*' > $OUT/tests-int8-$v.txt 2>&1; echo "int8 tests $v exit $?: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/tests-int8-$v.txt | tr '\n' ' ')"
timeout 200 $v/bin/test_ozaki_gpu > $OUT/tests-ozaki-$v.txt 2>&1; echo "ozaki tests $v exit $? at $((SECONDS-t0)) s: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/tests-ozaki-$v.txt | tr '\n' ' ')"
for r in 1 2; do
timeout 120 $v/bin/gemmlab bench --dtype int8 --sizes 2048,4096,8192 > $OUT/int8-$v-r$r.txt 2>&1; echo "int8 bench $v r$r exit $?"; grep -E "^int8 " $OUT/int8-$v-r$r.txt
done
timeout 150 $v/bin/gemmlab bench --kernels cublas,int8_emulation --dtype f64,f32 --sizes 4096,8192 > $OUT/ozaki-$v.txt 2>&1; echo "ozaki bench $v exit $? at $((SECONDS-t0)) s"; grep -E "^(f64|f32) |cublas |int8_emulation " $OUT/ozaki-$v.txt | head -16
M2=gpu__time_duration.sum,launch__grid_size,launch__registers_per_thread,dram__bytes_read.sum,lts__t_sectors_op_read.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_op_imma_cycles_active.avg.pct_of_peak_sustained_elapsed,smsp__warp_issue_stalled_barrier_per_warp_active.pct,smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct
timeout 90 ncu --clock-control none -k regex:'warp_specialized|xmma' --metrics $M2 --csv $v/bin/gemmlab bench --dtype int8 --sizes 4096 --reps 2 --min-time 0 > $OUT/ncu-int8-$v.csv 2>/dev/null; echo "ncu exit $?"
echo "total $((SECONDS-t0)) s"
