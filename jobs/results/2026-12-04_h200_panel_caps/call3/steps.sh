# Call 3: larger panel entry caps (DISTSPMV_PANEL_ENTRIES, an experiment at the revision in REVISION) on
# lognormal blocks of one wave of panels (1 M rows, one rank and 4 ranks taking turns) and two
# larger blocks; "auto" first and last (the call's noise).
mkdir -p "$W/runs"
for E in auto 32768 49152 65536 98304 auto2; do
  if [[ $E == auto* ]]; then unset DISTSPMV_PANEL_ENTRIES; else export DISTSPMV_PANEL_ENTRIES=$E; fi
  : >"$W/cases_$E.txt"
  echo "lg1m_$E 1 gen:lognormal:1000000:2.0:1.0:300000 --seed 9 --order none --format panel --vs-cusparse" >>"$W/cases_$E.txt"
  echo "lg1mf_$E 1 gen:lognormal:1000000:2.0:1.0:300000 --seed 9 --order none --format panel --vs-cusparse --precision float" >>"$W/cases_$E.txt"
  case $E in auto|32768|49152|65536|98304|auto2)
    echo "lgr4_$E 4 gen:lognormal:4000000:2.0:1.0:300000 --seed 9 --format panel --vs-cusparse" >>"$W/cases_$E.txt"
    echo "lg4m_$E 1 gen:lognormal:4000000:2.0:1.0:300000 --seed 9 --order none --format panel --vs-cusparse" >>"$W/cases_$E.txt"
    echo "lg2m_$E 1 gen:lognormal:2000000:1.5:1.2:100000 --seed 5 --order none --format panel --vs-cusparse" >>"$W/cases_$E.txt" ;;
  esac
  case $E in auto|65536)
    echo "rmat2216_$E 1 gen:rmat:22:16 --seed 11 --order rcm --format panel --vs-cusparse" >>"$W/cases_$E.txt" ;;
  esac
  OUT=$W RUN_TIMEOUT=120 bash jobs/ab_gpu.sh "$W/cases_$E.txt"
done
unset DISTSPMV_PANEL_ENTRIES
for f in "$W"/runs/*.log; do
  echo "$(basename "$f" .log): $(grep -oE 'panel \[[^]]*\]' "$f" | head -1)" >>"$P"
  grep -E "^  apply|vs cuSPARSE" "$f" | cut -c1-160 >>"$P"
done
