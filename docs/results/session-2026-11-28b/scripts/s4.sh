#!/usr/bin/env bash
# Session 2026-11-28b, call 4: does s2's timeout inside test_gemm_gpu come back? The same tests
# twice on the build that timed out (rows) and twice on the submitted one (fin); a run still
# going after 100 s gets cuda-gdb attached for the kernels on the GPU, then is killed.
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
for v in rows fin; do mkdir -p .ab/run/$v && tar -C .ab/run/$v -xJf .ab/$v.txz; done
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u)"
for r in 1 2; do for v in rows fin; do
  B=$PWD/.ab/run/$v/bin
  LD_LIBRARY_PATH=$B $B/test_gemm_gpu --gtest_filter='*Half*:Tf32Mode.*:TailSplit.*:EveryRung.*' > $OUT/gemm-$v-$r.log 2>&1 &
  pid=$!; s=$SECONDS
  while kill -0 $pid 2>/dev/null && [ $((SECONDS-s)) -lt 100 ]; do sleep 1; done
  if kill -0 $pid 2>/dev/null; then
    echo "== $v $r: still running after 100 s at $(grep '^\[ RUN' $OUT/gemm-$v-$r.log | tail -1)"
    timeout 60 cuda-gdb --batch -p $pid -ex "info cuda kernels" -ex "info cuda blocks" -ex "bt" > $OUT/gdb-$v-$r.log 2>&1
    head -30 $OUT/gdb-$v-$r.log
    kill -9 $pid; wait $pid 2>/dev/null
  else
    wait $pid; echo "== $v $r: exit $? in $((SECONDS-s)) s: $(grep -E '^\[  (PASSED|FAILED) ' $OUT/gemm-$v-$r.log | tr '\n' ' ')"
  fi
done; done
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
