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

greater() {  # A B -> success if the number A > B
  awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > b) }'
}

# best_c TRAIN OPTIONS...: "C accuracy" for the C in $grid of the best 5-fold cross-validation
# accuracy on TRAIN (the first of equals).
best_c() {
  local train=$1
  shift
  local best_c="" best=-1 acc c
  for c in "${grid[@]}"; do
    acc=$(cv_accuracy "$@" -c "$c" "$train")
    if greater "$acc" "$best"; then best=$acc; best_c=$c; fi
  done
  echo "$best_c $best"
}

# report NAME TRAIN TEST C CV_ACCURACY OPTIONS...: trains on TRAIN with C, predicts TEST, and
# prints one line of the results table.
report() {
  local name=$1 train=$2 test=$3 c=$4 cv=$5
  shift 5
  "$bin/svm-train" -q "$@" -c "$c" "$train" "${name//\//_}.model"
  local result
  result=$("$bin/svm-predict" "$test" "${name//\//_}.model" "${name//\//_}.out" | sed -n 's/^Accuracy = \([0-9.]*%\).*/\1/p')
  printf '%-44s %8s %10s %14s\n' "$name" "$c" "$cv%" "$result"
}

# evaluate NAME TRAIN TEST OPTIONS...: picks C from $grid by 5-fold cross-validation on TRAIN,
# trains with it, predicts TEST, and prints one line of the results table.
evaluate() {
  local name=$1 train=$2 test=$3
  shift 3
  local c cv
  read -r c cv < <(best_c "$train" "$@")
  report "$name" "$train" "$test" "$c" "$cv" "$@"
}

# evaluate_selected NAME TRAIN TEST SELECT_OPTIONS...: for model rows, the settings (C from $grid,
# and whatever lists SELECT_OPTIONS give: -t, -g, -d) chosen by ppk select's 5-fold cross-validation
# on TRAIN (svm-train -v 5's accuracies, each kernel matrix computed once), the best trained on TRAIN
# (-o), TEST predicted; prints one line of the results table, NAME followed by the chosen -t/-g/-d
# when SELECT_OPTIONS list more than one of them.
evaluate_selected() {
  local name=$1 train=$2 test=$3
  shift 3
  local model="${name//[^A-Za-z0-9]/_}.model" best options c cv result
  best=$("$bin/ppk" select -q -v 5 -c "$(IFS=,; echo "${grid[*]}")" "$@" -o "$model" "$train" | tail -n 1)
  options=$(sed -n 's/^best: \(.*\) -c [^:]*: .*/\1/p' <<<"$best")
  c=$(sed -n 's/^best: .* -c \([^:]*\): .*/\1/p' <<<"$best")
  cv=$(sed -n 's/.*Accuracy = \([0-9.]*\)%$/\1/p' <<<"$best")
  [[ "$*" == *,* ]] && name="$name: $options"
  result=$("$bin/svm-predict" "$test" "$model" "${model%.model}.out" | sed -n 's/^Accuracy = \([0-9.]*%\).*/\1/p')
  printf '%-44s %8s %10s %14s\n' "$name" "$c" "$cv%" "$result"
}
