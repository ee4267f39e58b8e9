#!/usr/bin/env bash
# The whole test suite on a fresh Debian 12 machine (as root): installs what is
# missing, builds the release configuration and runs every test, then builds the
# unit tests and the fuzz harnesses with clang under AddressSanitizer +
# UndefinedBehaviorSanitizer, runs the unit tests, replays the fuzz corpora and
# fuzzes each harness for a short fixed time (docs/fuzzing.md).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset default -DPPK_OCTAVE=ON   # the Octave interface and its test are part of the suite
cmake --build --preset default
ctest --preset default
cmake --preset sanitize
cmake --build --preset sanitize --target ppk_unit_tests ppk_fuzz_harnesses
ctest --preset sanitize
