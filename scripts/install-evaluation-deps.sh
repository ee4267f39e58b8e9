#!/usr/bin/env bash
# Installs the Debian 12 packages whose real data the evaluation scripts in examples/ read (the
# tests and the demo do not need them). Run as root (or with sudo). Safe to run again.
#   fortunes                             examples/fortunes_documents.py (docs/documents-smoothing.md)
#   wamerican wngerman wfrench witalian  examples/word_languages.py, examples/latent-eval.sh
#   python3-sklearn                      examples/mi_components.py (wine, breast cancer, iris)
#   r-cran-mlbench r-cran-kernlab        bench/scoreboard.py: splice junctions (DNA), promoters (promotergene)
#   hmmer-doc hmmer-examples             bench/scoreboard.py: protein families (HMMER's tutorial, test-suite seeds)
#   (bench/scoreboard.py's words are examples/word_languages.py's: the word lists above)
set -euo pipefail
packages=(fortunes wamerican wngerman wfrench witalian python3-sklearn r-cran-mlbench r-cran-kernlab hmmer-doc
  hmmer-examples)
bash "$(dirname "$0")/install-missing.sh" "${packages[@]}"
