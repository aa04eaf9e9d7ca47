# call: under MPS, apply times on one shared H200: peer-put, nvshmem (put-with-signal), nvshmem nbi, nvshmem eager; 2 and 4 ranks
OUT=$W BUILD_TARGETS="distspmv" bash jobs/dist_gpu.sh build >>"$P" 2>&1
echo "built $(date +%T)" >>"$P"
export NVSHMEM_DISABLE_NVLS=1 NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export LD_LIBRARY_PATH=/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nvshmem/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export CUDA_MPS_PIPE_DIRECTORY=/tmp/mps-pipe CUDA_MPS_LOG_DIRECTORY=/tmp/mps-log
m() { local n=$1; shift; timeout 100 mpirun --allow-run-as-root --oversubscribe --bind-to none -np "$n" -x NVSHMEM_DISABLE_NVLS -x NCCL_NVLS_ENABLE -x LD_LIBRARY_PATH -x DISTSPMV_MATRICES -x CUDA_MPS_PIPE_DIRECTORY -x CUDA_MPS_LOG_DIRECTORY -x CUDA_MPS_ACTIVE_THREAD_PERCENTAGE -x DISTSPMV_NVSHMEM_NBI "$@"; }
run() { local name=$1 n=$2; shift 2; m "$n" build-gpu/apps/distspmv "$@" --json "$W/$name.json" >"$W/$name.log" 2>&1; echo "$name rc $? $(grep -aE '^  (local SpMV|halo exchange|apply) +[0-9]' "$W/$name.log" | awk '{printf "%s=%s ", $1, $(NF-5)}')" >>"$P"; }
mkdir -p $CUDA_MPS_PIPE_DIRECTORY $CUDA_MPS_LOG_DIRECTORY
nvidia-cuda-mps-control -d >>"$P" 2>&1; echo "mps started rc $? $(date +%T)" >>"$P"
for rep in 1 2; do
for n in 2 4; do
  export CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=$((100 / n))
  for mtx in gen:poisson3d:32 "$DISTSPMV_MATRICES/soc-Slashdot0902.mtx.gz"; do
    tag=$(basename "$mtx" .mtx.gz | tr ':' '_')
    run "r${rep}_${tag}_np${n}_peer" $n "$mtx" --transport peer-put --iters 300
    run "r${rep}_${tag}_np${n}_nvshmem" $n "$mtx" --transport nvshmem --iters 300
    DISTSPMV_NVSHMEM_NBI=1 run "r${rep}_${tag}_np${n}_nvshmem-nbi" $n "$mtx" --transport nvshmem --iters 300
    run "r${rep}_${tag}_np${n}_nvshmem-eager" $n "$mtx" --transport nvshmem --iters 300 --cuda-graphs off
  done
done
done
echo quit | nvidia-cuda-mps-control; echo "mps quit rc $? $(date +%T)" >>"$P"
tar -czf "$OUT/json.tgz" -C "$W" $(cd "$W" && ls *.json)
