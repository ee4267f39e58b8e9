# ppk gram: format (rows, columns, %.17g, single spaces), symmetry, normalisation, and values
# against the closed forms for isotropic Gaussians of equal variance s2 in D dimensions:
#   k_rho = (2 rho)^(-D/2) (2 pi s2)^((1-2rho)D/2) exp(-rho |mu - mu'|^2 / (4 s2)),
#   normalised: exp(-rho |mu - mu'|^2 / (4 s2))   (an RBF kernel in the means).
source "$(dirname "$0")/lib.bash" "$@"

printf '1 1:0 2:0\n1 1:1 2:2\n-1 1:2\n-1 1:-0.5 2:0.25\n' > a.txt
printf '1 1:3 2:3\n-1 2:-1\n1 1:0.1\n' > b.txt
"$PPK" fit gaussian --var 0.5 a.txt -o a.ppk
"$PPK" fit gaussian --var 0.5 b.txt -o b.ppk

# check_gram FILE POINTS_A POINTS_B RHO NORMALISED SYMMETRIC
check_gram() {
  python3 - "$@" <<'PY' || fail "gram $*: $(cat "$1")"
import math, sys
from gram_output import expect_kernels, read_gram
path, a, b, rho, normalised, symmetric = sys.argv[1:]
points = lambda text: [[float(x) for x in p.split(",")] for p in text.split(";")]
a, b, rho, s2, dim = points(a), points(b), float(rho), 0.5, 2
matrix = read_gram(path, len(a), len(b))
# Isotropic Gaussians N(x, s2 I) (JMLR 2004 section 3.1).
def log_kernel(p, q):
    d2 = sum((x - y) ** 2 for x, y in zip(p, q))
    return -rho * d2 / (4 * s2) + math.log((2 * rho) ** (-dim / 2) * (2 * math.pi * s2) ** ((1 - 2 * rho) * dim / 2))
expect_kernels(matrix, a, b, log_kernel, normalised == "1", 1e-13)
lines = open(path).read().splitlines()
if symmetric == "1":
    for i in range(len(a)):
        for j in range(len(a)):
            assert lines[i].split(" ")[j] == lines[j].split(" ")[i], f"K[{i}][{j}] != K[{j}][{i}]"
        if normalised == "1":
            assert abs(matrix[i][i] - 1) <= 1e-15, f"diagonal {matrix[i][i]}"
PY
  pass
}
A="0,0;1,2;2,0;-0.5,0.25"
B="3,3;0,-1;0.1,0"

"$PPK" gram -t ppk_norm -g 1 a.ppk > norm.txt
check_gram norm.txt "$A" "$A" 1 1 1
"$PPK" gram -t ppk -g 1 a.ppk > ppk1.txt
check_gram ppk1.txt "$A" "$A" 1 0 1
"$PPK" gram -t ppk -g 0.5 a.ppk -o half.txt
check_gram half.txt "$A" "$A" 0.5 0 1
"$PPK" gram -t ppk -g 0.3 -d 4 a.ppk b.ppk > ab.txt
check_gram ab.txt "$A" "$B" 0.3 0 0
"$PPK" gram -t ppk_norm -g 2 b.ppk a.ppk > ba.txt
check_gram ba.txt "$B" "$A" 2 1 0

# -t takes LIBSVM's numbers too; - reads standard input.
"$PPK" gram -t 6 -g 1 - < a.ppk | cmp - norm.txt || fail "-t 6 differs from -t ppk_norm"
pass
"$PPK" gram -t 5 -g 1 a.ppk > ppk5.txt
cmp ppk5.txt ppk1.txt || fail "-t 5 differs from -t ppk"
pass

# Multinomial rows, Bhattacharyya (rho = 1/2): k = sum_d sqrt(a_d a'_d).
printf '{"family":"multinomial","p":[0.5,0.5,0]}\n{"family":"multinomial","p":[0.25,0.25,0.5]}\n' | "$PPK" encode > m.ppk
"$PPK" gram -t ppk -g 0.5 m.ppk > m.txt
read -r k11 k12 < m.txt
expect_close "$k11" "1"
expect_close "$k12" "2 * sqrt(0.5 * 0.25)"

# An empty file gives an empty matrix.
: > empty.ppk
[[ -z $("$PPK" gram -t ppk -g 1 empty.ppk) ]] || fail "empty file"
pass
finish
