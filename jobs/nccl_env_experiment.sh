#!/usr/bin/env bash
# What in NCCL's exchange slows the local SpMV it overlaps? Times the overlapped apply under NCCL
# environment settings (and, for comparison, the host-staged transport, whose copies run on the
# copy engines, not on SMs): stencil27:200 and the weak-scaling poisson3d (~8 M rows per GPU) on
# 4 GPUs (GPUS=2: on 2), plus each case on 1 GPU. One call on nvidia-h200-x4 (or x2); it builds
# distspmv itself.
#
#   VARIANTS="default NCCL_PROTO=LL transport=mpi-staged" jobs/nccl_env_experiment.sh
#
# A variant is `default`, `transport=NAME`, or NCCL settings joined by commas
# (NCCL_MAX_P2P_NCHANNELS=2,NCCL_PROTO=Simple). REPEATS runs each variant that many times,
# interleaved. Results: jobs/results/*/README.md (run 3: channel caps; run 5: protocols and sync
# domains).
set -u
cd "$(dirname "$0")/.."
export OUT=${OUT:-jobs/results/local}
BUILD=build-gpu BUILD_TARGETS=distspmv bash jobs/dist_gpu.sh build || exit 1
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
[ -f .device-data/REVISION ] && export DISTSPMV_GIT_REVISION=$(cat .device-data/REVISION)
VARIANTS=${VARIANTS:-default NCCL_MAX_P2P_NCHANNELS=2}
REPEATS=${REPEATS:-1}
ITERS=${ITERS:-300}
G=${GPUS:-4}   # GPUs of the multi-GPU runs (the weak case keeps ~8 M rows per GPU)
declare -A edge=([2]=252 [4]=317 [8]=400)
mkdir -p "$OUT/runs"

run() {  # name ranks variant matrix
  local name=$1 n=$2 variant=$3 matrix=$4 transport=nccl xs=() envs=()
  case $variant in
    default) ;;
    transport=*) transport=${variant#transport=} ;;
    *) IFS=, read -ra envs <<<"$variant"; for e in "${envs[@]}"; do xs+=(-x "$e"); done ;;
  esac
  local tag=${variant//[^A-Za-z0-9]/_}
  timeout "${MPI_TIMEOUT:-120}" mpirun --allow-run-as-root --bind-to none -np "$n" -x NCCL_NVLS_ENABLE "${xs[@]}" build-gpu/apps/distspmv "$matrix" \
    --partition block --transport "$transport" --iters "$ITERS" --json "$OUT/runs/${name}_$tag.json" \
    >"$OUT/runs/${name}_$tag.log" 2>&1
  echo "$name $variant: $(grep -aE '^  (apply|local SpMV|halo exchange|overlap)' "$OUT/runs/${name}_$tag.log" | tr -s ' ' | tr '\n' '|')"
}

mpirun --allow-run-as-root -np 2 -x NCCL_NVLS_ENABLE -x NCCL_DEBUG=INFO build-gpu/apps/distspmv gen:poisson3d:32 \
  --transport nccl 2>&1 | grep -aE "NCCL version|P2P|Channel 0[01]" | sort -u | head -12
for rep in $(seq "$REPEATS"); do
  run "stencil_g1_r$rep" 1 default gen:stencil27:200
  for v in $VARIANTS; do run "stencil_g${G}_r$rep" "$G" "$v" gen:stencil27:200; done
  run "weak_g1_r$rep" 1 default gen:poisson3d:200
  for v in $VARIANTS; do run "weak_g${G}_r$rep" "$G" "$v" "gen:poisson3d:${edge[$G]}"; done
done
tar czf "$OUT/runs.tgz" -C "$OUT" runs && rm -rf "$OUT/runs"
