#!/usr/bin/env bash
# Rung 27 at 64x64x64 x 1024 bf16 row nt: executed instructions by opcode, and the kernel's SASS.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
rm -rf bin && tar xJf bin.txz
G=$PWD/bin/gemmlab; export LD_LIBRARY_PATH=$PWD/bin
timeout 90 ncu --clock-control none -k regex:small_mma --launch-skip 3 --launch-count 1 --metrics sass__inst_executed_per_opcode,smsp__inst_executed.sum --print-metric-instances values $G bench --dtype bf16 --kernels small --layout row --op nt --shapes 64x64x64@1024 --reps 3 --min-time 0 > $OUT/ncu-op.txt 2>&1; echo "ncu exit $?"
grep -E "per_opcode|inst_executed.sum" $OUT/ncu-op.txt | cut -c1-3000
cuobjdump -sass bin/libgemmlab.so 2>/dev/null | awk '/Function : /{p=($0 ~ /small_mma_kernel/ && $0 ~ /bfloat16S4_EELb1ELb0E/)} p' > $OUT/sass-small-mma.txt
wc -l $OUT/sass-small-mma.txt
grep -oE "^ +/\*[0-9a-f]+\*/ +[A-Z][A-Z0-9._]+" $OUT/sass-small-mma.txt | awk '{print $2}' | sed 's/\..*//' | sort | uniq -c | sort -rn | head -30
