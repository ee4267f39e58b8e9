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
