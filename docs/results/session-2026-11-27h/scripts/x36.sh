#!/usr/bin/env bash
# Build 1d9d63e (packed; HEAD's code): float in TF32 mode on the published mixed set (the set of
# scripts/gpu-check.sh's bench-mixed), auto against cuBLAS's TF32, all four op pairs.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
rm -rf bin && tar xJf bin.txz
export LD_LIBRARY_PATH=$PWD/bin
G=$PWD/bin/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(cat bin/COMMIT | tr '\n' ' ')"
t0=$SECONDS
S=$(grep -oE 'MIXED_SHAPES:-[0-9x,]+' ../scripts/gpu-check.sh | cut -d- -f2)
timeout 400 $G bench --dtype f32 --precision tf32 --kernels cublas,auto --reps 5 --min-time 50 --shapes $S --op all --json $OUT/mixed-tf32.json > $OUT/mixed-tf32.log 2>&1; echo "bench exit $? at $((SECONDS-t0)) s"
python3 ../scripts/geomean.py $OUT/mixed-tf32.json
echo "total $((SECONDS-t0)) s"
