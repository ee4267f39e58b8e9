# Linear Gaussian DAG rows (linear_gaussian.hpp): ppk encode of JSON DAGs, the row layout, ppk gram
# (DAG against DAG and against a gaussian row) against JMLR 2004 eq. 5 in its original form
# (P = S^-1, S+ = (P + P')^-1, m+ = P m + P' m') on the observed block of the joint of all nodes, built
# here in Python as x = (I - B)^-1 (b + e); ppk_norm; other dimensions and families; malformed rows
# and JSON.
source "$(dirname "$0")/lib.bash" "$@"

# A hidden node 0 feeding observed nodes 1 and 2; a hidden root feeding two observed children (a
# deterministic hidden node in between); a fully observed chain of two; a gaussian row over R^2.
cat > dags.jsonl <<'EOF2'
{"family":"linear_gaussian","nodes":[{"dim":2,"offset":[1,-2],"cov":[[1,0.5],[0.5,2]]},{"dim":1,"parents":[0],"weights":[[0.5,3]],"offset":[0.25],"cov":[[0.75]],"observed":true},{"dim":1,"parents":[1,0],"weights":[[2,-1,4]],"offset":[-3],"cov":[[1.5]],"observed":true}],"label":1}
{"family":"linear_gaussian","nodes":[{"dim":1,"offset":[0.5],"cov":[[2]]},{"dim":2,"parents":[0],"weights":[[1],[-1]],"offset":[0,1],"cov":[[0,0],[0,0]]},{"dim":1,"parents":[1],"weights":[[0.5,0.25]],"offset":[1],"cov":[[0.3]],"observed":true},{"dim":1,"parents":[0,1],"weights":[[-1,0.5,0.5]],"offset":[-1],"cov":[[0.6]],"observed":true}],"label":-1}
{"family":"linear_gaussian","nodes":[{"dim":1,"offset":[2],"cov":[[1]],"observed":true},{"dim":1,"parents":[0],"weights":[[0.8]],"offset":[0],"cov":[[0.5]],"observed":true}],"label":1}
{"family":"gaussian","mean":[0.5,-1],"cov":[[2,0.3],[0.3,1]],"label":-1}
EOF2
# 3 N; node 0: 4 dim, 5 observed, 6 P, 7..8 offset, 9..11 cov; node 1: 12 dim, 13 observed, 14 P,
# 15 parent, 16 offset, 17 cov, 18..19 weights; node 2: 20 dim, 21 observed, 22 P, 23..24 parents,
# 25 offset, 26 cov, 27..29 weights. Zeros (hidden, no parents, parent 0) are omitted.
expect_encoded dags.jsonl dags.ppk linear_gaussian "1 1:1 2:12 3:3 4:2 7:1 8:-2 9:1 10:0.5 11:2 12:1 13:1 14:1 16:0.25 17:0.75 18:0.5 19:3 20:1 21:1 22:2 23:1 25:-3 26:1.5 27:2 28:-1 29:4"

# check_gram GRAM_FILE RHO NORMALISED: every entry against eq. 5, to 1e-10 relative.
check_gram() {
  python3 - "$@" dags.jsonl <<'PY' || fail "gram $*: $(cat "$1")"
import math
from gram_output import check_gram_arguments, expect_kernels, read_gram
from small_matrices import inverse_and_det, mul, t
gram_path, rho, normalised, models = check_gram_arguments()

def joint(model):
    # The observed block of N((I - B)^-1 b, (I - B)^-1 blockdiag(S_v) (I - B)^-T).
    if model["family"] == "gaussian":
        return model["mean"], model["cov"]
    nodes = model["nodes"]
    first = [0]
    for node in nodes:
        first.append(first[-1] + node["dim"])
    total = first[-1]
    i_minus_b = [[1.0 if i == j else 0.0 for j in range(total)] for i in range(total)]
    noise = [[0.0] * total for _ in range(total)]
    offsets = [[0.0] for _ in range(total)]
    observed = []
    for v, node in enumerate(nodes):
        column = 0
        for u in node.get("parents", []):
            for r in range(node["dim"]):
                for c in range(nodes[u]["dim"]):
                    i_minus_b[first[v] + r][first[u] + c] -= node["weights"][r][column + c]
            column += nodes[u]["dim"]
        for r in range(node["dim"]):
            offsets[first[v] + r][0] = node["offset"][r]
            for c in range(node["dim"]):
                noise[first[v] + r][first[v] + c] = node["cov"][r][c]
        if node.get("observed", False):
            observed += range(first[v], first[v + 1])
    inverse, _ = inverse_and_det(i_minus_b)
    mean = mul(inverse, offsets)
    cov = mul(mul(inverse, noise), t(inverse))
    return [mean[i][0] for i in observed], [[cov[i][j] for j in observed] for i in observed]

def log_kernel(a, b):
    (mu, s), (nu, u) = joint(a), joint(b)
    dim = len(mu)
    p, det_s = inverse_and_det(s)
    q, det_u = inverse_and_det(u)
    s_plus, det_p_plus_q = inverse_and_det([[p[i][j] + q[i][j] for j in range(dim)] for i in range(dim)])
    m_plus = [sum(p[i][j] * mu[j] + q[i][j] * nu[j] for j in range(dim)) for i in range(dim)]
    quad = lambda v, w: sum(v[i] * w[i][j] * v[j] for i in range(dim) for j in range(dim))
    return ((1 - 2 * rho) * dim / 2 * math.log(2 * math.pi) - dim / 2 * math.log(rho) - 0.5 * math.log(det_p_plus_q)
            - rho / 2 * math.log(det_s) - rho / 2 * math.log(det_u)
            - rho / 2 * (quad(mu, p) + quad(nu, q) - quad(m_plus, s_plus)))

expect_kernels(read_gram(gram_path, len(models), len(models)), models, models, log_kernel, normalised, 1e-10)
PY
  pass
}
"$PPK" gram -t ppk -g 1 dags.ppk > gram_rho1.txt
check_gram gram_rho1.txt 1 0
"$PPK" gram -t ppk -g 0.5 dags.ppk > gram_rho05.txt
check_gram gram_rho05.txt 0.5 0
"$PPK" gram -t ppk_norm -g 2 dags.ppk > norm.txt
check_gram norm.txt 2 1
expect_unit_diagonal norm.txt

# Another observed dimension, or an LDS over x_0, x_1 (dimension 1 each): no kernel.
printf '{"family":"linear_gaussian","nodes":[{"dim":2,"offset":[0,0],"cov":[[1,0],[0,1]]},{"dim":1,"parents":[0],"weights":[[1,1]],"offset":[0],"cov":[[1]],"observed":true}]}\n' |
  "$PPK" encode > narrow.ppk
expect_error 1 "real vectors of dimension 2" "real vectors of dimension 1" -- "$PPK" gram -t ppk -g 1 dags.ppk narrow.ppk
printf '{"family":"lds","mean0":[0.5],"cov0":[[0.7]],"A":[[0.9]],"Q":[[0.25]],"C":[[1.5]],"R":[[0.3]],"length":1}\n' |
  "$PPK" encode > lds.ppk
expect_error 1 "no kernel between different sample spaces" -- "$PPK" gram -t ppk -g 1 dags.ppk lds.ppk

# Malformed rows: an indefinite cov of node 0 (index 11), a parent index that is not before its node
# (index 23), an observed node that repeats another (a singular marginal); malformed JSON.
expect_bad_second_row dags.ppk 's/ 11:2 / 11:-1 /' \
  'linear_gaussian nodes[0] field "cov" (indices 9..11)' 'positive semidefinite'
head -1 dags.ppk | sed 's/ 23:1 / 23:2 /' > later.ppk
expect_error 1 "later.ppk: row 1: " 'linear_gaussian nodes[2] field "parents" (index 23)' '[0, 1]' -- "$PPK" decode later.ppk
head -1 dags.ppk | sed 's/ 26:1.5 27:2 28:-1 29:4$/ 27:2/' > singular.ppk
expect_error 1 "singular.ppk: row 1: " 'linear_gaussian nodes[2] field "cov" (index 26)' 'singular' -- "$PPK" decode singular.ppk
sed -n 1p dags.jsonl | sed 's/"parents":\[1,0\]/"parents":[1,1]/' > repeated.jsonl
expect_error 1 'linear_gaussian nodes[2] field "parents"[1]' 'distinct parents' -- "$PPK" encode repeated.jsonl
sed -n 1p dags.jsonl | sed 's/"observed":true//g; s/,}/}/g' > hidden.jsonl
expect_error 1 'linear_gaussian field "nodes"' 'at least one observed node' -- "$PPK" encode hidden.jsonl
finish
