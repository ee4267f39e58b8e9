# ppk fit mixture|hmm --prior pooled (hmm's default with Gaussian emissions): the inverse-Wishart
# prior on every component's (state's) covariance centred on the training file's pooled within-example covariance, its strength chosen
# by held-out likelihood on the training file: printed, saved by --save-pooled, reused unchanged by
# --pooled-from (the rows equal those of the saved value given by hand), and refused when the
# command line contradicts the pool file (naming both files).
source "$(dirname "$0")/lib.bash" "$@"

python3 - <<'PY'
import random
random.seed(3)
def write(path, sets, first):
    with open(path, 'w') as f:
        for q in range(first, first + sets):
            for j in range(9 + q % 4):
                c = j % 2
                a, b = random.gauss(0, 1), random.gauss(0, 1)
                f.write("%d qid:%d 1:%.6f 2:%.6f\n" % (q % 2, q, 4 * c + a, 2 * c + 0.5 * a + 0.7 * b))
write('train.txt', 10, 1)
write('test.txt', 3, 100)
PY

"$PPK" fit mixture --prior pooled train.txt --save-pooled pool.json -o train.ppk 2> chosen.txt
grep -qF "ppk fit mixture: prior-count = " chosen.txt && grep -qF "chosen by maximum held-out likelihood over 10 examples" chosen.txt ||
  fail "the chosen strength is not printed: $(cat chosen.txt)"
pass

# The centre is the pooled within-example covariance sum_i S_i / sum_i (n_i - 1), the strength a
# point of the grid 3 + 2^j, j = -3..10.
python3 - <<'PY' || fail "the saved centre or strength is wrong"
import json
from qid_groups import qid_groups
groups = qid_groups('train.txt', 2)
S = [[0.0, 0.0], [0.0, 0.0]]
dof = 0
for x in groups.values():
    n = len(x)
    mean = [sum(v[d] for v in x) / n for d in range(2)]
    for a in range(2):
        for b in range(2):
            S[a][b] += sum((v[a] - mean[a]) * (v[b] - mean[b]) for v in x)
    dof += n - 1
pool = json.load(open('pool.json'))
saved = pool['matrices']['prior-centre']
assert all(abs(saved[a][b] - S[a][b] / dof) < 1e-12 * S[0][0] / dof for a in range(2) for b in range(2)), saved
nu = pool['chosen']['prior-count']['value']
assert any(abs(nu - (3 + 2.0 ** j)) < 1e-12 for j in range(-3, 11)), nu
assert pool['family'] == 'mixture'
open('nu.txt', 'w').write(repr(nu))
json.dump([[S[a][b] / dof for b in range(2)] for a in range(2)], open('centre.json', 'w'))
PY
pass

# The test file reuses the saved values: its rows equal those of the same values given by hand
# (a test file centred on itself would differ), and refitting the training file changes nothing.
"$PPK" fit mixture --prior pooled test.txt --pooled-from pool.json -o test.ppk 2> reused.txt
grep -qF "read from pool.json" reused.txt || fail "the test fit does not say it reused the pool: $(cat reused.txt)"
pass
"$PPK" fit mixture --prior pooled train.txt --pooled-from pool.json -o again.ppk 2>/dev/null
cmp -s train.ppk again.ppk || fail "refitting the training file with --pooled-from changed its rows"
pass
"$PPK" fit mixture --prior pooled --prior-count "$(cat nu.txt)" test.txt --save-pooled self.json -o test-self.ppk 2>/dev/null
! cmp -s test.ppk test-self.ppk || fail "the test rows do not depend on the training file's centre"
pass
"$PPK" fit mixture train.txt -o plain.ppk 2>/dev/null
! cmp -s train.ppk plain.ppk || fail "--prior pooled did not change the rows"
pass

# Contradictions are refused, naming both files.
expect_error 2 "--prior-count 9" "train.txt" "pool.json" "test.txt" -- \
  "$PPK" fit mixture --prior pooled --prior-count 9 test.txt --pooled-from pool.json
expect_error 2 "pool.json holds a prior centre of 2 x 2" "--cov" -- \
  "$PPK" fit mixture --prior pooled --cov diag test.txt --pooled-from pool.json
"$PPK" fit mixture train.txt --save-pooled no-prior.json -o /dev/null 2>/dev/null
expect_error 2 "no-prior.json holds no prior-centre" "train.txt" -- \
  "$PPK" fit mixture --prior pooled test.txt --pooled-from no-prior.json
expect_error 2 "--prior-count sets the strength of --prior pooled" -- "$PPK" fit mixture --prior-count 5 train.txt
expect_error 2 "--prior-count must be a finite number > 3" -- "$PPK" fit mixture --prior pooled --prior-count 3 train.txt
expect_error 2 "--prior must be none or pooled" -- "$PPK" fit mixture --prior wide train.txt
expect_error 2 "--prior-count must be a finite number > 2" -- \
  "$PPK" fit mixture --prior pooled --cov iso --prior-count 2 train.txt

# hmm with Gaussian emissions: the same, on the sets read as sequences.
"$PPK" fit hmm --states 2 --prior pooled --iterations 50 train.txt --save-pooled hmm-pool.json -o hmm-train.ppk 2> hmm-chosen.txt
grep -qF "ppk fit hmm: prior-count = " hmm-chosen.txt && grep -qF "maximum held-out likelihood" hmm-chosen.txt ||
  fail "the HMM's chosen strength is not printed: $(cat hmm-chosen.txt)"
pass
"$PPK" fit hmm --states 2 --prior pooled --iterations 50 train.txt --pooled-from hmm-pool.json -o hmm-again.ppk 2>/dev/null
cmp -s hmm-train.ppk hmm-again.ppk || fail "refitting the HMM's training file with --pooled-from changed its rows"
pass
expect_error 2 "--prior-count 9" "train.txt" "hmm-pool.json" -- \
  "$PPK" fit hmm --states 2 --prior pooled --prior-count 9 test.txt --pooled-from hmm-pool.json
expect_error 1 "hmm-pool.json was written by ppk fit hmm" -- \
  "$PPK" fit mixture --prior pooled test.txt --pooled-from hmm-pool.json
# The prior is hmm's default for Gaussian emissions: the default rows equal those of --prior pooled,
# and the default fit prints its choice.
"$PPK" fit hmm --states 2 --iterations 50 train.txt --save-pooled hmm-default.json -o hmm-default.ppk 2> default.txt
cmp -s hmm-train.ppk hmm-default.ppk || fail "the default HMM rows differ from those of --prior pooled"
pass
grep -qF "ppk fit hmm: prior-count = " default.txt || fail "the default fit does not print its prior: $(cat default.txt)"
pass
"$PPK" fit hmm --states 2 --prior none --iterations 50 train.txt -o hmm-none.ppk 2>/dev/null
! cmp -s hmm-default.ppk hmm-none.ppk || fail "--prior none gives the default rows"
pass
# A test file fitted with --pooled-from uses the training file's centre and nu: its rows equal those
# fitted from a pool file written here with the pooled covariance of train.txt (computed in Python
# above, centre.json) and the saved nu given explicitly, and differ from the test file's rows
# centred on itself.
"$PPK" fit hmm --states 2 --iterations 50 test.txt --pooled-from hmm-default.json -o hmm-test.ppk 2> reused.txt
grep -qF "(read from hmm-default.json)" reused.txt || fail "the HMM test fit does not say it reused the pool: $(cat reused.txt)"
pass
python3 - <<'PY' || fail "could not write the explicit pool file"
import json
nu = json.load(open('hmm-default.json'))['chosen']['prior-count']['value']
json.dump({"source": "train.txt", "family": "hmm", "dim": 2,
           "chosen": {"prior-count": {"value": nu, "chosen_by": "given here"}},
           "matrices": {"prior-centre": json.load(open('centre.json'))}},
          open('hmm-explicit.json', 'w'))
open('hmm-nu.txt', 'w').write(repr(nu))
PY
"$PPK" fit hmm --states 2 --iterations 50 --prior-count "$(cat hmm-nu.txt)" test.txt --pooled-from hmm-explicit.json \
  -o hmm-test-explicit.ppk 2>/dev/null
python3 - <<'PY' || fail "the test rows differ from those fitted with the training file's explicit centre and nu"
a = open('hmm-test.ppk').read().replace(',', ' ').split()
b = open('hmm-test-explicit.ppk').read().replace(',', ' ').split()
assert len(a) == len(b), (len(a), len(b))
for u, v in zip(a, b):
    if u != v:
        x, y = float(u.split(':')[-1]), float(v.split(':')[-1])
        assert abs(x - y) <= 1e-9 * max(1.0, abs(x)), (u, v)
PY
pass
"$PPK" fit hmm --states 2 --iterations 50 test.txt -o hmm-test-self.ppk 2>/dev/null
! cmp -s hmm-test.ppk hmm-test-self.ppk || fail "the HMM test rows do not depend on the training file's prior"
pass
# Mismatches are refused, naming both files, and write nothing: --prior none against a pool that
# holds a prior, and the default prior against a pool written without one.
expect_error 2 "test.txt is fitted with --prior none, but hmm-default.json holds the covariance prior chosen on the training file train.txt" -- \
  "$PPK" fit hmm --states 2 --prior none test.txt --pooled-from hmm-default.json -o bad.ppk
"$PPK" fit hmm --states 2 --prior none --iterations 50 train.txt --save-pooled hmm-none.json -o /dev/null 2>/dev/null
expect_error 2 "hmm-none.json holds no prior-centre" "train.txt" -- \
  "$PPK" fit hmm --states 2 test.txt --pooled-from hmm-none.json -o bad.ppk
[[ ! -e bad.ppk ]] || fail "a refused fit wrote bad.ppk"
pass

printf '1 ACGTAC\n-1 CGTACG\n' > dna.txt
expect_error 2 "--prior and --prior-count apply to --emission gaussian" -- "$PPK" fit hmm --prior pooled dna.txt
