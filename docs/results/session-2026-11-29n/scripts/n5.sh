#!/usr/bin/env bash
# Session 2026-11-29n, call 5: the committed code (92d3985), the whole build tree: the LLM set
# warm and cold (gpu-check), then ncu (caches flushed, one launch) of cuBLAS's kernel and of the
# tiles auto ran before the transposed ones (128 x 64 at 128 tokens, 192 x 128 at 512), BF16
# row-major nt 128 x 4608 x 3584 and 512 x 4608 x 3584.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); n5=$(cat build/carry.commit)"
G=build/device/gemmlab
timeout 330 scripts/gpu-check.sh $OUT/sets bench-llm bench-llm-cold > $OUT/gpu-check.out 2>&1; echo "gpu-check exit $? at $((SECONDS-t0)) s"
grep -E "geomean" $OUT/gpu-check.out | head -4
NS="--section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy"
run_ncu() { # tag, kernel regex, gemmlab arguments...
  local tag=$1 re=$2; shift 2
  timeout 60 ncu --clock-control none --kernel-name-base demangled -k "regex:$re" -c 1 $NS $G "$@" > $OUT/ncu-$tag.log 2>&1
  echo "ncu $tag exit $? at $((SECONDS-t0)) s: $(grep -E 'nvjet|warp_specialized_kernel<|Duration|Grid Size|Cluster Size|DRAM Throughput|highest-utilized' $OUT/ncu-$tag.log | grep -v PROF | sed 's/  */ /g' | cut -c1-150 | tr '\n' ';')"
}
for shape in 128x4608x3584 512x4608x3584; do
  run_ncu cublas-$shape '^nvjet' bench --kernels cublas --dtype bf16 --layout row --op nt --shapes $shape --reps 1 --min-time 0
done
run_ncu old-128x64-128x4608x3584 'PersistentRungOf<gemmlab::detail::hopper::BlockConfig<\(int\)128, \(int\)64' tune --explain 128x4608x3584 --op nt --layout row --dtype bf16
run_ncu old-192x128-512x4608x3584 'PersistentRungOf<gemmlab::detail::hopper::BlockConfig<\(int\)192, \(int\)128' tune --explain 512x4608x3584 --op nt --layout row --dtype bf16
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
