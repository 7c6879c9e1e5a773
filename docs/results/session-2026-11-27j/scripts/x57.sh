#!/usr/bin/env bash
# Rung 24's 64 x 16 tile for decode steps of 9-16 tokens (auto, build with the GEMMLAB_SKINNY_MIN
# knob): rung 28's tests (auto runs the tile there), then decode rows timed with cuBLAS, rung 28
# and auto interleaved, warm and cold, two rounds; the knob at 1 on 1-8 token rows; ncu of the
# tile and rung 28 on 16 x 4608 x 3584.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
rm -rf bin && tar xJf sk.txz
export LD_LIBRARY_PATH=$PWD/bin
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(cat bin/COMMIT | tr '\n' ' ')"
t0=$SECONDS
cd ..
mkdir -p build/device && ln -sf $PWD/.ab/bin/gemmlab build/device/gemmlab
timeout 120 .ab/bin/test_gemm_gpu --gtest_filter='SkinnySide.*:TailSplit.*' > $OUT/skinny-tests.txt 2>&1; echo "SkinnySide exit $? at $((SECONDS-t0)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $OUT/skinny-tests.txt | head
G=.ab/bin/gemmlab
S16=16x2048x2048,16x2048x8192,16x3072x2048,16x3584x3584,16x3584x18944,16x4096x4096,16x4096x14336,16x4608x3584,16x6144x4096,16x8192x2048,16x8192x8192,16x8192x28672,16x10240x8192,16x14336x4096,16x18944x3584,16x28672x8192,12x4096x4096,10x11008x4096,9x4608x3584,16x4096x128@64,12x1000x2056
for round in 1 2; do
  for c in "" --cold; do
    f=s16${c:+-cold}-$round
    timeout 100 $G bench --dtype bf16 --kernels cublas,decode,auto --layout row --op nt --shapes $S16 $c --json $OUT/$f.json > $OUT/$f.log 2>&1; echo "$f exit $? at $((SECONDS-t0)) s: $(python3 scripts/geomean.py $OUT/$f.json auto decode 2>&1 | tr '\n' ' ')"
  done
done
S8=8x2048x8192,8x3072x2048,8x4608x3584,8x6144x4096,8x8192x2048,8x14336x4096,8x28672x8192,4x4608x3584,1x4608x3584,1x2048x2048,1x8192x8192,1x4096x14336
for c in "" --cold; do
  f=s8-knob1${c:+-cold}
  GEMMLAB_SKINNY_MIN=1 timeout 100 $G bench --dtype bf16 --kernels cublas,decode,auto --layout row --op nt --shapes $S8 $c --json $OUT/$f.json > $OUT/$f.log 2>&1; echo "$f exit $? at $((SECONDS-t0)) s: $(python3 scripts/geomean.py $OUT/$f.json auto decode 2>&1 | tr '\n' ' ')"
done
timeout 150 $G tune --explain 64x18944x3584,128x18944x3584,100x18944x3584,48x18944x3584,32x18944x3584,64x17000x4096,64x28672x8192 > $OUT/explain-tail.txt 2>&1; echo "explain exit $? at $((SECONDS-t0)) s"
grep -E "^bf16|cublas|128x64x64 ws  |128x64x64 ws tail|64x64x64 ws  |<-" $OUT/explain-tail.txt | head -80
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,launch__grid_size,launch__registers_per_thread
for k in auto decode; do
  timeout 60 ncu --clock-control none --cache-control all -k regex:'warp_specialized|mma_k_contiguous' --metrics $M --csv $G bench --kernels $k --dtype bf16 --layout row --op nt --shapes 16x4608x3584,16x28672x8192 --reps 2 --min-time 0 > $OUT/ncu-$k.csv 2>$OUT/ncu-$k.err; echo "ncu $k exit $? at $((SECONDS-t0)) s"
done
# $((SECONDS-t0)) s"
cuobjdump --dump-sass .ab/bin/libgemmlab.so 2>/dev/null | grep -o "HGMMA\.64x16x16[^ ]*" | sort | uniq -c | head -4
echo "total $((SECONDS-t0)) s"
