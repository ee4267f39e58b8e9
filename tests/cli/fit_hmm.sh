# ppk fit hmm: Baum-Welch HMM rows (family 9, hmm.hpp) from FASTA and 'LABEL SEQUENCE' files and from
# qid-grouped LIBSVM vectors; the training alphabet saved and reused for the test file; a symbol
# outside it is an error naming file, line, column and symbol with nothing written; the rows decode,
# and the patched svm-train (next to ppk in the build) trains on them and svm-predict predicts.
source "$(dirname "$0")/lib.bash" "$@"
need_patched_tools svm-train svm-predict

# Training sequences: class +1 alternates AC-rich and GT-rich runs, class -1 is mostly A.
python3 - <<'PY'
import random
random.seed(11)
def sequence(label, n):
    if label > 0:
        runs, s = ["ACAC", "GTGT"], ""
        while len(s) < n:
            s += random.choice(runs) * random.randint(1, 3)
        return s[:n]
    return "".join(random.choice("AAAAAACGT") for _ in range(n))
with open("train.fa", "w") as train, open("test.txt", "w") as test:
    for i in range(12):
        label = 1 if i % 2 == 0 else -1
        s = sequence(label, 60 + 3 * i)
        train.write(">train%d label=%d\n" % (i, label))
        for start in range(0, len(s), 25):  # FASTA lines of 25 symbols
            train.write(s[start:start + 25] + "\n")
    for i in range(6):
        label = 1 if i % 2 == 0 else -1
        test.write("%d %s\n" % (label, sequence(label, 50)))
PY

"$PPK" fit hmm --states 2 --length 9 --save-alphabet alphabet.txt train.fa -o train.ppk
[[ $(cat alphabet.txt) == ACGT ]] || fail "saved alphabet: $(cat alphabet.txt)"
pass
[[ $(wc -l < train.ppk) == 12 ]] || fail "expected 12 rows: $(wc -l < train.ppk)"
pass
mapfile -t rows < train.ppk
# 1: version, 2: family 9, 3: M = 2, 4: the stored T = 9; labels from the headers.
[[ $(field "${rows[0]}" 2) == 9 && $(field "${rows[0]}" 3) == 2 && $(field "${rows[0]}" 4) == 9 ]] ||
  fail "expected family 9, M = 2, T = 9: ${rows[0]}"
pass
[[ ${rows[0]%% *} == 1 && ${rows[1]%% *} == -1 ]] || fail "labels: ${rows[0]%% *} ${rows[1]%% *}"
pass

# The test file in the lines format, numbered by the training alphabet.
"$PPK" fit hmm --states 2 --length 9 --alphabet-from alphabet.txt test.txt -o test.ppk
[[ $(wc -l < test.ppk) == 6 ]] || fail "expected 6 test rows"
pass

# Every row decodes to an HMM with two states, one-event multinomials over 4 symbols, probabilities > 0.
"$PPK" decode train.ppk -o train.jsonl
"$PPK" decode test.ppk -o test.jsonl
python3 - train.jsonl test.jsonl <<'PY' || fail "decoded rows: $(head -2 train.jsonl)"
import json, sys
for path in sys.argv[1:]:
    for line in open(path):
        m = json.loads(line)
        assert m["family"] == "hmm" and len(m["start"]) == 2 and m["length"] == 9, m
        assert all(len(e["p"]) == 4 and all(p > 0 for p in e["p"]) for e in m["emissions"]), m
        assert all(p > 0 for row in m["trans"] for p in row) and all(p > 0 for p in m["start"]), m
PY
pass

# Without --length each row stores T = n - 1: the first training sequence has 60 symbols.
"$PPK" fit hmm --states 2 train.fa -o own_length.ppk
[[ $(field "$(head -1 own_length.ppk)" 4) == 59 ]] || fail "stored T: $(head -1 own_length.ppk)"
pass

# The same input gives the same rows, on any number of threads.
for threads in 1 3; do
  "$PPK" fit hmm --states 2 --length 9 --alphabet ACGT --threads "$threads" train.fa -o again.ppk
  cmp -s train.ppk again.ppk || fail "fits of train.fa on $threads thread(s) differ from the first"
  pass
done

# The patched svm-train trains on the rows (normalised kernel, rho = 1, T = 9) and svm-predict predicts.
"$BIN/svm-train" -q -t ppk_norm -g 1 -d 9 train.ppk model.txt
grep -qF "kernel_type ppk_norm" model.txt || fail "model file: $(head -5 model.txt)"
pass
"$BIN/svm-predict" test.ppk model.txt predictions.txt > accuracy.txt
[[ $(wc -l < predictions.txt) == 6 ]] || fail "predictions: $(cat predictions.txt)"
pass
# The two classes differ plainly (alternating AC/GT runs against mostly A): at most one test error.
correct=$(sed -n 's/^Accuracy = [0-9.]*% (\([0-9]*\)\/6).*/\1/p' accuracy.txt)
[[ -n $correct && $correct -ge 5 ]] || fail "svm-predict: $(cat accuracy.txt)"
pass

# A test symbol outside the training alphabet: exit 1, the file, line, column and symbol; no output.
printf '1 ACGT\n-1 ACNGT\n' > unknown.txt
expect_error 1 "unknown.txt:2: column 6: symbol 'N' (position 3 of the sequence) is not in the alphabet 'ACGT'" -- \
  "$PPK" fit hmm --alphabet-from alphabet.txt unknown.txt -o bad.ppk
expect_no_output bad.ppk
expect_error 1 "unknown.txt:1: column 3: symbol 'A'" -- "$PPK" fit hmm --alphabet CGT unknown.txt -o bad.ppk
expect_no_output bad.ppk
# Lower case is another symbol.
printf '1 ACgT\n' > lower.txt
expect_error 1 "lower.txt:1: column 5: symbol 'g'" "case-sensitive" -- "$PPK" fit hmm --alphabet ACGT lower.txt -o bad.ppk
# A header without label=, an empty sequence: nothing written, not even the alphabet.
printf '>a label=1\nACGT\n>b\nACGT\n' > nolabel.fa
expect_error 1 "nolabel.fa:3: the header has no label=VALUE token" -- \
  "$PPK" fit hmm --save-alphabet saved.txt nolabel.fa -o bad.ppk
expect_no_output bad.ppk
expect_no_output saved.txt
printf '>a label=1\n>b label=2\nACGT\n' > empty.fa
expect_error 1 "empty.fa:1: the sequence is empty" -- "$PPK" fit hmm empty.fa -o bad.ppk
expect_no_output bad.ppk

# Gaussian emissions from qid-grouped LIBSVM vectors (--format libsvm implies them): one HMM per group.
cat > vectors.txt <<'DATA'
1 qid:1 1:-2.1 2:0.3
1 qid:1 1:-1.9 2:0.1
1 qid:1 1:2.2 2:-0.2
1 qid:1 1:1.8 2:0.2
1 qid:1 1:-2.0 2:0.0
-1 qid:2 1:0.1 2:3.1
-1 qid:2 1:-0.1 2:2.9
-1 qid:2 1:0.2 2:-3.0
-1 qid:2 1:0.0 2:-2.8
DATA
"$PPK" fit hmm --format libsvm --states 2 --cov diag --length 3 vectors.txt -o vectors.ppk
[[ $(wc -l < vectors.ppk) == 2 ]] || fail "expected one row per qid group"
pass
"$PPK" decode vectors.ppk | python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    assert m["family"] == "hmm" and m["length"] == 3 and all(e["family"] == "gaussian" and "diag" in e for e in m["emissions"]), m
' || fail "gaussian-emission rows: $(cat vectors.ppk)"
pass
"$PPK" gram -t ppk_norm -g 1 vectors.ppk > gram.txt
expect_unit_diagonal gram.txt

# Command-line errors (exit 2).
expect_error 2 "--states must be a whole number or auto" -- "$PPK" fit hmm --states two train.fa
expect_error 2 "--emission gaussian takes vectors" -- "$PPK" fit hmm --emission gaussian --format fasta train.fa
expect_error 2 "--alphabet and --alphabet-from exclude each other" -- \
  "$PPK" fit hmm --alphabet ACGT --alphabet-from alphabet.txt train.fa
expect_error 2 "--estimator is not offered" -- "$PPK" fit hmm --estimator map train.fa
expect_error 2 "--smoothing must be a finite number >= 0" -- "$PPK" fit hmm --smoothing -1 train.fa
expect_error 2 "unknown family 'hmmm'" "ppk fit supports gaussian" ", hmm, " -- "$PPK" fit hmmm train.fa
"$PPK" fit --help | grep -F "M = floor(sqrt(O^2 + 4 (n z + O + 1))/2" >/dev/null || fail "ppk fit --help lacks the state rule"
pass
"$PPK" fit hmm --help | grep -F -- "--save-alphabet" >/dev/null || fail "ppk fit hmm --help lacks --save-alphabet"
pass

finish
