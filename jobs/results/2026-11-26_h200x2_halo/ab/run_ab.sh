#!/usr/bin/env bash
# 2x H200: A/B of the halo change (A = working tree, B = dist/ as at HEAD: the fused halo kernel),
# both with HDIA blocks of 128; cuda-ipc and NCCL; stencil27:200 and poisson3d weak scaling.
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; W=/tmp/w22; rm -rf $W; mkdir -p $W
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
export DISTSPMV_GIT_REVISION=$(cat .device-data/REVISION)
p() { echo "$(date +%T) $*" | tee -a $R/progress.txt; tar czf $R/w22.tgz -C /tmp w22 2>/dev/null; }
rm -rf /tmp/B; mkdir -p /tmp/B; tar cf - --exclude=./build-gpu --exclude=./.device-deps --exclude=./.device-data --exclude=./build . | tar xf - -C /tmp/B
(cd /tmp/B && patch -s -R -p1 < $OLDPWD/.device-data/halo_change.patch) || { echo "patch failed"; exit 1; }
cfg() { cmake -S $1 -B $2 -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 > $W/configure_$3.log 2>&1 && timeout 400 cmake --build $2 -j 16 --target distspmv > $W/build_$3.log 2>&1 || { grep -E "error|FAILED" -A3 $W/build_$3.log | head; echo "build $3 failed"; }; }
cfg . build-gpu A & cfg /tmp/B /tmp/B/build-gpu B & wait
p built
run() { local name=$1 bin=$2 n=$3; shift 3
  timeout 120 mpirun --allow-run-as-root --oversubscribe --bind-to none -np $n -x NCCL_NVLS_ENABLE $bin "$@" --iters 300 --check > $W/$name.log 2>&1
  echo "$name: $(grep -E '^  (local SpMV|apply) ' $W/$name.log | awk '{printf "%s %s  ", $1, ($1=="local"?$3:$2)}') $(grep -oE 'overlap efficiency [0-9.]+' $W/$name.log) $(grep -oE 'check: .*(passed|FAILED)' $W/$name.log | grep -oE 'passed|FAILED')"; p "$name"; }
for i in 1 2; do
for v in A B; do
  bin=build-gpu/apps/distspmv; [ $v = B ] && bin=/tmp/B/build-gpu/apps/distspmv
  run s200_g2_ipc_$v$i $bin 2 gen:stencil27:200
  run s200_g2_nccl_$v$i $bin 2 gen:stencil27:200 --transport nccl
  run p252_g2_ipc_$v$i $bin 2 gen:poisson3d:252
  run p252_g2_nccl_$v$i $bin 2 gen:poisson3d:252 --transport nccl
done; done
