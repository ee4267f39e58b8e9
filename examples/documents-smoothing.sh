#!/usr/bin/env bash
# How strongly to smooth multinomial document rows, measured on a real corpus: by default WordNet
# 3.0's noun glosses (Debian package wordnet-base), 20 classes, short documents
# (examples/wordnet_glosses.py); with --corpus fortunes, Debian's fortune cookies (package
# fortunes), 29 classes (examples/fortunes_documents.py); with --corpus demo, the documents demo's
# synthetic corpus (examples/make_documents.py, seed 1, 3000 words, 2 classes).
# `ppk fit multinomial --alpha auto` on the training part: the smoothing and C of the best 5-fold
# cross-validated accuracy of the Bhattacharyya kernel (svm-train -t ppk -g 0.5) among --alpha
# evidence (maximum evidence), the default --alpha 1/D, maximum likelihood and fixed alpha in {1,
# 0.1, 0.01, 0.001}, C from the grid; its table gives every candidate's own C, at which each is
# trained and its held-out accuracy measured, and the test part fitted with the saved choice gives
# auto's. Then --base pooled --alpha evidence, C by 5-fold cross-validation;
# beside LIBSVM's linear (C from {0.1, 1, 10, 100}) and RBF (gamma 1, C from {1, 10, 100}) kernels on
# tf-idf rows (not for the demo corpus), C also by 5-fold cross-validation on the training part.
# With --norm "SETTINGS" (e.g. "ml auto 0.01") those smoothings are also measured with
# svm-train -t ppk_norm -g 1, C by 5-fold cross-validation.
# The WordNet table is the one in docs/documents-smoothing.md (about 30 minutes on 2 shared cores; the
# --base pooled row needs a build with --base); so are the others, with the options given there.
# Usage: examples/documents-smoothing.sh [--corpus wordnet|fortunes|demo] [--norm "SETTINGS"]
#                                        BUILD_DIR [TRAIN_SIZE TEST_SIZE [C...]]
#   (defaults 8000 3000 for wordnet, 4000 2000 for fortunes, 400 600 for demo; C in 0.1 1 10 100
#    1000; the suite runs a reduced WordNet version, tests/cli/documents_smoothing.sh)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.bash"
corpus=wordnet norm_settings=""
while [[ ${1:-} == --* ]]; do
  case $1 in
    --corpus) corpus=$2; shift 2 ;;
    --norm) norm_settings=$2; shift 2 ;;
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

# fit NAME OPTIONS...: train.NAME.ppk and test.NAME.ppk; --alpha evidence is chosen on the training
# file only and reused for the test file through the pool file.
fit() {
  local name=$1
  shift
  if [[ $* == *evidence* ]]; then
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
# --alpha auto: every candidate's 5-fold CV accuracy at every C of the grid (its table on stderr),
# the choice saved for the test part.
"$bin/ppk" fit multinomial --alpha auto --cv-alphas evidence,1/D,ml,1,0.1,0.01,0.001 \
  --cv-c "$(IFS=,; echo "${grid[*]}")" --dim "$dim" --save-pooled pool.auto.json train.txt -o train.auto.ppk 2> auto.txt
"$bin/ppk" fit multinomial --pooled-from pool.auto.json --dim "$dim" test.txt -o test.auto.ppk 2> /dev/null
# first_best CANDIDATE: "C accuracy" of the candidate's first best line in auto's table.
first_best() {
  awk -v s="$1" '$1 == s && $NF ~ /%$/ { a = $NF; sub("%", "", a);
    if (n++ == 0 || a + 0 > best + 0) { best = a; cost = $(NF - 1) } } END { print cost, best }' auto.txt
}
for setting in evidence 1/D ml 1 0.1 0.01 0.001; do
  name=${setting//\//_}
  case $setting in
    evidence) fit evidence --alpha evidence 2> alpha.txt; options=(--alpha evidence) ;;
    ml) fit ml --estimator ml; options=(--estimator ml) ;;
    *) fit "$name" --alpha "$setting"; options=(--alpha "$setting") ;;
  esac
  read -r c cv < <(first_best "$setting")
  report "Bhattacharyya, ${options[*]}" "train.$name.ppk" "test.$name.ppk" "$c" "$cv" -t ppk -g 0.5
done
read -r chosen c < <(python3 -c 'import json; cv = json.load(open("pool.auto.json"))["smoothing"]["cross_validation"]
print(cv["candidate"], "%g" % cv["C"])')
read -r _ cv < <(first_best "$chosen")
report "Bhattacharyya, --alpha auto (chose $chosen)" train.auto.ppk test.auto.ppk "$c" "$cv" -t ppk -g 0.5
fit pooled --base pooled --alpha evidence 2>> alpha.txt
evaluate "Bhattacharyya, --base pooled --alpha evidence" train.pooled.ppk test.pooled.ppk -t ppk -g 0.5
for setting in $norm_settings; do
  evaluate "ppk_norm -g 1, $setting" "train.${setting//\//_}.ppk" "test.${setting//\//_}.ppk" -t ppk_norm -g 1
done
# LIBSVM's own kernels on the tf-idf rows, C by 5-fold cross-validation on the training part too.
if [[ $corpus != demo ]]; then
  grid=(0.1 1 10 100)
  evaluate "LIBSVM linear (-t 0) on tf-idf" train.tfidf test.tfidf -t 0
  grid=(1 10 100)
  evaluate "LIBSVM RBF (-t 2 -g 1) on tf-idf" train.tfidf test.tfidf -t 2 -g 1
fi
echo
grep -v 'read from' alpha.txt | sed 's/^ppk fit multinomial: //'
