#!/usr/bin/env bash
# Where rung 28's racecheck hazards are: the kernel of each reported race.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
B=$PWD/../build/g7; G=$B/gemmlab
[ -x $G ] || { rm -rf bin && tar xJf bin2.txz && G=$PWD/bin2/gemmlab && export LD_LIBRARY_PATH=$PWD/bin2; }
echo "$(nvidia-smi --query-gpu=name --format=csv,noheader); $(date -u); $G"
timeout 100 compute-sanitizer --tool racecheck $G bench --kernels decode --dtype bf16 --layout row --op nt --shapes 1x4096x14336,8x3584x18944,4x1000x1000 --reps 1 --min-time 0 > $OUT/racecheck-decode.log 2>&1; echo "exit $?"
grep -E "SUMMARY" $OUT/racecheck-decode.log
grep -E "^=========     in |^=========  +in |Race reported" $OUT/racecheck-decode.log | head -6
grep -oE "(nvjet[A-Za-z0-9_]*|mma_k_contiguous[A-Za-z_]*|simt_[a-z_]*|[A-Za-z_]*kernel[A-Za-z_]*)" $OUT/racecheck-decode.log | sort | uniq -c | sort -rn | head -8
