# ppk fit: --estimator ml|map|posterior, shrinkage with a saved pool, and the new families' data
# checks, with the expected values computed here by hand from the formulas in `ppk fit --help`.
# Row layouts: poisson 3: D, 4..3+D: rate; exponential 3: D, 4..3+D: scale;
# gaussian (isotropic) 3: D, 4: form 1, 5..4+D: mean, 5+D: variance.
source "$(dirname "$0")/lib.bash" "$@"

# Poisson. Training examples (2, 0) and (4, 1): ML rates; MAP with Gamma(2, 1): (x + 1) / 2.
printf '1 1:2\n-1 1:4 2:1\n' > train.txt
"$PPK" fit poisson train.txt -o ml.ppk
mapfile -t rows < ml.ppk
expect_close "$(field "${rows[0]}" 4)" "2"
expect_close "$(field "${rows[1]}" 5)" "1"
row=$("$PPK" fit poisson --estimator map --prior-shape 2 --prior-rate 1 train.txt | head -1)
expect_close "$(field "$row" 4)" "3/2"
expect_close "$(field "$row" 5)" "1/2"

# Shrinkage: the pool of train.txt is n = 2, sum = (6, 1). With lambda = 0.5, example 1 gets
# ((2, 0) + 0.5 (6, 1)) / (1 + 0.5 * 2) = (2.5, 0.25).
"$PPK" fit poisson --shrink 0.5 --save-pooled pool.json train.txt -o shrunk.ppk
row=$(head -1 shrunk.ppk)
expect_close "$(field "$row" 4)" "2.5"
expect_close "$(field "$row" 5)" "0.25"
grep -q '"family":"poisson"' pool.json || fail "pool.json: $(cat pool.json)"
pass
# A test example fitted against the saved pool: (0, 3) -> ((0, 3) + 0.5 (6, 1)) / 2 = (1.5, 1.75).
printf '1 2:3\n' > test.txt
row=$("$PPK" fit poisson --shrink 0.5 --pooled-from pool.json --dim 2 test.txt)
expect_close "$(field "$row" 4)" "1.5"
expect_close "$(field "$row" 5)" "1.75"
# Without the pool, the test file would pool itself: a different estimate.
row=$("$PPK" fit poisson --shrink 0.5 --dim 2 test.txt)
expect_close "$(field "$row" 5)" "3"

# Gaussian with a known variance: the posterior predictive N((n x-bar + K M)/(n + K), V (1 + 1/(n + K)) I).
printf '1 1:3 2:-1\n' > point.txt
row=$("$PPK" fit gaussian --var 0.5 --estimator posterior --prior-strength 1 point.txt)
expect_close "$(field "$row" 5)" "1.5"
expect_close "$(field "$row" 6)" "-0.5"
expect_close "$(field "$row" 7)" "0.75"

# Exponential MAP: values 1 and 3 -> (4 + B) / (2 + A - 1) with A = 2, B = 1.
printf '1 qid:1 1:1\n1 qid:1 1:3\n' > waits.txt
row=$("$PPK" fit exponential --estimator map waits.txt)
expect_close "$(field "$row" 4)" "5/3"

# Gamma and Dirichlet fits produce rows that decode (their values are checked in the unit tests).
printf '1 qid:1 1:0.5 2:2\n1 qid:1 1:1.5 2:1\n1 qid:1 1:2 2:4\n' > durations.txt
"$PPK" fit gamma durations.txt | "$PPK" decode - | grep '"family":"gamma"' > /dev/null || fail "gamma fit"
pass
printf '1 qid:1 1:0.2 2:0.8\n1 qid:1 1:0.5 2:0.5\n1 qid:1 1:0.7 2:0.3\n' > proportions.txt
"$PPK" fit dirichlet proportions.txt | "$PPK" decode - | grep '"family":"dirichlet"' > /dev/null || fail "dirichlet fit"
pass

# Errors: option combinations (exit 2) and data outside the family's sample space (exit 1, file:line).
# The pool file: without --shrink a test file is fitted as on its own; with another family, another
# dimension, or a pool without statistics it is refused, naming both files; a damaged pool is refused.
[ "$("$PPK" fit poisson --pooled-from pool.json --dim 2 test.txt)" = "$("$PPK" fit poisson --dim 2 test.txt)" ] ||
  fail "--pooled-from without --shrink changed the fit"
pass
expect_error 1 "pool.json was written by ppk fit poisson over dimension 2 from train.txt, but test.txt is fitted by ppk fit poisson over dimension 5" -- \
  "$PPK" fit poisson --shrink 0.5 --pooled-from pool.json --dim 5 test.txt -o out.ppk
"$PPK" fit poisson --save-pooled plain-pool.json train.txt -o /dev/null
grep -q '"statistics"' plain-pool.json || fail "--save-pooled without --shrink saves the statistics: $(cat plain-pool.json)"
pass
printf '1 qid:1 1:1 2:2\n1 qid:1 1:2 2:0\n' > set.txt
"$PPK" fit mixture --components 1 --cov iso --save-pooled mixture-pool.json set.txt -o /dev/null
grep -q '"family":"mixture"' mixture-pool.json || fail "mixture pool: $(cat mixture-pool.json)"
expect_error 1 "mixture-pool.json was written by ppk fit mixture over dimension 2 from set.txt, but test.txt is fitted by ppk fit poisson" -- \
  "$PPK" fit poisson --shrink 1 --pooled-from mixture-pool.json --dim 2 test.txt -o out.ppk
printf '{"source": "train.txt", "family": "poisson", "dim": 2, "chosen": {"alpha": 3}}\n' > broken-pool.json
expect_error 1 'broken-pool.json: not a pool file written by ppk fit --save-pooled: "chosen"."alpha": expected' -- \
  "$PPK" fit poisson --pooled-from broken-pool.json --dim 2 test.txt -o out.ppk
printf 'not json\n' > broken-pool.json
expect_error 1 "broken-pool.json: not a pool file written by ppk fit --save-pooled: not JSON" -- \
  "$PPK" fit poisson --pooled-from broken-pool.json --dim 2 test.txt -o out.ppk
expect_no_output out.ppk
# --alpha 0 (the posterior mean with no pseudo-counts: maximum-likelihood rows) saves alpha 0, and a
# test file fitted with that pool gets the rows --alpha 0 gives it.
printf '1 1:2 2:1\n-1 2:3 3:1\n' > documents.txt
printf '1 1:1 3:4\n' > document.txt
"$PPK" fit multinomial --dim 3 --alpha 0 --save-pooled ml-pool.json documents.txt -o /dev/null
[ "$("$PPK" fit multinomial --dim 3 --pooled-from ml-pool.json document.txt)" = \
  "$("$PPK" fit multinomial --dim 3 --alpha 0 document.txt)" ] || fail "--pooled-from a pool of --alpha 0: $(cat ml-pool.json)"
pass
expect_error 2 "negative binomial" -- "$PPK" fit poisson --estimator posterior train.txt
expect_error 2 "the estimator must be ml, map or posterior, got 'mle'" -- "$PPK" fit poisson --estimator mle train.txt
expect_error 2 "--shrink must be a finite number > 0" -- "$PPK" fit poisson --shrink -1 train.txt
expect_error 1 "pool.json was written by ppk fit poisson over dimension 2 from train.txt, but test.txt is fitted by ppk fit exponential" -- \
  "$PPK" fit exponential --shrink 1 --pooled-from pool.json --dim 2 test.txt -o out.ppk
expect_no_output out.ppk
printf '1 1:2.5\n' > fractional.txt
expect_error 1 "fractional.txt:1: value 2.5 at index 1 is not a count" -- "$PPK" fit poisson fractional.txt
printf '1 qid:4 1:0.5 2:2\n1 qid:4 2:1\n' > zero.txt
expect_error 1 "zero.txt:1: qid 4: value 0 at index 1 (vector 2) (absent) is not > 0" -- "$PPK" fit gamma zero.txt
printf '1 1:0.2 2:0.7\n' > unnormalised.txt
expect_error 1 "unnormalised.txt:1: the values sum to 0.9" -- "$PPK" fit dirichlet unnormalised.txt
printf '1 1:0.2 2:0.8\n' > single.txt
expect_error 1 "single.txt:1: the example's vectors are all equal (or it has only one)" -- "$PPK" fit dirichlet single.txt
finish
