# ppk fit hmm|mixture|bayesnet|lds --fisher-from POOL (fisher.hpp, fisher_features.hpp): --pooled --save-pooled
# keeps the training examples' Fisher information beside the pooled model; --fisher-from writes one
# LIBSVM feature row per example, the score with respect to the --adapt parameters scaled so that
# every feature's mean square over the training file is 1 (checked here from the output); a test
# file is scaled by the training file's information; svm-train -t 0 learns from the features; bad
# options and pool files are refused by name with nothing written.
source "$(dirname "$0")/lib.bash" "$@"
BIN=$(dirname "$PPK")

# check_feature_rows TRAIN TEST FEATURES TRAIN_ROWS TEST_ROWS: every row "LABEL j:phi_j ..." has
# finite values at increasing indices 1..FEATURES, the labels alternate from +1 as in the examples,
# and phi_j = u_j / sqrt(mean_i u_ij^2) over the training file: every used feature's mean square is 1.
check_feature_rows() {
  python3 - "$@" <<'PY' || fail "the features: $(head -c 300 "$1")"
import math, sys
train_path, test_path, features, train_rows, test_rows = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:])
def rows(path):
    out = []
    for line in open(path):
        label, *fields = line.split()
        entries = [(int(i), float(v)) for i, v in (f.split(":") for f in fields)]
        assert [i for i, _ in entries] == sorted(i for i, _ in entries) and all(1 <= i <= features for i, _ in entries)
        assert all(math.isfinite(v) for _, v in entries)
        out.append((int(label), dict(entries)))
    return out
train, test = rows(train_path), rows(test_path)
assert len(train) == train_rows and len(test) == test_rows
assert [label for label, _ in train] == [1 if i % 2 == 0 else -1 for i in range(train_rows)]
used = {j for _, r in train for j in r}
for j in used:
    mean_square = sum(r.get(j, 0.0) ** 2 for _, r in train) / len(train)
    assert abs(mean_square - 1) < 1e-9, (j, mean_square)
PY
  pass
}

# check_linear_svm TRAIN TEST MIN_ACCURACY TEST_ROWS: svm-train -t 0's 5-fold accuracy on the training
# features is at least MIN_ACCURACY %, and svm-predict gives one prediction per test row.
check_linear_svm() {
  local accuracy
  accuracy=$("$BIN/svm-train" -t 0 -c 1 -v 5 "$1" | sed -n 's/.*Accuracy = \([0-9.]*\)%.*/\1/p')
  awk -v a="$accuracy" -v min="$3" 'BEGIN { exit !(a >= min) }' || fail "svm-train -t 0 on $1: $accuracy%"
  "$BIN/svm-train" -t 0 -c 1 "$1" "$1.model" >/dev/null
  "$BIN/svm-predict" "$2" "$1.model" "$2.predictions" >/dev/null
  [[ $(wc -l < "$2.predictions") == "$4" ]] || fail "svm-predict on $2"
  pass
}

# 60 sequences of 30 symbols over 6 letters: two sticky states over disjoint halves of the alphabet;
# class +1 stays (0.9), class -1 alternates (0.9 to the other state).
python3 - <<'PY'
import random
random.seed(2)
def sequence(label):
    q, s = random.randrange(2), ""
    for _ in range(30):
        s += random.choice("ABC" if q == 0 else "DEF")
        if (random.random() < 0.9) != (label > 0):
            q = 1 - q
    return s
for path, count in (("train.txt", 60), ("test.txt", 10)):
    with open(path, "w") as f:
        for i in range(count):
            label = 1 if i % 2 == 0 else -1
            f.write("%d %s\n" % (label, sequence(label)))
PY
"$PPK" fit hmm --pooled --states 2 --save-pooled pool.json --save-alphabet alphabet.txt train.txt -o pooled.ppk
# 2 start, 4 transitions and 2 x 6 emission logits.
python3 -c '
import json; f = json.load(open("pool.json"))["fisher"]
assert len(f["names"]) == 18 and f["names"][0] == "start[0]" and f["names"][-1] == "emissions[1][5]", f["names"]
assert all(v >= 0 for v in f["information"])' || fail "pool.json's Fisher information: $(head -c 400 pool.json)"
pass

"$PPK" fit hmm --fisher-from pool.json --alphabet-from alphabet.txt train.txt -o train.features
"$PPK" fit hmm --fisher-from pool.json --alphabet-from alphabet.txt test.txt -o test.features
check_feature_rows train.features test.features 18 60 10
check_linear_svm train.features test.features 90 10

# Test files are scaled by the training file's information. The training file's first 10 sequences
# as a test file give the training file's first 10 feature rows byte for byte; the test file's own
# mean squares are not 1 (it is not scaled by its own information); and every feature of both files
# equals one computed here without the tool: the pooled HMM of pool.json (over the sorted training
# symbols), log p(x) by the scaled forward algorithm, each logit's score by Richardson-extrapolated
# central differences divided by the length, I_jj the mean square over the training sequences, phi =
# u / sqrt(I_jj) (to 1e-6; the pool's saved information to 1e-6 relative).
head -10 train.txt > head.txt
"$PPK" fit hmm --fisher-from pool.json --alphabet-from alphabet.txt head.txt -o head.features
head -10 train.features | cmp -s - head.features || fail "the training file's first rows as a test file: $(diff <(head -10 train.features) head.features | head -4)"
pass
python3 - <<'PY' || fail "the test file's features against the training file's information (above)"
import json, math, re
pool = json.load(open("pool.json"))
model, fisher = pool["model"], pool["fisher"]
sequences = {path: [line.split()[1] for line in open(path)] for path in ("train.txt", "test.txt")}
alphabet = sorted(set("".join(sequences["train.txt"])))
theta = {"start": [list(model["start"])], "transitions": [list(r) for r in model["trans"]],
         "emissions": [list(e["p"]) for e in model["emissions"]]}

def log_p(theta, x):
    # log p(x) = sum_t log c_t, c_t the forward variables' sum at step t before rescaling
    alpha = [pi * e[alphabet.index(x[0])] for pi, e in zip(theta["start"][0], theta["emissions"])]
    total = 0.0
    for t in range(len(x)):
        if t:
            alpha = [sum(alpha[p] * theta["transitions"][p][q] for p in range(len(alpha))) *
                     theta["emissions"][q][alphabet.index(x[t])] for q in range(len(alpha))]
        c = sum(alpha)
        total += math.log(c)
        alpha = [a / c for a in alpha]
    return total

def shifted(theta, name, h):
    # the logit of the entry `name` raised by h, its probability vector renormalised
    block, *index = re.match(r"(\w+)((?:\[\d+\])+)", name).group(1), *map(int, re.findall(r"\[(\d+)\]", name))
    out = {k: [list(r) for r in v] for k, v in theta.items()}
    row = out[block][0 if block == "start" else index[0]]
    row[index[-1]] *= math.exp(h)
    norm = sum(row)
    row[:] = [v / norm for v in row]
    return out

def score(x):
    def central(name, h):
        return (log_p(shifted(theta, name, h), x) - log_p(shifted(theta, name, -h), x)) / (2 * h)
    return [(4 * central(n, 5e-4) - central(n, 1e-3)) / 3 / len(x) for n in fisher["names"]]

train = [score(x) for x in sequences["train.txt"]]
information = [sum(u[j] ** 2 for u in train) / len(train) for j in range(len(fisher["names"]))]
for j, (ours, saved) in enumerate(zip(information, fisher["information"])):
    assert abs(ours - saved) <= 1e-6 * ours, (fisher["names"][j], ours, saved)
def rows(path):
    return [dict((int(f.split(":")[0]), float(f.split(":")[1])) for f in line.split()[1:]) for line in open(path)]
for path, features in (("train.txt", "train.features"), ("test.txt", "test.features")):
    for x, row in zip(sequences[path], rows(features)):
        phi = [u / math.sqrt(i) for u, i in zip(score(x), information)]
        for j, value in enumerate(phi):
            assert abs(row.get(j + 1, 0.0) - value) < 1e-6, (path, x, fisher["names"][j], row.get(j + 1), value)
test = rows("test.features")
own = [sum(r.get(j, 0.0) ** 2 for r in test) / len(test) for j in range(1, 19)]
assert max(abs(m - 1) for m in own) > 0.01, own
PY
pass

# --adapt transitions: the 4 transition features only.
"$PPK" fit hmm --fisher-from pool.json --adapt transitions --alphabet-from alphabet.txt train.txt -o transitions.features
python3 -c '
for line in open("transitions.features"):
    assert all(1 <= int(f.split(":")[0]) <= 4 for f in line.split()[1:]), line' || fail "--adapt transitions"
pass

# A Gaussian mixture's features.
python3 - <<'PY'
import random
random.seed(3)
with open("sets.txt", "w") as f:
    for i in range(10):
        for _ in range(12):
            f.write("%d qid:%d 1:%.6f 2:%.6f\n" % (1 if i % 2 else -1, i + 1, random.gauss(i % 2, 1), random.gauss(0, 1)))
PY
"$PPK" fit mixture --pooled --components 2 --cov diag --save-pooled mixture_pool.json sets.txt -o /dev/null
"$PPK" fit mixture --fisher-from mixture_pool.json sets.txt -o sets.features
[[ $(wc -l < sets.features) == 10 ]] || fail "mixture features: $(head -2 sets.features)"
pass

# A network with a hidden class: 2 + 2 x 3 + 2 x 2 CPT logits; a fully observed one from its counts.
hidden_class_network structure.json net.txt
N=(--structure structure.json --estimator ml)
"$PPK" fit bayesnet "${N[@]}" --pooled --save-pooled net.json net.txt -o /dev/null
"$PPK" fit bayesnet "${N[@]}" --fisher-from net.json net.txt -o net.features
python3 - <<'PY' || fail "network features: $(head -2 net.features)"
import json
names = json.load(open("net.json"))["fisher"]["names"]
assert names[:3] == ["cpts[0][0]", "cpts[0][1]", "cpts[1][0]"] and len(names) == 12, names
rows = [dict((int(f.split(":")[0]), float(f.split(":")[1])) for f in line.split()[1:]) for line in open("net.features")]
assert len(rows) == 8
for j in range(1, 13):  # each feature's mean square over the training file is 1
    assert abs(sum(r.get(j, 0) ** 2 for r in rows) / 8 - 1) < 1e-9, j
PY
pass
printf '{"nodes":[{"states":2,"variable":0},{"states":3,"parents":[0],"variable":1}]}' > observed.json
awk '{ print $1, $2, "1:" ($1 > 0 ? 2 : 1), "2:" substr($3, 3) }' net.txt > observed.txt
"$PPK" fit bayesnet --structure observed.json --estimator posterior --pooled --save-pooled observed_pool.json \
  observed.txt -o /dev/null
"$PPK" fit bayesnet --structure observed.json --estimator posterior --fisher-from observed_pool.json observed.txt \
  -o observed.features
[[ $(wc -l < observed.features) == 8 ]] || fail "fully observed network features: $(head -2 observed.features)"
pass

# An LDS's features (n = 2, d = 2): mean0 and cov0's upper triangle, A and Q's, C and R's (19);
# svm-train -t 0 separates the two rotation speeds.
rotating_state_sequences lds_train.txt lds_test.txt
"$PPK" fit lds --pooled --state-dim 2 --save-pooled lds_pool.json lds_train.txt -o /dev/null
python3 -c '
import json; names = json.load(open("lds_pool.json"))["fisher"]["names"]
assert names == ["mean0[0]", "mean0[1]", "cov0[0][0]", "cov0[0][1]", "cov0[1][1]", "A[0][0]", "A[0][1]", "A[1][0]",
                 "A[1][1]", "Q[0][0]", "Q[0][1]", "Q[1][1]", "C[0][0]", "C[0][1]", "C[1][0]", "C[1][1]", "R[0][0]",
                 "R[0][1]", "R[1][1]"], names' || fail "lds_pool.json's Fisher information: $(head -c 400 lds_pool.json)"
pass
"$PPK" fit lds --fisher-from lds_pool.json lds_train.txt -o lds_train.features
"$PPK" fit lds --fisher-from lds_pool.json lds_test.txt -o lds_test.features
check_feature_rows lds_train.features lds_test.features 19 30 8
check_linear_svm lds_train.features lds_test.features 80 8
# --adapt transitions: A's 4 and Q's 3 features only.
"$PPK" fit lds --fisher-from lds_pool.json --adapt transitions lds_test.txt -o lds_transitions.features
python3 -c '
for line in open("lds_transitions.features"):
    assert all(1 <= int(f.split(":")[0]) <= 7 for f in line.split()[1:]), line' || fail "lds --adapt transitions"
pass

# Refused: other options with --fisher-from, pool files without a model or without Fisher information.
A=(--alphabet-from alphabet.txt)
expect_error 2 "--relevance applies to --adapt-from" -- "$PPK" fit hmm --fisher-from pool.json --relevance 3 "${A[@]}" test.txt -o bad.txt
expect_error 2 "--pooled, --adapt-from and --fisher-from exclude each other" -- \
  "$PPK" fit hmm --fisher-from pool.json --adapt-from pool.json "${A[@]}" test.txt -o bad.txt
expect_error 2 "--adapt" "'weights'" "start, transitions, emissions" -- \
  "$PPK" fit hmm --fisher-from pool.json --adapt weights "${A[@]}" test.txt -o bad.txt
"$PPK" fit hmm --states 2 --save-pooled plain.json "${A[@]}" train.txt -o /dev/null
expect_error 2 "plain.json holds no pooled model" -- "$PPK" fit hmm --fisher-from plain.json "${A[@]}" test.txt -o bad.txt
python3 -c '
import json; p = json.load(open("pool.json")); p["fisher"]["information"][0] = -1; json.dump(p, open("broken.json", "w"))'
expect_error 1 "broken.json" "\"fisher\"" ">= 0" -- "$PPK" fit hmm --fisher-from broken.json "${A[@]}" test.txt -o bad.txt
python3 -c '
import json; p = json.load(open("lds_pool.json")); del p["fisher"]; json.dump(p, open("no_fisher.json", "w"))'
expect_error 2 "no_fisher.json holds no Fisher information" "ppk fit lds --pooled --save-pooled" -- \
  "$PPK" fit lds --fisher-from no_fisher.json lds_test.txt -o bad.txt
# A pooled model that has no Fisher score (an LDS whose cov0 is singular): the message says why.
python3 -c '
import json; p = json.load(open("no_fisher.json")); p["model"]["cov0"] = [[1, 0], [0, 0]]
json.dump(p, open("singular.json", "w"))'
expect_error 2 "singular.json holds no Fisher information" "cov0 is not positive definite" -- \
  "$PPK" fit lds --fisher-from singular.json lds_test.txt -o bad.txt
# Options of a fit: --fisher-from fits nothing.
for option in "--iterations 5" "--tolerance 1e-3" "--ridge 0.1" "--length 4"; do
  # shellcheck disable=SC2086  # OPTION is an option and its value
  expect_error 2 "${option%% *} controls a fit" "--fisher-from fits nothing" -- \
    "$PPK" fit lds --fisher-from lds_pool.json $option lds_test.txt -o bad.txt
done
# An LDS's: a parameter it does not have, options that shaped the pooled LDS, a sequence of one
# vector, another dimension.
expect_error 2 "--adapt" "'means'" "lds" "start, transitions, emissions" -- \
  "$PPK" fit lds --fisher-from lds_pool.json --adapt means lds_test.txt -o bad.txt
expect_error 2 "--state-dim shapes the pooled model" "--fisher-from" -- \
  "$PPK" fit lds --fisher-from lds_pool.json --state-dim 3 lds_test.txt -o bad.txt
expect_error 2 "--prior-strength applies to per-example fits" -- \
  "$PPK" fit lds --fisher-from lds_pool.json --prior-strength 4 lds_test.txt -o bad.txt
{ head -12 lds_test.txt; echo "1 qid:99 1:0.5 2:0.1"; } > lds_short.txt
expect_error 1 "lds_short.txt:13" "qid 99" "1 vector" "at least 2" -- \
  "$PPK" fit lds --fisher-from lds_pool.json lds_short.txt -o bad.txt
awk '{ print $0, "3:0.5" }' lds_test.txt > lds_3d.txt
expect_error 1 "lds_pool.json" "over dimension 2" "lds_3d.txt" "over dimension 3" -- \
  "$PPK" fit lds --fisher-from lds_pool.json lds_3d.txt -o bad.txt
expect_no_output bad.txt
finish
