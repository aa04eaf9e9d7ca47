# Session 2026-11-28 (3), 4x H200: ce71610 (settle_halo_format) -- R-MAT 22:8 at 4 and 2 GPUs, issue 36's table, dist_test at 4 ranks over peer-put.
cd .device-src && ln -sfn ../.device-deps .device-deps && ln -sfn ../.device-data .device-data
P=$OUT/progress.txt
BUILD_TARGETS="distspmv dist_test" jobs/dist_gpu.sh build > $OUT/build_stage.txt 2>&1; echo "build rc $? $(date +%T)" >> $P
mkdir -p $OUT/runs
one() { local name=$1 n=$2; shift 2; echo "$name $(date +%T)" >> $P
  timeout 100 mpirun --allow-run-as-root --oversubscribe --bind-to none -np $n -x NCCL_NVLS_ENABLE build-gpu/apps/distspmv "$@" --check --json $OUT/runs/$name.json > $OUT/runs/$name.log 2>&1; echo "  rc $?" >> $P
  grep -E "^setup|build includes|^    [0-3] |  apply  |vs cuSPARSE|check:" $OUT/runs/$name.log | cut -c1-420 >> $P; }
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
one rmat228_g4_new 4 gen:rmat:22:8 --seed 5 --vs-cusparse
(cd $OUT && tar -czf early.tgz runs progress.txt)
jobs/dist_gpu.sh table > $OUT/table_stage.txt 2>&1; echo "table rc $? $(date +%T)" >> $P
mkdir -p $OUT/runs2 && OUTR=$OUT/runs2
echo "rmat228_g2 $(date +%T)" >> $P
timeout 60 mpirun --allow-run-as-root --oversubscribe --bind-to none -np 2 -x NCCL_NVLS_ENABLE build-gpu/apps/distspmv gen:rmat:22:8 --seed 5 --vs-cusparse --check --json $OUTR/rmat228_g2_new.json > $OUTR/rmat228_g2_new.log 2>&1
grep -E "^    [0-3] |  apply  |vs cuSPARSE|check:" $OUTR/rmat228_g2_new.log | cut -c1-420 >> $P
export DISTSPMV_TEST_BACKEND=cuda DISTSPMV_MATRICES=$PWD/.device-data/matrices DISTSPMV_TEST_TRANSPORT=peer-put
timeout 90 mpirun --allow-run-as-root --oversubscribe --bind-to none -np 4 -x NCCL_NVLS_ENABLE -x DISTSPMV_TEST_BACKEND -x DISTSPMV_TEST_TRANSPORT -x DISTSPMV_MATRICES build-gpu/tests/dist/dist_test > $OUTR/dist_test_np4_peer-put.log 2>&1; echo "dist_test np4 peer-put rc $? $(date +%T)" >> $P
grep -E "PASSED|FAILED" $OUTR/dist_test_np4_peer-put.log | head >> $P
(cd $OUT && tar -czf runs2.tgz runs2 && rm -rf runs2 early.tgz)
echo "done $(date +%T)" >> $P
