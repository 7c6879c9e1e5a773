#!/usr/bin/env bash
# Session 2026-11-29t, call 3, 4 x H200: the packed build of build/carry.commit. The row-panel
# product of many long chunks on the copy engines (it hung in calls 1 and 2 in the bench's one
# process), forked ranks and one process, on 4 and on 2 GPUs; a timeout's message names the
# exchange and the peers' last flags.
set -u
export PATH=$PATH:/usr/local/cuda/bin NCCL_NVLS_ENABLE=0 NCCL_DEBUG=WARN
t0=$SECONDS
rm -rf build/device && mkdir -p build/device && tar xzf build/carry.tgz -C build/device
B=$PWD/build/device
echo "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1) x $(nvidia-smi -L | wc -l); $(date -u); build $(cat build/carry.commit)"
for n in 4 2; do
  GEMMLAB_DIST_TEST_RANKS=$n timeout 200 $B/tests/dist/test_dist_gpu --gtest_filter='*RowPanelsOfManyLongChunks*' > $OUT/many-chunks-$n.log 2>&1
  echo "$n ranks: exit $? at $((SECONDS-t0)) s"
  grep -E '^\[  (PASSED|FAILED|  OK) |^\[  FAILED|rank [0-9]: (row panels|dist::gemm|waiting)|one-process' $OUT/many-chunks-$n.log | cut -c1-700 | head -24
done
echo "total $((SECONDS-t0)) s"
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
