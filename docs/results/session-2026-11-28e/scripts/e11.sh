#!/usr/bin/env bash
# Session 2026-11-28e, call 11: scripts/check-python.sh against the library of the submitted code
# (e11), for precision="int8_emulation:N" (the Python module is built there from the tree).
set -u
export PATH=$PATH:/usr/local/cuda/bin
t0=$SECONDS
mkdir -p .ab/run/e11 && tar -C .ab/run/e11 -xJf .ab/e11.txz
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); e11=$(cat .ab/run/e11/bin/COMMIT | tr '\n' ' ')"
B=$PWD/.ab/run/e11/bin; export LD_LIBRARY_PATH=$B
BUILD_DIR=$B timeout 200 scripts/check-python.sh $OUT/python > $OUT/python.out 2>&1; echo "python exit $? at $((SECONDS-t0)) s"
tail -2 $OUT/python.out | cut -c1-400; grep -E "int8_emulation|passed|failed" $OUT/python/pytest.log | tail -5
rm -rf $OUT/python/site $OUT/python/venv
tar -C $OUT -czf $OUT/logs.tgz $(cd $OUT && ls) 2>/dev/null && (cd $OUT && ls | grep -v logs.tgz | xargs rm -rf)
echo "total $((SECONDS-t0)) s"
