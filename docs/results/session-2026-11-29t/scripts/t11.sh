#!/usr/bin/env bash
# Session 2026-11-29t, call 11, 4 x H200: the packed build of build/carry.commit. BF16 8192^3 on
# 2 and 4 GPUs, row panels at the default and two wider chunk widths, and SUMMA's square grid:
# where the Overlapped schedule loses to the Sequential one (t10) and what would not.
set -u
export PATH=$PATH:/usr/local/cuda/bin NCCL_NVLS_ENABLE=0 NCCL_DEBUG=WARN
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
B=$PWD/build/device
echo "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1) x $(nvidia-smi -L | wc -l); $(date -u); build $(cat build/carry.commit)"
run() { local name=$1; shift; timeout 60 $B/tools/dist_bench/gemmlab_dist_bench --case gemm --dtype bf16 --size 8192 --reps 5 --warmup 2 --check-samples 4 --timeout 30 "$@" > $OUT/$name.log 2>&1; echo "$name exit $? at $((SECONDS-t0)) s"; grep -E "single_gpu|summary" $OUT/$name.log | sed 's/dist-bench case=gemm dtype=bf16 //; s/m=8192 n=8192 k=8192 //' | cut -c1-230; }
run rows-default --gpus 2,4 --grid rows
run rows-pn4096 --gpus 2,4 --grid rows --panel-n 4096 --no-single
run rows-pn8192 --gpus 2,4 --grid rows --panel-n 8192 --no-single
run square-4 --gpus 4 --grid square --no-single
echo "total $((SECONDS-t0)) s"
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
