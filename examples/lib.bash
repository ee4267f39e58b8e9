# Shared by the demos (sourced): C chosen by cross-validation, then the test accuracy.
# Needs $bin (the build's bin/) and the array `grid` of C values.

cv_accuracy() {  # options... training-file -> cross-validation accuracy (%)
  "$bin/svm-train" -q -v 5 "$@" | sed -n 's/^Cross Validation Accuracy = \([0-9.]*\)%.*/\1/p'
}

# evaluate NAME TRAIN TEST OPTIONS...: picks C from $grid by 5-fold cross-validation on TRAIN,
# trains with it, predicts TEST, and prints one line of the results table.
evaluate() {
  local name=$1 train=$2 test=$3
  shift 3
  local best_c="" best=-1 acc c
  for c in "${grid[@]}"; do
    acc=$(cv_accuracy "$@" -c "$c" "$train")
    if awk -v a="$acc" -v b="$best" 'BEGIN { exit !(a > b) }'; then best=$acc; best_c=$c; fi
  done
  "$bin/svm-train" -q "$@" -c "$best_c" "$train" "$name.model"
  local result
  result=$("$bin/svm-predict" "$test" "$name.model" "$name.out" | sed -n 's/^Accuracy = \([0-9.]*%\).*/\1/p')
  printf '%-44s %8s %10s %14s\n' "$name" "$best_c" "$best%" "$result"
}
