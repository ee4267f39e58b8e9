# ppk gram --summary: the quantiles of the normalised kernel values c = k(p,p')/sqrt(k(p,p) k(p',p'))
# between different rows, against the same quantiles computed in Python from the --format matrix
# output (normalised by its diagonal); the counts below 1e-6 and above 1 - 1e-6; the warning on a
# nearly-identity and a nearly-constant kernel; and the matrix written alongside with -o. Subnormal
# kernel values in the matrix format are written as DBL_MIN (strtod reads every value without ERANGE).
source "$(dirname "$0")/lib.bash" "$@"

# 24 point sets in 2-D of various spreads, fitted as full-covariance Gaussians: values c of many
# magnitudes.
awk 'BEGIN {
  srand(11)
  for (e = 1; e <= 24; e++) {
    s = 0.2 + 1.5 * rand(); cx = 3 * rand(); cy = 3 * rand()
    for (k = 0; k < 5; k++) printf "%d qid:%d 1:%.5f 2:%.5f\n", e % 2, e, cx + s * (rand() - 0.5), cy + s * (rand() - 0.5)
  }
}' > sets.txt
head -n 60 sets.txt > a_sets.txt
tail -n 60 sets.txt > b_sets.txt
"$PPK" fit gaussian --ridge 0.01 sets.txt -o all.ppk
"$PPK" fit gaussian --ridge 0.01 a_sets.txt -o a.ppk
"$PPK" fit gaussian --ridge 0.01 b_sets.txt -o b.ppk

# check_summary SUMMARY MATRIX SAME: SUMMARY's quantiles and counts against those of the normalised
# matrix MATRIX (the ppk kernel: normalised by its diagonal when SAME = 1; ppk_norm A against B when
# SAME = 0: every entry is a pair).
check_summary() {
  python3 - "$@" <<'PY' || fail "summary $*: $(cat "$1")"
import math, sys
summary, matrix, same = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
K = [[float(t) for t in line.split()] for line in open(matrix)]
if same:
    n = len(K)
    c = [K[i][j] / math.sqrt(K[i][i] * K[j][j]) for i in range(n) for j in range(i + 1, n)]
else:
    c = [v for row in K for v in row]
assert all(v > 0 for v in c), "a value underflowed: pick another case"
c.sort()
lines = open(summary).read().splitlines()
assert lines[0] == ("normalised kernel values k(p,p')/sqrt(k(p,p) k(p',p')) between different rows: "
                    f"{len(c)} pairs"), lines[0]
assert lines[1] == "quantile value log10", lines[1]
names = {"min": 0, "max": 100}
rows = lines[2:11]
assert len(rows) == 9 and len(lines) == 13, lines
for row, percent in zip(rows, [0, 1, 10, 25, 50, 75, 90, 99, 100]):
    name, value, log10 = row.split(" ")
    assert names.get(name, None) == percent or name == f"{percent}%", row
    rank = max(1, -(-percent * len(c) // 100))  # nearest rank: ceil(percent n / 100)
    expected = c[rank - 1]
    assert abs(float(log10) - math.log10(expected)) <= 2e-6, f"{row}: expected log10 {math.log10(expected)}"
    assert abs(float(value) - expected) <= 1e-5 * expected, f"{row}: expected {expected}"
below = sum(v < 1e-6 for v in c)
above = sum(v > 1 - 1e-6 for v in c)
assert lines[11] == f"below 1e-6: {below}", lines[11]
assert lines[12] == f"above 1 - 1e-6: {above}", lines[12]
PY
  pass
}

"$PPK" gram -t ppk -g 0.7 all.ppk > all.txt
"$PPK" gram -t ppk -g 0.7 --summary all.ppk > all.summary 2> all.err
check_summary all.summary all.txt 1
[[ ! -s all.err ]] || fail "a warning on a kernel that is not degenerate: $(cat all.err)"
pass
# ppk and ppk_norm have the same normalised values; A against B: every pair.
"$PPK" gram -t ppk_norm -g 0.7 --summary all.ppk | cmp - all.summary || fail "ppk_norm's summary differs from ppk's"
pass
"$PPK" gram -t ppk_norm -g 0.3 a.ppk b.ppk > ab.txt
"$PPK" gram -t ppk_norm -g 0.3 --summary a.ppk b.ppk > ab.summary
check_summary ab.summary ab.txt 0
# With -o the matrix is written too, the same bytes; -o - would mix it with the summary.
"$PPK" gram -t ppk -g 0.7 --summary all.ppk -o written.txt > /dev/null
cmp written.txt all.txt || fail "--summary -o writes a different matrix"
pass
expect_error 2 "--summary prints the quantiles on standard output" -- "$PPK" gram -t ppk -g 1 --summary all.ppk -o -

# The warning: peaked Gaussians far apart (c = exp(-rho |mu - mu'|^2 / (4 s2)), s2 = 0.01) are nearly
# the identity; on all pairs with --summary, on a sample without. Both name rho and T.
awk 'BEGIN { for (i = 0; i < 30; i++) printf "%d 1:%d 2:%d\n", i % 2, i, 2 * i }' > points.txt
"$PPK" fit gaussian --var 0.01 points.txt -o peaked.ppk
for args in "" "--summary"; do
  "$PPK" gram -t ppk_norm -g 1 -d 3 $args peaked.ppk > /dev/null 2> peaked.err
  for fragment in "ppk gram: warning: the kernel matrix is nearly the identity" "rho = 1 (-g) and T = 3 (-d)" \
    "Try a smaller rho"; do
    grep -qF -- "$fragment" peaked.err || fail "gram $args: no '$fragment' in: $(cat peaked.err)"
  done
  pass
done
grep -qF "435 of 435" peaked.err || fail "--summary's warning is not on all 435 pairs: $(cat peaked.err)"
# ... and at a rho 10^4 times smaller, c = exp(-1e-4 |mu - mu'|^2 / 0.04) is not: no warning.
"$PPK" gram -t ppk_norm -g 0.0001 peaked.ppk > /dev/null 2> small_rho.err
[[ ! -s small_rho.err ]] || fail "a warning at rho = 1e-4: $(cat small_rho.err)"
pass
# Nearly constant: Gaussians of variance 100 whose means differ by at most 0.02 (1 - c < 5e-7).
awk 'BEGIN { for (i = 0; i < 30; i++) printf "%d 1:%.5f\n", i % 2, i / 1500 }' > close.txt
"$PPK" fit gaussian --var 100 close.txt -o broad.ppk
"$PPK" gram -t ppk -g 0.5 broad.ppk > /dev/null 2> broad.err
grep -qF "ppk gram: warning: the kernel matrix is nearly constant" broad.err || fail "no warning: $(cat broad.err)"
grep -qF "Try a larger rho" broad.err || fail "no advice: $(cat broad.err)"
pass

# Subnormal kernel values in the matrix format are written as DBL_MIN: c = exp(-|d|^2 / 0.04) for the
# means 5.4 apart is exp(-729), below DBL_MIN = exp(-708.4).
printf '1 1:0\n2 1:5.4\n' > two.txt
"$PPK" fit gaussian --var 0.01 two.txt -o two.ppk
"$PPK" gram -t ppk_norm -g 1 two.ppk > two.matrix
python3 - two.matrix <<'PY' || fail "matrix $(cat two.matrix)"
import sys
K = [line.split(" ") for line in open(sys.argv[1]).read().splitlines()]
assert K == [["1", "2.2250738585072014e-308"], ["2.2250738585072014e-308", "1"]], K
PY
pass
finish
