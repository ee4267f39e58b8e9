# ppk fit fhmm: one factorial HMM per qid group of LIBSVM vectors. Sequences simulated here from a
# 2-chain model (state means (0,0), (3,0), (0,2), (3,2)) give back those four means (up to the labels);
# the rows are the same on 1 and 2 threads; the fitted rows have kernels; --e-step defaults to exact
# up to 1024 product states and to mean-field above; --prior pooled is chosen, saved and reused;
# bad options are errors.
source "$(dirname "$0")/lib.bash" "$@"

python3 - <<'PY'
import random
random.seed(7)
# Chain 0 moves the first coordinate (0 or 3), chain 1 the second (0 or 2); noise N(0, 0.3 I).
stay = [(0.9, 0.8), (0.7, 0.85)]
means = [(0.0, 3.0), (0.0, 2.0)]
with open("train.txt", "w") as out:
    for group, (label, length) in enumerate([(1, 1500), (-1, 40), (1, 60)], start=1):
        k = [random.randrange(2), random.randrange(2)]
        for t in range(length):
            if t > 0:
                k = [s if random.random() < stay[c][s] else 1 - s for c, s in enumerate(k)]
            x = means[0][k[0]] + random.gauss(0, 0.3 ** 0.5)
            y = means[1][k[1]] + random.gauss(0, 0.3 ** 0.5)
            out.write(f"{label} qid:{group} 1:{x:.6f} 2:{y:.6f}\n")
PY
"$PPK" fit fhmm --chains 2 --states 2 --threads 1 train.txt -o one.ppk
"$PPK" fit fhmm --chains 2 --states 2 --threads 2 train.txt -o two.ppk
cmp one.ppk two.ppk || fail "1 and 2 threads differ"
[[ $(wc -l < one.ppk) == 3 ]] || fail "expected 3 rows: $(cat one.ppk)"
[[ $(cut -d' ' -f1 one.ppk | tr '\n' ' ') == "1 -1 1 " ]] || fail "labels: $(cut -d' ' -f1 one.ppk)"
pass
"$PPK" decode one.ppk > one.jsonl
python3 - <<'PY' || fail "the first sequence's state means: $(head -1 one.jsonl)"
import json
model = json.loads(open("one.jsonl").readline())
assert model["family"] == "fhmm" and len(model["chains"]) == 2 and model["length"] == 1499
w0, w1 = (chain["means"] for chain in model["chains"])
got = [[a[i] + b[i] for i in range(2)] for a in w0 for b in w1]
for expected in ([0, 0], [3, 0], [0, 2], [3, 2]):
    nearest = min(got, key=lambda g: (g[0] - expected[0]) ** 2 + (g[1] - expected[1]) ** 2)
    assert abs(nearest[0] - expected[0]) < 0.15 and abs(nearest[1] - expected[1]) < 0.15, (expected, got)
    got.remove(nearest)
PY
pass
"$PPK" gram -t ppk_norm -g 1 -d 10 one.ppk > gram.txt
awk '{ for (i = 1; i <= NF; ++i) if (!($i > 0)) exit 1 }' gram.txt || fail "gram of fitted rows: $(cat gram.txt)"
pass

# --e-step: the default is the exact E-step for 2^2 product states, the mean-field one for 6^4 = 1296.
head -n 100 train.txt > short.txt
"$PPK" fit fhmm --iterations 20 --restarts 1 short.txt -o default.ppk
"$PPK" fit fhmm --iterations 20 --restarts 1 --e-step exact short.txt -o exact.ppk
"$PPK" fit fhmm --iterations 20 --restarts 1 --e-step mean-field short.txt -o mean-field.ppk
cmp default.ppk exact.ppk || fail "the default for 4 product states is not the exact E-step"
! cmp -s exact.ppk mean-field.ppk || fail "the mean-field E-step gave the exact one's rows"
pass
"$PPK" fit fhmm --chains 4 --states 6 --iterations 20 --restarts 1 short.txt -o default.ppk
"$PPK" fit fhmm --chains 4 --states 6 --iterations 20 --restarts 1 --e-step mean-field short.txt -o mean-field.ppk
cmp default.ppk mean-field.ppk || fail "the default for 1296 product states is not the mean-field E-step"
"$PPK" decode default.ppk | python3 -c '
import json, sys
model = json.loads(sys.stdin.readline())
assert len(model["chains"]) == 4 and all(len(chain["start"]) == 6 for chain in model["chains"]), model' ||
  fail "4 chains of 6 states: $(head -c 300 default.ppk)"
pass

expect_error 2 "4096 product states" "at most 1024" "--e-step mean-field" -- \
  "$PPK" fit fhmm --chains 6 --states 4 --e-step exact train.txt -o bad.ppk
expect_no_output bad.ppk
expect_error 2 "--e-step must be exact or mean-field, got 'variational'" -- "$PPK" fit fhmm --e-step variational train.txt -o bad.ppk
expect_no_output bad.ppk
expect_error 2 "1100 states in all" "at most 1000" -- "$PPK" fit fhmm --chains 11 --states 100 train.txt -o bad.ppk
expect_no_output bad.ppk
# --prior pooled: the inverse-Wishart prior on Sigma centred on the pooled within-sequence
# covariance, its strength chosen on the training file, saved and reused unchanged; a test file
# fitted with --prior none against that pool is refused naming both files.
head -120 train.txt | tail -100 | awk '{ $2 = "qid:" int((NR - 1) / 20) + 1; print }' > short.txt
"$PPK" fit fhmm --prior pooled --iterations 50 short.txt --save-pooled fhmm-pool.json -o prior.ppk 2> prior.txt
grep -qF "ppk fit fhmm: prior-count = " prior.txt || fail "the fhmm prior's strength is not printed: $(cat prior.txt)"
pass
"$PPK" fit fhmm --prior pooled --iterations 50 short.txt --pooled-from fhmm-pool.json -o again.ppk 2>/dev/null
cmp -s prior.ppk again.ppk || fail "refitting with --pooled-from changed the fhmm rows"
pass
"$PPK" fit fhmm --iterations 50 short.txt -o none.ppk 2>/dev/null
! cmp -s prior.ppk none.ppk || fail "--prior pooled did not change the fhmm rows"
pass
expect_error 2 "short.txt is fitted with --prior none, but fhmm-pool.json holds the covariance prior" -- \
  "$PPK" fit fhmm short.txt --pooled-from fhmm-pool.json -o bad.ppk
expect_no_output bad.ppk
expect_error 2 "--estimator is not offered" -- "$PPK" fit fhmm --estimator map train.txt
expect_error 2 "--smoothing" -- "$PPK" fit fhmm --smoothing -1 train.txt
finish
