# LDS rows (lds.hpp): ppk encode of JSON LDSs, the row layout, ppk gram with -d 1 (x_0, x_1) against
# JMLR 2004 eq. 5 in its original form (P = S^-1, S+ = (P + P')^-1, m+ = P m + P' m') between the joint
# Gaussians of (x_0, x_1), written out here from the LDS equations; ppk_norm; mismatched T, d and
# families; malformed rows.
source "$(dirname "$0")/lib.bash" "$@"

lds_models lds.jsonl
# 3 n, 4 d, 5 T, 6..7 mean0, 8..10 cov0 (lower triangle), 11..14 A, 15..17 Q, 18..19 C, 20 R.
expect_encoded lds.jsonl lds.ppk lds "1 1:1 2:11 3:2 4:1 5:4 6:1 7:-2 8:1 9:0.5 10:2 11:0.5 12:0.1 13:0.2 14:0.8 15:0.3 16:0.1 17:0.2 18:1 19:2 20:0.5"

# check_gram GRAM_FILE RHO NORMALISED: every entry against eq. 5 for (x_0, x_1), to 1e-10 relative.
check_gram() {
  python3 - "$@" lds.jsonl <<'PY' || fail "gram $*: $(cat "$1")"
import math
from gram_output import check_gram_arguments, expect_kernels, read_gram
from small_matrices import mul, t
gram_path, rho, normalised, models = check_gram_arguments()

def joint(m):
    # x_0 = C s_0 + v_0, x_1 = C (A s_0 + w_1) + v_1 (d = 1): the mean and 2 x 2 covariance.
    c, a, cov0, r = m["C"], m["A"], m["cov0"], m["R"][0][0]
    mean0 = [[v] for v in m["mean0"]]
    sigma1 = [[x + y for x, y in zip(u, v)] for u, v in zip(mul(mul(a, cov0), t(a)), m["Q"])]
    s00 = mul(mul(c, cov0), t(c))[0][0] + r
    s10 = mul(mul(mul(c, a), cov0), t(c))[0][0]
    s11 = mul(mul(c, sigma1), t(c))[0][0] + r
    return [mul(c, mean0)[0][0], mul(mul(c, a), mean0)[0][0]], [[s00, s10], [s10, s11]]

def det(s):
    return s[0][0] * s[1][1] - s[0][1] * s[1][0]

def inv(s):
    d = det(s)
    return [[s[1][1] / d, -s[0][1] / d], [-s[1][0] / d, s[0][0] / d]]

def quad(v, p):
    return sum(v[i] * p[i][j] * v[j] for i in range(2) for j in range(2))

def log_kernel(a, b):
    (mu, s), (nu, u) = joint(a), joint(b)
    p, q = inv(s), inv(u)
    s_plus = inv([[p[i][j] + q[i][j] for j in range(2)] for i in range(2)])
    m_plus = [sum(p[i][j] * mu[j] + q[i][j] * nu[j] for j in range(2)) for i in range(2)]
    dim = 2
    return ((1 - 2 * rho) * dim / 2 * math.log(2 * math.pi) - dim / 2 * math.log(rho) + 0.5 * math.log(det(s_plus))
            - rho / 2 * math.log(det(s)) - rho / 2 * math.log(det(u))
            - rho / 2 * (quad(mu, p) + quad(nu, q) - quad(m_plus, s_plus)))

expect_kernels(read_gram(gram_path, len(models), len(models)), models, models, log_kernel, normalised, 1e-10)
PY
  pass
}
"$PPK" gram -t ppk -g 1 -d 1 lds.ppk > gram_rho1.txt
check_gram gram_rho1.txt 1 0
"$PPK" gram -t ppk -g 0.5 -d 1 lds.ppk > gram_rho05.txt
check_gram gram_rho05.txt 0.5 0
"$PPK" gram -t ppk_norm -g 2 -d 1 lds.ppk > norm.txt
check_gram norm.txt 2 1
expect_unit_diagonal norm.txt
# The stored length (4) when -d is absent; T = 1000 stays finite in ppk_norm.
"$PPK" gram -t ppk_norm -g 1 lds.ppk > stored.txt
"$PPK" gram -t ppk_norm -g 1 -d 1000 lds.ppk > long.txt
expect_in_unit_interval long.txt "T = 1000"

# Different stored lengths, observation dimensions, or an HMM over real vectors: no kernel.
printf '{"family":"lds","mean0":[0.5],"cov0":[[0.7]],"A":[[0.9]],"Q":[[0.25]],"C":[[1.5]],"R":[[0.3]],"length":2}\n' |
  "$PPK" encode > short.ppk
expect_lengths_need_d lds.ppk short.ppk "linear-Gaussian sequences of 5 real vectors of dimension 1" \
  "linear-Gaussian sequences of 3 real vectors"
printf '{"family":"lds","mean0":[0.5],"cov0":[[0.7]],"A":[[0.9]],"Q":[[0.25]],"C":[[1.5],[1.0]],"R":[[0.3,0],[0,0.3]],"length":4}\n' |
  "$PPK" encode > wide.ppk
expect_error 1 "of dimension 1" "of dimension 2" -- "$PPK" gram -t ppk -g 1 lds.ppk wide.ppk
printf '{"family":"hmm","start":[1],"trans":[[1]],"emissions":[{"family":"gaussian","mean":[0],"var":1}],"length":4}\n' |
  "$PPK" encode > hmm.ppk
expect_error 1 "no kernel between different sample spaces" -- "$PPK" gram -t ppk -g 1 lds.ppk hmm.ppk

# Malformed rows: R = -0.5 (index 20), A[0][1] = nan (index 12, refused by the reader), an indefinite Q; a non-symmetric Q in JSON.
expect_bad_second_row lds.ppk 's/ 20:0.5$/ 20:-0.5/' 'lds field "R" (index 20)' 'positive definite'
head -1 lds.ppk | sed 's/ 12:[0-9.]* / 12:nan /' > nan.ppk
expect_error 1 "nan.ppk:1:" 'index 12' 'finite' -- "$PPK" decode nan.ppk
head -1 lds.ppk | sed 's/ 16:[0-9.]* / 16:5 /' > indefinite.ppk
expect_error 1 "indefinite.ppk: row 1: " 'lds field "Q" (indices 15..17)' 'positive semidefinite' -- "$PPK" decode indefinite.ppk
sed -n 1p lds.jsonl | sed 's/"Q":\[\[0.3,0.1\]/"Q":[[0.3,0.4]/' > asymmetric.jsonl
expect_error 1 'lds field "Q"[0][1]' 'symmetric' -- "$PPK" encode asymmetric.jsonl
finish
