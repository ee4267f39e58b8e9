#!/usr/bin/env bash
# A long local fuzz run (docs/fuzzing.md): each harness of tests/fuzz/ for SECONDS, JOBS harnesses at a
# time, each one process from the committed corpus, seed 1, the limits of the suite's fuzz.<name>.run
# (inputs up to 4 kB, 20 s per input, 2 GB). Prints one table row per harness: executions, executions
# per second, coverage (libFuzzer's cov: edges and ft: features at the end), corpus size, peak memory
# and the crashes, leaks, timeouts and out-of-memory inputs found (their files stay in OUT/<name>/).
# Usage: bench/fuzz_campaign.sh SANITIZE_BUILD_DIR [SECONDS] [JOBS] [OUT] [HARNESS...]
set -euo pipefail
build=$(cd "${1:?usage: $0 SANITIZE_BUILD_DIR [SECONDS] [JOBS] [OUT] [HARNESS...]}" && pwd)
seconds=${2:-1800}
jobs=${3:-2}
out=$(mkdir -p "${4:-$build/fuzz-campaign}" && cd "${4:-$build/fuzz-campaign}" && pwd)
shift $(($# < 4 ? $# : 4))
corpus=$(cd "$(dirname "$0")/../tests/fuzz/corpus" && pwd)
harnesses=("$@")
[[ ${#harnesses[@]} -gt 0 ]] || harnesses=(model_rows json_lines data_files libsvm_model ppk_inputs)

run() {  # run NAME: one harness's campaign into OUT/NAME/
  local name=$1 dir=$out/$1
  rm -rf "$dir"
  mkdir -p "$dir/new"
  "$build/bin/fuzz_$name" -seed=1 -max_total_time="$seconds" -max_len=4096 -timeout=20 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$dir/" "$dir/new" "$corpus/fuzz_$name" > "$dir/log" 2>&1 || true
}

running=0
for name in "${harnesses[@]}"; do
  run "$name" &
  running=$((running + 1))
  if ((running >= jobs)); then
    wait -n
    running=$((running - 1))
  fi
done
wait

echo "| harness | seconds | executions | exec/s | cov | ft | corpus | peak RSS MB | crashes, leaks, timeouts, OOMs |"
echo "|---|---|---|---|---|---|---|---|---|"
for name in "${harnesses[@]}"; do
  log=$out/$name/log
  stat() { { grep -oE "^stat::$1: *[0-9]+" "$log" || true; } | grep -oE "[0-9]+$" | tail -1 || true; }
  last=$(grep -E "^#[0-9]+[[:space:]].*cov: " "$log" | tail -1 || true)
  field() { { grep -oE "$1: [0-9]+" <<<"$last" || true; } | grep -oE "[0-9]+" || true; }
  cov=$(field cov) ft=$(field ft) corp=$(field corp)
  found=$(find "$out/$name" -maxdepth 1 \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) | wc -l)
  echo "| fuzz_$name | $seconds | $(stat number_of_executed_units) | $(stat average_exec_per_sec) | $cov | $ft | $corp | $(stat peak_rss_mb) | $found |"
done
