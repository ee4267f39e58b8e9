# Mean-map kernels between sets of vectors: qid-grouped sets -> ppk fit kde --mean-map-sigma SIGMA ->
# ppk gram -t ppk -g 1 is (2 pi SIGMA^2)^(-D/2) (1/(n m)) sum_ij exp(-|x_i - y_j|^2 / (2 SIGMA^2)),
# and ppk_norm the normalised double sum, both computed here in python3 from the input file itself.
source "$(dirname "$0")/lib.bash" "$@"

# Four sets of 2-D points (absent indices are zeros), of 1 to 4 points; labels pass through.
cat > sets.txt <<'DATA'
1 qid:1 1:0.3 2:-1.2
1 qid:1 1:1.1 2:0.4
1 qid:1 2:2.0
-1 qid:2 1:-0.7 2:0.9
1 qid:3 1:2.5 2:1.5
1 qid:3 1:1.9
1 qid:3 1:-0.4 2:-0.6
1 qid:3 1:0.8 2:3.1
-1 qid:4 1:-1.5 2:-2.2
-1 qid:4 1:0.2 2:0.1
DATA

for sigma in 0.8 1.7; do
  "$PPK" fit kde --mean-map-sigma "$sigma" sets.txt -o sets.ppk
  [[ $(wc -l < sets.ppk) == 4 ]] || fail "expected one row per set: $(cat sets.ppk)"
  pass
  "$PPK" gram -t ppk -g 1 sets.ppk -o gram.txt
  "$PPK" gram -t ppk_norm -g 1 sets.ppk -o norm.txt
  python3 - sets.txt gram.txt norm.txt "$sigma" <<'PY' || fail "sigma $sigma: $(cat gram.txt norm.txt)"
import math, sys
from gram_output import read_gram
sets_path, gram_path, norm_path, sigma = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
sets, keys = [], []
for line in open(sets_path):
    tokens = line.split()
    if tokens[:2] != keys:
        keys = tokens[:2]
        sets.append([])
    x = [0.0, 0.0]
    for token in tokens[2:]:
        index, value = token.split(":")
        x[int(index) - 1] = float(value)
    sets[-1].append(x)
def inner(xs, ys):
    return sum(math.exp(-((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2) / (2 * sigma ** 2)) for a in xs for b in ys) / (len(xs) * len(ys))
constant = (2 * math.pi * sigma ** 2) ** (-2 / 2)
gram, norm = read_gram(gram_path, 4, 4), read_gram(norm_path, 4, 4)
for i, xs in enumerate(sets):
    for j, ys in enumerate(sets):
        expected = constant * inner(xs, ys)
        assert abs(gram[i][j] - expected) <= 1e-12 * expected, (i, j, gram[i][j], expected)
        expected = inner(xs, ys) / math.sqrt(inner(xs, xs) * inner(ys, ys))
        assert abs(norm[i][j] - expected) <= 1e-12 * expected, (i, j, norm[i][j], expected)
PY
  pass
done

# --mean-map-sigma S is --bandwidth S^2/2, bit for bit.
"$PPK" fit kde --mean-map-sigma 1.5 sets.txt -o sigma.ppk
"$PPK" fit kde --bandwidth 1.125 sets.txt -o bandwidth.ppk
cmp -s sigma.ppk bandwidth.ppk || fail "--mean-map-sigma 1.5 differs from --bandwidth 1.125: $(diff sigma.ppk bandwidth.ppk | head -4)"
pass

# Bad command lines: exit 2, nothing written.
expect_error 2 "--mean-map-sigma" "cannot be combined with --bandwidth" -- "$PPK" fit kde --mean-map-sigma 1 --bandwidth 0.5 sets.txt -o bad.ppk
expect_no_output bad.ppk
expect_error 2 "--mean-map-sigma must be a finite number > 0, got 0" -- "$PPK" fit kde --mean-map-sigma 0 sets.txt -o bad.ppk
expect_no_output bad.ppk
"$PPK" fit kde --help > help.txt
grep -qF -- "--mean-map-sigma" help.txt || fail "ppk fit kde --help does not mention --mean-map-sigma"
pass

finish
