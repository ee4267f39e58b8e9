# ppk fit slds: SLDS rows (family 13, slds.hpp) fitted by approximate (hard-assignment) EM to
# qid-grouped LIBSVM sequences; the rows decode as SLDSs with the given K, n and S; the regimes'
# transitions have the simulating signs; the same rows on 1 and 3 threads; bad input is an error
# naming file and line, with nothing written.
source "$(dirname "$0")/lib.bash" "$@"

# Two sequences of 1500 scalars from a sticky two-regime SLDS: s_t = a_r s_{t-1} + N(0, 1) with
# a = 0.95 or -0.5, switch probability 0.02, x_t = s_t + N(0, 0.2^2).
python3 - <<'PY'
import random
random.seed(4)
with open("sequences.txt", "w") as out:
    for qid in (1, 2):
        r, s = 0, random.gauss(0, 1)
        for t in range(1500):
            if t:
                if random.random() < 0.02:
                    r = 1 - r
                s = (0.95 if r == 0 else -0.5) * s + random.gauss(0, 1)
            out.write("%d qid:%d 1:%.6f\n" % (qid, qid, s + random.gauss(0, 0.2)))
PY

"$PPK" fit slds --states 2 --state-dim 1 --paths 4 sequences.txt -o slds.ppk
[[ $(wc -l < slds.ppk) == 2 ]] || fail "expected one row per qid group: $(wc -l < slds.ppk)"
pass
mapfile -t rows < slds.ppk
# 2: family 13, 3: K = 2, 4: n = 1, 5: d = 1, 6: T = 1499, 7: S = 4.
[[ $(field "${rows[0]}" 2) == 13 && $(field "${rows[0]}" 3) == 2 && $(field "${rows[0]}" 4) == 1 &&
   $(field "${rows[0]}" 5) == 1 && $(field "${rows[0]}" 6) == 1499 && $(field "${rows[0]}" 7) == 4 ]] ||
  fail "expected family 13, K = 2, n = 1, d = 1, T = 1499, S = 4: ${rows[0]}"
pass

# The rows decode as SLDSs; a scalar transition is the same in every state basis: the regimes' a
# near the simulating 0.95 and -0.5 (within 0.15).
"$PPK" decode slds.ppk | python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    assert m["family"] == "slds" and m["paths"] == 4 and len(m["A"]) == 2, m
    a = sorted(x[0][0] for x in m["A"])
    assert abs(a[1] - 0.95) < 0.15 and abs(a[0] + 0.5) < 0.15, a
' || fail "decoded rows: $(head -1 slds.ppk)"
pass

# The same input gives the same rows, on any number of threads.
for threads in 1 3; do
  "$PPK" fit slds --states 2 --state-dim 1 --paths 4 --threads "$threads" sequences.txt -o again.ppk
  cmp -s slds.ppk again.ppk || fail "fits on $threads thread(s) differ from the first"
  pass
done

# A one-vector sequence, and a value that is not finite: exit 1, the file, the line (and the qid);
# nothing written.
expect_bad_sequences_refused slds "1:0.5" "1:nan"

# Command-line errors (exit 2), nothing written.
expect_error 2 "--states must be in [1, 1000]" -- "$PPK" fit slds --states 0 --state-dim 1 sequences.txt -o bad.ppk
expect_no_output bad.ppk
expect_error 2 "--paths must be in [1, 1000]" -- "$PPK" fit slds --paths 0 --state-dim 1 sequences.txt
expect_error 2 "ppk fit slds needs --state-dim n" -- "$PPK" fit slds sequences.txt
expect_error 2 "--state-dim must be in [1, 1000]" -- "$PPK" fit slds --state-dim 0 sequences.txt
expect_error 2 "--estimator is not offered" -- "$PPK" fit slds --state-dim 1 --estimator map sequences.txt
"$PPK" fit slds --help | grep -F -- "hard-assignment" >/dev/null || fail "ppk fit slds --help does not name the method"
pass

finish
