# call: at_mpi_finalize (f6a84c4): nvshmem runs end cleanly under MPS; CG over nvshmem; peer-put dist_test subset
OUT=$W BUILD_TARGETS="distspmv dist_test" bash jobs/dist_gpu.sh build >>"$P" 2>&1
echo "built $(date +%T)" >>"$P"
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 GTEST_COLOR=no
export LD_LIBRARY_PATH=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nvshmem/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log
m() { local n=$1; shift; timeout 100 mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$n" -x NVSHMEM_DISABLE_NVLS -x NCCL_NVLS_ENABLE -x LD_LIBRARY_PATH -x GTEST_COLOR -x DISTSPMV_TEST_BACKEND -x DISTSPMV_TEST_TRANSPORT -x DISTSPMV_MATRICES -x CUDA_MPS_PIPE_DIRECTORY -x CUDA_MPS_LOG_DIRECTORY -x CUDA_MPS_ACTIVE_THREAD_PERCENTAGE "$@"; }
run() { local name=$1 n=$2; shift 2; echo "run $name np=$n $(date +%T)" >>"$P"; m "$n" build-gpu/apps/distspmv "$@" >"$W/$name.log" 2>&1; echo "  rc $?" >>"$P"; grep -aE "transport|CUDA graph|^  apply +[0-9]|check|rror|converged" "$W/$name.log" | head -8 >>"$P"; }
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
nvidia-cuda-mps-control -d >>"$P" 2>&1; echo "mps started rc $? $(date +%T)" >>"$P"
export CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=25
run p32_np4_nvshmem 4 gen:poisson3d:32 --transport nvshmem --check --iters 100
run cg_np4_nvshmem 4 solve gen:poisson3d:48 --method cg --rtol 1e-8 --transport nvshmem
export DISTSPMV_TEST_BACKEND=cuda DISTSPMV_TEST_TRANSPORT=nvshmem
echo "dist_test np4 nvshmem $(date +%T)" >>"$P"; m 4 build-gpu/tests/dist/dist_test >"$W/dist_test_np4_nvshmem.log" 2>&1; echo "  rc $?" >>"$P"; grep -aE "^\[  PASSED|^\[  FAILED" "$W/dist_test_np4_nvshmem.log" >>"$P"
echo quit | nvidia-cuda-mps-control; echo "mps quit rc $? $(date +%T)" >>"$P"
