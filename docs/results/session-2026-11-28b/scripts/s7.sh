#!/usr/bin/env bash
# Session 2026-11-28b, call 7: rung 24 and BF16 auto after store_tile_tma began taking each
# register's value from its caller (meant to compile to the same code): base (d7b637e) and fin2
# timed alternately, twice each.
set -u
t0=$SECONDS
for v in base fin2; do mkdir -p .ab/run/$v && tar -C .ab/run/$v -xJf .ab/$v.txz; done
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u)"
for r in 1 2; do for v in base fin2; do
  B=$PWD/.ab/run/$v/bin
  LD_LIBRARY_PATH=$B timeout 90 $B/gemmlab bench --dtype bf16 --kernels cublas,persistent,auto --sizes 2048,4096,8192 > $OUT/bf16-$v-$r.log 2>&1
  echo "== $v $r (exit $?)"; grep -E "^24 |^- " $OUT/bf16-$v-$r.log | awk '{print "  " $0}' | cut -c1-130
done; done
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
