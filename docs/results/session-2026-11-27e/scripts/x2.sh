#!/usr/bin/env bash
# L2 promotion of the operand maps (env GEMMLAB_EXP_PROMO, an experiment): none / 128B / 256B
# for misaligned pitches; tune --explain on medium shapes, and ncu L2 sectors at 1000^3 and 3000^3.
set -u
export PATH=$PATH:/usr/local/cuda/bin
cd "$(dirname "$0")"
rm -rf bin && tar xJf bin.txz
export LD_LIBRARY_PATH=$PWD/bin
G=$PWD/bin/gemmlab
echo "$(nvidia-smi --query-gpu=name,power.limit,driver_version --format=csv,noheader); $(date -u); $(cat bin/COMMIT)"
t0=$SECONDS
M=1000x1000x1000,1024x1024x1024,3000x3000x3000,3072x3072x3072,1536x1536x1536,4096x4096x4096
for rep in 1 2; do
for v in 256 0 128 64; do
GEMMLAB_EXP_PROMO=$v timeout 100 $G tune --explain $M --op nn > $OUT/promo-$v-$rep.txt 2>&1; echo "promo $v exit $? at $((SECONDS-t0)) s"
done; done
for s in 1000x1000x1000 3000x3000x3000; do for v in 256 0; do
GEMMLAB_EXP_PROMO=$v timeout 60 ncu --clock-control none -k regex:'nvjet|warp_specialized' --metrics gpu__time_duration.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_requests_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_read_lookup_miss.sum --csv $G bench --kernels cublas,auto --dtype bf16 --shapes $s --op nn --reps 1 --min-time 0 > $OUT/ncu-$s-$v.csv 2>&1; echo "ncu $s $v exit $? at $((SECONDS-t0)) s"
done; done
tar -C $OUT -czf $OUT/all.tgz $(cd $OUT && ls *.txt *.csv) && rm -f $OUT/*.txt $OUT/*.csv
echo "total $((SECONDS-t0)) s"
