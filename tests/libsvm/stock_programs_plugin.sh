#!/usr/bin/env bash
# The distribution's unmodified /usr/bin/svm-train, /usr/bin/svm-predict and python3-libsvm gain
# the plugin kernel types just by loading the patched libsvm.so.3 (LD_LIBRARY_PATH); plugins are
# found through LIBSVM_KERNEL_PLUGINS or in libsvm-plugins/ next to the library.
#
#   stock_programs_plugin.sh LIBDIR TEST_PLUGIN HEART_SCALE
source "$(dirname "$0")/common.sh"
(($# == 3)) || fail "usage: $0 LIBDIR TEST_PLUGIN HEART_SCALE"
libdir=$1 plugin=$2 heart=$3
require_stock_programs
cp "$heart" heart_scale
relabel heart_scale >three

# the system's own library knows no kernel type 17
expect_failure system_lib env -u LD_LIBRARY_PATH "$stock_train" -t 17 heart_scale m_system
must_contain system_lib.err "unknown kernel type"

patched() { LIBSVM_KERNEL_PLUGINS=$plugin with_lib "$libdir" "$@"; }

for data in heart_scale three; do
  "$stock_train" -q -t 0 $data m0_$data
  "$stock_predict" $data m0_$data p0_$data >acc0_$data
  patched "$stock_train" -q -t 17 $data m17_$data
  patched "$stock_predict" $data m17_$data p17_$data >acc17_$data
  must_contain m17_$data $'kernel_type test_linear\n'
  # the stock program's own defaults reach the plugin: -d 3, -g 1/num_features
  grep -qx 'degree 3' m17_$data || fail "expected the stock default degree 3"
  grep -qx 'gamma 0.076923076923076927' m17_$data || fail "expected the stock default gamma 1/13"
  cmp p0_$data p17_$data || fail "$data: /usr/bin/svm-predict -t 17 predictions differ from -t 0"
  cmp acc0_$data acc17_$data || fail "$data: accuracy differs"
  pass "$data: /usr/bin/svm-train -t 17 + /usr/bin/svm-predict = -t 0 ($(cat acc17_$data))"
done

"$stock_train" -v 5 -t 0 three | grep 'Cross Validation' >cv0
patched "$stock_train" -v 5 -t 17 three | grep 'Cross Validation' >cv17
cmp cv0 cv17 || fail "-v 5 differs"
"$stock_train" -q -b 1 -t 0 three mb0
patched "$stock_train" -q -b 1 -t 17 three mb17
"$stock_predict" -b 1 three mb0 pb0 >/dev/null
patched "$stock_predict" -b 1 three mb17 pb17 >/dev/null
cmp pb0 pb17 || fail "-b 1 differs"
pass "/usr/bin/svm-train -v 5 and -b 1 with -t 17 = -t 0"

# discovery: every *.so in libsvm-plugins/ next to the loaded library; a broken one is skipped
# with one warning line
mkdir -p lib/libsvm-plugins
cp -L "$libdir/libsvm.so.3" lib/
cp "$plugin" lib/libsvm-plugins/
echo "not a shared object" >lib/libsvm-plugins/broken.so
echo "ignored" >lib/libsvm-plugins/README
with_lib "$PWD/lib" env -u LIBSVM_KERNEL_PLUGINS "$stock_train" -q -t 17 heart_scale m_found 2>found.err
cmp m_found m17_heart_scale || fail "the discovered plugin gives a different model"
[[ $(wc -l <found.err) == 1 ]] || { cat found.err >&2; fail "expected exactly one warning line"; }
must_contain found.err "WARNING: libsvm: cannot load kernel plugin $PWD/lib/libsvm-plugins/broken.so"
expect_failure none with_lib "$PWD/lib" env LIBSVM_KERNEL_PLUGINS= "$stock_train" -t 17 heart_scale m_none
must_contain none.err "unknown kernel type"
pass "plugins are discovered in libsvm-plugins/ (LIBSVM_KERNEL_PLUGINS= disables them)"

# the distribution's Python module
# (the system interpreter: python3-libsvm is a Debian package)
python3=/usr/bin/python3
if "$python3" -c "import svmutil" 2>/dev/null; then
  patched "$python3" - heart_scale <<'PY'
import sys
from svmutil import svm_read_problem, svm_train, svm_predict, svm_save_model, svm_load_model
y, x = svm_read_problem(sys.argv[1])
results = {}
for t in (0, 17):
    m = svm_train(y, x, '-q -t %d' % t)
    svm_save_model('py%d.model' % t, m)
    results[t] = svm_predict(y, x, svm_load_model('py%d.model' % t), '-q')
assert results[0][0] == results[17][0], 'labels differ'
assert results[0][2] == results[17][2], 'decision values differ'
assert open('py17.model').readline() and 'kernel_type test_linear\n' in open('py17.model').read()
print('python3-libsvm: -t 17 = -t 0, accuracy %g%%' % results[17][1][0])
PY
  pass "python3-libsvm trains and predicts with -t 17"
else
  fail "python3-libsvm (svmutil) is not installed (scripts/install-deps.sh installs it)"
fi
