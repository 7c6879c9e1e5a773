#!/usr/bin/env bash
# The quantized rungs (29 FP8, 30 INT8) on a GPU machine, after a build, with every log under
# OUTDIR:
#   tests     test_quantized (CPU: validation, reference) and test_quantized_gpu
#   memcheck  compute-sanitizer memcheck of Fp8Gpu.SmallExact, the block-wise and FP8-output
#             cases (scale reads past a tile's rows, the amax atomics) and the INT8 random case
#   bench     gemmlab bench --dtype fp8,fp8-block,int8 at 4096^3 and 8192^3 against cuBLASLt
#   layers    gemmlab bench --dtype fp8,fp8-block on the FP8 layer set (docs/workloads.md)
#   sass      the 8-bit rungs' wgmma in SASS (cuobjdump on the library): QGMMA/HGMMA ... E4M3,
#             IGMMA, and local-memory traffic (the development machine has no cuobjdump)
# Usage: BUILD_DIR=build/device scripts/check-quantized.sh OUTDIR [STEP...]
# (default steps: tests memcheck bench layers sass). Exit status: nonzero when any step failed.
set -u
OUT=${1:?usage: scripts/check-quantized.sh OUTDIR [STEP...]}
shift
STEPS=("$@")
[ ${#STEPS[@]} -eq 0 ] && STEPS=(tests memcheck bench layers sass)
BUILD_DIR=${BUILD_DIR:-build/device}
mkdir -p "$OUT"
declare -A RESULT
failed=0

run_step() { # name, command...
    local name=$1
    shift
    echo "== $name: $*" | tee "$OUT/$name.log"
    "$@" >> "$OUT/$name.log" 2>&1
    local rc=$?
    RESULT[$name]=$rc
    [ $rc -ne 0 ] && failed=1
    echo "== $name: exit $rc" | tee -a "$OUT/$name.log"
}

SANITIZER=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)

for step in "${STEPS[@]}"; do
    case $step in
    tests)
        run_step tests-cpu "$BUILD_DIR/tests/test_quantized"
        run_step tests-gpu "$BUILD_DIR/tests/test_quantized_gpu"
        ;;
    memcheck)
        run_step memcheck-fp8 "$SANITIZER" --tool memcheck --leak-check full --error-exitcode 9 \
            "$BUILD_DIR/tests/test_quantized_gpu" --gtest_filter=Fp8Gpu.SmallExact
        run_step memcheck-fp8-block "$SANITIZER" --tool memcheck --error-exitcode 9 \
            "$BUILD_DIR/tests/test_quantized_gpu" \
            --gtest_filter='Fp8Gpu.BlockWiseExactWithUnitScales:Fp8Gpu.Fp8OutputAmaxExact'
        run_step memcheck-int8 "$SANITIZER" --tool memcheck --error-exitcode 9 \
            "$BUILD_DIR/tests/test_quantized_gpu" --gtest_filter=Int8Gpu.RandomExactOnEveryLayout
        ;;
    bench)
        run_step bench "$BUILD_DIR/gemmlab" bench --dtype fp8,fp8-block,int8 --sizes 4096,8192
        ;;
    layers)
        # docs/workloads.md, "FP8 layers" (fp8_layer_shapes in tools/gemmlab/bench_quantized.cu)
        LAYERS=""
        for m in 64 128 4096; do
            for nk in 2112x7168 24576x1536 32768x512 7168x16384 4096x7168 7168x2048; do
                LAYERS="$LAYERS${LAYERS:+,}${m}x$nk"
            done
        done
        run_step layers "$BUILD_DIR/gemmlab" bench --dtype fp8,fp8-block --shapes "$LAYERS"
        ;;
    sass)
        CUOBJDUMP=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
        LIB=$(ls "$BUILD_DIR"/libgemmlab.so* 2>/dev/null | head -1)
        run_step sass-dump "$CUOBJDUMP" --dump-sass "$LIB"
        # Per kernel of rungs 29-30 (warp_specialized_kernel with the 8-bit rungs): its 8-bit
        # GMMA instructions and any local-memory access.
        awk '/Function :/ { f = ($3 ~ /WgmmaFp8Rung|WgmmaInt8Rung/) ? $3 : "" }
             f != "" && /GMMA/ { match($0, /[A-Z]+GMMA\.[0-9x]+\.[A-Z0-9.]+/); n[f " " substr($0, RSTART, RLENGTH)]++ }
             f != "" && /[^A-Z](LDL|STL)[. ]/ { l[f]++ }
             END { for (k in n) print n[k], k; for (k in l) print "local memory:", l[k], k }' \
            "$OUT/sass-dump.log" > "$OUT/sass.log"
        echo "== sass: $(wc -l < "$OUT/sass.log") lines in $OUT/sass.log"
        ;;
    *)
        echo "unknown step '$step' (tests memcheck bench layers sass)" >&2
        exit 2
        ;;
    esac
done

echo "== summary ($OUT)"
for name in "${!RESULT[@]}"; do
    printf '  %-14s %s\n' "$name" "$([ "${RESULT[$name]}" -eq 0 ] && echo pass || echo "FAIL (exit ${RESULT[$name]})")"
done
grep -h "worst error / bound\|came out as" "$OUT"/tests-gpu.log 2>/dev/null | sed 's/^/  /'
grep -hE "^(fp8|fp8-block|int8) " "$OUT"/bench.log "$OUT"/layers.log 2>/dev/null | sed 's/^/  /'
[ -f "$OUT/sass.log" ] && awk '$1 == "local" { print "  sass: local memory in", $4; next }
    { c[$3] += $1; k[$3]++ } END { for (i in c) printf "  sass: %d x %s over %d kernel(s)\n", c[i], i, k[i] }' "$OUT/sass.log"
exit $failed
