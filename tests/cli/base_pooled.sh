# ppk fit multinomial --base pooled (docs/base-measure.md): rows smoothed towards the training
# file's quantised word frequencies, a_d = (c_d + A m_d) / (N + A), A = alpha D.
# Oracle: an independent Python computation from the counts and the pool file's word -> level map,
# expanded to dense D-vectors, k = sum_d (a_d a'_d)^rho summed directly, against ppk gram to 1e-12.
source "$(dirname "$0")/lib.bash" "$@"
BIN=$(dirname "$PPK")

# Two classes of documents over D = 45 words (words 41..45 never occur in training; word 44 occurs
# in the test file only: it has the smallest base level, as C_d = 0).
python3 - <<'EOF'
import random
r = random.Random(7)
def document(label):
    words = {}
    for _ in range(r.randint(3, 15)):
        d = int(r.paretovariate(1.0)) % 40 if label == 0 else 39 - int(r.paretovariate(1.2)) % 40
        words[d + 1] = words.get(d + 1, 0) + 1
    return words
for name, n in (("train.txt", 30), ("test.txt", 12)):
    with open(name, "w") as f:
        for i in range(n):
            words = document(i % 2)
            if name == "test.txt" and i == 0:
                words[44] = 2
            f.write(f"{i % 2} " + " ".join(f"{k}:{v}" for k, v in sorted(words.items())) + "\n")
EOF
"$PPK" fit multinomial --dim 45 --alpha 0.5 --base pooled --save-pooled pool.json train.txt -o train.ppk 2> fit.txt
grep -qF "pooled base of train.txt quantised to" fit.txt || fail "no note of the base: $(cat fit.txt)"
pass
"$PPK" fit multinomial --dim 45 --alpha 0.5 --base pooled --pooled-from pool.json test.txt -o test.ppk
"$PPK" decode train.ppk > train.json
"$PPK" decode test.ppk > test.json

for kind in ppk ppk_norm; do
  for rho in 0.25 0.5 1 2; do
    "$PPK" gram -t $kind -g $rho train.ppk test.ppk > "cross_${kind}_$rho.txt"
    "$PPK" gram -t $kind -g $rho train.ppk > "train_${kind}_$rho.txt"
  done
done

python3 - <<'EOF' || fail "pooled-base rows against the dense oracle"
import json, math
from gram_output import read_gram

D, alpha = 45, 0.5
A = alpha * D
def counts(path):
    docs = []
    for line in open(path):
        c = [0.0] * D
        for token in line.split()[1:]:
            k, v = token.split(":")
            c[int(k) - 1] += float(v)
        docs.append(c)
    return docs
train, test = counts("train.txt"), counts("test.txt")

# The pool file's base, checked against its definition: m~_d = (C_d + 1/2) / (C + D/2) from the
# pooled training counts; each level's value the mean m~ of its words; at most 32 levels, in
# increasing order, separated in m~ (geometric bins), the quantised base summing to 1.
base = json.load(open("pool.json"))["base"]
values, level_counts, word_level = base["level_values"], base["level_counts"], base["word_levels"]
C = [sum(doc[d] for doc in train) for d in range(D)]
smooth = [(C[d] + 0.5) / (sum(C) + D / 2) for d in range(D)]
assert len(values) <= 32 and len(word_level) == D
assert abs(sum(n * v for n, v in zip(level_counts, values)) - 1) < 1e-12
for k in range(len(values)):
    members = [smooth[d] for d in range(D) if word_level[d] == k]
    assert len(members) == level_counts[k] > 0
    assert abs(sum(members) / len(members) - values[k]) <= 1e-12 * values[k], (k, values[k])
    if k + 1 < len(values):
        assert max(members) < min(smooth[d] for d in range(D) if word_level[d] == k + 1)
assert word_level[43] == 0, "a word unseen in training has the smallest level"

m = [values[word_level[d]] for d in range(D)]
def model(c):
    N = sum(c)
    return [(c[d] + A * m[d]) / (N + A) for d in range(D)]
P, Q = [model(c) for c in train], [model(c) for c in test]

# The decoded rows: the same level table in every training and test row, listed words with their
# levels and probabilities, the share s = A / (N + A).
rows = [json.loads(line) for line in open("train.json")] + [json.loads(line) for line in open("test.json")]
for row, c, p in zip(rows, train + test, P + Q):
    assert row["levels"] == {"value": values, "count": level_counts}, "a row's level table differs from the pool's"
    assert row["listed"]["index"] == [d for d in range(D) if c[d] > 0]
    assert row["listed"]["level"] == [word_level[d] for d in row["listed"]["index"]]
    for d, a in zip(row["listed"]["index"], row["listed"]["p"]):
        assert abs(a - p[d]) <= 1e-15, (d, a, p[d])
    assert abs(row["share"] - A / (sum(c) + A)) <= 1e-15

def log_kernel(rho):
    return lambda p, q: math.log(sum((a * b) ** rho for a, b in zip(p, q)))
for kind in ("ppk", "ppk_norm"):
    for rho in (0.25, 0.5, 1.0, 2.0):
        name = "%g" % rho
        cross = read_gram(f"cross_{kind}_{name}.txt", len(P), len(Q))
        gram = read_gram(f"train_{kind}_{name}.txt", len(P), len(P))
        for K, rows_, cols in ((cross, P, Q), (gram, P, P)):
            for i, p in enumerate(rows_):
                for j, q in enumerate(cols):
                    k = math.exp(log_kernel(rho)(p, q))
                    if kind == "ppk_norm":
                        k /= math.sqrt(math.exp(log_kernel(rho)(p, p) + log_kernel(rho)(q, q)))
                    assert abs(K[i][j] - k) <= 1e-12 * k, (kind, rho, i, j, K[i][j], k)
        # PSD: a Cholesky factorisation of K + 1e-12 max(diag) I succeeds.
        n, jitter = len(gram), 1e-12 * max(gram[i][i] for i in range(len(gram)))
        L = [[0.0] * n for _ in range(n)]
        for i in range(n):
            for j in range(i + 1):
                s = gram[i][j] + (jitter if i == j else 0.0) - sum(L[i][t] * L[j][t] for t in range(j))
                if i == j:
                    assert s > 0, (kind, rho, "not PSD at", i, s)
                    L[i][i] = math.sqrt(s)
                else:
                    L[i][j] = s / L[j][j]
EOF
pass

# s trials and all trials at rho = 1/2: B = sum_d sqrt(a_d a'_d) is the same sum; k = B^s and 1/(1 - L B).
"$PPK" fit multinomial --dim 45 --alpha 0.5 --base pooled --pooled-from pool.json --trials 3 test.txt -o trials.ppk
"$PPK" gram -t ppk -g 0.5 trials.ppk > trials_gram.txt
"$PPK" gram -t ppk -g 0.5 test.ppk > one_gram.txt
python3 - <<'EOF' || fail "3-trial rows: k = B^3"
from gram_output import read_gram
one, three = read_gram("one_gram.txt", 12, 12), read_gram("trials_gram.txt", 12, 12)
for i in range(12):
    for j in range(12):
        assert abs(three[i][j] - one[i][j] ** 3) <= 1e-13 * one[i][j] ** 3, (i, j)
EOF
pass

# svm-train and svm-predict accept the rows.
"$BIN/svm-train" -q -t ppk_norm -g 0.5 train.ppk train.model
"$BIN/svm-predict" test.ppk train.model predictions.txt > accuracy.txt
[[ $(wc -l < predictions.txt) == 12 ]] && grep -qF "Accuracy" accuracy.txt || fail "svm-predict: $(cat accuracy.txt)"
pass

# Old rows decode and re-encode bit for bit (uniform base; one event, 4 trials, all trials with decay).
cat > old.ppk <<'EOF'
1 1:1 2:3 3:4 6:0.14285714285714285 7:0.42857142857142855 9:0.2857142857142857
2 1:1 2:3 3:4 4:4 6:0.125 8:0.625
3 1:1 2:3 3:3 4:-1 5:0.25 6:0.2 9:0.6
EOF
"$PPK" decode old.ppk | "$PPK" encode - > reencoded.ppk
cmp -s old.ppk reencoded.ppk || fail "old rows changed: $(diff old.ppk reencoded.ppk)"
pass
# Leveled rows round-trip too (row -> JSON -> row).
"$PPK" encode train.json > train_again.ppk
cmp -s train.ppk train_again.ppk || fail "leveled rows changed in a round trip"
pass

# One base and one strength for both files, or a refusal naming both files.
"$PPK" fit multinomial --dim 45 --alpha 0.5 --save-pooled uniform_pool.json train.txt -o uniform.ppk
expect_error 2 "needs --save-pooled POOL" "--pooled-from POOL" -- \
  "$PPK" fit multinomial --dim 45 --base pooled test.txt -o out.ppk
expect_no_output out.ppk
expect_error 2 "test.txt is fitted with --base pooled" "uniform_pool.json" "train.txt" "holds no pooled base" -- \
  "$PPK" fit multinomial --dim 45 --alpha 0.5 --base pooled --pooled-from uniform_pool.json test.txt -o out.ppk
expect_error 2 "pool.json holds the pooled base of the training file train.txt" "test.txt" "--base uniform" -- \
  "$PPK" fit multinomial --dim 45 --alpha 0.5 --pooled-from pool.json test.txt -o out.ppk
expect_error 2 "the test file test.txt is fitted with --alpha 0.1, but the training file train.txt was fitted with --alpha 0.5 (saved in pool.json)" -- \
  "$PPK" fit multinomial --dim 45 --alpha 0.1 --base pooled --pooled-from pool.json test.txt -o out.ppk
expect_error 1 "pool.json" "train.txt" "test.txt" "--dim" -- \
  "$PPK" fit multinomial --dim 50 --alpha 0.5 --base pooled --pooled-from pool.json test.txt -o out.ppk
expect_no_output out.ppk
expect_error 2 "--base pooled smooths towards the pooled base with the posterior mean" -- \
  "$PPK" fit multinomial --dim 45 --estimator ml --base pooled --save-pooled p.json train.txt -o out.ppk
# --alpha auto under --base pooled: ml (no base measure) is left out of the default candidates, and
# refused when --cv-alphas names it.
"$PPK" fit multinomial --dim 45 --base pooled --alpha auto --cv-c 1 --cv-folds 3 --save-pooled auto_pool.json \
  train.txt -o auto.ppk 2> auto.txt
grep -qE '^  evidence ' auto.txt && grep -qE '^  0\.001 ' auto.txt || fail "--alpha auto table without its candidates: $(cat auto.txt)"
! grep -qE '^  ml ' auto.txt || fail "--base pooled --alpha auto tried ml rows: $(cat auto.txt)"
pass
expect_error 1 "candidate ml" "leave ml out of --cv-alphas" -- \
  "$PPK" fit multinomial --dim 45 --base pooled --alpha auto --cv-alphas ml,0.1 --cv-c 1 --cv-folds 3 \
  --save-pooled p.json train.txt -o out.ppk
# A pool file whose base is damaged is refused, naming it and the field.
python3 -c '
import json
pool = json.load(open("pool.json"))
pool["base"]["level_values"][0] *= 2
json.dump(pool, open("bad_pool.json", "w"))
pool["base"]["level_values"][0] /= 2
pool["base"]["level_counts"][0] += 1
json.dump(pool, open("bad_counts.json", "w"))'
expect_error 1 "bad_pool.json" '"base"' '"level values"' "summing to 1" -- \
  "$PPK" fit multinomial --dim 45 --alpha 0.5 --base pooled --pooled-from bad_pool.json test.txt -o out.ppk
expect_error 1 "bad_counts.json" '"level_counts" differ from the number of words at each level' -- \
  "$PPK" fit multinomial --dim 45 --alpha 0.5 --base pooled --pooled-from bad_counts.json test.txt -o out.ppk
expect_no_output out.ppk
# Rows under different bases (another training file's pool) do not compare; nor with uniform rows.
"$PPK" fit multinomial --dim 45 --alpha 0.5 --base pooled --save-pooled other_pool.json test.txt -o other.ppk 2>/dev/null
expect_error 1 "rows fitted with another pool file or base do not compare" "train.ppk: row 1" "other.ppk: row 1" -- \
  "$PPK" gram -t ppk -g 0.5 train.ppk other.ppk
expect_error 1 "no kernel between different sample spaces" -- "$PPK" gram -t ppk -g 0.5 train.ppk uniform.ppk

# Malformed leveled rows are refused, naming the field. Row 1 of train.ppk, D = 45: field 52 = K,
# 53..52+K the level values, then the level counts, then each listed word's level + 1.
row=$(head -1 train.ppk)
K=$(field "$row" 52)
counts_first=$((53 + K))
levels_first=$((53 + 2 * K))
first_count=$(field "$row" $counts_first)
first_value=$(field "$row" 53)
listed_word=$(awk '{ for (i = 2; i <= NF; i++) { split($i, f, ":"); if (f[1] >= 7 && f[1] <= 51) { print f[1] - 7; exit } } }' <<< "$row")
edit() {  # edit INDEX VALUE: the row with INDEX set to VALUE (added in order when absent)
  python3 -c '
import sys
row, index, value = sys.argv[1], int(sys.argv[2]), sys.argv[3]
tokens = row.split()
entries = {int(t.split(":")[0]): t.split(":")[1] for t in tokens[1:]}
entries[index] = value
print(tokens[0], " ".join(f"{k}:{v}" for k, v in sorted(entries.items())))' "$row" "$1" "$2" > bad.ppk
}
edit $counts_first $((first_count + 1))
expect_error 1 'field "level counts"' "summing to D = 45" -- "$PPK" decode bad.ppk
edit $counts_first 0.5
expect_error 1 'field "level counts"' "a whole number of words" -- "$PPK" decode bad.ppk
edit 53 "$(python3 -c "print(repr(2 * $first_value))")"
expect_error 1 'field "level values"' "a base summing to 1" -- "$PPK" decode bad.ppk
edit 53 -0.1
expect_error 1 'field "level values"' "a base probability in (0, 1]" -- "$PPK" decode bad.ppk
edit 52 33
expect_error 1 'field "levels"' "[0, 32]" -- "$PPK" decode bad.ppk
edit $((levels_first + listed_word)) $((K + 1))
expect_error 1 'field "word levels"' "a whole number in [1, K = $K]" -- "$PPK" decode bad.ppk
edit $((levels_first + 44)) 1
expect_error 1 'field "word levels"' "no level here" -- "$PPK" decode bad.ppk
python3 -c '
import sys
row, first, word = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
tokens = row.split()
print(" ".join([tokens[0]] + [t for t in tokens[1:] if int(t.split(":")[0]) != first + word]))' "$row" $levels_first "$listed_word" > bad.ppk
expect_error 1 'field "word levels"' "the level in [1, K] of the listed word" -- "$PPK" decode bad.ppk

finish
