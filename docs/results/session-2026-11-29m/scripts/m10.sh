#!/usr/bin/env bash
# Session 2026-11-29m, call 10: ncu of rung 24's 128 x 64 tile on BF16 1024 x 1024 x 8192 nn
# (row-major), paired (PersistentPairRungOf, what `auto`'s 128 x 64 option runs there) and as
# single blocks (its tail-split form, which splits nothing at 128 tiles), one launch each from
# `tune --explain`; the submitted build (m9's tree).
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); m10=$(cat build/carry.commit)"
G=build/device/gemmlab
NS="--section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section LaunchStats --section WarpStateStats"
for k in "PersistentPairRungOf" "128, 64, 8.*TailSplitSchedule"; do
  tag=$( [ "${k#Persistent}" != "$k" ] && echo pair || echo single )
  timeout 90 ncu --clock-control none --kernel-name-base demangled -k "regex:$k" -c 1 $NS $G tune --explain 1024x1024x8192 --op nn --layout row --dtype bf16 > $OUT/ncu-$tag.log 2>&1
  echo "ncu $tag exit $? at $((SECONDS-t0)) s: $(grep -E 'warp_specialized_kernel<|Duration|Grid Size|Cluster Size|highest-utilized|L2 Hit Rate|Memory Throughput|Stall|Warp Cycles Per Issued' $OUT/ncu-$tag.log | sed 's/  */ /g' | cut -c1-150 | tr '\n' ';')"
done
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
