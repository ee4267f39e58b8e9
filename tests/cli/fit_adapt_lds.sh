# ppk fit lds --pooled and --adapt-from (estimate_lds.hpp): the pooled LDS is one row (label 0)
# kept in the pool file and does not depend on --threads; adapted rows decode, keep their labels
# and pair with the pooled row in ppk gram (finite kernels, PSD Gram with it); a huge --relevance
# reproduces the pooled model; every bad option or file is refused by name with nothing written.
source "$(dirname "$0")/lib.bash" "$@"

rotating_state_sequences train.txt test.txt

"$PPK" fit lds --pooled --state-dim 2 --save-pooled pool.json train.txt -o pooled.row
expect_pooled_row pooled.row
python3 -c 'import json; m = json.load(open("pool.json"))["model"]; assert m["family"] == "lds" and len(m["A"]) == 2 and m["length"] == 11' ||
  fail "pool.json holds no pooled 2-state lds: $(head -c 300 pool.json)"
pass
"$PPK" fit lds --pooled --state-dim 2 --threads 2 train.txt -o pooled2.row
cmp -s pooled.row pooled2.row || fail "--threads 2 changed the pooled row"
pass

"$PPK" fit lds --adapt-from pool.json train.txt -o adapted.ppk
"$PPK" fit lds --adapt-from pool.json --relevance 4 --adapt transitions,emissions test.txt -o adapted_test.ppk
expect_adapted_rows 30 8
python3 - <<'PY' || fail "decoded adapted rows"
import json
from qid_groups import group_labels_and_sizes
pooled = json.loads(open("pooled.jsonl").readline())
for (label, n), line in zip(group_labels_and_sizes("test.txt"), open("adapted_test.jsonl")):
    m = json.loads(line)
    assert m["family"] == "lds" and m["length"] == n - 1 and str(m["label"]) == label, m
    # --adapt transitions,emissions: the start keeps the pooled values
    assert m["mean0"] == pooled["mean0"] and m["cov0"] == pooled["cov0"] and m["A"] != pooled["A"], m
PY
pass
# The normalised Gram of the adapted test rows and the pooled row: finite, in (0, 1], ones on the
# diagonal, and PSD; --relevance 1e14: every adapted row is the pooled model to 1e-9; a bad
# --relevance is refused.
expect_state_space_adaptation lds 11 9

# Bad options (status 2) and files (status 1): refused by name, nothing written.
expect_error 2 "--adapt" "'means'" "lds" "start, transitions, emissions" -- \
  "$PPK" fit lds --adapt-from pool.json --adapt means test.txt -o bad.ppk
expect_error 2 "--adapt" "foo" -- "$PPK" fit lds --adapt-from pool.json --adapt start,foo test.txt -o bad.ppk
for option in "--state-dim 2" "--restarts 5" "--seed 7"; do
  # shellcheck disable=SC2086
  expect_error 2 "${option% *} shapes the pooled model" -- "$PPK" fit lds --adapt-from pool.json $option test.txt -o bad.ppk
done
expect_error 2 "ppk fit lds needs --state-dim n" -- "$PPK" fit lds --pooled train.txt -o bad.ppk
expect_error 2 "--prior-strength applies to per-example fits" -- \
  "$PPK" fit lds --pooled --state-dim 2 --prior-strength 4 train.txt -o bad.ppk
expect_error 2 "--prior-state-noise applies to per-example fits" -- \
  "$PPK" fit lds --adapt-from pool.json --prior-state-noise 0.5 test.txt -o bad.ppk
expect_error 2 "--relevance applies to --adapt-from" -- "$PPK" fit lds --state-dim 2 --relevance 3 test.txt -o bad.ppk
expect_state_space_files_refused lds
"$PPK" fit mixture --pooled --components 2 --cov diag --save-pooled mixture_pool.json train.txt -o /dev/null
expect_error 1 "mixture_pool.json was written by ppk fit mixture" -- \
  "$PPK" fit lds --adapt-from mixture_pool.json test.txt -o bad.ppk
expect_no_output bad.ppk
finish
