#!/usr/bin/env bash
# End-to-end demo: text classification with multinomial models (JMLR 2004, section 8.1).
#   1. synthetic bag-of-words documents (examples/make_documents.py), LIBSVM format;
#   2. ppk fit multinomial: one smoothed multinomial per document, as sparse rows;
#   3. svm-train -t ppk -g 0.5 (the Bhattacharyya kernel), svm-predict; and the kernel and rho
#      chosen with C by ppk select (its defaults: ppk and ppk_norm, rho from 0.1 to 1);
#   4. the same documents with LIBSVM's own kernels: linear and RBF on the counts,
#      and RBF after svm-scale (LIBSVM's recommended procedure).
# For every kernel, C is chosen by 5-fold cross-validation on the training set from the same grid
# (ppk select for the model rows, svm-train -v 5 for LIBSVM's kernels: the same folds and
# accuracies), then the test accuracy is reported.
# Usage: examples/documents-demo.sh BUILD_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.bash"
demo_setup "${1:-}" demo

python3 "$here/make_documents.py" --seed 1 --vocabulary 3000 --train train.txt --test test.txt
"$bin/ppk" fit multinomial --dim 3000 train.txt -o train.ppk
"$bin/ppk" fit multinomial --dim 3000 test.txt -o test.ppk
"$bin/svm-scale" -l 0 -s scale.range train.txt > train.scaled
"$bin/svm-scale" -r scale.range test.txt > test.scaled 2> /dev/null  # warns of unseen features

echo
echo "Documents: $(wc -l < train.txt) training, $(wc -l < test.txt) test, vocabulary 3000; C by 5-fold CV"
printf '%-44s %8s %10s %14s\n' kernel C "CV acc" "test accuracy"
evaluate_selected "ppk multinomial, rho=0.5 (Bhattacharyya)" train.ppk test.ppk -t ppk -g 0.5
evaluate_selected "ppk_norm multinomial, rho=1" train.ppk test.ppk -t ppk_norm -g 1
evaluate_selected "ppk select's choice" train.ppk test.ppk -t ppk,ppk_norm -g 0.1,0.25,0.5,0.75,1
evaluate "LIBSVM linear (-t 0) on counts" train.txt test.txt -t 0
evaluate "LIBSVM RBF (-t 2) on counts" train.txt test.txt -t 2
evaluate "LIBSVM RBF (-t 2) after svm-scale" train.scaled test.scaled -t 2
