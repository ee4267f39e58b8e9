# ppk fit hmm|mixture --pooled and --adapt-from (adaptation.hpp): the pooled model is one row
# (label 0) and is kept in the pool file; adapted rows decode and pair with the pooled row; adapted
# mixtures and networks equal a MAP-EM step written out here, and their kernels with the pooled row
# the integrals written out here; a huge --relevance reproduces the pooled model; training and test
# files adapt from the same pool; the pooled fit does not depend on --threads; on short sequences
# over many symbols whose classes differ only in their dynamics, adapted HMMs beat per-example
# maximum-likelihood HMMs by a clear margin in cross-validated accuracy; every bad option is refused
# by name with nothing written.
source "$(dirname "$0")/lib.bash" "$@"
need_patched_tools svm-train

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
expect_pooled_row pooled.row
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
# The adapted values against a MAP-EM step and kernels written out here. One step (--iterations 1)
# from the pooled mixture, means only, tau = 4: r_tm = w_m N(x_t; mu0_m, V0_m) / sum_m', N_m = sum_t r_tm,
# mu_m = (sum_t r_tm x_t + tau mu0_m) / (N_m + tau), the weights and variances the pooled ones (to
# 1e-9); and each adapted set's kernel with the pooled row at rho = 1, the integral of p p' =
# sum_mn w_m w'_n N(mu_m; mu'_n, V_m + V'_n), to 1e-10 relative.
"$PPK" fit mixture --adapt-from mixture_pool.json --adapt means --relevance 4 --iterations 1 sets.txt -o sets_step.ppk
"$PPK" decode sets_step.ppk -o sets_step.jsonl
"$PPK" decode sets.ppk -o sets.jsonl
python3 - <<'PY' || fail "adapted mixtures against the MAP step and the kernel written out (above)"
import json, math
pooled = json.load(open("mixture_pool.json"))["model"]
sets = {}
for line in open("sets.txt"):
    _, qid, *fields = line.split()
    sets.setdefault(int(qid[4:]), []).append([float(f.split(":")[1]) for f in fields])
def normal(x, mean, var):  # a diagonal Gaussian's density
    return math.prod(math.exp(-(a - m) ** 2 / (2 * v)) / math.sqrt(2 * math.pi * v) for a, m, v in zip(x, mean, var))
components, tau = pooled["components"], 4.0
for (qid, xs), line in zip(sorted(sets.items()), open("sets_step.jsonl")):
    adapted = json.loads(line)
    assert adapted["weights"] == pooled["weights"], (qid, adapted["weights"])
    for m, (c0, c) in enumerate(zip(components, adapted["components"])):
        assert c["diag"] == c0["diag"], (qid, m)
        r = [pooled["weights"][m] * normal(x, c0["mean"], c0["diag"]) /
             sum(w * normal(x, k["mean"], k["diag"]) for w, k in zip(pooled["weights"], components)) for x in xs]
        mean = [(sum(rt * x[d] for rt, x in zip(r, xs)) + tau * c0["mean"][d]) / (sum(r) + tau) for d in range(2)]
        assert all(abs(a - b) < 1e-9 for a, b in zip(c["mean"], mean)), (qid, m, c["mean"], mean)
def kernel(p, q):
    return sum(wa * wb * normal(a["mean"], b["mean"], [u + v for u, v in zip(a["diag"], b["diag"])])
               for wa, a in zip(p["weights"], p["components"]) for wb, b in zip(q["weights"], q["components"]))
values = [float(v) for line in open("mixture_cross.txt") for v in line.split()]
adapted = [json.loads(line) for line in open("sets.jsonl")]
assert len(values) == len(adapted) == 12
for i, (value, model) in enumerate(zip(values, adapted)):
    assert abs(value - kernel(model, pooled)) <= 1e-10 * kernel(model, pooled), (i, value, kernel(model, pooled))
PY
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
# The same for the network: one step (--iterations 1) of MAP-EM from the pooled network with tau = 5,
# written out: the posterior P(h | x) of each joint observation under the pooled CPTs, the expected
# counts n(c, k) of every CPT row, and p = (n(c, k) + tau p0(c, k)) / (n(c) + tau) (to 1e-9); each
# adapted network's kernel with the pooled row at rho = 1, sum over (x0, x1) of p(x0, x1) p'(x0, x1)
# with p(x) = sum_h P(h) P(x0 | h) P(x1 | h), to 1e-10 relative.
"$PPK" fit bayesnet --structure structure.json --estimator ml --adapt-from net_pool.json --relevance 5 \
  --iterations 1 observations.txt -o nets_step.ppk
"$PPK" decode nets_step.ppk -o nets_step.jsonl
"$PPK" decode nets.ppk -o nets.jsonl
python3 - <<'PY' || fail "adapted networks against the MAP step and the kernel written out (above)"
import json
pooled = json.load(open("net_pool.json"))["model"]["nodes"]
examples = {}
for line in open("observations.txt"):
    _, qid, x0, x1 = line.split()
    examples.setdefault(int(qid[4:]), []).append((int(x0.split(":")[1]) - 1, int(x1.split(":")[1]) - 1))
def joint(nodes, h, x):
    return nodes[0]["cpt"][0][h] * nodes[1]["cpt"][h][x[0]] * nodes[2]["cpt"][h][x[1]]
tau = 5.0
for (qid, xs), line in zip(sorted(examples.items()), open("nets_step.jsonl")):
    adapted = json.loads(line)["nodes"]
    counts = [[[0.0] * 2], [[0.0] * 3 for _ in range(2)], [[0.0] * 2 for _ in range(2)]]
    for x in xs:
        evidence = sum(joint(pooled, h, x) for h in range(2))
        for h in range(2):
            posterior = joint(pooled, h, x) / evidence
            counts[0][0][h] += posterior
            counts[1][h][x[0]] += posterior
            counts[2][h][x[1]] += posterior
    for i in range(3):
        for c, row in enumerate(counts[i]):
            expected = [(n + tau * p0) / (sum(row) + tau) for n, p0 in zip(row, pooled[i]["cpt"][c])]
            assert all(abs(a - b) < 1e-9 for a, b in zip(adapted[i]["cpt"][c], expected)), (qid, i, c, adapted[i]["cpt"][c], expected)
def marginal(nodes, x):
    return sum(joint(nodes, h, x) for h in range(2))
values = [float(v) for line in open("net_cross.txt") for v in line.split()]
adapted = [json.loads(line)["nodes"] for line in open("nets.jsonl")]
assert len(values) == len(adapted) == 8
for i, (value, nodes) in enumerate(zip(values, adapted)):
    exact = sum(marginal(nodes, (a, b)) * marginal(pooled, (a, b)) for a in range(3) for b in range(2))
    assert abs(value - exact) <= 1e-10 * exact, (i, value, exact)
PY
pass
expect_error 2 "--adapt" "'means'" "bayesnet" -- "$PPK" fit bayesnet --structure structure.json --estimator ml \
  --adapt-from net_pool.json --adapt means observations.txt -o bad.ppk

# Bad options (status 2) and files (status 1): refused by name, nothing written.
A=(--alphabet-from alphabet.txt)
expect_relevance_refused hmm "${A[@]}"
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
