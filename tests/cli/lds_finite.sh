# Finite LDS kernels by construction (estimate_lds.hpp): ppk fit lds and slds on short 13-D
# utterance-like sequences (24-40 frames, a large mean, an onset, little noise: where unconstrained EM
# returns explosive transitions and near-singular R) give rows whose transitions are stable and whose
# R meets its floor, and ppk gram of them, ppk and ppk_norm at T = 10, 100, 1000 and rho = 0.1, 0.5, 1,
# has no nan or inf (or, for ppk, refuses a row whose k(p, p) is beyond a double, naming ppk_norm).
# Hand-written rows whose kernel is not finite (an explosive transition at T = 1000) are refused with
# their row numbers by ppk gram and by the patched svm-train.
source "$(dirname "$0")/lib.bash" "$@"
need_patched_tools svm-train

# Six utterances (labels +1, -1 alternating): coordinate j has a per-utterance mean (scale 40 for the
# energy j = 0, 12 / (1 + j) for the others), three "phones" blended smoothly, an onset and a decay of
# the energy, a burst in a random direction growing 2.5-fold per frame into the last frame, and noise
# of 0.3. Unconstrained EM fits the burst with a transition eigenvalue near 2.5 (lds_sampling.hpp).
python3 - <<'PY'
import math, random
random.seed(21)
with open("utterances.txt", "w") as out:
    for qid in range(1, 7):
        frames, d, phones = random.randint(24, 40), 13, 3
        mean = [(40.0 if j == 0 else 12.0 / (1 + j)) * random.gauss(0, 1) for j in range(d)]
        targets = [[(10.0 if j == 0 else 8.0 / (1 + 0.5 * j)) * random.gauss(0, 1) for j in range(d)] for _ in range(phones)]
        burst = [20.0 * random.gauss(0, 1) for j in range(d)]
        for t in range(frames):
            position = (t + 0.5) / frames * phones - 0.5
            weights = [math.exp(-2.0 * (position - k) ** 2) for k in range(phones)]
            envelope = 1.0 / (1.0 + math.exp(4.0 - t)) / (1.0 + math.exp(t - frames + 5.0))
            frame = [mean[j] + envelope * sum(w * targets[k][j] for k, w in enumerate(weights)) / sum(weights)
                     + 0.3 * random.gauss(0, 1) for j in range(d)]
            frame[0] += 30.0 * envelope
            frame = [v + 2.5 ** (t - frames + 1) * b for v, b in zip(frame, burst)]
            out.write("%d qid:%d %s\n" % (1 if qid % 2 else -1, qid, " ".join("%d:%.5f" % (j + 1, v) for j, v in enumerate(frame))))
PY

"$PPK" fit lds --state-dim 4 utterances.txt -o lds.ppk
"$PPK" fit slds --state-dim 4 --states 2 --paths 2 utterances.txt -o slds.ppk
[[ $(wc -l < lds.ppk) == 6 && $(wc -l < slds.ppk) == 6 ]] || fail "expected one row per utterance"
pass

# The decoded models: A^(2^20) is 0 to double precision (the spectral radius is below 1: at most
# 0.999, so the power is below 0.999^(2^20) = e^-1048 times a constant), and R - 0.99 F is positive
# definite (a Cholesky factorisation succeeds), F = 0.01 diag(the coordinates' variances in the
# utterance): the floor, with room for rounding. For the slds rows, every regime's A.
"$PPK" decode lds.ppk > lds.jsonl
"$PPK" decode slds.ppk > slds.jsonl
python3 - utterances.txt lds.jsonl slds.jsonl <<'PY' || fail "fitted models break the constraints"
import json, sys
def product(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(len(b))) for j in range(len(b[0]))] for i in range(len(a))]
def vanishes(a):
    for _ in range(20):
        a = product(a, a)
    return max(abs(v) for row in a for v in row) < 1e-200
def positive_definite(m):
    n = len(m)
    l = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1):
            s = m[i][j] - sum(l[i][k] * l[j][k] for k in range(j))
            if i == j:
                if s <= 0:
                    return False
                l[i][i] = s ** 0.5
            else:
                l[i][j] = s / l[j][j]
    return True
groups = {}
for line in open(sys.argv[1]):
    fields = line.split()
    groups.setdefault(fields[1], []).append([float(f.split(":")[1]) for f in fields[2:]])
variances = []
for rows in groups.values():
    n = len(rows)
    means = [sum(r[j] for r in rows) / n for j in range(13)]
    variances.append([sum((r[j] - means[j]) ** 2 for r in rows) / n for j in range(13)])
for path in sys.argv[2:]:
    for i, line in enumerate(open(path)):
        m = json.loads(line)
        for a in ([m["A"]] if m["family"] == "lds" else m["A"]):  # slds: one A per regime
            assert vanishes(a), (path, i, a)
        r = m["R"]
        shifted = [[r[p][q] - (0.99 * 0.01 * variances[i][p] if p == q else 0.0) for q in range(13)] for p in range(13)]
        assert positive_definite(shifted), (path, i, "R below its floor")
PY
pass

# Every Gram: finite values (no nan, no inf), the ppk_norm diagonal 1. A ppk Gram may instead be
# refused because k(p, p) is beyond the largest double (13-D sequences at T = 1000), with the advice to
# use ppk_norm, which is computed in log space.
check_finite() {  # FILE
  python3 - "$1" <<'PY'
import math, sys
rows = [[float(v) for v in line.split()] for line in open(sys.argv[1])]
assert rows and all(len(r) == len(rows) for r in rows), "not a square matrix"
assert all(math.isfinite(v) for r in rows for v in r), "a value is nan or inf"
PY
}
for rows in lds.ppk slds.ppk; do
  for length in 10 100 1000; do
    for rho in 0.1 0.5 1; do
      "$PPK" gram -t ppk_norm -g "$rho" -d "$length" "$rows" -o norm.txt
      check_finite norm.txt || fail "ppk_norm gram of $rows at T = $length, rho = $rho: $(head -c 300 norm.txt)"
      awk '{ if ($NR < 1 - 1e-9 || $NR > 1 + 1e-9) exit 1 }' norm.txt || fail "ppk_norm diagonal of $rows at T = $length, rho = $rho"
      pass
      if "$PPK" gram -t ppk -g "$rho" -d "$length" "$rows" -o plain.txt 2> plain_stderr.txt; then
        check_finite plain.txt || fail "ppk gram of $rows at T = $length, rho = $rho: $(head -c 300 plain.txt)"
      else
        grep -qF "beyond the largest double; use ppk_norm" plain_stderr.txt ||
          fail "ppk gram of $rows at T = $length, rho = $rho failed: $(cat plain_stderr.txt)"
      fi
      pass
    done
  done
done

# Hand-written rows: row 2 has an explosive transition (A = 1.5: the state variance grows as 1.5^(2t)
# and overflows a double near t = 900), so at T = 1000 its kernel is not finite; rows 1 and 3 are
# stable. ppk gram and svm-train refuse the file naming row 2, with a non-zero exit and nothing written.
cat > handwritten.jsonl <<'EOF'
{"family":"lds","mean0":[0.5],"cov0":[[1.0]],"A":[[0.9]],"Q":[[0.25]],"C":[[1.0]],"R":[[0.3]],"length":1000,"label":1}
{"family":"lds","mean0":[0.5],"cov0":[[1.0]],"A":[[1.5]],"Q":[[0.25]],"C":[[1.0]],"R":[[0.3]],"length":1000,"label":-1}
{"family":"lds","mean0":[-0.5],"cov0":[[1.0]],"A":[[-0.5]],"Q":[[0.5]],"C":[[2.0]],"R":[[0.1]],"length":1000,"label":-1}
EOF
"$PPK" encode handwritten.jsonl -o handwritten.ppk
# (ppk at rho = 1 only: at rho = 0.1 the stable rows' own k(p, p) at T = 1000 is beyond a double.)
for kind_rho in "ppk_norm 0.1" "ppk_norm 1" "ppk 1"; do
  read -r kind rho <<< "$kind_rho"
  expect_error 1 "handwritten.ppk: row 2: lds kernel at T = 1000" "spectral radius of the transitions A is 1.5" -- \
    "$PPK" gram -t "$kind" -g "$rho" handwritten.ppk -o gram.txt
  expect_no_output gram.txt
  status=0
  "$BIN/svm-train" -q -t "$kind" -g "$rho" handwritten.ppk handwritten.model > train_stdout.txt 2> train_stderr.txt || status=$?
  [[ $status != 0 ]] || fail "svm-train -t $kind -g $rho trained on a row whose kernel is not finite"
  grep -qF "row 2: lds kernel at T = 1000" train_stderr.txt || fail "svm-train -t $kind -g $rho: stderr lacks 'row 2: ': $(cat train_stderr.txt)"
  [[ ! -e handwritten.model ]] || fail "svm-train -t $kind -g $rho wrote a model"
  pass
done
# At T = 10 the same rows have finite kernels.
"$PPK" gram -t ppk_norm -g 1 -d 10 handwritten.ppk -o short.txt
check_finite short.txt || fail "handwritten rows at T = 10: $(cat short.txt)"
pass

finish
