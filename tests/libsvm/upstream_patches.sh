#!/usr/bin/env bash
# The patch series on a LIBSVM source tree the user gives (e.g. upstream's current release): a
# copy of the tree gets 01-kernel-type-registry, 02-evaluate-many, 03-support-vector-cache,
# 04-programs, 06-model-loader and 07-matlab-model (patch's usual offsets and fuzz allowed); its svm.cpp, svm-train
# and svm-predict are built with -fopenmp (so
# that upstream's own OpenMP loops, LIBSVM >= 3.30, run), and also the unpatched ones.
#   * -t ppk (the ppk plugin, by name) trains and predicts: the predictions are those of this
#     build's svm-train and svm-predict (LIBSVM 3.24 + the series);
#   * -t 2, -t 0 and -s 3: the patched tree writes the model files of the unpatched tree, byte for
#     byte, and predicts as it does.
# Skipped (exit 77) when no tree is given: configure with -DLIBSVM_UPSTREAM_SOURCE=DIR, or set
# the environment variable LIBSVM_UPSTREAM_SOURCE=DIR when running ctest.
#
#   upstream_patches.sh SOURCE_TREE PATCH_DIR CXX PPK_PLUGIN SVM_TRAIN SVM_PREDICT HEART_SCALE
source "$(dirname "$0")/common.sh"
(($# == 7)) || fail "usage: $0 SOURCE_TREE PATCH_DIR CXX PPK_PLUGIN SVM_TRAIN SVM_PREDICT HEART_SCALE"
tree=${1:-${LIBSVM_UPSTREAM_SOURCE:-}} patches=$2 cxx=$3 plugin=$4 svm_train=$5 svm_predict=$6 heart=$7
if [[ -z $tree ]]; then
  echo "SKIPPED: no LIBSVM source tree given; run with -DLIBSVM_UPSTREAM_SOURCE=DIR at configure time, or"
  echo "LIBSVM_UPSTREAM_SOURCE=DIR ctest -R libsvm.upstream_patches (DIR: an unmodified LIBSVM source tree)"
  exit 77
fi
[[ -f $tree/svm.cpp && -f $tree/svm-train.c ]] || fail "$tree is not a LIBSVM source tree (no svm.cpp, svm-train.c)"
version=$(sed -n 's/^#define LIBSVM_VERSION \([0-9]*\).*/\1/p' "$tree/svm.h")

rm -rf pristine patched
cp -r "$tree" pristine
cp -r "$tree" patched
series=(01-kernel-type-registry 02-evaluate-many 03-support-vector-cache 04-programs 06-model-loader
  07-matlab-model)
for p in "${series[@]}"; do
  (cd patched && patch -p1 --batch --forward -i "$patches/$p.patch" >"../$p.log" 2>&1) ||
    fail "$p.patch does not apply to LIBSVM $version: $(cat "$p.log")"
  echo "$p.patch: $(grep -c '^Hunk' "$p.log") hunk(s) moved or fuzzed: $(grep -o 'with fuzz [0-9]' "$p.log" | sort | uniq -c | tr -s ' ' | tr '\n' ';')"
done

build() {  # DIR: libsvm.so, svm-train, svm-predict, as LIBSVM's Makefile builds them (C++), with -fopenmp
  (cd "$1" &&
    "$cxx" -O2 -fPIC -fopenmp -shared svm.cpp -o libsvm.so -ldl &&
    for prog in svm-train svm-predict; do
      "$cxx" -O2 -x c++ $prog.c -x none -o $prog -L. -lsvm -Wl,-rpath,"$PWD"
    done) || fail "cannot build $1 of LIBSVM $version"
}
build pristine
build patched

# -t ppk: isotropic Gaussian rows, trained and predicted by name
isotropic_gaussian_rows >gauss
head -n 40 gauss >train
tail -n 20 gauss >test
export LIBSVM_KERNEL_PLUGINS=$plugin
patched/svm-train -q -t ppk train m_upstream || fail "LIBSVM $version + patches: svm-train -t ppk failed"
must_contain m_upstream $'kernel_type ppk\n'
patched/svm-predict test m_upstream p_upstream >acc_upstream || fail "svm-predict of a ppk model failed"
"$svm_train" -q -t ppk train m_here
"$svm_predict" test m_here p_here >/dev/null
cmp p_here p_upstream || fail "LIBSVM $version + patches predicts differently from this build"
pass "LIBSVM $version + ${series[*]}: -t ppk trains and predicts as this build: $(cat acc_upstream)"

# built-in kernel types: the patched tree is the unpatched tree
cp "$heart" heart_scale
for opts in "-t 2" "-t 0" "-s 3 -t 2"; do
  # shellcheck disable=SC2086
  pristine/svm-train -q $opts heart_scale m_pristine
  # shellcheck disable=SC2086
  patched/svm-train -q $opts heart_scale m_patched
  cmp m_pristine m_patched || fail "svm-train $opts: the patched LIBSVM $version writes a different model"
  # one thread: upstream's OpenMP reduction of a regression value depends on the threads' timing
  OMP_NUM_THREADS=1 pristine/svm-predict heart_scale m_pristine p_pristine >/dev/null
  OMP_NUM_THREADS=1 patched/svm-predict heart_scale m_pristine p_patched >/dev/null
  cmp p_pristine p_patched || fail "svm-predict with the model of $opts: different predictions"
done
pass "LIBSVM $version: -t 2, -t 0, -s 3 give the unpatched tree's model files and predictions"
