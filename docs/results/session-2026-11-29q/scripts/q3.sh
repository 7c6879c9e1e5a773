#!/usr/bin/env bash
# Session 2026-11-29q, third 4-GPU call: the packed build of build/carry.commit (as q2). How the
# cap on NCCL's blocks beside the products (GEMMLAB_DIST_OVERLAP_CTAS) moves the BF16 32768^3
# row-panel product on 4 GPUs and the two tensor-parallel patterns; caps alternate, two rounds.
set -u
export PATH=$PATH:/usr/local/cuda/bin NCCL_NVLS_ENABLE=0 NCCL_DEBUG=WARN
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
B=$PWD/build/device
BENCH=$B/tools/dist_bench/gemmlab_dist_bench
echo "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1) x $(nvidia-smi -L | wc -l); $(date -u); build $(cat build/carry.commit)"
sc() { local c=$1 r=$2; GEMMLAB_DIST_OVERLAP_CTAS=$c timeout 60 $BENCH --case gemm --dtype bf16 --size 32768 --gpus 4 --grid rows --no-single --reps 5 --warmup 2 --check-samples 0 --timeout 40 > $OUT/rows-ctas$c-$r.log 2>&1; echo "rows ctas=$c round $r exit $?: $(grep summary $OUT/rows-ctas$c-$r.log | sed 's/.*summary //')"; }
tp() { local c=$1 r=$2; GEMMLAB_DIST_OVERLAP_CTAS=$c timeout 40 $BENCH --case tp --dtype bf16 --tokens 8192 --hidden 8192 --mlp 28672 --gpus 4 --reps 7 --warmup 2 --timeout 30 > $OUT/tp-ctas$c-$r.log 2>&1; echo "tp ctas=$c round $r exit $?"; grep summary $OUT/tp-ctas$c-$r.log | sed 's/.*pattern=//'; }
for r in 1 2; do
  for c in 16 8 4 32; do sc $c $r; done
done
echo "at $((SECONDS-t0)) s"
for r in 1 2; do
  for c in 16 32 64 8; do tp $c $r; done
done
echo "total $((SECONDS-t0)) s"
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
