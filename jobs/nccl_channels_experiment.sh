#!/usr/bin/env bash
# Does NCCL's point-to-point kernel slow the local SpMV it overlaps by holding SMs? Caps NCCL's
# p2p channels (NCCL_MAX_P2P_NCHANNELS) and times the weak-scaling case (poisson3d, ~8 M rows
# per GPU) and stencil27:200 on 1 and 4 GPUs. One call on nvidia-h200-x4 after
# `jobs/dist_gpu.sh build` (or it builds distspmv itself). Results and the answer (no: the default
# is as good as any cap): jobs/results/2026-11-22_h200x4_dist_run3/README.md.
set -u
cd "$(dirname "$0")/.."
export OUT=${OUT:-jobs/results/local}
BUILD=build-gpu BUILD_TARGETS=distspmv bash jobs/dist_gpu.sh build || exit 1
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
[ -f .device-data/REVISION ] && export DISTSPMV_GIT_REVISION=$(cat .device-data/REVISION)
mkdir -p "$OUT/runs"

run() {  # name ranks channels(default|N) matrix
  local name=$1 n=$2 ch=$3 xs=()
  shift 3
  if [ "$ch" = default ]; then unset NCCL_MAX_P2P_NCHANNELS; else export NCCL_MAX_P2P_NCHANNELS=$ch; xs=(-x NCCL_MAX_P2P_NCHANNELS); fi
  mpirun --allow-run-as-root --bind-to none -np "$n" -x NCCL_NVLS_ENABLE "${xs[@]}" build-gpu/apps/distspmv "$@" \
    --partition block --transport nccl --json "$OUT/runs/${name}_ch$ch.json" >"$OUT/runs/${name}_ch$ch.log" 2>&1
  echo "$name ch=$ch: $(grep -aE '^  (apply|local SpMV|halo exchange|overlap)' "$OUT/runs/${name}_ch$ch.log" | tr -s ' ' | tr '\n' '|')"
}

run stencil_g1 1 default gen:stencil27:200
for ch in default 4 1; do run stencil_g4 4 "$ch" gen:stencil27:200; done
for rep in a b c; do
  run "weak_g1$rep" 1 default gen:poisson3d:200
  for ch in default 4 2; do run "weak_g4$rep" 4 "$ch" gen:poisson3d:317; done
done
tar czf "$OUT/runs.tgz" -C "$OUT" runs && rm -rf "$OUT/runs"
