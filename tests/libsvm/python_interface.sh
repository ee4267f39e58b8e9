#!/usr/bin/env bash
# LIBSVM's Python interface, both LIBSVM's own python/ module from the patched source and the
# distribution's python3-libsvm, on the patched libsvm.so.3 (LD_LIBRARY_PATH): ppk fit ->
# svm_read_problem -> svm_train -t 5 / -t 6 -> svm_predict gives the model file, predictions,
# decision values, accuracy and cross-validation accuracy of the svm-train/svm-predict command line.
#
#   python_interface.sh LIBDIR PYTHON_MODULE_DIR SVM_TRAIN SVM_PREDICT DECISION_VALUES PPK
source "$(dirname "$0")/common.sh"
(($# == 6)) || fail "usage: $0 LIBDIR PYTHON_MODULE_DIR SVM_TRAIN SVM_PREDICT DECISION_VALUES PPK"
libdir=$1 module_dir=$2 svm_train=$3 svm_predict=$4 decision_values=$5 ppk=$6
python3=/usr/bin/python3   # the system interpreter: python3-libsvm is a Debian package
[[ -f $module_dir/svmutil.py ]] || fail "$module_dir/svmutil.py is missing"
[[ -f /usr/lib/python3/dist-packages/svmutil.py ]] ||
  fail "python3-libsvm is not installed (scripts/install-deps.sh installs it)"

gaussian_sets 75 977 >sets
"$ppk" fit gaussian --cov diag sets -o all.ppk
head -n 45 all.ppk >train.ppk
tail -n 30 all.ppk >test.ppk

# the command line (-d 0 as the plugin's default: python3-libsvm does not know plugin defaults)
for t in 5 6; do
  "$svm_train" -q -t $t -g 0.5 -d 0 train.ppk m$t
  "$svm_predict" test.ppk m$t p$t | grep '^Accuracy' >acc$t
  "$decision_values" m$t test.ppk >dv$t
  "$svm_train" -v 5 -t $t -g 0.5 -d 0 train.ppk | grep '^Cross Validation' >cv$t
done
"$svm_train" -q -t ppk_norm train.ppk m_defaults

# python.py WHICH T: trains and predicts as the command line did, writing WHICH_* files (one
# process per kernel type: -v 5 draws its folds from the C library's rand(), which a fresh
# process starts from the same state, as svm-train does)
cat >python.py <<'PY'
import sys
from svmutil import svm_read_problem, svm_train, svm_predict, svm_save_model, svm_load_model
which, t = sys.argv[1], int(sys.argv[2])
y, x = svm_read_problem('train.ppk')
ty, tx = svm_read_problem('test.ppk')
options = '-q -t %d -g 0.5 -d 0' % t
cv = svm_train(y, x, '-v 5 ' + options)
with open('%s_cv%d' % (which, t), 'w') as f:
    f.write('Cross Validation Accuracy = %g%%\n' % cv)
svm_save_model('%s_m%d' % (which, t), svm_train(y, x, options))
m = svm_load_model('%s_m%d' % (which, t))
p, acc, dv = svm_predict(ty, tx, m, '-q')
with open('%s_dv%d' % (which, t), 'w') as f:
    for label, values in zip(p, dv):
        f.write(' '.join('%.17g' % v for v in [label] + list(values)) + '\n')
with open('%s_acc%d' % (which, t), 'w') as f:
    correct = sum(1 for a, b in zip(p, ty) if a == b)
    f.write('Accuracy = %g%% (%d/%d) (classification)\n' % (acc[0], correct, len(ty)))
if which == 'bundled' and t == 5:
    # the patched python/ module: -t by name, and the plugin's own -g/-d defaults
    svm_save_model('bundled_m_by_name', svm_train(y, x, '-q -t ppk -g 0.5 -d 0'))
    svm_save_model('bundled_m_defaults', svm_train(y, x, '-q -t ppk_norm'))
    try:
        svm_train(y, x, '-q -t no_such_kernel')
        sys.exit('-t no_such_kernel was accepted')
    except ValueError as e:
        assert 'Unknown kernel type: no_such_kernel' in str(e), e
print('%s, -t %d: done' % (which, t))
PY

for t in 5 6; do
  with_lib "$libdir" env PYTHONPATH="$module_dir" "$python3" python.py bundled $t
  with_lib "$libdir" env -u PYTHONPATH "$python3" python.py distribution $t
done
# where each module came from
with_lib "$libdir" env PYTHONPATH="$module_dir" "$python3" -c 'import svmutil; print(svmutil.__file__)' >where_bundled
with_lib "$libdir" env -u PYTHONPATH "$python3" -c 'import svmutil; print(svmutil.__file__)' >where_distribution
[[ $(<where_bundled) == "$module_dir/svmutil.py" ]] || fail "the bundled module was not used: $(<where_bundled)"
[[ $(<where_distribution) == /usr/lib/python3/dist-packages/svmutil.py ]] ||
  fail "python3-libsvm was not used: $(<where_distribution)"

for which in bundled distribution; do
  for t in 5 6; do
    cmp m$t ${which}_m$t || fail "$which, -t $t: the saved model differs from svm-train's"
    cmp dv$t ${which}_dv$t || fail "$which, -t $t: predictions and decision values differ from the command line"
    cmp acc$t ${which}_acc$t || fail "$which, -t $t: $(cat ${which}_acc$t), command line: $(cat acc$t)"
    cmp cv$t ${which}_cv$t || fail "$which, -t $t -v 5: $(cat ${which}_cv$t), command line: $(cat cv$t)"
    pass "$which Python module, -t $t = command line ($(cat acc$t); $(cat cv$t))"
  done
done
cmp m5 bundled_m_by_name || fail "the bundled module's -t ppk differs from -t 5"
cmp m_defaults bundled_m_defaults || fail "the bundled module's -t ppk_norm defaults differ from svm-train's"
pass "bundled Python module: -t by name and the plugin's -g/-d defaults"

# without the patched library the bundled module cannot start (it needs the plugin API)
expect_failure no_lib env -u LD_LIBRARY_PATH PYTHONPATH="$module_dir" "$python3" -c 'import svmutil'
must_contain no_lib.err "svm_kernel_type_from_string"
pass "the bundled module on the distribution's library fails at import, naming the missing function"
