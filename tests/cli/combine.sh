# ppk combine and combined rows (docs/families.md, combined): the kernel of combined rows equals the
# weighted sum of their parts' normalized kernels, each part's computed by `ppk gram -t ppk_norm` on its
# own file (an independent route: the parts' families' own kernels, summed here in Python), to 1e-12
# relative, for HMM + k-mer multinomial parts of symbol sequences and Gaussian + HMM parts of time series
# (sequences of different T, -d), at rho 0.5 and 1, for equal, unequal and zero weights; ppk_norm is that
# sum over the sum of the weights; the Grams are PSD (ppk gram --psd). Refused, exit status non-zero,
# nothing written, the files or rows named: one file, different numbers of rows, different labels, bad
# weights, a combined or inexact row as a part; rows of two weightings have no kernel.
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/lib.bash" "$@"

# 24 'LABEL SEQUENCE' lines of 14 symbols: class 1 repeats its last symbol more often than class 2.
awk 'BEGIN { srand(7); split("A C G T", symbol, " ")
  for (i = 0; i < 24; i++) { y = i % 2 + 1; s = symbol[int(4 * rand()) + 1]; line = ""
    for (t = 0; t < 14; t++) { line = line s; if (rand() > (y == 1 ? 0.8 : 0.3)) s = symbol[int(4 * rand()) + 1] }
    print y " " line } }' >seqs.txt
"$PPK" fit hmm --states 2 seqs.txt -o hmm.ppk 2>/dev/null
# The same sequences' bigram counts (index 4 a + b + 1 for the bigram ab), one multinomial each.
awk '{ delete c; for (t = 1; t < length($2); t++) { a = index("ACGT", substr($2, t, 1)); b = index("ACGT", substr($2, t + 1, 1))
         c[4 * (a - 1) + b]++ }
       line = $1; for (k = 1; k <= 16; k++) if (k in c) line = line " " k ":" c[k]; print line }' seqs.txt >bigrams.txt
"$PPK" fit multinomial --dim 16 bigrams.txt -o kmers.ppk
# Time series: 30 sequences of 12-14 2-D vectors; a full Gaussian of the frames and a 2-state HMM with
# Gaussian emissions of their dynamics.
rotating_state_sequences series.txt series_test.txt
"$PPK" fit gaussian --cov diag series.txt -o frames.ppk
"$PPK" fit hmm --states 2 --emission gaussian series.txt -o dynamics.ppk 2>/dev/null
pass

# expect_weighted_sum COMBINED RHO T W1,W2 PART1 PART2: ppk gram of COMBINED (-t ppk and ppk_norm) equals
# W1 G1 + W2 G2 (and that over W1 + W2), Gi = ppk gram -t ppk_norm of PARTi alone (-d T for sequence parts).
expect_weighted_sum() {
  local combined=$1 rho=$2 length=$3 weights=$4 part
  shift 4
  local i=0
  for part in "$@"; do
    local d=()
    [[ $part == hmm.ppk || $part == dynamics.ppk ]] && d=(-d "$length")
    "$PPK" gram -t ppk_norm -g "$rho" "${d[@]}" "$part" -o "part$i.txt"
    i=$((i + 1))
  done
  "$PPK" gram -t ppk -g "$rho" -d "$length" "$combined" -o combined.txt
  "$PPK" gram -t ppk_norm -g "$rho" -d "$length" "$combined" -o combined_norm.txt
  python3 - "$weights" <<'PY' || fail "$combined at rho $rho, T $length, weights $weights: not the weighted sum of its parts"
import sys
weights = [float(w) for w in sys.argv[1].split(",")]
read = lambda path: [[float(v) for v in line.split()] for line in open(path)]
parts = [read(f"part{i}.txt") for i in range(len(weights))]
for path, scale in (("combined.txt", 1.0), ("combined_norm.txt", sum(weights))):
    got = read(path)
    assert len(got) == len(parts[0]) > 1
    for i, row in enumerate(got):
        for j, value in enumerate(row):
            expected = sum(w * p[i][j] for w, p in zip(weights, parts)) / scale
            assert abs(value - expected) <= 1e-12 * abs(expected), (path, i, j, value, expected)
PY
  "$PPK" gram -t ppk -g "$rho" -d "$length" --psd "$combined" >psd.txt
  [[ $(sed -n 's/^negative eigenvalues: //p' psd.txt) == 0 ]] || fail "$combined at rho $rho: not PSD: $(cat psd.txt)"
  pass
}

for weights in 1,1 0.75,0.25 2,0; do
  "$PPK" combine --weights "$weights" hmm.ppk kmers.ppk -o sequences.ppk
  "$PPK" combine --weights "$weights" frames.ppk dynamics.ppk -o series.ppk
  for rho in 0.5 1; do
    expect_weighted_sum sequences.ppk "$rho" 6 "$weights" hmm.ppk kmers.ppk
    expect_weighted_sum series.ppk "$rho" 8 "$weights" frames.ppk dynamics.ppk
  done
done
# -d 0: each row's own T (the sequences all have T = 13).
"$PPK" combine hmm.ppk kmers.ppk -o sequences.ppk
expect_weighted_sum sequences.ppk 0.5 0 1,1 hmm.ppk kmers.ppk
# Three parts, default weights: 1 each.
"$PPK" combine hmm.ppk kmers.ppk hmm.ppk -o three.ppk
[[ $(head -c 30 three.ppk) == "1 1:1 2:19 3:3 4:1 5:1 6:1 7:"* ]] || fail "three parts: $(head -c 60 three.ppk)"
"$PPK" gram -t ppk_norm -g 0.5 -d 5 three.ppk -o three.txt
"$PPK" gram -t ppk_norm -g 0.5 -d 5 hmm.ppk -o hmm_part.txt
"$PPK" gram -t ppk_norm -g 0.5 kmers.ppk -o kmers_part.txt
python3 - <<'PY' || fail "three parts: not (2 hmm + kmers) / 3"
read = lambda path: [[float(v) for v in line.split()] for line in open(path)]
got, hmm, kmers = read("three.txt"), read("hmm_part.txt"), read("kmers_part.txt")
for i, row in enumerate(got):
    for j, value in enumerate(row):
        expected = (hmm[i][j] + kmers[i][j] + hmm[i][j]) / 3
        assert abs(value - expected) <= 1e-12 * expected, (i, j, value, expected)
PY
pass
# The labels and the order are the files': the decoded parts are the input rows.
"$PPK" decode sequences.ppk -o sequences.jsonl
python3 -c "
import json
row = json.loads(open('sequences.jsonl').readline())
assert row['family'] == 'combined' and row['weights'] == [1.0, 1.0] and [p['family'] for p in row['parts']] == ['hmm', 'multinomial'], row
" || fail "the decoded combined row"
[[ $(cut -d' ' -f1 sequences.ppk | paste -sd,) == $(cut -d' ' -f1 hmm.ppk | paste -sd,) ]] || fail "the labels changed"
pass

# Refusals: exit status, the message naming the files or rows, nothing written.
expect_error 2 "one file (hmm.ppk): a combined row holds the rows of two or more files" -- "$PPK" combine hmm.ppk -o out.ppk
expect_no_output out.ppk
head -n 20 kmers.ppk >short.ppk
expect_error 1 "hmm.ppk: 24 rows, but short.ppk: 20 rows" -- "$PPK" combine hmm.ppk short.ppk -o out.ppk
expect_no_output out.ppk
awk 'NR == 7 { $1 = 5 } { print }' kmers.ppk >relabelled.ppk
expect_error 1 "hmm.ppk: row 7 has the label 1, but relabelled.ppk: row 7 the label 5" -- \
  "$PPK" combine hmm.ppk relabelled.ppk -o out.ppk
expect_no_output out.ppk
expect_error 2 "--weights 1,-1: weight 2 is -1: expected finite numbers >= 0" -- \
  "$PPK" combine --weights 1,-1 hmm.ppk kmers.ppk -o out.ppk
expect_error 2 "--weights 0,0: every weight is 0" -- "$PPK" combine --weights 0,0 hmm.ppk kmers.ppk -o out.ppk
expect_error 2 "--weights 1,1,1: expected one weight per part (2), got 3" -- \
  "$PPK" combine --weights 1,1,1 hmm.ppk kmers.ppk -o out.ppk
expect_error 2 "--weights 1,x: expected comma-separated numbers" -- "$PPK" combine --weights 1,x hmm.ppk kmers.ppk -o out.ppk
expect_error 1 "sequences.ppk: row 1: a combined row: the parts of a combined row are models of families with an exact kernel" -- \
  "$PPK" combine sequences.ppk kmers.ppk -o out.ppk
"$PPK" montecarlo -n 5 kmers.ppk -o montecarlo.ppk 2>/dev/null
expect_error 1 "montecarlo.ppk: row 1: a montecarlo row" -- "$PPK" combine hmm.ppk montecarlo.ppk -o out.ppk
sed '3s/ 6:/ 6:x/' kmers.ppk >broken.ppk
expect_error 1 "broken.ppk:3:" -- "$PPK" combine hmm.ppk broken.ppk -o out.ppk
expect_no_output out.ppk
# Rows of two weightings, or of two kinds of part, have no kernel: svm-train and ppk gram say so.
"$PPK" combine --weights 1,2 hmm.ppk kmers.ppk -o other_weights.ppk
expect_error 1 "combined rows with the weights 1,1 and 1,2: no kernel" -- \
  "$PPK" gram -t ppk_norm -g 0.5 sequences.ppk other_weights.ppk
"$PPK" combine kmers.ppk hmm.ppk -o swapped.ppk
expect_error 1 "combined part 1: hmm over" "vs multinomial over" -- "$PPK" gram -t ppk_norm -g 0.5 -d 5 sequences.ppk swapped.ppk

# ppk map of combined rows: the parts' maps of the normalized kernel, part i scaled by sqrt(w_i), so the
# inner products are the combined kernel (ppk gram of the rows) to 1e-12; ppk_norm maps are unit
# vectors. Parts with exact maps: bernoulli rows (D = 4), maximum-likelihood and smoothed multinomial rows.
python3 - >bits.jsonl <<'PY'
import json, random
random.seed(3)
for i in range(24):
    print(json.dumps({"label": i % 2 + 1, "family": "bernoulli", "p": [random.uniform(0.05, 0.95) for _ in range(4)]}))
PY
"$PPK" encode bits.jsonl -o bits.ppk
"$PPK" fit multinomial --dim 16 --alpha 0 bigrams.txt -o kmers_ml.ppk
for weights in 1,1,1 0.5,0,2; do
  "$PPK" combine --weights "$weights" bits.ppk kmers_ml.ppk kmers.ppk -o mappable.ppk
  for rho in 0.5 1; do
    for kind in ppk ppk_norm; do
      "$PPK" gram -t $kind -g $rho mappable.ppk -o gram.txt
      "$PPK" map -t $kind -g $rho --map exact mappable.ppk --save-map mappable.map -o features.txt
      /usr/bin/python3 "$HERE/feature_maps.py" inner features.txt gram.txt 1e-12 ||
        fail "map of combined rows ($weights, $kind, rho $rho): inner products are not the kernel"
      [[ $kind == ppk ]] || /usr/bin/python3 "$HERE/feature_maps.py" unit features.txt 1e-12 || fail "ppk_norm map not unit"
      "$PPK" map --map-from mappable.map mappable.ppk -o again.txt
      cmp -s features.txt again.txt || fail "the saved map of combined rows maps otherwise"
      pass
    done
  done
done
# Without --map each part takes its own route, said in the note; a part without an exact map (hmm) is
# refused naming it, and rows of other weights are outside a saved map's domain.
"$PPK" map -t ppk -g 0.5 mappable.ppk -o features.txt 2>note.txt
grep -qF "part 1 exact: bernoulli rows" note.txt && grep -qF "part 3 exact: the exact map of these smoothed multinomial" note.txt ||
  fail "the route note: $(cat note.txt)"
rm features.txt
expect_error 1 "combined part 1 (hmm over" "no exact or sparse map" "use the Nystrom map" -- \
  "$PPK" map -t ppk -g 0.5 sequences.ppk -o features.txt
"$PPK" combine --weights 1,1,1 bits.ppk kmers_ml.ppk kmers.ppk -o reweighted.ppk
expect_error 1 "reweighted.ppk: row 1: a combined row over parts [1 x bernoulli" "but the map is of ppk_norm" -- \
  "$PPK" map --map-from mappable.map reweighted.ppk -o features.txt
expect_no_output features.txt
# The Nystrom map covers combined rows of any parts (its kernel is the combined kernel's).
"$PPK" map -t ppk_norm -g 0.5 -d 5 --map nystrom --landmarks 24 sequences.ppk -o nystrom.txt 2>/dev/null
"$PPK" gram -t ppk_norm -g 0.5 -d 5 sequences.ppk -o gram.txt
/usr/bin/python3 "$HERE/feature_maps.py" inner nystrom.txt gram.txt 1e-8 || fail "the Nystrom map of all 24 combined rows"
pass
finish
