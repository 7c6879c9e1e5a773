#!/usr/bin/env bash
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
rm -rf bin && tar xJf xh.txz
export LD_LIBRARY_PATH=$PWD/bin
timeout 60 gap/gap 128x8192x2048 LMEM 128x8192x2048 1x4608x3584
cuobjdump --dump-resource-usage bin/libgemmlab.so 2>/dev/null > $OUT/res.txt; echo "cuobjdump exit $?"
grep -o "STACK:[0-9]*" $OUT/res.txt | sort | uniq -c | sort -rn | head
grep -B1 "STACK:[1-9]" $OUT/res.txt | grep -o "Function [^:]*" | head -40 | cut -c1-150
