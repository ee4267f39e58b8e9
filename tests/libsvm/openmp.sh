#!/usr/bin/env bash
# OpenMP (PPK_OPENMP): LIBSVM's own loops stay serial, as in LIBSVM 3.24, however many threads
# OpenMP is given: even with an expensive kernel (the test plugin made slow), training and
# prediction evaluate kernels on one thread, with evaluate_many (whole column parts in one call; a
# plugin may use threads of its own there, as ppk's do: tests/libsvm/ppk_threads.sh) and without it
# (LIBSVM_TEST_PLUGIN_NO_BATCH). The results with OMP_NUM_THREADS=2 are bit for bit those of 1.
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
# threads_ok N: the number of threads that evaluated kernels
threads_ok() { (($1 == 1)); }
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
pass "an expensive kernel runs on $n thread with OMP_NUM_THREADS=2, with the results of OMP_NUM_THREADS=1"

for data in heart_scale three; do
  for t in 0 2 17; do
    OMP_NUM_THREADS=1 "$svm_train" -q -t $t $data c1
    OMP_NUM_THREADS=2 "$svm_train" -q -t $t $data c2
    cmp c1 c2 || fail "$data -t $t: one and two threads give different models"
  done
done
pass "cheap kernels: the same models with 1 and 2 threads"
