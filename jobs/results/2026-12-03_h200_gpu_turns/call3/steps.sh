# Call 3 (2026-12-03 sixth session): where the adaptive CSR (512 threads, c38b4e0's row blocks)
# stands against cuSPARSE on irregular blocks of 2-16 M nonzeros with values (the rule's boundary,
# 1.5 M, dates from 2026-11-26 runs 33-35), one rank, double: R-MAT and lognormal shapes of the
# 4-rank blocks and around them.
mkdir -p "$W/runs"
OUT=$W TARGETS="distspmv" RUN_TIMEOUT=100 bash jobs/ab_gpu.sh .device-data/cases4.txt  # (cases.txt here)
for f in "$W"/runs/*.log; do
  echo "$(basename "$f" .log): $(grep -oE '^order [a-z]+' "$f")" >>"$P"
  grep -E "^(csr|cusparse|csr-split|panel) " "$f" | cut -c1-140 >>"$P"
done
