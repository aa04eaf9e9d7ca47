#!/usr/bin/env bash
# panel (GPU builder) on one block of more than 2^31 nonzeros.
set -uo pipefail
for f in .device-deps/*.deb; do dpkg -x $f /opt/metis; done
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $OUT/cfg.log 2>&1 && cmake --build build-gpu -j 16 --target local_kernels_big_block_test > $OUT/build.log 2>&1 || { grep -E "error|FAILED" -A3 $OUT/build.log | head -40; exit 1; }
nvidia-smi --query-gpu=name,memory.total,memory.used --format=csv,noheader
timeout 480 build-gpu/tests/local_kernels/local_kernels_big_block_test --gtest_filter='*gpu_build_panel*' 2>&1 | tee $OUT/big.txt | grep -E "^big|OK|FAILED|PASSED|SKIPPED|refus|rror" | head -20
