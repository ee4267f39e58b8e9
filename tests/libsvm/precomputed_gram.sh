#!/usr/bin/env bash
# `ppk gram --format precomputed` feeds LIBSVM's precomputed-kernel type: svm-train -t 4 on the
# Gram of the training rows, and svm-predict on the test rows' kernel values against the training
# rows, give the predictions and decision values of svm-train -t 5 / -t 6 on the rows themselves;
# also when kernel values underflow to subnormal doubles, which LIBSVM's reader refuses and ppk gram
# writes as DBL_MIN (the distribution's svm-train reads the files too, when it is installed). Rows
# with a subnormal field (ppk encode) are written so that svm-train reads them.
#
#   precomputed_gram.sh PPK SVM_TRAIN SVM_PREDICT DECISION_VALUES
source "$(dirname "$0")/common.sh"
(($# == 4)) || fail "usage: $0 PPK SVM_TRAIN SVM_PREDICT DECISION_VALUES"
ppk=$1 svm_train=$2 svm_predict=$3 decision_values=$4

# three_classes SEED SCALE SPREAD RIDGE: three classes of 2-D points around SCALE * (1, 1),
# (-1, -1) and (1, -1), each coordinate within +-SPREAD, in 3-point sets (qid groups) fitted as
# full-covariance Gaussians with --ridge RIDGE: 45 training (train.ppk) and 30 test examples (test.ppk).
three_classes() {
  awk -v seed="$1" -v scale="$2" -v spread="$3" 'BEGIN {
    srand(seed)
    for (i = 0; i < 75; i++) {
      y = i % 3; cx = (y == 1) ? -scale : scale; cy = (y == 0) ? scale : -scale
      for (k = 0; k < 3; k++)
        printf "%d qid:%d 1:%.6f 2:%.6f\n", y, i + 1, cx + spread * (rand() - 0.5) * 2, cy + spread * (rand() - 0.5) * 2
    }
  }' >sets
  head -n 135 sets >train.txt
  tail -n 90 sets >test.txt
  "$ppk" fit gaussian --ridge "$4" train.txt -o train.ppk
  "$ppk" fit gaussian --ridge "$4" test.txt -o test.ppk
}
three_classes 2024 1 1.5 0.1

# decisions FILE: the predictions and decision values of decision_values' output, compared by
# compare_decisions within a relative 1e-9 (the two kernels are the same doubles, but LIBSVM's
# solver sums them in different orders for -t 4 and for a plugin kernel).
compare_decisions() {
  awk 'NR == FNR { a[FNR] = $0; next }
       { n = split(a[FNR], x, " "); m = split($0, y, " ")
         if (n != m || x[1] != y[1]) { print "line " FNR ": " a[FNR] " | " $0; exit 1 }
         for (k = 2; k <= n; k++) {
           d = x[k] - y[k]; if (d < 0) d = -d; s = (x[k] < 0 ? -x[k] : x[k]); if (s < 1) s = 1
           if (d > 1e-9 * s) { print "line " FNR ": " a[FNR] " | " $0; exit 1 } } }
       END { if (NR - FNR != FNR) { print "different line counts"; exit 1 } }' "$1" "$2"
}

# compare_rows_and_gram KERNEL RHO: -t 4 on ppk gram's files decides as -t KERNEL on the rows
# train.ppk and test.ppk (30 test rows).
compare_rows_and_gram() {
  local kernel=$1 rho=$2
  env -u LIBSVM_KERNEL_PLUGINS "$svm_train" -q -t $kernel -g $rho -c 4 train.ppk rows.model
  "$ppk" gram -t $kernel -g $rho --format precomputed train.ppk -o train.k
  "$ppk" gram -t $kernel -g $rho --format precomputed test.ppk train.ppk -o test.k
  "$svm_train" -q -t 4 -c 4 train.k gram.model
  env -u LIBSVM_KERNEL_PLUGINS "$decision_values" rows.model test.ppk >rows.dec
  "$decision_values" gram.model test.k >gram.dec
  [[ $(wc -l <rows.dec) == 30 ]] || fail "$(wc -l <rows.dec) decisions, expected 30"
  compare_decisions rows.dec gram.dec || fail "-t $kernel -g $rho: -t 4 decides differently"
  # the same support vectors: their count per class
  [[ $(grep '^nr_sv' rows.model) == $(grep '^nr_sv' gram.model) ]] || fail "-t $kernel -g $rho: nr_sv differs"
  env -u LIBSVM_KERNEL_PLUGINS "$svm_predict" test.ppk rows.model rows.out >rows.acc
  "$svm_predict" test.k gram.model gram.out >gram.acc
  cmp rows.out gram.out || fail "-t $kernel -g $rho: svm-predict's labels differ"
  cmp rows.acc gram.acc || fail "-t $kernel -g $rho: svm-predict's accuracy differs"
  pass "-t $kernel -g $rho: -t 4 on ppk gram --format precomputed = the rows: $(cat gram.acc)"
}

for kernel in ppk ppk_norm; do
  for rho in 0.5 1; do
    compare_rows_and_gram $kernel $rho
  done
done

# Kernels that underflow: the same three classes with their centres 20 and 28 apart and a spread of
# 0.4, so that kernel values between classes range from normal doubles through subnormal ones (below
# DBL_MIN = 2.2e-308, which strtod reports as out of range and LIBSVM refuses) to 0.
three_classes 2025 10 0.4 0.05
for kernel in ppk ppk_norm; do
  # The case is one: some kernel values are subnormal (their log is in (log 4.9e-324, log 2.2e-308)).
  "$ppk" gram -t $kernel -g 1 --summary test.ppk train.ppk >summary.txt 2>/dev/null
  "$ppk" gram -t $kernel -g 1 test.ppk train.ppk -o test.matrix
  grep -q ' 2.2250738585072014e-308' test.matrix ||
    fail "-t $kernel: no subnormal kernel value was written as DBL_MIN: $(cat summary.txt)"
  compare_rows_and_gram $kernel 1
  if [[ -x $stock_train && -x $stock_predict ]]; then
    # The distribution's programs (no plugins involved with -t 4) read the same files.
    LIBSVM_KERNEL_PLUGINS= "$stock_train" -q -t 4 -c 4 train.k stock.model ||
      fail "-t $kernel: $stock_train refuses ppk gram's file"
    LIBSVM_KERNEL_PLUGINS= "$stock_predict" test.k stock.model stock.out >/dev/null
    cmp stock.out gram.out || fail "-t $kernel: the distribution's svm-predict's labels differ"
    pass "-t $kernel: the distribution's svm-train and svm-predict read the underflowing Gram"
  fi
done

# Rows with a subnormal field: a multinomial with a probability of 1e-320 is written with DBL_MIN,
# and svm-train trains on it.
printf '{"family":"multinomial","p":[1,1e-320,0]}\n{"family":"multinomial","p":[0.5,0.25,0.25]}\n' |
  "$ppk" encode >tiny.ppk
awk '{ $1 = NR - 1; print }' tiny.ppk >tiny_labeled.ppk
grep -q ':2.2250738585072014e-308' tiny_labeled.ppk || fail "the subnormal probability was not written as DBL_MIN: $(cat tiny.ppk)"
env -u LIBSVM_KERNEL_PLUGINS "$svm_train" -q -t ppk -g 0.5 tiny_labeled.ppk tiny.model ||
  fail "svm-train refuses ppk encode's row with a subnormal probability"
pass "ppk encode writes a probability of 1e-320 as DBL_MIN, and svm-train reads it"
