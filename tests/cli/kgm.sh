# ppk kgm: kernel graphical models from joint samples. With delta kernels and a tiny lambda the
# chain and tree tables equal counting estimates computed here by python from the same file; query
# files give the same numbers; RBF queries run; errors name the file, line and field.
source "$(dirname "$0")/lib.bash" "$@"

# 400 joint samples of a discrete chain A -> B -> C (3, 3, 2 states) at indices 1, 2, 3; index 4
# holds an unused real number. Every feature is written, zeros included.
python3 - <<'PY'
import random
random.seed(7)
pa = [0.5, 0.3, 0.2]
pb = [[0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.1, 0.2, 0.7]]
pc = [[0.9, 0.1], [0.4, 0.6], [0.2, 0.8]]
draw = lambda p: random.choices(range(len(p)), weights=p)[0]
with open("samples.txt", "w") as out:
    for _ in range(400):
        a = draw(pa); b = draw(pb[a]); c = draw(pc[b])
        out.write(f"0 1:{a} 2:{b} 3:{c} 4:{random.gauss(0, 1):.6f}\n")
PY

# The counting estimates: chain sum_b P^(a,b) P^(c|b); tree A <- B -> C the same sum
# sum_b n_ab n_bc / (N n_b) (A <- B -> C and A -> B -> C have the same counting estimate).
python3 - <<'PY' > counts.txt
from collections import Counter
rows = [[int(f.split(":")[1]) for f in line.split()[1:4]] for line in open("samples.txt")]
n = len(rows)
nab = Counter((a, b) for a, b, c in rows); nbc = Counter((b, c) for a, b, c in rows); nb = Counter(b for a, b, c in rows)
for a in sorted({r[0] for r in rows}):
    for c in sorted({r[2] for r in rows}):
        print(a, c, sum(nab[a, b] * nbc[b, c] / (n * nb[b]) for b in nb))
PY

compare_tables() {  # compare_tables GOT EXPECTED: same (a, c) keys, values within 1e-7
  python3 - "$1" "$2" <<'PY' || fail "$1 differs from $2: $(paste "$1" "$2")"
import sys
got = [line.split() for line in open(sys.argv[1])]
want = [line.split() for line in open(sys.argv[2])]
assert len(got) == len(want), (len(got), len(want))
for g, w in zip(got, want):
    assert g[:2] == w[:2], (g, w)
    assert abs(float(g[2]) - float(w[2])) <= 1e-7, (g, w)
PY
  pass
}

"$PPK" kgm --var A=1 --var B=2 --var C=3 --path A,B,C --lambda 1e-10 samples.txt --table -o chain.txt
compare_tables chain.txt counts.txt
"$PPK" kgm --var A=1 --var B=2 --var C=3 --tree 'B>A,B>C' --ends A,C --lambda 1e-10 --table samples.txt > tree.txt
compare_tables tree.txt counts.txt

# A query file (label ignored; A at index 1, C at index 3) gives the table's numbers.
printf '1 1:2 3:1\n0 3:1\n5 1:1\n' > queries.txt
"$PPK" kgm --var A=1 --var B=2 --var C=3 --path A,B,C --lambda 1e-10 samples.txt queries.txt > answers.txt
[[ $(wc -l < answers.txt) == 3 ]] || fail "expected one estimate per query: $(cat answers.txt)"
pass
mapfile -t answers < answers.txt
for i in 0 1 2; do
  key=$(sed -n "$((i + 1))p" <<< $'2 1\n0 1\n1 0')
  expect_close "${answers[$i]}" "$(awk -v k="$key" '$1 " " $2 == k {print $3}' counts.txt)" 1e-7
done

# RBF kernels on the real index 4 against A: runs, one finite estimate per query line.
printf '0 1:0 4:0.5\n0 1:1 4:-0.5\n' > real_queries.txt
"$PPK" kgm --var A=1 --var B=2 --var X=4:gauss:0.5 --path A,B,X --lambda 1e-3 samples.txt real_queries.txt > real.txt
awk 'NF != 1 || $1 + 0 != $1 || $1 <= 0 {exit 1} END {exit NR != 2}' real.txt || fail "rbf estimates: $(cat real.txt)"
pass

"$PPK" kgm --help > help.txt
grep -qF -- '--table' help.txt || fail "kgm --help lacks --table"
pass
"$PPK" --help > help.txt
grep -qF 'kgm' help.txt || fail "ppk --help lacks kgm"
pass

# Errors: the command line (exit 2) and the input (exit 1); nothing written.
base=(--var A=1 --var B=2 --var C=3 --lambda 1e-6)
expect_error 2 "unknown variable 'D'" -- "$PPK" kgm "${base[@]}" --path A,B,D samples.txt --table
expect_error 2 "share LIBSVM indices" -- "$PPK" kgm --var A=1-2 --var B=2 --path A,B --lambda 1 samples.txt --table
expect_error 2 "--lambda must be a finite number > 0" -- "$PPK" kgm --var A=1 --var B=2 --path A,B --lambda 0 samples.txt --table
expect_error 2 "--lambda must be a finite number > 0" -- "$PPK" kgm --var A=1 --var B=2 --path A,B --lambda -1 samples.txt --table
expect_error 2 "missing --lambda" -- "$PPK" kgm --var A=1 --var B=2 --path A,B samples.txt --table
expect_error 2 "KERNEL must be delta, rbf:SIGMA or gauss:SIGMA" -- "$PPK" kgm --var A=1:cosine --var B=2 --path A,B --lambda 1 samples.txt --table
expect_error 2 "SIGMA must be a finite number > 0" -- "$PPK" kgm --var A=1:rbf:0 --var B=2 --path A,B --lambda 1 samples.txt --table
expect_error 2 "--table needs delta kernels" -- "$PPK" kgm --var A=4:rbf:1 --var B=2 --path A,B --lambda 1 samples.txt --table
expect_error 2 "either QUERIES or --table" -- "$PPK" kgm "${base[@]}" --path A,B,C samples.txt queries.txt --table
expect_error 2 "either QUERIES or --table" -- "$PPK" kgm "${base[@]}" --path A,B,C samples.txt
expect_error 2 "either --path or --tree" -- "$PPK" kgm "${base[@]}" samples.txt --table
expect_error 2 "C has two parents" -- "$PPK" kgm "${base[@]}" --tree 'A>C,B>C' --ends A,B samples.txt --table
expect_error 2 "no path between A and D" -- "$PPK" kgm "${base[@]}" --var D=4 --tree 'A>B,C>D' --ends A,D samples.txt --table
expect_error 2 "no node C" -- "$PPK" kgm "${base[@]}" --tree 'A>B' --ends A,C samples.txt --table
expect_error 2 "cycle" -- "$PPK" kgm "${base[@]}" --tree 'A>B,B>C,C>A' --ends A,C samples.txt --table
expect_error 2 "defined twice" -- "$PPK" kgm "${base[@]}" --var A=5 --path A,B samples.txt --table
expect_error 2 "expected a LIBSVM index" -- "$PPK" kgm --var A=0 --var B=2 --path A,B --lambda 1 samples.txt --table
expect_error 1 "samples.txt" "largest index in the file is 4" -- "$PPK" kgm --var A=1 --var B=9 --path A,B --lambda 1 samples.txt --table
# Sizes checked before anything is allocated (docs/cli.md): N x N Gram matrices and each variable's N x width
# values at most 2^25 dense values; under ulimit -v 1000000 (1 GB), where either would not fit.
awk 'BEGIN { for (i = 0; i < 5793; ++i) print "0 1:" (i % 2) " 2:1" }' > many.txt
expect_error 1 "many.txt: 5793 samples: N x N Gram matrices of 33558849 values, more than the 33554432" -- \
  bash -c 'ulimit -v 1000000; exec "$@"' _ "$PPK" kgm --var A=1 --var B=2 --path A,B --lambda 1 many.txt --table
printf '0 1:1 2:1\n0 1:0 100000000:1\n' > wide.txt
expect_error 1 "wide.txt: variable B spans 99999999 LIBSVM indices over 2 samples: 199999998 values" -- \
  bash -c 'ulimit -v 1000000; exec "$@"' _ "$PPK" kgm --var A=1 --var B=2-100000000:rbf:1 --path A,B --lambda 1 wide.txt queries.txt
sed '3s/1:[0-9]/1:0.5/' samples.txt > fractional.txt
expect_error 1 "fractional.txt:3:" "index 1 (variable A, delta kernel): expected an integer, got 0.5" -- \
  "$PPK" kgm "${base[@]}" --path A,B,C fractional.txt --table -o out.txt
expect_no_output out.txt
printf '0 1:1 3:1\n0 1:1.5 3:0\n' > bad_queries.txt
expect_error 1 "bad_queries.txt:2:" "variable A" -- "$PPK" kgm "${base[@]}" --path A,B,C samples.txt bad_queries.txt -o out.txt
expect_no_output out.txt
expect_error 1 "nothing.txt" -- "$PPK" kgm "${base[@]}" --path A,B,C nothing.txt --table

finish
