# Session 2026-11-28 (3), 2x H200: validate 69689e1/0c4d4b7/0ce6382/2eaa6e6 (new = HEAD) against 9ca33b6 (old), same call.
cd .device-src && ln -sfn ../.device-deps .device-deps && ln -sfn ../.device-data .device-data
export DISTSPMV_GIT_REVISION=$(cat .device-data/REVISION)
P=$OUT/progress.txt; R=$OUT/runs; mkdir -p $R
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "build $(date +%T)" >> $P
mkdir -p /opt/metis && for f in .device-deps/*.deb; do dpkg -x "$f" /opt/metis; done
conf() { cmake -S $1 -B $2 -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $OUT/conf_$3.log 2>&1; }
(conf . build-gpu new && cmake --build build-gpu -j 20 --target distspmv dist_test > $OUT/build_new.log 2>&1; echo "new rc $?" >> $P) &
(conf ../.device-old ../build-old old && cmake --build ../build-old -j 12 --target distspmv > $OUT/build_old.log 2>&1; echo "old rc $?" >> $P) &
wait
echo "built $(date +%T)" >> $P
M=.device-data/matrices
pack() { (cd $OUT && tar -czf runs.tgz runs); }
run() { local name=$1 n=$2 b=$3; shift 3; echo "$name $(date +%T)" >> $P
  timeout 120 mpirun --allow-run-as-root --oversubscribe --bind-to none -np $n -x NCCL_NVLS_ENABLE $b "$@" --check --json $R/$name.json > $R/$name.log 2>&1; echo "  rc $?" >> $P
  grep -E "^setup|^memory|^order|^    [0-3] |local SpMV|halo exchange|  apply  |vs cuSPARSE|overlap eff|check:" $R/$name.log | cut -c1-300 >> $P; pack; }
NEW=build-gpu/apps/distspmv OLD=../build-old/apps/distspmv
RM="gen:rmat:22:16 --seed 11"
for g in 1 2; do
run rmat2216_g${g}_new $g $NEW $RM --vs-cusparse
run rmat2216_g${g}_old $g $OLD $RM --vs-cusparse
run rmat228_g${g}_new $g $NEW gen:rmat:22:8 --seed 5 --vs-cusparse
run rmat228_g${g}_old $g $OLD gen:rmat:22:8 --seed 5 --vs-cusparse
done
run lognormal_g2_new 2 $NEW gen:lognormal:4000000:2.0:1.0:300000 --seed 9 --vs-cusparse
for m in bcsstk01 lund_a cage11 soc-Slashdot0902; do run ${m}_g1_new 1 $NEW $M/$m.mtx.gz --vs-cusparse; done
run poisson32_g1_new 1 $NEW gen:poisson3d:32
run poisson32_g2_new 2 $NEW gen:poisson3d:32
run slashdot_g2_new 2 $NEW $M/soc-Slashdot0902.mtx.gz
echo "tests $(date +%T)" >> $P
export DISTSPMV_TEST_BACKEND=cuda DISTSPMV_MATRICES=$PWD/.device-data/matrices
for t in peer-put nccl cuda-ipc mpi-staged; do
DISTSPMV_TEST_TRANSPORT=$t timeout 150 mpirun --allow-run-as-root --oversubscribe --bind-to none -np 2 -x NCCL_NVLS_ENABLE -x DISTSPMV_TEST_BACKEND -x DISTSPMV_TEST_TRANSPORT -x DISTSPMV_MATRICES build-gpu/tests/dist/dist_test > $OUT/dist_test_np2_$t.log 2>&1; echo "dist_test np2 $t rc $? $(date +%T)" >> $P
grep -E "PASSED|FAILED" $OUT/dist_test_np2_$t.log | head -20 >> $P
done
(cd $OUT && tar -czf tests.tgz dist_test_np2_*.log && rm dist_test_np2_*.log)
echo "done $(date +%T)" >> $P
