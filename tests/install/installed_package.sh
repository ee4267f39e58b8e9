#!/usr/bin/env bash
# `cmake --install` into a fresh prefix, then use only what it installed: the layout (the patched
# libsvm.so.3 in PPK_LIBSVM_LIBDIR, never beside the distribution's), the programs running from the
# prefix by their rpath with the plugin found next to the installed library, and the example
# program configured from a clean build directory with find_package(ppk) and again compiled with
# pkg-config, both training with the ppk kernel; and a family written outside the library (the worked
# example examples/geometric_family.cpp) built against the installed core alone, registered by the
# program (geometric/main.cpp) and trained with, its decision values checked against LIBSVM's
# precomputed kernel on a Gram matrix of brute-force sums.
#
# With the Octave interface built (OCTAVE = 1), its installed mex files load the installed
# libsvm.so.3 and train with -t ppk in octave-cli.
#
#   installed_package.sh CMAKE CXX BUILD_DIR LIBDIR PPK_LIBSVM_LIBDIR OCTAVE
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
(($# == 6)) || fail "usage: $0 CMAKE CXX BUILD_DIR LIBDIR PPK_LIBSVM_LIBDIR OCTAVE"
cmake=$1 cxx=$2 build=$3 libdir=$4 libsvm_libdir=$5 octave=$6
example=$(cd "$(dirname "$0")/example" && pwd)
geometric=$(cd "$(dirname "$0")/geometric" && pwd)
geometric_family=$(cd "$(dirname "$0")/../../examples" && pwd)/geometric_family.cpp
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ppk-install-test.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
prefix=$tmp/prefix
# Nothing from the build tree or the environment may help the installed files.
unset LD_LIBRARY_PATH LIBSVM_KERNEL_PLUGINS CMAKE_PREFIX_PATH PKG_CONFIG_PATH

"$cmake" --install "$build" --prefix "$prefix" >install.log || { cat install.log; fail "cmake --install"; }

for file in bin/ppk bin/svm-train bin/svm-predict bin/svm-scale \
  "$libdir/libppk.a" "$libsvm_libdir/libsvm.so.3" "$libsvm_libdir/libsvm-plugins/ppk.so" \
  "$libdir/libppk_core.a" include/ppk/core/kernel.hpp include/ppk/core/data.hpp include/ppk/libsvm/svm.h \
  include/ppk/core/family_fields.hpp include/ppk/core/model_fields.hpp include/ppk/core/matrix_fields.hpp \
  "$libdir/cmake/ppk/ppkConfig.cmake" "$libdir/cmake/ppk/ppkConfigVersion.cmake" "$libdir/pkgconfig/ppk.pc"; do
  [[ -e $prefix/$file ]] || fail "not installed: $file"
done
[[ $libsvm_libdir == "$libdir" || ! -e $prefix/$libdir/libsvm.so.3 ]] ||
  fail "libsvm.so.3 installed in $libdir, where it would replace the distribution's"
[[ ! -e $prefix/include/libsvm ]] || fail "include/libsvm/ is the distribution's libsvm-dev's place"
outside=$(grep -v "^$prefix/" "$build/install_manifest.txt" || true)
[[ -z $outside ]] || fail "installed outside the prefix: $outside"
echo "ok: the layout"

# The programs from the prefix alone: svm-train finds the installed libsvm.so.3 by its rpath, and
# that library finds the ppk plugin next to itself.
loaded=$(ldd "$prefix/bin/svm-train" | awk '$1 == "libsvm.so.3" { print $3 }')
[[ -n $loaded && $(realpath "$loaded") == $(realpath "$prefix/$libsvm_libdir/libsvm.so.3") ]] ||
  fail "the installed svm-train loads '$loaded', not $prefix/$libsvm_libdir/libsvm.so.3"
awk 'BEGIN { srand(5); for (i = 0; i < 40; i++) { y = (i % 2) ? 1 : -1
  printf "%d 1:%.5f 2:%.5f\n", y, y + 1.5 * (rand() - 0.5), y + 1.5 * (rand() - 0.5) } }' >points.txt
"$prefix/bin/ppk" fit gaussian --var 0.5 points.txt -o rows.ppk
"$prefix/bin/svm-train" -q -t ppk -g 1 rows.ppk rows.model
grep -qx "kernel_type ppk" rows.model || fail "the installed svm-train did not train with ppk"
"$prefix/bin/svm-predict" rows.ppk rows.model rows.out | grep -q "^Accuracy" || fail "svm-predict"
echo "ok: the installed svm-train and svm-predict with -t ppk"

if ((octave)); then
  mex_dir=$prefix/$libsvm_libdir/octave
  for name in svmtrain svmpredict libsvmread libsvmwrite; do
    [[ -e $mex_dir/$name.mex ]] || fail "not installed: $libsvm_libdir/octave/$name.mex"
  done
  loaded=$(ldd "$mex_dir/svmtrain.mex" | awk '$1 == "libsvm.so.3" { print $3 }')
  [[ -n $loaded && $(realpath "$loaded") == $(realpath "$prefix/$libsvm_libdir/libsvm.so.3") ]] ||
    fail "the installed svmtrain.mex loads '$loaded', not $prefix/$libsvm_libdir/libsvm.so.3"
  out=$(octave-cli --no-history --no-window-system --eval "addpath('$mex_dir');
    [y, x] = libsvmread('rows.ppk'); m = svmtrain(y, x, '-q -t ppk -g 1');
    [p, a, d] = svmpredict(y, x, m, '-q'); printf('octave accuracy %g\n', a(1));" 2>&1) ||
    fail "octave-cli with the installed mex files: $out"
  expected=$(awk '/^Accuracy/ { sub("%", "", $3); print $3 }' <("$prefix/bin/svm-predict" rows.ppk rows.model rows.out))
  [[ $out == *"octave accuracy $expected"* ]] ||
    fail "the installed mex files: '$out', the installed svm-predict: $expected%"
  echo "ok: the installed Octave mex files with -t ppk ($out)"
fi

# The example, built against the package from a clean build directory.
"$cmake" -S "$example" -B example-build -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_BUILD_TYPE=Release >configure.log || { cat configure.log; fail "configuring the example"; }
"$cmake" --build example-build >build.log 2>&1 || { cat build.log; fail "building the example"; }
out=$(example-build/ppk_example rows.ppk 1) || fail "the CMake-built example: $out"
[[ $out =~ ^accuracy\ ([0-9]+)/40,\ decision\ values\ agree$ ]] && ((BASH_REMATCH[1] >= 36)) ||
  fail "the CMake-built example: $out"
echo "ok: find_package(ppk) example: $out"

# The same program with pkg-config.
flags=$(PKG_CONFIG_PATH=$prefix/$libdir/pkgconfig pkg-config --cflags --libs ppk) || fail "pkg-config ppk"
"$cxx" -std=c++17 -O1 "$example/main.cpp" $flags -o pc_example || fail "compiling with pkg-config: $flags"
out=$(./pc_example rows.ppk 0.5) || fail "the pkg-config example: $out"
[[ $out =~ ^accuracy\ ([0-9]+)/40,\ decision\ values\ agree$ ]] || fail "the pkg-config example: $out"
echo "ok: pkg-config example: $out"

# The out-of-tree family against the installed package: configured from a clean build directory.
"$cmake" -S "$geometric" -B geometric-build -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_BUILD_TYPE=Release -DGEOMETRIC_FAMILY_SOURCE="$geometric_family" >configure.log ||
  { cat configure.log; fail "configuring the geometric family's program"; }
"$cmake" --build geometric-build >build.log 2>&1 || { cat build.log; fail "building the geometric family's program"; }
out=$(geometric-build/geometric_training geometric.ppk) || fail "the geometric family's program: $out"
[[ $out =~ ^accuracy\ ([0-9]+)/40,\ decision\ values\ agree$ ]] && ((BASH_REMATCH[1] >= 32)) ||
  fail "the geometric family's program: $out"
awk '{ if ($3 != "2:17") exit 1 }' geometric.ppk || fail "geometric rows without code 17: $(head -n 2 geometric.ppk)"
echo "ok: an out-of-tree family against the installed core: $out"
