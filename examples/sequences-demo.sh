#!/usr/bin/env bash
# End-to-end demo: sequence classification with hidden Markov models (JMLR 2004, section 8.2).
#   1. synthetic DNA-like sequences of 50 to 500 bases in two classes
#      (examples/make_sequences.py), one 'LABEL SEQUENCE' line each;
#   2. ppk fit hmm: one 2-state HMM per sequence by Baum-Welch; and one pooled 2-state HMM of the
#      training sequences, from which every sequence's HMM is adapted (--pooled, --adapt-from);
#   3. svm-train -t ppk_norm -g 1 -d 9: the normalised expected-likelihood kernel between the
#      HMMs over sequences x_0..x_9 (the paper's setting: rho = 1, T = 9), svm-predict;
#   4. the same sequences as k-mer spectra (k = 1..3, examples/kmer_counts.py) with LIBSVM's
#      linear and RBF kernels.
# For every kernel, C is chosen by 5-fold cross-validation on the training set (ppk select for the
# HMM rows; in the row "ppk select's choice" also the kernel, rho and T).
# Usage: examples/sequences-demo.sh BUILD_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.bash"
demo_setup "${1:-}" demo-sequences

python3 "$here/make_sequences.py" --seed 1 --n 800 > all.txt
head -n 400 all.txt > train.txt
tail -n 400 all.txt > test.txt
"$bin/ppk" fit hmm --states 2 --alphabet ACGT --seed 1 train.txt -o train.ppk
"$bin/ppk" fit hmm --states 2 --alphabet ACGT --seed 1 test.txt -o test.ppk
# One pooled 2-state HMM of all training sequences, and every sequence adapted from it
# (docs/latent-models.md): its states stay aligned across sequences.
"$bin/ppk" fit hmm --pooled --states 2 --alphabet ACGT --threads 2 --save-pooled pool.json train.txt -o pooled.ppk
"$bin/ppk" fit hmm --adapt-from pool.json --alphabet ACGT train.txt -o train_adapted.ppk
"$bin/ppk" fit hmm --adapt-from pool.json --alphabet ACGT test.txt -o test_adapted.ppk
python3 "$here/kmer_counts.py" --k 3 train.txt > train.kmers
python3 "$here/kmer_counts.py" --k 3 test.txt > test.kmers

echo
echo "DNA-like sequences: $(wc -l < train.txt) training, $(wc -l < test.txt) test, 50-500 bases; C by 5-fold CV"
printf '%-44s %8s %10s %14s\n' kernel C "CV acc" "test accuracy"
evaluate_selected "ppk_norm HMM, rho=1, T=9" train.ppk test.ppk -t ppk_norm -g 1 -d 9
evaluate_selected "ppk_norm adapted HMM, rho=1, T=9" train_adapted.ppk test_adapted.ppk -t ppk_norm -g 1 -d 9
evaluate_selected "ppk select's choice, adapted HMM" train_adapted.ppk test_adapted.ppk -t ppk,ppk_norm \
  -g 0.25,0.5,1 -d 4,9,19
evaluate "LIBSVM linear (-t 0) on 1-3-mer spectra" train.kmers test.kmers -t 0
evaluate "LIBSVM RBF (-t 2) on 1-3-mer spectra" train.kmers test.kmers -t 2
