# ppk fit gamma --estimator map --prior pooled: the centre (the pooled mean of x and of log x per
# feature) and N0 chosen by maximum evidence, against an independent Python computation (the
# evidence's 1-D integrals over the shape summed on a fine grid; N0 must be its maximum); the rows
# against the maximum-likelihood fit of the data plus N0 pseudo-observations, written in Python;
# --save-pooled/--pooled-from reuse both unchanged; mismatches are refused naming both files.
source "$(dirname "$0")/lib.bash" "$@"

python3 - <<'PY'
import random
random.seed(5)
def write(path, examples):
    with open(path, 'w') as f:
        for q in range(1, examples + 1):
            shape, scale = random.uniform(1.0, 6.0), random.uniform(0.5, 2.0)
            for j in range(4):
                f.write("%d qid:%d 1:%.6f 2:%.6f\n" % (q % 2, q, random.gammavariate(shape, scale),
                                                       random.gammavariate(shape + 2, scale / 2)))
write('train.txt', 16)
write('test.txt', 5)
PY

"$PPK" fit gamma --estimator map --prior pooled train.txt --save-pooled pool.json -o train.ppk 2> chosen.txt
expect_chosen_strength chosen.txt "chosen by maximum evidence (standard error"

python3 - <<'PY' || fail "the centre, the strength or the rows disagree with the Python computation"
import json, math
from qid_groups import qid_groups
groups = qid_groups('train.txt', 2)
vectors = [v for x in groups.values() for v in x]
m = [sum(v[d] for v in vectors) / len(vectors) for d in range(2)]
l = [sum(math.log(v[d]) for v in vectors) / len(vectors) for d in range(2)]
pool = json.load(open('pool.json'))
centre = pool['matrices']['prior-centre']
assert all(abs(centre[d][0] - m[d]) < 1e-12 * m[d] and abs(centre[d][1] - l[d]) < 1e-12 for d in range(2)), centre
n0 = pool['chosen']['prior-count']['value']

def log_z(nu, s, t):  # log of the integral over a of exp((a-1) t - nu lgamma(a) + lgamma(nu a + 1) - (nu a + 1) log s)
    values = []
    for k in range(-15000, 15001):
        u = k * 0.002
        a = math.exp(u)
        values.append(u + (a - 1) * t - nu * math.lgamma(a) + math.lgamma(nu * a + 1) - (nu * a + 1) * math.log(s))
    top = max(values)
    return top + math.log(sum(math.exp(v - top) for v in values) * 0.002)

def log_evidence(c):
    total = 0.0
    for x in groups.values():
        for d in range(2):
            s, t = sum(v[d] for v in x), sum(math.log(v[d]) for v in x)
            total += log_z(c + len(x), c * m[d] + s, c * l[d] + t) - log_z(c, c * m[d], c * l[d])
    return total
at = log_evidence(n0)
for factor in (0.98, 1.02):
    assert log_evidence(n0 * factor) < at, (n0, factor)

def ml_shape(s):  # log a - digamma(a) = s, by bisection on a digamma written as a series
    def digamma(a):
        r = 0.0
        while a < 8:
            r -= 1 / a
            a += 1
        return r + math.log(a) - 1 / (2 * a) - 1 / (12 * a**2) + 1 / (120 * a**4) - 1 / (252 * a**6)
    lo, hi = 1e-8, 1e8
    for _ in range(200):
        mid = math.sqrt(lo * hi)
        lo, hi = (mid, hi) if math.log(mid) - digamma(mid) > s else (lo, mid)
    return lo
rows = [dict((int(t.split(':')[0]), float(t.split(':')[1])) for t in l_.split()[1:]) for l_ in open('train.ppk')]
for x, row in zip(groups.values(), rows):
    for d in range(2):
        n = n0 + len(x)
        mean = (n0 * m[d] + sum(v[d] for v in x)) / n
        mean_log = (n0 * l[d] + sum(math.log(v[d]) for v in x)) / n
        shape = ml_shape(math.log(mean) - mean_log)
        got_shape, got_scale = row[4 + d], row[6 + d]
        assert abs(got_shape - shape) < 1e-7 * shape and abs(got_scale - mean / shape) < 1e-7 * mean / shape, (row, shape)
PY
pass

# The test file: the training file's centre and strength, read from the pool and not re-chosen.
"$PPK" fit gamma --estimator map --prior pooled test.txt --pooled-from pool.json -o test.ppk 2> reused.txt
grep -qF "on train.txt (read from pool.json)" reused.txt || fail "the reuse is not reported: $(cat reused.txt)"
"$PPK" fit gamma --estimator map --prior pooled train.txt --pooled-from pool.json -o again.ppk 2>/dev/null
cmp -s train.ppk again.ppk || fail "refitting the training file with --pooled-from changed the rows"
"$PPK" fit gamma --estimator map --prior pooled test.txt --save-pooled own.json -o own.ppk 2>/dev/null
! cmp -s test.ppk own.ppk || fail "the test rows do not depend on the pool (centred on the test file itself?)"
pass

# Mismatches: another strength, another dimension, another family's pool; options of --prior fixed.
"$PPK" fit gamma --estimator map --prior pooled --prior-count 3 train.txt --save-pooled pool3.json -o /dev/null 2>/dev/null
expect_error 2 "--prior-count 4" "train.txt" "pool3.json" "test.txt" -- \
  "$PPK" fit gamma --estimator map --prior pooled --prior-count 4 test.txt --pooled-from pool3.json
expect_error 1 "pool.json" "test.txt" "dimension 3" -- \
  "$PPK" fit gamma --estimator map --prior pooled --dim 3 test.txt --pooled-from pool.json
"$PPK" fit exponential --estimator map --prior pooled train.txt --save-pooled exp.json -o /dev/null 2>/dev/null
expect_error 1 "exp.json" "test.txt" "ppk fit exponential" -- "$PPK" fit gamma --estimator map --prior pooled test.txt --pooled-from exp.json
expect_error 2 "--prior-shape belongs to --prior fixed" -- \
  "$PPK" fit gamma --estimator map --prior pooled --prior-shape 2 train.txt
expect_error 2 "--prior pooled is a prior of the map estimator" -- "$PPK" fit gamma --prior pooled train.txt
expect_error 2 "--prior-count auto chooses the strength of --prior pooled" -- \
  "$PPK" fit gamma --estimator map --prior-count auto train.txt
printf '1 qid:1 1:2 2:1\n1 qid:1 1:2 2:3\n1 qid:2 1:2 2:1\n' > constant.txt
expect_error 1 "constant.txt" "index 1" "all equal" -- \
  "$PPK" fit gamma --estimator map --prior pooled constant.txt -o out.ppk
expect_no_output out.ppk
finish
