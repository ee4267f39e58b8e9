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
"$PPK" fit bernoulli --dim 4 sets.txt -o sets.ppk
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

# --alpha 0.5: g = (k + 1/2) / (n + 1).
"$PPK" fit bernoulli --alpha 0.5 --dim 4 sets.txt > jeffreys.ppk
expect_close "$(field "$(head -1 jeffreys.ppk)" 5)" "2.5/4"
expect_close "$(field "$(head -1 jeffreys.ppk)" 4)" "0.5/4"

# Plain rows: one model per line; the default D is the largest index (3).
printf '1 1:1\n0 3:1\n1 2:1 3:1\n' > plain.txt
"$PPK" fit bernoulli plain.txt > plain.ppk
[[ $(wc -l < plain.ppk) == 3 ]] || fail "expected three rows: $(cat plain.ppk)"
pass
[[ $(field "$(sed -n 2p plain.ppk)" 3) == 3 && $(sed -n 2p plain.ppk | cut -d' ' -f1) == 0 ]] || fail "row 2: $(sed -n 2p plain.ppk)"
pass

expect_error 2 "--alpha must be a finite number >= 0" -- "$PPK" fit bernoulli --alpha -1 plain.txt
expect_error 2 "unrecognised option '--trials'" -- "$PPK" fit bernoulli --trials 3 plain.txt
expect_error 2 "--alpha 1/D (one pseudo-count over the vocabulary) applies to multinomial rows" "give --alpha A" -- \
  "$PPK" fit bernoulli --alpha 1/D plain.txt -o out.ppk
expect_no_output out.ppk
finish
