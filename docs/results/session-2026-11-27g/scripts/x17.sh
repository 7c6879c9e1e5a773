#!/usr/bin/env bash
# The 192 x 192 tile: its forced-run test, every option, tune --explain where 128 x 256 tiles
# fall just past a wave (and 4096^3 for its rate), then auto against cuBLAS on medium squares and prefill rows.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
rm -rf bin && tar xJf bin.txz
export LD_LIBRARY_PATH=$PWD/bin
G=$PWD/bin/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(cat bin/COMMIT)"
t0=$SECONDS
cuobjdump --dump-sass bin/libgemmlab.so > $OUT/sass.txt 2>&1
awk '/Function : /{f = ($0 ~ /ILi192ELi192ELi4/)} f' $OUT/sass.txt > $OUT/sass-tall.txt
echo "tall kernels' SASS: $(grep -c 'Function : ' $OUT/sass-tall.txt) functions"; grep -oE "HGMMA\.[0-9x]+\.F32\.[A-Z0-9]+|USETMAXREG[^;]*|STL|LDL" $OUT/sass-tall.txt | sort | uniq -c; rm $OUT/sass.txt $OUT/sass-tall.txt
timeout 150 bin/test_tune_gpu --gtest_filter='TuneGpu.TallTiles*:TuneGpu.EveryOption*' > $OUT/tests-tune.txt 2>&1; echo "tune tests exit $? at $((SECONDS-t0)) s"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $OUT/tests-tune.txt | head
timeout 140 $G tune --explain 3000x3000x3000,3072x3072x3072,4096x4096x4096,1536x1536x1536 --op nn --dtype bf16 > $OUT/squares.txt 2>&1; echo "squares exit $? at $((SECONDS-t0)) s"
timeout 140 $G tune --explain 2048x4608x3584,2048x14336x4096,6144x1536x2048,512x6144x4096,2048x3072x2048 --op nt --dtype bf16 > $OUT/llm.txt 2>&1; echo "llm exit $? at $((SECONDS-t0)) s"
grep -E "^bf16|auto \(" $OUT/squares.txt $OUT/llm.txt
S=1000x1000x1000,1024x1024x1024,1536x1536x1536,2048x2048x2048,3000x3000x3000,3072x3072x3072,512x4608x3584,512x6144x4096,2048x4608x3584,6144x1536x2048
timeout 100 $G bench --kernels cublas,auto --dtype bf16 --shapes $S --op nn,nt --min-time 40 > $OUT/bench.txt 2>&1; echo "bench exit $? at $((SECONDS-t0)) s"
grep -E "^bf16|auto  " $OUT/bench.txt | paste - - | awk '{print $4, $3, $13}'
echo "total $((SECONDS-t0)) s"
