# Bayesian-network rows (bayesnet.hpp): ppk encode/decode of JSON networks, the row layout, ppk gram
# between networks of different structures and an HMM row (a cross-family pair) against brute-force
# enumeration of every joint configuration of both models, computed here from the JSON; ppk_norm;
# malformed rows and networks over different observed variables.
source "$(dirname "$0")/lib.bash" "$@"

# Observed variables x0, x1, x2, each over 2 categories. A naive-Bayes network (hidden class, node 0);
# a chain x0 -> h -> x1 with x2 <- (x0, h), listed children first; a v-structure (hidden a, b sharing
# the child x1); an HMM over x_0..x_2.
cat > models.jsonl <<'EOF2'
{"label":1,"family":"bayesnet","nodes":[{"states":2,"cpt":[[0.3,0.7]]},{"states":2,"parents":[0],"variable":0,"cpt":[[0.9,0.1],[0.2,0.8]]},{"parents":[0],"variable":1,"emissions":[{"family":"multinomial","p":[0.5,0.5]},{"family":"multinomial","p":[0.1,0.9]}]},{"states":2,"parents":[0],"variable":2,"cpt":[[0.6,0.4],[0.25,0.75]]}]}
{"label":-1,"family":"bayesnet","nodes":[{"parents":[2],"variable":1,"emissions":[{"family":"multinomial","p":[0.2,0.8]},{"family":"multinomial","p":[0.7,0.3]},{"family":"multinomial","p":[0.4,0.6]}]},{"states":2,"variable":0,"cpt":[[0.45,0.55]]},{"states":3,"parents":[1],"cpt":[[0.2,0.5,0.3],[0.6,0.1,0.3]]},{"states":2,"parents":[1,2],"variable":2,"cpt":[[0.9,0.1],[0.5,0.5],[0.2,0.8],[0.3,0.7],[0.65,0.35],[1,0]]}]}
{"label":1,"family":"bayesnet","nodes":[{"states":2,"cpt":[[0.5,0.5]]},{"states":3,"cpt":[[0.2,0.3,0.5]]},{"states":2,"parents":[0,1],"variable":1,"cpt":[[0.1,0.9],[0.3,0.7],[0.5,0.5],[0.6,0.4],[0.05,0.95],[0.25,0.75]]},{"parents":[0],"variable":0,"emissions":[{"family":"multinomial","p":[0.8,0.2]},{"family":"multinomial","p":[0.3,0.7]}]},{"parents":[1],"variable":2,"emissions":[{"family":"multinomial","p":[0.4,0.6]},{"family":"multinomial","p":[0.9,0.1]},{"family":"multinomial","p":[0.5,0.5]}]}]}
{"label":-1,"family":"hmm","start":[0.6,0.4],"trans":[[0.7,0.3],[0.2,0.8]],"emissions":[{"family":"multinomial","p":[0.5,0.5]},{"family":"multinomial","p":[0.15,0.85]}],"length":2}
EOF2
# Row layout: 3: 4 nodes; the headers (states, variable + 1, parent count, parents; zeros omitted):
# node 0 at 4..6 (2, hidden, none), node 1 at 7..10 (2, x0, [0]), node 2 at 11..14 (an emission leaf,
# x1, [0]), node 3 at 15..18 (2, x2, [0]); then node 0's CPT at 19..20, node 1's at 21..24, ...
expect_encoded models.jsonl models.ppk bayesnet "1 1:1 2:10 3:4 4:2 7:2 8:1 9:1 12:2 13:1 15:2 16:3 17:1 19:0.3 20:0.7 21:0.9 *"

# check_gram GRAM_FILE RHO NORMALISED: every entry against
# sum over X of [sum_h p(h, X)^rho] [sum_h' p'(h', X)^rho], every node enumerated.
check_gram() {
  python3 - "$@" models.jsonl <<'PY' || fail "gram $*: $(cat "$1")"
import itertools, math
from gram_output import check_gram_arguments, expect_kernels, read_gram
gram_path, rho, normalised, models = check_gram_arguments()

def nodes_of(m):
    """(values, variable, parents, table) per node; an HMM as s_0..s_T, x_0..x_T."""
    if m["family"] == "hmm":
        T, M = m["length"], len(m["start"])
        emit = [e["p"] for e in m["emissions"]]
        hidden = [(M, None, [t - 1] if t else [], m["trans"] if t else [m["start"]]) for t in range(T + 1)]
        return hidden + [(len(emit[0]), t, [t], emit) for t in range(T + 1)]
    out = []
    for n in m["nodes"]:
        table = n["cpt"] if "states" in n else [e["p"] for e in n["emissions"]]
        out.append((len(table[0]), n.get("variable"), n.get("parents", []), table))
    return out

def hidden_sum(nodes, xs):
    free = [range(v) if var is None else [xs[var]] for v, var, _, _ in nodes]
    total = 0.0
    for x in itertools.product(*free):
        p = 1.0
        for i, (v, var, parents, table) in enumerate(nodes):
            c = 0
            for u in parents:
                c = c * nodes[u][0] + x[u]
            p *= table[c][x[i]]
        total += p ** rho
    return total

def log_kernel(a, b):
    na, nb = nodes_of(a), nodes_of(b)
    k = sum(hidden_sum(na, xs) * hidden_sum(nb, xs) for xs in itertools.product(range(2), repeat=3))
    return math.log(k)

expect_kernels(read_gram(gram_path, len(models), len(models)), models, models, log_kernel, normalised, 1e-10)
PY
  pass
}
"$PPK" gram -t ppk -g 1 models.ppk > gram1.txt
check_gram gram1.txt 1 0
"$PPK" gram -t ppk -g 2 models.ppk > gram2.txt
check_gram gram2.txt 2 0
"$PPK" gram -t ppk_norm -g 0.5 models.ppk > norm.txt
check_gram norm.txt 0.5 1
expect_unit_diagonal norm.txt

# Networks over different observed variables have no kernel: x1 with 3 categories.
printf '%s\n' '{"family":"bayesnet","nodes":[{"states":2,"variable":0,"cpt":[[0.5,0.5]]},{"states":3,"variable":1,"cpt":[[0.2,0.3,0.5]]},{"states":2,"variable":2,"cpt":[[0.5,0.5]]}]}' |
  "$PPK" encode > other.ppk
expect_error 1 "bayesnet over sequences of 3 categories of dimension 2" \
  "bayesnet over tuples of (categories of dimension 2, categories of dimension 3, categories of dimension 2)" -- \
  "$PPK" gram -t ppk -g 1 models.ppk other.ppk

# Malformed rows: node 1's CPT row 1 (indices 23..24 of the first row) summing to 0.9; a cycle.
expect_bad_second_row models.ppk 's/ 24:0.8[0-9]* / 24:0.7 /' \
  'bayesnet nodes[1] field "cpt" (indices 23..24)' 'P(node 1 | node 0 = 1)' 'summing to 1'
printf '1 1:1 2:10 3:2 4:2 6:1 7:1 8:2 9:1 10:1\n' > cycle.ppk
expect_error 1 "cycle.ppk: row 1: " 'bayesnet nodes[0] field "parents" (indices 6..7)' \
  'node 0 -> node 1 -> node 0' -- "$PPK" decode cycle.ppk

# ppk fit bayesnet (fully observed; hidden nodes: fit_bayesnet_em.sh): x1 (node 0, 3 states) with parent x0 (node 1, 2 states); two examples of joint
# observations (x0, x1), values from 1. Example 1: (1, 3) (2, 1) (1, 3) (1, 2); example 2: (2, 2).
printf '%s\n' '{"nodes":[{"states":3,"parents":[1],"variable":1},{"states":2,"variable":0}]}' > structure.json
printf '1 qid:1 1:1 2:3\n1 qid:1 1:2 2:1\n1 qid:1 1:1 2:3\n1 qid:1 1:1 2:2\n-1 qid:2 1:2 2:2\n' > joint.txt
"$PPK" fit bayesnet --structure structure.json joint.txt -o fitted.ppk
"$PPK" decode fitted.ppk > fitted.jsonl
# Posterior, alpha = 1: (n(c, k) + 1) / (n(c) + K), counted here by hand.
python3 - fitted.jsonl <<'PY' || fail "fitted CPTs: $(cat fitted.jsonl)"
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
expected = [([[1/6, 2/6, 3/6], [2/4, 1/4, 1/4]], [[4/6, 2/6]], 1), ([[1/3, 1/3, 1/3], [1/4, 2/4, 1/4]], [[1/3, 2/3]], -1)]
assert len(rows) == 2
for row, (x1, x0, label) in zip(rows, expected):
    assert row["label"] == label and row["family"] == "bayesnet"
    got = [row["nodes"][0]["cpt"], row["nodes"][1]["cpt"]]
    for g, e in zip(got, [x1, x0]):
        assert all(abs(a - b) < 1e-15 for ga, ea in zip(g, e) for a, b in zip(ga, ea)), (g, e)
PY
pass
"$PPK" gram -t ppk_norm -g 1 fitted.ppk > fitted_gram.txt || fail "gram of fitted networks"
pass
printf '1 1:1 2:4\n' > out_of_range.txt
expect_error 1 "out_of_range.txt" "observed variable 1 (node 0) takes the values 1..3" -- \
  "$PPK" fit bayesnet --structure structure.json out_of_range.txt
expect_error 2 "--structure" -- "$PPK" fit bayesnet joint.txt

# Two networks that each pass their checks but have no kernel value together: chains over the 64
# variables of an 8 x 8 grid (10 states each), one in row order and one in column order. Each with
# itself is a chain, but together they hold the grid, too wide for exact elimination (a table of 10^8
# entries). Only evaluating the pair finds it (svm-train's check of the training rows samples their
# pairs): ppk gram, svm-train and svm-predict stop with exit status 1 and the message, not a signal,
# and svm-train writes no model.
python3 - <<'PY'
import json
k, K = 8, 10
def chain(order, label, stay):
    nodes = [{"states": K, "variable": order[0], "cpt": [[1 / K] * K]}]
    for i in range(1, len(order)):
        nodes.append({"states": K, "variable": order[i], "parents": [i - 1],
                      "cpt": [[stay if s == t else (1 - stay) / (K - 1) for s in range(K)] for t in range(K)]})
    return json.dumps({"label": label, "family": "bayesnet", "nodes": nodes})
by_rows = [r * k + c for r in range(k) for c in range(k)]
by_columns = [r * k + c for c in range(k) for r in range(k)]
with open("grid_pair.jsonl", "w") as out:
    out.write(chain(by_rows, 1, 0.5) + "\n" + chain(by_columns, -1, 0.5) + "\n")
with open("grid_rows.jsonl", "w") as out:
    out.write(chain(by_rows, 1, 0.5) + "\n" + chain(by_rows, -1, 0.2) + "\n")
PY
"$PPK" encode grid_pair.jsonl -o grid_pair.ppk
"$PPK" encode grid_rows.jsonl -o grid_rows.ppk
svm_train=$(dirname "$PPK")/svm-train svm_predict=$(dirname "$PPK")/svm-predict
no_kernel="bayesnet kernel on the fused networks: exact elimination needs a table of 1e+08 entries"
expect_error 1 "$no_kernel" "too densely connected for exact inference" -- "$PPK" gram -t ppk -g 1 grid_pair.ppk
expect_error 1 "ppk: error: two rows that each passed their checks have no kernel value: $no_kernel" -- \
  "$svm_train" -q -t ppk grid_pair.ppk grid.model
[[ ! -e grid.model ]] || fail "svm-train wrote a model of rows without a kernel value"
"$svm_train" -q -t ppk grid_rows.ppk grid.model || fail "svm-train on two chains in one order"
sed -n 2p grid_pair.ppk > column_chain.ppk
expect_error 1 "ppk: error: two rows that each passed their checks have no kernel value: $no_kernel" -- \
  "$svm_predict" column_chain.ppk grid.model grid.predictions
finish
