# Exponential, gamma and Dirichlet rows: ppk encode, ppk gram against the closed forms (re-derived here
# in Python from docs/design.md "Mathematics"; the unit tests check them against quadrature), the domain of
# rho, and malformed rows.
#   gamma (exponential: shape 1), per dimension: a+ = rho (a + a' - 2) + 1, 1/b+ = rho (1/b + 1/b'),
#     k = Gamma(a+) b+^a+ / [Gamma(a) b^a Gamma(a') b'^a']^rho
#   Dirichlet: k = B(a+) / (B(a) B(a'))^rho, a+_d = rho (a_d + a'_d - 2) + 1, B(v) = prod Gamma(v_d) / Gamma(sum v_d)
source "$(dirname "$0")/lib.bash" "$@"

cat > positive.jsonl <<'EOF'
{"family":"gamma","shape":[2,0.9,1.5],"scale":[1,3,0.25],"label":1}
{"family":"exponential","scale":[0.5,2,1]}
{"family":"gamma","shape":[4,1.2,0.8],"scale":[0.5,0.5,2],"label":-1}
{"family":"exponential","scale":[3,0.1,0.7],"label":2}
{"family":"gamma","shape":[1,1,1],"scale":[0.5,2,1]}
EOF
cat > simplex.jsonl <<'EOF'
{"family":"dirichlet","alpha":[1,1,1]}
{"family":"dirichlet","alpha":[2,0.8,5]}
{"family":"dirichlet","alpha":[0.9,3,1.5],"label":1}
EOF
# The rows read back as the same models.
expect_encoded positive.jsonl positive.ppk gamma "1 1:1 2:6 3:3 4:2 5:0.9 6:1.5 7:1 8:3 9:0.25"
"$PPK" encode simplex.jsonl > simplex.ppk
expect_round_trip simplex.ppk

# check_gram GRAM_FILE JSON_LINES RHO NORMALISED: every entry against the closed form, to 1e-9 relative.
check_gram() {
  python3 - "$@" <<'PY' || fail "gram $*: $(cat "$1")"
import json, math, sys
from gram_output import expect_kernels, read_gram
gram_path, models_path, rho, normalised = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4] == "1"
models = [json.loads(line) for line in open(models_path)]

def log_kernel(p, q):
    if p["family"] == "dirichlet":
        a, b = p["alpha"], q["alpha"]
        def log_beta(v):
            return sum(math.lgamma(x) for x in v) - math.lgamma(sum(v))
        plus = [rho * (x + y - 2) + 1 for x, y in zip(a, b)]
        return log_beta(plus) - rho * log_beta(a) - rho * log_beta(b)
    # An exponential model is the gamma model of shape 1.
    def shapes(m):
        return m.get("shape", [1.0] * len(m["scale"]))
    total = 0.0
    for a, b, a2, b2 in zip(shapes(p), p["scale"], shapes(q), q["scale"]):
        a_plus = rho * (a + a2 - 2) + 1
        b_plus = 1 / (rho * (1 / b + 1 / b2))
        total += math.lgamma(a_plus) + a_plus * math.log(b_plus)
        total -= rho * (math.lgamma(a) + a * math.log(b) + math.lgamma(a2) + a2 * math.log(b2))
    return total

expect_kernels(read_gram(gram_path, len(models), len(models)), models, models, log_kernel, normalised, 1e-9)
PY
  pass
}
"$PPK" gram -t ppk -g 0.5 positive.ppk > positive_half.txt
check_gram positive_half.txt positive.jsonl 0.5 0
"$PPK" gram -t ppk_norm -g 2 positive.ppk -o positive_norm2.txt
check_gram positive_norm2.txt positive.jsonl 2 1
"$PPK" gram -t ppk -g 0.5 simplex.ppk > simplex_half.txt
check_gram simplex_half.txt simplex.jsonl 0.5 0
"$PPK" gram -t ppk_norm -g 2 simplex.ppk > simplex_norm2.txt
check_gram simplex_norm2.txt simplex.jsonl 2 1

# Gamma and exponential rows have no kernel with Dirichlet rows (different sample spaces).
expect_error 1 "positive.ppk: row 1 and simplex.ppk: row 1: " "positive real vectors of dimension 3" \
  "probability vectors of dimension 3" -- "$PPK" gram -t ppk -g 1 positive.ppk simplex.ppk

# A rho outside the domain: shape 0.3 needs rho < 1 / (2 (1 - 0.3)) = 1 / 1.4.
printf '{"family":"gamma","shape":[2],"scale":[1]}\n{"family":"gamma","shape":[0.3],"scale":[2]}\n' > small_shape.jsonl
"$PPK" encode small_shape.jsonl > small_shape.ppk
expect_error 1 "small_shape.ppk: row 2: " 'gamma kernel at rho = 2' '"shape"[0] = 0.3' 'paired with itself' \
  'rho < 0.714285714' -- "$PPK" gram -t ppk -g 2 small_shape.ppk -o gram.txt
expect_no_output gram.txt
"$PPK" gram -t ppk -g 0.7 small_shape.ppk > below_bound.txt
check_gram below_bound.txt small_shape.jsonl 0.7 0
printf '{"family":"dirichlet","alpha":[3,0.4]}\n' | "$PPK" encode > small_alpha.ppk
expect_error 1 "small_alpha.ppk: row 1: " 'dirichlet kernel at rho = 1' '"alpha"[1] = 0.4' 'rho < 0.833333333' -- \
  "$PPK" gram -t ppk_norm -g 1 small_alpha.ppk

# Malformed rows: a scale of 0 (omitted) or below, a Dirichlet of dimension 1.
printf '1 1:1 2:6 3:2 4:1 5:1 6:1 7:1\n1 1:1 2:6 3:2 4:1 5:1 6:0 7:1\n' > zero_scale.ppk
expect_error 1 "zero_scale.ppk: row 2: " 'gamma field "scale" (index 6)' 'expected a finite number > 0, got 0' -- \
  "$PPK" gram -t ppk -g 1 zero_scale.ppk -o gram.txt
expect_no_output gram.txt
printf '1 1:1 2:6 3:1 4:1 5:-2\n' > negative_scale.ppk
expect_error 1 "negative_scale.ppk: row 1: " 'gamma field "scale" (index 5)' 'got -2' -- \
  "$PPK" gram -t ppk_norm -g 1 negative_scale.ppk
printf '1 1:1 2:5 3:2 4:1\n' > missing_scale.ppk
expect_error 1 "missing_scale.ppk: row 1: " 'exponential field "scale" (index 5)' 'got 0' -- \
  "$PPK" decode missing_scale.ppk
printf '1 1:1 2:7 3:1 4:1\n' > one_alpha.ppk
expect_error 1 "one_alpha.ppk: row 1: " 'dirichlet field "dim" (index 3)' '[2, 100000000], got 1' -- \
  "$PPK" gram -t ppk -g 1 one_alpha.ppk
printf '{"family":"gamma","shape":[1,2],"scale":[1]}\n' > lengths.jsonl
expect_error 1 "lengths.jsonl:1: " 'gamma field "scale"' 'as many values as "shape" (2)' -- "$PPK" encode lengths.jsonl
finish
