# Shared by the demos (sourced): their working directory, and C chosen by cross-validation, then
# the test accuracy.

# demo_setup BUILD_DIR NAME: works in BUILD_DIR/NAME with the build's programs ($bin), every
# core for LIBSVM's OpenMP loops unless OMP_NUM_THREADS says otherwise, and the grid of C values.
demo_setup() {
  [[ -n $1 ]] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
  build=$(cd "$1" && pwd)
  bin="$build/bin"
  mkdir -p "$build/$2"
  cd "$build/$2"
  export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(nproc)}
  grid=(0.1 1 10 100 1000)
}

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
