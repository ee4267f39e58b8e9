#!/usr/bin/env bash
# How strongly to smooth multinomial document rows, measured on a real corpus: WordNet 3.0's noun
# glosses (Debian package wordnet-base), 20 classes, short documents (examples/wordnet_glosses.py).
# For each smoothing -- --alpha auto (maximum evidence on the training file), maximum likelihood,
# and fixed alpha in {1, 0.1, 0.01, 0.001} -- the Bhattacharyya kernel (svm-train -t ppk -g 0.5)
# with C chosen by 5-fold cross-validation on the training part from the grid, then the held-out
# accuracy; beside LIBSVM's linear and RBF kernels on tf-idf rows (RBF also over gamma).
# The table is the one in docs/documents-smoothing.md.
# Usage: examples/documents-smoothing.sh BUILD_DIR [TRAIN_SIZE TEST_SIZE [C...]]
#   (defaults 8000 3000, C in 0.1 1 10 100 1000; the suite runs a reduced version,
#    tests/cli/documents_smoothing.sh)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.bash"
demo_setup "${1:-}" documents-smoothing
train_size=${2:-8000}
test_size=${3:-3000}
if (($# > 3)); then grid=("${@:4}"); fi

python3 "$here/wordnet_glosses.py" --train-size "$train_size" --test-size "$test_size" \
  --train train.txt --test test.txt --tfidf-train train.tfidf --tfidf-test test.tfidf --vocabulary vocabulary.txt
dim=$(wc -l < vocabulary.txt)

# fit NAME OPTIONS...: train.NAME.ppk and test.NAME.ppk; --alpha auto is chosen on the training
# file only and reused for the test file through the pool file.
fit() {
  local name=$1
  shift
  if [[ $* == *auto* ]]; then
    "$bin/ppk" fit multinomial "$@" --dim "$dim" --save-pooled pool.json train.txt -o "train.$name.ppk"
    "$bin/ppk" fit multinomial --pooled-from pool.json --dim "$dim" test.txt -o "test.$name.ppk"
  else
    "$bin/ppk" fit multinomial "$@" --dim "$dim" train.txt -o "train.$name.ppk"
    "$bin/ppk" fit multinomial "$@" --dim "$dim" test.txt -o "test.$name.ppk"
  fi
}

echo
echo "WordNet noun glosses: $(wc -l < train.txt) training, $(wc -l < test.txt) test documents, vocabulary $dim; C from {${grid[*]}} by 5-fold CV"
printf '%-44s %8s %10s %14s\n' kernel C "CV acc" "test accuracy"
for setting in auto ml 1 0.1 0.01 0.001; do
  case $setting in
    auto) fit auto --alpha auto 2> alpha.txt; options=(--alpha auto) ;;
    ml) fit ml --estimator ml; options=(--estimator ml) ;;
    *) fit "$setting" --alpha "$setting"; options=(--alpha "$setting") ;;
  esac
  evaluate "Bhattacharyya, ${options[*]}" "train.$setting.ppk" "test.$setting.ppk" -t ppk -g 0.5
done
evaluate "LIBSVM linear (-t 0) on tf-idf" train.tfidf test.tfidf -t 0
for gamma in 0.5 1 2; do
  evaluate "LIBSVM RBF (-t 2 -g $gamma) on tf-idf" train.tfidf test.tfidf -t 2 -g "$gamma"
done
echo
sed 's/^ppk fit multinomial: //' alpha.txt
