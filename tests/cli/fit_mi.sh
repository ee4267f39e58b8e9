# ppk fit mi: mutual-information rows (family 16, mi.hpp) for the gaussian and multinomial likelihoods;
# the mediator saved with --save-mediator and reused with --mediator-from gives byte-identical rows;
# ppk gram -t ppk / ppk_norm -g 1 against the closed forms computed here in python from the data
# (Seeger 2001: the RBF kernel exp(-a |x1-x2|^2 / (2 s (s + 2a))), the Dirichlet-multinomial
# Q = C(x1) C(x2) B(alpha + x1 + x2) / B(alpha)); the patched svm-train and svm-predict run on the rows;
# errors naming file, line and field, with nothing written.
source "$(dirname "$0")/lib.bash" "$@"
need_patched_tools svm-train svm-predict

# ---- gaussian ----------------------------------------------------------------------------------
cat > unlabeled.txt <<'DATA'
0 1:0.5 2:-1.0
0 1:1.5 2:0.5
0 1:-0.5 2:2.0
0 1:2.5
DATA
cat > train.txt <<'DATA'
1 1:1.0 2:1.0
1 1:1.2 2:0.8
-1 1:-1.0 2:-1.2
-1 1:-0.8 2:-1.0
DATA
cat > test.txt <<'DATA'
1 1:0.9 2:1.1
-1 1:-1.1 2:-0.9
DATA

# Flat prior, s = 0.5, lambda = 2: the mediator is N(x-bar, (s / lambda) I) (Seeger section 2.1).
"$PPK" fit mi gaussian --var 0.5 --lambda 2 --unlabeled unlabeled.txt --save-mediator gaussian.json train.txt -o train.ppk
[[ $(wc -l < train.ppk) == 4 ]] || fail "expected one row per datum: $(cat train.ppk)"
pass
mapfile -t rows < train.ppk
[[ ${rows[0]%% *} == 1 && $(field "${rows[0]}" 2) == 16 && $(field "${rows[0]}" 3) == 1 ]] ||
  fail "expected label 1, family 16 with K = 1: ${rows[0]}"
pass
python3 - gaussian.json <<'PY' || fail "mediator: $(cat gaussian.json)"
import json, sys
m = json.load(open(sys.argv[1]))
assert m["mediator"] == "gaussian" and m["dim"] == 2, m
assert abs(m["likelihood_variance"] - 0.5) < 1e-15 and abs(m["variance"] - 0.25) < 1e-15, m
xbar = [(0.5 + 1.5 - 0.5 + 2.5) / 4, (-1.0 + 0.5 + 2.0 + 0.0) / 4]
assert all(abs(a - b) < 1e-15 for a, b in zip(m["mean"], xbar)), m
PY
pass

# The saved mediator gives the same rows, byte for byte.
"$PPK" fit mi gaussian --mediator-from gaussian.json train.txt -o train_again.ppk
cmp -s train.ppk train_again.ppk || fail "--mediator-from rows differ: $(diff train.ppk train_again.ppk | head -4)"
pass
"$PPK" fit mi gaussian --mediator-from gaussian.json test.txt -o test.ppk

# ppk_norm -g 1 between train and test rows: exp(-a |x1-x2|^2 / (2 s (s + 2a))), a = 0.25, s = 0.5.
"$PPK" gram -t ppk_norm -g 1 train.ppk test.ppk -o norm.txt
python3 - norm.txt <<'PY' || fail "gaussian MI kernel: $(cat norm.txt)"
import math, sys
from gram_output import read_gram
train = [(1.0, 1.0), (1.2, 0.8), (-1.0, -1.2), (-0.8, -1.0)]
test = [(0.9, 1.1), (-1.1, -0.9)]
a, s = 0.25, 0.5
gram = read_gram(sys.argv[1], 4, 2)
for i, x in enumerate(train):
    for j, y in enumerate(test):
        d2 = sum((u - v) ** 2 for u, v in zip(x, y))
        k = math.exp(-a * d2 / (2 * s * (s + 2 * a)))
        assert abs(gram[i][j] - k) <= 1e-12 * k, (i, j, gram[i][j], k)
PY
pass
# ppk -g 1 is Q itself: Q(x1, x2) = N(x1 - x2 | 0, 2 s I) N((x1 + x2)/2 | m, (s/2 + a) I) in closed form
# (the product of the two likelihoods in theta, integrated against N(theta | m, a I)).
"$PPK" gram -t ppk -g 1 train.ppk -o q.txt
python3 - q.txt <<'PY' || fail "gaussian Q: $(cat q.txt)"
import math, sys
from gram_output import read_gram
train = [(1.0, 1.0), (1.2, 0.8), (-1.0, -1.2), (-0.8, -1.0)]
m = (1.0, 0.375)
a, s = 0.25, 0.5
def normal(v, var):  # isotropic 2-D density at offset v
    return math.exp(-sum(t * t for t in v) / (2 * var)) / (2 * math.pi * var)
gram = read_gram(sys.argv[1], 4, 4)
for i, x in enumerate(train):
    for j, y in enumerate(train):
        q = normal([u - v for u, v in zip(x, y)], 2 * s) * normal([(u + v) / 2 - c for u, v, c in zip(x, y, m)], s / 2 + a)
        assert abs(gram[i][j] - q) <= 1e-12 * q, (i, j, gram[i][j], q)
PY
pass

# svm-train / svm-predict on the rows.
"$BIN/svm-train" -q -t ppk_norm -g 1 train.ppk model.txt
grep -qF "kernel_type ppk_norm" model.txt || fail "model file: $(head -5 model.txt)"
pass
"$BIN/svm-predict" test.ppk model.txt predictions.txt > accuracy.txt
[[ $(cat predictions.txt | tr '\n' ' ') == "1 -1 " ]] || fail "predictions: $(cat predictions.txt) $(cat accuracy.txt)"
pass

# A proper prior without unlabeled data: the prior is the mediator, N(M, A0 I).
"$PPK" fit mi gaussian --var 1 --prior-mean 0.5 --prior-var 2 --save-mediator prior.json test.txt -o prior.ppk
python3 -c 'import json,sys; m = json.load(open("prior.json")); assert m["mean"] == [0.5, 0.5] and m["variance"] == 2, m' ||
  fail "prior mediator: $(cat prior.json)"
pass

# ---- multinomial --------------------------------------------------------------------------------
cat > counts_unlabeled.txt <<'DATA'
0 1:3 2:1
0 2:2 3:4
0 1:1 3:1
DATA
cat > counts.txt <<'DATA'
1 1:4 2:1
1 1:3 3:1
-1 2:1 3:5
-1 1:1 3:3
DATA
"$PPK" fit mi multinomial --prior-alpha 0.5 --lambda 3 --unlabeled counts_unlabeled.txt --save-mediator multinomial.json counts.txt -o counts.ppk
"$PPK" fit mi multinomial --mediator-from multinomial.json counts.txt -o counts_again.ppk
cmp -s counts.ppk counts_again.ppk || fail "--mediator-from rows differ: $(diff counts.ppk counts_again.ppk | head -4)"
pass
"$PPK" gram -t ppk -g 1 counts.ppk -o counts_q.txt
"$PPK" gram -t ppk_norm -g 1 counts.ppk -o counts_k.txt
python3 - counts_q.txt counts_k.txt multinomial.json <<'PY' || fail "multinomial MI kernel: $(cat counts_q.txt counts_k.txt)"
import json, math, sys
from gram_output import read_gram
x = [(4, 1, 0), (3, 0, 1), (0, 1, 5), (1, 0, 3)]
unlabeled = [(3, 1, 0), (0, 2, 4), (1, 0, 1)]
# alpha = A + lambda x-bar with A = 0.5, lambda = 3 (model-trust scaling of Dirichlet(A)).
alpha = [0.5 + 3 * sum(u[d] for u in unlabeled) / 3 for d in range(3)]
saved = json.load(open(sys.argv[3]))
assert saved["mediator"] == "multinomial" and saved["dim"] == 3, saved
assert all(abs(p - q) <= 1e-15 * q for p, q in zip(saved["alpha"], alpha)), (saved, alpha)
def log_beta(a):
    return sum(math.lgamma(v) for v in a) - math.lgamma(sum(a))
def log_coefficient(c):
    return math.lgamma(sum(c) + 1) - sum(math.lgamma(v + 1) for v in c)
def log_q(c1, c2):
    return log_coefficient(c1) + log_coefficient(c2) + log_beta([a + u + v for a, u, v in zip(alpha, c1, c2)]) - log_beta(alpha)
q = read_gram(sys.argv[1], 4, 4)
k = read_gram(sys.argv[2], 4, 4)
for i in range(4):
    for j in range(4):
        expected_q = math.exp(log_q(x[i], x[j]))
        expected_k = math.exp(log_q(x[i], x[j]) - 0.5 * (log_q(x[i], x[i]) + log_q(x[j], x[j])))
        assert abs(q[i][j] - expected_q) <= 1e-11 * expected_q, (i, j, q[i][j], expected_q)
        assert abs(k[i][j] - expected_k) <= 1e-11 * expected_k, (i, j, k[i][j], expected_k)
PY
pass
"$BIN/svm-train" -q -t ppk_norm -g 1 counts.ppk counts_model.txt
"$BIN/svm-predict" counts.ppk counts_model.txt counts_predictions.txt > counts_accuracy.txt
[[ $(wc -l < counts_predictions.txt) == 4 ]] || fail "predictions: $(cat counts_predictions.txt)"
pass

# decode shows the mi family with one dirichlet block.
"$PPK" decode counts.ppk -o counts.jsonl
grep -qF '"family":"mi"' counts.jsonl && grep -qF '"family":"dirichlet"' counts.jsonl || fail "decode: $(head -1 counts.jsonl)"
pass

# ---- errors -------------------------------------------------------------------------------------
expect_error 2 "--var" -- "$PPK" fit mi gaussian --unlabeled unlabeled.txt train.txt -o out.ppk
expect_no_output out.ppk
expect_error 2 "flat prior is not a distribution" "--prior-var" -- "$PPK" fit mi gaussian --var 1 train.txt -o out.ppk
expect_error 2 "flat prior" "lambda > 0" -- "$PPK" fit mi gaussian --var 1 --lambda 0 --unlabeled unlabeled.txt train.txt
expect_error 2 "--lambda must be a finite number >= 0, got -1" -- "$PPK" fit mi gaussian --var 1 --lambda -1 --unlabeled unlabeled.txt train.txt
expect_error 2 "unknown likelihood 'poisson'" "gaussian, multinomial" -- "$PPK" fit mi poisson train.txt
expect_error 2 "--mediator-from FILE reuses a fitted mediator: it excludes --unlabeled" -- \
  "$PPK" fit mi gaussian --mediator-from gaussian.json --unlabeled unlabeled.txt train.txt
expect_error 2 "excludes --var" -- "$PPK" fit mi gaussian --mediator-from gaussian.json --var 2 train.txt
expect_error 2 "excludes --prior-alpha" -- "$PPK" fit mi multinomial --mediator-from multinomial.json --prior-alpha 2 counts.txt
expect_error 2 "--prior-alpha must be a finite number > 0" -- "$PPK" fit mi multinomial --prior-alpha 0 counts.txt

printf '1 1:2 2:1.5\n' > fractional.txt
expect_error 1 "fractional.txt:1:" "coordinate 1 (index 2)" "a count" "1.5" -- \
  "$PPK" fit mi multinomial --mediator-from multinomial.json fractional.txt -o out.ppk
expect_no_output out.ppk
printf '0 1:1 2:1\n0 1:-1 2:3\n' > negative_unlabeled.txt
expect_error 1 "negative_unlabeled.txt:2:" "coordinate 0 (index 1)" "-1" -- \
  "$PPK" fit mi multinomial --unlabeled negative_unlabeled.txt counts.txt -o out.ppk
expect_no_output out.ppk
printf '1 1:1 4:2\n' > wide.txt
expect_error 1 "wide.txt:1: index 4 is beyond the mediator's dimension 3" -- "$PPK" fit mi multinomial --mediator-from multinomial.json wide.txt
expect_error 1 "multinomial.json: field \"mediator\": a \"multinomial\" mediator, but the likelihood is gaussian" -- \
  "$PPK" fit mi gaussian --mediator-from multinomial.json train.txt
expect_error 1 "gaussian.json: the mediator's dimension is 2, but --dim is 3" -- \
  "$PPK" fit mi gaussian --mediator-from gaussian.json --dim 3 train.txt
printf '{"mediator":"gaussian","dim":2,"likelihood_variance":1,"mean":[0],"variance":1}\n' > short.json
expect_error 1 "short.json: gaussian mediator field \"mean\"" "2 numbers" -- "$PPK" fit mi gaussian --mediator-from short.json train.txt
printf '1 qid:1 1:1\n1 qid:1 1:2\n' > grouped.txt
expect_error 1 "grouped.txt:1:" "qid groups are not data for MI rows" -- "$PPK" fit mi gaussian --var 1 --prior-var 1 grouped.txt

# The kernel is defined only at rho = 1.
expect_error 1 "only at rho = 1" "got rho = 0.5" -- "$PPK" gram -t ppk_norm -g 0.5 train.ppk
# Rows of different dimensions have no kernel.
expect_error 1 "no kernel between different sample spaces" -- "$PPK" gram -t ppk -g 1 train.ppk counts.ppk

# --help lists both likelihoods and the options.
"$PPK" fit mi --help > help.txt
grep -qF "gaussian: P(x | theta) = N(x | theta, s I)" help.txt && grep -qF -- "--mediator-from" help.txt &&
  grep -qF "multinomial: x a vector of counts" help.txt || fail "help: $(cat help.txt)"
pass
"$PPK" fit --help > fit_help.txt
grep -q "^  mi  *mutual-information kernel rows" fit_help.txt || fail "ppk fit --help does not list mi"
pass

finish
