#!/usr/bin/env bash
# ppk select --weights on combined rows (ppk combine): every cell equals, digit for digit, the
# distribution's unpatched svm-train -t 4 -v K on the precomputed Gram of the weighted sum of the parts'
# normalized kernels, each part's computed by `ppk gram -t ppk_norm` on the part's own file and summed
# here in Python (ppk_norm: over the sum of the weights), and the patched svm-train -v K on the combined
# rows at that cell's weights: for HMM + k-mer multinomial rows over a grid of T (the HMM part's every
# T from one pass), both kernels, weights with a zero, with 5 folds and leave-one-out. Then: --table has
# the weights column; -o MODEL is svm-train's model on the rows combined at the best weights, byte for
# byte, and svm-predict with it on the test rows combined at those weights predicts what the stock
# svm-predict does on the precomputed test x training Gram of the stock svm-train's model; test rows
# of other weights are refused by svm-predict naming both weightings; bad --weights are refused.
#
#   select_combined.sh PPK SVM_TRAIN SVM_PREDICT
source "$(dirname "$0")/common.sh"
(($# == 3)) || fail "usage: $0 PPK SVM_TRAIN SVM_PREDICT"
ppk=$1 svm_train=$2 svm_predict=$3
require_stock_programs

# 60 'LABEL SEQUENCE' lines of 14 symbols, class 1 repeating its last symbol more often (the HMM part
# sees it) and class 2 preferring G and T (the bigram part sees it); the first 40 train, the rest test.
awk 'BEGIN { srand(13); split("A C G T", symbol, " ")
  for (i = 0; i < 60; i++) { y = i % 2 + 1; line = ""
    s = symbol[int(4 * rand()) + 1]
    for (t = 0; t < 14; t++) { line = line s
      if (rand() > (y == 1 ? 0.75 : 0.4)) s = symbol[(y == 2 && rand() < 0.3) ? 3 + int(2 * rand()) : int(4 * rand()) + 1] }
    print y " " line } }' >all.txt
head -n 40 all.txt >train.txt
tail -n 20 all.txt >test.txt
for set in train test; do
  "$ppk" fit hmm --states 2 $set.txt -o hmm-$set.ppk 2>/dev/null
  awk '{ delete c; for (t = 1; t < length($2); t++) { a = index("ACGT", substr($2, t, 1)); b = index("ACGT", substr($2, t + 1, 1))
           c[4 * (a - 1) + b]++ }
         line = $1; for (k = 1; k <= 16; k++) if (k in c) line = line " " k ":" c[k]; print line }' $set.txt >bigrams-$set.txt
  "$ppk" fit multinomial --dim 16 bigrams-$set.txt -o kmers-$set.ppk
  "$ppk" combine hmm-$set.ppk kmers-$set.ppk -o combined-$set.ppk
done

# weighted_gram KERNEL RHO T WEIGHTS A_SUFFIX B_SUFFIX OUT: the precomputed rows of sum_i w_i N_i between
# the A and B files (N_i = ppk gram -t ppk_norm of part i; -d T for the HMM part), over sum w for ppk_norm.
weighted_gram() {
  local kernel=$1 rho=$2 length=$3 weights=$4 a=$5 b=$6 out=$7
  "$ppk" gram -t ppk_norm -g "$rho" -d "$length" "hmm-$a.ppk" "hmm-$b.ppk" -o part1.txt
  "$ppk" gram -t ppk_norm -g "$rho" "kmers-$a.ppk" "kmers-$b.ppk" -o part2.txt
  python3 - "$kernel" "$weights" "hmm-$a.ppk" "$out" <<'PY'
import sys
kernel, weights, labels_from, out = sys.argv[1], [float(w) for w in sys.argv[2].split(":")], sys.argv[3], sys.argv[4]
read = lambda path: [[float(v) for v in line.split()] for line in open(path)]
parts = [read("part1.txt"), read("part2.txt")]
scale = sum(weights) if kernel == "ppk_norm" else 1.0
labels = [line.split()[0] for line in open(labels_from)]
with open(out, "w") as f:
    for i, label in enumerate(labels):
        row = [sum(w * p[i][j] for w, p in zip(weights, parts)) for j in range(len(parts[0][i]))]
        f.write(label + " 0:%d " % (i + 1) + " ".join("%d:%r" % (j + 1, v / scale if kernel == "ppk_norm" else v)
                                                      for j, v in enumerate(row)) + "\n")
PY
}

# check_grid FOLDS SELECT_OPTIONS...: every line of ppk select on combined-train.ppk against the stock
# svm-train -t 4 -v FOLDS on weighted_gram's matrix, and the patched svm-train -v FOLDS on the rows
# combined at the cell's weights.
check_grid() {
  local folds=$1
  shift
  "$ppk" select -q -v "$folds" "$@" combined-train.ppk >select.out
  local cells=0 line options score kernel rho length weights cost expected direct
  [[ $folds == n ]] && folds=$(wc -l <combined-train.ppk)
  while IFS= read -r line; do
    [[ $line == best:* ]] && continue
    options=${line%%: *} score=${line#*: }
    read -r _ kernel _ rho _ length _ weights _ cost <<<"$options"
    weighted_gram "$kernel" "$rho" "$length" "$weights" train train cell.k
    expected=$("$stock_train" -t 4 -c "$cost" -v "$folds" cell.k | grep '^Cross Validation')
    [[ $score == "$expected" ]] || fail "-v $folds, $options: ppk select printed '$score', $stock_train -t 4 '$expected'"
    "$ppk" combine --weights "${weights//:/,}" hmm-train.ppk kmers-train.ppk -o cell.ppk
    direct=$("$svm_train" -t "$kernel" -g "$rho" -d "$length" -c "$cost" -v "$folds" cell.ppk 2>/dev/null | grep '^Cross Validation')
    [[ $score == "$direct" ]] || fail "-v $folds, $options: ppk select printed '$score', svm-train on the rows '$direct'"
    cells=$((cells + 1))
  done <select.out
  echo "$cells"
}

n=$(check_grid 5 -t ppk,ppk_norm -g 0.5,1 -d 4,13 --weights 1:0,0.75:0.25,0.5:0.5,0:1,2:1 -c 1,10)
[[ $n == 80 ]] || fail "5 folds: $n cells, expected 80"
n=$(check_grid n -t ppk_norm -g 0.5 -d 13 --weights 0.25:0.75,1:1 -c 10)
[[ $n == 2 ]] || fail "leave-one-out: $n cells, expected 2"
pass "every cell equals svm-train -t 4 -v K on the weighted sum of the parts' ppk gram matrices, and svm-train -v K on the rows"

# Without --weights: the rows' own (1:1), and T's default grid from the HMM part (T/4, T/2, T of 13).
"$ppk" select -q -t ppk_norm -g 0.5 -c 1 combined-train.ppk >own.out
[[ $(grep -v '^best: ' own.out | sed 's/: .*//' | paste -sd,) == \
  "-t ppk_norm -g 0.5 -d 3 --weights 1:1 -c 1,-t ppk_norm -g 0.5 -d 6 --weights 1:1 -c 1,-t ppk_norm -g 0.5 -d 13 --weights 1:1 -c 1" ]] ||
  fail "the default weights and T: $(cat own.out)"
pass "the default grid: the rows' own weights, T from the sequence part"

# --table and -o: the model svm-train writes on the rows at the best weights, and its predictions.
"$ppk" select -q -t ppk,ppk_norm -g 0.5,1 -d 13 --weights 1:0,0.5:0.5,0:1 -c 1,10 --table table.tsv \
  -o best.model combined-train.ppk >select.out 2>select.err
[[ $(head -n 1 table.tsv) == $'kernel\trho\tT\tweights\tC\taccuracy' ]] || fail "--table header: $(head -n 1 table.tsv)"
[[ $(($(wc -l <table.tsv) - 1)) == 24 ]] || fail "--table: $(wc -l <table.tsv) lines, expected 1 + 24"
read -r _ kernel _ rho _ length _ weights _ cost <<<"$(tail -n 1 select.out | sed 's/^best: //; s/: .*//')"
if [[ $weights != 1:1 ]]; then
  grep -qF "ppk combine --weights ${weights//:/,}" select.err || fail "no note on the weights: $(cat select.err)"
fi
for set in train test; do
  "$ppk" combine --weights "${weights//:/,}" hmm-$set.ppk kmers-$set.ppk -o best-$set.ppk
done
"$svm_train" -q -t "$kernel" -g "$rho" -d "$length" -c "$cost" best-train.ppk ref.model
cmp -s best.model ref.model || fail "-o's model differs from svm-train's on the rows at the best setting ($weights)"
"$svm_predict" best-test.ppk best.model best.predictions >/dev/null
weighted_gram "$kernel" "$rho" "$length" "$weights" train train train.k
weighted_gram "$kernel" "$rho" "$length" "$weights" test train test.k
"$stock_train" -q -t 4 -c "$cost" train.k stock.model
"$stock_predict" test.k stock.model stock.predictions >/dev/null
cmp -s best.predictions stock.predictions || fail "svm-predict with -o's model predicts otherwise than the stock programs on the weighted sum"
pass "-o: svm-train's model at the best weights ($kernel, rho $rho, T $length, weights $weights, C $cost); its test predictions are the stock programs'"

# Test rows of other weights: svm-predict refuses them, naming both weightings.
"$ppk" combine --weights 3,1 hmm-test.ppk kmers-test.ppk -o other-test.ppk
[[ $weights != 3:1 ]] || fail "the test's other weights are the best ones"
expect_failure refused "$svm_predict" other-test.ppk best.model refused.predictions
must_contain refused.err "combined rows with the weights 3,1 and ${weights//:/,}: no kernel"
pass "test rows of other weights are refused"

# Bad --weights: exit 2, the message, nothing written.
refuse() {
  local fragment=$1 got=0
  shift
  rm -f refused.model
  "$ppk" select "$@" -o refused.model >refused.out 2>refused.err || got=$?
  [[ $got == 2 ]] || fail "ppk select $*: exit $got, expected 2: $(cat refused.err)"
  must_contain refused.err "$fragment"
  [[ ! -s refused.out && ! -e refused.model ]] || fail "ppk select $*: wrote output"
}
refuse "--weights: '1:2:3' in '1:1,1:2:3': expected one weight per part (2), got 3" --weights 1:1,1:2:3 combined-train.ppk
refuse "--weights: '0:0' in '0:0': every weight is 0" --weights 0:0 combined-train.ppk
refuse "--weights: '1:-1' in '1:-1': weight 2 is -1" --weights 1:-1 combined-train.ppk
refuse "--weights: 'x:1' in 'x:1': expected numbers joined by ':'" --weights x:1 combined-train.ppk
refuse "--weights: the rows of kmers-train.ppk are not combined rows" --weights 1:1 kmers-train.ppk
pass "bad --weights refused"

echo "select_combined.sh: all checks passed"
