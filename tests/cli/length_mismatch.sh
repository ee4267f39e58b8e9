# Sequence rows of different stored lengths T have no kernel until -d T sets one: the error of
# ppk gram and svm-train says so and suggests -d (T: x_0..x_T, T + 1 observations), and a kernel with
# -d works. Rows that differ otherwise (Gaussians of other dimensions, HMMs over other alphabets or
# other emission spaces) get no -d suggestion. svm-train -h and ppk gram --help document -d.
source "$(dirname "$0")/lib.bash" "$@"
need_patched_tools svm-train

# Two discrete HMMs over ACGT of 5 and 8 symbols: stored T = 4 and 7.
printf '1 ACGTA\n-1 ACGTACGT\n' > seqs.txt
"$PPK" fit hmm --states 2 --alphabet ACGT seqs.txt -o hmm.ppk
expect_error 1 "no kernel between different sample spaces" "different lengths T = 4 and 7" \
  "give one T for every row with -d T (svm-train, ppk gram), e.g. -d 4" "x_0..x_T, T + 1 observations" -- \
  "$PPK" gram -t ppk_norm -g 1 hmm.ppk
# With -d the same rows have a kernel: a 2 x 2 matrix with unit diagonal.
"$PPK" gram -t ppk_norm -g 1 -d 4 hmm.ppk > gram.txt
awk 'NF != 2 || $NR != 1 { exit 1 } END { exit NR != 2 }' gram.txt || fail "-d 4: $(cat gram.txt)"
pass
# svm-train reports the same, through the plugin.
"$BIN/svm-train" -q -t ppk_norm -g 1 hmm.ppk model.txt > train_out.txt 2>&1 && fail "svm-train trained on rows of different T"
grep -qF "different lengths T = 4 and 7" train_out.txt && grep -qF -- "-d 4" train_out.txt ||
  fail "svm-train's error lacks the -d suggestion: $(cat train_out.txt)"
pass
# Monte Carlo rows around those HMMs: the same suggestion.
"$PPK" montecarlo -n 20 hmm.ppk -o montecarlo.ppk
expect_error 1 "different lengths T = 4 and 7" "e.g. -d 4" -- "$PPK" gram -t ppk_norm -g 1 montecarlo.ppk
# LDS rows of 3 and 4 vectors: the same suggestion.
printf '1 qid:1 1:0.5\n1 qid:1 1:0.4\n1 qid:1 1:0.3\n-1 qid:2 1:0.1\n-1 qid:2 1:0.2\n-1 qid:2 1:0.4\n-1 qid:2 1:0.3\n' > lds.txt
"$PPK" fit lds --state-dim 1 --iterations 5 --restarts 1 lds.txt -o lds.ppk
expect_error 1 "different lengths T = 2 and 3" "-d 2" -- "$PPK" gram -t ppk_norm -g 1 lds.ppk

# No -d suggestion where -d would not help.
no_length_hint() {
  "$PPK" gram -t ppk_norm -g 1 "$@" > /dev/null 2> err.txt && fail "ppk gram $* succeeded"
  grep -qF "no kernel between different sample spaces" err.txt || fail "ppk gram $*: $(cat err.txt)"
  ! grep -qF -- "-d" err.txt || fail "ppk gram $* suggests -d: $(cat err.txt)"
  pass
}
# Gaussians of dimension 1 and 2.
printf '1 1:0.5\n' | "$PPK" fit gaussian --var 1 - > gaussians.ppk
printf '1 1:0.5 2:1\n' | "$PPK" fit gaussian --var 1 - >> gaussians.ppk
no_length_hint gaussians.ppk
# HMMs of different lengths over different alphabets (AC against ACGT).
printf '1 ACA\n' | "$PPK" fit hmm --states 2 --alphabet AC - > alphabets.ppk
head -1 hmm.ppk >> alphabets.ppk
no_length_hint alphabets.ppk
# HMMs of different lengths over 2 symbols and over 2-D real vectors: the same dimension, other spaces.
printf '1 qid:1 1:0.5 2:1\n1 qid:1 1:0.4 2:0.9\n1 qid:1 1:0.3 2:1.2\n' |
  "$PPK" fit hmm --states 1 --format libsvm --cov diag - > emissions.ppk
printf '1 ACAAC\n' | "$PPK" fit hmm --states 2 --alphabet AC - >> emissions.ppk
no_length_hint emissions.ppk

# -d is documented as T + 1 observations.
"$BIN/svm-train" -h > svm_help.txt 2>&1 || true
grep -qF "compares x_0..x_T, i.e. T + 1 observations" svm_help.txt || fail "svm-train -h: $(grep -F ppk svm_help.txt)"
pass
"$PPK" gram --help | tr '\n' ' ' | grep -F "the kernel compares x_0..x_T, i.e. T + 1 observations" > /dev/null ||
  fail "ppk gram --help does not document -d"
pass

finish
