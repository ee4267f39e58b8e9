# ppk fit gaussian: maximum-likelihood estimates against values computed by hand.
# Row layout (gaussian.hpp): 3: D, 4: form (1 iso, 2 diag, 3 full), 5..4+D: mean,
# then the variance, the D variances, or the lower triangle of Sigma row by row.
source "$(dirname "$0")/lib.bash" "$@"

# Two qid groups, one example each:
#   qid 1: (0,0), (2,0), (0,2): mu = (2/3, 2/3), S11 = S22 = 8/9, S12 = -4/9
#   qid 2: (1,1), (3,1), (1,4): mu = (5/3, 2),   S11 = 8/9, S22 = 6/3 = 2, S12 = (2/3 - 4/3 - 4/3)/3 = -2/3
cat > sets.txt <<'DATA'
1 qid:1 1:0 2:0
1 qid:1 1:2
1 qid:1 2:2
-1 qid:2 1:1 2:1
-1 qid:2 1:3 2:1
-1 qid:2 1:1 2:4
DATA
"$PPK" fit gaussian sets.txt -o full.ppk
[[ $(wc -l < full.ppk) == 2 ]] || fail "expected one row per qid group: $(cat full.ppk)"
pass
mapfile -t rows < full.ppk
[[ ${rows[0]%% *} == 1 && ${rows[1]%% *} == -1 ]] || fail "labels not passed through: ${rows[*]}"
pass
for row in "${rows[@]}"; do
  [[ $(field "$row" 3) == 2 && $(field "$row" 4) == 3 ]] || fail "expected D = 2, full form: $row"
  pass
done
expect_close "$(field "${rows[0]}" 5)" "2/3"
expect_close "$(field "${rows[0]}" 6)" "2/3"
expect_close "$(field "${rows[0]}" 7)" "8/9"
expect_close "$(field "${rows[0]}" 8)" "-4/9"
expect_close "$(field "${rows[0]}" 9)" "8/9"
expect_close "$(field "${rows[1]}" 5)" "5/3"
expect_close "$(field "${rows[1]}" 6)" "2"
expect_close "$(field "${rows[1]}" 7)" "8/9"
expect_close "$(field "${rows[1]}" 8)" "-2/3"
expect_close "$(field "${rows[1]}" 9)" "2"

# Diagonal with a ridge: S_dd + R.
"$PPK" fit gaussian --cov diag --ridge 0.25 sets.txt > diag.ppk
mapfile -t rows < diag.ppk
[[ $(field "${rows[1]}" 4) == 2 ]] || fail "expected the diagonal form: ${rows[1]}"
pass
expect_close "$(field "${rows[1]}" 7)" "8/9 + 0.25"
expect_close "$(field "${rows[1]}" 8)" "2 + 0.25"

# Isotropic: trace(S) / D.
"$PPK" fit gaussian --cov iso sets.txt > iso.ppk
mapfile -t rows < iso.ppk
[[ $(field "${rows[0]}" 4) == 1 ]] || fail "expected the isotropic form: ${rows[0]}"
pass
expect_close "$(field "${rows[0]}" 7)" "(8/9 + 8/9) / 2"
expect_close "$(field "${rows[1]}" 7)" "(8/9 + 2) / 2"

# --var V: one vector x becomes N(x, V I); --dim fixes D (absent coordinates are 0).
printf '1 1:0.5 2:1\n-1 1:2 3:1\n' > points.txt
"$PPK" fit gaussian --var 0.5 --dim 3 - < points.txt > rbf.ppk
printf '1 1:1 2:1 3:3 4:1 5:0.5 6:1 8:0.5\n-1 1:1 2:1 3:3 4:1 5:2 7:1 8:0.5\n' > expected.ppk
cmp rbf.ppk expected.ppk || fail "--var rows: $(cat rbf.ppk)"
pass
"$PPK" fit gaussian --var 0.5 --dim 5 points.txt > dim5.ppk
[[ $(field "$(head -1 dim5.ppk)" 3) == 5 ]] || fail "--dim 5 not used: $(cat dim5.ppk)"
pass

# Fitting is deterministic.
"$PPK" fit gaussian sets.txt -o again.ppk
cmp full.ppk again.ppk || fail "two fits of the same file differ"
pass

# Errors name the file, the example's line and what would help; no output is written.
expect_error 1 "points.txt:2: index 3 is larger than the dimension 2 (--dim)" -- \
  "$PPK" fit gaussian --var 1 --dim 2 points.txt -o out.ppk
expect_no_output out.ppk
expect_error 1 "points.txt:1: the example has 1 vector" "full covariance in 3 dimensions" "--ridge R" "--var V" -- \
  "$PPK" fit gaussian points.txt -o out.ppk
expect_no_output out.ppk
expect_error 1 "sets.txt:1: qid 1: the example has 3 vectors; a full covariance in 5 dimensions" -- \
  "$PPK" fit gaussian --dim 5 sets.txt
printf '1 qid:1 1:1 2:5\n1 qid:1 1:2 2:5\n' > constant.txt
expect_error 1 "constant.txt:1: qid 1: feature 2 is constant (= 5) across the 2 vectors" -- \
  "$PPK" fit gaussian --cov diag constant.txt
printf '1 qid:1 1:1 2:1\n1 qid:1 1:2 2:2\n1 qid:1 1:3 2:3\n' > line.txt
expect_error 1 "line.txt:1: qid 1: the covariance of the 3 vectors is singular" "do not span R^2" -- \
  "$PPK" fit gaussian line.txt
"$PPK" fit gaussian --ridge 0.1 line.txt > /dev/null || fail "--ridge did not make a collinear set fit"
pass

# Option conflicts are usage errors.
expect_error 2 "--var fixes an isotropic covariance" -- "$PPK" fit gaussian --var 1 --cov full points.txt
expect_error 2 "cannot be combined with --ridge" -- "$PPK" fit gaussian --var 1 --ridge 1 points.txt
expect_error 2 "--var must be a finite number > 0, got -1" -- "$PPK" fit gaussian --var -1 points.txt
expect_error 2 "--cov must be iso, diag or full" -- "$PPK" fit gaussian --cov diagonal points.txt
expect_error 2 "--dim must be in [1, 33554432]" -- "$PPK" fit gaussian --dim 0 points.txt
finish
