#!/usr/bin/env bash
# Rung 28's weight loads: .cs (a, afbd4fc) against variants b/c (L1::no_allocate, ...), packed
# builds, one per call on the same warm machine (the tree leaves no room to carry two). SkinnySide tests on each variant, then the decode rows warm and cold, alternating,
# two rounds; ncu (L1 hit rate, L2 sectors) on two 16-token rows per build.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
V=${VARIANTS:-a b c}
for v in $V; do [ -f $v.txz ] && rm -rf $v && mkdir $v && tar xJf $v.txz -C $v; done
[ -n "${EXTRACT_ONLY:-}" ] && { ls -d */; exit 0; }
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(for v in $V; do echo -n "$v=$(head -c 7 $v/bin/COMMIT) "; done)"
t0=$SECONDS
for v in $V; do
LD_LIBRARY_PATH=$PWD/$v/bin timeout 120 $v/bin/test_gemm_gpu --gtest_filter='SkinnySide.*' > $OUT/tests-$v.log 2>&1; echo "tests $v exit $? at $((SECONDS-t0)) s: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/tests-$v.log | tr '\n' ' ')"
done
S=1x2048x2048,16x2048x2048,1x3072x2048,16x3072x2048,1x3584x3584,16x3584x3584,1x4608x3584,8x4608x3584,16x4608x3584,1x4096x4096,16x4096x4096,1x6144x4096,8x6144x4096,16x6144x4096,8x2048x8192,16x2048x8192,8x8192x2048,16x8192x2048,1x8192x8192,16x8192x8192,16x4096x14336,1x14336x4096,16x14336x4096,16x3584x18944,16x18944x3584,8x18944x3584,16x10240x8192,1x8192x28672,16x8192x28672,16x28672x8192
for round in ${ROUNDS:-1 2}; do
for mode in warm cold; do c=""; [ $mode = cold ] && c="--cold"
for v in $V; do
  f=$mode-$v-r$round${TAG:-}
  LD_LIBRARY_PATH=$PWD/$v/bin timeout 100 $v/bin/gemmlab bench --dtype bf16 --kernels cublas,auto --layout row --op nt --shapes $S $c --json $OUT/$f.json > $OUT/$f.log 2>&1; echo "$f exit $? at $((SECONDS-t0)) s: $(python3 ../scripts/geomean.py $OUT/$f.json 2>&1 | tail -1)"
done; done; done
M=gpu__time_duration.sum,launch__grid_size,launch__registers_per_thread,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_srcunit_tex_op_read.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__t_sector_hit_rate.pct
for v in $V; do for s in 16x8192x28672 16x4608x3584; do
LD_LIBRARY_PATH=$PWD/$v/bin timeout 60 ncu --clock-control none -k regex:mma_k_contiguous --metrics $M --csv $v/bin/gemmlab bench --kernels decode --dtype bf16 --layout row --shapes $s --op nt --reps 2 --min-time 0 > $OUT/ncu-$v-$s.csv 2>/dev/null; echo "ncu $v $s exit $?"
done; done
rm -f $OUT/*.log
echo "total $((SECONDS-t0)) s"
# INT8 (rung 30) at 4096^3 and 8192^3 against cuBLASLt, build a: bench, then ncu of one launch each.
[ -n "${INT8:-}" ] || exit 0
t1=$SECONDS
LD_LIBRARY_PATH=$PWD/a/bin timeout 90 a/bin/gemmlab bench --dtype int8 --sizes 4096,8192 > $OUT/int8-bench.txt 2>&1; echo "int8 bench exit $?"; grep -E "^int8|TOP|cublas|wgmma_int8|auto" $OUT/int8-bench.txt | head -12
ncu --query-metrics 2>/dev/null | grep -iE "pipe_tensor.*(imma|gmma|igmma)" | head -8 > $OUT/tensor-metrics.txt; cat $OUT/tensor-metrics.txt
M2=gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__registers_per_thread,sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_op_imma_cycles_active.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_elapsed,smsp__warp_issue_stalled_barrier_per_warp_active.pct,smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct
LD_LIBRARY_PATH=$PWD/a/bin timeout 120 ncu --clock-control none -k regex:'warp_specialized|nvjet|xmma|cutlass|gemm' --metrics $M2 --csv a/bin/gemmlab bench --dtype int8 --sizes 4096 --reps 2 --min-time 0 > $OUT/ncu-int8.csv 2> $OUT/ncu-int8.err; echo "ncu int8 exit $? in $((SECONDS-t1)) s"
