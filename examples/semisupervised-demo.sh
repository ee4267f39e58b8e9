#!/usr/bin/env bash
# Semi-supervised learning with a plain SVM (Seeger, NIPS 2001, section 3.1): learning curves of the
# diagonal mixture mutual-information kernel, whose mediator is a Gaussian mixture fitted to 500
# unlabeled points, against LIBSVM's RBF kernel, on two 2-D Gaussian classes with a shared,
# elongated covariance (Bayes error 2.64%). examples/semisupervised.py does the runs; gnuplot draws
# the curves to semisupervised.png in the demo's directory.
# Usage: examples/semisupervised-demo.sh BUILD_DIR [PNG]   (PNG: also copy the plot there)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.bash"
demo_setup "${1:-}" demo-semisupervised

python3 "$here/semisupervised.py" --bin "$bin" --out curves.tsv
echo
echo "Two Gaussian clusters (Seeger 2001, 3.1): 500 unlabeled, pool 100, test 500; 20 runs per size;"
echo "parameters and C chosen on a holdout set of the training set's size"
awk -F'\t' 'NR == 1 { printf "%6s %26s %26s\n", "size", "MI kernel test error", "RBF test error"; next }
            { printf "%6d %18.1f%% ± %4.1f %18.1f%% ± %4.1f\n", $1, 100 * $2, 100 * $3, 100 * $4, 100 * $5 }' curves.tsv
gnuplot <<'PLOT'
set terminal pngcairo size 640,400 noenhanced
set output 'semisupervised.png'
set title 'Two Gaussian clusters: mean test error over 20 runs (95% intervals)'
set xlabel 'training set size'
set ylabel 'test error'
set key top right
set grid
plot 'curves.tsv' every ::1 using 1:2:3 with yerrorlines title 'MI kernel (diagonal mixture, 500 unlabeled points)', \
     ''           every ::1 using 1:4:5 with yerrorlines title 'LIBSVM RBF kernel'
PLOT
if [[ -n ${2:-} ]]; then cp semisupervised.png "$2"; fi
