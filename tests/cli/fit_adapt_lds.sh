# ppk fit lds --pooled and --adapt-from (adaptation.hpp, "LDS"): the pooled LDS is one row (label 0)
# kept in the pool file and does not depend on --threads; adapted rows decode, keep their labels
# and pair with the pooled row in ppk gram (finite kernels, PSD Gram with it); a huge --relevance
# reproduces the pooled model; every bad option or file is refused by name with nothing written.
source "$(dirname "$0")/lib.bash" "$@"

rotating_state_sequences train.txt test.txt

"$PPK" fit lds --pooled --state-dim 2 --save-pooled pool.json train.txt -o pooled.row
[[ $(wc -l < pooled.row) == 1 && $(cut -d' ' -f1 pooled.row) == 0 ]] || fail "the pooled row: $(head -c 200 pooled.row)"
pass
python3 -c 'import json; m = json.load(open("pool.json"))["model"]; assert m["family"] == "lds" and len(m["A"]) == 2 and m["length"] == 11' ||
  fail "pool.json holds no pooled 2-state lds: $(head -c 300 pool.json)"
pass
"$PPK" fit lds --pooled --state-dim 2 --threads 2 train.txt -o pooled2.row
cmp -s pooled.row pooled2.row || fail "--threads 2 changed the pooled row"
pass

"$PPK" fit lds --adapt-from pool.json train.txt -o adapted.ppk
"$PPK" fit lds --adapt-from pool.json --relevance 4 --adapt transitions,emissions test.txt -o adapted_test.ppk
[[ $(wc -l < adapted.ppk) == 30 && $(wc -l < adapted_test.ppk) == 8 ]] || fail "adapted row counts"
pass
"$PPK" decode adapted_test.ppk -o adapted_test.jsonl
"$PPK" decode pooled.row -o pooled.jsonl
python3 - <<'PY' || fail "decoded adapted rows"
import json
pooled = json.loads(open("pooled.jsonl").readline())
labels = [l.split()[0] for l in open("test.txt")]
groups = []
for l in open("test.txt"):
    q = l.split()[1]
    if not groups or groups[-1][0] != q:
        groups.append([q, l.split()[0], 0])
    groups[-1][2] += 1
for (q, label, n), line in zip(groups, open("adapted_test.jsonl")):
    m = json.loads(line)
    assert m["family"] == "lds" and m["length"] == n - 1 and str(m["label"]) == label, m
    # --adapt transitions,emissions: the start keeps the pooled values
    assert m["mean0"] == pooled["mean0"] and m["cov0"] == pooled["cov0"] and m["A"] != pooled["A"], m
PY
pass
# The normalised Gram of the adapted test rows and the pooled row: finite, in (0, 1], ones on the
# diagonal, and PSD.
cat adapted_test.ppk pooled.row > together.ppk
expect_unit_psd_gram together.ppk 11 9

# --relevance 1e14: every adapted row is the pooled model to 1e-9.
"$PPK" fit lds --adapt-from pool.json --relevance 1e14 test.txt -o stiff.ppk
expect_rows_are_pooled stiff.ppk pooled.row

# Bad options (status 2) and files (status 1): refused by name, nothing written.
for tau in 0 -1 nan abc; do
  expect_error 2 "--relevance" -- "$PPK" fit lds --adapt-from pool.json --relevance "$tau" test.txt -o bad.ppk
  expect_no_output bad.ppk
done
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
printf '1 qid:1 1:0.5 2:1\n1 qid:1 1:0.2 2:0.1\n-1 qid:2 1:0.3 2:0.4\n' > short.txt
expect_error 1 "short.txt" "the pooled fit failed" "sequence 2" "1 vector" -- \
  "$PPK" fit lds --pooled --state-dim 1 short.txt -o bad.ppk
expect_error 1 "short.txt" "1 vector" -- "$PPK" fit lds --adapt-from pool.json short.txt -o bad.ppk
printf '1 qid:1 1:0.5 2:1 3:2\n1 qid:1 1:0.2 2:0.1 3:1\n' > wide.txt
expect_error 1 "pool.json" "dimension 2" "dimension 3" -- "$PPK" fit lds --adapt-from pool.json wide.txt -o bad.ppk
"$PPK" fit mixture --pooled --components 2 --cov diag --save-pooled mixture_pool.json train.txt -o /dev/null
expect_error 1 "mixture_pool.json was written by ppk fit mixture" -- \
  "$PPK" fit lds --adapt-from mixture_pool.json test.txt -o bad.ppk
expect_no_output bad.ppk
finish
