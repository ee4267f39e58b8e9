# fuzz.<name>.run: bash run_fuzzer.sh HARNESS CORPUS WORK SECONDS
# Fuzzes HARNESS for SECONDS from the committed CORPUS (read only: the inputs libFuzzer finds go to
# WORK/new), seed 1, inputs up to 4 kB, 20 s per input at most, 2 GB of memory. A crash, leak, hang
# or violated property fails the test and leaves the input in WORK/ (libFuzzer prints its path);
# once fixed, the input goes into CORPUS as a regression (tests/fuzz/README.md).
set -euo pipefail
harness=$1 corpus=$2 work=$3 seconds=$4
rm -rf "$work"
mkdir -p "$work/new"
"$harness" -seed=1 -max_total_time="$seconds" -max_len=4096 -timeout=20 -rss_limit_mb=2048 \
  -print_final_stats=1 -artifact_prefix="$work/" "$work/new" "$corpus"
