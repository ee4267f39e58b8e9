# The Dask pipeline (ppk.dask) on a cluster of separate hosts: a `dask scheduler` and two `dask
# worker`s, each in a network namespace of its own with its own address on a bridge, the client
# outside them (docs/dask.md, "Progress, and when a worker or the scheduler is lost"). Training
# documents go through the three kinds of task (fit; map of fitted rows; fit+map), on the Nystrom
# route with landmarks from a sample of the fitted training rows, and a linear SVM is trained where
# the training features are (--train-partitioned):
# - without faults the files are those of one machine (ppk map --map-from on ppk fit's rows);
# - with one worker killed (kill -9, every process of its host) part-way through, the files are the
#   same bytes, the model too, and so with one worker killed as the SVM starts to train on the
#   features the workers hold (those the worker held are made again on the other);
# - with every worker killed, or the scheduler, the run ends with exit status 1, one line of error
#   (what was lost, what to do), no traceback and no output folder;
# - a run with --checkpoint killed part-way through (its client kill -9'd, or its scheduler lost),
#   run again, reuses the partitions it had (fewer runs of ppk on the workers) and writes the same
#   bytes, leaving nothing of the killed run in --out-dir.
# The workers run ppk through a wrapper that sleeps 0.2 s first, so that a run lasts long enough
# to lose a worker in it. The namespaces, the bridge and every process are removed whatever happens.
# Skipped (status 77) where network namespaces cannot be made (not root, no iproute2).
HERE=$(cd "$(dirname "$0")" && pwd)
source "$HERE/lib.bash" "$@"
EXAMPLES=$HERE/../../examples

id=$$
hosts=(scheduler worker1 worker2)
bridge=ppkbr$id
subnet=198.18.$((id % 250)) # RFC 2544's benchmarking range: no real network uses it
declare -A host_number=([scheduler]=2 [worker1]=3 [worker2]=4)
address() { echo "$subnet.${host_number[$1]}"; } # address HOST: the host's address on the bridge
namespace() { echo "ppk$id-$1"; }
kill_host() { ip netns pids "$(namespace "$1")" 2>/dev/null | xargs -r kill -9 2>/dev/null || true; }
# kill_pipeline: kill -9 the pipeline started in the background (python, a child of the subshell
# that runs the function pipeline) and its subshell.
kill_pipeline() {
  pkill -9 -P "$pipeline_pid" 2>/dev/null
  kill -9 "$pipeline_pid" 2>/dev/null
}
cleanup() {
  local host
  [[ -n ${pipeline_pid:-} ]] && kill_pipeline
  for host in "${hosts[@]}"; do
    kill_host "$host"
    ip netns del "$(namespace "$host")" 2>/dev/null
  done
  ip link del "$bridge" 2>/dev/null
  wait 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT

if ! error=$(ip netns add "$(namespace scheduler)" 2>&1); then
  echo "SKIPPED: cannot make a network namespace ($error): this test needs root and iproute2"
  exit 77
fi
ip link add "$bridge" type bridge
ip addr add "$subnet.1/24" dev "$bridge"
ip link set "$bridge" up
for i in "${!hosts[@]}"; do
  host=${hosts[$i]}
  ns=$(namespace "$host")
  ip netns list | grep -qw "$ns" || ip netns add "$ns"
  ip link add "ppkv$id$i" type veth peer name eth0 netns "$ns"
  ip link set "ppkv$id$i" master "$bridge" up
  ip -n "$ns" addr add "$(address "$host")/24" dev eth0
  ip -n "$ns" link set eth0 up
  ip -n "$ns" link set lo up
done
scheduler=tcp://$(address scheduler):8786

# registered N LOG: the scheduler's log LOG shows N workers registered.
registered() { [[ -f $2 ]] && (($(grep -c 'Register worker' "$2") >= $1)); }
start_scheduler() { # start_scheduler LOG
  ip netns exec "$(namespace scheduler)" /usr/bin/dask scheduler --host "$(address scheduler)" --port 8786 \
    --no-dashboard >"$1" 2>&1 &
  disown # killed by kill_host, with no job-control message
}
start_worker() { # start_worker HOST
  ip netns exec "$(namespace "$1")" /usr/bin/dask worker "$scheduler" --host "$(address "$1")" --name "$1" \
    --nworkers 1 --nthreads 1 --no-dashboard --local-directory "$WORK/space-$1" >"$1.log" 2>&1 &
  disown
}
# cluster N: a fresh scheduler and both workers, once the scheduler's log (the Nth started) shows both.
cluster() {
  local host
  for host in "${hosts[@]}"; do kill_host "$host"; done
  start_scheduler "scheduler$1.log"
  for host in worker1 worker2; do start_worker "$host"; done
  for _ in $(seq 300); do
    registered 2 "scheduler$1.log" && return
    sleep 0.2
  done
  fail "the workers did not join the scheduler in 60 s: $(cat "scheduler$1.log" worker1.log worker2.log)"
}

# The workers' ppk: 0.2 s late, and each run a line in the file calls.
printf '#!/bin/sh\necho "$*" >>"%s/calls"\nsleep 0.2\nexec "%s" "$@"\n' "$WORK" "$PPK" >slow-ppk
chmod +x slow-ppk
pipeline() {
  /usr/bin/python3 "$EXAMPLES/ppk_dask.py" --scheduler "$scheduler" --ppk "$PPK" --worker-ppk "$WORK/slow-ppk" \
    --family multinomial --fit-options "--dim 200" -t ppk -g 0.5 --map nystrom --landmarks 20 --map-sample 40 \
    --train docs.txt --test docs_test.txt --partition-rows 10 --progress lines --worker-timeout 10 \
    --train-partitioned "$@"
}
calls() { wc -l <"$WORK/calls"; } # the runs of ppk on the workers so far
# settled: waits until no ppk has started on the workers for 2 s (the tasks of a killed client run out).
settled() {
  local last=-1
  while [[ $(calls) != "$last" ]]; do
    last=$(calls)
    sleep 2
  done
}
# run_killing OUT PROGRESS TARGETS... [-- OPTIONS...]: the pipeline into OUT in the background,
# with OPTIONS; once its standard error (OUT.stderr) holds PROGRESS (a fixed string), every process
# of the hosts TARGETS is killed (kill -9), or the pipeline itself (the target "client"). Its status
# is $status.
run_killing() {
  local out=$1 after=$2 targets=() target
  shift 2
  while (($#)) && [[ $1 != -- ]]; do targets+=("$1") && shift; done
  (($#)) && shift
  pipeline --out-dir "$out" "$@" >"$out.stdout" 2>"$out.stderr" &
  pipeline_pid=$!
  for _ in $(seq 600); do
    grep -qF "$after" "$out.stderr" && break
    kill -0 "$pipeline_pid" 2>/dev/null || break
    sleep 0.05
  done
  grep -qF "$after" "$out.stderr" || fail "$out: no progress before the kill: $(cat "$out.stderr")"
  kill -0 "$pipeline_pid" 2>/dev/null || fail "$out: the run ended before the kill"
  for target in "${targets[@]}"; do
    if [[ $target == client ]]; then kill_pipeline; else kill_host "$target"; fi
  done
  status=0
  { wait "$pipeline_pid"; } 2>/dev/null || status=$? # no job-control message about a killed client
  pipeline_pid=
}
# expect_lost OUT FRAGMENT: the run into OUT failed with status 1, one line of error holding FRAGMENT
# beside its progress lines, and no output folder.
expect_lost() {
  [[ $status == 1 ]] || fail "$1: exit status $status, expected 1: $(cat "$1.stderr")"
  grep -v -E '^ppk_dask\.py: .*: [0-9]+/[0-9]+ partitions, ' "$1.stderr" >"$1.errors" || true
  [[ $(wc -l <"$1.errors") == 1 ]] || fail "$1: not one line of error: $(cat "$1.errors")"
  grep -qF -- "$2" "$1.errors" || fail "$1: the error lacks '$2': $(cat "$1.errors")"
  [[ ! -s $1.stdout && ! -e $1 ]] || fail "$1: a lost run wrote output"
  pass
}

# expect_resumed OUT CHECKPOINT: the pipeline run again into OUT with CHECKPOINT, after a run killed
# part-way, reuses partitions (fewer runs of ppk than the run without faults) and writes the bytes of
# that run, and OUT holds its files alone.
expect_resumed() {
  local before file
  settled
  before=$(calls)
  pipeline --out-dir "$1" --checkpoint "$2" >"$1.rerun.stdout" 2>"$1.rerun.stderr" ||
    fail "$1: the rerun failed: $(cat "$1.rerun.stderr")"
  grep -qE ' \(fit\): 12/12 partitions, .* [0-9]+ reused$' "$1.rerun.stderr" ||
    fail "$1: the rerun reused no partition: $(cat "$1.rerun.stderr")"
  (($(calls) - before < clean_calls)) ||
    fail "$1: the rerun ran ppk $(($(calls) - before)) times, a whole run $clean_calls: $(cat "$1.rerun.stderr")"
  echo "$1: the rerun ran ppk $(($(calls) - before)) times on the workers, a whole run $clean_calls"
  for file in train.features test.features train.map linear.model test.predictions; do
    cmp clean/$file "$1/$file" || fail "$1: the rerun's $file differs from the run without faults"
  done
  [[ $(ls -A "$1" | tr '\n' ' ') == "linear.model test.features test.predictions train.features train.map " ]] ||
    fail "$1: more than the run's files in it: $(ls -A "$1")"
  pass
}

python3 "$EXAMPLES/make_documents.py" --seed 5 --vocabulary 200 --n-train 120 --n-test 60 --train docs.txt --test docs_test.txt
"$PPK" fit multinomial --dim 200 docs.txt -o train.ppk
"$PPK" fit multinomial --dim 200 docs_test.txt -o test.ppk

# Without faults: one machine's bytes.
cluster 1
: >calls
pipeline --out-dir clean 2>clean.stderr || fail "the pipeline failed on the cluster: $(cat clean.stderr)"
clean_calls=$(calls)
"$PPK" map --map-from clean/train.map train.ppk | cmp - clean/train.features ||
  fail "the cluster's training features differ from ppk map --map-from's"
"$PPK" map --map-from clean/train.map test.ppk | cmp - clean/test.features ||
  fail "the cluster's test features differ from ppk map --map-from's"
grep -qE '^ppk_dask\.py: docs_test\.txt \(fit\+map\): 6/6 partitions, 60 rows, ' clean.stderr ||
  fail "no progress line of the test file's last partition: $(cat clean.stderr)"
pass

# One worker lost part-way through: the same bytes, its tasks rerun on the other worker.
run_killing lost1 "docs.txt (fit): 1/" worker1
[[ $status == 0 ]] || fail "the run with one worker lost failed: $(cat lost1.stderr)"
for file in train.features test.features train.map linear.model test.predictions; do
  cmp clean/$file lost1/$file || fail "one worker lost: $file differs from the run without faults"
done
pass

# One worker lost once every feature row is made, as the SVM starts to train on the features the
# workers hold: those of the lost worker are made again on the other, and the model is the same.
cluster 2
before=$(calls)
run_killing lost5 "docs_test.txt (fit+map): 6/6" worker1
[[ $status == 0 ]] || fail "the run with a worker lost in training failed: $(cat lost5.stderr)"
(($(calls) - before > clean_calls)) ||
  fail "a worker lost in training: no feature rows were made again ($(($(calls) - before)) runs of ppk, a whole run $clean_calls)"
for file in linear.model test.predictions; do
  cmp clean/$file lost5/$file || fail "a worker lost in training: $file differs from the run without faults"
done
pass

# Every worker lost: one line, after --worker-timeout.
cluster 3
run_killing lost2 "docs.txt (fit): 1/" worker1 worker2
expect_lost lost2 "every worker left the scheduler $scheduler and none joined in 10 s"

# The scheduler lost.
# The scheduler lost, with a checkpoint: the error, then a rerun on a new cluster reuses it.
cluster 4
run_killing lost3 "docs.txt (fit): 3/" scheduler -- --checkpoint checkpoint3
expect_lost lost3 "lost the connection to the scheduler $scheduler"
cluster 5
expect_resumed lost3 checkpoint3

# The client killed (kill -9) with a checkpoint, then run again on the same cluster.
run_killing lost4 "docs.txt (fit): 3/" client -- --checkpoint checkpoint4
[[ $status == 137 ]] || fail "lost4: the killed client's status is $status"
expect_resumed lost4 checkpoint4
finish
