# ppk fit hmm|mixture --pooled and --adapt-from (adaptation.hpp): the pooled model is one row
# (label 0) and is kept in the pool file; adapted rows decode and pair with the pooled row; a huge
# --relevance reproduces the pooled model; training and test files adapt from the same pool; the
# pooled fit does not depend on --threads; on short sequences over many symbols whose classes differ
# only in their dynamics, adapted HMMs beat per-example maximum-likelihood HMMs by a clear margin in
# cross-validated accuracy; every bad option is refused by name with nothing written.
source "$(dirname "$0")/lib.bash" "$@"
BIN=$(dirname "$PPK")
[[ -x $BIN/svm-train ]] || fail "the patched svm-train is not next to $PPK"

# 100 sequences of 25 symbols over 20 letters (seed 5). Three hidden states emit mostly from their
# own group of letters; class +1 stays in a state (0.8), class -1 moves on to the next (0.8). Both
# classes visit the states equally often, so their letter compositions agree.
python3 - <<'PY'
import random
random.seed(5)
letters = "ABCDEFGHIJKLMNOPQRST"
groups = [letters[0:7], letters[7:14], letters[14:20]]
def emit(q):
    return random.choice(groups[q]) if random.random() < 0.85 else random.choice(letters)
def sequence(label, n):
    q, s = random.randrange(3), ""
    for _ in range(n):
        s += emit(q)
        if label > 0:
            q = q if random.random() < 0.8 else random.randrange(3)
        else:
            q = (q + 1) % 3 if random.random() < 0.8 else random.randrange(3)
    return s
for path, count in (("train.txt", 100), ("test.txt", 20)):
    with open(path, "w") as f:
        for i in range(count):
            label = 1 if i % 2 == 0 else -1
            f.write("%d %s\n" % (label, sequence(label, 25)))
PY

"$PPK" fit hmm --pooled --states 3 --save-pooled pool.json --save-alphabet alphabet.txt train.txt -o pooled.row
[[ $(wc -l < pooled.row) == 1 && $(cut -d' ' -f1 pooled.row) == 0 ]] || fail "the pooled row: $(head -c 200 pooled.row)"
pass
[[ $(field "$(cat pooled.row)" 2) == 9 && $(field "$(cat pooled.row)" 3) == 3 ]] || fail "not a 3-state hmm row"
pass
python3 -c 'import json,sys; m = json.load(open("pool.json"))["model"]; assert m["family"] == "hmm" and len(m["start"]) == 3' ||
  fail "pool.json holds no pooled hmm: $(head -c 300 pool.json)"
pass
# The pooled fit does not depend on the threads.
"$PPK" fit hmm --pooled --states 3 --threads 2 --alphabet-from alphabet.txt train.txt -o pooled2.row
cmp -s pooled.row pooled2.row || fail "--threads 2 changed the pooled row"
pass

# --pooled --states auto: M by held-out likelihood, printed and saved.
"$PPK" fit hmm --pooled --save-pooled auto_pool.json --alphabet-from alphabet.txt train.txt -o auto.row 2>auto.log
grep -qF "states = " auto.log && grep -qF "held-out log-likelihood of every fifth sequence" auto.log ||
  fail "the chosen number of states is not printed: $(cat auto.log)"
pass
python3 -c '
import json; p = json.load(open("auto_pool.json")); m = int(p["chosen"]["states"]["value"])
assert 2 <= m <= 16 and len(p["model"]["start"]) == m, p["chosen"]' || fail "auto_pool.json: $(head -c 300 auto_pool.json)"
pass

"$PPK" fit hmm --adapt-from pool.json --alphabet-from alphabet.txt train.txt -o adapted.ppk
"$PPK" fit hmm --adapt-from pool.json --alphabet-from alphabet.txt test.txt -o adapted_test.ppk
[[ $(wc -l < adapted.ppk) == 100 && $(wc -l < adapted_test.ppk) == 20 ]] || fail "adapted row counts"
pass
# Adapted rows decode; they keep the labels and pair with the pooled row.
"$PPK" decode adapted.ppk -o adapted.jsonl
"$PPK" decode pooled.row -o pooled.jsonl
python3 - <<'PY' || fail "decoded adapted rows"
import json
labels = [line.split()[0] for line in open("train.txt")]
for label, line in zip(labels, open("adapted.jsonl")):
    m = json.loads(line)
    assert m["family"] == "hmm" and len(m["start"]) == 3 and m["length"] == 24 and str(m["label"]) == label, m
PY
pass
"$PPK" gram -t ppk_norm -g 0.5 -d 24 adapted_test.ppk pooled.row -o cross.txt
python3 - <<'PY' || fail "the adapted x pooled kernels: $(head -3 cross.txt)"
import math
values = [float(v) for line in open("cross.txt") for v in line.split()]
assert len(values) == 20 and all(math.isfinite(v) and 0 < v <= 1 + 1e-12 for v in values), values
PY
pass

# --relevance 1e12: every adapted row is the pooled model to 1e-9.
"$PPK" fit hmm --adapt-from pool.json --relevance 1e12 --alphabet-from alphabet.txt test.txt -o stiff.ppk
expect_rows_are_pooled stiff.ppk pooled.row

# Adapted HMMs against per-example maximum-likelihood HMMs (same 3 states), best 5-fold accuracy over
# rho in {0.5, 1} and C in {1, 10, 100}.
"$PPK" fit hmm --states 3 --alphabet-from alphabet.txt train.txt -o ml.ppk
best_accuracy() {
  local best=0 g c accuracy
  for g in 0.5 1; do
    for c in 1 10 100; do
      accuracy=$("$BIN/svm-train" -t ppk_norm -g $g -d 24 -c $c -v 5 "$1" 2>/dev/null | sed -n 's/.*Accuracy = \([0-9.]*\)%.*/\1/p')
      best=$(awk -v a="$accuracy" -v b="$best" 'BEGIN { print (a > b ? a : b) }')
    done
  done
  echo "$best"
}
adapted=$(best_accuracy adapted.ppk)
ml=$(best_accuracy ml.ppk)
echo "5-fold accuracy: adapted $adapted%, per-example ML $ml%"
awk -v a="$adapted" -v m="$ml" 'BEGIN { exit !(a >= 95 && a >= m + 8) }' ||
  fail "adapted HMMs ($adapted%) did not beat per-example ML HMMs ($ml%) by 8 points"
pass

# Mixtures: qid-grouped point sets, pooled and adapted.
python3 - <<'PY'
import random
random.seed(3)
with open("sets.txt", "w") as f:
    for i in range(12):
        label = 1 if i % 2 == 0 else -1
        for _ in range(15):
            x = random.gauss(1.5 * label, 1.0)
            f.write("%d qid:%d 1:%.6f 2:%.6f\n" % (label, i + 1, x, random.gauss(0.0, 1.0)))
PY
"$PPK" fit mixture --pooled --components 2 --cov diag --save-pooled mixture_pool.json sets.txt -o mixture_pooled.row
"$PPK" fit mixture --adapt-from mixture_pool.json --adapt means --relevance 4 sets.txt -o sets.ppk
[[ $(wc -l < sets.ppk) == 12 ]] || fail "expected 12 adapted mixture rows"
pass
"$PPK" gram -t ppk -g 1 sets.ppk mixture_pooled.row -o mixture_cross.txt
[[ $(wc -l < mixture_cross.txt) == 12 ]] || fail "mixture kernels: $(head -2 mixture_cross.txt)"
pass

# --pooled --components auto: K by held-out likelihood, printed and saved; refused without --pooled.
python3 - <<'PY'
import random
random.seed(8)
with open("clusters.txt", "w") as f:
    for i in range(10):
        for j in range(30):
            cx, cy = [(-6, 0), (6, 0), (0, 8)][j % 3]
            f.write("1 qid:%d 1:%.6f 2:%.6f\n" % (i + 1, random.gauss(cx, 1), random.gauss(cy, 1)))
PY
"$PPK" fit mixture --pooled --components auto --cov diag --save-pooled clusters_pool.json clusters.txt -o clusters.row 2>clusters.log
grep -qF "components = " clusters.log && grep -qF "every fifth set" clusters.log || fail "no chosen K: $(cat clusters.log)"
pass
python3 -c '
import json; p = json.load(open("clusters_pool.json")); k = int(p["chosen"]["components"]["value"])
assert k >= 3 and len(p["model"]["weights"]) == k, p["chosen"]' || fail "clusters_pool.json: $(head -c 300 clusters_pool.json)"
pass
expect_error 2 "--components auto chooses K for ppk fit mixture --pooled" -- "$PPK" fit mixture --components auto sets.txt -o bad.ppk

# A Bayesian network with a hidden class: pooled over every example's observations, then adapted.
hidden_class_network structure.json observations.txt
"$PPK" fit bayesnet --structure structure.json --estimator ml --pooled --save-pooled net_pool.json observations.txt -o net.row
"$PPK" fit bayesnet --structure structure.json --estimator ml --adapt-from net_pool.json --relevance 5 observations.txt -o nets.ppk
[[ $(wc -l < nets.ppk) == 8 && $(field "$(head -1 nets.ppk)" 2) == 10 ]] || fail "adapted networks: $(head -c 200 nets.ppk)"
pass
"$PPK" gram -t ppk -g 1 nets.ppk net.row -o net_cross.txt
[[ $(wc -l < net_cross.txt) == 8 ]] || fail "network kernels: $(head -2 net_cross.txt)"
pass
expect_error 2 "--adapt" "'means'" "bayesnet" -- "$PPK" fit bayesnet --structure structure.json --estimator ml \
  --adapt-from net_pool.json --adapt means observations.txt -o bad.ppk

# Bad options (status 2) and files (status 1): refused by name, nothing written.
A=(--alphabet-from alphabet.txt)
for tau in 0 -1 nan abc; do
  expect_error 2 "--relevance" -- "$PPK" fit hmm --adapt-from pool.json --relevance "$tau" "${A[@]}" test.txt -o bad.ppk
  expect_no_output bad.ppk
done
expect_error 2 "--adapt" "foo" -- "$PPK" fit hmm --adapt-from pool.json --adapt means,foo "${A[@]}" test.txt -o bad.ppk
expect_error 2 "--adapt" "twice" -- "$PPK" fit hmm --adapt-from pool.json --adapt means,means "${A[@]}" test.txt -o bad.ppk
expect_error 2 "--relevance applies to --adapt-from" -- "$PPK" fit hmm --relevance 3 "${A[@]}" test.txt -o bad.ppk
# What shaped the pooled model is the pool's: giving it again is an error, not silently ignored.
expect_error 2 "--states shapes the pooled model" "--adapt-from" -- \
  "$PPK" fit hmm --adapt-from pool.json --states 3 "${A[@]}" test.txt -o bad.ppk
expect_error 2 "--smoothing shapes the pooled model" -- \
  "$PPK" fit hmm --adapt-from pool.json --smoothing 1 "${A[@]}" test.txt -o bad.ppk
expect_error 2 "--components shapes the pooled model" "--fisher-from" "ppk fit mixture --pooled" -- \
  "$PPK" fit mixture --fisher-from mixture_pool.json --components 2 sets.txt -o bad.ppk
expect_error 2 "--alpha shapes the pooled model" -- "$PPK" fit bayesnet --structure structure.json --estimator ml \
  --adapt-from net_pool.json --alpha 2 observations.txt -o bad.ppk
expect_no_output bad.ppk
expect_error 2 "--pooled, --adapt-from and --fisher-from exclude each other" -- \
  "$PPK" fit hmm --pooled --adapt-from pool.json "${A[@]}" test.txt -o bad.ppk
expect_error 2 "--save-pooled keeps the model that --pooled fits" -- \
  "$PPK" fit hmm --adapt-from pool.json --save-pooled other.json "${A[@]}" test.txt -o bad.ppk
expect_error 2 "--prior and --prior-count apply to per-example fits" -- \
  "$PPK" fit mixture --pooled --prior pooled sets.txt -o bad.ppk
expect_error 2 "--pooled is not offered for ppk fit gaussian" "(mixture, hmm, bayesnet, lds and slds)" -- "$PPK" fit gaussian --pooled sets.txt -o bad.ppk
expect_error 2 "--adapt-from is not offered for ppk fit poisson" -- "$PPK" fit poisson --adapt-from pool.json sets.txt -o bad.ppk
expect_error 1 "mixture_pool.json was written by ppk fit mixture" -- \
  "$PPK" fit hmm --adapt-from mixture_pool.json "${A[@]}" test.txt -o bad.ppk
"$PPK" fit hmm --states 2 --save-pooled plain_pool.json "${A[@]}" train.txt -o /dev/null
expect_error 2 "plain_pool.json holds no pooled model" "--pooled --save-pooled plain_pool.json" -- \
  "$PPK" fit hmm --adapt-from plain_pool.json "${A[@]}" test.txt -o bad.ppk
expect_error 1 "missing.json" -- "$PPK" fit hmm --adapt-from missing.json "${A[@]}" test.txt -o bad.ppk
python3 -c '
import json; p = json.load(open("pool.json")); p["model"]["trans"][0][0] = -1; json.dump(p, open("broken.json", "w"))'
expect_error 1 "broken.json" "\"model\"" -- "$PPK" fit hmm --adapt-from broken.json "${A[@]}" test.txt -o bad.ppk
expect_no_output bad.ppk
finish
