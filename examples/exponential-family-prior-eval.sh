#!/usr/bin/env bash
# Measures the pooled priors of `ppk fit poisson|exponential|gamma` (--estimator map --prior pooled,
# the strength chosen by maximum evidence on the training file and reused for the test file with
# --pooled-from) against maximum likelihood (the default) and the fixed map prior, for the
# Bhattacharyya kernel (ppk -g 0.5: defined for every gamma pair, unlike rho = 1 with shapes below
# 1/2; kernel warnings go to kernel-*.log), with LIBSVM's RBF kernel on well-chosen features as the baseline (C, and gamma over
# {0.01, 0.1, 1, 10}, by 5-fold cross-validation on the training part; then test accuracy).
# docs/priors-by-evidence.md has the measured tables. Data no one here made:
#   wine: UCI wine from Debian's python3-sklearn (wine_data.csv; examples/positive_data.py wine):
#     one vector of 13 positive measurements per wine; exponential and gamma rows. RBF on the
#     standardised measurements.
#   digits: the 8x8 digits of python3-sklearn (digits.csv.gz) as sets of ink-pixel coordinates + 1
#     (examples/digit_point_sets.py, then positive_data.py shift), all points and 5 per set;
#     exponential and gamma rows per coordinate. RBF on the 64 pixels.
#   fortunes: Debian's fortunes (examples/fortunes_documents.py), 1,500 training and 1,500 test
#     documents, counts of the 200 words most frequent in training; Poisson rows. RBF on the tf-idf
#     rows over the full vocabulary.
# Usage: examples/exponential-family-prior-eval.sh BUILD_DIR SKLEARN_DATA_DIR [DATA...]
#   DATA: any of wine digits fortunes (default all three). GAMMA_COUNTS: the fixed strengths N0 of
#   the gamma pooled prior also measured (default "0.1 1 10").
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.bash"
demo_setup "${1:-}" exponential-family-prior-eval
sklearn=$(cd "${2:?usage: $0 BUILD_DIR SKLEARN_DATA_DIR [DATA...]}" && pwd)
shift 2
datasets=("${@:-wine digits fortunes}")
# shellcheck disable=SC2206
datasets=(${datasets[*]})

# fit_and_evaluate FAMILY NAME FIT-OPTIONS...: training rows (saving the pool) and test rows (reusing
# it), then both kernels; a fit that fails is reported with its message.
fit_and_evaluate() {
  local family=$1 name=$2
  shift 2
  if ! "$bin/ppk" fit "$family" "$@" train.txt --save-pooled "pool-$name.json" -o "train-$name.ppk" 2> "fit-$name.log" ||
    ! "$bin/ppk" fit "$family" "$@" test.txt --pooled-from "pool-$name.json" -o "test-$name.ppk" 2>> "fit-$name.log"; then
    echo "  $family $name: $(grep -v '^ppk fit .* = ' "fit-$name.log" | tail -1 | cut -c1-110)"
    return 0
  fi
  grep -o '[a-z-]* = [0-9.e+-]*, chosen by maximum evidence ([a-z ]*[0-9.e+-]*' "fit-$name.log" | head -1 | sed 's/^/  /' || true
  evaluate "$family $name ppk rho=0.5" "train-$name.ppk" "test-$name.ppk" -t ppk -g 0.5 2> "kernel-$name.log" ||
    echo "  $family $name: $(tail -1 "kernel-$name.log" | cut -c1-110)"
}

rbf() {  # NAME TRAIN TEST: the RBF baseline, gamma and C by cross-validation
  local best=-1 best_c best_gamma c cv gamma
  for gamma in 0.01 0.1 1 10; do
    read -r c cv < <(best_c "$2" -t 2 -g $gamma)
    if greater "$cv" "$best"; then best=$cv best_c=$c best_gamma=$gamma; fi
  done
  report "LIBSVM RBF on $1, gamma=$best_gamma" "$2" "$3" "$best_c" "$best" -t 2 -g "$best_gamma"
}

positive_families() {
  fit_and_evaluate exponential ml
  fit_and_evaluate exponential pooled --estimator map --prior pooled
  fit_and_evaluate gamma ml
  fit_and_evaluate gamma map-fixed --estimator map
  fit_and_evaluate gamma pooled --estimator map --prior pooled
  local count
  for count in ${GAMMA_COUNTS:-0.1 1 10}; do  # the same prior at fixed strengths
    fit_and_evaluate gamma "pooled-N0=$count" --estimator map --prior pooled --prior-count "$count"
  done
}

header() {
  echo
  echo "== $1: $(cut -d' ' -f2 train.txt | uniq | wc -l) training examples, $(cut -d' ' -f2 test.txt | uniq | wc -l) test"
  printf '%-44s %8s %10s %14s\n' fit/kernel C "CV acc" "test accuracy"
}

top=$PWD
for data in "${datasets[@]}"; do
  case $data in
    wine)
      mkdir -p "$top/wine" && cd "$top/wine"
      python3 "$here/positive_data.py" wine "$sklearn/wine_data.csv"
      header "wine (13 measurements, one vector per wine)"
      positive_families
      rbf "the standardised measurements" train-standardised.txt test-standardised.txt
      ;;
    digits)
      for points in ${POINTS:-0 5}; do
        mkdir -p "$top/digits-$points" && cd "$top/digits-$points"
        python3 "$here/digit_point_sets.py" "$sklearn/digits.csv.gz" --points "$points"
        for part in train test; do python3 "$here/positive_data.py" shift $part.txt $part-shifted.txt; done
        mv train-shifted.txt train.txt && mv test-shifted.txt test.txt
        header "digits as ink-pixel sets (coordinates + 1), $([[ $points == 0 ]] && echo all || echo $points) points per set"
        positive_families
        rbf "the 64 pixels" train-pixels.txt test-pixels.txt
      done
      ;;
    fortunes)
      mkdir -p "$top/fortunes" && cd "$top/fortunes"
      python3 "$here/fortunes_documents.py" --train-size 1500 --test-size 1500 --train all-train.txt \
        --test all-test.txt --tfidf-train tfidf-train.txt --tfidf-test tfidf-test.txt
      python3 "$here/positive_data.py" top-words 200 all-train.txt all-test.txt
      header "fortunes, counts of the 200 most frequent words (one vector per document)"
      fit_and_evaluate poisson ml
      fit_and_evaluate poisson pooled --estimator map --prior pooled
      rbf "tf-idf (full vocabulary)" tfidf-train.txt tfidf-test.txt
      ;;
    *) echo "unknown data set '$data' (wine, digits, fortunes)" >&2; exit 2 ;;
  esac
done
