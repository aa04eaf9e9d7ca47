#!/usr/bin/env bash
set -uo pipefail
for f in .device-deps/*.deb; do dpkg -x $f /opt/metis; done
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $OUT/cfg.log 2>&1 && cmake --build build-gpu -j 16 --target distspmv local_kernels_formats_test local_kernels_panel_build_cuda_test > $OUT/build.log 2>&1 || { grep -E "error|FAILED" -A3 $OUT/build.log | head -40; exit 1; }
P=build-gpu/tests/local_kernels/local_kernels_panel_build_cuda_test
T=build-gpu/tests/local_kernels/local_kernels_formats_test
timeout 200 $P > $OUT/builder_test.txt 2>&1; echo "builder rc=$?"; grep -c Failure $OUT/builder_test.txt; grep -E "Failure" -A4 $OUT/builder_test.txt | head -20; tail -3 $OUT/builder_test.txt
DISTSPMV_MATRICES=$PWD/.device-data/matrices timeout 200 $T --gtest_filter='Cuda*/*panel*' 2>&1 | tail -2
