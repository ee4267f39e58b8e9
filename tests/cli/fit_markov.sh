# ppk fit markov: per-sequence Markov chains of order k (family 18, markov.hpp), homogeneous and aligned.
# Checked against oracles computed here, independently of the tool (Python):
#  - every row's counts are the brute-force k-mer counts of its sequence (the layout from its
#    definition: slot, depth, offset, context with x_{t-1} least significant), its base the training
#    file's pooled counts smoothed by half a pseudo-count, (M + 1/2) / (M_context + A/2);
#  - --alpha evidence recovers the beta0 that generated the data: per-sequence chains drawn from
#    Dirichlet(beta0 b) around a known base (uniform with --base uniform; skewed with the pooled base),
#    |beta - beta0| <= 3 printed standard errors, for several beta0;
#  - where the evidence has no maximum (every context seen at most once per sequence), the default
#    falls back to --alpha auto, the rows storing the median sequence's n - 1 (computed here);
#  - train and test share one pool: the test rows' beta and base equal the training rows' byte for
#    byte, at the issue's realistic sizes (A = 20, k = 3; aligned L = 60, k = 2), the pool written by
#    --save-pooled and read back by --pooled-from;
#  - errors: a test symbol outside the alphabet, a test sequence of another length than the aligned
#    L, a bad --order or --alpha, a pool of another family, --alpha evidence on an aligned chain;
#  - end to end: the rows train the patched svm-train and svm-predict predicts, and ppk select's
#    cross-validated accuracy, on sequences told apart by position-specific (aligned) and by
#    order-1 (homogeneous) statistics.
source "$(dirname "$0")/lib.bash" "$@"
need_patched_tools svm-train svm-predict

# check_rows SEQUENCES ROWS K ALIGNED [POOL_SEQUENCES]: the decoded ROWS hold the brute-force k-mer
# counts of SEQUENCES ('LABEL SEQUENCE' lines) over the sorted alphabet of POOL_SEQUENCES (default
# SEQUENCES), and the base pooled from POOL_SEQUENCES.
check_rows() {
  "$PPK" decode "$2" -o rows.jsonl
  python3 - "$1" rows.jsonl "$3" "$4" "${5:-$1}" <<'PY' || fail "the rows of $2 are not the k-mer counts of $1"
import json, sys
sequences_path, rows_path, k, aligned, pool_path = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1", sys.argv[5]
read = lambda path: [line.split()[1] for line in open(path, encoding="latin-1")]
pool = read(pool_path)
symbols = sorted(set("".join(pool)))
A = len(symbols)
L = len(pool[0]) if aligned else 0
slots = L if aligned else k + 1
depth = lambda s: min(s, k)
offset = lambda s: sum(A ** (depth(r) + 1) for r in range(s))
size = offset(slots)
def kmers(x):
    counts = {}
    for t in range(len(x)):
        s = t if aligned else min(t, k)
        context = sum(symbols.index(x[t - j]) * A ** (j - 1) for j in range(1, depth(s) + 1))
        index = offset(s) + context * A + symbols.index(x[t])
        counts[index] = counts.get(index, 0) + 1
    return counts
pooled = {}
for x in pool:
    for index, n in kmers(x).items():
        pooled[index] = pooled.get(index, 0) + n
base = []
for first in range(0, size, A):
    total = sum(pooled.get(first + x, 0) for x in range(A))
    base += [(pooled.get(first + x, 0) + 0.5) / (total + A / 2) for x in range(A)]
rows = [json.loads(line) for line in open(rows_path)]
sequences = read(sequences_path)
assert len(rows) == len(sequences), (len(rows), len(sequences))
for row, x in zip(rows, sequences):
    assert row["family"] == "markov" and row["alphabet"] == A and row["order"] == k, row.keys()
    assert row.get("positions", 0) == L and row["length"] == len(x) - 1, (row.get("positions"), row["length"])
    counts = kmers(x)
    assert row["counts"]["index"] == sorted(counts), (row["counts"]["index"][:10], sorted(counts)[:10])
    assert row["counts"]["n"] == [counts[i] for i in sorted(counts)]
    assert len(row["base"]) == size and all(abs(a - b) <= 1e-15 for a, b in zip(row["base"], base))
PY
  pass
}

# Data: 'LABEL SEQUENCE' files over ACGT.
python3 - <<'PY'
import random
r = random.Random(7)
def write(path, sequences):
    with open(path, "w") as f:
        for label, x in sequences:
            f.write("%d %s\n" % (label, x))
# Homogeneous, varying lengths: class +1 an order-1 chain that repeats its last symbol, -1 uniform.
def homogeneous(label, n):
    x = [r.choice("ACGT")]
    while len(x) < n:
        x.append(x[-1] if label > 0 and r.random() < 0.5 else r.choice("ACGT"))
    return "".join(x)
write("hom-train.txt", [(l, homogeneous(l, 30 + i % 17)) for i, l in enumerate([1, -1] * 40)])
write("hom-test.txt", [(l, homogeneous(l, 25 + i % 11)) for i, l in enumerate([1, -1] * 30)])
# Aligned, 30 positions: class +1 carries the motif AGGTAA at positions 10-15, each base with
# probability 0.6 (a junction's consensus), class -1 uniform bases.
def aligned(label):
    x = [r.choice("ACGT") for _ in range(30)]
    if label > 0:
        for t, c in zip(range(10, 16), "AGGTAA"):
            if r.random() < 0.6:
                x[t] = c
    return "".join(x)
write("al-train.txt", [(l, aligned(l)) for l in [1, -1] * 60])
write("al-test.txt", [(l, aligned(l)) for l in [1, -1] * 40])
PY

# Homogeneous rows, order 2 (the sequences have different lengths: homogeneous by default).
"$PPK" fit markov --order 2 --save-pooled hom.pool hom-train.txt -o hom-train.ppk 2> fit.txt
grep -qF "alpha = " fit.txt && grep -qF "chosen by maximum evidence (standard error" fit.txt ||
  fail "the evidence's beta is not printed: $(cat fit.txt)"
pass
check_rows hom-train.txt hom-train.ppk 2 0
"$PPK" fit markov --pooled-from hom.pool hom-test.txt -o hom-test.ppk 2> fit-test.txt
grep -qF "(read from hom.pool)" fit-test.txt || fail "the test fit does not say it reuses the pool: $(cat fit-test.txt)"
pass
check_rows hom-test.txt hom-test.ppk 2 0 hom-train.txt

# Train and test share one pool: field 7 (beta) and the base (fields 9..8+S) byte for byte.
# shared_fields ROWS S: the fields 7..8+S of every row, one line per row.
shared_fields() {
  python3 -c '
import sys
last = 8 + int(sys.argv[2])
for line in open(sys.argv[1]):
    print(" ".join(t for t in line.split()[1:] if 7 <= int(t.split(":")[0]) <= last))' "$1" "$2" | sort -u
}
[[ $(shared_fields hom-train.ppk 84 | wc -l) == 1 && "$(shared_fields hom-train.ppk 84)" == "$(shared_fields hom-test.ppk 84)" ]] ||
  fail "the test rows' beta and base differ from the training rows'"
pass

# Aligned rows (every training sequence has 30 symbols: aligned by default, with a note; order 0
# and beta by --alpha auto, the defaults for aligned chains).
"$PPK" fit markov --save-pooled al.pool al-train.txt -o al-train.ppk 2> fit.txt
grep -qF "note: every sequence of al-train.txt has 30 symbols: an aligned chain" fit.txt &&
  grep -qF -- "--alpha auto chose" fit.txt || fail "aligned default and --alpha auto not reported: $(cat fit.txt)"
pass
check_rows al-train.txt al-train.ppk 0 1
"$PPK" fit markov --pooled-from al.pool al-test.txt -o al-test.ppk 2> /dev/null
check_rows al-test.txt al-test.ppk 0 1 al-train.txt
S=$((30 * 4))
[[ $(shared_fields al-train.ppk $S | wc -l) == 1 && "$(shared_fields al-train.ppk $S)" == "$(shared_fields al-test.ppk $S)" ]] ||
  fail "the aligned test rows' beta and base differ from the training rows'"
pass

# End to end: svm-train and svm-predict on the rows, and ppk select's cross-validated accuracy.
# accuracy TRAIN TEST OPTIONS...: svm-predict's test accuracy (percent) of svm-train OPTIONS on TRAIN.
accuracy() {
  local train=$1 test=$2
  shift 2
  "$BIN/svm-train" -q "$@" "$train" model.txt
  "$BIN/svm-predict" "$test" model.txt predictions.txt | sed -n 's/^Accuracy = \([0-9.]*\)%.*/\1/p'
}
al_accuracy=$(accuracy al-train.ppk al-test.ppk -t ppk_norm -g 0.5 -c 10)
awk -v a="$al_accuracy" 'BEGIN { exit !(a >= 75) }' || fail "aligned rows: test accuracy $al_accuracy%"
pass
# Homogeneous rows of different lengths: one T for every row (-d 20).
hom_accuracy=$(accuracy hom-train.ppk hom-test.ppk -t ppk_norm -g 0.5 -d 20 -c 10)
awk -v a="$hom_accuracy" 'BEGIN { exit !(a >= 75) }' || fail "homogeneous rows: test accuracy $hom_accuracy%"
pass
"$PPK" select -q -t ppk_norm -g 0.25,0.5,1 -c 1,10,100 al-train.ppk > select.txt
select_accuracy=$(sed -n 's/^best: .*Cross Validation Accuracy = \([0-9.]*\)%$/\1/p' select.txt)
awk -v a="$select_accuracy" 'BEGIN { exit !(a >= 75) }' || fail "ppk select on the aligned rows: $(tail -1 select.txt)"
pass
echo "fit_markov: aligned test accuracy $al_accuracy%, homogeneous $hom_accuracy%, ppk select (aligned, 5-fold CV) $select_accuracy%"

# --alpha evidence recovers the generating beta0 within 3 standard errors: 200 sequences of 100
# symbols, a homogeneous order-1 chain per sequence with every context's row drawn from
# Dirichlet(beta0 b); b uniform (fitted with --base uniform) or skewed, b(x | c) proportional to
# 1 + ((c + x) mod 4)^2 (fitted with the pooled base, which estimates it).
python3 - <<'PY'
import random
for kind, beta0 in (("uniform", 2), ("uniform", 10), ("uniform", 50), ("skewed", 3), ("skewed", 30)):
    r = random.Random(100 * beta0 + len(kind))
    rows = [[1.0] * 4 if kind == "uniform" else [1 + ((c + x) % 4) ** 2 for x in range(4)] for c in range(5)]
    rows = [[v / sum(row) for v in row] for row in rows]  # context 0 of slot 0, then contexts A, C, G, T
    with open("evidence-%s-%d.txt" % (kind, beta0), "w") as f:
        for i in range(200):
            theta = []
            for row in rows:
                g = [r.gammavariate(beta0 * b, 1) for b in row]
                theta.append([v / sum(g) for v in g])
            x = []
            for t in range(100):
                x.append(r.choices(range(4), theta[0] if t == 0 else theta[1 + x[-1]])[0])
            f.write("%d %s\n" % (1 if i % 2 else -1, "".join("ACGT"[v] for v in x)))
PY
for case in uniform-2 uniform-10 uniform-50 skewed-3 skewed-30; do
  base=pooled
  [[ $case == uniform-* ]] && base=uniform
  "$PPK" fit markov --homogeneous --base $base "evidence-$case.txt" -o /dev/null 2> fit.txt
  beta=$(sed -n 's/.*: alpha = \([^,]*\), chosen by maximum evidence (standard error \([^;]*\);.*/\1 \2/p' fit.txt)
  [[ -n $beta ]] || fail "$case: no beta printed: $(cat fit.txt)"
  awk -v beta="${beta% *}" -v se="${beta#* }" -v beta0="${case#*-}" 'BEGIN {
    d = beta - beta0; if (d < 0) d = -d; exit !(d <= 3 * se) }' || fail "$case: beta ${beta% *} (standard error ${beta#* }), generated with ${case#*-}"
  pass
done

# Pool files at realistic sizes, written by --save-pooled and read back by --pooled-from: a
# protein-like alphabet of 20 symbols at order 3 (a base of 20 + 400 + 8000 + 160000 entries), and
# aligned DNA of L = 60 at order 2 (4 + 16 + 58 * 64 entries).
python3 - <<'PY'
import random
r = random.Random(3)
amino = "ACDEFGHIKLMNPQRSTVWY"
with open("protein-train.txt", "w") as f:
    for i in range(6):
        f.write("%d %s\n" % (i % 2, "".join(r.choice(amino) for _ in range(150 + 10 * i))))
with open("protein-test.txt", "w") as f:
    f.write("1 %s\n0 %s\n" % ("".join(r.choice(amino) for _ in range(90)), "".join(r.choice(amino[:10]) for _ in range(40))))
with open("dna60-train.txt", "w") as f, open("dna60-test.txt", "w") as g:
    for i in range(40):
        (f if i < 30 else g).write("%d %s\n" % (i % 2, "".join(r.choice("ACGT") for _ in range(60))))
PY
"$PPK" fit markov --order 3 --alpha 1 --save-pooled protein.pool protein-train.txt -o protein-train.ppk 2> /dev/null
"$PPK" fit markov --pooled-from protein.pool protein-test.txt -o protein-test.ppk 2> /dev/null
check_rows protein-test.txt protein-test.ppk 3 0 protein-train.txt
S=$((20 + 400 + 8000 + 160000))
[[ "$(shared_fields protein-train.ppk $S)" == "$(shared_fields protein-test.ppk $S)" ]] ||
  fail "A = 20, k = 3: the test rows' beta and base differ from the training rows'"
pass
"$PPK" fit markov --order 2 --alpha 0.5 --save-pooled dna60.pool dna60-train.txt -o dna60-train.ppk 2> /dev/null
"$PPK" fit markov --pooled-from dna60.pool dna60-test.txt -o dna60-test.ppk 2> /dev/null
check_rows dna60-test.txt dna60-test.ppk 2 1 dna60-train.txt
S=$((4 + 16 + 58 * 64))
[[ "$(shared_fields dna60-train.ppk $S)" == "$(shared_fields dna60-test.ppk $S)" ]] ||
  fail "L = 60, k = 2: the test rows' beta and base differ from the training rows'"
pass
# Each kernel row is finite and the normalised Gram PSD (the family's kernel on these rows).
"$PPK" gram -t ppk_norm -g 0.5 --psd dna60-train.ppk > psd.txt
[[ $(sed -n 's/^negative eigenvalues: //p' psd.txt) == 0 ]] || fail "the aligned Gram is not PSD: $(cat psd.txt)"
pass

# Symbols are bytes: a Latin-1 alphabet (words with \xe0 and \xe9) goes through the pool file (as byte
# values, JSON strings being UTF-8) to the test file, numbered alike.
printf '1 caf\xe9s\n-1 l\xe0bas\n1 \xe9t\xe9s\n-1 voil\xe0\n' > latin1-train.txt
printf '1 t\xe9s\n-1 voil\xe0s\n' > latin1-test.txt
"$PPK" fit markov --alpha 1 --save-pooled latin1.pool latin1-train.txt -o latin1-train.ppk 2> /dev/null
"$PPK" fit markov --pooled-from latin1.pool latin1-test.txt -o latin1-test.ppk 2> /dev/null
check_rows latin1-test.txt latin1-test.ppk 1 0 latin1-train.txt
python3 -c 'import json, sys; assert 233 in json.load(open(sys.argv[1]))["base"]["alphabet"]' latin1.pool || fail "latin1.pool: the alphabet"
pass

# --order auto: k by held-out likelihood, saved and reused.
"$PPK" fit markov --order auto --save-pooled auto.pool hom-train.txt -o auto.ppk 2> fit.txt
grep -qF "order = 1, chosen by the held-out log-likelihood of each training sequence" fit.txt ||
  fail "--order auto on order-1 data: $(cat fit.txt)"
pass
"$PPK" fit markov --pooled-from auto.pool hom-test.txt -o auto-test.ppk 2> fit.txt
grep -qF "order = 1, chosen by the held-out log-likelihood" fit.txt || fail "the test file's order: $(cat fit.txt)"
pass

# ppk fit hmm --help sends aligned sequences here (issue 48 item 5); ppk fit markov --help says when to align.
# (The help is written to a file first: grep -q stops reading at its match, and under pipefail the
# writer's SIGPIPE would fail the pipeline.)
"$PPK" fit hmm --help > hmm-help.txt
"$PPK" fit markov --help > markov-help.txt
tr -s ' \n' ' ' < hmm-help.txt | grep -qF "use ppk fit markov --aligned" || fail "ppk fit hmm --help does not point to ppk fit markov --aligned"
grep -qF "Aligned chain (--aligned; sequences of one length L" markov-help.txt || fail "ppk fit markov --help: no aligned/homogeneous advice"
pass

# The default --alpha evidence falls back to --alpha auto where the evidence has no maximum: words
# of 6-15 distinct letters see each context at most once per word (every total count <= 1), and
# the rows of different lengths then store one T, the median word's n - 1 (computed here).
python3 - <<'PY'
import random
r = random.Random(5)
letters = "abcdefghijklmnopqrstuvwxyz"
with open("distinct.txt", "w") as f:
    for i in range(40):
        pool = letters[:17] if i % 2 else letters[9:]
        f.write("%d %s\n" % (1 if i % 2 else -1, "".join(r.sample(pool, r.randint(6, 15)))))
lengths = sorted(len(line.split()[1]) for line in open("distinct.txt"))
open("distinct-median.txt", "w").write("%d\n" % (lengths[len(lengths) // 2] - 1))
PY
"$PPK" fit markov --save-pooled distinct.pool distinct.txt -o distinct.ppk 2> fit.txt || fail "the default fit failed: $(cat fit.txt)"
grep -qF "note: --alpha evidence, the default, cannot choose beta on distinct.txt (every example has a total count of at most 1" fit.txt &&
  grep -qF "instead (--alpha auto)" fit.txt && grep -qF -- "--alpha auto chose" fit.txt ||
  fail "no fallback to --alpha auto reported: $(cat fit.txt)"
median=$(cat distinct-median.txt)
grep -qF "note: the rows store T = $median, the median sequence's n - 1" fit.txt || fail "T = $median not reported: $(cat fit.txt)"
"$PPK" decode distinct.ppk -o distinct.jsonl
python3 - "$median" <<'PY' || fail "the rows do not store T = $median"
import json, sys
rows = [json.loads(line) for line in open("distinct.jsonl")]
assert len(rows) == 40 and all(row["length"] == int(sys.argv[1]) for row in rows), [row["length"] for row in rows]
PY
"$PPK" fit markov --pooled-from distinct.pool distinct.txt -o distinct-test.ppk 2> fit.txt || fail "test fit: $(cat fit.txt)"
! grep -qF "cannot choose beta" fit.txt || fail "the test file decided beta again: $(cat fit.txt)"
expect_error 1 "--alpha evidence: every example has a total count of at most 1" -- \
  "$PPK" fit markov --alpha evidence distinct.txt -o out.ppk
expect_no_output out.ppk
pass

# Errors: nothing written, the file and line named.
printf '1 ACGTAC\n-1 ACGNAC\n' > bad-symbol.txt
expect_error 1 "bad-symbol.txt:2" "symbol 'N'" -- "$PPK" fit markov --pooled-from hom.pool bad-symbol.txt -o out.ppk
expect_no_output out.ppk
printf '1 %s\n-1 %s\n' "$(head -c 30 < /dev/zero | tr '\0' A)" "$(head -c 29 < /dev/zero | tr '\0' C)" > short.txt
expect_error 1 "short.txt:2" "29 symbols" "L = 30" -- "$PPK" fit markov --pooled-from al.pool short.txt -o out.ppk
expect_no_output out.ppk
expect_error 1 "hom-train.txt:2" "--aligned" "the first sequence has L = 30" -- "$PPK" fit markov --aligned hom-train.txt
expect_error 2 "--order must be a whole number >= 0 or auto, got '-1'" -- "$PPK" fit markov --order -1 hom-train.txt
expect_error 2 "--order must be a whole number >= 0 or auto, got 'two'" -- "$PPK" fit markov --order two hom-train.txt
expect_error 2 "--order" "lower --order" -- "$PPK" fit markov --order 9 --alpha 1 protein-train.txt
expect_error 2 "--alpha must be a number, auto or evidence, got 'lots'" -- "$PPK" fit markov --alpha lots hom-train.txt
expect_error 2 "--alpha evidence cannot choose beta for an aligned chain" -- "$PPK" fit markov --alpha evidence al-train.txt
expect_error 2 "--order 2 differs from the order = 0" -- "$PPK" fit markov --order 2 --pooled-from al.pool al-test.txt
expect_error 2 "--alpha auto cross-validates the SVM on rows of one length T" "give --length T (e.g. --length 29" -- \
  "$PPK" fit markov --alpha auto hom-train.txt
printf '1 1:2 2:1\n-1 1:1 3:2\n1 2:3\n' > counts.txt
"$PPK" fit multinomial --dim 4 --save-pooled multinomial.pool counts.txt -o /dev/null
expect_error 1 "multinomial.pool was written by ppk fit multinomial" -- "$PPK" fit markov --pooled-from multinomial.pool hom-test.txt

finish
