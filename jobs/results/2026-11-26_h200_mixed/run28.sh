#!/usr/bin/env bash
# One H200: the pipelined csr-split-sm against csr-split (SM ranges, and one global range), then
# its correctness (formats_test on the split variants, memcheck).
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w28; mkdir -p $W
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0 GTEST_COLOR=no
export DISTSPMV_GIT_REVISION=$(cat .device-data/REVISION) DISTSPMV_MATRICES=$PWD/.device-data/matrices
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w28.tgz -C /tmp w28 2>/dev/null; }
M=$PWD/.device-data/matrices
B=build-gpu; bin=$B/apps/distspmv
mkdir -p /opt/metis; for f in .device-deps/libmetis*.deb; do dpkg -x $f /opt/metis; done
p start
cmake -S . -B $B -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $W/configure.log 2>&1 || { tail -30 $W/configure.log; exit 1; }
timeout 330 cmake --build $B -j $(nproc) --target distspmv > $W/build_app.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build_app.log | head -40; p "build failed"; exit 1; }
p "built distspmv"
(timeout 400 cmake --build $B -j 12 --target local_kernels_formats_test > $W/build.log 2>&1; echo "build rc=$?" >> $W/build.log) &
bpid=$!
for m in gen:lognormal:4000000:2.5:0.8:2000 gen:rmat:22:16 gen:poisson3d:200 $M/uk-2007-05@100000.mtx.gz; do
  for prec in double mixed float; do
    n=$(basename $m); n=${n//:/_}
    timeout 90 $bin $m --format csr-split,csr-split-sm,cusparse --precision $prec --iters 100 --check > $W/bench_${n}_$prec.log 2>&1
    DSPMV_EXPERIMENT_RANGES=1 timeout 90 $bin $m --format csr-split-sm --precision $prec --iters 100 --check > $W/bench_${n}_${prec}_r1.log 2>&1
    echo "== $n $prec"; grep -E "^(csr|csr-split|csr-split-sm|cusparse) |check:" $W/bench_${n}_$prec.log | cut -c1-90
    echo "   one range: $(grep -E "^csr-split-sm " $W/bench_${n}_${prec}_r1.log | cut -c1-90)"
  done
  p "$m bench"
done
for r in 132 1; do
  DSPMV_EXPERIMENT_RANGES=$r timeout 120 ncu --clock-control none --cache-control none --launch-skip 20 --launch-count 1 -k regex:split \
    --metrics gpu__time_duration.sum,l1tex__t_sector_hit_rate.pct,lts__t_sectors_srcunit_tex_op_read.sum,dram__bytes_read.sum,lts__t_sector_hit_rate.pct,sm__warps_active.avg.pct_of_peak_sustained_active \
    $bin gen:lognormal:4000000:2.5:0.8:2000 --format csr-split-sm --iters 30 > $W/ncu_lognormal_sm_r$r.log 2>&1
  echo "== ncu ranges $r"; grep -E "duration|hit_rate|sectors|bytes|warps" $W/ncu_lognormal_sm_r$r.log | tail -6
done
p "ncu done"
wait $bpid; tail -1 $W/build.log
timeout 200 $B/tests/local_kernels/local_kernels_formats_test --gtest_filter='Cuda*/*csr_split*' > $W/formats_split.log 2>&1; echo "formats rc=$?"; tail -3 $W/formats_split.log
timeout 150 compute-sanitizer --tool memcheck $B/tests/local_kernels/local_kernels_formats_test --gtest_filter='Cuda*/*EdgeCases*csr_split*' > $W/memcheck_split.log 2>&1; echo "memcheck rc=$?"
grep -E "ERROR SUMMARY|PASSED|FAILED" $W/memcheck_split.log | tail -4
p done
