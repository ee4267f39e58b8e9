#!/usr/bin/env bash
# The three routes from documents to a linear SVM, end to end, side by side in one run, at each n of
# $SIZES (default 10^5 and 10^6) training documents of the scaling benchmarks (bench/lib.bash's
# scaling_documents: vocabulary 3000, a test set of 2,000), multinomial rows (--alpha 0), the exact
# map of the Bhattacharyya kernel (-t ppk -g 0.5), LIBLINEAR's L2-loss SVM (-s 2) at C = 1:
#   one machine:       ppk fit + ppk map + liblinear-train -s 2 -c 1
#   dask, client:      python3 -m ppk.dask (examples/ppk_dask.py) --train-linear "liblinear-train -s 2 -c 1":
#                      the features come back to the client, which trains on them
#   dask, partitions:  python3 -m ppk.dask --train-partitioned: the same objective, trained where the
#                      workers hold the features (docs/dask.md)
# The Dask routes run on a `dask scheduler` and two `dask worker --no-nanny` processes of one thread
# each (on this machine), started afresh for each route, partitions of $PARTITION_ROWS (default
# 20000) lines. Every process runs under GNU time: its wall time and its peak resident memory (%M:
# the largest process of its tree, so the client's includes liblinear-train's and a worker's its
# ppk subprocesses'), and each route's test accuracy.
# Usage: bench/dask_scale.sh BUILD_DIR
command -v liblinear-train >/dev/null || { echo "liblinear-train is missing: apt-get install liblinear-tools" >&2; exit 1; }
source "$(dirname "$0")/lib.bash" bench-dask BUILD_DIR "$@"
SIZES=${SIZES:-"100000 1000000"}
PARTITION_ROWS=${PARTITION_ROWS:-20000}
pipeline=$here/../examples/ppk_dask.py

peak() { awk -v n="$1" '$1 == n { printf "%.0f", $3 / 1024 }' steps.txt; }
seconds() { awk -v n="$1" '$1 == n { printf "%.1f", $2 }' steps.txt; }
accuracy() { sed -n 's/^\(ppk_dask\.py: \)\{0,1\}Accuracy = \([0-9.]*\)%.*/\2/p' "$1"; }

# cluster_route NAME OPTIONS...: the pipeline on a fresh scheduler and two workers, each process
# timed into steps.txt as NAME-client, NAME-scheduler, NAME-worker1, NAME-worker2.
cluster_route() {
  local name=$1 pids=() pid
  shift
  rm -f scheduler.json
  /usr/bin/time -f "$name-scheduler %e %M" -a -o steps.txt /usr/bin/dask scheduler --host 127.0.0.1 --port 0 \
    --no-dashboard --scheduler-file scheduler.json >"$name-scheduler.log" 2>&1 &
  pids+=($!)
  while [[ ! -s scheduler.json ]]; do sleep 0.2; done
  for worker in worker1 worker2; do
    /usr/bin/time -f "$name-$worker %e %M" -a -o steps.txt /usr/bin/dask worker --scheduler-file scheduler.json \
      --no-nanny --nthreads 1 --no-dashboard --memory-limit 0 --local-directory "$work/space-$worker" \
      >"$name-$worker.log" 2>&1 &
    pids+=($!)
  done
  /usr/bin/time -f "$name-client %e %M" -a -o steps.txt /usr/bin/python3 "$pipeline" --scheduler-file scheduler.json \
    --ppk "$bin/ppk" --family multinomial --fit-options "--dim 3000 --alpha 0" -t ppk -g 0.5 --map exact \
    --train "train_$n.txt" --test test.txt --out-dir "$name" --partition-rows "$PARTITION_ROWS" --progress none \
    "$@" >"$name.txt"
  for pid in "${pids[@]}"; do kill -TERM "$(pgrep -P "$pid")" 2>/dev/null || true; done
  wait
}

scaling_documents 0 test.txt
printf '%9s | %-16s | %7s | %8s | %s\n' n route seconds accuracy "peak MB: client (or fit, map, liblinear), scheduler, worker 1, worker 2"
for n in $SIZES; do
  scaling_documents "$n" "train_$n.txt"
  rm -f steps.txt
  start=$(date +%s.%N)
  timed fit "$bin/ppk" fit multinomial --dim 3000 --alpha 0 "train_$n.txt" -o train.ppk
  timed map "$bin/ppk" map -t ppk -g 0.5 --map exact train.ppk --save-map train.map -o train.features
  "$bin/ppk" fit multinomial --dim 3000 --alpha 0 test.txt -o test.ppk
  "$bin/ppk" map --map-from train.map test.ppk -o test.features
  timed liblinear liblinear-train -q -s 2 -c 1 train.features linear.model
  liblinear-predict test.features linear.model predictions.txt >one-machine.txt
  total=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  printf '%9s | %-16s | %7s | %8s | %s, %s, %s\n' "$n" "one machine" "$total" "$(accuracy one-machine.txt)" \
    "$(peak fit)" "$(peak map)" "$(peak liblinear)"
  rm -f train.ppk train.features
  cluster_route client --train-linear "liblinear-train -q -s 2 -c 1"
  cluster_route partitioned --train-partitioned
  for route in client partitioned; do
    label=$([[ $route == client ]] && echo "dask, client" || echo "dask, partitions")
    printf '%9s | %-16s | %7s | %8s | %s, %s, %s, %s\n' "$n" "$label" "$(seconds "$route-client")" \
      "$(accuracy "$route.txt")" "$(peak "$route-client")" "$(peak "$route-scheduler")" \
      "$(peak "$route-worker1")" "$(peak "$route-worker2")"
    rm -rf "$route"
  done
done
