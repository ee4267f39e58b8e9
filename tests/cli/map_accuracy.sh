# LIBLINEAR on ppk map's features against the kernel SVM on the same rows (the issue's acceptance
# figures; docs/feature-maps.md has the measurements around them):
#   the documents demo at n = 10,000 (vocabulary 3000, 2,000 test documents): liblinear-train on the
#   exact map of the maximum-likelihood rows within 0.5 points of svm-train -t ppk -g 0.5, and on the
#   sparse map of the smoothed rows within 0.5 points of svm-train on those;
#   the sequences demo (400 + 400 DNA-like sequences, 2-state HMMs): liblinear-train on a Nystrom map of
#   100 landmarks within 2 points of svm-train -t ppk_norm -g 1 -d 9.
# Both learners solve the same problem: the L1-loss SVM (liblinear-train -s 3) at the same C, with a bias
# feature (-B 1) for LIBSVM's b.
source "$(dirname "$0")/lib.bash" "$@"
BIN=$(dirname "$PPK")
EXAMPLES=$(cd "$(dirname "$0")/../../examples" && pwd)
command -v liblinear-train > /dev/null || fail "liblinear-train is missing (Debian's liblinear-tools: scripts/install-deps.sh)"

# accuracy PREDICT_OUTPUT: the percentage in "Accuracy = 96.65% (1933/2000)".
accuracy() { sed -n 's/^Accuracy = \([0-9.]*\)%.*/\1/p' "$1"; }
# within KERNEL_SVM LINEAR POINTS WHAT
within() {
  /usr/bin/python3 -c "import sys; sys.exit(0 if abs($1 - $2) <= $3 else 1)" ||
    fail "$4: LIBLINEAR on the map $2% vs the kernel SVM $1%: more than $3 points apart"
  echo "$4: kernel SVM $1%, LIBLINEAR on the map $2%"
  pass
}
# compare NAME TRAIN_ROWS TEST_ROWS POINTS C KERNEL_OPTIONS -- MAP_OPTIONS
compare() {
  local name=$1 train=$2 test=$3 points=$4 c=$5
  shift 5
  local kernel=()
  while [[ $1 != -- ]]; do
    kernel+=("$1")
    shift
  done
  shift
  "$BIN/svm-train" -q "${kernel[@]}" -c "$c" "$train" svm.model
  "$BIN/svm-predict" "$test" svm.model predictions.txt > svm.txt
  "$PPK" map "${kernel[@]}" "$@" "$train" --save-map features.map -o train.features 2> /dev/null
  "$PPK" map --map-from features.map "$test" -o test.features
  liblinear-train -q -s 3 -B 1 -c "$c" train.features linear.model > /dev/null
  liblinear-predict test.features linear.model predictions.txt > linear.txt
  within "$(accuracy svm.txt)" "$(accuracy linear.txt)" "$points" "$name"
}

python3 "$EXAMPLES/make_documents.py" --seed 1 --vocabulary 3000 --n-train 10000 --n-test 2000 \
  --train train.txt --test test.txt
"$PPK" fit multinomial --dim 3000 --alpha 0 train.txt -o train_ml.ppk
"$PPK" fit multinomial --dim 3000 --alpha 0 test.txt -o test_ml.ppk
compare "documents, maximum-likelihood rows, exact map" train_ml.ppk test_ml.ppk 0.5 1 -t ppk -g 0.5 -- --map exact
"$PPK" fit multinomial --dim 3000 train.txt -o train.ppk
"$PPK" fit multinomial --dim 3000 test.txt -o test.ppk
compare "documents, smoothed rows, sparse map" train.ppk test.ppk 0.5 1 -t ppk -g 0.5 -- --map sparse

python3 "$EXAMPLES/make_sequences.py" --seed 1 --n 800 > all.txt
head -n 400 all.txt > train_sequences.txt
tail -n 400 all.txt > test_sequences.txt
"$PPK" fit hmm --states 2 --alphabet ACGT --seed 1 train_sequences.txt -o train_hmm.ppk
"$PPK" fit hmm --states 2 --alphabet ACGT --seed 1 test_sequences.txt -o test_hmm.ppk
compare "sequences, HMM rows, Nystrom map of 100 landmarks" train_hmm.ppk test_hmm.ppk 2 10 -t ppk_norm -g 1 -d 9 -- \
  --map nystrom --landmarks 100
finish
