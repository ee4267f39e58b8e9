# ppk fit lds: LDS rows (family 11, lds.hpp) fitted by EM to qid-grouped LIBSVM sequences; the rows
# decode as LDSs whose transition has the sign of the simulating system's; --length; the same rows on
# 1 and 3 threads; bad input is an error naming file and line, with nothing written.
source "$(dirname "$0")/lib.bash" "$@"

# Four sequences of 120 2-D vectors from x_t = c s_t + noise, s_t = a s_{t-1} + noise: a = 0.8 for
# label 1, a = -0.7 for label -1.
python3 - <<'PY'
import random
random.seed(5)
with open("sequences.txt", "w") as out:
    for qid in range(1, 5):
        label, a = (1, 0.8) if qid % 2 else (-1, -0.7)
        s = random.gauss(0, 1)
        for t in range(120):
            if t:
                s = a * s + random.gauss(0, 0.6)
            out.write("%d qid:%d 1:%.6f 2:%.6f\n" % (label, qid, s + random.gauss(0, 0.3), -0.5 * s + random.gauss(0, 0.3)))
PY

"$PPK" fit lds --state-dim 1 --iterations 100 sequences.txt -o lds.ppk
[[ $(wc -l < lds.ppk) == 4 ]] || fail "expected one row per qid group: $(wc -l < lds.ppk)"
pass
mapfile -t rows < lds.ppk
# 1: version, 2: family 11, 3: n = 1, 4: d = 2, 5: the stored T = 119.
[[ $(field "${rows[0]}" 2) == 11 && $(field "${rows[0]}" 3) == 1 && $(field "${rows[0]}" 4) == 2 && $(field "${rows[0]}" 5) == 119 ]] ||
  fail "expected family 11, n = 1, d = 2, T = 119: ${rows[0]}"
pass
[[ ${rows[0]%% *} == 1 && ${rows[1]%% *} == -1 ]] || fail "labels: ${rows[0]%% *} ${rows[1]%% *}"
pass

# The rows decode as LDSs; a scalar transition is the same in every state basis, so its sign is the
# simulating a's.
"$PPK" decode lds.ppk | python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    assert m["family"] == "lds" and m["length"] == 119 and len(m["C"]) == 2 and len(m["R"]) == 2, m
    a = m["A"][0][0]
    assert (a > 0.5) if m["label"] == 1 else (a < -0.4), m
' || fail "decoded rows: $(head -1 lds.ppk)"
pass

# --length T sets the stored length; the normalised kernel of a row with itself is 1.
"$PPK" fit lds --state-dim 2 --iterations 30 --length 9 sequences.txt -o short.ppk
[[ $(field "$(head -1 short.ppk)" 3) == 2 && $(field "$(head -1 short.ppk)" 5) == 9 ]] || fail "n = 2, T = 9: $(head -1 short.ppk)"
pass
"$PPK" gram -t ppk_norm -g 0.5 short.ppk > gram.txt
awk '{ if ($NR < 1 - 1e-9 || $NR > 1 + 1e-9) exit 1 }' gram.txt || fail "ppk_norm diagonal: $(cat gram.txt)"
pass

# The same input gives the same rows, on any number of threads.
for threads in 1 3; do
  "$PPK" fit lds --state-dim 1 --iterations 100 --threads "$threads" sequences.txt -o again.ppk
  cmp -s lds.ppk again.ppk || fail "fits on $threads thread(s) differ from the first"
  pass
done

# A one-vector sequence, and a value that is not finite: exit 1, the file, the line (and the qid);
# nothing written.
expect_bad_sequences_refused lds "1:0.5 2:0.1" "1:nan 2:0.1"
# A vector with more coordinates than --dim.
{ head -3 sequences.txt; echo "1 qid:1 1:0.2 2:0.1 3:0.4"; } > wide.txt
expect_error 1 "wide.txt:1: qid 1: index 3 (in vector 4) is larger than the dimension 2 (--dim)" -- \
  "$PPK" fit lds --state-dim 1 --dim 2 wide.txt -o bad.ppk
expect_no_output bad.ppk

# Command-line errors (exit 2).
expect_error 2 "ppk fit lds needs --state-dim n" -- "$PPK" fit lds sequences.txt
expect_error 2 "--state-dim must be in [1, 1000]" -- "$PPK" fit lds --state-dim 0 sequences.txt
expect_error 2 "--prior-strength must be auto or a finite number >= 0, got '-1'" -- \
  "$PPK" fit lds --state-dim 1 --prior-strength -1 sequences.txt
expect_error 2 "--prior-state-noise must be auto or a finite number > 0, got '0'" -- \
  "$PPK" fit lds --state-dim 1 --prior-state-noise 0 sequences.txt
expect_error 2 "--ridge must be a finite number >= 0" -- "$PPK" fit lds --state-dim 1 --ridge -1 sequences.txt
expect_error 2 "--estimator is not offered" -- "$PPK" fit lds --state-dim 1 --estimator map sequences.txt
expect_error 2 "the lds fit is not an exponential family" "so --shrink is not supported" -- "$PPK" fit lds --state-dim 1 --shrink 1 sequences.txt
"$PPK" fit lds --help | grep -F -- "--state-dim" >/dev/null || fail "ppk fit lds --help lacks --state-dim"
pass

finish
