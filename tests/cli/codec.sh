# ppk encode / ppk decode: JSON lines <-> model rows, order and labels kept,
# encode -> decode -> encode byte-identical.
source "$(dirname "$0")/lib.bash" "$@"

cat > models.jsonl <<'DATA'
{"label":1,"family":"gaussian","mean":[0.1,-2],"var":0.3}
{"label":-0.0,"family":"gaussian","mean":[0.5],"var":1e-300}
{"label":-1,"family":"gaussian","mean":[1,2,3],"diag":[0.5,1e-3,7]}
{"label":2.5,"family":"gaussian","mean":[0,1],"cov":[[2,0.3],[0.3,1.1]]}

{"family":"bernoulli","p":[0.1,0.9,0.1,0.1]}
{"label":3,"family":"multinomial","p":[0.2,0.3,0.5]}
{"label":3,"family":"multinomial","p":[0.125,0.125,0.75],"trials":4}
{"label":4,"family":"multinomial","p":[0.7,0.1,0.1,0.1],"trials":"all","decay":0.25}
DATA
"$PPK" encode models.jsonl -o rows.ppk
[[ $(wc -l < rows.ppk) == 8 ]] || fail "expected 8 rows (the blank line skipped): $(cat rows.ppk)"
pass
[[ $(cut -d' ' -f1 rows.ppk | tr '\n' ' ') == "1 -0 -1 2.5 0 3 3 4 " ]] || fail "labels or order: $(cut -d' ' -f1 rows.ppk)"
pass
# An isotropic Gaussian's row, written out by hand from the layout in gaussian.hpp.
[[ $(head -1 rows.ppk) == "1 1:1 2:1 3:2 4:1 5:0.1 6:-2 7:0.3" ]] ||
  fail "row 1: $(head -1 rows.ppk)"
pass

"$PPK" decode rows.ppk -o decoded.jsonl
[[ $(wc -l < decoded.jsonl) == 8 ]] || fail "decode: $(cat decoded.jsonl)"
pass
[[ $(head -1 decoded.jsonl) == '{"label":1,"family":"gaussian","mean":[0.1,-2.0],"var":0.3}' ]] ||
  fail "decoded line 1: $(head -1 decoded.jsonl)"
pass
[[ $(sed -n 5p decoded.jsonl) == '{"label":0,"family":"bernoulli","p":[0.1,0.9,0.1,0.1]}' ]] ||
  fail "decoded line 5: $(sed -n 5p decoded.jsonl)"
pass

# Round trips through both directions, via files and via standard input.
"$PPK" encode < decoded.jsonl > rows2.ppk
cmp rows.ppk rows2.ppk || fail "encode -> decode -> encode changed the rows"
pass
"$PPK" decode - < rows2.ppk | "$PPK" encode - > rows3.ppk
cmp rows.ppk rows3.ppk || fail "the second round trip changed the rows"
pass
"$PPK" decode rows3.ppk > decoded2.jsonl
cmp decoded.jsonl decoded2.jsonl || fail "decode -> encode -> decode changed the JSON"
pass

printf '1 qid:1 1:1 2:2\n1 qid:1 1:3 2:1\n1 qid:1 1:0 2:0\n' > points.txt
# Rows written by ppk fit decode too: mean (4/3, 1); S11 = 14/9, S22 = 2/3, S12 = 1/3.
"$PPK" fit gaussian points.txt | "$PPK" decode > fitted.jsonl
python3 - fitted.jsonl <<'PY' || fail "decoding a fitted row: $(cat fitted.jsonl)"
import json, sys
model = json.loads(open(sys.argv[1]).read())
close = lambda a, b: abs(a - b) < 1e-14
assert model["label"] == 1 and model["family"] == "gaussian"
assert all(map(close, model["mean"], [4 / 3, 1]))
assert all(map(close, sum(model["cov"], []), [14 / 9, 1 / 3, 1 / 3, 2 / 3]))
PY
pass

# Empty input, empty output.
[[ -z $("$PPK" encode < /dev/null) && -z $("$PPK" decode < /dev/null) ]] || fail "empty input"
pass
finish
