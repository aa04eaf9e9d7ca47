# call: the other transports after the change (shared helpers): dist_test at 1 and 2 ranks on the one GPU, via jobs/dist_gpu.sh
OUT=$W BUILD_TARGETS="distspmv dist_test" bash jobs/dist_gpu.sh build >>"$P" 2>&1
echo "built $(date +%T)" >>"$P"
OUT=$W TEST_NP="1 2" TEST_TRANSPORTS="peer-put cuda-ipc mpi-staged nvshmem" TEST_SHARED=0 MPI_TIMEOUT=200 bash jobs/dist_gpu.sh tests >>"$P" 2>&1
echo "tests done $(date +%T)" >>"$P"
