#!/usr/bin/env bash
# Prototype: more slots per panel (longer panels for short rows), rmat:22:8 and 22:16, caller's order.
set -uo pipefail
for f in .device-deps/*.deb; do dpkg -x $f /opt/metis; done
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $OUT/cfg.log 2>&1 && cmake --build build-gpu -j 16 --target distspmv_io distspmv_partition distspmv_common > $OUT/build.log 2>&1 || { grep -E "error|FAILED" -A3 $OUT/build.log | head -40; exit 1; }
D=jobs/results/2026-11-27_h200_panels
nvcc -O3 -std=c++17 -arch=sm_90 -Xcompiler -fopenmp -I. $D/panel_bench.cu build-gpu/partition/libdistspmv_partition.a build-gpu/io/libdistspmv_io.a build-gpu/common/libdistspmv_common.a -lcusparse -o pb > $OUT/nvcc.log 2>&1 || { tail -20 $OUT/nvcc.log; exit 1; }
timeout 200 ./pb gen:rmat:22:8 none r8192:65536:2:32:6144 r16384:131072:2:32:12288 r16384:131072:2:32:16384 2>&1 | tee $OUT/slots.txt
timeout 200 ./pb gen:rmat:22:16 none r8192:131072:2:32:6144 r16384:131072:2:32:12288 2>&1 | tee -a $OUT/slots.txt
