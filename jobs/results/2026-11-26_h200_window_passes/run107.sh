#!/usr/bin/env bash
# SASS of the staged double window kernel (perm, 16-bit offsets): HEAD = 4b864a6's kernel (loads
# and stores, one launch) against ca0e101 (cp.async, two launches), which ran 20% slower.
set -u
cd "$(dirname "$0")/.."
R=${OUT:-/tmp/out}; mkdir -p $R; root=$PWD
mkdir -p /opt/metis; for f in .device-deps/libmetis*.deb; do dpkg -x $f /opt/metis; done
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > /tmp/configure.log 2>&1 || exit 1
cd build-gpu
cmd=$(ninja -t commands local_kernels/CMakeFiles/distspmv_local_kernels.dir/sell/sell_cuda.cu.o | tail -1)
hcmd="$(echo "$cmd" | sed -e 's/-o [^ ]*sell_cuda.cu.o/-o \/tmp\/head.o/' -e 's/-MF [^ ]*/-MF \/tmp\/head.d/')"
bcmd="$(echo "$cmd" | sed -e 's/-o [^ ]*sell_cuda.cu.o/-o \/tmp\/b.o/' -e 's/-MF [^ ]*/-MF \/tmp\/b.d/' -e "s#[^ ]*local_kernels/sell/sell_cuda\.cu #$root/.device-data/bsrc/local_kernels/sell/sell_cuda.cu #" -e "s#/nvcc #/nvcc -I$root/.device-data/bsrc #")"
eval "$hcmd" & eval "$bcmd" & wait
for v in head b; do
  cuobjdump -sass /tmp/$v.o > /tmp/$v.sass
  awk '/Function : /{p = ($0 ~ /window_kernelIdLb1ELb1E/)} p' /tmp/$v.sass > $R/$v.sass
  echo "$v: $(grep -c 'Function :' $R/$v.sass) functions, $(wc -l < $R/$v.sass) lines, LDG $(grep -c LDG $R/$v.sass), LDS $(grep -c LDS $R/$v.sass), LDGSTS $(grep -c LDGSTS $R/$v.sass), STL $(grep -c STL $R/$v.sass)"
done
