#!/usr/bin/env bash
# The patched svm-train writes byte-identical model files to the distribution's unmodified
# /usr/bin/svm-train for the built-in kernel types 0-4 (and several svm types, -b 1); so does
# /usr/bin/svm-train running on the patched library; predictions are identical too.
#
#   stock_kernels_identical.sh SVM_TRAIN SVM_PREDICT LIBDIR HEART_SCALE TEST_PLUGIN
source "$(dirname "$0")/common.sh"
(($# == 5)) || fail "usage: $0 SVM_TRAIN SVM_PREDICT LIBDIR HEART_SCALE TEST_PLUGIN"
svm_train=$1 svm_predict=$2 libdir=$3 heart=$4 plugin=$5
require_stock_programs

# -t 4 needs a precomputed kernel file: the linear Gram matrix of heart_scale,
# rows "label 0:i 1:K(i,1) ... l:K(i,l)"
awk '
  { y[NR] = $1; n[NR] = NF - 1
    for (k = 2; k <= NF; k++) { split($k, a, ":"); idx[NR, k - 1] = a[1]; v[NR, a[1]] = a[2] } }
  END {
    for (i = 1; i <= NR; i++) {
      line = y[i] " 0:" i
      for (j = 1; j <= NR; j++) {
        s = 0
        for (k = 1; k <= n[i]; k++) { c = idx[i, k]; if ((j, c) in v) s += v[i, c] * v[j, c] }
        line = line " " j ":" sprintf("%.17g", s)
      }
      print line
    }
  }' "$heart" >heart_precomputed
cp "$heart" heart_scale

cases=(
  "-t 0" "-t 1" "-t 2" "-t 3" "-t 4"
  "-s 1 -t 2" "-s 2 -t 2" "-s 3 -t 2" "-s 4 -t 1" "-t 2 -b 1" "-s 3 -t 0 -b 1" "-t 4 -b 1"
)
n=0
for opts in "${cases[@]}"; do
  n=$((n + 1))
  data=heart_scale
  [[ $opts == *"-t 4"* ]] && data=heart_precomputed
  # shellcheck disable=SC2086
  {
    "$stock_train" -q $opts $data m$n.stock
    LIBSVM_KERNEL_PLUGINS=$plugin "$svm_train" -q $opts $data m$n.patched
    LIBSVM_KERNEL_PLUGINS=$plugin with_lib "$libdir" "$stock_train" -q $opts $data m$n.stock_on_patched
  }
  cmp m$n.stock m$n.patched || fail "svm-train $opts: the patched svm-train writes a different model"
  cmp m$n.stock m$n.stock_on_patched || fail "svm-train $opts: /usr/bin/svm-train on the patched library writes a different model"

  b=0
  [[ $opts == *"-b 1"* ]] && b=1
  "$stock_predict" -b $b $data m$n.stock p$n.stock >/dev/null
  "$svm_predict" -b $b $data m$n.stock p$n.patched >/dev/null
  cmp p$n.stock p$n.patched || fail "svm-predict -b $b with the model of $opts: different predictions"
  pass "svm-train $opts: identical model file and predictions"
done
