#!/usr/bin/env bash
# The patched svm-train on files too small to train on (04-programs.patch): an empty training file,
# and a file of one class for a classifier (-s 0, -s 1), end with exit status 1, a message naming
# the file (and the class, and -s 2 for one class), and no model file, whatever -s and -v; the
# one-class SVM (-s 2) and regression (-s 3) still train on the one-class file. The distribution's
# svm-train (LIBSVM 3.24, unpatched) dies of SIGFPE on the empty file with -v 5: what the patch stops.
#
#   small_files.sh SVM_TRAIN HEART_SCALE
source "$(dirname "$0")/common.sh"
(($# == 2)) || fail "usage: $0 SVM_TRAIN HEART_SCALE"
svm_train=$1 heart=$2

# refused NAME TEXT OPTIONS... FILE: svm-train OPTIONS FILE exits 1 with TEXT on standard error and
# writes no model (neither FILE.model, its default name, nor an explicit one).
refused() {
  local name=$1 text=$2
  shift 2
  local file=${*: -1}
  rm -f "$file.model" explicit.model
  local status=0
  "$svm_train" "$@" >"$name.out" 2>"$name.err" || status=$?
  ((status == 1)) || fail "svm-train $*: exit status $status, expected 1: $(cat "$name.err")"
  must_contain "$name.err" "$text"
  [[ ! -e $file.model ]] || fail "svm-train $*: wrote $file.model"
  status=0
  "$svm_train" "${@:1:$#-1}" "$file" explicit.model >/dev/null 2>&1 || status=$?
  ((status == 1)) || fail "svm-train $* explicit.model: exit status $status, expected 1"
  [[ ! -e explicit.model ]] || fail "svm-train $* explicit.model: wrote the model"
  pass "svm-train $*: exit 1, '$text', no model"
}

: >empty
for options in "" "-v 5" "-s 1 -v 2" "-s 2" "-s 3 -v 5" "-s 4"; do
  # shellcheck disable=SC2086
  refused empty "ERROR: empty: no training examples" $options empty
done

awk '$1 == "+1"' "$heart" >one_class
[[ $(wc -l <one_class) -gt 10 ]] || fail "heart_scale has no rows of class +1"
for options in "-s 0" "-s 1" "-s 0 -v 5" "-s 1 -v 3" "-s 0 -t 0"; do
  # shellcheck disable=SC2086
  refused one_class "ERROR: one_class: every training example is of class 1" $options one_class
  must_contain one_class.err "at least two classes"
  must_contain one_class.err "use -s 2, the one-class SVM"
done
# A classifier's default -s is 0.
refused default_type "every training example is of class 1" one_class

# What the message advises trains: the one-class SVM, and regression on the same labels.
for options in "-s 2" "-s 3" "-s 2 -v 5"; do
  rm -f one_class.model
  # shellcheck disable=SC2086
  "$svm_train" -q $options one_class || fail "svm-train $options one_class failed"
  if [[ $options != *-v* ]]; then
    [[ -s one_class.model ]] || fail "svm-train $options one_class wrote no model"
  fi
  pass "svm-train $options one_class trains"
done
# Two classes of one example each: trained, not refused.
awk '$1 == "+1" { print; exit }' "$heart" >two
awk '$1 == "-1" { print; exit }' "$heart" >>two
"$svm_train" -q two two.model || fail "svm-train on one example of each class failed"
pass "svm-train on one example of each of two classes trains"

require_stock_programs
status=0
"$stock_train" -v 5 empty >stock.out 2>stock.err || status=$?
((status == 128 + 8)) || fail "the distribution's svm-train -v 5 on an empty file: exit status $status, expected SIGFPE (136)"
pass "the distribution's svm-train -v 5 dies of SIGFPE on the empty file (status $status)"
