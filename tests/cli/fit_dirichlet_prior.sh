# ppk fit dirichlet --estimator map --prior pooled: the centre (the pooled mean of log x_d) and N0
# chosen by held-out likelihood on the grid 2^-3..2^10, against an independent Python computation
# (each vector left out in turn, the map alpha of the rest by a fixed-point iteration written in
# Python, the held-out vector scored by the Dirichlet log density); --save-pooled/--pooled-from
# reuse both unchanged; mismatches are refused naming both files.
source "$(dirname "$0")/lib.bash" "$@"

python3 - <<'PY'
import random
random.seed(9)
def write(path, examples):
    with open(path, 'w') as f:
        for q in range(1, examples + 1):
            alpha = [random.uniform(1, 8) for _ in range(3)]
            for j in range(2 + q % 3):
                g = [random.gammavariate(a, 1) for a in alpha]
                f.write("%d qid:%d %s\n" % (q % 2, q, " ".join("%d:%.12f" % (d + 1, v / sum(g)) for d, v in enumerate(g))))
write('train.txt', 12)
write('test.txt', 4)
PY
"$PPK" fit dirichlet --estimator map --prior pooled train.txt --save-pooled pool.json -o train.ppk 2> chosen.txt
expect_chosen_strength chosen.txt "chosen by maximum held-out likelihood"

python3 - <<'PY' || fail "the centre, the strength or the rows disagree with the Python computation"
import json, math
from qid_groups import qid_groups
groups = {q: [[math.log(x) for x in v] for v in vs] for q, vs in qid_groups('train.txt', 3).items()}
logs = [v for x in groups.values() for v in x]
l = [sum(v[d] for v in logs) / len(logs) for d in range(3)]
pool = json.load(open('pool.json'))
assert all(abs(pool['matrices']['prior-centre'][d][0] - l[d]) < 1e-12 for d in range(3))

def digamma(a):
    r = 0.0
    while a < 8:
        r -= 1 / a
        a += 1
    return r + math.log(a) - 1 / (2 * a) - 1 / (12 * a**2) + 1 / (120 * a**4) - 1 / (252 * a**6)
def trigamma(a):
    r = 0.0
    while a < 8:
        r += 1 / a**2
        a += 1
    return r + 1 / a + 1 / (2 * a**2) + 1 / (6 * a**3) - 1 / (30 * a**5) + 1 / (42 * a**7)
def inverse_digamma(y):  # Newton's method from Minka's starting point
    x = math.exp(y) + 0.5 if y >= -2.22 else -1 / (y + 0.5772156649015329)
    for _ in range(6):
        x -= (digamma(x) - y) / trigamma(x)
    return x
def fit(mean_log):  # Minka's fixed point alpha_d = digamma^-1(digamma(sum alpha) + mean_log_d)
    alpha = [1.0] * 3
    for _ in range(5000):
        s = digamma(sum(alpha))
        new = [inverse_digamma(s + m) for m in mean_log]
        if max(abs(a - b) / b for a, b in zip(alpha, new)) < 1e-13:
            return new
        alpha = new
    return alpha
def log_density(logx, alpha):
    return math.lgamma(sum(alpha)) + sum((a - 1) * v - math.lgamma(a) for a, v in zip(alpha, logx))
def held_out(count):
    total = 0.0
    for x in groups.values():
        if len(x) < 2:
            continue
        for j in range(len(x)):
            rest = [v for i, v in enumerate(x) if i != j]
            mean_log = [(sum(v[d] for v in rest) + count * l[d]) / (len(rest) + count) for d in range(3)]
            total += log_density(x[j], fit(mean_log))
    return total
scores = {2.0 ** k: held_out(2.0 ** k) for k in range(-3, 11)}
best = max(scores, key=scores.get)
n0 = pool['chosen']['prior-count']['value']
assert n0 == best, (n0, best, scores)
rows = [dict((int(t.split(':')[0]), float(t.split(':')[1])) for t in l_.split()[1:]) for l_ in open('train.ppk')]
for x, row in zip(groups.values(), rows):
    alpha = fit([(sum(v[d] for v in x) + n0 * l[d]) / (len(x) + n0) for d in range(3)])
    assert all(abs(row[4 + d] - alpha[d]) < 1e-6 * alpha[d] for d in range(3)), (row, alpha)
PY
pass

"$PPK" fit dirichlet --estimator map --prior pooled test.txt --pooled-from pool.json -o test.ppk 2> reused.txt
grep -qF "on train.txt (read from pool.json)" reused.txt || fail "the reuse is not reported: $(cat reused.txt)"
"$PPK" fit dirichlet --estimator map --prior pooled train.txt --pooled-from pool.json -o again.ppk 2>/dev/null
cmp -s train.ppk again.ppk || fail "refitting the training file with --pooled-from changed the rows"
pass

"$PPK" fit dirichlet --estimator map --prior pooled --prior-count 3 train.txt --save-pooled pool3.json -o /dev/null 2>/dev/null
expect_error 2 "--prior-count 4" "train.txt" "pool3.json" "test.txt" -- \
  "$PPK" fit dirichlet --estimator map --prior pooled --prior-count 4 test.txt --pooled-from pool3.json
expect_error 2 "--prior-alpha belongs to --prior fixed" -- \
  "$PPK" fit dirichlet --estimator map --prior pooled --prior-alpha 2 train.txt
expect_error 2 "--prior pooled is a prior of the map estimator" -- "$PPK" fit dirichlet --prior pooled train.txt
printf '1 qid:1 1:0.2 2:0.8\n1 qid:2 1:0.5 2:0.5\n' > singles.txt
expect_error 1 "singles.txt" "no example has 2 or more vectors" -- \
  "$PPK" fit dirichlet --estimator map --prior pooled singles.txt -o out.ppk
expect_no_output out.ppk
finish
