#!/usr/bin/env bash
# Threads on a shared machine: svm-train -t ppk_norm with 1 and 2 threads (OMP_NUM_THREADS), on
# LDS rows and on mixture rows, on the machine as it is ("idle") and with competing busy processes
# that leave one core free ("loaded": nproc - 1 of them, one on a 2-core machine), all in one run.
# The runs alternate (1 2, then 2 1, ...) and every ratio is of a pair run back to back, so that
# the machine's drift cancels; each figure is the median over REPEAT pairs, with the range.
#
# Targets (issue 21): loaded, 2 threads take at most 1.1 times the time of 1 thread; idle,
# 2 threads are at least 1.7 times as fast as 1 (the speed-up is kept).
#
# Usage: bench/threads_under_load.sh BUILD_DIR     (REPEAT=N, default 5; BUSY=N busy processes)
# Needs only bash, awk, python3 (for the data) and the built ppk, svm-train.
source "$(dirname "$0")/lib.bash" bench-threads BUILD_DIR "$@"
REPEAT=${REPEAT:-5}
BUSY=${BUSY:-$(($(nproc) > 1 ? $(nproc) - 1 : 1))}

# 560 LDS rows: sequences of 40 4-D vectors, a 1-D state each (at -g 0.1 -d 10: 470 support
# vectors, 99.6% 4-fold cross-validation accuracy); 280 mixture rows: sets of 60 13-D points
# (the size of a spoken word's MFCC frames), 4 full-covariance components each (263 support vectors).
python3 "$here/make_series.py" --n 560 --length 40 --dim 4 > series.txt
"$bin/ppk" fit lds --state-dim 1 series.txt -o lds.ppk
python3 "$here/make_points.py" --n 280 --dim 13 --group 60 > sets.txt
"$bin/ppk" fit mixture --components 4 --cov full sets.txt -o mixture.ppk
declare -A args=(
  [lds]="-t ppk_norm -g 0.1 -d 10 -c 10 lds.ppk"
  [mixture]="-t ppk_norm -g 0.5 -c 10 mixture.ppk"
)

busy=()
stop_busy() {
  ((${#busy[@]})) || return 0
  kill "${busy[@]}" 2>/dev/null || true
  wait "${busy[@]}" 2>/dev/null || true
  busy=()
}
trap stop_busy EXIT
start_busy() {
  for _ in $(seq "$BUSY"); do
    sh -c 'while :; do :; done' &
    busy+=($!)
  done
}

seconds() {  # THREADS svm-train-arguments... -> wall seconds
  local threads=$1 start end
  shift
  start=$(date +%s.%N)
  OMP_NUM_THREADS=$threads "$bin/svm-train" "$@" model > /dev/null
  end=$(date +%s.%N)
  awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }'
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)  # "idle" is the machine as it is: see how busy it was
rm -f times.*
for rep in $(seq "$REPEAT"); do
  for data in lds mixture; do
    for load in idle loaded; do
      [[ $load == loaded ]] && start_busy
      order="1 2"
      ((rep % 2)) || order="2 1"
      t=()
      for threads in $order; do
        # shellcheck disable=SC2086
        t[$threads]=$(seconds "$threads" ${args[$data]})
      done
      stop_busy
      echo "${t[1]} ${t[2]}" >> "times.$data.$load"
    done
  done
done

# The median of a column of numbers, and its range "min-max".
median() { sort -g | awk '{ v[NR] = $1 } END { printf "%.3f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
range() { sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.2f-%.2f", lo, hi }'; }

echo "svm-train -t ppk_norm, wall seconds: median of $REPEAT (OMP_NUM_THREADS=1 / 2); $BUSY busy process(es) when loaded"
echo "load average (1, 5, 15 min) at the start: $load_before; at the end: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
printf '%-8s %-7s %10s %10s  %-24s %s\n' data machine "1 thread" "2 threads" "2 threads / 1 (range)" target
verdict="all targets met"
for data in lds mixture; do
  for load in idle loaded; do
    f="times.$data.$load"
    one=$(cut -d' ' -f1 "$f" | median)
    two=$(cut -d' ' -f2 "$f" | median)
    ratio=$(awk '{ print $2 / $1 }' "$f" | median)
    spread=$(awk '{ print $2 / $1 }' "$f" | range)
    if [[ $load == idle ]]; then
      target="<= 0.588 (speed-up >= 1.7)"
      ok=$(awk -v r="$ratio" 'BEGIN { print (r <= 1 / 1.7) ? "met" : "NOT met" }')
    else
      target="<= 1.1"
      ok=$(awk -v r="$ratio" 'BEGIN { print (r <= 1.1) ? "met" : "NOT met" }')
    fi
    [[ $ok == met ]] || verdict="not all targets met"
    printf '%-8s %-7s %9ss %9ss  %-24s %s: %s\n' "$data" "$load" "$one" "$two" "$ratio ($spread)" "$target" "$ok"
  done
done
echo "$verdict (provisional if the machine had other work: see the ranges)"
