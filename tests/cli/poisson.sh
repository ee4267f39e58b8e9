# Poisson rows: ppk encode / decode, and ppk gram against kernels computed here from docs/design.md:
#   rho = 1/2:  k = prod_d exp(-(sqrt(l_d) - sqrt(l'_d))^2 / 2)
#   any rho:    k = prod_d sum_x pmf(x; l_d)^rho pmf(x; l'_d)^rho, summed directly (brute force),
# and the errors for a malformed Poisson row and model.
source "$(dirname "$0")/lib.bash" "$@"

cat > models.jsonl <<'EOF'
{"family":"poisson","rate":[0.5,0,3],"label":1}
{"family":"poisson","rate":[2,7.5,0],"label":-1}
{"family":"poisson","rate":[0,0.01,200]}
{"family":"poisson","rate":[0.001,4,250]}
EOF
RATES="0.5,0,3;2,7.5,0;0,0.01,200;0.001,4,250"
"$PPK" encode models.jsonl -o models.ppk
# Rows: label, version 1, family 4, D at index 3, rate_d at 4 + d (zeros omitted).
[[ $(head -1 models.ppk) == "1 1:1 2:4 3:3 4:0.5 6:3" ]] || fail "row layout: $(head -1 models.ppk)"
pass
"$PPK" decode models.ppk > decoded.jsonl
python3 - models.jsonl decoded.jsonl <<'PY' || fail "decode does not give back the models"
import json, sys
original, decoded = ([json.loads(line) for line in open(path)] for path in sys.argv[1:])
for a, b in zip(original, decoded, strict=True):
    a.setdefault("label", 0)
    assert a == b, (a, b)
PY
pass

# check_gram FILE RATES KIND RHO: the matrix of the models in RATES against themselves.
check_gram() {
  python3 - "$@" <<'PY' || fail "gram $*: $(cat "$1")"
import math, sys
from gram_output import expect_kernels, read_gram
path, rates, kind, rho = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
models = [[float(r) for r in model.split(",")] for model in rates.split(";")]

def log_pmf(x, rate):
    if rate == 0:
        return 0.0 if x == 0 else -math.inf
    return x * math.log(rate) - rate - math.lgamma(x + 1)

# Past x = 2 max(l, l') each next term is at most 2^(-2 rho) times the last, so stopping once a
# term is below 1e-30 of the sum leaves a remainder below 1e-29 of it (rho >= 1/4).
def brute_force(a, b):
    log_k = 0.0
    for l, m in zip(a, b):
        total, x = 0.0, 0
        while True:
            term = math.exp(rho * (log_pmf(x, l) + log_pmf(x, m)))
            total += term
            if x > 2 * max(l, m) and term < 1e-30 * total:
                break
            x += 1
        log_k += math.log(total)
    return log_k

def closed_form_half(a, b):
    return -sum((math.sqrt(l) - math.sqrt(m)) ** 2 / 2 for l, m in zip(a, b))

log_kernel = closed_form_half if rho == 0.5 else brute_force
expect_kernels(read_gram(path, len(models), len(models)), models, models, log_kernel, kind == "ppk_norm", 1e-9)
PY
  pass
}
"$PPK" gram -t ppk -g 0.5 models.ppk > half.txt
check_gram half.txt "$RATES" ppk 0.5
"$PPK" gram -t ppk_norm -g 0.7 models.ppk > norm.txt
check_gram norm.txt "$RATES" ppk_norm 0.7
"$PPK" gram -t ppk -g 2 models.ppk > two.txt
check_gram two.txt "$RATES" ppk 2

# A negative rate, as a row (gram, decode) and as JSON (encode).
printf '1 1:1 2:4 3:1 4:2\n-1 1:1 2:4 3:2 4:1.5 5:-2\n' > negative.ppk
expect_error 1 "negative.ppk: row 2: " 'poisson field "rate" (index 5)' 'expected a finite number >= 0, got -2' -- \
  "$PPK" gram -t ppk -g 0.5 negative.ppk -o gram.txt
expect_no_output gram.txt
expect_error 1 "negative.ppk: row 2: " 'poisson field "rate" (index 5)' -- "$PPK" decode negative.ppk
printf '{"family":"poisson","rate":[1]}\n{"family":"poisson","rate":[1,-2]}\n' > negative.jsonl
expect_error 1 "negative.jsonl:2: " 'poisson field "rate"[1]' 'got -2' -- "$PPK" encode negative.jsonl -o out.ppk
expect_no_output out.ppk
# The series (rho other than 1/2 and 1) stops at rates of 10^9; the closed forms do not.
printf '1 1:1 2:4 3:1 4:2e9\n' > huge.ppk
expect_error 1 "huge.ppk: row 1: " "rate 2e+09" "rho = 0.5 or 1" -- "$PPK" gram -t ppk -g 0.7 huge.ppk
[[ $("$PPK" gram -t ppk_norm -g 1 huge.ppk) == 1 ]] || fail "huge rate at rho = 1"
pass
finish
