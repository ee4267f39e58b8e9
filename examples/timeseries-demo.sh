#!/usr/bin/env bash
# End-to-end demo: time-series classification with linear dynamical systems (JMLR 2004, section 8.3).
#   1. 20 random 5-regime SLDSs (2-D state and observations), 10 per class, each sampled 5 times
#      for 25 steps: 100 sequences (examples/make_timeseries.py, seeded; docs/time-series.md);
#   2. ppk fit lds --state-dim 2 and ppk fit slds --state-dim 2 at their defaults (the priors on
#      cov0, Q and R chosen on the file), and at --prior-strength 0 (maximum likelihood, the old
#      default) for comparison;
#   3. leave-one-out errors (ppk select -v n: one ppk_norm Gram per rho and T, svm-train -v 100's
#      numbers), best over rho in {0.1, 0.25, 0.5, 1}, T in {5, 10, 24}, C in {1, 10, 100};
#   4. LIBSVM's RBF kernel on the flattened series (50 values each), best over gamma in
#      {0.001, 0.003, 0.01, 0.03, 0.1, 0.3} and C in {1, 10, 100, 1000}.
# The paper's figures (its own random SLDSs, not these): RBF .34, LDS kernel .28, SLDS kernel .25.
# Usage: examples/timeseries-demo.sh BUILD_DIR [SEED]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.bash"
demo_setup "${1:-}" demo-timeseries
seed=${2:-1}

python3 "$here/make_timeseries.py" --seed "$seed" > series.txt
python3 "$here/make_timeseries.py" --seed "$seed" --flat > flat.txt
count=$(wc -l < flat.txt)

loo_error() {  # svm-train options... -> leave-one-out error
  "$bin/svm-train" -q -v "$count" "$@" | sed -n 's/^Cross Validation Accuracy = \([0-9.]*\)%.*/\1/p' |
    awk '{ printf "%.2f", 1 - $1 / 100 }'
}

# best_of LINES: the line "error settings" of the smallest error (the first of equals).
best_of() { sort -s -n -k1,1 | head -n 1; }

rbf() {
  local g c
  for g in 0.001 0.003 0.01 0.03 0.1 0.3; do
    for c in 1 10 100 1000; do echo "$(loo_error -t 2 -g "$g" -c "$c" flat.txt) gamma=$g C=$c"; done
  done | best_of
}

ppk_kernel() {  # ROWS -> best "error rho=.. T=.. C=.." by ppk select: one ppk_norm Gram per rho and T
  "$bin/ppk" select -q -v n -t ppk_norm -g 0.1,0.25,0.5,1 -d 5,10,24 -c 1,10,100 "$1" 2> /dev/null | tail -n 1 |
    sed -n 's/^best: -t ppk_norm -g \([^ ]*\) -d \([^ ]*\) -c \([^:]*\): Cross Validation Accuracy = \([0-9.]*\)%$/\4 \1 \2 \3/p' |
    awk '{ printf "%.2f rho=%s T=%s C=%s\n", 1 - $1 / 100, $2, $3, $4 }'
}

"$bin/ppk" fit lds --state-dim 2 series.txt -o lds.ppk 2> lds.choices
"$bin/ppk" fit lds --state-dim 2 --prior-strength 0 series.txt -o lds-ml.ppk
"$bin/ppk" fit slds --state-dim 2 series.txt -o slds.ppk 2> slds.choices
"$bin/ppk" fit slds --state-dim 2 --prior-strength 0 series.txt -o slds-ml.ppk

echo
echo "JMLR 2004 section 8.3 regenerated (seed $seed): $count sequences of 25 2-D steps, 20 random 5-regime SLDSs"
echo "leave-one-out error, best over the grids above; the paper's figure beside"
sed -n 's/^ppk fit lds: \(prior-[a-z-]*\) = \([0-9.e-]*\),.*/  lds prior: \1 = \2/p' lds.choices
printf '%-52s %6s %6s  %s\n' kernel error paper "best settings"
row() { printf '%-52s %6s %6s  %s\n' "$1" "${2%% *}" "$3" "${2#* }"; }
row "LIBSVM RBF on the flattened series" "$(rbf)" .34
row "ppk_norm LDS, ppk fit lds defaults (priors chosen)" "$(ppk_kernel lds.ppk)" .28
row "ppk_norm SLDS, ppk fit slds defaults (priors chosen)" "$(ppk_kernel slds.ppk)" .25
row "ppk_norm LDS, --prior-strength 0 (maximum likelihood)" "$(ppk_kernel lds-ml.ppk)" ""
row "ppk_norm SLDS, --prior-strength 0 (maximum likelihood)" "$(ppk_kernel slds-ml.ppk)" ""
