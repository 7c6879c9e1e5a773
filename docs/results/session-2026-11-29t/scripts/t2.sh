#!/usr/bin/env bash
# Session 2026-11-29t, call 2, 4 x H200: the packed build of build/carry.commit. Copy-engine
# bandwidths (ce_probe.cu: reads against writes, one at a time or at once), the tensor-parallel
# rows with the all-gather's pulls in turn or all at once, then the BF16 row-panel
# product on the copy engines, which hung in call 1: at 8192^3, and at 32768^3 with 32 hardware
# connections per device instead of 8; a run still going after its time gets its host threads'
# stacks dumped by cuda-gdb before it is killed.
set -u
export PATH=$PATH:/usr/local/cuda/bin NCCL_NVLS_ENABLE=0 NCCL_DEBUG=WARN
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
B=$PWD/build/device
S=docs/results/session-2026-11-29t/scripts
echo "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1) x $(nvidia-smi -L | wc -l); $(date -u); build $(cat build/carry.commit)"
nvcc -O2 -std=c++17 -o /tmp/ce_probe $S/ce_probe.cu && { /tmp/ce_probe 32; /tmp/ce_probe 256 | grep -v gpus=; } 2>&1 | tee $OUT/ce-probe.log
echo "probe done at $((SECONDS-t0)) s"
BENCH=$B/tools/dist_bench/gemmlab_dist_bench
tp() { local name=$1; shift; timeout 70 env "$@" $BENCH --case tp --dtype bf16 --tokens 8192 --hidden 8192 --mlp 28672 --gpus 4 --reps 5 --warmup 1 --timeout 60 > $OUT/$name.log 2>&1; echo "$name exit $? at $((SECONDS-t0)) s"; grep -E "summary" $OUT/$name.log | sed 's/dist-bench case=tp //'; }
tp tp-copy-inturn-1 GEMMLAB_DIST_TRANSPORT=auto
tp tp-copy-together-1 GEMMLAB_DIST_TRANSPORT=auto GEMMLAB_DIST_PULLS=together
tp tp-nccl-1 GEMMLAB_DIST_TRANSPORT=nccl
tp tp-copy-inturn-2 GEMMLAB_DIST_TRANSPORT=auto
watch_run() { # name, seconds before the stack dump, env/command...
  local name=$1 wait=$2; shift 2
  env "$@" > $OUT/$name.log 2>&1 &
  local pid=$!
  for ((i = 0; i < wait; ++i)); do kill -0 $pid 2>/dev/null || break; sleep 1; done
  if kill -0 $pid 2>/dev/null; then
    echo "$name: still running after $wait s: stacks in $name.stacks"
    timeout 60 cuda-gdb -batch -p $pid -ex "info threads" -ex "thread apply all bt 14" > $OUT/$name.stacks 2>&1
    kill -9 $pid; wait $pid
    grep -E "^#[0-9]+ .* in (gemmlab|cuda|nccl|cu[A-Z])" $OUT/$name.stacks | grep -vE "^#[0-9]+ .* in (cuda|cu)[A-Za-z_]* \(\) from" | sort | uniq -c | sort -rn | head -25
  else
    wait $pid; echo "$name exit $?"
  fi
  grep -E "single_gpu|rank=all.*overlapped|summary|check_all|Timeout|Error" $OUT/$name.log | sed 's/dist-bench case=gemm //' | head -8
  echo "  at $((SECONDS-t0)) s"
}
watch_run rows8k-copy 40 $BENCH --case gemm --size 8192 --dtype bf16 --gpus 4 --grid rows --reps 3 --warmup 1 --check-samples 8 --timeout 90 --no-single
watch_run rows32k-copy-conn32 70 CUDA_DEVICE_MAX_CONNECTIONS=32 $BENCH --case gemm --size 32768 --dtype bf16 --gpus 4 --grid rows --reps 3 --warmup 1 --check-samples 8 --timeout 120 --no-single
watch_run rows32k-copy 70 $BENCH --case gemm --size 32768 --dtype bf16 --gpus 4 --grid rows --reps 3 --warmup 1 --check-samples 8 --timeout 120 --no-single
echo "total $((SECONDS-t0)) s"
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
