#!/usr/bin/env bash
# `ppk gram --format precomputed` feeds LIBSVM's precomputed-kernel type: svm-train -t 4 on the
# Gram of the training rows, and svm-predict on the test rows' kernel values against the training
# rows, give the predictions and decision values of svm-train -t 5 / -t 6 on the rows themselves.
#
#   precomputed_gram.sh PPK SVM_TRAIN SVM_PREDICT DECISION_VALUES
source "$(dirname "$0")/common.sh"
(($# == 4)) || fail "usage: $0 PPK SVM_TRAIN SVM_PREDICT DECISION_VALUES"
ppk=$1 svm_train=$2 svm_predict=$3 decision_values=$4

# Three classes of 2-D points around (1, 1), (-1, -1) and (1, -1), and 3-point sets (qid groups)
# fitted as full-covariance Gaussians: 45 training and 30 test examples.
awk 'BEGIN {
  srand(2024)
  for (i = 0; i < 75; i++) {
    y = i % 3; cx = (y == 1) ? -1 : 1; cy = (y == 0) ? 1 : -1
    for (k = 0; k < 3; k++)
      printf "%d qid:%d 1:%.6f 2:%.6f\n", y, i + 1, cx + 1.5 * (rand() - 0.5) * 2, cy + 1.5 * (rand() - 0.5) * 2
  }
}' >sets
head -n 135 sets >train.txt
tail -n 90 sets >test.txt
"$ppk" fit gaussian --ridge 0.1 train.txt -o train.ppk
"$ppk" fit gaussian --ridge 0.1 test.txt -o test.ppk

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

for kernel in ppk ppk_norm; do
  for rho in 0.5 1; do
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
  done
done
