#!/usr/bin/env bash
# Where rung 29's instructions go: ncu instruction mix and source counters, and its SASS.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
deps=$PWD/deps/usr
B=$PWD/../build/p2; G=$B/gemmlab
echo "$(nvidia-smi --query-gpu=name --format=csv,noheader); $(date -u); tree: $(cat tree/COMMIT)"
t0=$SECONDS
if [ ! -x $G ]; then
cmake -S tree -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90a -DCMAKE_PREFIX_PATH=$deps \
  -DGEMMLAB_BUILD_PYTHON=OFF -DGEMMLAB_BUILD_DIST=OFF -DGEMMLAB_BUILD_BLAS=OFF -DGEMMLAB_BUILD_TESTS=OFF > $OUT/cfg.log 2>&1
cmake --build $B -j16 --target gemmlab_cli > $OUT/build.log 2>&1; echo "build exit $? after $((SECONDS-t0)) s"
fi
S="--section InstructionStats --section SchedulerStats --section WarpStateStats --section SourceCounters"
timeout 120 ncu --clock-control none -k regex:warp_specialized_kernel -c 1 $S --print-details all $G bench --dtype fp8 --sizes 4096 > $OUT/ncu-fp8-inst.log 2>&1; echo "ncu exit $?"
timeout 120 ncu --clock-control none -k regex:sm90 -c 1 $S --print-details all $G bench --dtype fp8 --sizes 4096 > $OUT/ncu-lt-inst.log 2>&1; echo "ncu lt exit $?"
LIB=$(ls $B/libgemmlab.so* | head -1)
cuobjdump --dump-sass --function '_ZN7gemmlab6detail6hopper23warp_specialized_kernelINS0_54_GLOBAL__N__50ac610d_15_29_wgmma_fp8_cu_51232c7a_2263512WgmmaFp8RungENS1_6MmaFp8I13__nv_fp8_e4m3S6_Li128EEE13__nv_bfloat16Lb1ELb0EEEv14CUtensorMap_stS9_S9_NS1_6ParamsIT0_T1_EE' $LIB > $OUT/fp8.sass 2>&1; echo "sass lines $(wc -l < $OUT/fp8.sass)"
[ $(wc -l < $OUT/fp8.sass) -lt 50 ] && { cuobjdump --dump-sass $LIB | awk '/Function :/{f=($0 ~ /WgmmaFp8Rung/ && $0 ~ /bfloat16/ && $0 ~ /e4m3S6_/)} f' > $OUT/fp8.sass; echo "sass lines (awk) $(wc -l < $OUT/fp8.sass)"; }
for f in $OUT/ncu-*.log; do echo "== $f"; grep -E "Executed Instructions|Issued Instructions|Stall|No Eligible|Eligible Warps|Issued Warp|Warp Cycles Per Issued|Branch Instructions|Avg. Divergent" $f | sed 's/  */ /g' | cut -c1-160 | head -24; done
echo "total $((SECONDS-t0)) s"
cd $OUT && tar czf n3.tgz *.log fp8.sass && rm -f *.log fp8.sass
