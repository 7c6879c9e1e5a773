#!/usr/bin/env bash
# Session 2026-11-29t, call 6, 4 x H200: the packed build of build/carry.commit. The whole of
# scripts/dist-check.sh on 4 GPUs (a 480 s budget), then two more tensor-parallel rows on the
# copy engines.
set -u
export PATH=$PATH:/usr/local/cuda/bin NCCL_NVLS_ENABLE=0
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
B=$PWD/build/device
echo "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1) x $(nvidia-smi -L | wc -l); $(date -u); build $(cat build/carry.commit)"
BUILD_DIR=$B GPUS=4 DIST_CHECK_BUDGET=480 timeout 500 bash scripts/dist-check.sh $OUT/dist > $OUT/dist-check.out 2>&1
echo "dist-check exit $? at $((SECONDS-t0)) s"
sed -n '/== summary/,$p' $OUT/dist-check.out | grep -vE "^  (tests|faults|big|scaling|summa|tp|mpi): (rank [123]|dist-bench NCCL)" | sed 's/dist-bench case=//; s/ target<=1.15//; s/ target>=1.2//' | cut -c1-330 | head -60
for i in 1 2; do
  GEMMLAB_DIST_TRANSPORT=auto timeout 40 $B/tools/dist_bench/gemmlab_dist_bench --case tp --dtype bf16 --tokens 8192 --hidden 8192 --mlp 28672 --gpus 4 --reps 7 --warmup 2 --timeout 30 > $OUT/tp-copy-extra-$i.log 2>&1
  echo "tp extra $i exit $? at $((SECONDS-t0)) s"; grep summary $OUT/tp-copy-extra-$i.log | sed 's/dist-bench case=tp //; s/ target<=1.15//; s/ target>=1.2//'
done
echo "total $((SECONDS-t0)) s"
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
