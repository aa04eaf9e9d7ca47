# Call 5: the order's trial on rank blocks with more formats (DISTSPMV_TRIAL_FORMATS, an experiment
# at the revision in REVISION): R-MAT and the issue's lognormal at 4 and 2 ranks on one GPU, the
# ranks taking turns; default options, with panel, sell-w, csr and csr-split added to the trial
# ("all"), and the trial as it is ("def").
mkdir -p "$W/runs"
case_run() {  # V NAME RANKS ARGS...
  local V=$1; shift
  if [ "$V" = all ]; then export DISTSPMV_TRIAL_FORMATS=panel,sell-w,csr,csr-split; else unset DISTSPMV_TRIAL_FORMATS; fi
  echo "$*" >"$W/case.txt"
  OUT=$W RUN_TIMEOUT=150 bash jobs/ab_gpu.sh "$W/case.txt"
  echo "$1: $(grep -a '^order' "$W/runs/$1_new.log" | grep -oE 'local product timed.*')" >>"$P"
}
case_run all rmatr4_all 4 gen:rmat:22:16 --seed 11 --vs-cusparse
case_run all lgr4_all 4 gen:lognormal:4000000:2.0:1.0:300000 --seed 9 --vs-cusparse
case_run def rmatr4_def 4 gen:rmat:22:16 --seed 11 --vs-cusparse
case_run def lgr4_def 4 gen:lognormal:4000000:2.0:1.0:300000 --seed 9 --vs-cusparse
case_run all rmatr2_all 2 gen:rmat:22:16 --seed 11 --vs-cusparse
case_run all lgr2_all 2 gen:lognormal:4000000:2.0:1.0:300000 --seed 9 --vs-cusparse
unset DISTSPMV_TRIAL_FORMATS
