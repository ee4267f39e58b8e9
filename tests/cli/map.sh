# ppk map: the exact maps' inner products are ppk gram's kernel (to 1e-12 relative, every exact
# family, rho in {0.25, 0.5, 1, 2}, sparse and smoothed rows); ppk_norm maps are unit vectors; the
# sparse map is the kernel plus its rank-one term; a Nystrom map of m = n landmarks gives back the
# Gram to 1e-8 and its error falls as m grows; a saved map maps as the fitted one did; mismatched maps,
# rows and options are refused naming both; the output is the same for any --threads.
source "$(dirname "$0")/lib.bash" "$@"
# numpy is Debian's python3-numpy: the system python3, whatever python3 comes first on PATH.
HERE=$(cd "$(dirname "$0")" && pwd)
EXAMPLES=$HERE/../../examples
check() { /usr/bin/python3 "$HERE/feature_maps.py" "$@" || fail "feature_maps.py $*"; }

python3 "$EXAMPLES/make_documents.py" --seed 3 --vocabulary 200 --n-train 40 --n-test 40 --train docs.txt --test docs_test.txt
"$PPK" fit multinomial --dim 200 docs.txt -o smoothed.ppk
"$PPK" fit multinomial --dim 200 --alpha 0 docs.txt -o ml.ppk
grep -q ' 6:' smoothed.ppk || fail "the smoothed rows have no base probability"
if grep -q ' 6:' ml.ppk; then fail "the maximum-likelihood rows have a base probability"; fi
# Bernoulli rows of D = 6 (2^6 exact features), some coordinates at a shared base.
python3 - > bernoulli.json <<'EOF'
import json, random
random.seed(5)
for i in range(30):
    p = [random.choice([0.5, random.uniform(0.01, 0.99)]) for _ in range(6)]
    print(json.dumps({"label": i % 2, "family": "bernoulli", "p": p}))
EOF
"$PPK" encode bernoulli.json -o bernoulli.ppk

for rho in 0.25 0.5 1 2; do
  for rows in ml smoothed bernoulli; do
    for kind in ppk ppk_norm; do
      "$PPK" gram -t $kind -g $rho $rows.ppk -o gram.txt
      "$PPK" map -t $kind -g $rho --map exact $rows.ppk -o features.txt
      check inner features.txt gram.txt 1e-12
      pass
      if [[ $kind == ppk_norm ]]; then
        check unit features.txt 1e-12
        pass
      fi
    done
  done
  "$PPK" gram -t ppk -g $rho smoothed.ppk -o gram.txt
  "$PPK" map -t ppk -g $rho --map sparse smoothed.ppk -o sparse.txt
  check sparse sparse.txt gram.txt smoothed.ppk $rho 1e-12
  pass
  "$PPK" map -t ppk_norm -g $rho --map sparse smoothed.ppk -o sparse_norm.txt
  check unit sparse_norm.txt 1e-12
  pass
done
# Rows without a base have a sparse exact map: the words of the document and nothing else.
"$PPK" map -t ppk -g 0.5 --map exact ml.ppk -o ml_features.txt
[[ $(head -1 ml_features.txt | wc -w) == $(head -1 ml.ppk | awk '{print NF - 3}') ]] ||
  fail "the exact map of a maximum-likelihood row lists other words than the row's"
pass
# ... and smoothed rows a dense one: all 200 words.
"$PPK" map -t ppk -g 0.5 --map exact smoothed.ppk -o smoothed_features.txt
[[ $(head -1 smoothed_features.txt | wc -w) == 201 ]] || fail "the exact map of a smoothed row is not dense"
pass
# The labels are the rows'.
cmp <(cut -d' ' -f1 smoothed.ppk) <(cut -d' ' -f1 smoothed_features.txt) || fail "labels changed"
pass

# Without --map the rows choose the route (exact or sparse) and a note says which. The rule
# (docs/feature-maps.md) recomputed from the rows' own fields, `feature_maps.py route`, must agree.
# ppk fit multinomial's default rows (--alpha 1/D) over 3000 words list a few of them: sparse.
python3 "$EXAMPLES/make_documents.py" --seed 6 --vocabulary 3000 --n-train 60 --n-test 10 --train wide.txt --test wide_test.txt
"$PPK" fit multinomial --dim 3000 wide.txt -o wide.ppk
# ... and over 12 words they list most of them: the exact map, dense but small.
python3 "$EXAMPLES/make_documents.py" --seed 6 --vocabulary 12 --topic-words 3 --n-train 60 --n-test 10 \
  --train narrow.txt --test narrow_test.txt
"$PPK" fit multinomial --dim 12 narrow.txt -o narrow.ppk
for rows in wide narrow ml bernoulli; do
  expected=$(/usr/bin/python3 "$HERE/feature_maps.py" route $rows.ppk) || fail "feature_maps.py route $rows.ppk"
  "$PPK" map -t ppk -g 0.5 $rows.ppk --save-map default.map -o default.txt 2>note.txt
  grep -q "^ppk map: --map $expected, chosen by the rows: " note.txt ||
    fail "$rows: expected the note of the $expected route: $(cat note.txt)"
  "$PPK" map -t ppk -g 0.5 --map $expected $rows.ppk -o explicit.txt 2>/dev/null
  cmp default.txt explicit.txt || fail "$rows: the default features are not those of --map $expected"
  grep -q "^route $expected\$" default.map || fail "$rows: the saved map is not of route $expected"
  echo "$rows: $expected: $(cat note.txt)"
  pass
done
[[ $(/usr/bin/python3 "$HERE/feature_maps.py" route wide.ppk) == sparse ]] || fail "the wide rows do not test the sparse route"
[[ $(/usr/bin/python3 "$HERE/feature_maps.py" route narrow.ppk) == exact ]] || fail "the narrow smoothed rows do not test exact"
# The default (sparse) route on the wide rows: each row's listed words and one feature, and
# <psi, psi'> within the docs' bound of ppk gram's kernel: 0 <= <psi, psi'> - k <= sqrt(f f') sqrt(k k')
# for ppk, |<psi, psi'> - k| <= (f + f') / 2 for ppk_norm, f = L / D.
"$PPK" map -t ppk -g 0.5 wide.ppk -o wide_features.txt 2>note.txt
grep -q "within sqrt(f f') sqrt(k(p,p) k(p',p')) of k" note.txt || fail "the note states no bound: $(cat note.txt)"
# (a row: its label, fields 1, 2, 3 and 6, its listed words; its features: the label, the words, one more)
[[ $(head -1 wide_features.txt | wc -w) == $(head -1 wide.ppk | awk '{print NF - 3}') ]] ||
  fail "the default map of a smoothed row is not its listed words and one feature"
pass
for rho in 0.25 0.5 1 2; do
  for kind in ppk ppk_norm; do
    "$PPK" gram -t $kind -g $rho wide.ppk -o gram.txt
    "$PPK" map -t $kind -g $rho wide.ppk -o features.txt 2>/dev/null
    check bound features.txt gram.txt wide.ppk $kind 1e-12
    pass
  done
  # --map exact stays exact on the same rows.
  "$PPK" gram -t ppk -g $rho wide.ppk -o gram.txt
  "$PPK" map -t ppk -g $rho --map exact wide.ppk -o features.txt
  check inner features.txt gram.txt 1e-12
  pass
done
# With a saved map or --map, no note.
"$PPK" map -t ppk -g 0.5 wide.ppk --save-map wide.map -o /dev/null 2>/dev/null
"$PPK" map --map-from wide.map wide.ppk -o /dev/null 2>note.txt
"$PPK" map -t ppk -g 0.5 --map sparse wide.ppk -o /dev/null 2>>note.txt
[[ ! -s note.txt ]] || fail "a note without a choice: $(cat note.txt)"
pass

# Nystrom, every family through the one generic map: multinomial, bernoulli, hmm.
python3 - > sequences.txt <<'EOF'
import random
random.seed(7)
for i in range(40):
    bias = "AACGT" if i % 2 else "ACGTT"
    print(i % 2, "".join(random.choice(bias) for _ in range(random.randint(20, 60))))
EOF
"$PPK" fit hmm --states 2 --alphabet ACGT --seed 1 sequences.txt -o hmm.ppk
for rows in smoothed bernoulli hmm; do
  n=$(wc -l < $rows.ppk)
  for kind in ppk ppk_norm; do
    "$PPK" gram -t $kind -g 1 -d 4 $rows.ppk -o gram.txt
    "$PPK" map -t $kind -g 1 -d 4 --map nystrom --landmarks "$n" --eigen-floor 0 $rows.ppk -o nystrom.txt 2>log.txt
    grep -q "Nystrom map of $n landmarks, effective rank" log.txt || fail "no effective rank: $(cat log.txt)"
    check inner nystrom.txt gram.txt 1e-8
    pass
  done
done
# The error falls as m grows (40 rows of hmm, uniform and k-means++ landmarks).
"$PPK" gram -t ppk_norm -g 1 -d 4 hmm.ppk -o gram.txt
for choice in uniform kmeans++; do
  previous=inf
  for m in 4 12 40; do
    "$PPK" map -t ppk_norm -g 1 -d 4 --map nystrom --landmarks $m --landmark-choice $choice hmm.ppk -o ny.txt 2>/dev/null
    error=$(/usr/bin/python3 "$HERE/feature_maps.py" error ny.txt gram.txt)
    python3 -c "import sys; sys.exit(0 if $error < float('$previous') else 1)" ||
      fail "$choice: the error $error of $m landmarks is not below $previous"
    previous=$error
    pass
  done
  python3 -c "import sys; sys.exit(0 if $previous < 1e-8 else 1)" || fail "$choice: all 40 landmarks leave $previous"
  pass
done

# A saved map maps as the fitted one did, bit for bit, for the training rows and for new ones.
"$PPK" fit multinomial --dim 200 docs_test.txt -o smoothed_test.ppk
for route in exact sparse nystrom; do
  landmarks=()
  [[ $route != nystrom ]] || landmarks=(--landmarks 16)
  "$PPK" map -t ppk_norm -g 0.5 --map $route "${landmarks[@]}" smoothed.ppk --save-map $route.map -o train.txt 2>/dev/null
  "$PPK" map --map-from $route.map smoothed.ppk -o again.txt
  cmp train.txt again.txt || fail "$route: the saved map maps the training rows differently"
  "$PPK" map --map-from $route.map -t ppk_norm -g 0.5 --map $route smoothed_test.ppk -o test.txt
  [[ $(wc -l < test.txt) == 40 ]] || fail "$route: the test rows were not all mapped"
  pass
done
# Train and test through one Nystrom map: the features' inner products are the Nystrom kernel
# k_m(p)' K_mm^+ k_m(p') between test and training rows too (checked against the landmarks' Gram:
# a training row that is a landmark has phi(L_i) . phi(x) = k(L_i, x)).
"$PPK" map -t ppk -g 0.5 --map nystrom --landmarks 40 --eigen-floor 0 smoothed.ppk --save-map all.map -o train.txt 2>/dev/null
"$PPK" map --map-from all.map smoothed_test.ppk -o test.txt
"$PPK" gram -t ppk -g 0.5 smoothed_test.ppk smoothed.ppk -o cross.txt
/usr/bin/python3 - <<'EOF' || fail "the test rows' features do not give k(test, train)"
import sys
import numpy as np
sys.path.insert(0, ".")
from feature_maps import read_features, read_matrix, scale
train, test, cross = read_features("train.txt"), read_features("test.txt"), read_matrix("cross.txt")
width = max(train.shape[1], test.shape[1])
train = np.pad(train, ((0, 0), (0, width - train.shape[1])))
test = np.pad(test, ((0, 0), (0, width - test.shape[1])))
difference = np.abs(test @ train.T - cross)
assert difference.max() <= 1e-8 * np.abs(cross).max(), difference.max()
EOF
pass

# The same output for any number of threads (a chunk holds 4096 rows: 5000 rows make two).
python3 "$EXAMPLES/make_documents.py" --seed 4 --vocabulary 100 --n-train 5000 --n-test 10 --train many.txt --test few.txt
"$PPK" fit multinomial --dim 100 --alpha 0 many.txt -o many.ppk
for options in "--map exact" "--map nystrom --landmarks 50"; do
  "$PPK" map -t ppk -g 0.5 $options --threads 1 many.ppk -o one.txt 2>/dev/null
  "$PPK" map -t ppk -g 0.5 $options --threads 2 many.ppk -o two.txt 2>/dev/null
  cmp one.txt two.txt || fail "$options: --threads 2 wrote other features than --threads 1"
  [[ $(wc -l < one.txt) == 5000 ]] || fail "$options: not every row was mapped"
  pass
done

# Mismatches and bad input: an error naming both sides, nothing written.
"$PPK" map -t ppk -g 0.5 --map nystrom --landmarks 8 hmm.ppk -d 4 --save-map hmm.map -o /dev/null 2>/dev/null
expect_error 1 "row 1" "multinomial row over" "hmm rows" -- "$PPK" map --map-from hmm.map smoothed.ppk -o out.txt
expect_no_output out.txt
expect_error 1 "row 1" "bernoulli row over" "multinomial rows over categories of dimension 200" -- \
  "$PPK" map --map-from exact.map bernoulli.ppk -o out.txt
expect_no_output out.txt
expect_error 2 "-g 1" "rho 0.5" -- "$PPK" map --map-from exact.map -g 1 smoothed_test.ppk -o out.txt
expect_error 2 "-t ppk," "ppk_norm" -- "$PPK" map --map-from exact.map -t ppk smoothed_test.ppk -o out.txt
expect_error 2 "-d 3" "T 4" -- "$PPK" map --map-from hmm.map -d 3 hmm.ppk -o out.txt
expect_error 2 "--map nystrom" "exact" -- "$PPK" map --map-from exact.map --map nystrom smoothed_test.ppk
expect_error 2 "--landmarks" "--map-from uses one" -- "$PPK" map --map-from hmm.map --landmarks 3 hmm.ppk
expect_error 2 "--landmarks" "--map nystrom" -- "$PPK" map -t ppk -g 1 --landmarks 3 smoothed.ppk
expect_error 2 "--map must be exact, sparse or nystrom" -- "$PPK" map -t ppk -g 1 --map dense smoothed.ppk
expect_error 2 "reads INPUT twice" -- "$PPK" map -t ppk -g 1 --map nystrom - < smoothed.ppk
expect_error 1 "hmm" "not an inner product of finitely many features" "Nystrom" -- \
  "$PPK" map -t ppk -g 1 -d 4 hmm.ppk -o out.txt
expect_no_output out.txt
"$PPK" fit multinomial --dim 200 --base pooled --save-pooled base.json docs.txt -o leveled.ppk
expect_error 1 "row 1" "leveled base" "sparse or the Nystrom map" -- \
  "$PPK" map -t ppk -g 0.5 --map exact leveled.ppk -o out.txt
"$PPK" map -t ppk -g 0.5 --map sparse leveled.ppk -o leveled_sparse.txt
pass
# Without --map, rows over a leveled base take the sparse route, and the note says why.
"$PPK" map -t ppk -g 0.5 leveled.ppk -o leveled_default.txt 2>note.txt
grep -q "^ppk map: --map sparse, chosen by the rows: multinomial rows over a leveled base" note.txt ||
  fail "no note of the sparse route for leveled rows: $(cat note.txt)"
cmp leveled_sparse.txt leveled_default.txt || fail "the default route of leveled rows is not --map sparse"
pass
# A row that does not decode is named by its row number, and nothing is written.
{ head -3 smoothed.ppk; echo "1 1:1 2:3 3:200 7:2"; } > bad.ppk
expect_error 1 "bad.ppk: row 4" -- "$PPK" map -t ppk -g 0.5 bad.ppk -o out.txt
expect_no_output out.txt
# A damaged map file is refused with its line.
sed 's/^rho .*/rho -1/' exact.map > damaged.map
expect_error 1 "damaged.map:4" "rho" -- "$PPK" map --map-from damaged.map smoothed.ppk -o out.txt
head -14 nystrom.map > truncated.map
expect_error 1 "truncated.map:15" "the file ends" -- "$PPK" map --map-from truncated.map smoothed.ppk -o out.txt
finish
