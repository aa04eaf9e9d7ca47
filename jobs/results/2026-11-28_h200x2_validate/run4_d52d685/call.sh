# Session 2026-11-28 (3), 2x H200: d52d685 (new: halo sort in parallel, halo setup timed) against e6e11ec (old: halo rows sorted by length), default options, alternated, twice.
cd .device-src && ln -sfn ../.device-deps .device-deps && ln -sfn ../.device-data .device-data
export DISTSPMV_GIT_REVISION=$(cat .device-data/REVISION)
P=$OUT/progress.txt; R=$OUT/runs; mkdir -p $R
export NCCL_NVLS_ENABLE=0 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p /opt/metis && for f in .device-deps/*.deb; do dpkg -x "$f" /opt/metis; done
conf() { cmake -S $1 -B $2 -G Ninja -DCMAKE_BUILD_TYPE=Release -DDISTSPMV_ENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DMETIS_ROOT=/opt/metis/usr > $OUT/conf_$3.log 2>&1; }
(conf . build-gpu new && cmake --build build-gpu -j 20 --target distspmv > $OUT/build_new.log 2>&1; echo "new rc $?" >> $P) &
(DISTSPMV_GIT_REVISION=e6e11ec conf ../.device-old ../build-old old && cmake --build ../build-old -j 12 --target distspmv > $OUT/build_old.log 2>&1; echo "old rc $?" >> $P) &
wait; echo "built $(date +%T)" >> $P
pack() { (cd $OUT && tar -czf runs.tgz runs); }
NEW=build-gpu/apps/distspmv OLD=../build-old/apps/distspmv
run() { local name=$1 n=$2 b=$3; shift 3; echo "$name $(date +%T)" >> $P
  timeout 100 mpirun --allow-run-as-root --oversubscribe --bind-to none -np $n -x NCCL_NVLS_ENABLE $b "$@" --check --json $R/$name.json > $R/$name.log 2>&1; echo "  rc $?" >> $P
  grep -E "^setup|build includes|^memory|^order|^    [0-3] |local SpMV|halo exchange|  apply  |vs cuSPARSE|check:" $R/$name.log | cut -c1-330 >> $P; pack; }
for i in 1 2; do
run rmat2216_g2_new$i 2 $NEW gen:rmat:22:16 --seed 11 --vs-cusparse
run rmat2216_g2_old$i 2 $OLD gen:rmat:22:16 --seed 11 --vs-cusparse
run rmat228_g2_new$i 2 $NEW gen:rmat:22:8 --seed 5 --vs-cusparse
run rmat228_g2_old$i 2 $OLD gen:rmat:22:8 --seed 5 --vs-cusparse
done
run rmat2216_g1_new 1 $NEW gen:rmat:22:16 --seed 11
run lognormal_g2_new 2 $NEW gen:lognormal:4000000:2.0:1.0:300000 --seed 9
echo "done $(date +%T)" >> $P
