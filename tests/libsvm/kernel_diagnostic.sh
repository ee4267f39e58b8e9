#!/usr/bin/env bash
# The degenerate-kernel diagnostic (include/ppk/core/kernel_diagnostic.hpp): `ppk gram` and
# `svm-train -t ppk|ppk_norm` warn on standard error when nearly all normalised kernel values
# between different rows are below 1e-6 (the Gram matrix is nearly the identity) or above 1 - 1e-6
# (nearly constant), naming rho and T, once per svm-train (also with -v); and they stay silent on
# the data of the documents and sequences demos, with the demos' options.
#
#   kernel_diagnostic.sh PPK SVM_TRAIN EXAMPLES_DIR
source "$(dirname "$0")/common.sh"
(($# == 3)) || fail "usage: $0 PPK SVM_TRAIN EXAMPLES_DIR"
ppk=$1 svm_train=$2 examples=$3

# expect_warning STDERR_FILE FRAGMENT...: the file holds exactly one warning, with every fragment.
expect_warning() {
  local file=$1
  shift
  [[ $(grep -c 'warning: the kernel matrix is nearly' "$file") == 1 ]] || fail "not one warning in $file: $(cat "$file")"
  local fragment
  for fragment in "$@"; do must_contain "$file" "$fragment"; done
}
# expect_silence STDERR_FILE WHAT
expect_silence() {
  [[ ! -s $1 ]] || fail "$2: $(cat "$1")"
}

# Nearly the identity: 13-D full-covariance Gaussians, each fitted to the 20 frames of one
# "utterance": frames spread by 0.5 around the utterance's own mean, the means spread by 2 (two
# classes, 1 apart in the first coordinate), as spoken words' MFCC frames are at rho = 1.
awk 'BEGIN {
  srand(13)
  for (e = 1; e <= 40; e++) {
    # standard normals by Box-Muller
    for (d = 1; d <= 13; d++)
      mean[d] = 2 * sqrt(-2 * log(1 - rand())) * cos(6.283185307179586 * rand()) + (d == 1 && e % 2 ? 1 : 0)
    for (k = 0; k < 20; k++) {
      line = (e % 2) " qid:" e
      for (d = 1; d <= 13; d++)
        line = line " " d ":" sprintf("%.5f", mean[d] + 0.5 * sqrt(-2 * log(1 - rand())) * cos(6.283185307179586 * rand()))
      print line
    }
  }
}' >frames.txt
"$ppk" fit gaussian frames.txt -o frames.ppk
identity=("nearly the identity" "at rho = 1 (-g) and T = 0 (-d" "Try a smaller rho")
"$ppk" gram -t ppk_norm -g 1 frames.ppk >/dev/null 2>gram.err
expect_warning gram.err "ppk gram: warning: the kernel matrix is nearly the identity" "${identity[@]}"
pass "ppk gram: the identity warning on 13-D full-covariance Gaussians at rho = 1"
for kernel in ppk ppk_norm; do
  env -u LIBSVM_KERNEL_PLUGINS "$svm_train" -q -t $kernel frames.ppk frames.model 2>train.err
  expect_warning train.err "ppk: warning: the kernel matrix is nearly the identity" "${identity[@]}"
  # once per svm-train, not once per fold
  env -u LIBSVM_KERNEL_PLUGINS "$svm_train" -q -t $kernel -v 4 frames.ppk >/dev/null 2>cv.err
  expect_warning cv.err "ppk: warning: the kernel matrix is nearly the identity" "${identity[@]}"
  pass "svm-train -t $kernel: one identity warning, with and without -v 4"
done
# The advice works: at rho = 0.01 the values are in [1e-4, 0.2].
"$ppk" gram -t ppk_norm -g 0.01 --summary frames.ppk >summary.txt 2>small.err
expect_silence small.err "ppk gram at rho = 0.01: $(cat summary.txt)"
env -u LIBSVM_KERNEL_PLUGINS "$svm_train" -q -t ppk_norm -g 0.01 frames.ppk frames.model 2>small.err
expect_silence small.err "svm-train at rho = 0.01"
pass "no warning at rho = 0.01"

# Nearly constant: documents of 5 words over 50 words as multinomials with a Dirichlet pseudo-count
# of 10^5 per word: every estimate is the uniform distribution to within 1e-4.
awk 'BEGIN { srand(5); for (e = 1; e <= 30; e++) { line = e % 2; for (w = 1; w <= 50; w++)
  if (rand() < 0.1) line = line " " w ":1"; print line } }' >documents.txt
"$ppk" fit multinomial --alpha 100000 --dim 50 documents.txt -o smooth.ppk
constant=("nearly constant" "at rho = 1 (-g) and T = 0 (-d" "Try a larger rho")
"$ppk" gram -t ppk -g 1 smooth.ppk >/dev/null 2>gram.err
expect_warning gram.err "ppk gram: warning: the kernel matrix is nearly constant" "${constant[@]}"
env -u LIBSVM_KERNEL_PLUGINS "$svm_train" -q -t ppk_norm smooth.ppk smooth.model 2>train.err
expect_warning train.err "ppk: warning: the kernel matrix is nearly constant" "${constant[@]}"
pass "ppk gram and svm-train: the constant warning on heavily smoothed multinomials"

# Silent on the demos' data, with their options (examples/documents-demo.sh, sequences-demo.sh),
# at smaller sizes.
python3 "$examples/make_documents.py" --seed 1 --vocabulary 3000 --n-train 60 --n-test 10 \
  --train doc_train.txt --test doc_test.txt
"$ppk" fit multinomial --alpha 0.01 --dim 3000 doc_train.txt -o doc_train.ppk
for args in "-t ppk -g 0.5" "-t ppk_norm -g 1"; do
  "$ppk" gram $args doc_train.ppk >/dev/null 2>gram.err
  expect_silence gram.err "ppk gram $args on the documents demo"
  env -u LIBSVM_KERNEL_PLUGINS "$svm_train" -q $args doc_train.ppk doc.model 2>train.err
  expect_silence train.err "svm-train $args on the documents demo"
done
pass "silent on the documents demo"
python3 "$examples/make_sequences.py" --seed 1 --n 60 >sequences.txt
"$ppk" fit hmm --states 2 --alphabet ACGT --seed 1 sequences.txt -o sequences.ppk
"$ppk" gram -t ppk_norm -g 1 -d 9 sequences.ppk >/dev/null 2>gram.err
expect_silence gram.err "ppk gram on the sequences demo"
env -u LIBSVM_KERNEL_PLUGINS "$svm_train" -q -t ppk_norm -g 1 -d 9 sequences.ppk sequences.model 2>train.err
expect_silence train.err "svm-train on the sequences demo"
pass "silent on the sequences demo"
