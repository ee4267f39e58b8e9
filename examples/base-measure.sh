#!/usr/bin/env bash
# Does centring the Dirichlet prior on the training file's pooled word frequencies (--base pooled,
# Zhai & Lafferty 2001) help classification? docs/base-measure.md. For each base (uniform, pooled)
# and alpha in {evidence, 1, 0.1, 0.01, 0.001} (or $alphas): the Bhattacharyya kernel (svm-train -t ppk -g 0.5), C chosen
# by 5-fold cross-validation on the training part from the grid, then the held-out accuracy.
# Data: the documents demo's synthetic corpus (examples/make_documents.py, seed 1, 3000 words) and,
# when examples/wordnet_glosses.py is present, WordNet's noun glosses (Debian package wordnet-base).
# Usage: [alphas="..."] examples/base-measure.sh BUILD_DIR [documents|wordnet|both] [WORDNET_TRAIN WORDNET_TEST]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.bash"
demo_setup "${1:-}" base-measure
which=${2:-both}

# compare NAME DIM: the table for train.txt / test.txt of dimension DIM.
compare() {
  local name=$1 dim=$2 alpha
  echo
  echo "$name: $(wc -l < train.txt) training, $(wc -l < test.txt) test documents, vocabulary $dim; C from {${grid[*]}} by 5-fold CV"
  printf '%-44s %8s %10s %14s\n' kernel C "CV acc" "test accuracy"
  for alpha in ${alphas:-evidence 1 0.1 0.01 0.001}; do
    for base in uniform pooled; do
      # The base and alpha are chosen on the training file and reused for the test file.
      "$bin/ppk" fit multinomial --alpha "$alpha" --dim "$dim" --base $base --save-pooled pool.json train.txt \
        -o train.$base.ppk 2> "chosen.$base.txt"
      "$bin/ppk" fit multinomial --dim "$dim" --base $base --pooled-from pool.json test.txt -o test.$base.ppk 2> /dev/null
      evaluate "Bhattacharyya, --base $base --alpha $alpha" train.$base.ppk test.$base.ppk -t ppk -g 0.5
      if [[ $alpha == evidence ]]; then sed -n 's/^ppk fit multinomial: /    /p' "chosen.$base.txt"; fi
    done
  done
}

if [[ $which == documents || $which == both ]]; then
  python3 "$here/make_documents.py" --seed 1 --vocabulary 3000 --train train.txt --test test.txt
  compare "Synthetic documents (documents demo)" 3000
fi
if [[ ($which == wordnet || $which == both) && -f $here/wordnet_glosses.py ]]; then
  python3 "$here/wordnet_glosses.py" --train-size "${3:-8000}" --test-size "${4:-3000}" \
    --train train.txt --test test.txt --vocabulary vocabulary.txt
  compare "WordNet noun glosses" "$(wc -l < vocabulary.txt)"
fi
