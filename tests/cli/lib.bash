# Shared by the command-line tests (sourced; not a test itself).
# Usage in a test: source "$(dirname "$0")/lib.bash" "$@"   (with $1 = the ppk executable)
set -euo pipefail

PPK=${1:?usage: bash TEST.sh PATH/TO/ppk}
PPK=$(cd "$(dirname "$PPK")" && pwd)/$(basename "$PPK")
# The tests' python3 snippets import gram_output.py from this folder.
export PYTHONPATH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)${PYTHONPATH:+:$PYTHONPATH}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"

checks=0
fail() {
  echo "FAIL: $*" >&2
  exit 1
}
pass() { checks=$((checks + 1)); }
finish() { echo "$(basename "$0"): $checks checks passed"; }

# expect_error STATUS FRAGMENT... -- COMMAND...
# COMMAND must exit with STATUS, print nothing on standard output, and print every
# FRAGMENT (fixed strings) on standard error.
expect_error() {
  local status=$1
  shift
  local fragments=()
  while [[ $1 != -- ]]; do
    fragments+=("$1")
    shift
  done
  shift
  local got=0
  "$@" >stdout.txt 2>stderr.txt || got=$?
  [[ $got == "$status" ]] || fail "'$*' exited with $got, expected $status; stderr: $(cat stderr.txt)"
  [[ ! -s stdout.txt ]] || fail "'$*' wrote to standard output: $(head -c 300 stdout.txt)"
  local fragment
  for fragment in "${fragments[@]}"; do
    grep -qF -- "$fragment" stderr.txt || fail "'$*': stderr lacks '$fragment'; it was: $(cat stderr.txt)"
  done
  pass
}

# expect_no_output FILE: a failed run left neither FILE nor a temporary file beside it.
expect_no_output() {
  [[ ! -e $1 ]] || fail "$1 was written by a failed run"
  if compgen -G "$1.partial-*" >/dev/null; then fail "a temporary file $1.partial-* was left"; fi
  pass
}

# field ROW_LINE INDEX: the value at INDEX in the row "label i:v ..." (0 if absent).
field() {
  local token
  for token in ${1#* }; do
    if [[ ${token%%:*} == "$2" ]]; then
      echo "${token#*:}"
      return
    fi
  done
  echo 0
}

# expect_round_trip ROWS: decoding ROWS and encoding the models again gives ROWS byte for byte.
expect_round_trip() {
  "$PPK" decode "$1" | "$PPK" encode | cmp - "$1" || fail "$1 does not round-trip"
  pass
}

# expect_encoded JSON_LINES ROWS FAMILY FIRST_ROW: ppk encode JSON_LINES -o ROWS; ROWS round-trip
# (expect_round_trip) and the first is FIRST_ROW (FAMILY's row layout), a glob pattern: the row's
# characters match themselves; a trailing * stands for the rest of a row checked by its beginning.
expect_encoded() {
  "$PPK" encode "$1" -o "$2"
  expect_round_trip "$2"
  # shellcheck disable=SC2053
  [[ $(head -1 "$2") == $4 ]] || fail "$3 row layout: $(head -1 "$2")"
  pass
}

# expect_bad_second_row ROWS EDIT FRAGMENT...: the first row of ROWS and then that row edited by the
# sed expression EDIT (bad.ppk): ppk gram refuses it naming "bad.ppk: row 2: " and every FRAGMENT
# (expect_error), and writes no gram.txt.
expect_bad_second_row() {
  local rows=$1 edit=$2
  shift 2
  head -1 "$rows" > bad.ppk
  head -1 "$rows" | sed "$edit" >> bad.ppk
  expect_error 1 "bad.ppk: row 2: " "$@" -- "$PPK" gram -t ppk -g 1 bad.ppk -o gram.txt
  expect_no_output gram.txt
}

# expect_unit_diagonal GRAM: every diagonal entry of GRAM (a ppk_norm Gram) is exactly 1.
expect_unit_diagonal() {
  awk '{ if ($NR != 1) exit 1 }' "$1" || fail "ppk_norm diagonal: $(cat "$1")"
  pass
}

# expect_in_unit_interval GRAM WHAT: every entry of GRAM lies in (0, 1].
expect_in_unit_interval() {
  awk '{ for (i = 1; i <= NF; ++i) if (!($i > 0 && $i <= 1)) exit 1 }' "$1" || fail "$2: $(cat "$1")"
  pass
}

# expect_lengths_need_d ROWS SHORT SPACE SHORT_SPACE: rows of stored length 4 (ROWS) and 2 (SHORT)
# have no kernel, the error naming both sample spaces, unless -d 3 sets T.
expect_lengths_need_d() {
  expect_error 1 "$3" "$4" -- "$PPK" gram -t ppk -g 1 "$1" "$2"
  "$PPK" gram -t ppk -g 1 -d 3 "$1" "$2" > mixed_lengths.txt || fail "-d 3 with lengths 4 and 2"
  pass
}

# need_patched_tools TOOL...: BIN, the folder of ppk, which holds the patched LIBSVM TOOLs.
need_patched_tools() {
  BIN=$(dirname "$PPK")
  local tools="$*" tool
  for tool in "$@"; do
    [[ -x $BIN/$tool ]] || fail "the patched ${tools// / and } $([[ $# == 1 ]] && echo is || echo are) not next to $PPK"
  done
}

# expect_pooled_row ROW: ROW, the output of a --pooled fit, is one row labelled 0.
expect_pooled_row() {
  [[ $(wc -l < "$1") == 1 && $(cut -d' ' -f1 "$1") == 0 ]] || fail "the pooled row: $(head -c 200 "$1")"
  pass
}

# expect_relevance_refused FAMILY [OPTION...]: ppk fit FAMILY --adapt-from pool.json refuses every
# --relevance that is not a finite number > 0 (status 2) and writes nothing.
expect_relevance_refused() {
  local family=$1 tau
  shift
  for tau in 0 -1 nan abc; do
    expect_error 2 "--relevance" -- "$PPK" fit "$family" --adapt-from pool.json --relevance "$tau" "$@" test.txt -o bad.ppk
    expect_no_output bad.ppk
  done
}

# expect_adapted_rows TRAIN_COUNT TEST_COUNT: adapted.ppk and adapted_test.ppk hold TRAIN_COUNT and
# TEST_COUNT rows; adapted_test.ppk and pooled.row decode, to adapted_test.jsonl and pooled.jsonl.
expect_adapted_rows() {
  [[ $(wc -l < adapted.ppk) == "$1" && $(wc -l < adapted_test.ppk) == "$2" ]] || fail "adapted row counts"
  pass
  "$PPK" decode adapted_test.ppk -o adapted_test.jsonl
  "$PPK" decode pooled.row -o pooled.jsonl
}

# expect_state_space_adaptation FAMILY T SIZE: the normalised Gram (-d T) of adapted_test.ppk and
# pooled.row (SIZE rows together) is finite, in (0, 1], with ones on the diagonal, and PSD; with
# --relevance 1e14 every row ppk fit FAMILY --adapt-from pool.json adapts to test.txt is the pooled
# model to 1e-9; a --relevance that is not a finite number > 0 is refused.
expect_state_space_adaptation() {
  cat adapted_test.ppk pooled.row > together.ppk
  expect_unit_psd_gram together.ppk "$2" "$3"
  "$PPK" fit "$1" --adapt-from pool.json --relevance 1e14 test.txt -o stiff.ppk
  expect_rows_are_pooled stiff.ppk pooled.row
  expect_relevance_refused "$1"
}

# expect_state_space_files_refused FAMILY: ppk fit FAMILY refuses (status 1, naming the file) a
# --pooled fit (--state-dim 1) over a one-vector sequence, an --adapt-from pool.json over it, and
# vectors of dimension 3 where pool.json's have 2.
expect_state_space_files_refused() {
  printf '1 qid:1 1:0.5 2:1\n1 qid:1 1:0.2 2:0.1\n-1 qid:2 1:0.3 2:0.4\n' > short.txt
  expect_error 1 "short.txt" "the pooled fit failed" "sequence 2" "1 vector" -- \
    "$PPK" fit "$1" --pooled --state-dim 1 short.txt -o bad.ppk
  expect_error 1 "short.txt" "1 vector" -- "$PPK" fit "$1" --adapt-from pool.json short.txt -o bad.ppk
  printf '1 qid:1 1:0.5 2:1 3:2\n1 qid:1 1:0.2 2:0.1 3:1\n' > wide.txt
  expect_error 1 "pool.json" "dimension 2" "dimension 3" -- "$PPK" fit "$1" --adapt-from pool.json wide.txt -o bad.ppk
}

# expect_bad_sequences_refused FAMILY VALUES NAN_VALUES: ppk fit FAMILY --state-dim 1 on
# sequences.txt with a one-vector sequence appended as qid 9 (VALUES, its "index:value" pairs), and
# with a vector of NAN_VALUES (a nan among them) as its fourth line: exit 1, the file, the line (and
# the qid); nothing written.
expect_bad_sequences_refused() {
  { head -5 sequences.txt; echo "1 qid:9 $2"; } > short_sequence.txt
  expect_error 1 "short_sequence.txt:6: qid 9: the sequence has 1 vector; an LDS fit needs at least 2" -- \
    "$PPK" fit "$1" --state-dim 1 short_sequence.txt -o bad.ppk
  expect_no_output bad.ppk
  { head -3 sequences.txt; echo "1 qid:1 $3"; } > not_finite.txt
  expect_error 1 "not_finite.txt:4:" "not finite" -- "$PPK" fit "$1" --state-dim 1 not_finite.txt -o bad.ppk
  expect_no_output bad.ppk
}

# expect_close ACTUAL EXPECTED_EXPRESSION [TOLERANCE]: |actual - expected| <= tol * max(1, |expected|),
# with EXPECTED_EXPRESSION an awk expression ("2/3", "1 + sqrt(2)").
expect_close() {
  awk -v actual="$1" -v tol="${3:-1e-12}" "BEGIN {
    expected = ($2); d = actual - expected; if (d < 0) d = -d
    scale = expected < 0 ? -expected : expected; if (scale < 1) scale = 1
    exit !(d <= tol * scale) }" || fail "value $1, expected $2"
  pass
}

# expect_chosen_strength LOG HOW: LOG (a fit's standard error) prints the strength chosen on the
# training file ("prior-count = ...") and HOW it was chosen (a fixed string).
expect_chosen_strength() {
  grep -qF "prior-count = " "$1" && grep -qF "$2" "$1" || fail "the chosen strength is not printed: $(cat "$1")"
  pass
}

# expect_unit_psd_gram ROWS T SIZE: the normalised Gram of ROWS (ppk gram -t ppk_norm -g 0.5 -d T)
# is SIZE x SIZE, finite, in (0, 1] with ones on the diagonal, and PSD (ppk gram --psd).
expect_unit_psd_gram() {
  "$PPK" gram -t ppk_norm -g 0.5 -d "$2" "$1" -o gram.txt
  python3 - "$3" <<'PY' || fail "the normalised Gram of $1: $(head -3 gram.txt)"
import math, sys
size = int(sys.argv[1])
gram = [[float(v) for v in line.split()] for line in open("gram.txt")]
assert len(gram) == size and all(len(row) == size for row in gram), gram
assert all(abs(gram[i][i] - 1) < 1e-12 for i in range(size)), gram
assert all(math.isfinite(v) and 0 < v <= 1 + 1e-12 for row in gram for v in row), gram
PY
  "$PPK" gram -t ppk_norm -g 0.5 -d "$2" --psd "$1" > psd.txt
  [[ $(sed -n 's/^size: //p' psd.txt) == "$3" && $(sed -n 's/^negative eigenvalues: //p' psd.txt) == 0 ]] ||
    fail "the normalised Gram of $1 is not PSD: $(cat psd.txt)"
  pass
}

# expect_rows_are_pooled ROWS POOLED: every model row of ROWS (decoded) is the one of POOLED, the
# pooled model, to 1e-9 in every number (same fields, shapes and strings), except its label and the
# kernel settings it stores, the length T and an slds's path count S: what a huge --relevance must give.
expect_rows_are_pooled() {
  "$PPK" decode "$1" -o rows_check.jsonl
  "$PPK" decode "$2" -o pooled_check.jsonl
  python3 - <<'PY' || fail "the rows of $1 are not the pooled model of $2"
import json
def same(a, b):
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, (int, float)) and not isinstance(a, bool):
        return isinstance(b, (int, float)) and abs(a - b) < 1e-9
    return a == b
pooled = json.loads(open("pooled_check.jsonl").readline())
settings = ("label", "length", "paths")
for key in settings:
    pooled.pop(key, None)
rows = [json.loads(line) for line in open("rows_check.jsonl")]
assert rows
for m in rows:
    for key in settings:
        m.pop(key, None)
    assert same(m, pooled), (m, pooled)
PY
  pass
}

# lds_models JSON_LINES: three LDSs of length 4 observed in 1-D: a 2-D state (label 1), a 1-D state
# (label -1), and a 2-D state with a fixed start (cov0 = 0) and a singular Q. lds.sh checks their
# Gram against JMLR 2004 eq. 5; slds.sh checks SLDSs that reduce to them.
lds_models() {
  cat > "$1" <<'JSON'
{"family":"lds","mean0":[1.0,-2.0],"cov0":[[1.0,0.5],[0.5,2.0]],"A":[[0.5,0.1],[0.2,0.8]],"Q":[[0.3,0.1],[0.1,0.2]],"C":[[1.0,2.0]],"R":[[0.5]],"length":4,"label":1}
{"family":"lds","mean0":[0.5],"cov0":[[0.7]],"A":[[0.9]],"Q":[[0.25]],"C":[[1.5]],"R":[[0.3]],"length":4,"label":-1}
{"family":"lds","mean0":[0.0,1.0],"cov0":[[0.0,0.0],[0.0,0.0]],"A":[[0.0,1.0],[-0.5,0.0]],"Q":[[1.0,0.0],[0.0,0.0]],"C":[[0.5,-1.0]],"R":[[1.0]],"length":4}
JSON
}

# hidden_class_network STRUCTURE OBSERVATIONS: a network with a hidden class h (2 states) and two
# observed children (3 and 2 states), and 8 examples of 10 joint observations each (qid groups,
# labels alternating), P(h = 1) rising from 0.2 to 0.76 over the examples; seeded.
hidden_class_network() {
  cat > "$1" <<'JSON'
{"nodes":[{"states":2},{"states":3,"parents":[0],"variable":0},{"states":2,"parents":[0],"variable":1}]}
JSON
  python3 - "$2" <<'PY'
import random, sys
random.seed(6)
with open(sys.argv[1], "w") as f:
    for i in range(8):
        for _ in range(10):
            h = random.random() < 0.2 + 0.08 * i
            x0 = random.choice([1, 1, 2, 3]) if h else random.choice([1, 3, 3, 3])
            f.write("%d qid:%d 1:%d 2:%d\n" % (1 if i % 2 else -1, i + 1, x0, random.choice([1, 2])))
PY
}

# rotating_state_sequences TRAIN TEST: 30 training and 8 test sequences of 12-14 2-D vectors (qid
# groups, labels alternating from +1; seed 4): a rotating 2-D state, slower for class +1 than for
# class -1, observed through a fixed C with noise.
rotating_state_sequences() {
  python3 - "$1" "$2" <<'PY'
import math, random, sys
random.seed(4)
def sequence(label, n):
    w = 0.5 if label > 0 else 0.9
    a = [[0.9 * math.cos(w), -0.9 * math.sin(w)], [0.9 * math.sin(w), 0.9 * math.cos(w)]]
    s, out = [random.gauss(0, 1), random.gauss(0, 1)], []
    for t in range(n):
        if t:
            s = [a[0][0] * s[0] + a[0][1] * s[1] + random.gauss(0, 0.4), a[1][0] * s[0] + a[1][1] * s[1] + random.gauss(0, 0.4)]
        out.append((s[0] + 0.3 * s[1] + random.gauss(0, 0.5), -0.4 * s[0] + 0.8 * s[1] + random.gauss(0, 0.5)))
    return out
for path, count in ((sys.argv[1], 30), (sys.argv[2], 8)):
    with open(path, "w") as f:
        for i in range(count):
            label = 1 if i % 2 == 0 else -1
            for x in sequence(label, 12 + i % 3):
                f.write("%d qid:%d 1:%.6f 2:%.6f\n" % (label, i + 1, x[0], x[1]))
PY
}
