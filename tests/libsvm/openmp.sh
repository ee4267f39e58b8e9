#!/usr/bin/env bash
# OpenMP (PPK_OPENMP): with an expensive kernel (the test plugin made slow) and no evaluate_many
# (LIBSVM_TEST_PLUGIN_NO_BATCH), training and prediction evaluate kernels on several threads; with
# evaluate_many, LIBSVM hands it whole column parts on one thread (a plugin may use threads of its
# own, as ppk's do: tests/libsvm/ppk_threads.sh). Either way the results are bit for bit those of
# one thread; cheap kernels give identical results too.
#
#   openmp.sh SVM_TRAIN SVM_PREDICT DECISION_VALUES TEST_PLUGIN HEART_SCALE
source "$(dirname "$0")/common.sh"
(($# == 5)) || fail "usage: $0 SVM_TRAIN SVM_PREDICT DECISION_VALUES TEST_PLUGIN HEART_SCALE"
svm_train=$1 svm_predict=$2 decision_values=$3 plugin=$4 heart=$5
export LIBSVM_KERNEL_PLUGINS=$plugin
unset OMP_NUM_THREADS LIBSVM_TEST_PLUGIN_COUNT_FILE LIBSVM_TEST_PLUGIN_BATCH_FILE
cp "$heart" heart_scale
relabel heart_scale >three

slow=LIBSVM_TEST_PLUGIN_SLOW_NS=3000
data=heart_scale
env OMP_NUM_THREADS=1 $slow "$svm_train" -q -t 17 $data m1
# threads_ok N: the number of threads that evaluated kernels, as expected for the plugin's path
threads_ok() {
  if [[ -n ${LIBSVM_TEST_PLUGIN_NO_BATCH:-} ]]; then
    (($1 >= 2))
  else
    (($1 == 1))
  fi
}
n=$(env OMP_NUM_THREADS=2 $slow LIBSVM_TEST_PLUGIN_THREADS_FILE=$PWD/threads "$svm_train" -q -t 17 $data m2 && cat threads)
threads_ok $n || fail "training evaluated the slow kernel on $n thread(s) with OMP_NUM_THREADS=2"
cmp m1 m2 || fail "one and two threads give different models"
rm -f threads

env OMP_NUM_THREADS=1 $slow "$svm_predict" $data m1 p1 >/dev/null
n=$(env OMP_NUM_THREADS=2 $slow LIBSVM_TEST_PLUGIN_THREADS_FILE=$PWD/threads "$svm_predict" $data m1 p2 >/dev/null && cat threads)
threads_ok $n || fail "prediction evaluated the slow kernel on $n thread(s)"
cmp p1 p2 || fail "one and two threads predict differently"
env OMP_NUM_THREADS=1 "$decision_values" m1 $data >d1
env OMP_NUM_THREADS=2 $slow "$decision_values" m1 $data >d2
cmp d1 d2 || fail "one and two threads give different decision values"
pass "an expensive kernel runs on $n thread(s), with the results of 1 thread"

for data in heart_scale three; do
  for t in 0 2 17; do
    OMP_NUM_THREADS=1 "$svm_train" -q -t $t $data c1
    OMP_NUM_THREADS=2 "$svm_train" -q -t $t $data c2
    cmp c1 c2 || fail "$data -t $t: one and two threads give different models"
  done
done
pass "cheap kernels: the same models with 1 and 2 threads"
