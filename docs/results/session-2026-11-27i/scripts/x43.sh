#!/usr/bin/env bash
set -u
cd "$(dirname "$0")"
rm -rf bin && tar xJf xh.txz
export LD_LIBRARY_PATH=$PWD/bin
G=bin/gemmlab
for i in 1 2 3 4 5 6; do
  echo "run $i: $(timeout 60 $G bench --kernels cublas,auto --dtype bf16 --layout row --op nt --shapes 128x8192x2048 2>&1 | grep -E "^(-|0) " | awk '{print $2, $4}' | tr '\n' ' ')"
done
for i in 1 2 3; do timeout 60 gap/gap 128x8192x2048 1x4608x3584; done
timeout 120 $G tune --explain 128x8192x2048 --layout row --op nt 2>&1 | tail -30
