# SLDS rows (slds.hpp): ppk encode of JSON SLDSs, the row layout; with one discrete state, or with all
# discrete states sharing one dynamics (then every drawn path gives the same LDS), ppk gram equals the
# gram of the equivalent LDS rows (lds.sh checks those against JMLR 2004 eq. 5); the same entries
# with the rows in another order; ppk_norm; mismatched T and families; malformed rows.
source "$(dirname "$0")/lib.bash" "$@"

cat > slds.jsonl <<'EOF2'
{"family":"slds","start":[1],"trans":[[1]],"A":[[[0.5,0.1],[0.2,0.8]]],"Q":[[[0.3,0.1],[0.1,0.2]]],"mean0":[1.0,-2.0],"cov0":[[1.0,0.5],[0.5,2.0]],"C":[[1.0,2.0]],"R":[[0.5]],"length":4,"paths":3,"label":1}
{"family":"slds","start":[0.3,0.7],"trans":[[0.6,0.4],[0.1,0.9]],"A":[[[0.9]],[[0.9]]],"Q":[[[0.25]],[[0.25]]],"mean0":[0.5],"cov0":[[0.7]],"C":[[1.5]],"R":[[0.3]],"length":4,"paths":5,"label":-1}
{"family":"slds","start":[0.5,0.25,0.25],"trans":[[0.5,0.25,0.25],[0.2,0.6,0.2],[0.1,0.1,0.8]],"A":[[[0.0,1.0],[-0.5,0.0]],[[0.0,1.0],[-0.5,0.0]],[[0.0,1.0],[-0.5,0.0]]],"Q":[[[1.0,0.0],[0.0,0.0]],[[1.0,0.0],[0.0,0.0]],[[1.0,0.0],[0.0,0.0]]],"mean0":[0.0,1.0],"cov0":[[0.0,0.0],[0.0,0.0]],"C":[[0.5,-1.0]],"R":[[1.0]],"length":4,"paths":10}
EOF2
lds_models lds.jsonl
"$PPK" encode lds.jsonl -o lds.ppk
# 3 K, 4 n, 5 d, 6 T, 7 S, 8 start, 9 trans, 10..13 A, 14..16 Q, 17..18 mean0, 19..21 cov0, 22..23 C, 24 R.
expect_encoded slds.jsonl slds.ppk slds "1 1:1 2:13 3:1 4:2 5:1 6:4 7:3 8:1 9:1 10:0.5 11:0.1 12:0.2 13:0.8 14:0.3 15:0.1 16:0.2 17:1 18:-2 19:1 20:0.5 21:2 22:1 23:2 24:0.5"

# check_equal SLDS_GRAM LDS_GRAM: every entry the same to 1e-12 relative.
check_equal() {
  python3 - "$1" "$2" <<'PY' || fail "gram $1 against $2: $(cat "$1") / $(cat "$2")"
import sys
from gram_output import read_gram
slds, lds = read_gram(sys.argv[1], 3, 3), read_gram(sys.argv[2], 3, 3)
for i in range(3):
    for j in range(3):
        assert abs(slds[i][j] - lds[i][j]) <= 1e-12 * abs(lds[i][j]), f"K[{i}][{j}] = {slds[i][j]!r}, expected {lds[i][j]!r}"
PY
  pass
}
for rho in 0.5 1 2; do
  "$PPK" gram -t ppk -g $rho -d 6 slds.ppk > slds_gram.txt
  "$PPK" gram -t ppk -g $rho -d 6 lds.ppk > lds_gram.txt
  check_equal slds_gram.txt lds_gram.txt
done
"$PPK" gram -t ppk_norm -g 1 slds.ppk > slds_norm.txt
"$PPK" gram -t ppk_norm -g 1 lds.ppk > lds_norm.txt
check_equal slds_norm.txt lds_norm.txt
expect_unit_diagonal slds_norm.txt

# Switching dynamics: the same Gram entries whatever the order of the rows (each row draws its own paths,
# from a seed that depends on the row alone).
cat > switching.jsonl <<'EOF2'
{"family":"slds","start":[0.5,0.5],"trans":[[0.8,0.2],[0.3,0.7]],"A":[[[0.9]],[[-0.5]]],"Q":[[[0.1]],[[1.0]]],"mean0":[0.0],"cov0":[[1.0]],"C":[[1.0]],"R":[[0.2]],"length":20,"paths":10}
{"family":"slds","start":[0.2,0.8],"trans":[[0.5,0.5],[0.5,0.5]],"A":[[[0.2]],[[0.7]]],"Q":[[[0.5]],[[0.3]]],"mean0":[1.0],"cov0":[[0.5]],"C":[[2.0]],"R":[[0.4]],"length":20,"paths":4}
{"family":"slds","start":[1,0,0],"trans":[[0,1,0],[0,0,1],[1,0,0]],"A":[[[0.5]],[[0.6]],[[0.7]]],"Q":[[[0.2]],[[0.2]],[[0.2]]],"mean0":[-1.0],"cov0":[[0.3]],"C":[[1.0]],"R":[[0.5]],"length":20,"paths":2}
EOF2
"$PPK" encode switching.jsonl -o switching.ppk
tac switching.ppk > reversed.ppk
"$PPK" gram -t ppk_norm -g 0.5 switching.ppk > forward.txt
"$PPK" gram -t ppk_norm -g 0.5 reversed.ppk > backward.txt
python3 - forward.txt backward.txt <<'PY' || fail "reordered rows: $(cat forward.txt) / $(cat backward.txt)"
import sys
from gram_output import read_gram
forward, backward = read_gram(sys.argv[1], 3, 3), read_gram(sys.argv[2], 3, 3)
for i in range(3):
    for j in range(3):
        # k(a, b) and k(b, a) stack the two state chains in the other order: equal up to rounding.
        assert abs(forward[i][j] - backward[2 - i][2 - j]) <= 1e-12 * forward[i][j], (i, j)
PY
expect_in_unit_interval forward.txt "switching gram"

# Different lengths, or an LDS row: no kernel.
printf '{"family":"slds","start":[1],"trans":[[1]],"A":[[[0.9]]],"Q":[[[0.25]]],"mean0":[0.5],"cov0":[[0.7]],"C":[[1.5]],"R":[[0.3]],"length":2,"paths":1}\n' |
  "$PPK" encode > short.ppk
expect_error 1 "switching linear-Gaussian sequences of 5 real vectors" "switching linear-Gaussian sequences of 3 real vectors" -- \
  "$PPK" gram -t ppk -g 1 slds.ppk short.ppk
expect_error 1 "no kernel between different sample spaces" -- "$PPK" gram -t ppk -g 1 slds.ppk lds.ppk

# Malformed rows: a transition row summing to 1.1 (index 11 of row 2), no paths (index 7), an indefinite
# Q_0; a non-stochastic start and a missing Q matrix in JSON.
expect_bad_second_row switching.ppk 's/ 11:0.2 / 11:0.3 /' \
  'slds field "trans" (index 10)' 'transition row 0' 'summing to 1'
head -1 switching.ppk | sed 's/ 7:10 / 7:0 /' > nopaths.ppk
expect_error 1 "nopaths.ppk" 'slds field "paths"' '[1, 1000]' -- "$PPK" decode nopaths.ppk
head -1 switching.ppk | sed 's/ 16:0.1 / 16:-0.1 /' > indefinite.ppk
expect_error 1 "indefinite.ppk: row 1: " 'slds field "Q" (index 16)' 'positive semidefinite' -- "$PPK" decode indefinite.ppk
sed -n 2p switching.jsonl | sed 's/"start":\[0.2,0.8\]/"start":[0.2,0.7]/' > start.jsonl
expect_error 1 'slds field "start"' 'summing to 1' -- "$PPK" encode start.jsonl
sed -n 2p switching.jsonl | sed 's/"Q":\[\[\[0.5\]\],\[\[0.3\]\]\]/"Q":[[[0.5]]]/' > oneq.jsonl
expect_error 1 'slds field "Q"' '2 matrices (one per discrete state)' -- "$PPK" encode oneq.jsonl
finish
