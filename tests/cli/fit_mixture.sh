# ppk fit mixture / kde: rows of the mixture family (mixture.hpp: 3: M, 4..3+M: weights, then the
# nested components), the encode/decode round trip, Gram matrices, and errors naming file:line.
source "$(dirname "$0")/lib.bash" "$@"

# Three qid groups of 1-D points, two clusters each.
cat > sets.txt <<'DATA'
1 qid:1 1:-3.1
1 qid:1 1:-2.9
1 qid:1 1:-3.0
1 qid:1 1:3.2
1 qid:1 1:2.8
1 qid:1 1:3.0
-1 qid:2 1:-1.2
-1 qid:2 1:-0.8
-1 qid:2 1:1.1
-1 qid:2 1:0.9
1 qid:3 1:0.1
1 qid:3 1:5.1
1 qid:3 1:4.9
DATA

"$PPK" fit mixture --components 2 --cov iso sets.txt -o mixture.ppk
[[ $(wc -l < mixture.ppk) == 3 ]] || fail "expected one row per qid group: $(cat mixture.ppk)"
pass
mapfile -t rows < mixture.ppk
[[ $(field "${rows[0]}" 2) == 8 && $(field "${rows[0]}" 3) == 2 ]] || fail "expected family 8 with M = 2: ${rows[0]}"
pass
# Group 1 splits into its two clusters of three points: weights 1/2, means -3 and 3.
expect_close "$(field "${rows[0]}" 4)" "0.5" 1e-9
expect_close "$(field "${rows[0]}" 5)" "0.5" 1e-9

# The same fit again is the same bit for bit (seeded by --seed and the data).
"$PPK" fit mixture --components 2 --cov iso sets.txt -o again.ppk
cmp -s mixture.ppk again.ppk || fail "two fits with the same seed differ"
pass

# kde: one N(x_i, h) per point with weight 1/n; group 2 has 4 points.
"$PPK" fit kde --bandwidth 0.5 sets.txt -o kde.ppk
mapfile -t kde_rows < kde.ppk
[[ $(field "${kde_rows[1]}" 3) == 4 ]] || fail "expected 4 components: ${kde_rows[1]}"
pass
expect_close "$(field "${kde_rows[1]}" 4)" "1/4"

# decode / encode round trip.
for file in mixture.ppk kde.ppk; do
  "$PPK" decode "$file" -o "$file.jsonl"
  grep -qF '"family":"mixture"' "$file.jsonl" || fail "decode: $(head -1 "$file.jsonl")"
  "$PPK" encode "$file.jsonl" -o "$file.back"
  cmp -s "$file" "$file.back" || fail "encode(decode($file)) differs: $(diff "$file" "$file.back" | head -5)"
  pass
done

# Gram matrices: finite values, and the normalised kernel is 1 on the diagonal.
for file in mixture.ppk kde.ppk; do
  "$PPK" gram -t ppk -g 0.5 "$file" > gram.txt
  "$PPK" gram -t ppk_norm -g 1 "$file" > norm.txt
  python3 - gram.txt norm.txt <<'PY' || fail "gram of $file: $(cat gram.txt norm.txt)"
import math, sys
gram = [[float(v) for v in line.split()] for line in open(sys.argv[1])]
norm = [[float(v) for v in line.split()] for line in open(sys.argv[2])]
assert len(gram) == 3 and all(len(r) == 3 for r in gram)
assert all(math.isfinite(v) for r in gram + norm for v in r)
assert all(abs(norm[i][i] - 1) < 1e-12 for i in range(3))
PY
  pass
done

# Errors name the file and line of the example.
expect_error 1 "sets.txt:7" "needs at least 5 vectors" -- "$PPK" fit mixture --components 5 sets.txt -o bad.ppk
expect_no_output bad.ppk
# --shrink is refused as an option (usage error, exit 2), not blamed on an example's line.
expect_error 2 "the mixture fit is not an exponential family" "--shrink" -- "$PPK" fit mixture --shrink 1 sets.txt -o bad.ppk
expect_no_output bad.ppk
expect_error 2 "--components must be at least 1" -- "$PPK" fit mixture --components 0 sets.txt

finish
