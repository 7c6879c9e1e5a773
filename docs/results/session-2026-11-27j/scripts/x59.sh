#!/usr/bin/env bash
# The build to submit: the LLM set warm and cold (gpu-check), then the 9-16 token decode rows with
# cuBLAS, rung 28 and auto interleaved, warm and cold.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
rm -rf bin && tar xJf sk2.txz
export LD_LIBRARY_PATH=$PWD/bin
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(cat bin/COMMIT | tr '\n' ' ')"
t0=$SECONDS
cd ..
BUILD_DIR=$PWD/.ab/bin timeout 300 bash scripts/gpu-check.sh $OUT/sets bench-llm bench-llm-cold > $OUT/gpu-check.log 2>&1; echo "gpu-check exit $? at $((SECONDS-t0)) s"
grep -E "geomean" $OUT/gpu-check.log | head -4
rm -f $OUT/sets/gpu.txt $OUT/sets/gpu-check.log
G=.ab/bin/gemmlab
S16=16x2048x2048,16x2048x8192,16x3072x2048,16x3584x3584,16x3584x18944,16x4096x4096,16x4096x14336,16x4608x3584,16x6144x4096,16x8192x2048,16x8192x8192,16x8192x28672,16x10240x8192,16x14336x4096,16x18944x3584,16x28672x8192,12x4096x4096,10x11008x4096,9x4608x3584,16x5120x17408,12x5000x2056
for c in "" --cold; do
  f=decode16${c:+-cold}
  timeout 100 $G bench --dtype bf16 --kernels cublas,decode,auto --layout row --op nt --shapes $S16 $c --json $OUT/sets/$f.json > $OUT/sets/$f.log 2>&1; echo "$f exit $? at $((SECONDS-t0)) s: $(python3 scripts/geomean.py $OUT/sets/$f.json auto decode 2>&1 | tr '\n' ' ')"
done
tar -C $OUT -czf $OUT/sets.tgz sets && rm -rf $OUT/sets
echo "total $((SECONDS-t0)) s"
