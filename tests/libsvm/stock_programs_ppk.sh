#!/usr/bin/env bash
# The distribution's unmodified /usr/bin/svm-train and /usr/bin/svm-predict, on the patched
# libsvm.so.3, find the ppk plugin in libsvm-plugins/ next to the library and train and predict
# with -t 5 (ppk) on isotropic Gaussian rows.
#
#   stock_programs_ppk.sh LIBDIR SVM_TRAIN SVM_PREDICT
source "$(dirname "$0")/common.sh"
(($# == 3)) || fail "usage: $0 LIBDIR SVM_TRAIN SVM_PREDICT"
libdir=$1 svm_train=$2 svm_predict=$3
require_stock_programs
[[ -f $libdir/libsvm-plugins/ppk.so ]] || fail "$libdir/libsvm-plugins/ppk.so is missing"

isotropic_gaussian_rows >gauss
head -n 40 gauss >train
tail -n 20 gauss >test

stock() { with_lib "$libdir" env -u LIBSVM_KERNEL_PLUGINS "$@"; }
# the stock programs set -g and -d themselves: give them (rho = 1, T = 0)
stock "$stock_train" -q -t 5 -g 1 -d 0 train m_stock
must_contain m_stock $'kernel_type ppk\n'
stock "$stock_predict" test m_stock p_stock >acc_stock
acc=$(sed -n 's/^Accuracy = \([0-9.]*\)%.*/\1/p' acc_stock)
awk -v a="$acc" 'BEGIN { exit !(a >= 80) }' || fail "accuracy $acc% on well separated Gaussians"

# the patched programs agree
env -u LIBSVM_KERNEL_PLUGINS "$svm_train" -q -t ppk -g 1 -d 0 train m_patched
cmp m_stock m_patched || fail "the patched svm-train writes a different ppk model"
env -u LIBSVM_KERNEL_PLUGINS "$svm_predict" test m_patched p_patched >/dev/null
cmp p_stock p_patched || fail "different predictions"
stock "$stock_train" -v 5 -t 5 -g 1 -d 0 train | grep 'Cross Validation'
pass "/usr/bin/svm-train -t 5 + /usr/bin/svm-predict with the ppk plugin: $(cat acc_stock)"
