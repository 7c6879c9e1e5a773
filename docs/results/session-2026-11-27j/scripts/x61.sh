#!/usr/bin/env bash
# The knob build of x57 (auto runs 64 x 16 tiles at every 9-16 token decode product; with
# GEMMLAB_SKINNY_MIN=1 at 1-16): cold L2 only, where the three kernels' slots in the interleave
# do not bias the figures; rows outside the kept rule (fewer than 7/16 of the SMs' worth of tiles,
# more than one wave), two rounds; then 1-8 tokens with the knob at 1.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
rm -rf bin && tar xJf sk.txz
export LD_LIBRARY_PATH=$PWD/bin
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(cat bin/COMMIT | tr '\n' ' ')"
t0=$SECONDS
cd ..
mkdir -p $OUT/logs
G=.ab/bin/gemmlab
S16=16x2048x2048,16x2048x8192,16x3072x2048,16x3584x3584,16x3584x18944,16x10240x8192,16x14336x4096,16x18944x3584,16x28672x8192,10x11008x4096,16x12288x4096,16x13824x5120,16x4608x3584,16x8192x8192
for round in 1 2; do
  f=s16-cold-$round
  timeout 100 $G bench --dtype bf16 --kernels cublas,decode,auto --layout row --op nt --shapes $S16 --cold --json $OUT/logs/$f.json > $OUT/logs/$f.log 2>&1; echo "$f exit $? at $((SECONDS-t0)) s: $(python3 scripts/geomean.py $OUT/logs/$f.json auto decode 2>&1 | tr '\n' ' ')"
done
S8=8x2048x8192,8x3072x2048,8x4608x3584,8x6144x4096,8x8192x2048,8x14336x4096,8x28672x8192,4x4608x3584,1x4608x3584,1x2048x2048,1x8192x8192,1x4096x14336,8x4096x4096,8x8192x8192
f=s8-knob1-cold
GEMMLAB_SKINNY_MIN=1 timeout 100 $G bench --dtype bf16 --kernels cublas,decode,auto --layout row --op nt --shapes $S8 --cold --json $OUT/logs/$f.json > $OUT/logs/$f.log 2>&1; echo "$f exit $? at $((SECONDS-t0)) s: $(python3 scripts/geomean.py $OUT/logs/$f.json auto decode 2>&1 | tr '\n' ' ')"
tar -C $OUT -czf $OUT/logs.tgz logs && rm -rf $OUT/logs
echo "total $((SECONDS-t0)) s"
