# ppk fit slds --pooled and --adapt-from (estimate_slds.hpp): the pooled SLDS is one row (label
# 0) kept in the pool file and does not depend on --threads; adapted rows decode, keep their labels
# and pair with the pooled row in ppk gram (finite kernels, PSD Gram with it); a huge --relevance
# reproduces the pooled model; every bad option or file is refused by name with nothing written.
source "$(dirname "$0")/lib.bash" "$@"

# 24 training and 6 test sequences of 14-16 2-D vectors (seed 4): a 2-D state that switches between
# a slow and a fast rotation (stay probability 0.85), the fast one faster for class +1 than for -1,
# observed through a fixed C with noise.
python3 - <<'PY'
import math, random
random.seed(4)
def sequence(label, n):
    speeds = (0.2, 1.2 if label > 0 else 0.7)
    s, r, out = [random.gauss(0, 1), random.gauss(0, 1)], 0, []
    for t in range(n):
        if t:
            if random.random() > 0.85:
                r = 1 - r
            w = speeds[r]
            a = [[0.9 * math.cos(w), -0.9 * math.sin(w)], [0.9 * math.sin(w), 0.9 * math.cos(w)]]
            s = [a[0][0] * s[0] + a[0][1] * s[1] + random.gauss(0, 0.4), a[1][0] * s[0] + a[1][1] * s[1] + random.gauss(0, 0.4)]
        out.append((s[0] + 0.3 * s[1] + random.gauss(0, 0.3), -0.4 * s[0] + 0.8 * s[1] + random.gauss(0, 0.3)))
    return out
for path, count in (("train.txt", 24), ("test.txt", 6)):
    with open(path, "w") as f:
        for i in range(count):
            label = 1 if i % 2 == 0 else -1
            for x in sequence(label, 14 + i % 3):
                f.write("%d qid:%d 1:%.6f 2:%.6f\n" % (label, i + 1, x[0], x[1]))
PY

"$PPK" fit slds --pooled --state-dim 2 --paths 4 --save-pooled pool.json train.txt -o pooled.row
expect_pooled_row pooled.row
python3 -c 'import json; m = json.load(open("pool.json"))["model"]; assert m["family"] == "slds" and len(m["A"]) == 2 and len(m["A"][0]) == 2 and m["length"] == 13 and m["paths"] == 4' ||
  fail "pool.json holds no pooled 2-regime slds: $(head -c 300 pool.json)"
pass
"$PPK" fit slds --pooled --state-dim 2 --paths 4 --threads 2 train.txt -o pooled2.row
cmp -s pooled.row pooled2.row || fail "--threads 2 changed the pooled row"
pass

"$PPK" fit slds --adapt-from pool.json --paths 4 train.txt -o adapted.ppk
"$PPK" fit slds --adapt-from pool.json --relevance 4 --adapt transitions,emissions --paths 4 test.txt -o adapted_test.ppk
expect_adapted_rows 24 6
python3 - <<'PY' || fail "decoded adapted rows"
import json
from qid_groups import group_labels_and_sizes
pooled = json.loads(open("pooled.jsonl").readline())
for (label, n), line in zip(group_labels_and_sizes("test.txt"), open("adapted_test.jsonl")):
    m = json.loads(line)
    assert m["family"] == "slds" and m["length"] == n - 1 and m["paths"] == 4 and str(m["label"]) == label, m
    # --adapt transitions,emissions: the start (pi, mean0, cov0) keeps the pooled values
    assert m["start"] == pooled["start"] and m["mean0"] == pooled["mean0"] and m["cov0"] == pooled["cov0"], m
    assert m["A"] != pooled["A"] and m["C"] != pooled["C"], m
PY
pass
# The normalised Gram of the adapted test rows and the pooled row: finite, in (0, 1], ones on the
# diagonal, and PSD; --relevance 1e14: every adapted row is the pooled model to 1e-9 (it stores
# --paths' default S, 10); a bad --relevance is refused.
expect_state_space_adaptation slds 13 7

# Bad options (status 2) and files (status 1): refused by name, nothing written.
expect_error 2 "--adapt" "'weights'" "slds" "start, transitions, emissions" -- \
  "$PPK" fit slds --adapt-from pool.json --adapt weights test.txt -o bad.ppk
expect_error 2 "--adapt" "foo" -- "$PPK" fit slds --adapt-from pool.json --adapt start,foo test.txt -o bad.ppk
expect_error 2 "--adapt applies to --adapt-from" -- "$PPK" fit slds --state-dim 2 --adapt start test.txt -o bad.ppk
for option in "--states 3" "--state-dim 2" "--smoothing 0.5" "--restarts 5" "--seed 7"; do
  # shellcheck disable=SC2086
  expect_error 2 "${option% *} shapes the pooled model" -- "$PPK" fit slds --adapt-from pool.json $option test.txt -o bad.ppk
done
expect_error 2 "--paths" -- "$PPK" fit slds --adapt-from pool.json --paths 0 test.txt -o bad.ppk
expect_error 2 "--iterations" -- "$PPK" fit slds --adapt-from pool.json --iterations 0 test.txt -o bad.ppk
expect_error 2 "ppk fit slds needs --state-dim n" -- "$PPK" fit slds --pooled train.txt -o bad.ppk
expect_error 2 "--states" -- "$PPK" fit slds --pooled --state-dim 2 --states 0 train.txt -o bad.ppk
expect_error 2 "--prior-strength applies to per-example fits" -- \
  "$PPK" fit slds --pooled --state-dim 2 --prior-strength 4 train.txt -o bad.ppk
expect_error 2 "--prior-observation-noise applies to per-example fits" -- \
  "$PPK" fit slds --adapt-from pool.json --prior-observation-noise 0.5 test.txt -o bad.ppk
expect_error 2 "--relevance applies to --adapt-from" -- "$PPK" fit slds --state-dim 2 --relevance 3 test.txt -o bad.ppk
expect_error 2 "--pooled, --adapt-from and --fisher-from exclude each other" -- \
  "$PPK" fit slds --pooled --adapt-from pool.json test.txt -o bad.ppk
expect_error 2 "holds no Fisher information" -- "$PPK" fit slds --fisher-from pool.json test.txt -o bad.ppk
expect_state_space_files_refused slds
"$PPK" fit lds --pooled --state-dim 2 --save-pooled lds_pool.json train.txt -o /dev/null
expect_error 1 "lds_pool.json was written by ppk fit lds" -- "$PPK" fit slds --adapt-from lds_pool.json test.txt -o bad.ppk
expect_no_output bad.ppk
finish
