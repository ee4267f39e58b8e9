#!/usr/bin/env bash
# The main job on a fresh Debian 12 machine (as root): installs what is missing,
# builds LIBSVM (patched) and ppk, and runs the end-to-end demo.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset default                 # the configuration scripts/test.sh uses: nothing is built twice
cmake --build --preset default --target ppk_tool svm-train svm-predict svm-scale ppk_python   # only what the demo runs
bash examples/documents-demo.sh build
PYTHONPATH=build/python /usr/bin/python3 examples/documents_demo.py   # the same in Python (docs/python.md)
bash examples/sequences-demo.sh build
bash examples/sets-demo.sh build
bash examples/semisupervised-demo.sh build
bash examples/timeseries-demo.sh build
