# Session 2026-11-28 (3), 4x H200: 3198db6 (new: halo rows follow the order, halo setup in parallel) against 9ca33b6 (old), default options.
cd .device-src && ln -sfn ../.device-deps .device-deps && ln -sfn ../.device-data .device-data
P=$OUT/progress.txt; R=$OUT/runs; mkdir -p $R
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
nvidia-smi topo -m > $OUT/topology.txt 2>&1
mkdir -p /opt/metis && for f in .device-deps/*.deb; do dpkg -x "$f" /opt/metis; done
conf() { cmake -S $1 -B $2 -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $OUT/conf_$3.log 2>&1; }
(DISTSPMV_GIT_REVISION=$(cat .device-data/REVISION) conf . build-gpu new && cmake --build build-gpu -j 40 --target distspmv dist_test > $OUT/build_new.log 2>&1; echo "new rc $?" >> $P) &
(DISTSPMV_GIT_REVISION=9ca33b6 conf ../.device-old ../build-old old && cmake --build ../build-old -j 24 --target distspmv > $OUT/build_old.log 2>&1; echo "old rc $?" >> $P) &
wait; echo "built $(date +%T)" >> $P
pack() { (cd $OUT && tar -czf runs.tgz runs); }
NEW=build-gpu/apps/distspmv OLD=../build-old/apps/distspmv M=.device-data/matrices
run() { local name=$1 n=$2 b=$3; shift 3; echo "$name $(date +%T)" >> $P
  timeout 100 mpirun --allow-run-as-root --oversubscribe --bind-to none -np $n -x NCCL_NVLS_ENABLE $b "$@" --check --json $R/$name.json > $R/$name.log 2>&1; echo "  rc $?" >> $P
  grep -E "^setup|build includes|^memory|^order|^    [0-3] |local SpMV|halo exchange|  apply  |vs cuSPARSE|overlap eff|check:" $R/$name.log | sed -E 's/(local product timed on this rank.s GPU: .{0,170}).*/\1/' | cut -c1-300 >> $P; pack; }
run rmat2216_g4_new 4 $NEW gen:rmat:22:16 --seed 11 --vs-cusparse
run rmat2216_g4_old 4 $OLD gen:rmat:22:16 --seed 11 --vs-cusparse
run rmat228_g4_new 4 $NEW gen:rmat:22:8 --seed 5 --vs-cusparse
run rmat228_g4_old 4 $OLD gen:rmat:22:8 --seed 5 --vs-cusparse
run rmat2216_g2_new 2 $NEW gen:rmat:22:16 --seed 11 --vs-cusparse
run rmat228_g2_new 2 $NEW gen:rmat:22:8 --seed 5 --vs-cusparse
run rmat2216_g1_new 1 $NEW gen:rmat:22:16 --seed 11
run lognormal_g4_new 4 $NEW gen:lognormal:4000000:2.0:1.0:300000 --seed 9 --vs-cusparse
run poisson32_g4_new 4 $NEW gen:poisson3d:32
run slashdot_g4_new 4 $NEW $M/soc-Slashdot0902.mtx.gz
echo "tests $(date +%T)" >> $P
export DISTSPMV_TEST_BACKEND=cuda DISTSPMV_MATRICES=$PWD/.device-data/matrices
for t in peer-put nccl cuda-ipc mpi-staged; do
DISTSPMV_TEST_TRANSPORT=$t timeout 120 mpirun --allow-run-as-root --oversubscribe --bind-to none -np 4 -x NCCL_NVLS_ENABLE -x DISTSPMV_TEST_BACKEND -x DISTSPMV_TEST_TRANSPORT -x DISTSPMV_MATRICES build-gpu/tests/dist/dist_test > $OUT/dist_test_np4_$t.log 2>&1; echo "dist_test np4 $t rc $? $(date +%T)" >> $P
grep -E "PASSED|FAILED" $OUT/dist_test_np4_$t.log | head -20 >> $P
(cd $OUT && tar -czf tests.tgz dist_test_np4_*.log)
done
rm -f $OUT/dist_test_np4_*.log $OUT/runs/*
echo "done $(date +%T)" >> $P
