#!/usr/bin/env bash
# LIBSVM's own tools/grid.py searches (C, rho) for -t ppk (its -log2g grid is rho = 2^g) with the
# patched svm-train, and finishes with a best pair: every grid point's rate is svm-train -v 5's at
# that (C, rho), and the best pair has the largest of them.
#
#   grid_search.sh GRID_PY SVM_TRAIN PPK
source "$(dirname "$0")/common.sh"
(($# == 3)) || fail "usage: $0 GRID_PY SVM_TRAIN PPK"
grid_py=$1 svm_train=$2 ppk=$3

gaussian_sets 45 5151 >sets
"$ppk" fit gaussian --cov diag sets -o train.ppk

/usr/bin/python3 "$grid_py" -svmtrain "$svm_train" -gnuplot null -out grid.out -v 5 \
  -log2c -1,3,2 -log2g -3,1,2 -t ppk train.ppk >grid.log
best=$(tail -n 1 grid.log)   # "C rho rate"
read -r best_c best_rho best_rate <<<"$best"
[[ -n $best_rate ]] || fail "grid.py printed no best pair: $(cat grid.log)"
[[ $(wc -l <grid.out) == 9 ]] || fail "expected 3 x 3 grid points in grid.out: $(cat grid.out)"

# every grid point again, with svm-train -v 5 directly
max_rate=0
rates=()
for log2c in -1 1 3; do
  for log2g in -3 -1 1; do
    c=$(awk -v e=$log2c 'BEGIN { print 2 ^ e }')
    rho=$(awk -v e=$log2g 'BEGIN { print 2 ^ e }')
    rate=$("$svm_train" -v 5 -t ppk -c "$c" -g "$rho" train.ppk |
      sed -n 's/^Cross Validation Accuracy = \(.*\)%$/\1/p')
    grid_rate=$(sed -nE "s/^log2c=$log2c(\.0)? log2g=$log2g(\.0)? rate=(.*)\$/\3/p" grid.out)
    awk -v a="$rate" -v b="$grid_rate" 'BEGIN { exit !(a != "" && a + 0 == b + 0) }' ||
      fail "C = $c, rho = $rho: svm-train -v 5 gives $rate%, grid.py '$grid_rate'"
    rates+=("$rate")
    max_rate=$(awk -v a="$rate" -v b="$max_rate" 'BEGIN { print (a + 0 > b + 0) ? a : b }')
  done
done
awk -v a="$best_rate" -v b="$max_rate" 'BEGIN { exit !(a + 0 == b + 0) }' ||
  fail "grid.py's best rate $best_rate is not the largest, $max_rate"
direct=$("$svm_train" -v 5 -t ppk -c "$best_c" -g "$best_rho" train.ppk |
  sed -n 's/^Cross Validation Accuracy = \(.*\)%$/\1/p')
awk -v a="$best_rate" -v b="$direct" 'BEGIN { exit !(a + 0 == b + 0) }' ||
  fail "at grid.py's best pair C = $best_c, rho = $best_rho, svm-train -v 5 gives $direct%, not $best_rate%"
# rho reaches the kernel: the rates are not all the same
[[ $(printf '%s\n' "${rates[@]}" | sort -u | wc -l) -gt 1 ]] || fail "every grid point has the rate ${rates[0]}%"
pass "grid.py over (C, rho) with -t ppk: best C = $best_c, rho = $best_rho, CV rate $best_rate% (rates ${rates[*]})"
