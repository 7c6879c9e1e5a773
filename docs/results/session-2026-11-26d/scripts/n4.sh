#!/usr/bin/env bash
# Rung 29's SASS (mainloop), and an experiment: FP8 without promotion (tree_fa) against it.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
deps=$PWD/deps/usr
B=$PWD/../build/p2; G=$B/gemmlab; BF=$PWD/../build/fa; GF=$BF/gemmlab
echo "$(nvidia-smi --query-gpu=name --format=csv,noheader); $(date -u); tree: $(cat tree/COMMIT)"
t0=$SECONDS
CF="-G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_PREFIX_PATH=$deps -DGEMMLAB_BUILD_PYTHON=OFF -DGEMMLAB_BUILD_DIST=OFF -DGEMMLAB_BUILD_BLAS=OFF -DGEMMLAB_BUILD_TESTS=OFF"
[ -x $G ] || (cmake -S tree -B $B $CF > $OUT/cfg.log 2>&1; cmake --build $B -j8 --target gemmlab_cli > $OUT/build.log 2>&1; echo "build exit $? after $((SECONDS-t0)) s") &
(cmake -S tree_fa -B $BF $CF > $OUT/cfgfa.log 2>&1; cmake --build $BF -j8 --target gemmlab_cli > $OUT/buildfa.log 2>&1; echo "build fa exit $? after $((SECONDS-t0)) s") &
wait
LIB=$(ls $B/libgemmlab.so* | head -1)
cuobjdump --dump-sass $LIB | awk '/Function :/{f=($0 ~ /WgmmaFp8Rung/ && $0 ~ /bfloat16/ && $0 ~ /e4m3S6_Li128EEE13/)} f' > $OUT/fp8.sass; echo "sass lines $(wc -l < $OUT/fp8.sass)"
grep -oE "^\s+/\*[0-9a-f]+\*/\s+[^;]*;" $OUT/fp8.sass | sed -E 's/^\s+\/\*[0-9a-f]+\*\/\s+//; s/^@!?U?P[0-9T]+ //' | awk '{print $1}' | sort | uniq -c | sort -rn | head -30
for r in 1 2; do
  timeout 60 $G bench --dtype fp8,int8 --sizes 4096,8192 > $OUT/bench-$r.log 2>&1; grep -E "^(fp8|int8) " $OUT/bench-$r.log
  timeout 60 $GF bench --dtype fp8 --sizes 4096,8192 > $OUT/benchfa-$r.log 2>&1; echo "fastacc:"; grep -E "^(fp8|int8) " $OUT/benchfa-$r.log
done
echo "total $((SECONDS-t0)) s"
cd $OUT && tar czf n4.tgz *.log fp8.sass && rm -f *.log fp8.sass
