# Markov-chain rows (markov.hpp): ppk encode of JSON chains, ppk gram against sum over every sequence
# x_0..x_T of p(x)^rho q(x)^rho, with p(x) written out here from the smoothing formula of the header
# (homogeneous and aligned chains, orders 0..2, a dense base, -d T); ppk_norm; the messages of
# mismatched lengths and of malformed rows.
source "$(dirname "$0")/lib.bash" "$@"

cat > chains.jsonl <<'EOF2'
{"label":1,"family":"markov","alphabet":3,"order":1,"length":4,"strength":1,"counts":{"index":[0,4,5,9,10],"n":[1,2,1,1,3]}}
{"label":-1,"family":"markov","alphabet":3,"order":2,"length":4,"strength":0.5,"base":[0.2,0.3,0.5,0.1,0.1,0.8,0.3,0.3,0.4,0.6,0.2,0.2,0.25,0.25,0.5,0.2,0.3,0.5,0.1,0.1,0.8,0.3,0.3,0.4,0.6,0.2,0.2,0.25,0.25,0.5,0.2,0.3,0.5,0.1,0.1,0.8,0.3,0.3,0.4],"counts":{"index":[2,3,13,30,38],"n":[1,1,2,1,1]}}
{"label":1,"family":"markov","alphabet":3,"order":0,"length":4,"strength":0,"counts":{"index":[0,1,2],"n":[1,3,1]}}
{"label":-1,"family":"markov","alphabet":3,"order":1,"positions":5,"length":4,"strength":2,"counts":{"index":[1,3,7,12,20,30],"n":[1,1,2,1,1,4]}}
EOF2
expect_encoded chains.jsonl chains.ppk markov "1 1:1 2:18 3:3 4:1 6:4 7:1 9:1 13:2 14:1 18:1 19:3"

# check_gram GRAM_FILE T RHO NORMALISED JSONL: every entry against the enumeration over the chains of
# JSONL, to 1e-12 relative.
check_gram() {
  python3 - "$@" <<'PY' || fail "gram $*: $(cat "$1")"
import itertools, json, math, sys
from gram_output import expect_kernels, read_gram
gram_path, steps, rho, normalised, models_path = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4] == "1", sys.argv[5]
models = [json.loads(line) for line in open(models_path)]

def probability(m, xs):
    a, k, aligned = m["alphabet"], m["order"], m.get("positions", 0) > 0
    counts = dict(zip(m.get("counts", {}).get("index", []), m.get("counts", {}).get("n", [])))
    depth = lambda s: min(s, k)
    offset = lambda slot: sum(a ** (depth(s) + 1) for s in range(slot))
    p = 1.0
    for t, x in enumerate(xs):
        slot = t if aligned else min(t, k)
        context = sum(xs[t - j] * a ** (j - 1) for j in range(1, depth(slot) + 1))  # x_{t-1} least significant
        first = offset(slot) + context * a
        total = sum(counts.get(first + y, 0.0) for y in range(a))
        b = m["base"][first + x] if "base" in m else 1.0 / a
        p *= (counts.get(first + x, 0.0) + m["strength"] * b) / (total + m["strength"]) if total + m["strength"] > 0 else b
    return p

def kernel(p, q):
    return sum((probability(p, xs) * probability(q, xs)) ** rho
               for xs in itertools.product(range(p["alphabet"]), repeat=steps + 1))

expect_kernels(read_gram(gram_path, len(models), len(models)), models, models,
               lambda p, q: math.log(kernel(p, q)), normalised, 1e-12)
PY
  pass
}
# The stored length 4 (x_0..x_4, as the aligned chain's 5 positions); at rho = 1/2 and 1.7.
"$PPK" gram -t ppk -g 0.5 chains.ppk > gram.txt
check_gram gram.txt 4 0.5 0 chains.jsonl
"$PPK" gram -t ppk_norm -g 1.7 chains.ppk > norm.txt
check_gram norm.txt 4 1.7 1 chains.jsonl
expect_unit_diagonal norm.txt
# -d 2: the homogeneous chains over x_0..x_2; the aligned chain keeps its 5 positions.
head -3 chains.jsonl > homogeneous.jsonl
"$PPK" encode homogeneous.jsonl -o homogeneous.ppk
"$PPK" gram -t ppk -g 1 -d 2 homogeneous.ppk > gram_d2.txt
check_gram gram_d2.txt 2 1 0 homogeneous.jsonl
expect_error 1 "sequences of 3 categories of dimension 3" "sequences of 5 categories of dimension 3" \
  "no kernel between different sample spaces" -- "$PPK" gram -t ppk -g 1 -d 2 homogeneous.ppk chains.ppk

# Stored lengths 4 and 6: no kernel without -d, and the message suggests it.
printf '{"family":"markov","alphabet":3,"order":1,"length":6,"strength":1}\n' | "$PPK" encode > long.ppk
expect_error 1 "different lengths T = 4 and 6" "-d 4" -- "$PPK" gram -t ppk -g 1 homogeneous.ppk long.ppk
"$PPK" gram -t ppk -g 1 -d 4 homogeneous.ppk long.ppk > mixed.txt || fail "-d 4 with lengths 4 and 6"
pass

# Malformed rows: a count at an index beyond the table, a negative strength, an aligned length that is
# not L - 1, a base context that does not sum to 1.
printf '1 1:1 2:18 3:3 4:1 6:4 7:1 9:1 22:1\n' > beyond.ppk
expect_error 1 "beyond.ppk: row 1: " "22" -- "$PPK" decode beyond.ppk
printf '1 1:1 2:18 3:3 4:1 6:4 7:-1\n' > strength.ppk
expect_error 1 "strength.ppk: row 1: " 'markov field "strength" (index 7)' "got -1" -- "$PPK" decode strength.ppk
printf '1 1:1 2:18 3:3 4:1 5:5 6:3 7:1\n' > aligned.ppk
expect_error 1 "aligned.ppk: row 1: " 'markov field "length" (index 6)' "L - 1 = 4" -- "$PPK" decode aligned.ppk
printf '1 1:1 2:18 3:2 6:4 7:1 8:1 9:0.5 10:0.4\n' > base.ppk
expect_error 1 "base.ppk: row 1: " 'markov field "base" (indices 9..10)' "summing to 1" -- "$PPK" decode base.ppk
finish
