# ppk fit gaussian|poisson|exponential --estimator map --prior pooled: the centre (the pooled
# within-example covariance; the pooled rates; the pooled scales) and the strength chosen by
# maximum evidence, against an independent Python computation (the closed-form evidence written
# out with lgamma and maximised over a zoomed grid); the rows against the posterior mean and mode
# formulas; --save-pooled/--pooled-from reuse both unchanged; mismatches are refused.
source "$(dirname "$0")/lib.bash" "$@"

# The maximiser of f over (lo, hi) by a grid of 400 points zoomed around the best until 1e-10 wide.
cat > grid.py <<'PY'
def zoomed_argmax(f, lo, hi):
    bottom = lo
    while hi - lo > 1e-10:
        step = (hi - lo) / 400
        best = max((lo + step * i for i in range(1, 401)), key=f)
        lo, hi = max(best - 2 * step, bottom + 1e-12), best + 2 * step
    return best
PY

python3 - <<'PY'
import random
random.seed(7)
with open('train.txt', 'w') as f:
    for q in range(1, 13):
        s, t = random.uniform(0.5, 2.0), random.uniform(0.3, 1.0)
        m = [random.gauss(0, 3), random.gauss(0, 3)]
        for j in range(3 + q % 4):
            a, b = random.gauss(0, 1), random.gauss(0, 1)
            f.write("%d qid:%d 1:%.6f 2:%.6f\n" % (q % 2, q, m[0] + s * a, m[1] + t * (0.5 * a + b)))
with open('test.txt', 'w') as f:
    for q in range(1, 4):
        f.write("1 qid:%d 1:%.6f 2:%.6f\n1 qid:%d 1:%.6f 2:%.6f\n" % (q, q, -q, q, 2 * q, q + 1))
PY

"$PPK" fit gaussian --estimator map --prior pooled train.txt --save-pooled pool.json -o train.ppk 2> chosen.txt
"$PPK" fit gaussian --estimator map --prior pooled --pooled-estimate mode train.txt -o train-mode.ppk 2>/dev/null
expect_chosen_strength chosen.txt "chosen by maximum evidence (standard error"

python3 - <<'PY' || fail "the centre, the strength or the rows disagree with the Python computation"
import json, math
from grid import zoomed_argmax
from qid_groups import qid_groups
groups = qid_groups('train.txt', 2)
stats = []
for x in groups.values():
    n = len(x)
    mean = [sum(v[d] for v in x) / n for d in range(2)]
    S = [[sum((v[a] - mean[a]) * (v[b] - mean[b]) for v in x) for b in range(2)] for a in range(2)]
    stats.append((n, mean, S))
dof = sum(n - 1 for n, _, _ in stats)
C = [[sum(S[a][b] for _, _, S in stats) / dof for b in range(2)] for a in range(2)]
det = lambda M: M[0][0] * M[1][1] - M[0][1] * M[1][0]
lgamma2 = lambda x: 0.5 * math.log(math.pi) + math.lgamma(x) + math.lgamma(x - 0.5)
def log_evidence(nu):  # sum_i log p(S_i | nu), Sigma ~ IW(nu, (nu - 3) C), m_i = n_i - 1
    total = 0.0
    for n, _, S in stats:
        m = n - 1
        Psi = [[(nu - 3) * C[a][b] for b in range(2)] for a in range(2)]
        PS = [[Psi[a][b] + S[a][b] for b in range(2)] for a in range(2)]
        total += (-m * math.log(math.pi) + lgamma2((nu + m) / 2) - lgamma2(nu / 2)
                  + nu / 2 * math.log(det(Psi)) - (nu + m) / 2 * math.log(det(PS)))
    return total
best = zoomed_argmax(log_evidence, 3.0, 1003.0)
pool = json.load(open('pool.json'))
nu = pool['chosen']['prior-count']['value']
assert abs(nu - best) < 1e-6 * best, (nu, best)
saved = pool['matrices']['prior-centre']
assert all(abs(saved[a][b] - C[a][b]) < 1e-12 * abs(C[0][0]) for a in range(2) for b in range(2)), (saved, C)
# The posterior mean (default) divides by nu + n - D - 2, the mode by nu + n + D + 1.
for path, shift in (('train.ppk', -4), ('train-mode.ppk', 3)):
    rows = [dict((int(t.split(':')[0]), float(t.split(':')[1])) for t in l.split()[1:]) for l in open(path)]
    for (n, mean, S), row in zip(stats, rows):
        Sigma = [[((nu - 3) * C[a][b] + S[a][b]) / (nu + n + shift) for b in range(2)] for a in range(2)]
        got = [row[5], row[6], row[7], row[8], row[9]]
        want = [mean[0], mean[1], Sigma[0][0], Sigma[1][0], Sigma[1][1]]
        assert all(abs(g - w) < 1e-9 * (1 + abs(w)) for g, w in zip(got, want)), (path, got, want)
PY
pass

# The test file: the training file's centre and strength, printed as read from the pool.
"$PPK" fit gaussian --estimator map --prior pooled test.txt --pooled-from pool.json -o test.ppk 2> reused.txt
grep -qF "on train.txt (read from pool.json)" reused.txt || fail "the reuse is not reported: $(cat reused.txt)"
pass
python3 - <<'PY' || fail "the test rows do not use the training file's centre and strength"
import json
pool = json.load(open('pool.json'))
nu, C = pool['chosen']['prior-count']['value'], pool['matrices']['prior-centre']
row = dict((int(t.split(':')[0]), float(t.split(':')[1])) for t in open('test.ppk').readline().split()[1:])
# qid 1: (1, -1), (2, 2): S = [[0.5, 1.5], [1.5, 4.5]], n = 2
S = [[0.5, 1.5], [1.5, 4.5]]
want = [((nu - 3) * C[0][0] + S[0][0]) / (nu - 2), ((nu - 3) * C[1][0] + S[1][0]) / (nu - 2),
        ((nu - 3) * C[1][1] + S[1][1]) / (nu - 2)]
assert all(abs(row[7 + k] - want[k]) < 1e-9 for k in range(3)), (row, want)
PY
pass

# A fixed strength is recorded; a different one for the test file is refused, naming both files.
"$PPK" fit gaussian --estimator map --prior pooled --prior-count 8 train.txt --save-pooled pool8.json -o /dev/null 2>/dev/null
expect_error 2 "--prior-count 9" "train.txt" "pool8.json" "test.txt" -- \
  "$PPK" fit gaussian --estimator map --prior pooled --prior-count 9 test.txt --pooled-from pool8.json
expect_error 2 "pool.json holds a prior centre of 2 x 2" "--cov" -- \
  "$PPK" fit gaussian --estimator map --prior pooled --cov diag test.txt --pooled-from pool.json
expect_error 2 "--prior pooled is a prior of the map estimator" -- "$PPK" fit gaussian --prior pooled train.txt
expect_error 2 "--prior-count auto chooses the strength of --prior pooled" -- \
  "$PPK" fit gaussian --estimator map --prior-count auto train.txt
expect_error 2 "--prior-var belongs to --prior fixed" -- "$PPK" fit gaussian --estimator map --prior pooled --prior-var 2 train.txt
expect_error 2 "must exceed 3" -- "$PPK" fit gaussian --estimator map --prior pooled --prior-count 3 train.txt
expect_error 2 "--pooled-estimate applies to --prior pooled" -- "$PPK" fit gaussian --pooled-estimate mode train.txt
expect_error 2 "--prior must be fixed or pooled" -- "$PPK" fit gaussian --estimator map --prior wide train.txt
printf '1 qid:1 1:1 2:2\n1 qid:2 1:2 2:1\n' > singles.txt
expect_error 1 "singles.txt" "at least 2 vectors" -- "$PPK" fit gaussian --estimator map --prior pooled singles.txt -o out.ppk
expect_no_output out.ppk

# Poisson: rate_d ~ Gamma(A, A / r_d), r_d the pooled rate, A by maximum negative-binomial evidence.
python3 - <<'PY'
import random
random.seed(3)
with open('counts.txt', 'w') as f:
    for q in range(1, 41):
        rates = [random.gammavariate(2.0, r / 2.0) for r in (0.5, 3.0)]
        for j in range(3):
            counts = []
            for rate in rates:  # Poisson by counting unit-rate exponential arrivals in [0, rate]
                k, t = 0, random.expovariate(1.0)
                while t < rate:
                    k, t = k + 1, t + random.expovariate(1.0)
                counts.append(k)
            f.write("%d qid:%d 1:%d 2:%d\n" % (q % 2, q, counts[0], counts[1]))
PY
"$PPK" fit poisson --estimator map --prior pooled counts.txt --save-pooled counts-pool.json -o counts.ppk 2>/dev/null
"$PPK" fit poisson --estimator map --prior pooled counts.txt --pooled-from counts-pool.json -o again.ppk 2>/dev/null
cmp -s counts.ppk again.ppk || fail "refitting with --pooled-from changed the rows"
pass
python3 - <<'PY' || fail "the Poisson prior disagrees with the Python computation"
import json, math
from grid import zoomed_argmax
from qid_groups import qid_groups
groups = qid_groups('counts.txt', 2)
n_total = sum(len(g) for g in groups.values())
r = [sum(v[d] for g in groups.values() for v in g) / n_total for d in range(2)]
def log_evidence(a):
    total = 0.0
    for g in groups.values():
        for d in range(2):
            s, b = sum(v[d] for v in g), a / r[d]
            total += math.lgamma(a + s) - math.lgamma(a) + a * math.log(b) - (a + s) * math.log(b + len(g))
    return total
best = zoomed_argmax(log_evidence, 0.0, 1000.0)
pool = json.load(open('counts-pool.json'))
a = pool['chosen']['prior-shape']['value']
assert abs(a - best) < 1e-6 * best, (a, best)
assert all(abs(pool['matrices']['prior-rates'][d][0] - r[d]) < 1e-12 for d in range(2))
row = dict((int(t.split(':')[0]), float(t.split(':')[1])) for t in open('counts.ppk').readline().split()[1:])
g = groups['qid:1']
for d in range(2):
    want = (sum(v[d] for v in g) + a) / (len(g) + a / r[d])
    assert abs(row.get(4 + d, 0.0) - want) < 1e-9 * (1 + want), (row, want)
PY
pass
expect_error 2 "--prior-shape auto chooses the shape of --prior pooled" -- \
  "$PPK" fit poisson --estimator map --prior-shape auto counts.txt
expect_error 2 "drop --prior-rate" -- "$PPK" fit poisson --estimator map --prior pooled --prior-rate 2 counts.txt
# Exponential: 1/b_d ~ Gamma(A, (A - 1) bbar_d), bbar_d the pooled mean (absent = 0-valued), A > 1 by
# maximum Lomax evidence.
python3 - <<'PY'
import random
random.seed(5)
with open('waits.txt', 'w') as f:
    for q in range(1, 41):
        rates = [random.gammavariate(3.0, 1 / (2.0 * b)) for b in (0.5, 4.0)]
        for j in range(3):
            x = [random.expovariate(rate) for rate in rates]
            f.write("%d qid:%d 1:%.6f" % (q % 2, q, x[0]) + (" 2:%.6f\n" % x[1] if j else "\n"))
with open('waits-test.txt', 'w') as f:
    f.write("1 qid:1 1:0.3 2:2.5\n1 qid:1 1:0.9\n")
PY
"$PPK" fit exponential --estimator map --prior pooled waits.txt --save-pooled waits-pool.json -o waits.ppk 2>/dev/null
"$PPK" fit exponential --estimator map --prior pooled --pooled-estimate mode waits.txt -o waits-mode.ppk 2>/dev/null
"$PPK" fit exponential --estimator map --prior pooled waits.txt --pooled-from waits-pool.json -o waits-again.ppk 2>/dev/null
cmp -s waits.ppk waits-again.ppk || fail "refitting with --pooled-from changed the exponential rows"
"$PPK" fit exponential --estimator map --prior pooled waits-test.txt --pooled-from waits-pool.json -o waits-test.ppk 2>/dev/null
pass
python3 - <<'PY' || fail "the exponential prior disagrees with the Python computation"
import json, math
from grid import zoomed_argmax
from qid_groups import qid_groups
def read(path):
    return list(qid_groups(path, 2).values())
groups = read('waits.txt')
n_total = sum(len(g) for g in groups)
b = [sum(v[d] for g in groups for v in g) / n_total for d in range(2)]
def log_evidence(a):  # Lomax: B^A Gamma(A + n) / (Gamma(A) (B + S)^(A + n)), B = (A - 1) bbar_d
    total = 0.0
    for g in groups:
        for d in range(2):
            s, B, n = sum(v[d] for v in g), (a - 1) * b[d], len(g)
            total += a * math.log(B) + math.lgamma(a + n) - math.lgamma(a) - (a + n) * math.log(B + s)
    return total
best = zoomed_argmax(log_evidence, 1.0, 1001.0)
pool = json.load(open('waits-pool.json'))
a = pool['chosen']['prior-shape']['value']
assert abs(a - best) < 1e-6 * best, (a, best)
assert all(abs(pool['matrices']['prior-scales'][d][0] - b[d]) < 1e-12 * b[d] for d in range(2))
# The scale's posterior mean (default) divides by n + A - 1, its mode by n + A + 1.
for path, data, shift in (('waits.ppk', groups, a - 1), ('waits-mode.ppk', groups, a + 1),
                          ('waits-test.ppk', read('waits-test.txt'), a - 1)):
    rows = [dict((int(t.split(':')[0]), float(t.split(':')[1])) for t in l.split()[1:]) for l in open(path)]
    assert len(rows) == len(data), path
    for g, row in zip(data, rows):
        for d in range(2):
            want = (sum(v[d] for v in g) + (a - 1) * b[d]) / (len(g) + shift)
            assert abs(row[4 + d] - want) < 1e-9 * (1 + want), (path, row, want)
PY
pass
"$PPK" fit exponential --estimator map --prior pooled --prior-shape 3 waits.txt --save-pooled waits3.json -o /dev/null 2>/dev/null
expect_error 2 "--prior-shape 4" "waits.txt" "waits3.json" "waits-test.txt" -- \
  "$PPK" fit exponential --estimator map --prior pooled --prior-shape 4 waits-test.txt --pooled-from waits3.json
expect_error 1 "counts-pool.json was written by ppk fit poisson" "waits-test.txt" -- \
  "$PPK" fit exponential --estimator map --prior pooled waits-test.txt --pooled-from counts-pool.json
expect_error 2 "drop --prior-rate" -- "$PPK" fit exponential --estimator map --prior pooled --prior-rate 2 waits.txt
expect_error 2 "A > 1" -- "$PPK" fit exponential --estimator map --prior pooled --prior-shape 0.5 waits.txt
finish
