# Session 2026-11-28 (3), 2x H200: where the 2-rank apply spends its time beyond one GPU's (weak poisson, small matrices): nsys timelines.
cd .device-src && ln -sfn ../.device-deps .device-deps && ln -sfn ../.device-data .device-data
export DISTSPMV_GIT_REVISION=$(cat .device-data/REVISION)
P=$OUT/progress.txt; R=$OUT/runs; mkdir -p $R
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "nsys: $(which nsys; ls /usr/local/cuda/bin | grep -i nsys; ls -d /opt/nvidia/nsight-systems* /usr/local/cuda/nsight-systems* 2>/dev/null)" >> $P
mkdir -p /opt/metis && for f in .device-deps/*.deb; do dpkg -x "$f" /opt/metis; done
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $OUT/conf.log 2>&1 && cmake --build build-gpu -j 30 --target distspmv > $OUT/build.log 2>&1; echo "build rc $? $(date +%T)" >> $P
pack() { (cd $OUT && tar -czf runs.tgz runs); }
NEW=build-gpu/apps/distspmv
run() { local name=$1 n=$2; shift 2; echo "$name $(date +%T)" >> $P
  timeout 100 mpirun --allow-run-as-root --oversubscribe --bind-to none -np $n -x NCCL_NVLS_ENABLE $NEW "$@" --json $R/$name.json > $R/$name.log 2>&1; echo "  rc $?" >> $P
  grep -E "^transport|^    [0-3] |local SpMV|halo exchange|  apply  |overlap eff|check:" $R/$name.log | cut -c1-200 >> $P; pack; }
run p200_g1 1 gen:poisson3d:200
run p252_g2_ipc 2 gen:poisson3d:252
run p252_g2_put 2 gen:poisson3d:252 --transport peer-put
run p252_g2_nccl 2 gen:poisson3d:252 --transport nccl
run p32_g2_put 2 gen:poisson3d:32 --transport peer-put
run p32_g2_nccl 2 gen:poisson3d:32 --transport nccl
NSYS=$(which nsys || ls /usr/local/cuda/bin/nsys /opt/nvidia/nsight-systems*/bin/nsys 2>/dev/null | head -1)
if [ -n "$NSYS" ]; then
prof() { local name=$1 n=$2; shift 2; echo "nsys $name $(date +%T)" >> $P
  timeout 150 mpirun --allow-run-as-root --oversubscribe --bind-to none -np $n -x NCCL_NVLS_ENABLE $NSYS profile -t cuda --cuda-graph-trace=node -o $R/$name.%q{OMPI_COMM_WORLD_RANK} -f true $NEW "$@" --iters 30 > $R/$name.log 2>&1; echo "  rc $?" >> $P
  for f in $R/$name.*.nsys-rep; do $NSYS stats -q --report cuda_gpu_trace --format csv -o ${f%.nsys-rep} $f > /dev/null 2>&1; gzip -f ${f%.nsys-rep}_cuda_gpu_trace.csv; rm -f $f ${f%.nsys-rep}.sqlite; done; pack; }
prof nsys_p200_g1 1 gen:poisson3d:200
prof nsys_p252_g2_ipc 2 gen:poisson3d:252
prof nsys_p252_g2_put 2 gen:poisson3d:252 --transport peer-put
prof nsys_p32_g2_put 2 gen:poisson3d:32 --transport peer-put
prof nsys_p32_g1 1 gen:poisson3d:32
fi
ls -la $R >> $P
echo "done $(date +%T)" >> $P
