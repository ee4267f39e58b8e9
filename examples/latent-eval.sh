#!/usr/bin/env bash
# Latent-model kernels compared on sequences, cross-validated (issue 24, item 6).
#   DATA=words (default): real data we did not generate: which language is a word from? Words of
#     English, German, French and Italian from Debian's word lists (examples/word_languages.py: 300
#     per language, 6-15 letters, accents kept, 39 symbols).
#   DATA=sequences-demo: the sequences demo's synthetic DNA-like sequences (examples/make_sequences.py
#     --seed 1 --n 800: two classes with one composition, told apart by how long the HMM stays in a
#     state; 50-500 bases over ACGT).
#
# Methods: HMMs fitted per sequence (2 and 3 states) and the 1-state HMM (the composition); HMMs
# adapted from one pooled HMM (3 and 8 states, TAU 4 and 16), all under ppk_norm; the pooled HMM's
# Fisher scores under the linear kernel; LIBSVM's linear and RBF kernels on the square-root
# composition and on 1-2-mer frequencies.
#
# Protocol: 5-fold cross-validation over seeded, stratified folds (examples/cv_folds.py). For
# each fold, a method fits its models on the training part (saving whatever it decides there) and
# applies them to the test part; LIBSVM trains on the training rows and predicts the test rows.
# A table row is the best mean test accuracy over the folds among the points of the method's
# stated grid (the first of equals in grid order), that point, the lowest and highest fold
# accuracy at it, and the seconds the method took (fits, and every grid point on every fold).
# Best over the grid on the test folds is optimistic for every method alike: it compares what
# each kernel can reach, not an unbiased estimate of its accuracy.
#
# A method is one rows_* function (TRAIN TEST TRAIN_ROWS TEST_ROWS: 'LABEL SEQUENCE' lines in,
# LIBSVM rows out) and one kernels_* function (one line of kernel options per grid point, each
# tried with every C); a new method is one more rows_* function and one more `evaluate` line.
#
# Usage: [DATA=words|sequences-demo] [ONLY=REGEX] examples/latent-eval.sh BUILD_DIR
#   ONLY: run only the methods whose names match REGEX (e.g. ONLY=Fisher), on the same folds;
#   their grid points are added to grid.tsv
#   (works in BUILD_DIR/latent-eval-DATA; docs/latent-models.md has the tables and the times)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.bash"
data=${DATA:-words}
only=${ONLY:-}
demo_setup "${1:-}" "latent-eval-$data"

folds=5
seed=1
c_grid=(0.5 2 8 32 128)                           # C = 2^-1, 2^1, .. 2^7
linear_c_grid=(0.0078125 0.03125 0.125 "${c_grid[@]}")  # linear kernels: C = 2^-7, 2^-5, .. 2^7
rho_grid=(0.5 1)                                  # ppk_norm -g: Bhattacharyya, expected likelihood
length_grid=(3 5 9)                               # ppk_norm -d T: the kernel compares x_0..x_T
gamma_grid=(0.0625 0.25 1 4 16)                   # RBF -g = 2^-4, 2^-2, .. 2^4

# ---- the methods' rows ----------------------------------------------------------------------

# rows_hmm STATES TRAIN TEST TRAIN_ROWS TEST_ROWS: one HMM with STATES states fitted to each sequence
# by Baum-Welch (ppk fit hmm's defaults: pseudo-count 0.1, 3 restarts, at most 400 iterations).
# STATES = 1 is the sequence's smoothed symbol composition.
rows_hmm() {
  local states=$1
  "$bin/ppk" fit hmm --states "$states" --format lines --alphabet-from alphabet.txt --seed "$seed" \
    --save-pooled "$4.pool" "$2" -o "$4"
  "$bin/ppk" fit hmm --states "$states" --format lines --alphabet-from alphabet.txt --seed "$seed" \
    --pooled-from "$4.pool" "$3" -o "$5"
}

# rows_adapted_hmm STATES TAU TRAIN TEST TRAIN_ROWS TEST_ROWS: one HMM with STATES states fitted to
# all training sequences at once (ppk fit hmm --pooled: Baum-Welch over every sequence, 3 restarts),
# then every training and every test sequence fitted by MAP adaptation of that pooled model
# (--adapt-from, --relevance TAU: Dirichlet priors centred on the pooled start, transition and
# emission probabilities, TAU pseudo-observations strong; all of them adapt).
rows_adapted_hmm() {
  local states=$1 relevance=$2
  "$bin/ppk" fit hmm --pooled --states "$states" --format lines --alphabet-from alphabet.txt --seed "$seed" \
    --save-pooled "$5.pool" "$3" -o "$5.pooled"
  "$bin/ppk" fit hmm --adapt-from "$5.pool" --relevance "$relevance" --format lines --alphabet-from alphabet.txt \
    "$3" -o "$5"
  "$bin/ppk" fit hmm --adapt-from "$5.pool" --relevance "$relevance" --format lines --alphabet-from alphabet.txt \
    "$4" -o "$6"
}

# rows_fisher STATES TRAIN TEST TRAIN_ROWS TEST_ROWS: the Fisher scores (Jaakkola & Haussler 1999) of
# every training and test sequence under one HMM with STATES states fitted to all training
# sequences (ppk fit hmm --pooled, as above; --fisher-from): the gradient of log p(x | theta) in the
# start, transition and emission logits, divided by the sequence's length, each feature scaled by the
# square root of its mean square over the training sequences (the empirical Fisher information's
# diagonal, kept in the pool file), for LIBSVM's linear kernel: the Fisher kernel. (Each feature's
# mean square is 1, so a row's squared length is about the number of features, 129 for 3 states:
# the linear kernels' C grid reaches down to 2^-7, and the RBF grid would need gamma near 1/129.)
rows_fisher() {
  local states=$1
  "$bin/ppk" fit hmm --pooled --states "$states" --format lines --alphabet-from alphabet.txt --seed "$seed" \
    --save-pooled "$4.pool" "$2" -o "$4.pooled"
  "$bin/ppk" fit hmm --fisher-from "$4.pool" --format lines --alphabet-from alphabet.txt "$2" -o "$4"
  "$bin/ppk" fit hmm --fisher-from "$4.pool" --format lines --alphabet-from alphabet.txt "$3" -o "$5"
}

# rows_spectrum K [--sqrt] TRAIN TEST TRAIN_ROWS TEST_ROWS: the relative frequencies of the sequence's
# 1-mers .. K-mers (examples/kmer_counts.py), or their square roots.
rows_spectrum() {
  local options=("${@:1:$# - 4}") files=("${@: -4}")
  python3 "$here/kmer_counts.py" --alphabet-from alphabet.txt --k "${options[@]}" "${files[0]}" > "${files[2]}"
  python3 "$here/kmer_counts.py" --alphabet-from alphabet.txt --k "${options[@]}" "${files[1]}" > "${files[3]}"
}

# ---- the grids: one line of kernel options per point; C is searched at every point ---------

kernels_ppk_norm() {
  local rho length
  for rho in "${rho_grid[@]}"; do
    for length in "${length_grid[@]}"; do echo "-t ppk_norm -g $rho -d $length"; done
  done
}

kernels_linear() {
  echo "-t 0"
}

kernels_rbf() {
  local gamma
  for gamma in "${gamma_grid[@]}"; do echo "-t 2 -g $gamma"; done
}

# ---- the harness ----------------------------------------------------------------------------

# kernel_files KERNEL ROWS: writes every fold's training and test files for the kernel options
# KERNEL into kernel/, and prints the svm-train options that go with them. A ppk kernel is
# computed once per fold by `ppk gram` as LIBSVM precomputed-kernel rows (svm-train -t 4), so
# that the C grid does not recompute it; LIBSVM's own kernels take the rows as they are.
kernel_files() {
  local kernel=$1 rows=$2 fold
  rm -rf kernel
  mkdir kernel
  for ((fold = 1; fold <= folds; fold++)); do
    if [[ $kernel == "-t ppk"* ]]; then
      # shellcheck disable=SC2086  # KERNEL is a list of options
      "$bin/ppk" gram $kernel --format precomputed "$rows/fold$fold.train" -o "kernel/fold$fold.train"
      # shellcheck disable=SC2086
      "$bin/ppk" gram $kernel --format precomputed "$rows/fold$fold.test" "$rows/fold$fold.train" \
        -o "kernel/fold$fold.test"
    else
      ln -s "../$rows/fold$fold.train" "../$rows/fold$fold.test" kernel/
    fi
  done
  if [[ $kernel == "-t ppk"* ]]; then echo "-t 4"; else echo "$kernel"; fi
}

# fold_accuracy OPTIONS FOLD: the test accuracy (%) of fold FOLD's kernel files with svm-train
# OPTIONS.
fold_accuracy() {
  local options=$1 fold=$2
  # shellcheck disable=SC2086  # OPTIONS is a list of options
  "$bin/svm-train" -q $options "kernel/fold$fold.train" kernel/model
  "$bin/svm-predict" "kernel/fold$fold.test" kernel/model kernel/predictions |
    sed -n 's/^Accuracy = \([0-9.]*\)%.*/\1/p'
}

# evaluate NAME KERNELS ROWS_COMMAND...: (only when NAME matches the extended regular expression
# $ONLY, if given) makes every fold's rows with ROWS_COMMAND (once per
# command: rows/ keeps them), runs every point of kernels_KERNELS with every C on every fold,
# adds each point's mean, lowest and highest fold accuracy to grid.tsv and prints the table row.
evaluate() {
  local name=$1 kernels=$2
  shift 2
  [[ $name =~ $only ]] || return 0
  local start=$SECONDS rows fold kernel options c accuracies mean lowest highest
  local best=-1 best_point="" best_lowest="" best_highest=""
  rows=rows/$(echo "$*" | tr -c 'A-Za-z0-9-' _)
  if [[ ! -d $rows ]]; then
    mkdir -p "$rows.partial"
    for ((fold = 1; fold <= folds; fold++)); do
      "$@" "folds/fold$fold/train.txt" "folds/fold$fold/test.txt" "$rows.partial/fold$fold.train" \
        "$rows.partial/fold$fold.test"
    done
    mv "$rows.partial" "$rows"
  fi
  local c_values=("${c_grid[@]}")
  [[ $kernels != linear ]] || c_values=("${linear_c_grid[@]}")
  while read -r kernel; do
    options=$(kernel_files "$kernel" "$rows")
    for c in "${c_values[@]}"; do
      accuracies=()
      for ((fold = 1; fold <= folds; fold++)); do accuracies+=("$(fold_accuracy "$options -c $c" "$fold")"); done
      read -r mean lowest highest < <(printf '%s\n' "${accuracies[@]}" |
        awk '{ s += $1; if (NR == 1 || $1 < lo) lo = $1; if ($1 > hi) hi = $1 } END { printf "%.2f %.2f %.2f\n", s / NR, lo, hi }')
      printf '%s\t%s\t%s\t%s\t%s\n' "$name" "$kernel -c $c" "$mean" "$lowest" "$highest" >> grid.tsv
      if greater "$mean" "$best"; then
        best=$mean best_point="$kernel -c $c" best_lowest=$lowest best_highest=$highest
      fi
    done
  done < <("kernels_$kernels")
  printf '| %-44s | %6s%% | %5s-%5s%% | %-30s | %7d |\n' "$name" "$best" "$best_lowest" "$best_highest" \
    "$best_point" $((SECONDS - start))
}

# ---- the data: each writes data.txt ('LABEL SEQUENCE' lines) and alphabet.txt ----------------

data_words() {
  python3 "$here/word_languages.py" --seed "$seed" --alphabet alphabet.txt -o data.txt
  description="Language of a word: $(wc -l < data.txt) words of 6-15 letters, 4 classes"
}

data_sequences-demo() {
  python3 "$here/make_sequences.py" --seed 1 --n 800 > data.txt
  echo ACGT > alphabet.txt
  description="The sequences demo: $(wc -l < data.txt) DNA-like sequences of 50-500 bases, 2 classes"
}

[[ $(type -t "data_$data") == function ]] || { echo "DATA=$data: expected words or sequences-demo" >&2; exit 2; }
"data_$data"
python3 "$here/cv_folds.py" data.txt folds --folds "$folds" --seed "$seed"
rm -rf rows
[[ -n $only ]] || rm -f grid.tsv

echo
echo "$description, $folds seeded stratified folds;"
echo "best mean test accuracy over the grid: C in {${c_grid[*]}} (linear: {${linear_c_grid[*]}});"
echo "ppk_norm rho in {${rho_grid[*]}}, T in {${length_grid[*]}}; RBF gamma in {${gamma_grid[*]}}"
echo
printf '| %-44s | %7s | %12s | %-30s | %7s |\n' method "mean" "folds" "grid point" seconds
printf '|%s|%s|%s|%s|%s|\n' "$(printf -- '-%.0s' {1..46})" "---------" "--------------" \
  "$(printf -- '-%.0s' {1..32})" "---------"
evaluate "HMM per example, 2 states (ppk_norm)" ppk_norm rows_hmm 2
evaluate "HMM per example, 3 states (ppk_norm)" ppk_norm rows_hmm 3
evaluate "1-state HMM = composition (ppk_norm)" ppk_norm rows_hmm 1
evaluate "adapted HMM, 3 states, TAU 4 (ppk_norm)" ppk_norm rows_adapted_hmm 3 4
evaluate "adapted HMM, 3 states, TAU 16 (ppk_norm)" ppk_norm rows_adapted_hmm 3 16
evaluate "adapted HMM, 8 states, TAU 4 (ppk_norm)" ppk_norm rows_adapted_hmm 8 4
evaluate "adapted HMM, 8 states, TAU 16 (ppk_norm)" ppk_norm rows_adapted_hmm 8 16
evaluate "Fisher scores, 3-state pooled HMM, linear" linear rows_fisher 3
evaluate "Fisher scores, 8-state pooled HMM, linear" linear rows_fisher 8
evaluate "sqrt composition, linear" linear rows_spectrum 1 --sqrt
evaluate "sqrt composition, RBF" rbf rows_spectrum 1 --sqrt
evaluate "1-2-mer frequencies, linear" linear rows_spectrum 2
evaluate "1-2-mer frequencies, RBF" rbf rows_spectrum 2
echo "total: $SECONDS s"
