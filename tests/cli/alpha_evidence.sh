# ppk fit multinomial|bernoulli --alpha evidence: the prior's strength chosen on the training file by
# maximum evidence, checked against the maximiser computed here independently (Python: the
# Dirichlet-multinomial / beta-binomial evidence over every coordinate, a grid in log A refined by
# golden section); printed with its standard error, saved by --save-pooled, reused unchanged with
# --pooled-from, and a contradicting --alpha for the test file refused naming both files.
source "$(dirname "$0")/lib.bash" "$@"

# evidence_argmax FAMILY FILE D: the alpha maximising the evidence of FILE (oracle).
evidence_argmax() {
  python3 - "$@" <<'EOF'
import math, sys
from collections import defaultdict
family, path, dim = sys.argv[1], sys.argv[2], int(sys.argv[3])
examples = defaultdict(list)  # qid (or line) -> vectors {index: value}
for number, line in enumerate(open(path)):
    fields = line.split()
    key = next((f for f in fields[1:] if f.startswith("qid:")), number)
    examples[key].append({int(f.split(":")[0]): float(f.split(":")[1]) for f in fields[1:] if not f.startswith("qid:")})
lg = math.lgamma
def multinomial(a):  # Dirichlet(a/D, .., a/D): a = alpha D
    total = 0.0
    for vectors in examples.values():
        counts = [sum(v.get(d, 0.0) for v in vectors) for d in range(1, dim + 1)]
        total += lg(a) - lg(sum(counts) + a) + sum(lg(c + a / dim) - lg(a / dim) for c in counts)
    return total
def bernoulli(b):  # Beta(b, b) per feature, over every feature
    total = 0.0
    for vectors in examples.values():
        n = len(vectors)
        for d in range(1, dim + 1):
            k = sum(1 for v in vectors if v.get(d, 0.0) != 0)
            total += lg(k + b) + lg(n - k + b) - lg(n + 2 * b) - 2 * lg(b) + lg(2 * b)
    return total
f = multinomial if family == "multinomial" else bernoulli
grid = [math.log(1e-4) + i * (math.log(1e6) - math.log(1e-4)) / 4000 for i in range(4001)]
best = max(range(len(grid)), key=lambda i: f(math.exp(grid[i])))
lo, hi = grid[max(best - 1, 0)], grid[min(best + 1, len(grid) - 1)]
g = (math.sqrt(5) - 1) / 2
while hi - lo > 1e-12:
    c, d = hi - g * (hi - lo), lo + g * (hi - lo)
    if f(math.exp(c)) > f(math.exp(d)):
        hi = d
    else:
        lo = c
a = math.exp((lo + hi) / 2)
print(repr(a / dim if family == "multinomial" else a))
EOF
}

# saved_alpha POOL: the alpha in a pool file.
saved_alpha() { python3 -c 'import json, sys; print(repr(json.load(open(sys.argv[1]))["smoothing"]["alpha"]))' "$1"; }
# printed_alpha FILE: the alpha printed on stderr ("alpha = X, chosen by ...").
printed_alpha() { sed -n 's/.*: alpha = \([^,]*\), chosen by.*/\1/p' "$1"; }

# Multinomial: documents over D = 6 words, overdispersed (each favours a few words).
cat > train.txt <<'EOF'
1 1:4 2:1 5:2
1 1:3 3:1
1 2:5 4:1 6:1
-1 3:2 4:4
-1 1:1 5:6 6:1
-1 2:1 3:3 4:2
1 1:2 6:5
EOF
printf '1 1:2 3:1\n-1 4:3 6:1\n' > test.txt
"$PPK" fit multinomial --alpha evidence --save-pooled pool.json --dim 6 train.txt -o train.ppk 2> fit.txt
grep -qF "ppk fit multinomial: alpha = " fit.txt && grep -qF "chosen by maximum evidence (standard error" fit.txt &&
  grep -qF "on train.txt" fit.txt || fail "the chosen alpha is not reported: $(cat fit.txt)"
pass
oracle=$(evidence_argmax multinomial train.txt 6)
expect_close "$(printed_alpha fit.txt)" "$oracle" 1e-6
expect_close "$(saved_alpha pool.json)" "$oracle" 1e-6
grep -qF '"chosen_by":"maximum evidence' pool.json || fail "pool.json: $(cat pool.json)"
pass
alpha=$(saved_alpha pool.json)
# The training rows are the posterior means (c_d + alpha)/(N + alpha D): row 1, c = (4, 1, 0, 0, 2, 0),
# N = 7 (row layout: 6 the base, shared by the absent words; 7..6+D the others, see fit_multinomial.sh).
row=$(head -1 train.ppk)
expect_close "$(field "$row" 7)" "(4 + $alpha) / (7 + 6 * $alpha)"
expect_close "$(field "$row" 6)" "$alpha / (7 + 6 * $alpha)"

# The test file reuses the saved value (with --alpha evidence or without --alpha), never re-estimates
# it: its rows are those of --alpha ALPHA, and the message names the training file and the pool.
"$PPK" fit multinomial --alpha evidence --pooled-from pool.json --dim 6 test.txt -o test-auto.ppk 2> reuse.txt
grep -qF "chosen by maximum evidence" reuse.txt && grep -qF "on train.txt (read from pool.json)" reuse.txt ||
  fail "the reused alpha is not reported: $(cat reuse.txt)"
pass
"$PPK" fit multinomial --pooled-from pool.json --dim 6 test.txt -o test-default.ppk 2> /dev/null
"$PPK" fit multinomial --alpha "$alpha" --dim 6 test.txt -o test-given.ppk
cmp -s test-auto.ppk test-given.ppk && cmp -s test-default.ppk test-given.ppk || fail "the test rows differ from --alpha $alpha"
pass
row=$(head -1 test-auto.ppk)
expect_close "$(field "$row" 7)" "(2 + $alpha) / (3 + 6 * $alpha)"
# Fitting the test file on its own would choose another value: the reuse matters.
"$PPK" fit multinomial --alpha evidence --dim 6 test.txt -o /dev/null 2> own.txt || true
[[ $(printed_alpha own.txt) != "$(printed_alpha fit.txt)" ]] || fail "the test file chose the training file's alpha"
pass

# A contradicting --alpha for the test file is refused, naming both files; nothing is written.
expect_error 2 "the test file test.txt is fitted with --alpha 0.5, but the training file train.txt was fitted with --alpha evidence (alpha = $alpha) (saved in pool.json)" -- \
  "$PPK" fit multinomial --alpha 0.5 --pooled-from pool.json --dim 6 test.txt -o out.ppk
expect_no_output out.ppk

# Every smoothing decided on the training file and saved is checked against the test file's own
# --estimator and --alpha, not only a chosen one: a mismatch is refused naming both files and both
# smoothings (numbers in their shortest form: 0.1, not 0.10000000000000001); nothing is written.
expect_error 2 "the test file test.txt is fitted with --estimator ml, but the training file train.txt was fitted with --alpha evidence (alpha = $alpha)" \
  "drop --estimator ml to reuse the training file's smoothing" -- \
  "$PPK" fit multinomial --estimator ml --pooled-from pool.json --dim 6 test.txt -o out.ppk
"$PPK" fit multinomial --alpha 0.1 --save-pooled given.json --dim 6 train.txt -o /dev/null
expect_error 2 "the test file test.txt is fitted with --alpha 0.2, but the training file train.txt was fitted with --alpha 0.1 (saved in given.json)" -- \
  "$PPK" fit multinomial --alpha 0.2 --pooled-from given.json --dim 6 test.txt -o out.ppk
expect_error 2 "is fitted with --alpha evidence, but the training file train.txt was fitted with --alpha 0.1 (saved" -- \
  "$PPK" fit multinomial --alpha evidence --pooled-from given.json --dim 6 test.txt -o out.ppk
expect_error 2 "is fitted with --estimator ml, but the training file train.txt was fitted with --alpha 0.1 (saved" -- \
  "$PPK" fit multinomial --estimator ml --pooled-from given.json --dim 6 test.txt -o out.ppk
"$PPK" fit multinomial --estimator ml --save-pooled ml.json --dim 6 train.txt -o /dev/null
expect_error 2 "is fitted with --alpha 0.1, but the training file train.txt was fitted with --estimator ml (saved in ml.json)" -- \
  "$PPK" fit multinomial --alpha 0.1 --pooled-from ml.json --dim 6 test.txt -o out.ppk
expect_error 2 "is fitted with --estimator posterior, but the training file train.txt was fitted with --estimator ml (saved" -- \
  "$PPK" fit multinomial --estimator posterior --pooled-from ml.json --dim 6 test.txt -o out.ppk
"$PPK" fit multinomial --estimator map --alpha 2 --save-pooled map.json --dim 6 train.txt -o /dev/null
expect_error 2 "is fitted with --estimator posterior --alpha 2, but the training file train.txt was fitted with --estimator map --alpha 2 (saved" -- \
  "$PPK" fit multinomial --estimator posterior --alpha 2 --pooled-from map.json --dim 6 test.txt -o out.ppk
"$PPK" fit multinomial --save-pooled default.json --dim 6 train.txt -o /dev/null
expect_error 2 "is fitted with --alpha 0.5, but the training file train.txt was fitted with --alpha 1/D (alpha = 0.16666666666666666) (saved in default.json)" -- \
  "$PPK" fit multinomial --alpha 0.5 --pooled-from default.json --dim 6 test.txt -o out.ppk
expect_error 1 "default.json was written by ppk fit multinomial" "test.txt is fitted by ppk fit bernoulli" -- \
  "$PPK" fit bernoulli --pooled-from default.json --dim 6 test.txt -o out.ppk
expect_error 2 "--alpha cv is now --alpha auto" -- "$PPK" fit multinomial --alpha cv --dim 6 train.txt -o out.ppk
expect_no_output out.ppk
# The same options as the training file's are accepted, and the rows are those of the options alone.
for pool in given:--alpha=0.1 ml:--estimator=ml map:--estimator=map,--alpha=2 default:--alpha=1/D; do
  IFS=, read -r -a options <<< "${pool#*:}"
  options=("${options[@]/=/ }")
  # shellcheck disable=SC2068
  "$PPK" fit multinomial ${options[@]} --pooled-from "${pool%%:*}.json" --dim 6 test.txt -o same.ppk 2> /dev/null
  "$PPK" fit multinomial --pooled-from "${pool%%:*}.json" --dim 6 test.txt -o reused.ppk 2> /dev/null
  # shellcheck disable=SC2068
  "$PPK" fit multinomial ${options[@]} --dim 6 test.txt -o alone.ppk
  cmp -s same.ppk alone.ppk && cmp -s reused.ppk alone.ppk || fail "${pool%%:*}: the test rows differ from ${options[*]}"
done
pass

# Options and data where the evidence cannot choose.
expect_error 2 "--alpha evidence chooses the prior's strength, but --estimator ml uses no prior" -- \
  "$PPK" fit multinomial --alpha evidence --estimator ml train.txt -o out.ppk
expect_error 2 "--alpha must be a number, 1/D, auto or evidence, got 'often'" -- "$PPK" fit multinomial --alpha often train.txt
printf '1 1:1 2:1 3:1\n1 1:1 2:1 4:1\n' > even.txt
expect_error 1 "even.txt: --alpha evidence: the counts are no more dispersed than draws from the prior's base measure" \
  "grows without bound" -- "$PPK" fit multinomial --alpha evidence even.txt -o out.ppk
printf '1 1:3\n1 2:5\n' > single.txt
expect_error 1 "single.txt: --alpha evidence: no example has counts in two different places" -- \
  "$PPK" fit multinomial --alpha evidence single.txt -o out.ppk
expect_no_output out.ppk

# Bernoulli: examples of several vectors (qid groups) over D = 5 features; Beta(alpha, alpha).
cat > sets.txt <<'EOF'
1 qid:1 1:1 2:1
1 qid:1 1:1
1 qid:1 1:1 3:1
1 qid:2 4:1
1 qid:2 4:1 5:1
1 qid:2 4:1
-1 qid:3 2:1 3:1
-1 qid:3 2:1
-1 qid:3 2:1 3:1
-1 qid:3 5:1
EOF
"$PPK" fit bernoulli --alpha evidence --save-pooled bernoulli-pool.json --dim 5 sets.txt -o sets.ppk 2> fit.txt
expect_close "$(printed_alpha fit.txt)" "$(evidence_argmax bernoulli sets.txt 5)" 1e-6
expect_close "$(saved_alpha bernoulli-pool.json)" "$(printed_alpha fit.txt)" 1e-15
printf '1 qid:7 1:1\n1 qid:7 2:1\n' > set-test.txt
expect_error 2 "the test file set-test.txt is fitted with --alpha 1, but the training file sets.txt was fitted with --alpha evidence (alpha = " "(saved in bernoulli-pool.json)" -- \
  "$PPK" fit bernoulli --alpha 1 --pooled-from bernoulli-pool.json --dim 5 set-test.txt -o out.ppk
printf '1 1:1 2:1\n-1 3:1\n' > one-vector.txt
expect_error 1 "one-vector.txt: --alpha evidence: every example is one vector" "group each example's vectors with qid:" -- \
  "$PPK" fit bernoulli --alpha evidence one-vector.txt -o out.ppk
finish
