# call: the transport's destructor (synchronise, nvshmem_quiet): under MPS, dist_test over nvshmem at 4 and 2 ranks
nm -D --defined-only /opt/torch/.venv/lib/python3.12/site-packages/nvidia/nvshmem/lib/libnvshmem_host.so.3 | grep -w "nvshmem_quiet" >>"$P"
OUT=$W BUILD_TARGETS="distspmv dist_test" bash jobs/dist_gpu.sh build >>"$P" 2>&1
echo "built $(date +%T)" >>"$P"
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 GTEST_COLOR=no
export LD_LIBRARY_PATH=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nvshmem/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log
m() { local n=$1; shift; timeout 200 mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$n" -x NVSHMEM_DISABLE_NVLS -x NCCL_NVLS_ENABLE -x LD_LIBRARY_PATH -x GTEST_COLOR -x DISTSPMV_TEST_BACKEND -x DISTSPMV_TEST_TRANSPORT -x DISTSPMV_MATRICES -x CUDA_MPS_PIPE_DIRECTORY -x CUDA_MPS_LOG_DIRECTORY -x CUDA_MPS_ACTIVE_THREAD_PERCENTAGE "$@"; }
dtest() { local name=$1 n=$2; shift 2; echo "dist_test $name np=$n $(date +%T)" >>"$P"; m "$n" build-gpu/tests/dist/dist_test "$@" >"$W/dist_test_$name.log" 2>&1; echo "  rc $?" >>"$P"; grep -aE "^\[  PASSED|^\[  FAILED|tests? ran|SKIPPED \]" "$W/dist_test_$name.log" | head -20 >>"$P"; }
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
nvidia-cuda-mps-control -d >>"$P" 2>&1; echo "mps started rc $? $(date +%T)" >>"$P"
export DISTSPMV_TEST_BACKEND=cuda DISTSPMV_TEST_TRANSPORT=nvshmem
export CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=25
dtest np4_nvshmem 4
export CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50
dtest np2_nvshmem 2
echo quit | nvidia-cuda-mps-control; echo "mps quit rc $? $(date +%T)" >>"$P"
