# HMM rows (hmm.hpp): ppk encode of JSON HMMs, ppk gram at rho = 1 against the co-emission probability
# sum_X p(X) p'(X) (JMLR 2004 section 4.2: k~ at rho = 1), computed here by brute force over every
# observation sequence X = x_0..x_T and every hidden path; -d; ppk_norm; malformed rows.
source "$(dirname "$0")/lib.bash" "$@"

cat > hmm.jsonl <<'EOF2'
{"family":"hmm","start":[0.6,0.4],"trans":[[0.7,0.3],[0.2,0.8]],"emissions":[{"family":"multinomial","p":[0.5,0.3,0.2]},{"family":"multinomial","p":[0.1,0.1,0.8]}],"length":4,"label":1}
{"family":"hmm","start":[0.2,0.5,0.3],"trans":[[0.1,0.6,0.3],[0.4,0.4,0.2],[0.25,0.25,0.5]],"emissions":[{"family":"multinomial","p":[0.3,0.3,0.4]},{"family":"multinomial","p":[0.9,0.05,0.05]},{"family":"multinomial","p":[0.25,0.625,0.125]}],"length":4,"label":-1}
{"family":"hmm","start":[1],"trans":[[1]],"emissions":[{"family":"multinomial","p":[0.25,0.25,0.5]}],"length":4}
EOF2
expect_encoded hmm.jsonl hmm.ppk hmm "1 1:1 2:9 3:2 4:4 5:0.6 6:0.4 *"

# check_gram GRAM_FILE T RHO NORMALISED: every entry against sum_X sum_{s, s'} [p(s, X) p'(s', X)]^rho,
# by enumeration, to 1e-10 relative.
check_gram() {
  python3 - "$@" hmm.jsonl <<'PY' || fail "gram $*: $(cat "$1")"
import itertools, json, math, sys
from gram_output import expect_kernels, read_gram
gram_path, steps, rho, normalised, models_path = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4] == "1", sys.argv[5]
models = [json.loads(line) for line in open(models_path)]

def joint(m, path, xs):
    p = m["start"][path[0]]
    for t in range(1, len(path)):
        p *= m["trans"][path[t - 1]][path[t]]
    for s, x in zip(path, xs):
        p *= m["emissions"][s]["p"][x]
    return p

def kernel(a, b):
    symbols = len(a["emissions"][0]["p"])
    total = 0.0
    for xs in itertools.product(range(symbols), repeat=steps + 1):
        pa = sum(joint(a, s, xs) ** rho for s in itertools.product(range(len(a["start"])), repeat=steps + 1))
        pb = sum(joint(b, s, xs) ** rho for s in itertools.product(range(len(b["start"])), repeat=steps + 1))
        total += pa * pb
    return total

expect_kernels(read_gram(gram_path, len(models), len(models)), models, models,
               lambda p, q: math.log(kernel(p, q)), normalised, 1e-10)
PY
  pass
}
# -d 2 overrides the stored length 4: sequences x_0..x_2. At rho = 1: the co-emission probability.
"$PPK" gram -t ppk -g 1 -d 2 hmm.ppk > gram_d2.txt
check_gram gram_d2.txt 2 1 0
# The stored length (4) when -d is absent; the normalised kernel has a unit diagonal.
"$PPK" gram -t ppk_norm -g 0.5 hmm.ppk > norm.txt
check_gram norm.txt 4 0.5 1
expect_unit_diagonal norm.txt

# Different stored lengths have no kernel unless -d sets T.
printf '{"family":"hmm","start":[1],"trans":[[1]],"emissions":[{"family":"multinomial","p":[0.5,0.5,0]}],"length":2}\n' |
  "$PPK" encode > short.ppk
expect_lengths_need_d hmm.ppk short.ppk "sequences of 5 categories of dimension 3" \
  "sequences of 3 categories of dimension 3"

# Malformed rows: a transition row summing to 0.9 (index 8 of row 2), an HMM with 0 states.
expect_bad_second_row hmm.ppk 's/ 8:0.3 / 8:0.2 /' 'hmm field "trans" (index 7)' 'transition row 0' 'summing to 1'
printf '1 1:1 2:9 4:3\n' > no_states.ppk
expect_error 1 "no_states.ppk: row 1: " 'hmm field "states" (index 3)' 'got 0' -- "$PPK" decode no_states.ppk
finish
