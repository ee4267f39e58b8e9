#!/usr/bin/env bash
# The ppk plugin's threads (its own pool, sized by OMP_NUM_THREADS): svm-train -t ppk / ppk_norm
# on LDS and mixture rows, whose kernel columns take milliseconds (so they run on the pool), gives
# the same model file, cross-validation accuracy and predictions with 1, 2 and 3 threads, with a
# competing busy process too; and in a Python process (LIBSVM's python/ module) on 2 threads, the
# model of svm-train on 1 thread.
#
#   ppk_threads.sh LIBDIR PYTHON_MODULE_DIR SVM_TRAIN SVM_PREDICT PPK
bench=$(cd "$(dirname "$0")/../../bench" && pwd)
source "$(dirname "$0")/common.sh"
(($# == 5)) || fail "usage: $0 LIBDIR PYTHON_MODULE_DIR SVM_TRAIN SVM_PREDICT PPK"
libdir=$1 module_dir=$2 svm_train=$3 svm_predict=$4 ppk=$5
unset OMP_NUM_THREADS OMP_WAIT_POLICY GOMP_SPINCOUNT

# 90 sequences of 30 3-D vectors from a scalar state s_t = a s_{t-1} + noise, a = 0.8 (label 1)
# or -0.7 (label -1) (the benchmarks' generator); LDS rows with a 1-D state, and 3-component
# mixture rows of the same vectors.
python3 "$bench/make_series.py" --n 90 --length 30 --dim 3 --seed 7 >series
"$ppk" fit lds --state-dim 1 --iterations 20 series -o lds.ppk
"$ppk" fit mixture --components 3 series -o mixture.ppk
for rows in lds mixture; do
  head -n 60 $rows.ppk >$rows.train
  tail -n 30 $rows.ppk >$rows.test
done

declare -A options=([lds]="-g 0.1 -d 10 -c 10" [mixture]="-g 0.5 -c 10")
runs() {  # NAME THREADS: model, predictions and cross-validation accuracy of each case
  local name=$1 threads=$2 rows kernel
  for rows in lds mixture; do
    for kernel in ppk ppk_norm; do
      # shellcheck disable=SC2086
      OMP_NUM_THREADS=$threads "$svm_train" -q -t $kernel ${options[$rows]} $rows.train m.$rows.$kernel.$name
      OMP_NUM_THREADS=$threads "$svm_predict" $rows.test m.$rows.$kernel.$name p.$rows.$kernel.$name >/dev/null
      # shellcheck disable=SC2086
      OMP_NUM_THREADS=$threads "$svm_train" -v 4 -t $kernel ${options[$rows]} $rows.train | grep '^Cross' >cv.$rows.$kernel.$name
    done
  done
}
same_as_one_thread() {  # NAME
  local rows kernel
  for rows in lds mixture; do
    for kernel in ppk ppk_norm; do
      cmp m.$rows.$kernel.1 m.$rows.$kernel.$1 || fail "$rows -t $kernel: the model of $1 differs from 1 thread's"
      cmp p.$rows.$kernel.1 p.$rows.$kernel.$1 || fail "$rows -t $kernel: the predictions of $1 differ from 1 thread's"
      cmp cv.$rows.$kernel.1 cv.$rows.$kernel.$1 || fail "$rows -t $kernel -v 4: $1 $(<cv.$rows.$kernel.$1), 1 thread $(<cv.$rows.$kernel.1)"
    done
  done
}

runs 1 1
runs 2 2
runs 3 3
same_as_one_thread 2
same_as_one_thread 3
pass "1, 2 and 3 threads: the same models, predictions and cross-validation accuracies"

sh -c 'while :; do :; done' &
busy=$!
trap 'kill $busy 2>/dev/null || true; rm -rf "$tmp"' EXIT
runs loaded 2
kill $busy
wait $busy 2>/dev/null || true
trap 'rm -rf "$tmp"' EXIT
same_as_one_thread loaded
pass "2 threads beside a busy process: the same results"

with_lib "$libdir" env PYTHONPATH="$module_dir" OMP_NUM_THREADS=2 python3 - <<'PY'
from svmutil import svm_read_problem, svm_train, svm_save_model
y, x = svm_read_problem('lds.train')
svm_save_model('m.python', svm_train(y, x, '-q -t ppk_norm -g 0.1 -d 10 -c 10'))
PY
cmp m.lds.ppk_norm.1 m.python || fail "LIBSVM's Python module on 2 threads: a different model"
pass "a Python process on 2 threads: svm-train's model"
