# Pool files at the sizes of real data, for every family with --save-pooled (tools/fit/training_choices.hpp):
# what a training file's fit saves is read back by --pooled-from (the training file refitted from its
# own pool gives the same rows byte for byte: everything decided on it is in the file, exactly) and by
# --adapt-from (the adapted rows have the pooled model's shape, and a huge --relevance reproduces it).
# Sizes: a 60-node chain over aligned DNA and a 60-child hidden-class network (bayesnet), 20-letter
# protein-like sequences with 12 states (hmm), vocabularies of 3000 and 2000 words (multinomial,
# bernoulli), 30-D full Gaussians, 500- and 200-D rates, 5-component mixtures, lds and slds with
# several state dimensions. The shrunk chain's CPTs are checked against counts made here, and a pool
# of another structure is refused naming the statistic and both shapes.
source "$(dirname "$0")/lib.bash" "$@"

python3 - <<'PY'
import math, random
r = random.Random(48)
def write(path, lines):
    with open(path, "w") as f:
        f.write("".join(line + "\n" for line in lines))
def label(i):
    return 1 if i % 2 == 0 else -1

# Aligned DNA: 60 positions over ACGT as 1..4, a position-specific chain; the classes differ at 20..29.
def dna(i):
    x, out = r.randrange(4), []
    for t in range(60):
        if t:
            x = x if r.random() < 0.3 else r.randrange(4)
        if 20 <= t < 30 and label(i) > 0 and r.random() < 0.5:
            x = t % 4
        out.append(x + 1)
    return out
for path, count in (("dna_train.txt", 60), ("dna_test.txt", 20)):
    write(path, ["%d %s" % (label(i), " ".join("%d:%d" % (t + 1, v) for t, v in enumerate(dna(i)))) for i in range(count)])

# Protein-like sequences over 20 letters, 80-120 long.
letters = "ACDEFGHIKLMNPQRSTVWY"
def protein(i):
    q, s = r.randrange(4), ""
    for _ in range(r.randint(80, 120)):
        q = q if r.random() < 0.85 else r.randrange(4)
        s += r.choice(letters[5 * q:5 * q + 5]) if r.random() < 0.7 else r.choice(letters)
    return s
for path, count in (("protein_train.txt", 30), ("protein_test.txt", 10)):
    write(path, ["%d %s" % (label(i), protein(i)) for i in range(count)])

# Documents: 300 Zipf-distributed tokens over 3000 words (counts), and the words present over 2000 (0/1).
def counts(vocabulary, tokens):
    c = {}
    for _ in range(tokens):
        w = min(vocabulary, int(r.paretovariate(0.9)))
        c[w] = c.get(w, 0) + 1
    return c
for name, count in (("train", 40), ("test", 10)):
    write("words_%s.txt" % name, ["%d %s" % (label(i), " ".join("%d:%d" % (w, n) for w, n in sorted(counts(3000, 300).items()))) for i in range(count)])
    write("present_%s.txt" % name, ["%d %s" % (label(i), " ".join("%d:1" % w for w in sorted(counts(2000, 200)))) for i in range(count)])
    write("rates_%s.txt" % name, ["%d %s" % (label(i), " ".join("%d:%d" % (d + 1, 1 + r.randrange(6)) for d in range(500))) for i in range(count)])
    write("waits_%s.txt" % name, ["%d %s" % (label(i), " ".join("%d:%.6f" % (d + 1, r.expovariate(1 + d % 3)) for d in range(200))) for i in range(count)])

# Sets of vectors, one qid group per example: 30-D Gaussian clouds (50 each), 100-D positive values
# (gamma, 8 each), 50-D probability vectors (dirichlet, 8 each), 6-D five-cluster sets (mixture, 80 each).
def groups(path, count, size, vector):
    lines = []
    for i in range(count):
        for _ in range(size):
            lines.append("%d qid:%d %s" % (label(i), i + 1, " ".join("%d:%r" % (d + 1, v) for d, v in enumerate(vector(i)))))
    write(path, lines)
centres = [[r.gauss(0, 3) for _ in range(6)] for _ in range(5)]
def probabilities(i):
    g = [r.gammavariate(1 + (d + i) % 4, 1) + 1e-3 for d in range(50)]
    return [v / sum(g) for v in g]
for name, count in (("train", 20), ("test", 6)):
    groups("clouds_%s.txt" % name, count, 50, lambda i: [r.gauss(0.1 * (i % 2), 1 + 0.02 * d) for d in range(30)])
    groups("positive_%s.txt" % name, count, 8, lambda i: [r.gammavariate(2 + d % 3, 1) for d in range(100)])
    groups("simplex_%s.txt" % name, count, 8, probabilities)
    groups("clusters_%s.txt" % name, count, 80, lambda i: [m + r.gauss(0, 0.5) for m in r.choice(centres)])

# Sequences of 6-D frames from a 4-D rotating state (lds, slds, fhmm), 40-60 frames each.
def frames(i):
    w = 0.3 if label(i) > 0 else 0.7
    s, out = [r.gauss(0, 1) for _ in range(4)], []
    for t in range(40 + i % 21):
        s = [0.95 * (math.cos(w) * s[0] - math.sin(w) * s[1]) + r.gauss(0, 0.3),
             0.95 * (math.sin(w) * s[0] + math.cos(w) * s[1]) + r.gauss(0, 0.3),
             0.8 * s[2] + r.gauss(0, 0.3), 0.6 * s[3] + 0.2 * s[2] + r.gauss(0, 0.3)]
        out.append([s[0] + 0.5 * s[2] + r.gauss(0, 0.2), s[1] - 0.3 * s[3] + r.gauss(0, 0.2), s[2] + r.gauss(0, 0.2),
                    s[3] + s[0] + r.gauss(0, 0.2), s[0] - s[1] + r.gauss(0, 0.2), s[2] + s[3] + r.gauss(0, 0.2)])
    return out
for path, count in (("frames_train.txt", 16), ("frames_test.txt", 6)):
    write(path, ["%d qid:%d %s" % (label(i), i + 1, " ".join("%d:%.6f" % (d + 1, v) for d, v in enumerate(x))) for i in range(count) for x in frames(i)])
PY

# expect_same_refit FAMILY TRAIN OPTIONS...: FAMILY fitted to TRAIN with OPTIONS --save-pooled POOL, then
# refitted with OPTIONS --pooled-from POOL, gives the same rows (and the test file's fit succeeds).
expect_same_refit() {
  local family=$1 train=$2
  shift 2
  "$PPK" fit "$family" "$@" --save-pooled "$family.pool.json" "$train" -o "$family.rows" 2> fit.log ||
    fail "$family $* --save-pooled: $(cat fit.log)"
  "$PPK" fit "$family" "$@" --pooled-from "$family.pool.json" "$train" -o "$family.again.rows" 2> fit.log ||
    fail "$family $* --pooled-from: $(cat fit.log)"
  cmp -s "$family.rows" "$family.again.rows" || fail "$family $*: the rows refitted with --pooled-from differ"
  "$PPK" fit "$family" "$@" --pooled-from "$family.pool.json" "${train/train/test}" -o "$family.test.rows" 2> fit.log ||
    fail "$family $* --pooled-from on the test file: $(cat fit.log)"
  [[ $(wc -l < "$family.test.rows") == $(cut -d' ' -f1-2 "${train/train/test}" | uniq | wc -l) ]] ||
    fail "$family $*: the test file's rows"
  pass
}

# ---- bayesnet: the 60-node chain (what `ppk fit bayesnet` fits to aligned sequences) ----
python3 -c '
import json
nodes = [{"states": 4, "variable": 0}] + [{"states": 4, "parents": [t - 1], "variable": t} for t in range(1, 60)]
json.dump({"nodes": nodes}, open("chain.json", "w"))
json.dump({"nodes": [dict(n, states=3) for n in nodes]}, open("chain3.json", "w"))'
C=(--structure chain.json)
# --save-pooled alone (the pooled counts are kept whenever the family pools) and with --shrink.
"$PPK" fit bayesnet "${C[@]}" --save-pooled chain.pool.json dna_train.txt -o /dev/null
python3 -c '
import json
s = json.load(open("chain.pool.json"))["statistics"]["statistics"]
assert len(s) == 60 and len(s["node 0"]) == 4 and all(len(s["node %d" % t]) == 16 for t in range(1, 60)), s.keys()' ||
  fail "the chain's pool file does not hold 4 + 59 x 16 counts"
pass
"$PPK" fit bayesnet "${C[@]}" --pooled-from chain.pool.json dna_test.txt -o chain.test.rows
pass
expect_same_refit bayesnet dna_train.txt "${C[@]}" --shrink 0.5
# The test rows shrunk toward the training pool: P(k | c) = (n + 0.5 n_pool + 1) / (n(c) + 0.5 n_pool(c) + 4).
"$PPK" decode bayesnet.test.rows -o chain.test.jsonl
python3 - <<'PY' || fail "the shrunk chain's CPTs are not the counts made here"
import json
def data(path):
    return [[int(f.split(":")[1]) - 1 for f in line.split()[1:]] for line in open(path)]
def count(x, t, weight, n):
    c = 0 if t == 0 else x[t - 1]
    n[c * 4 + x[t]] = n.get(c * 4 + x[t], 0) + weight
train, test = data("dna_train.txt"), data("dna_test.txt")
rows = [json.loads(line) for line in open("chain.test.jsonl")]
assert len(rows) == len(test)
for x, row in zip(test, rows):
    for t, node in enumerate(row["nodes"]):
        n = {}
        count(x, t, 1.0, n)
        for y in train:
            count(y, t, 0.5, n)
        for c, probabilities in enumerate(node["cpt"]):
            total = sum(n.get(c * 4 + k, 0) for k in range(4))
            for k, p in enumerate(probabilities):
                assert abs(p - (n.get(c * 4 + k, 0) + 1) / (total + 4)) < 1e-12, (t, c, k, p)
PY
pass
# A pool of the same chain over 3 states (from the training data with state 4 read as 3).
awk '{ line = $1; for (i = 2; i <= NF; ++i) { split($i, f, ":"); line = line " " f[1] ":" (f[2] > 3 ? 3 : f[2]) } print line }' \
  dna_train.txt > dna3_train.txt
"$PPK" fit bayesnet --structure chain3.json --save-pooled chain3.pool.json dna3_train.txt -o /dev/null
expect_error 1 "dna_test.txt" "the pooled statistic \"node 0\" is 3 x 1, this bayesnet fit's is 4 x 1" -- \
  "$PPK" fit bayesnet "${C[@]}" --shrink 0.5 --pooled-from chain3.pool.json dna_test.txt -o refused.rows
expect_no_output refused.rows
# --pooled, then --adapt-from: each CPT row (n + tau P0) / (n + tau); a huge tau gives the pooled chain.
"$PPK" fit bayesnet "${C[@]}" --pooled --save-pooled chain.model.json dna_train.txt -o chain.pooled.row
"$PPK" fit bayesnet "${C[@]}" --adapt-from chain.model.json --relevance 1e12 dna_test.txt -o chain.stiff.rows
expect_rows_are_pooled chain.stiff.rows chain.pooled.row
"$PPK" fit bayesnet "${C[@]}" --adapt-from chain.model.json --relevance 8 dna_test.txt -o chain.adapted.rows
"$PPK" decode chain.adapted.rows -o chain.adapted.jsonl
"$PPK" decode chain.pooled.row -o chain.pooled.jsonl
python3 - <<'PY' || fail "the chain adapted from the pool is not (n + tau P0) / (n + tau)"
import json
pooled = json.loads(open("chain.pooled.jsonl").readline())["nodes"]
test = [[int(f.split(":")[1]) - 1 for f in line.split()[1:]] for line in open("dna_test.txt")]
for x, line in zip(test, open("chain.adapted.jsonl")):
    for t, node in enumerate(json.loads(line)["nodes"]):
        c_seen = 0 if t == 0 else x[t - 1]
        for c, probabilities in enumerate(node["cpt"]):
            n = 1.0 if c == c_seen else 0.0
            for k, p in enumerate(probabilities):
                expected = ((n if k == x[t] else 0.0) + 8 * pooled[t]["cpt"][c][k]) / (n + 8)
                assert abs(p - expected) < 1e-12, (t, c, k, p, expected)
PY
pass
# A hidden class over 60 observed positions (61 nodes): the pooled network by EM, adapted by EM.
python3 -c '
import json
nodes = [{"states": 3}] + [{"states": 4, "parents": [0], "variable": t} for t in range(60)]
json.dump({"nodes": nodes}, open("class.json", "w"))'
H=(--structure class.json --iterations 30 --restarts 1)
"$PPK" fit bayesnet "${H[@]}" --pooled --save-pooled class.model.json dna_train.txt -o class.pooled.row
"$PPK" fit bayesnet --structure class.json --adapt-from class.model.json --relevance 1e12 dna_test.txt -o class.stiff.rows
expect_rows_are_pooled class.stiff.rows class.pooled.row
"$PPK" fit bayesnet --structure class.json --adapt-from class.model.json dna_test.txt -o class.adapted.rows
[[ $(wc -l < class.adapted.rows) == 20 ]] || fail "the adapted hidden-class rows"
pass

# ---- hmm: 20 letters, 12 states ----
A=(--alphabet ACDEFGHIKLMNPQRSTVWY)
"$PPK" fit hmm "${A[@]}" --states 12 --iterations 40 --restarts 1 --pooled --save-pooled hmm.model.json \
  protein_train.txt -o hmm.pooled.row
python3 -c '
import json
m = json.load(open("hmm.model.json"))["model"]
assert len(m["start"]) == 12 and len(m["emissions"]) == 12 and all(len(e["p"]) == 20 for e in m["emissions"])' ||
  fail "hmm.model.json holds no 12-state hmm over 20 letters"
pass
"$PPK" fit hmm "${A[@]}" --adapt-from hmm.model.json --relevance 1e12 protein_test.txt -o hmm.stiff.rows
expect_rows_are_pooled hmm.stiff.rows hmm.pooled.row
"$PPK" fit hmm "${A[@]}" --adapt-from hmm.model.json protein_test.txt -o hmm.adapted.rows
expect_unit_psd_gram hmm.adapted.rows 50 10
"$PPK" fit hmm "${A[@]}" --states 12 --iterations 40 --restarts 1 --save-pooled hmm.pool.json protein_train.txt -o hmm.rows
"$PPK" fit hmm "${A[@]}" --states 12 --iterations 40 --restarts 1 --pooled-from hmm.pool.json protein_train.txt -o hmm.again.rows
cmp -s hmm.rows hmm.again.rows || fail "hmm: the rows refitted with --pooled-from differ"
pass

# ---- the exponential families: thousands of dimensions ----
expect_same_refit multinomial words_train.txt --dim 3000 --alpha evidence --base pooled --shrink 0.3
expect_same_refit bernoulli present_train.txt --dim 2000 --alpha 0.5 --shrink 0.5
expect_same_refit poisson rates_train.txt --dim 500 --shrink 0.5
expect_same_refit exponential waits_train.txt --dim 200 --estimator map --prior pooled --shrink 0.5
expect_same_refit gaussian clouds_train.txt --dim 30 --shrink 0.5
"$PPK" fit gaussian --dim 30 --estimator map --prior pooled --save-pooled prior.pool.json clouds_train.txt -o /dev/null 2> /dev/null
python3 -c '
import json
m = json.load(open("prior.pool.json"))["matrices"]
assert any(len(v) == 30 and all(len(row) == 30 for row in v) for v in m.values()), list(m)' ||
  fail "the gaussian --prior pooled centre is not 30 x 30"
pass
expect_same_refit gaussian clouds_train.txt --dim 30 --estimator map --prior pooled
expect_same_refit gamma positive_train.txt --dim 100 --estimator map --prior pooled --shrink 0.5
expect_same_refit dirichlet simplex_train.txt --dim 50 --estimator map --prior pooled --shrink 0.5
expect_same_refit kde clouds_train.txt --dim 30 --bandwidth 0.5

# ---- mixtures of 5 components in 6-D ----
"$PPK" fit mixture --components 5 --cov diag --pooled --save-pooled mixture.model.json clusters_train.txt -o mixture.pooled.row
python3 -c 'import json; assert len(json.load(open("mixture.model.json"))["model"]["weights"]) == 5' ||
  fail "mixture.model.json holds no 5-component mixture"
pass
"$PPK" fit mixture --adapt-from mixture.model.json --relevance 1e12 clusters_test.txt -o mixture.stiff.rows
expect_rows_are_pooled mixture.stiff.rows mixture.pooled.row
expect_same_refit mixture clusters_train.txt --components 5 --cov diag --prior pooled --iterations 50 --restarts 1

# ---- state-space models: lds of state dimension 4, slds of 3 regimes and state dimension 3, fhmm ----
"$PPK" fit lds --state-dim 4 --iterations 60 --restarts 1 --pooled --save-pooled lds.model.json frames_train.txt -o lds.pooled.row
python3 -c 'import json; m = json.load(open("lds.model.json"))["model"]; assert len(m["A"]) == 4 and len(m["C"]) == 6' ||
  fail "lds.model.json holds no lds of state dimension 4 over 6-D frames"
pass
"$PPK" fit lds --adapt-from lds.model.json --relevance 1e14 frames_test.txt -o lds.stiff.rows
expect_rows_are_pooled lds.stiff.rows lds.pooled.row
expect_same_refit lds frames_train.txt --state-dim 4 --iterations 30 --restarts 1
"$PPK" fit slds --states 3 --state-dim 3 --iterations 30 --restarts 1 --pooled --save-pooled slds.model.json \
  frames_train.txt -o slds.pooled.row
"$PPK" fit slds --adapt-from slds.model.json frames_test.txt -o slds.adapted.rows
"$PPK" decode slds.adapted.rows -o slds.adapted.jsonl
python3 -c '
import json
rows = [json.loads(line) for line in open("slds.adapted.jsonl")]
assert len(rows) == 6 and all(len(m["trans"]) == 3 and len(m["A"]) == 3 and len(m["A"][0]) == 3 and len(m["A"][0][0]) == 3
                              and len(m["C"]) == 6 and len(m["C"][0]) == 3 for m in rows), rows[0].keys()' ||
  fail "the adapted slds rows are not of 3 regimes of state dimension 3"
pass
expect_same_refit slds frames_train.txt --states 3 --state-dim 3 --iterations 20 --restarts 1
expect_same_refit fhmm frames_train.txt --chains 2 --states 3 --prior pooled --iterations 30 --restarts 1

finish
