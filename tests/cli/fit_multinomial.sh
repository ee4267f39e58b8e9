# ppk fit multinomial: a_d = (c_d + alpha) / (N + alpha D), computed here by hand.
# Row layout (multinomial.hpp): 3: D, 4: trials (0 one, s, -1 all), 5: decay, 6: base,
# 7..6+D: a_d where it differs from the base.
source "$(dirname "$0")/lib.bash" "$@"

# The default --alpha 1/D: one pseudo-count in all, alpha = 1/4 for D = 4.
# Line 1: c = (2, 0, 1, 0), N = 3: a = (c + 1/4) / (3 + 1) = (9, 1, 5, 1) / 16, base 1/16.
# Line 2: c = (0, 4, 0, 0), N = 4: a = (c + 1/4) / (4 + 1): base 1/20, a_2 = 17/20.
printf '1 1:2 3:1\n2 2:4\n' > counts.txt
"$PPK" fit multinomial --dim 4 counts.txt -o counts.ppk
mapfile -t rows < counts.ppk
[[ ${#rows[@]} == 2 && ${rows[1]%% *} == 2 ]] || fail "expected two rows, labels kept: $(cat counts.ppk)"
pass
[[ $(field "${rows[0]}" 2) == 3 && $(field "${rows[0]}" 3) == 4 && $(field "${rows[0]}" 4) == 0 ]] ||
  fail "expected family 3, D = 4, one event: ${rows[0]}"
pass
expect_close "$(field "${rows[0]}" 6)" "1/16"
expect_close "$(field "${rows[0]}" 7)" "9/16"
expect_close "$(field "${rows[0]}" 9)" "5/16"
expect_close "$(field "${rows[1]}" 6)" "1/20"
expect_close "$(field "${rows[1]}" 8)" "17/20"
# --alpha 1/D written out is the default; --alpha 1 (Laplace's rule): a = (3, 1, 2, 1) / 7.
"$PPK" fit multinomial --alpha 1/D --dim 4 counts.txt -o explicit.ppk
cmp -s counts.ppk explicit.ppk || fail "--alpha 1/D differs from the default: $(cat explicit.ppk)"
pass
row=$("$PPK" fit multinomial --alpha 1 --dim 4 counts.txt | head -1)
expect_close "$(field "$row" 6)" "1/7"
expect_close "$(field "$row" 7)" "3/7"
expect_close "$(field "$row" 9)" "2/7"
# The mode of Dirichlet(A) needs A >= 1: --estimator map with the default alpha says so.
expect_error 2 "--estimator map needs --alpha A >= 1" "--alpha 1/D, the default," -- \
  "$PPK" fit multinomial --estimator map --dim 4 counts.txt -o out.ppk
expect_no_output out.ppk

# A qid group sums its counts: (2, 0, 1, 0) + (1, 0.5, 0, 0) = (3, 0.5, 1, 0), N = 4.5,
# alpha = 2: a = (c + 2) / (4.5 + 8).
printf '1 qid:1 1:2 3:1\n1 qid:1 1:1 2:0.5\n' > group.txt
row=$("$PPK" fit multinomial --alpha 2 --dim 4 group.txt)
[[ $(wc -l <<< "$row") == 1 ]] || fail "expected one row for one group: $row"
pass
expect_close "$(field "$row" 6)" "2/12.5"
expect_close "$(field "$row" 7)" "5/12.5"
expect_close "$(field "$row" 8)" "2.5/12.5"
expect_close "$(field "$row" 9)" "3/12.5"

# A four-word document over a 50,000-word vocabulary gives a handful of entries:
# version, family, D, base and the three words (trials and decay are 0 and omitted). At the
# default the prior is one pseudo-count in all, whatever D: a = (c + 1/50000) / (4 + 1).
printf '1 17:1 2000:2 49000:1\n' > document.txt
row=$("$PPK" fit multinomial --dim 50000 document.txt)
entries=$(($(wc -w <<< "$row") - 1))
[[ $entries == 7 ]] || fail "expected 7 entries, got $entries: ${row:0:200}"
pass
expect_close "$(field "$row" 6)" "1/250000"
expect_close "$(field "$row" 2006)" "(2 + 1/50000)/5"

# --trials and --decay are stored in the row.
[[ $(field "$("$PPK" fit multinomial --trials 3 counts.txt | head -1)" 4) == 3 ]] || fail "--trials 3"
pass
row=$("$PPK" fit multinomial --trials all --decay 0.5 counts.txt | head -1)
[[ $(field "$row" 4) == -1 && $(field "$row" 5) == 0.5 ]] || fail "--trials all --decay 0.5: $row"
pass

expect_error 2 "--trials all needs --decay L" -- "$PPK" fit multinomial --trials all counts.txt
expect_error 2 "--decay applies only to --trials all" -- "$PPK" fit multinomial --decay 0.5 counts.txt
expect_error 2 "--trials must be one, all or a whole number >= 1, got '0'" -- "$PPK" fit multinomial --trials 0 counts.txt
expect_error 2 "--decay must be in (0, 1]" -- "$PPK" fit multinomial --trials all --decay 2 counts.txt
printf '1 1:2\n1 1:1 3:-1\n' > negative.txt
expect_error 1 "negative.txt:2: count -1 at index 3 is negative" -- "$PPK" fit multinomial negative.txt -o out.ppk
expect_no_output out.ppk
printf '1 1:2\n1\n' > empty_example.txt
expect_error 1 "empty_example.txt:2: the example has no counts" -- "$PPK" fit multinomial --alpha 0 empty_example.txt
expect_error 1 "document.txt:1: index 49000 is larger than the dimension 1000 (--dim)" -- \
  "$PPK" fit multinomial --dim 1000 document.txt
finish
