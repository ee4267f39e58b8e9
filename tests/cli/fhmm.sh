# Factorial-HMM rows (fhmm.hpp): ppk encode of JSON FHMMs, the row layout, ppk gram against the exact
# k~ summed here over every pair of hidden paths with the 1-D Gaussian kernel per step (JMLR 2004 eq. 5,
# D = 1): the mean-field values lie below it, and equal it for models whose means do not depend on the
# states; ppk_norm; mismatched T and families; malformed rows; the warning that the values are a bound
# (ppk gram, svm-train, svm-predict), absent for Gaussian rows.
source "$(dirname "$0")/lib.bash" "$@"

# Rows 1-3 have state-dependent means; rows 3 and 4 do not (every chain's means equal across states).
cat > fhmm.jsonl <<'EOF2'
{"family":"fhmm","chains":[{"start":[0.6,0.4],"trans":[[0.9,0.1],[0.2,0.8]],"means":[[1.0],[2.0]]},{"start":[0.5,0.5],"trans":[[0.7,0.3],[0.25,0.75]],"means":[[0.5],[-0.5]]}],"cov":[[0.5]],"length":2,"label":1}
{"family":"fhmm","chains":[{"start":[0.2,0.3,0.5],"trans":[[0.5,0.25,0.25],[0.1,0.8,0.1],[0.3,0.3,0.4]],"means":[[-1.0],[0.0],[1.5]]}],"cov":[[0.8]],"length":2,"label":-1}
{"family":"fhmm","chains":[{"start":[0.5,0.5],"trans":[[0.6,0.4],[0.4,0.6]],"means":[[0.25],[0.25]]},{"start":[1,0],"trans":[[0.5,0.5],[0,1]],"means":[[0.5],[0.5]]}],"cov":[[0.7]],"length":2}
{"family":"fhmm","chains":[{"start":[0.3,0.7],"trans":[[0.2,0.8],[0.9,0.1]],"means":[[-0.5],[-0.5]]}],"cov":[[0.4]],"length":2}
EOF2
# 3 C, 4 d, 5 T, 6..7 M_1 M_2; chain 0: 8..9 start, 10..13 trans, 14..15 means; chain 1: 16..17, 18..21,
# 22..23; 24 Sigma.
expect_encoded fhmm.jsonl fhmm.ppk fhmm "1 1:1 2:15 3:2 4:1 5:2 6:2 7:2 8:0.6 9:0.4 10:0.9 11:0.1 12:0.2 13:0.8 14:1 15:2 16:0.5 17:0.5 18:0.7 19:0.3 20:0.25 21:0.75 22:0.5 23:-0.5 24:0.5"

# check_gram GRAM_FILE RHO NORMALISED: every entry at most the exact k~, equal to it where rows 3 and 4
# meet and below it elsewhere; normalised: a unit diagonal and a symmetric matrix.
check_gram() {
  python3 - "$@" fhmm.jsonl <<'PY' || fail "gram $*: $(cat "$1")"
import itertools, math
from gram_output import check_gram_arguments, read_gram
gram_path, rho, normalised, models = check_gram_arguments()
n = len(models)
gram = read_gram(gram_path, n, n)

def paths(m):
    # Every hidden path of the product chain over x_0..x_T: (probability, the mean at each step).
    steps = m["length"] + 1
    per_chain = []
    for chain in m["chains"]:
        states = range(len(chain["start"]))
        options = []
        for path in itertools.product(states, repeat=steps):
            p = chain["start"][path[0]]
            for t in range(1, steps):
                p *= chain["trans"][path[t - 1]][path[t]]
            options.append((p, [chain["means"][k][0] for k in path]))
        per_chain.append(options)
    for combination in itertools.product(*per_chain):
        p = math.prod(c[0] for c in combination)
        if p > 0:
            yield p, [sum(c[1][t] for c in combination) for t in range(steps)]

def gaussian(m, v, m2, v2):
    s_plus = 1 / (1 / v + 1 / v2)
    m_plus = m / v + m2 / v2
    return ((2 * math.pi) ** ((1 - 2 * rho) / 2) / math.sqrt(rho) * math.sqrt(s_plus) * (v * v2) ** (-rho / 2)
            * math.exp(-rho / 2 * (m * m / v + m2 * m2 / v2 - m_plus * m_plus * s_plus)))

def exact(a, b):
    v, v2 = a["cov"][0][0], b["cov"][0][0]
    return sum((p * q) ** rho * math.prod(gaussian(x, v, y, v2) for x, y in zip(mu, nu))
               for p, mu in paths(a) for q, nu in paths(b))

for i in range(n):
    for j in range(n):
        got = gram[i][j]
        if normalised:
            # A ratio of bounds, not of kernels: only its diagonal (1) and symmetry are known.
            assert got == 1 if i == j else got == gram[j][i], f"K[{i}][{j}] = {got!r}"
            continue
        k = exact(models[i], models[j])
        assert got <= k * (1 + 1e-12), f"K[{i}][{j}] = {got!r} above the exact {k!r}"
        if i >= 2 and j >= 2:
            assert abs(got - k) <= 1e-9 * k, f"K[{i}][{j}] = {got!r}, exact {k!r}"
        else:
            assert got < k * (1 - 1e-6), f"K[{i}][{j}] = {got!r} equals the exact {k!r}: not a mean-field bound?"
PY
  pass
}
for rho in 0.5 1 2; do
  "$PPK" gram -t ppk -g "$rho" fhmm.ppk > "gram_$rho.txt"
  check_gram "gram_$rho.txt" "$rho" 0
done
"$PPK" gram -t ppk_norm -g 1 fhmm.ppk > norm.txt
check_gram norm.txt 1 1
# T = 500 by -d: finite normalised values.
"$PPK" gram -t ppk_norm -g 1 -d 500 fhmm.ppk > long.txt
awk '{ for (i = 1; i <= NF; ++i) if (!($i > 0)) exit 1 }' long.txt || fail "T = 500: $(cat long.txt)"
pass
expect_error 1 "fhmm.ppk: row 1: " "-d 2000000 exceeds" "T = 1000000" -- "$PPK" gram -t ppk -g 1 -d 2000000 fhmm.ppk

# Different stored lengths, or an HMM over real vectors: no kernel.
sed -n 4p fhmm.jsonl | sed 's/"length":2/"length":3/' | "$PPK" encode > longer.ppk
expect_error 1 "factorial-HMM sequences of 3 real vectors of dimension 1" "factorial-HMM sequences of 4 real vectors" -- \
  "$PPK" gram -t ppk -g 1 fhmm.ppk longer.ppk
"$PPK" gram -t ppk -g 1 -d 3 fhmm.ppk longer.ppk > mixed_lengths.txt || fail "-d 3 with lengths 2 and 3"
pass
printf '{"family":"hmm","start":[1],"trans":[[1]],"emissions":[{"family":"gaussian","mean":[0],"var":1}],"length":2}\n' |
  "$PPK" encode > hmm.ppk
expect_error 1 "no kernel between different sample spaces" -- "$PPK" gram -t ppk -g 1 fhmm.ppk hmm.ppk

# Malformed rows: a transition row of chain 1 summing to 1.25 (index 20), Sigma = -0.5 (index 24);
# JSON: start not summing to 1, means of the wrong dimension.
expect_bad_second_row fhmm.ppk 's/ 20:0.25 / 20:0.5 /' \
  'fhmm chains[1] field "trans" (index 20)' 'transition row 1' 'a sum of 1.25'
head -1 fhmm.ppk | sed 's/ 24:0.5$/ 24:-0.5/' > cov.ppk
expect_error 1 "cov.ppk: row 1: " 'fhmm field "cov" (index 24)' 'positive definite' -- "$PPK" decode cov.ppk
sed -n 1p fhmm.jsonl | sed 's/"start":\[0.6,0.4\]/"start":[0.6,0.6]/' > start.jsonl
expect_error 1 'fhmm chains[0] field "start"' 'summing to 1' -- "$PPK" encode start.jsonl
# The kernel is a lower bound, not k: one warning on standard error from ppk gram (per family, not per
# row or entry), from svm-train and from svm-predict (the patched LIBSVM next to ppk, through the
# plugin); none for Gaussian rows.
BIN=$(dirname "$PPK")
warning='fhmm rows: the kernel values are a structured mean-field lower bound on k~ (JMLR 2004 section 6), not k itself; the Gram matrix may not be positive semidefinite'
expect_one_warning() {  # FILE PREFIX: FILE holds exactly the line "PREFIX$warning"
  [[ $(cat "$1") == "$2$warning" ]] || fail "expected the one warning '$2$warning'; stderr was: $(cat "$1")"
  pass
}
"$PPK" gram -t ppk -g 1 fhmm.ppk fhmm.ppk > /dev/null 2> gram_stderr.txt
expect_one_warning gram_stderr.txt "ppk gram: warning: "
"$BIN/svm-train" -q -t ppk_norm -g 1 fhmm.ppk fhmm.model 2> train_stderr.txt
expect_one_warning train_stderr.txt "ppk: warning: "
"$BIN/svm-predict" fhmm.ppk fhmm.model predictions.txt > /dev/null 2> predict_stderr.txt
expect_one_warning predict_stderr.txt "ppk: warning: "
printf '{"family":"gaussian","mean":[0,1],"var":1,"label":1}\n{"family":"gaussian","mean":[1,0],"var":2,"label":-1}\n' |
  "$PPK" encode > gaussians.ppk
"$PPK" gram -t ppk -g 1 gaussians.ppk > /dev/null 2> gaussian_stderr.txt
"$BIN/svm-train" -q -t ppk -g 1 gaussians.ppk gaussians.model 2>> gaussian_stderr.txt
"$BIN/svm-predict" gaussians.ppk gaussians.model predictions.txt > /dev/null 2>> gaussian_stderr.txt
[[ ! -s gaussian_stderr.txt ]] || fail "Gaussian rows gave warnings: $(cat gaussian_stderr.txt)"
pass

sed -n 2p fhmm.jsonl | sed 's/\[\[-1.0\],\[0.0\],\[1.5\]\]/[[-1.0,0],[0.0,0],[1.5,0]]/' > means.jsonl
expect_error 1 'fhmm chains[0] field "means"' 'dimension 1' -- "$PPK" encode means.jsonl
finish
