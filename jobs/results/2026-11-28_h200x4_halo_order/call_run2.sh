cd .device-src && ln -sfn ../.device-deps .device-deps && ln -sfn ../.device-data .device-data
export DISTSPMV_GIT_REVISION=$(cat .device-data/REVISION) NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
P=$OUT/progress.txt; R=$OUT/runs; mkdir -p $R
mkdir -p /opt/metis && for f in .device-deps/*.deb; do dpkg -x "$f" /opt/metis; done
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $OUT/conf.log 2>&1
cmake --build build-gpu -j 64 --target distspmv > $OUT/build.log 2>&1 || tail -20 $OUT/build.log
echo "built $(date +%T)" >> $P
for spec in "rmat228_g4 gen:rmat:22:8 --seed 5" "rmat_g4 gen:rmat:22:16 --seed 11"; do set -- $spec; name=$1; shift
  timeout 60 mpirun --allow-run-as-root --oversubscribe --bind-to none -np 4 -x NCCL_NVLS_ENABLE build-gpu/apps/distspmv "$@" --check --json $R/$name.json > $R/$name.log 2>&1; echo "$name rc $?" >> $P
  grep -E "^    [0-3] |local SpMV|halo exchange|  apply  |check:" $R/$name.log | cut -c1-230 >> $P; done
cd $OUT && tar -czf runs.tgz runs && rm -rf runs
