# ppk fit multinomial|bernoulli --alpha auto: the smoothing chosen with C by cross-validated accuracy.
# The oracle is LIBSVM's own svm-train -v K on the rows written separately with each candidate's
# smoothing (--alpha evidence, --alpha 1/D, --estimator ml, --alpha X): svm-train never seeds rand(), so its folds are
# those of glibc's default seed, which --alpha auto sets before every cross-validation; every printed
# accuracy must equal svm-train's exactly. Then: the choice is the first best of the table; the rows
# written are the chosen candidate's; --save-pooled / --pooled-from give a test file the chosen
# smoothing; contradicting options for the test file are refused naming both files; usage errors.
source "$(dirname "$0")/lib.bash" "$@"
bin=$(dirname "$PPK")
export OMP_NUM_THREADS=1

# Three classes of documents over 40 words, each class drawing its words from its own Dirichlet
# around a class profile (so the counts are over-dispersed and the evidence has a maximum), 5 to 30
# words per document: 75 training and 45 test documents.
python3 - <<'PY'
import random
random.seed(7)
D, classes = 40, 3
profiles = [[random.random() ** 3 for _ in range(D)] for _ in classes * [0]]
def document(label):
    weights = [random.gammavariate(4 * p + 0.05, 1) for p in profiles[label]]
    counts = {}
    for _ in range(random.randint(5, 30)):
        word = random.choices(range(D), weights)[0] + 1
        counts[word] = counts.get(word, 0) + 1
    return f"{label + 1} " + " ".join(f"{w}:{c}" for w, c in sorted(counts.items()))
for name, n in (("train.txt", 75), ("test.txt", 45)):
    with open(name, "w") as f:
        for i in range(n):
            f.write(document(i % classes) + "\n")
PY
dim=40

# The --alpha auto table on standard error: "candidate alpha C accuracy%" lines.
table() { sed -n 's/^  \(evidence\|1\/D\|ml\|[0-9][0-9.e-]*\)  *\([^ ]*\)  *\([^ ]*\)  *\([^ ]*\)%$/\1 \2 \3 \4/p' "$1"; }

# candidate_options CANDIDATE: the options that fit rows with that smoothing on their own.
candidate_options() {
  case $1 in
    evidence) echo "--alpha evidence" ;;
    ml) echo "--estimator ml" ;;
    *) echo "--alpha $1" ;;
  esac
}

# check_table LOG FAMILY TRAIN KERNEL RHO FOLDS: every accuracy of the table in LOG equals svm-train
# -v FOLDS on TRAIN's rows fitted with that candidate's options (kept as rows.FAMILY.CANDIDATE, / as _);
# sets best to the table's first best line.
check_table() {
  local log=$1 family=$2 train=$3 kernel=$4 rho=$5 folds=$6 candidate alpha c accuracy expected lines=0
  while read -r candidate alpha c accuracy; do
    # shellcheck disable=SC2046
    rows="rows.$family.${candidate//\//_}"
    [[ -e "$rows" ]] || "$PPK" fit "$family" $(candidate_options "$candidate") --dim "$dim" "$train" -o "$rows" 2> /dev/null
    expected=$("$bin/svm-train" -q -v "$folds" -c "$c" -t "$kernel" -g "$rho" "$rows" |
      sed -n 's/^Cross Validation Accuracy = \(.*\)%$/\1/p')
    [[ -n $expected && $accuracy == "$expected" ]] ||
      fail "$family --alpha auto: $candidate at C = $c: accuracy $accuracy%, svm-train -v $folds: $expected%"
    lines=$((lines + 1))
  done < <(table "$log")
  ((lines > 0)) || fail "no table in $log: $(cat "$log")"
  pass
  best=$(table "$log" | awk '$4 + 0 > best + 0 || NR == 1 { best = $4; line = $0 } END { print line }')
}

# 1. Multinomial rows, the default candidates and C grid.
"$PPK" fit multinomial --alpha auto --dim "$dim" --save-pooled pool.json train.txt -o cv.ppk 2> cv.log
[[ $(table cv.log | cut -d' ' -f1 | uniq | tr '\n' ' ') == "evidence 1/D ml 1 0.1 0.01 0.001 " ]] ||
  fail "the candidates, in order: $(cat cv.log)"
[[ $(table cv.log | awk '$1 == "ml" { print $3 }' | tr '\n' ' ') == "1 10 100 1000 " ]] || fail "the C grid: $(cat cv.log)"
pass
check_table cv.log multinomial train.txt ppk 0.5 5
read -r chosen chosen_alpha chosen_c chosen_accuracy <<< "$best"
echo "chosen: $chosen (alpha $chosen_alpha) at C = $chosen_c, CV accuracy $chosen_accuracy%"
grep -qF "chose" cv.log && grep "chose" cv.log | grep -qF "at C = $chosen_c: $chosen_accuracy%" ||
  fail "the printed choice is not the first best of the table ($chosen, C = $chosen_c): $(grep chose cv.log)"
pass
# The written rows are the chosen candidate's.
cmp -s cv.ppk "rows.multinomial.${chosen//\//_}" || fail "the rows written are not those of $chosen"
pass
# The pool file holds the choice, C and the kernel settings.
read -r saved_smoothing saved_c saved_kernel saved_gamma saved_folds saved_alpha < <(python3 -c '
import json
cv = json.load(open("pool.json"))["smoothing"]["cross_validation"]
print(cv["smoothing"], "%g" % cv["C"], cv["kernel"], cv["gamma"], cv["folds"], repr(cv.get("alpha", "-")))')
[[ $saved_c == "$chosen_c" && $saved_kernel == ppk && $saved_gamma == 0.5 && $saved_folds == 5 ]] ||
  fail "pool.json: C $saved_c, kernel $saved_kernel, gamma $saved_gamma, folds $saved_folds"
[[ ($chosen == ml && $saved_smoothing == ml) || ($chosen != ml && $saved_smoothing == posterior) ]] ||
  fail "pool.json: smoothing $saved_smoothing for $chosen"
pass

# 2. The test file with the pool: the chosen smoothing (evidence: the training file's alpha, saved).
"$PPK" fit multinomial --pooled-from pool.json --dim "$dim" test.txt -o test.cv.ppk 2> /dev/null
case $chosen in
  ml) test_options=(--estimator ml) ;;
  *) test_options=(--alpha "$saved_alpha") ;;
esac
"$PPK" fit multinomial "${test_options[@]}" --dim "$dim" test.txt -o test.expected.ppk
cmp -s test.cv.ppk test.expected.ppk || fail "the test rows with --pooled-from are not those of ${test_options[*]}"
pass
# --alpha auto for the test file reuses the saved choice too.
"$PPK" fit multinomial --alpha auto --pooled-from pool.json --dim "$dim" test.txt -o test.cv2.ppk 2> /dev/null
cmp -s test.cv.ppk test.cv2.ppk || fail "--alpha auto --pooled-from differs from --pooled-from alone"
pass
expect_error 2 "--alpha 0.37" "train.txt" "pool.json" "test.txt" -- \
  "$PPK" fit multinomial --pooled-from pool.json --alpha 0.37 --dim "$dim" test.txt -o refused.ppk
expect_no_output refused.ppk

# Both kinds of saved choice, forced by a single candidate: ml, and a fixed alpha.
"$PPK" fit multinomial --alpha auto --cv-alphas ml --cv-c 10 --dim "$dim" --save-pooled pool.ml.json train.txt -o ml.ppk 2> ml.log
"$PPK" fit multinomial --pooled-from pool.ml.json --dim "$dim" test.txt -o test.ml.ppk 2> /dev/null
"$PPK" fit multinomial --estimator ml --dim "$dim" test.txt -o test.ml.expected.ppk
cmp -s test.ml.ppk test.ml.expected.ppk || fail "an ml choice: the test rows are not the ML rows"
pass
expect_error 2 "--alpha 0.1" "train.txt" "pool.ml.json" "test.txt" -- \
  "$PPK" fit multinomial --pooled-from pool.ml.json --alpha 0.1 --dim "$dim" test.txt -o refused.ppk
expect_error 2 "--estimator posterior" "train.txt" "pool.ml.json" -- \
  "$PPK" fit multinomial --pooled-from pool.ml.json --estimator posterior --dim "$dim" test.txt -o refused.ppk
"$PPK" fit multinomial --alpha auto --cv-alphas 0.1 --cv-c 10 --dim "$dim" --save-pooled pool.fixed.json train.txt -o fixed.ppk 2> /dev/null
"$PPK" fit multinomial --pooled-from pool.fixed.json --dim "$dim" test.txt -o test.fixed.ppk 2> /dev/null
"$PPK" fit multinomial --alpha 0.1 --dim "$dim" test.txt -o test.fixed.expected.ppk
cmp -s test.fixed.ppk test.fixed.expected.ppk || fail "an alpha choice: the test rows are not those of --alpha 0.1"
pass
expect_error 2 "--alpha 0.5" "train.txt" "pool.fixed.json" -- \
  "$PPK" fit multinomial --pooled-from pool.fixed.json --alpha 0.5 --dim "$dim" test.txt -o refused.ppk
expect_error 2 "--estimator ml" "train.txt" "pool.fixed.json" -- \
  "$PPK" fit multinomial --pooled-from pool.fixed.json --estimator ml --dim "$dim" test.txt -o refused.ppk
expect_no_output refused.ppk
# A pool of another smoothing does not serve --alpha auto.
"$PPK" fit multinomial --alpha evidence --dim "$dim" --save-pooled pool.evidence.json train.txt -o /dev/null 2> /dev/null
expect_error 2 "the test file test.txt is fitted with --alpha auto, but the training file train.txt was fitted with --alpha evidence (alpha = " -- \
  "$PPK" fit multinomial --alpha auto --pooled-from pool.evidence.json --dim "$dim" test.txt -o refused.ppk
# An auto choice of ml refuses a posterior test file, naming how it was chosen.
expect_error 2 "is fitted with --alpha 0.1, but the training file train.txt was fitted with --alpha auto (ml) (saved in pool.ml.json)" -- \
  "$PPK" fit multinomial --pooled-from pool.ml.json --alpha 0.1 --dim "$dim" test.txt -o refused.ppk

# 3. Other settings: ppk_norm, rho = 1, 3 folds, a C grid of its own, a candidate list of its own.
"$PPK" fit multinomial --alpha auto --cv-kernel ppk_norm --cv-gamma 1 --cv-folds 3 --cv-c 0.5,20 \
  --cv-alphas 0.01,ml,0.3 --dim "$dim" train.txt -o norm.ppk 2> norm.log
[[ $(table norm.log | cut -d' ' -f1,3 | tr '\n' ' ') == "0.01 0.5 0.01 20 ml 0.5 ml 20 0.3 0.5 0.3 20 " ]] ||
  fail "ppk_norm: the candidates and C values: $(cat norm.log)"
pass
check_table norm.log multinomial train.txt ppk_norm 1 3

# 4. Bernoulli rows of single vectors: evidence is skipped (one binary draw says nothing about the prior),
# saying why; the others are scored as svm-train scores them.
awk '{ printf "%s", $1; for (i = 2; i <= NF; i++) { split($i, f, ":"); printf " %s:1", f[1] } print "" }' train.txt > binary.txt
"$PPK" fit bernoulli --alpha auto --cv-alphas evidence,ml,0.5 --cv-c 1,100 --dim "$dim" binary.txt -o bernoulli.ppk 2> bernoulli.log
grep -qF "candidate evidence skipped" bernoulli.log && grep -qF "every example is one vector" bernoulli.log ||
  fail "bernoulli: evidence not skipped with its reason: $(cat bernoulli.log)"
pass
check_table bernoulli.log bernoulli binary.txt ppk 0.5 5
read -r chosen _ <<< "$best"
cmp -s bernoulli.ppk "rows.bernoulli.${chosen//\//_}" || fail "bernoulli: the rows written are not those of $chosen"
pass

# Bernoulli's default candidates: evidence (skipped here) and A from 0.1 to 30 (docs/documents-smoothing.md).
"$PPK" fit bernoulli --alpha auto --cv-c 1 --dim "$dim" binary.txt -o /dev/null 2> bernoulli-default.log
[[ $(table bernoulli-default.log | cut -d' ' -f1 | tr '\n' ' ') == "0.1 1 3 10 30 " ]] ||
  fail "bernoulli's default candidates: $(cat bernoulli-default.log)"
pass

# 5. Usage errors: no output file, exit status 2, a message saying what is wrong.
sed 's/^[0-9]*/1/' train.txt > one_class.txt
expect_error 2 "one class only" -- "$PPK" fit multinomial --alpha auto --dim "$dim" one_class.txt -o out.ppk
expect_no_output out.ppk
expect_error 2 "--cv-c" "'x'" -- "$PPK" fit multinomial --alpha auto --cv-c 1,x --dim "$dim" train.txt -o out.ppk
expect_error 2 "--cv-c" "'0'" -- "$PPK" fit multinomial --alpha auto --cv-c 0,1 --dim "$dim" train.txt -o out.ppk
expect_error 2 "--cv-folds must be at least 2" -- "$PPK" fit multinomial --alpha auto --cv-folds 1 --dim "$dim" train.txt -o out.ppk
expect_error 2 "--cv-kernel must be ppk or ppk_norm" -- "$PPK" fit multinomial --alpha auto --cv-kernel rbf --dim "$dim" train.txt -o out.ppk
expect_error 2 "--cv-alphas" "'-1'" -- "$PPK" fit multinomial --alpha auto --cv-alphas ml,-1 --dim "$dim" train.txt -o out.ppk
expect_error 2 "--cv-c applies to --alpha auto" -- "$PPK" fit multinomial --alpha 0.1 --cv-c 10 --dim "$dim" train.txt -o out.ppk
expect_error 2 "--cv-alphas: the candidate 1/D" "applies to multinomial rows" -- "$PPK" fit bernoulli --alpha auto --cv-alphas 1/D,ml --dim "$dim" binary.txt -o out.ppk
expect_error 2 "drop --estimator" -- "$PPK" fit multinomial --alpha auto --estimator ml --dim "$dim" train.txt -o out.ppk
expect_no_output out.ppk
finish
