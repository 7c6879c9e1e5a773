#!/usr/bin/env bash
# The 16-bit copy of unaligned operands (hopper/repitch.cuh) and 128-byte L2 promotion on
# misaligned columns: tests over unaligned/padded/batched cases on every rung, memcheck, and
# tune --explain on odd and medium shapes.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
rm -rf bin && tar xJf bin.txz
export LD_LIBRARY_PATH=$PWD/bin
G=$PWD/bin/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(cat bin/COMMIT)"
t0=$SECONDS
timeout 200 bin/test_gemm_gpu --gtest_filter='*Unaligned*:*Padded*:*OddLeading*:*StridesThatMisalign*:*Batched*Broadcast*:*OddShapes*' > $OUT/tests.txt 2>&1; echo "gemm tests exit $? at $((SECONDS-t0)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]|tests ran" $OUT/tests.txt | head
timeout 100 bin/test_tune_gpu --gtest_filter='TuneGpu.EveryOption*' > $OUT/tune-tests.txt 2>&1; echo "tune tests exit $? at $((SECONDS-t0)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $OUT/tune-tests.txt | head
timeout 120 compute-sanitizer --tool memcheck $G bench --kernels persistent,tma,auto --dtype bf16,f16 --shapes 2047x2047x2047,67x45x71,1023x129x513 --op all --reps 1 --min-time 0 > $OUT/memcheck.log 2>&1; echo "memcheck exit $?: $(grep -E 'ERROR SUMMARY' $OUT/memcheck.log | tail -1) checks $(grep -c PASS $OUT/memcheck.log) PASS $(grep -c FAIL $OUT/memcheck.log) FAIL"
O=255x255x255,511x511x511,1023x1023x1023,2047x2047x2047,4095x4097x1023,1000x1000x1001,3000x3000x3001,8191x8191x8191
for op in nn tt; do
timeout 150 $G tune --explain $O --op $op > $OUT/odd-$op.txt 2>&1; echo "odd $op exit $? at $((SECONDS-t0)) s"
done
M=1000x1000x1000,3000x3000x3000,1024x1024x1024,3072x3072x3072,2000x2000x2000
timeout 100 $G tune --explain $M --op nn > $OUT/medium.txt 2>&1; echo "medium exit $? at $((SECONDS-t0)) s"
grep -E "^bf16|auto \(" $OUT/odd-nn.txt $OUT/odd-tt.txt $OUT/medium.txt | paste - - | sed 's/  */ /g' | cut -c1-200
tar -C $OUT -czf $OUT/all.tgz $(cd $OUT && ls *.txt *.log) && rm -f $OUT/*.txt $OUT/*.log
echo "total $((SECONDS-t0)) s"
