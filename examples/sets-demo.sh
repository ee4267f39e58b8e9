#!/usr/bin/env bash
# Sets of vectors: classifying point clouds (Kondor & Jebara 2003; docs/design.md "Mathematics", Mean embeddings).
#   1. synthetic sets of 2-D points (examples/make_sets.py): two classes of clouds with the same
#      distribution of centres that differ in orientation; qid-grouped LIBSVM rows;
#   2. the mean map: ppk fit kde --mean-map-sigma SIGMA, svm-train -t ppk_norm -g 1, the
#      normalised RBF mean-map kernel <mu_X, mu_Y> / (|mu_X| |mu_Y|);
#   3. one Gaussian per set: ppk fit gaussian --cov full --ridge 0.01, svm-train -t ppk -g 0.5
#      (Bhattacharyya) and -t ppk_norm -g 1 (normalised expected likelihood);
#   4. the baseline: LIBSVM's RBF kernel (-t 2) on each set's mean.
# C (and SIGMA for the mean map, gamma for the RBF kernel; the kernel and rho in the row "ppk
# select's choice") are chosen by 5-fold cross-validation on the training sets (ppk select for the
# Gaussian rows), then the test accuracy is reported.
# Usage: examples/sets-demo.sh BUILD_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.bash"
demo_setup "${1:-}" sets-demo

python3 "$here/make_sets.py" --seed 1
for split in train test; do
  "$bin/ppk" fit gaussian --cov full --ridge 0.01 $split.txt -o $split-gaussian.ppk
  for sigma in 0.5 1 2 4; do
    "$bin/ppk" fit kde --mean-map-sigma $sigma $split.txt -o $split-kde-$sigma.ppk
  done
done

echo
echo "Sets of 2-D points: $(wc -l < train-means.txt) training, $(wc -l < test-means.txt) test, 5-20 points each;" \
  "C (sigma, gamma) by 5-fold CV"
printf '%-44s %8s %10s %14s\n' kernel C "CV acc" "test accuracy"

best=-1
for sigma in 0.5 1 2 4; do
  read -r c cv < <(best_c train-kde-$sigma.ppk -t ppk_norm -g 1)
  if greater "$cv" "$best"; then best=$cv best_c=$c best_sigma=$sigma; fi
done
report "ppk_norm kde mean map, rho=1, sigma=$best_sigma" train-kde-$best_sigma.ppk test-kde-$best_sigma.ppk \
  "$best_c" "$best" -t ppk_norm -g 1

evaluate_selected "ppk Gaussian, rho=0.5 (Bhattacharyya)" train-gaussian.ppk test-gaussian.ppk -t ppk -g 0.5
evaluate_selected "ppk_norm Gaussian, rho=1" train-gaussian.ppk test-gaussian.ppk -t ppk_norm -g 1
evaluate_selected "ppk select's choice, Gaussian" train-gaussian.ppk test-gaussian.ppk -t ppk,ppk_norm \
  -g 0.1,0.25,0.5,0.75,1

best=-1
for gamma in 0.1 1 10; do
  read -r c cv < <(best_c train-means.txt -t 2 -g $gamma)
  if greater "$cv" "$best"; then best=$cv best_c=$c best_gamma=$gamma; fi
done
report "LIBSVM RBF (-t 2) on set means, gamma=$best_gamma" train-means.txt test-means.txt "$best_c" "$best" \
  -t 2 -g "$best_gamma"
