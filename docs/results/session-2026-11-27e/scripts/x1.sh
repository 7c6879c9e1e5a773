#!/usr/bin/env bash
# Block pairs on the persistent schedule (A multicast) beside every other option on medium
# products (tune --explain), their correctness (every option on odd shapes), and what cuBLAS runs
# at 1000^3 and 1024^3 (ncu: kernel, grid, cluster, L2 traffic).
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
rm -rf bin && tar xJf bin.txz
export LD_LIBRARY_PATH=$PWD/bin
G=$PWD/bin/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(cat bin/COMMIT)"
t0=$SECONDS
timeout 150 bin/test_tune_gpu --gtest_filter='TuneGpu.EveryOption*' > $OUT/tests.txt 2>&1; echo "tests exit $? at $((SECONDS-t0)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $OUT/tests.txt | head
M=512x512x512,768x768x768,1000x1000x1000,1024x1024x1024,1536x1536x1536,2047x2047x2047,2048x2048x2048,3000x3000x3000,4096x1024x1000,1024x1024x8192,6144x1536x2048,512x512x16384
for op in nn tt; do
timeout 120 $G tune --explain $M --op $op > $OUT/medium-$op.txt 2>&1; echo "medium $op exit $? at $((SECONDS-t0)) s"
done
timeout 120 $G tune --explain $M --op nn --cold > $OUT/medium-nn-cold.txt 2>&1; echo "medium nn cold exit $? at $((SECONDS-t0)) s"
L=128x4096x4096,128x14336x4096,512x4608x3584,512x2048x8192,512x14336x4096,2048x4096x4096,2048x3584x18944
timeout 120 $G tune --explain $L --op nt > $OUT/llm.txt 2>&1; echo "llm exit $? at $((SECONDS-t0)) s"
for s in 1000x1000x1000 1024x1024x1024 1024x1024x8192; do
timeout 60 ncu --clock-control none -k regex:'nvjet|sm90_|warp_specialized|sum_slices' --metrics gpu__time_duration.sum,launch__grid_size,launch__cluster_dim_x,launch__cluster_dim_y,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_bytes.sum.per_second,sm__throughput.avg.pct_of_peak_sustained_elapsed --csv $G bench --kernels cublas,auto --dtype bf16 --shapes $s --op nn --reps 2 --min-time 0 > $OUT/ncu-$s.csv 2> $OUT/ncu-$s.err; echo "ncu $s exit $? at $((SECONDS-t0)) s"
done
echo "total $((SECONDS-t0)) s"
