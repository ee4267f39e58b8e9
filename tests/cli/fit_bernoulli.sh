# ppk fit bernoulli: g_d = (k_d + alpha) / (n + 2 alpha), computed here by hand.
# Row layout (bernoulli.hpp): 3: D, 4: base probability, 5..4+D: g_d where it differs from the base.
source "$(dirname "$0")/lib.bash" "$@"

# qid 1: three vectors with features {1,3}, {1}, {} (a non-zero value counts as 1):
#   n = 3, k = (2, 0, 1, 0); alpha = 1: g = (3/5, 1/5, 2/5, 1/5), base 1/5.
# qid 2: one vector with feature {2}: n = 1, g = (1/3, 2/3, 1/3, 1/3), base 1/3.
cat > sets.txt <<'DATA'
1 qid:1 1:1 3:7
1 qid:1 1:-2
1 qid:1
-1 qid:2 2:1
DATA
"$PPK" fit bernoulli --alpha 1 --dim 4 sets.txt -o sets.ppk
mapfile -t rows < sets.ppk
[[ ${#rows[@]} == 2 ]] || fail "expected one row per qid group: $(cat sets.ppk)"
pass
[[ $(field "${rows[0]}" 2) == 2 && $(field "${rows[0]}" 3) == 4 ]] || fail "expected family 2, D = 4: ${rows[0]}"
pass
expect_close "$(field "${rows[0]}" 4)" "1/5"
expect_close "$(field "${rows[0]}" 5)" "3/5"
expect_close "$(field "${rows[0]}" 7)" "2/5"
[[ $(field "${rows[0]}" 6) == 0 && $(field "${rows[0]}" 8) == 0 ]] || fail "unseen features must be left to the base: ${rows[0]}"
pass
expect_close "$(field "${rows[1]}" 4)" "1/3"
expect_close "$(field "${rows[1]}" 6)" "2/3"

# The default --alpha 3 (docs/documents-smoothing.md): g = (k + 3) / (n + 6): (2 + 3) / 9, base 3/9.
"$PPK" fit bernoulli --dim 4 sets.txt > default.ppk
expect_close "$(field "$(head -1 default.ppk)" 5)" "5/9"
expect_close "$(field "$(head -1 default.ppk)" 4)" "3/9"

# --alpha 0.5: g = (k + 1/2) / (n + 1).
"$PPK" fit bernoulli --alpha 0.5 --dim 4 sets.txt > jeffreys.ppk
expect_close "$(field "$(head -1 jeffreys.ppk)" 5)" "2.5/4"
expect_close "$(field "$(head -1 jeffreys.ppk)" 4)" "0.5/4"

# Plain rows: one model per line; the default D is the largest index (3).
printf '1 1:1\n0 3:1\n1 2:1 3:1\n' > plain.txt
"$PPK" fit bernoulli --alpha 1 plain.txt > plain.ppk
[[ $(wc -l < plain.ppk) == 3 ]] || fail "expected three rows: $(cat plain.ppk)"
pass
[[ $(field "$(sed -n 2p plain.ppk)" 3) == 3 && $(sed -n 2p plain.ppk | cut -d' ' -f1) == 0 ]] || fail "row 2: $(sed -n 2p plain.ppk)"
pass

# One binary vector per example: the Bhattacharyya kernel (rho = 1/2) of two rows is
# prod_d [sqrt(g_d g'_d) + sqrt((1 - g_d)(1 - g'_d))]: 1 for a feature both have or both lack, and
# m(A) = 2 sqrt(A (1 + A)) / (1 + 2A) for one only one has, so k = m(A)^|x XOR x'| =
# exp(-gamma |x - x'|^2) with gamma = -ln m(A): LIBSVM's RBF kernel on the binary vectors, its
# width set by A (docs/documents-smoothing.md). Checked against that closed form, computed here.
printf '1 1:1 2:1 3:1\n2 2:1 4:1 5:1 6:1\n3 1:1 2:1 3:1 7:1\n' > words.txt  # distances 5, 1, 6
for alpha in 1 0.1 3; do
  "$PPK" fit bernoulli --alpha "$alpha" --dim 10 words.txt -o words.ppk
  "$PPK" gram -t ppk -g 0.5 words.ppk > gram.txt
  for pair in "1 2 5" "1 3 1" "2 3 6"; do
    read -r i j distance <<< "$pair"
    expect_close "$(sed -n "${i}p" gram.txt | cut -d' ' -f"$j")" \
      "(2 * sqrt($alpha * (1 + $alpha)) / (1 + 2 * $alpha)) ^ $distance" 1e-12
  done
done

expect_error 2 "--alpha must be a finite number >= 0" -- "$PPK" fit bernoulli --alpha -1 plain.txt
expect_error 2 "unrecognised option '--trials'" -- "$PPK" fit bernoulli --trials 3 plain.txt
expect_error 2 "--alpha 1/D (one pseudo-count over the vocabulary) applies to multinomial rows" "give --alpha A" -- \
  "$PPK" fit bernoulli --alpha 1/D plain.txt -o out.ppk
expect_no_output out.ppk
finish
