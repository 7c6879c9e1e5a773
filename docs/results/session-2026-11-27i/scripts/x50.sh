#!/usr/bin/env bash
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
rm -rf bin && tar xJf xh.txz
export LD_LIBRARY_PATH=$PWD/bin
for kb in 1 4 16; do echo "== LMEM$kb"; timeout 60 gap/gap 128x8192x2048 LMEM$kb 128x8192x2048; done
for k in 19 20 21 22 23 24; do echo "== XK=$k"; XK=$k timeout 60 gap/gap 128x8192x2048 LMEM16 128x8192x2048; done
cuobjdump --dump-resource-usage bin/gemmlab 2>/dev/null | grep -A1 "dd_gemm\|reference" | grep -o "REG:[0-9]* STACK:[0-9]*.*LOCAL:[0-9]*" | sort | uniq -c | head
