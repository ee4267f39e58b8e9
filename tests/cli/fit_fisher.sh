# ppk fit hmm|mixture|bayesnet --fisher-from POOL (fisher.hpp, fisher_features.hpp): --pooled --save-pooled
# keeps the training examples' Fisher information beside the pooled model; --fisher-from writes one
# LIBSVM feature row per example, the score with respect to the --adapt parameters scaled so that
# every feature's mean square over the training file is 1 (checked here from the output); a test
# file is scaled by the training file's information; svm-train -t 0 learns from the features; bad
# options and pool files are refused by name with nothing written.
source "$(dirname "$0")/lib.bash" "$@"
BIN=$(dirname "$PPK")

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
python3 - <<'PY' || fail "the features: $(head -c 300 train.features)"
import math
def rows(path):
    out = []
    for line in open(path):
        label, *fields = line.split()
        entries = [(int(i), float(v)) for i, v in (f.split(":") for f in fields)]
        assert [i for i, _ in entries] == sorted(i for i, _ in entries) and all(1 <= i <= 18 for i, _ in entries)
        assert all(math.isfinite(v) for _, v in entries)
        out.append((int(label), dict(entries)))
    return out
train, test = rows("train.features"), rows("test.features")
assert len(train) == 60 and len(test) == 10
assert [label for label, _ in train] == [1 if i % 2 == 0 else -1 for i in range(60)]
# phi_j = u_j / sqrt(mean_i u_ij^2) over the training file: every used feature's mean square is 1.
used = {j for _, r in train for j in r}
for j in used:
    mean_square = sum(r.get(j, 0.0) ** 2 for _, r in train) / len(train)
    assert abs(mean_square - 1) < 1e-9, (j, mean_square)
PY
pass
accuracy=$("$BIN/svm-train" -t 0 -c 1 -v 5 train.features | sed -n 's/.*Accuracy = \([0-9.]*\)%.*/\1/p')
awk -v a="$accuracy" 'BEGIN { exit !(a >= 90) }' || fail "svm-train -t 0 on the Fisher features: $accuracy%"
pass
"$BIN/svm-train" -t 0 -c 1 train.features model >/dev/null
"$BIN/svm-predict" test.features model predictions >/dev/null
[[ $(wc -l < predictions) == 10 ]] || fail "svm-predict on the test features"
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
expect_no_output bad.txt
finish
