#!/usr/bin/env bash
# The patched svm-train and svm-predict with the test plugin (kernel type 17, "test_linear",
# the dot product like -t 0): names and numbers, defaults, model files, predictions and decision
# values equal to -t 0, -v, -b, error messages, and how often each row is decoded.
#
#   plugin_cli.sh SVM_TRAIN SVM_PREDICT DECISION_VALUES PLUGIN_API_TEST TEST_PLUGIN HEART_SCALE
source "$(dirname "$0")/common.sh"
(($# == 6)) || fail "usage: $0 SVM_TRAIN SVM_PREDICT DECISION_VALUES PLUGIN_API_TEST TEST_PLUGIN HEART_SCALE"
svm_train=$1 svm_predict=$2 decision_values=$3 api_test=$4 plugin=$5 heart=$6
export LIBSVM_KERNEL_PLUGINS=$plugin
unset LIBSVM_TEST_PLUGIN_COUNT_FILE LIBSVM_TEST_PLUGIN_BATCH_FILE
cp "$heart" heart_scale
relabel heart_scale >three
l=$(wc -l <heart_scale)

# -h lists the plugin kernel type after the built-in ones
"$svm_train" -h >help.txt 2>&1 || true
must_contain help.txt "4 -- precomputed kernel"
must_contain help.txt "17 (test_linear) -- test plugin: u'*v like -t 0"
pass "svm-train -h lists the plugin kernel type"

# unknown kernel types
expect_failure bad_t "$svm_train" -t nonsense heart_scale model
must_contain bad_t.err "Unknown kernel type: nonsense"
expect_failure bad_n "$svm_train" -t 18 heart_scale model
must_contain bad_n.err "Unknown kernel type: 18"
pass "unknown -t values are refused"

# by name and by number: the same model; the plugin's -g/-d defaults; full-precision SVs
"$svm_train" -q -t test_linear heart_scale m_name
"$svm_train" -q -t 17 heart_scale m_number
cmp m_name m_number || fail "-t test_linear and -t 17 give different models"
must_contain m_name $'kernel_type test_linear\n'
grep -qx 'degree 7' m_name || fail "the plugin's default degree (7) is not used"
grep -qx 'gamma 2' m_name || fail "the plugin's default gamma (2) is not used"
"$svm_train" -q -t test_linear -g 0.25 -d 2 heart_scale m_given
grep -qx 'degree 2' m_given && grep -qx 'gamma 0.25' m_given || fail "-g/-d are not used"
"$svm_train" -q -t rbf heart_scale m_rbf_name
"$svm_train" -q -t 2 heart_scale m_rbf_number
cmp m_rbf_name m_rbf_number || fail "-t rbf and -t 2 give different models"
pass "-t by name and number; plugin defaults for -g/-d"

# same predictions and decision values as the built-in linear kernel
"$svm_train" -q -t 0 heart_scale m_linear
"$svm_predict" heart_scale m_linear p_linear >acc_linear
"$svm_predict" heart_scale m_name p_plugin >acc_plugin
cmp p_linear p_plugin || fail "predictions differ from -t 0"
cmp acc_linear acc_plugin || fail "accuracy differs from -t 0"
"$decision_values" m_linear heart_scale >d_linear
"$decision_values" m_name heart_scale >d_plugin
cmp d_linear d_plugin || fail "decision values differ from -t 0"
pass "predictions and decision values equal -t 0 ($(cat acc_plugin))"

for s in "-s 1" "-s 2" "-s 3" "-s 4"; do
  # shellcheck disable=SC2086
  "$svm_train" -q $s -t 0 three m_lin_s
  # shellcheck disable=SC2086
  "$svm_train" -q $s -t 17 three m_plug_s
  "$decision_values" m_lin_s three >d_lin_s
  "$decision_values" m_plug_s three >d_plug_s
  cmp d_lin_s d_plug_s || fail "$s: decision values differ from -t 0"
done
pass "nu-SVC, one-class, epsilon-SVR, nu-SVR (three classes) equal -t 0"

# LIBSVM asks for kernel values through evaluate_many when the plugin has it (the test plugin
# drops it with LIBSVM_TEST_PLUGIN_NO_BATCH; libsvm.plugin_cli_no_batch runs this file so)
batch_values() {
  rm -f batch
  LIBSVM_TEST_PLUGIN_BATCH_FILE=$PWD/batch "$@" >/dev/null
  cat batch
}
for run in "$svm_train -q -t 17 heart_scale m_batch" "$svm_train -q -s 3 -t 17 three m_batch" \
  "$svm_train -q -s 2 -t 17 three m_batch" "$svm_predict heart_scale m_name p_batch"; do
  # shellcheck disable=SC2086
  n=$(batch_values $run)
  if [[ -n ${LIBSVM_TEST_PLUGIN_NO_BATCH:-} ]]; then
    [[ $n == 0 ]] || fail "$run: $n kernel values through evaluate_many, which the plugin does not have"
  else
    ((n > 0)) || fail "$run: no kernel values through evaluate_many"
  fi
done
pass "training (SVC, SVR, one-class) and prediction use evaluate_many if the plugin has it${LIBSVM_TEST_PLUGIN_NO_BATCH:+ (here: it has not)}"

# model files keep every digit of the support vectors (%.17g): with values of 17 significant
# digits, each SV of the model is literally a row of the training data
awk '{ printf "%s", $1; for (k = 2; k <= NF; k++) { split($k, a, ":"); printf " %s:%.17g", a[1], a[2] / 3 } print "" }' \
  heart_scale >thirds
"$svm_train" -q -t 17 thirds m_thirds
awk 'NR == FNR { $1 = ""; rows[$0] = 1; next }
     /^SV$/ { sv = 1; next }
     sv { $1 = ""; sub(/ +$/, ""); n++; if (!($0 in rows)) { print "not a training row:" $0; bad = 1 } }
     END { if (!n) { print "no SVs"; bad = 1 } exit bad }' thirds m_thirds ||
  fail "support vectors lost digits in the model file"
pass "plugin model files keep full precision"

# cross validation and probability outputs
"$svm_train" -v 5 -t 0 heart_scale | grep 'Cross Validation' >cv_linear
"$svm_train" -v 5 -t test_linear heart_scale | grep 'Cross Validation' >cv_plugin
cmp cv_linear cv_plugin || fail "-v 5 differs from -t 0"
"$svm_train" -q -b 1 -t 0 three mb_linear
"$svm_train" -q -b 1 -t 17 three mb_plugin
"$svm_predict" -b 1 three mb_linear pb_linear >/dev/null
"$svm_predict" -b 1 three mb_plugin pb_plugin >/dev/null
cmp pb_linear pb_plugin || fail "-b 1 probabilities differ from -t 0"
pass "-v 5 ($(cat cv_plugin)) and -b 1 equal -t 0"

# bad rows: non-zero exit, the row number and the file name
awk 'NR == 5 { $0 = $0 " 999:1.5" } { print }' heart_scale >bad_rows
expect_failure train_bad "$svm_train" -t test_linear bad_rows m_bad
must_contain train_bad.err "bad_rows"
must_contain train_bad.err "row 5: test_linear: index 999 is not allowed"
[[ ! -e m_bad ]] || fail "a model was written from bad rows"
awk 'NR == 7 { $0 = $0 " 997:1" } { print }' heart_scale >mixed_rows
expect_failure train_mixed "$svm_train" -t test_linear mixed_rows m_mixed
must_contain train_mixed.err "mixed_rows: rows 1 and 7: test_linear: rows of different flavors"
expect_failure train_g0 "$svm_train" -t test_linear -g 0 heart_scale m_g0
must_contain train_g0.err "-g must be > 0"
expect_failure predict_bad "$svm_predict" bad_rows m_name p_bad
must_contain predict_bad.err "bad_rows:line 5: test_linear: index 999 is not allowed"
expect_failure predict_mixed "$svm_predict" mixed_rows m_name p_mixed
must_contain predict_mixed.err "mixed_rows:line 7: support vector 1: test_linear: rows of different flavors"
pass "bad rows are reported with file and row: $(head -n1 train_bad.err)"

# programs that skip svm_check_parameter / svm_check_example: the library does not exit; the bad
# row predicts NaN, the others as svm-predict does
"$api_test" --train-unchecked bad_rows || fail "svm_train on an undecodable row ended the program"
"$api_test" --predict-unchecked m_name bad_rows >unchecked_p || fail "svm_predict on an undecodable row ended the program"
"$svm_predict" heart_scale m_name p_checked >/dev/null
awk 'NR == FNR { want[FNR] = $1; next }
     FNR == 5 { if ($1 != "nan" && $1 != "-nan") exit 1; next }
     $1 != want[FNR] { exit 1 }' p_checked unchecked_p || fail "unchecked predictions: $(sed -n 4,6p unchecked_p | tr '\n' ' ')"
pass "unchecked svm_train and svm_predict return: the bad row predicts $(sed -n 5p unchecked_p)"

# a model of a plugin kernel type cannot be loaded without the plugin
expect_failure no_plugin env LIBSVM_KERNEL_PLUGINS= "$svm_predict" heart_scale m_name p_none
must_contain no_plugin.err "m_name:2: unknown kernel_type 'test_linear': not built in, and no plugin loaded has it"
must_contain no_plugin.err "can't open model file m_name"
pass "without the plugin, its models do not load"

# decode counts: svm_check_parameter decodes each row, and each kernel matrix its rows (one matrix
# per pair of classes, per -v fold, per -b internal fold); svm-predict decodes the support vectors
# once, and each test row twice (svm_check_example, then svm_predict)
count() {
  rm -f count
  LIBSVM_TEST_PLUGIN_COUNT_FILE=$PWD/count "$@" >/dev/null
  cat count
}
for run in "heart_scale:2" "three:3" "-s 3 heart_scale:2" "-s 2 three:2"; do
  # shellcheck disable=SC2086
  c=$(count "$svm_train" -q -t 17 ${run%:*} m_count)
  [[ $c == $((${run#*:} * l)) ]] || fail "svm-train ${run%:*}: $c decodes for $l rows"
done
pass "svm-train decodes each of the $l rows once to check them and once per kernel matrix"
"$svm_train" -q -t 17 three m_three
nsv=$(awk '$1 == "total_sv" { print $2 }' m_three)
c=$(count "$svm_predict" three m_three p_three)
[[ $c == $((nsv + 2 * l)) ]] || fail "svm-predict: $c decodes, expected $nsv + 2 * $l"
pass "svm-predict decodes the $nsv support vectors once"
