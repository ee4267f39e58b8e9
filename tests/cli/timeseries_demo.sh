#!/usr/bin/env bash
# The time-series demo (examples/timeseries-demo.sh, JMLR 2004 section 8.3 regenerated) at a reduced
# kernel grid, data seed 1: with ppk fit lds and ppk fit slds at their DEFAULT options (the priors on
# cov0, Q and R chosen on the file), the leave-one-out errors of the ppk_norm LDS and SLDS kernels
# (best over rho in {0.1, 0.25}, T in {5, 10}, C in {10, 100}) are each at least 0.03 below that of
# LIBSVM's RBF kernel on the flattened series at its best over gamma and C; the chosen prior is
# printed, and --save-pooled / --pooled-from carry it unchanged.
source "$(dirname "$0")/lib.bash" "$@"
examples=$(cd "$(dirname "$0")/../../examples" && pwd)
bin=$(dirname "$PPK")

python3 "$examples/make_timeseries.py" --seed 1 > series.txt
python3 "$examples/make_timeseries.py" --seed 1 --flat > flat.txt
[[ $(wc -l < flat.txt) == 100 && $(wc -l < series.txt) == 2500 ]] || fail "expected 100 sequences of 25 steps"
pass

loo_error() {
  "$bin/svm-train" -q -v 100 "$@" | sed -n 's/^Cross Validation Accuracy = \([0-9.]*\)%.*/\1/p' | awk '{ print 1 - $1 / 100 }'
}
rbf=$(for g in 0.001 0.003 0.01 0.03 0.1 0.3; do for c in 1 10 100 1000; do loo_error -t 2 -g $g -c $c flat.txt; done; done |
  sort -g | head -n 1)
kernel_error() {
  local rho t c
  for rho in 0.1 0.25; do
    for t in 5 10; do
      "$PPK" gram -t ppk_norm -g $rho -d $t --format precomputed "$1" -o gram.txt 2> /dev/null
      for c in 10 100; do loo_error -t 4 -c $c gram.txt; done
    done
  done | sort -g | head -n 1
}

"$PPK" fit lds --state-dim 2 series.txt -o lds.ppk --save-pooled lds.pool 2> choices.txt
grep -q '^ppk fit lds: prior-strength = ' choices.txt || fail "the chosen strength is not printed: $(cat choices.txt)"
pass
lds=$(kernel_error lds.ppk)
awk -v k="$lds" -v r="$rbf" 'BEGIN { exit !(k <= r - 0.03) }' || fail "LDS kernel error $lds, RBF $rbf: expected <= RBF - 0.03"
pass

"$PPK" fit slds --state-dim 2 series.txt -o slds.ppk 2> /dev/null
slds=$(kernel_error slds.ppk)
awk -v k="$slds" -v r="$rbf" 'BEGIN { exit !(k <= r - 0.03) }' || fail "SLDS kernel error $slds, RBF $rbf: expected <= RBF - 0.03"
pass

# The pool file carries the chosen prior: refitting the training file from it gives the same rows.
"$PPK" fit lds --state-dim 2 series.txt -o again.ppk --pooled-from lds.pool 2> again.txt
cmp -s lds.ppk again.ppk || fail "--pooled-from did not reproduce the rows"
grep -qF 'read from lds.pool' again.txt || fail "the reused prior is not reported: $(cat again.txt)"
pass
echo "RBF $rbf, LDS $lds, SLDS $slds"
finish
