#!/usr/bin/env bash
set -u
cd "$(dirname "$0")"
rm -rf bin && tar xJf xh.txz
export LD_LIBRARY_PATH=$PWD/bin
L="64x8192x2048 128x4096x2048 128x8192x2048 128x12288x2048 128x16384x2048 256x8192x2048 512x4608x3584 128x4608x3584 2048x4096x4096"
timeout 100 gap/gap $L LMEM1 $L
