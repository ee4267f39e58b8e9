# Sourced by the libsvm test scripts: a temporary working directory and helpers.
set -euo pipefail

fail() { echo "FAIL: $*" >&2; exit 1; }
pass() { echo "ok: $*"; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ppk-libsvm-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

stock_train=/usr/bin/svm-train
stock_predict=/usr/bin/svm-predict
require_stock_programs() {
  [[ -x $stock_train && -x $stock_predict ]] ||
    fail "the distribution's $stock_train and $stock_predict are missing (scripts/install-deps.sh installs libsvm-tools)"
}

# with_lib DIR COMMAND...: runs COMMAND (a distribution program) on the libsvm.so.3 in DIR. In
# sanitizer builds CMake sets PPK_SANITIZER_PRELOAD: the sanitizer runtimes must come first in a
# program that is not instrumented itself, and its own leaks are not ours.
with_lib() {
  local dir=$1
  shift
  if [[ -n ${PPK_SANITIZER_PRELOAD:-} ]]; then
    LD_LIBRARY_PATH=$dir LD_PRELOAD=$PPK_SANITIZER_PRELOAD ASAN_OPTIONS=detect_leaks=0 "$@"
  else
    LD_LIBRARY_PATH=$dir "$@"
  fi
}

# expect_failure OUT_PREFIX command...: the command must exit non-zero; stdout/stderr in OUT_PREFIX.out/.err
expect_failure() {
  local out=$1; shift
  if "$@" >"$out.out" 2>"$out.err"; then
    fail "expected failure: $*"
  fi
}

# must_contain FILE TEXT: FILE contains TEXT (fixed string)
must_contain() {
  grep -qF -- "$2" "$1" || { echo "--- $1:" >&2; cat "$1" >&2; fail "$1 does not contain: $2"; }
}

# relabel FILE: the rows of FILE with labels 0, 1, 2, 0, 1, 2, ... (a three-class problem)
relabel() {
  awk '{ $1 = (NR - 1) % 3; print }' "$1"
}

# gaussian_sets N SEED: N examples in three overlapping classes (labels 0, 1, 2), each a qid
# group of six 2-D points around (0, 0), (0.6, 0) or (0, 0.6); for ppk fit gaussian.
gaussian_sets() {
  awk -v n="$1" -v seed="$2" 'BEGIN {
    srand(seed)
    for (e = 1; e <= n; e++) {
      y = e % 3
      cx = (y == 1) ? 0.6 : 0
      cy = (y == 2) ? 0.6 : 0
      for (k = 0; k < 6; k++)
        printf "%d qid:%d 1:%.4f 2:%.4f\n", y, e, cx + 2 * (rand() - 0.5), cy + 2 * (rand() - 0.5)
    }
  }'
}

# isotropic_gaussian_rows: 60 ppk rows (version 1, family 1 = gaussian, D = 2, isotropic: mean
# (m1, m2), variance v), class +1 around (1, 1) and class -1 around (-1, -1); well separated.
isotropic_gaussian_rows() {
  awk 'BEGIN {
    srand(12345)
    for (i = 0; i < 60; i++) {
      y = (i % 2) ? 1 : -1
      printf "%d 1:1 2:1 3:2 4:1 5:%.6f 6:%.6f 7:%.6f\n", y, y + 1.2 * (rand() - 0.5) * 2, y + 1.2 * (rand() - 0.5) * 2, 0.3 + 0.4 * rand()
    }
  }'
}
