#!/usr/bin/env bash
# The two routes side by side in one run, on documents from examples/make_documents.py (vocabulary
# 3000, one test set of 2,000 documents), at each n of $SIZES (default 10^4, 3*10^4, 10^5, 10^6):
#   kernel SVM:   ppk fit multinomial --alpha 0  +  svm-train -t ppk -g 0.5 -c 1   (skipped once a
#                 run took more than $SVM_LIMIT seconds, default 600: larger n take longer still)
#   feature map:  ppk fit multinomial --alpha 0  +  ppk map (exact)  +  liblinear-train -s 3 -B 1 -c 1
# Each step's wall time and peak memory (GNU time's %e and %M), and the test accuracy of each route.
# One vocabulary and topics (--seed 1); the test documents are drawn with --document-seed 0, the
# training documents in chunks of at most 10^5 with document seeds 1, 2, ... (two at a time). They
# are generated once per n and kept in BUILD_DIR/bench-maps (10^6 documents: 1 GB, about 4 minutes).
# Usage: bench/map_scaling.sh BUILD_DIR
command -v liblinear-train > /dev/null || { echo "liblinear-train is missing: apt-get install liblinear-tools" >&2; exit 1; }
source "$(dirname "$0")/lib.bash" bench-maps BUILD_DIR "$@"
SIZES=${SIZES:-"10000 30000 100000 1000000"}
SVM_LIMIT=${SVM_LIMIT:-600}

step() { awk -v n="$1" '$1 == n { printf "%.2f", $2 }' steps.txt; }
peak() { awk -v n="$1" '$1 == n { printf "%.0f", $3 / 1024 }' steps.txt; }
accuracy() { sed -n 's/^Accuracy = \([0-9.]*\)%.*/\1/p' "$1"; }

scaling_documents 0 test.txt
"$bin/ppk" fit multinomial --dim 3000 --alpha 0 test.txt -o test.ppk

printf '%9s | %8s %8s %8s %8s %7s | %8s %8s %7s | %s\n' n fit map liblinear total accuracy svm-train total \
  accuracy "peak MB (fit, map, liblinear, svm-train)"
svm_skipped=""
for n in $SIZES; do
  scaling_documents "$n" train_$n.txt
  rm -f steps.txt
  timed fit "$bin/ppk" fit multinomial --dim 3000 --alpha 0 train_$n.txt -o train.ppk
  timed map "$bin/ppk" map -t ppk -g 0.5 train.ppk --save-map train.map -o train.features
  "$bin/ppk" map --map-from train.map test.ppk -o test.features
  timed liblinear liblinear-train -q -s 3 -B 1 -c 1 train.features linear.model
  liblinear-predict test.features linear.model predictions.txt > linear.txt
  linear_total=$(awk -v a="$(step fit)" -v b="$(step map)" -v c="$(step liblinear)" 'BEGIN { printf "%.2f", a + b + c }')
  svm="-" svm_total="-" svm_accuracy="-"
  if [[ -z $svm_skipped ]]; then
    timed svm timeout "$SVM_LIMIT" "$bin/svm-train" -q -t ppk -g 0.5 -c 1 train.ppk svm.model || svm_skipped=yes
    if [[ -z $svm_skipped ]]; then
      "$bin/svm-predict" test.ppk svm.model predictions.txt > svm.txt
      svm=$(step svm) svm_accuracy=$(accuracy svm.txt)
      svm_total=$(awk -v a="$(step fit)" -v b="$svm" 'BEGIN { printf "%.2f", a + b }')
    else
      svm="> $SVM_LIMIT"
    fi
  fi
  printf '%9s | %8s %8s %8s %8s %7s | %8s %8s %7s | %s, %s, %s, %s\n' "$n" "$(step fit)" "$(step map)" \
    "$(step liblinear)" "$linear_total" "$(accuracy linear.txt)" "$svm" "$svm_total" "$svm_accuracy" \
    "$(peak fit)" "$(peak map)" "$(peak liblinear)" "$(peak svm)"
done
