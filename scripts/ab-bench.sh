#!/usr/bin/env bash
# A/B of two builds on the GPU machine: the same benches from each build, alternated (old, new,
# new, old, ...) so that both see the same range of clocks and temperatures, then
# scripts/ab_compare.py over the rows (each row's fraction of cuBLAS, new against old).
#   scripts/ab-bench.sh OLD_BUILD NEW_BUILD OUTDIR [ROUNDS] [SET...]
#   SET: half half-ws half-medium tf32 f32 f64 cuda-cores mixed (default: half tf32 f32)
# Exit 1 when a row of the new build is more than AB_TOLERANCE (default 0.02) slower.
set -uo pipefail
old=$1 new=$2 out=$3
rounds=${4:-2}
shift 4 2>/dev/null || shift $#
sets=("$@")
((${#sets[@]})) || sets=(half tf32 f32)
mkdir -p "$out"

bench_args() { # set name -> gemmlab bench arguments
  case $1 in
    half) echo "--dtype bf16,f16 --kernels cublas,wgmma,tma,warp_specialized,cluster_multicast,persistent,auto --sizes 1024,4096,8192" ;;
    tf32) echo "--dtype f32 --precision tf32 --kernels cublas,tf32,wgmma_tf32,auto --sizes 4096,8192 --op nn,tn" ;;
    f32) echo "--dtype f32 --kernels cublas,tf32x3,wgmma_tf32x3,auto --sizes 4096,8192 --op nn,tn" ;;
    f64) echo "--dtype f64 --kernels cublas,dmma,auto --sizes 4096,8192" ;;
    cuda-cores) echo "--dtype f32,f64 --kernels cublas,1,2,3,4,5,6,7,8,9,10,11,12,13,14 --sizes 2048" ;;
    half-ws) echo "--dtype bf16,f16 --kernels cublas,warp_specialized,cluster_multicast,persistent,auto --sizes 4096,8192 --reps 20 --min-time 300" ;;
    half-medium) echo "--dtype bf16,f16 --kernels cublas,tma,warp_specialized,persistent,auto --sizes 1024,2048" ;;
    mixed) echo "--dtype f32,bf16 --kernels cublas,auto --reps 5 --min-time 50 --op nn,tn --shapes 128x128x128,512x512x512,1024x1024x1024,1000x1000x1000,4095x4097x1023,8192x256x4096,6144x1536x2048,512x512x16384" ;;
    *) echo "ab-bench: unknown set $1" >&2; exit 2 ;;
  esac
}

rc=0
for set in "${sets[@]}"; do
  args=$(bench_args "$set") || exit 2
  olds=() news=()
  for ((r = 1; r <= rounds; ++r)); do
    # ABBA: odd rounds run the old build first, even rounds the new one, so that a drift in
    # clocks or temperature over the run falls on both alike.
    order="old new"
    ((r % 2 == 0)) && order="new old"
    for side in $order; do
      build=$old; [[ $side == new ]] && build=$new
      json="$out/$set-$side-$r.json"
      echo "== $set $side round $r: $build/gemmlab bench $args"
      # shellcheck disable=SC2086
      "$build/gemmlab" bench $args --json "$json" >"$out/$set-$side-$r.log" 2>&1 \
        || echo "   exit $? (log: $out/$set-$side-$r.log)"
      [[ $side == old ]] && olds+=("$json") || news+=("$json")
    done
  done
  old_list=$(IFS=,; echo "${olds[*]}") new_list=$(IFS=,; echo "${news[*]}")
  python3 "$(dirname "$0")/ab_compare.py" "$old_list" "$new_list" \
    --tolerance "${AB_TOLERANCE:-0.02}" >"$out/$set-compare.txt" || rc=1
  grep -E "SLOWER|^ab_compare" "$out/$set-compare.txt" | sed "s/^/$set: /"
done
exit $rc
