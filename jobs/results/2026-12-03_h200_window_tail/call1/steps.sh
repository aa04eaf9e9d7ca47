ab() { OUT=$W TARGETS="distspmv" RUN_TIMEOUT=120 bash jobs/ab_gpu.sh "$1"; }
ab /dev/null
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
echo "ncu: ${NCU:-none} $($NCU --version | tail -1) $(date +%T)" >>"$P"
# prof NAME KERNEL_REGEX ARGS...: one launch under --set full, then its details and its SASS with stall samples.
prof() {
  local name=$1 k=$2; shift 2
  timeout 200 "$NCU" --set full --import-source no -k "regex:$k" -s 2 -c 1 -f -o "$W/$name" \
    build-gpu/apps/distspmv "$@" --cuda-graphs off --iters 3 --warmup 2 >"$W/ncu_$name.log" 2>&1
  echo "  prof $name rc $? $(date +%T)" >>"$P"
  "$NCU" --import "$W/$name.ncu-rep" --page details >"$W/ncu_${name}_details.log" 2>&1
  "$NCU" --import "$W/$name.ncu-rep" --page source --csv --print-source sass >"$OUT/${name}_sass.csv" 2>"$W/ncu_${name}_src.log"
  echo "  source rc $? $(wc -l <"$OUT/${name}_sass.csv") lines" >>"$P"
  cp "$W/$name.ncu-rep" "$OUT/" 2>/dev/null
}
prof slashdot adaptive .device-data/matrices/soc-Slashdot0902.mtx.gz --format csr --order degree
prof uk2007 adaptive .device-data/matrices/uk-2007-05@100000.mtx.gz --format csr
prof logn window gen:lognormal:4000000:2.5:0.8:2000 --format sell-w
prof cage11 ellr .device-data/matrices/cage11.mtx.gz --format ellr
