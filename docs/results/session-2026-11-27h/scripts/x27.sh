#!/usr/bin/env bash
# Build afbd4fc (packed): tune --explain on decode rows (1-16 tokens, warm and cold): how the
# model's tile options (rung 24's 64 x 64 among them) compare with rung 28 and cuBLAS there.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
rm -rf bin && tar xJf bin.txz
export LD_LIBRARY_PATH=$PWD/bin
G=$PWD/bin/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(cat bin/COMMIT)"
t0=$SECONDS
S=16x4608x3584,16x6144x4096,16x8192x2048,8x2048x8192,16x3072x2048,16x8192x28672,1x4608x3584
timeout 200 $G tune --explain $S --op nt --layout row --dtype bf16 > $OUT/explain-decode.txt 2>&1; echo "explain exit $? at $((SECONDS-t0)) s"
timeout 200 $G tune --explain $S --op nt --layout row --dtype bf16 --cold > $OUT/explain-decode-cold.txt 2>&1; echo "explain cold exit $? at $((SECONDS-t0)) s"
grep -E "^bf16|auto \(|fastest|64x64x64 ws  " $OUT/explain-decode.txt $OUT/explain-decode-cold.txt
echo "total $((SECONDS-t0)) s"
