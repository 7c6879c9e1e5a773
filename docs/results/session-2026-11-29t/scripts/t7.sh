#!/usr/bin/env bash
# Session 2026-11-29t, call 7, 4 x H200: the packed build of build/carry.commit. The
# tensor-parallel rows on the copy engines with the reduce-scatter cut into 8, 12 and 16 pieces,
# alternating, two rounds (the all-gather's rows come with every run).
set -u
export PATH=$PATH:/usr/local/cuda/bin NCCL_NVLS_ENABLE=0 NCCL_DEBUG=WARN
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
B=$PWD/build/device
echo "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1) x $(nvidia-smi -L | wc -l); $(date -u); build $(cat build/carry.commit)"
for round in 1 2; do
  for c in 8 12 16; do
    timeout 40 $B/tools/dist_bench/gemmlab_dist_bench --case tp --dtype bf16 --tokens 8192 --hidden 8192 --mlp 28672 --gpus 4 --reps 7 --warmup 2 --timeout 30 --chunks $c > $OUT/tp-c$c-$round.log 2>&1
    echo "chunks $c round $round exit $? at $((SECONDS-t0)) s"; grep summary $OUT/tp-c$c-$round.log | sed 's/dist-bench case=tp //; s/ target<=1.15//; s/ target>=1.2//; s/ dtype=bf16 tp=4 summary//'
  done
done
echo "total $((SECONDS-t0)) s"
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
