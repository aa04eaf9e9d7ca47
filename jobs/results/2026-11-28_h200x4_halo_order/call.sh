# Issue 36, session 2026-11-28 (2), 4x H200: the halo block ordered + panel trial, the unrolled
# peer-put pack (new) against 9ca33b6 (old), same call.
cd .device-src && ln -sfn ../.device-deps .device-deps && ln -sfn ../.device-data .device-data
export DISTSPMV_GIT_REVISION=$(cat .device-data/REVISION)
P=$OUT/progress.txt; R=$OUT/runs; mkdir -p $R
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "build $(date +%T)" >> $P
mkdir -p /opt/metis && for f in .device-deps/*.deb; do dpkg -x "$f" /opt/metis; done
conf() { cmake -S $1 -B $2 -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $OUT/conf_$3.log 2>&1; }
(conf . build-gpu new && cmake --build build-gpu -j 40 --target distspmv dist_test > $OUT/build_new.log 2>&1; echo "new rc $?" >> $P) &
(conf ../.device-old ../build-old old && cmake --build ../build-old -j 24 --target distspmv > $OUT/build_old.log 2>&1; echo "old rc $?" >> $P) &
wait
echo "built $(date +%T)" >> $P
M=.device-data/matrices
run() { local name=$1 n=$2 b=$3; shift 3; echo "$name $(date +%T)" >> $P
  timeout 120 mpirun --allow-run-as-root --oversubscribe --bind-to none -np $n -x NCCL_NVLS_ENABLE $b "$@" --check --json $R/$name.json > $R/$name.log 2>&1; echo "  rc $?" >> $P
  (cd $OUT && tar -czf runs.tgz runs)
  grep -E "^transport|^order|^    [0-3] |local SpMV|halo exchange|  apply|vs cuSPARSE|overlap eff|check:" $R/$name.log | cut -c1-330 >> $P; }
NEW=build-gpu/apps/distspmv OLD=../build-old/apps/distspmv
RM="gen:rmat:22:16 --seed 11"
LN="gen:lognormal:4000000:2.0:1.0:300000 --seed 9"
run rmat_g4_new 4 $NEW $RM --vs-cusparse
run rmat_g4_old 4 $OLD $RM
run lognormal_g4_new 4 $NEW $LN --vs-cusparse
run lognormal_g4_old 4 $OLD $LN
run poisson32_g4_new 4 $NEW gen:poisson3d:32
run slashdot_g4_new 4 $NEW $M/soc-Slashdot0902.mtx.gz
run rmat228_g4_new 4 $NEW gen:rmat:22:8 --seed 5
run rmat228_g4_old 4 $OLD gen:rmat:22:8 --seed 5
run stencil27_g4_new 4 $NEW gen:stencil27:200
run rmat_g2_new 2 $NEW $RM
run rmat_g1_new 1 $NEW $RM
echo "tests $(date +%T)" >> $P
export DISTSPMV_TEST_BACKEND=cuda DISTSPMV_TEST_TRANSPORT=peer-put DISTSPMV_MATRICES=$PWD/.device-data/matrices
for np in 4; do
timeout 100 mpirun --allow-run-as-root --oversubscribe --bind-to none -np $np -x NCCL_NVLS_ENABLE -x DISTSPMV_TEST_BACKEND -x DISTSPMV_TEST_TRANSPORT -x DISTSPMV_MATRICES build-gpu/tests/dist/dist_test > $OUT/dist_test_np$np.log 2>&1; echo "dist_test np$np peer-put rc $?" >> $P
grep -E "PASSED|FAILED" $OUT/dist_test_np$np.log | head -20 >> $P
done
cd $OUT && tar -czf runs.tgz runs && rm -rf runs
echo "done $(date +%T)" >> $P
