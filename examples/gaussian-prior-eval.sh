#!/usr/bin/env bash
# Measures the pooled covariance priors of `ppk fit gaussian` and `ppk fit mixture` against their
# defaults, for per-set fits compared by the Bhattacharyya kernel (ppk -g 0.5) and the normalised
# expected-likelihood kernel (ppk_norm -g 1), with LIBSVM's RBF kernel as the baseline; C (and
# gamma) by 5-fold cross-validation on the training sets, then test accuracy
# (docs/priors-by-evidence.md has the measured tables).
#   FAMILY=gaussian (default): --prior pooled (the inverse-Wishart prior centred on the pooled
#   within-set covariance, its strength chosen by maximum evidence) against maximum likelihood with
#   fixed ridges.
#   FAMILY=hmm: Gaussian-emission HMMs (diagonal covariances, COMPONENTS states) on the digits as
#   sequences of their 8 pixel rows (digit_point_sets.py --rows; SETS=0 is then implied), at the
#   default (--prior pooled), and with --prior none at the tiny default ridge and at a fixed ridge.
#   FAMILY=mixture: mixtures of --components K (COMPONENTS, default 2) at the default (the tiny ridge)
#   against --prior pooled (the same prior on every component, its strength chosen by held-out
#   likelihood) and against a fixed ridge.
#   data: the sets demo's synthetic clouds (examples/make_sets.py, seeds 1-3; SETS=0 skips them),
#   and, when DIGITS is given (digits.csv.gz from Debian's python3-sklearn), handwritten digits as
#   sets of ink pixels (examples/digit_point_sets.py): all ink pixels, and 5 and 3 of them per set
#   (POINTS, default "0 5 3"; 0 = all).
# Usage: [FAMILY=mixture] examples/gaussian-prior-eval.sh BUILD_DIR [DIGITS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.bash"
family=${FAMILY:-gaussian}
components=${COMPONENTS:-2}
demo_setup "${1:-}" "$family-prior-eval"
digits=${2:-}
[[ -z $digits ]] || digits=$(cd "$(dirname "$digits")" && pwd)/$(basename "$digits")

# fits NAME FIT-OPTIONS...: train/test rows; the pooled prior's test rows reuse the training pool.
fit() {
  local name=$1
  shift
  if "$bin/ppk" fit "$family" "$@" train.txt --save-pooled "pool-$name.json" -o "train-$name.ppk" 2> "fit-$name.log" &&
    "$bin/ppk" fit "$family" "$@" test.txt --pooled-from "pool-$name.json" -o "test-$name.ppk" 2>> "fit-$name.log"; then
    return 0
  fi
  echo "  $name: $(tail -1 "fit-$name.log" | cut -c1-100)"
  return 1
}

measure() {  # DATA-NAME, in a directory holding train.txt, test.txt and the baselines' rows
  echo
  echo "== $1: $(cut -d' ' -f2 train.txt | uniq | wc -l) training sets, $(cut -d' ' -f2 test.txt | uniq | wc -l) test sets"
  printf '%-52s %8s %10s %14s\n' fit/kernel C "CV acc" "test accuracy"
  local name
  local specs=("ml-ridge0:--ridge 0" "ml-ridge0.01:--ridge 0.01" "ml-ridge0.1:--ridge 0.1"
               "pooled-mean:--estimator map --prior pooled"
               "pooled-mode:--estimator map --prior pooled --pooled-estimate mode")
  [[ $family != mixture ]] ||
    specs=("K$components-default:--components $components" "K$components-ridge0.1:--components $components --ridge 0.1"
           "K$components-pooled:--components $components --prior pooled")
  [[ $family != hmm ]] ||
    specs=("M$components-diag-none:--dim 8 --cov diag --states $components --prior none"
           "M$components-diag-ridge0.01:--dim 8 --cov diag --states $components --prior none --ridge 0.01"
           "M$components-diag-default:--dim 8 --cov diag --states $components")
  for spec in "${specs[@]}"; do
    name=${spec%%:*}
    # shellcheck disable=SC2086
    fit "$name" ${spec#*:} || continue
    grep -o 'prior-count = [0-9.]*' "fit-$name.log" | head -1 | sed 's/^/  /' || true
    evaluate "$name ppk rho=0.5" "train-$name.ppk" "test-$name.ppk" -t ppk -g 0.5
    evaluate "$name ppk_norm rho=1" "train-$name.ppk" "test-$name.ppk" -t ppk_norm -g 1
  done
  local base best best_c best_gamma c cv gamma
  for base in means pixels; do
    [[ -e train-$base.txt ]] || continue
    best=-1
    for gamma in 0.01 0.1 1 10; do
      read -r c cv < <(best_c "train-$base.txt" -t 2 -g $gamma)
      if greater "$cv" "$best"; then best=$cv best_c=$c best_gamma=$gamma; fi
    done
    report "LIBSVM RBF on set $base, gamma=$best_gamma" "train-$base.txt" "test-$base.txt" "$best_c" "$best" \
      -t 2 -g "$best_gamma"
  done
}

top=$PWD
for seed in $([[ ${SETS:-1} == 0 || $family == hmm ]] || echo 1 2 3); do
  mkdir -p "$top/sets-$seed" && cd "$top/sets-$seed"
  python3 "$here/make_sets.py" --seed "$seed"
  measure "sets demo, seed $seed"
done
if [[ -n $digits && $family == hmm ]]; then
  mkdir -p "$top/digits-rows" && cd "$top/digits-rows"
  python3 "$here/digit_point_sets.py" "$digits" --rows
  measure "digits as sequences of their 8 pixel rows (8-D vectors)"
elif [[ -n $digits ]]; then
  for points in ${POINTS:-0 5 3}; do
    mkdir -p "$top/digits-$points" && cd "$top/digits-$points"
    python3 "$here/digit_point_sets.py" "$digits" --points $points
    measure "digits as ink-pixel sets, $([[ $points == 0 ]] && echo 'all' || echo $points) points per set"
  done
fi
