#!/usr/bin/env bash
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
rm -rf bin && tar xJf xh.txz
export LD_LIBRARY_PATH=$PWD/bin
S="--section SpeedOfLight --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy --section SchedulerStats --section WarpStateStats --section MemoryWorkloadAnalysis_Chart"
timeout 120 ncu --clock-control none --cache-control none -k regex:PersistentRungOf --launch-skip 5 --launch-count 1 $S gap/gap 128x8192x2048 > $OUT/ncu-plain.txt 2>&1; echo "plain $?"
timeout 120 ncu --clock-control none --cache-control none -k regex:PersistentRungOf --launch-skip 5 --launch-count 1 $S gap/gap LMEM1 128x8192x2048 > $OUT/ncu-lmem.txt 2>&1; echo "lmem $?"
diff <(grep -E "^\s+[A-Z].*  " $OUT/ncu-plain.txt) <(grep -E "^\s+[A-Z].*  " $OUT/ncu-lmem.txt) | head -80
