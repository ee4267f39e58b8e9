#!/usr/bin/env bash
# Model selection in one run: `ppk select` against what a LIBSVM user runs instead, on the same
# rows and grid, with the same accuracies (each route's best cell printed):
#   A. a loop of `svm-train -v K -t ppk|ppk_norm` runs, one per cell (what grid.py does);
#   B. `ppk gram --format precomputed` once per (kernel, rho, T) and `svm-train -t 4 -v K` per C;
#   C. `ppk select`, one command.
# Grids: the paper's time series (JMLR 2004 section 8.3 regenerated, 100 LDS rows at ppk fit lds's
# defaults, leave-one-out, rho {0.1, 0.5, 1} x T {5, 10, 24} x C {0.1, 1, 10, 100}, ppk_norm) and
# the sequences demo (400 HMM rows, 5-fold, ppk_norm, rho {0.5, 1} x T {4, 9, 19} x C {0.1 .. 1000}).
# Combined rows of both (LDS + Gaussian of the frames; HMM + bigram multinomial) over five weightings:
# ppk select --weights against one ppk select per weighting. Then `ppk fit multinomial --alpha auto` on 8,000 real short documents (WordNet's noun glosses,
# Debian's wordnet-base) against the loop it replaced (one svm-train -v 5 per candidate and C on the
# candidate's rows), and the peak memory of ppk select against n (documents of the demo's generator).
# Wall seconds and peak resident memory (/usr/bin/time) of every route.
# Usage: bench/select.sh BUILD_DIR [--quick | --skip-time-series | --combined]
#   (--quick: the LDS, HMM and combined grids only; --combined: the combined grids only)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:?usage: $0 BUILD_DIR [--quick | --skip-time-series | --combined]}" && pwd)
quick=${2:-}
bin=$build/bin
examples=$here/../examples
work=$build/bench-select
mkdir -p "$work"
cd "$work"

# timed NAME COMMAND...: runs COMMAND (its output to NAME.out), prints "NAME  wall-s  peak-MB".
timed() {
  local name=$1
  shift
  /usr/bin/time -f "%e %M" -o "$name.time" "$@" >"$name.out" 2>"$name.err"
  read -r wall kb <"$name.time"
  printf '  %-44s %8.2f s %8.0f MB\n' "$name" "$wall" "$((kb / 1024))"
}

# best_accuracy FILE: the highest "Cross Validation Accuracy = X%" in FILE.
best_accuracy() { sed -n 's/.*Cross Validation Accuracy = \([0-9.]*\)%.*/\1/p' "$1" | sort -g | tail -n 1; }

# grid_routes NAME ROWS FOLDS KERNEL "RHOS" "LENGTHS" "COSTS": the three routes A, B, C.
grid_routes() {
  local name=$1 rows=$2 folds=$3 kernel=$4 rhos=$5 lengths=$6 costs=$7 rho t c
  echo "$name: $(wc -l <"$rows") rows, -v $folds, -t $kernel, rho {$rhos} x T {$lengths} x C {$costs}"
  loop_a() {
    for rho in $rhos; do for t in $lengths; do for c in $costs; do
      "$bin/svm-train" -q -v "$folds" -t "$kernel" -g "$rho" -d "$t" -c "$c" "$rows"
    done; done; done
  }
  loop_b() {
    for rho in $rhos; do for t in $lengths; do
      "$bin/ppk" gram -t "$kernel" -g "$rho" -d "$t" --format precomputed "$rows" -o gram.k 2>/dev/null
      for c in $costs; do "$bin/svm-train" -q -v "$folds" -t 4 -c "$c" gram.k; done
    done; done
  }
  export -f loop_a loop_b
  export bin rows folds kernel rhos lengths costs
  timed "$name A: svm-train -v loop" bash -c loop_a
  timed "$name B: ppk gram + svm-train -t 4 loop" bash -c loop_b
  timed "$name C: ppk select" "$bin/ppk" select -q -v "$folds" -t "$kernel" -g "${rhos// /,}" -d "${lengths// /,}" \
    -c "${costs// /,}" "$rows"
  echo "  best accuracy: A $(best_accuracy "$name A: svm-train -v loop.out")%, B $(best_accuracy \
    "$name B: ppk gram + svm-train -t 4 loop.out")%, C $(best_accuracy "$name C: ppk select.out")%"
}

# combined_routes NAME PART_A PART_B FOLDS "RHOS" "LENGTHS" "COSTS": combined rows of PART_A and PART_B
# (rows of the same examples) over five weightings. D: ppk select --weights, each part's normalized
# matrix once per (rho, T) and every weighting their weighted sum; D1: the same grid at one weighting
# (the kernels' cost plus a fifth of the solver's); E: what a user runs without --weights, one ppk select
# per weighting on the rows combined at it (every kernel computed again for each weighting).
combined_routes() {
  local name=$1 part_a=$2 part_b=$3 folds=$4 rhos=$5 lengths=$6 costs=$7 w
  weightings="1:0 0.75:0.25 0.5:0.5 0.25:0.75 0:1"
  grid="-q -v $folds -t ppk_norm -g ${rhos// /,} -d ${lengths// /,} -c ${costs// /,}"
  "$bin/ppk" combine "$part_a" "$part_b" -o combined.ppk
  echo "$name: $(wc -l <combined.ppk) rows, -v $folds, -t ppk_norm, rho {$rhos} x T {$lengths} x weights {$weightings} x C {$costs}"
  # shellcheck disable=SC2086
  timed "$name D: ppk select --weights (5)" "$bin/ppk" select $grid --weights "${weightings// /,}" combined.ppk
  # shellcheck disable=SC2086
  timed "$name D1: ppk select --weights (1)" "$bin/ppk" select $grid --weights 0.5:0.5 combined.ppk
  loop_e() {
    for w in $weightings; do
      "$bin/ppk" combine --weights "${w//:/,}" "$part_a" "$part_b" -o reweighted.ppk
      # shellcheck disable=SC2086
      "$bin/ppk" select $grid reweighted.ppk
    done
  }
  export -f loop_e
  export bin weightings grid part_a part_b
  timed "$name E: ppk select per weighting" bash -c loop_e
  echo "  best accuracy: D $(best_accuracy "$name D: ppk select --weights (5).out")%, E $(best_accuracy \
    "$name E: ppk select per weighting.out")%"
  for w in $weightings; do
    echo "  weights $w: best $(grep -F -- "--weights $w -c" "$name D: ppk select --weights (5).out" | best_accuracy /dev/stdin)%"
  done
}

if [[ $quick != --skip-time-series ]]; then
  /usr/bin/python3 "$examples/make_timeseries.py" --seed 1 >series.txt
  "$bin/ppk" fit lds --state-dim 2 series.txt -o lds.ppk 2>/dev/null
  [[ $quick == --combined ]] || grid_routes "time series" lds.ppk 100 ppk_norm "0.1 0.5 1" "5 10 24" "0.1 1 10 100"
  # Combined: each series' LDS (its dynamics) and a full Gaussian of its frames.
  "$bin/ppk" fit gaussian series.txt -o frames.ppk
  combined_routes "combined time series" lds.ppk frames.ppk 100 "0.1 0.5 1" "5 10 24" "0.1 1 10 100"
fi

/usr/bin/python3 "$examples/make_sequences.py" --seed 1 --n 800 >all-sequences.txt
head -n 400 all-sequences.txt >sequences.txt
"$bin/ppk" fit hmm --states 2 --alphabet ACGT --seed 1 sequences.txt -o hmm.ppk 2>/dev/null
[[ $quick == --combined ]] || grid_routes "sequences" hmm.ppk 5 ppk_norm "0.5 1" "4 9 19" "0.1 1 10 100 1000"
# Combined: each sequence's HMM (its order) and the multinomial of its bigram counts (its composition).
awk '{ delete c; for (t = 1; t < length($2); t++) { a = index("ACGT", substr($2, t, 1)); b = index("ACGT", substr($2, t + 1, 1))
         c[4 * (a - 1) + b]++ }
       line = $1; for (k = 1; k <= 16; k++) if (k in c) line = line " " k ":" c[k]; print line }' sequences.txt >bigrams.txt
"$bin/ppk" fit multinomial --dim 16 bigrams.txt -o kmers.ppk
combined_routes "combined sequences" hmm.ppk kmers.ppk 5 "0.5 1" "4 9 19" "0.1 1 10 100 1000"

[[ $quick == --combined ]] && exit 0

[[ $quick == --quick ]] && exit 0

# --alpha auto on WordNet's glosses: the new engine against the loop of svm-train -v 5 runs it replaced.
/usr/bin/python3 "$examples/wordnet_glosses.py" --train-size 8000 --test-size 10 --train glosses.txt --test glosses-test.txt
dim=$(awk '{ for (i = 2; i <= NF; i++) { split($i, f, ":"); if (f[1] + 0 > m) m = f[1] + 0 } } END { print m }' glosses.txt)
echo "--alpha auto: $(wc -l <glosses.txt) WordNet glosses, $dim words, 5-fold, -t ppk -g 0.5, C {1, 10, 100, 1000}"
timed "alpha auto (ppk fit, one matrix per candidate)" "$bin/ppk" fit multinomial --dim "$dim" --alpha auto glosses.txt \
  -o glosses.auto.ppk
loop_alpha() {
  local candidate c
  for candidate in "--alpha evidence" "--alpha 1/D" "--estimator ml" "--alpha 1" "--alpha 0.1" "--alpha 0.01" \
    "--alpha 0.001"; do
    # shellcheck disable=SC2086
    "$bin/ppk" fit multinomial --dim "$dim" $candidate glosses.txt -o candidate.ppk 2>/dev/null
    for c in 1 10 100 1000; do "$bin/svm-train" -q -v 5 -t ppk -g 0.5 -c "$c" candidate.ppk; done
  done
}
export -f loop_alpha
export dim
timed "alpha auto's candidates by svm-train -v 5 loop" bash -c loop_alpha
grep -h "alpha auto chose" "alpha auto (ppk fit, one matrix per candidate).err" | sed 's/^/  /'
echo "  best accuracy of the loop: $(best_accuracy "alpha auto's candidates by svm-train -v 5 loop.out")%"

# Peak memory of ppk select against n: one kernel matrix (4 n^2 bytes) and LIBSVM's caches.
echo "ppk select's peak memory against n (documents, -t ppk -g 0.5 -c 1, 5-fold)"
for n in 1000 2000 4000 8000; do
  /usr/bin/python3 "$examples/make_documents.py" --seed 1 --vocabulary 3000 --n-train "$n" --n-test 1 \
    --train docs.txt --test docs-test.txt
  "$bin/ppk" fit multinomial --dim 3000 docs.txt -o docs.ppk
  timed "n = $n" "$bin/ppk" select -q -t ppk -g 0.5 -c 1 docs.ppk
done
