#!/usr/bin/env bash
# How strongly to smooth multinomial document rows, measured on a real corpus: by default WordNet
# 3.0's noun glosses (Debian package wordnet-base), 20 classes, short documents
# (examples/wordnet_glosses.py); with --corpus fortunes, Debian's fortune cookies (package
# fortunes), 29 classes (examples/fortunes_documents.py); with --corpus demo, the documents demo's
# synthetic corpus (examples/make_documents.py, seed 1, 3000 words, 2 classes).
# For each smoothing -- --alpha auto (maximum evidence on the training file) with the uniform and
# the pooled base, maximum likelihood, and fixed alpha in {1, 0.1, 0.01, 0.001} -- the
# Bhattacharyya kernel (svm-train -t ppk -g 0.5) with C chosen by 5-fold cross-validation on the
# training part from the grid, then the held-out accuracy; then the smoothing chosen by cross-validation (the best CV accuracy over all of them);
# beside LIBSVM's linear and RBF kernels on tf-idf rows (not for the demo corpus). For those baselines C is *not* chosen by
# cross-validation (their 5-fold runs take hours on 8,000 documents): every C of a short grid is
# trained once and the best held-out accuracy is shown, which flatters the baselines; with
# --baselines-cv the linear kernel's C is also chosen by 5-fold cross-validation.
# With --norm "SETTINGS" (e.g. "ml auto 0.01") those smoothings are also measured with
# svm-train -t ppk_norm -g 1, C by 5-fold cross-validation.
# The WordNet table is the one in docs/documents-smoothing.md (about 30 minutes on 2 shared cores; the
# --base pooled row needs a build with --base); so are the others, with the options given there.
# Usage: examples/documents-smoothing.sh [--corpus wordnet|fortunes|demo] [--norm "SETTINGS"] [--baselines-cv]
#                                        BUILD_DIR [TRAIN_SIZE TEST_SIZE [C...]]
#   (defaults 8000 3000 for wordnet, 4000 2000 for fortunes, 400 600 for demo; C in 0.1 1 10 100
#    1000; the suite runs a reduced WordNet version, tests/cli/documents_smoothing.sh)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.bash"
corpus=wordnet norm_settings="" baselines_cv=false
while [[ ${1:-} == --* ]]; do
  case $1 in
    --corpus) corpus=$2; shift 2 ;;
    --norm) norm_settings=$2; shift 2 ;;
    --baselines-cv) baselines_cv=true; shift ;;
    *) echo "$0: unknown option $1" >&2; exit 2 ;;
  esac
done
case $corpus in
  wordnet) workdir=documents-smoothing title="WordNet noun glosses" sizes=(8000 3000) ;;
  fortunes) workdir=documents-smoothing-fortunes title="Fortune cookies" sizes=(4000 2000) ;;
  demo) workdir=documents-smoothing-demo title="Synthetic documents (documents demo)" sizes=(400 600) ;;
  *) echo "$0: unknown corpus $corpus (wordnet, fortunes or demo)" >&2; exit 2 ;;
esac
demo_setup "${1:-}" "$workdir"
train_size=${2:-${sizes[0]}}
test_size=${3:-${sizes[1]}}
if (($# > 3)); then grid=("${@:4}"); fi

corpus_options=(--train-size "$train_size" --test-size "$test_size" --train train.txt --test test.txt
  --tfidf-train train.tfidf --tfidf-test test.tfidf --vocabulary vocabulary.txt)
case $corpus in
  wordnet) python3 "$here/wordnet_glosses.py" "${corpus_options[@]}" ;;
  fortunes) python3 "$here/fortunes_documents.py" "${corpus_options[@]}" ;;
  demo)
    python3 "$here/make_documents.py" --seed 1 --vocabulary 3000 --n-train "$train_size" --n-test "$test_size" \
      --train train.txt --test test.txt
    seq 3000 > vocabulary.txt ;;  # the dimension
esac
dim=$(wc -l < vocabulary.txt)

# fit NAME OPTIONS...: train.NAME.ppk and test.NAME.ppk; --alpha auto is chosen on the training
# file only and reused for the test file through the pool file.
fit() {
  local name=$1
  shift
  if [[ $* == *auto* ]]; then
    local base=()
    if [[ $* == *"--base pooled"* ]]; then base=(--base pooled); fi
    "$bin/ppk" fit multinomial "$@" --dim "$dim" --save-pooled "pool.$name.json" train.txt -o "train.$name.ppk"
    "$bin/ppk" fit multinomial "${base[@]}" --pooled-from "pool.$name.json" --dim "$dim" test.txt -o "test.$name.ppk"
  else
    "$bin/ppk" fit multinomial "$@" --dim "$dim" train.txt -o "train.$name.ppk"
    "$bin/ppk" fit multinomial "$@" --dim "$dim" test.txt -o "test.$name.ppk"
  fi
}

echo
echo "$title: $(wc -l < train.txt) training, $(wc -l < test.txt) test documents, vocabulary $dim; C from {${grid[*]}} by 5-fold CV"
printf '%-44s %8s %10s %14s\n' kernel C "CV acc" "test accuracy"
: > table.txt
for setting in auto pooled ml 1 0.1 0.01 0.001; do
  case $setting in
    auto) fit auto --alpha auto 2> alpha.txt; options=(--alpha auto) ;;
    pooled) fit pooled --base pooled --alpha auto 2>> alpha.txt; options=(--base pooled --alpha auto) ;;
    ml) fit ml --estimator ml; options=(--estimator ml) ;;
    *) fit "$setting" --alpha "$setting"; options=(--alpha "$setting") ;;
  esac
  evaluate "Bhattacharyya, ${options[*]}" "train.$setting.ppk" "test.$setting.ppk" -t ppk -g 0.5 | tee -a table.txt
done
for setting in $norm_settings; do
  evaluate "ppk_norm -g 1, $setting" "train.$setting.ppk" "test.$setting.ppk" -t ppk_norm -g 1
done
# The smoothing of the best cross-validation accuracy (the first of equals).
awk '{ cv = $(NF - 1); sub("%", "", cv); if (cv + 0 > best) { best = cv + 0; line = $0 } }
     END { sub("Bhattacharyya, ", "", line); print "chosen by CV: " line }' table.txt
# baseline NAME OPTIONS... C...: the best held-out accuracy over the C values (not cross-validated).
baseline() {
  local name=$1 options=() best=-1 best_c="" c accuracy
  shift
  while [[ $1 == -* ]]; do options+=("$1" "$2"); shift 2; done
  for c in "$@"; do
    "$bin/svm-train" -q "${options[@]}" -c "$c" train.tfidf baseline.model
    accuracy=$("$bin/svm-predict" test.tfidf baseline.model baseline.out | sed -n 's/^Accuracy = \([0-9.]*\)%.*/\1/p')
    if greater "$accuracy" "$best"; then best=$accuracy; best_c=$c; fi
  done
  printf '%-44s %8s %10s %14s\n' "$name" "$best_c" "-" "$best% (best C on test)"
}
if [[ $corpus != demo ]]; then
  baseline "LIBSVM linear (-t 0) on tf-idf" -t 0 0.1 1 10 100
  baseline "LIBSVM RBF (-t 2 -g 1) on tf-idf" -t 2 -g 1 1 10 100
  if $baselines_cv; then evaluate "LIBSVM linear (-t 0) on tf-idf, C by CV" train.tfidf test.tfidf -t 0; fi
fi
echo
grep -v 'read from' alpha.txt | sed 's/^ppk fit multinomial: //'
