#!/usr/bin/env bash
# Installs every Debian 12 package the build, the demo and the tests need.
# Run as root (or with sudo). Safe to run again.
set -euo pipefail
packages=(
  cmake g++ make patch xz-utils python3
  libeigen3-dev libboost-dev libboost-program-options-dev nlohmann-json3-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libpng-dev                          # ppk gram --png writes the heat map with libpng
  pkgconf                             # the install test compiles the example with pkg-config --libs ppk
  libsvm3 libsvm-tools python3-libsvm   # the distribution's LIBSVM programs, for comparison tests
  gnuplot-nox                         # the semi-supervised demo draws its learning curves
  wordnet-base                        # WordNet's noun glosses: the real corpus of docs/documents-smoothing.md
  octave octave-dev   # Octave and mkoctfile: LIBSVM's Octave interface (svmtrain, svmpredict) and its test
  liblinear-tools                     # ppk map's tests train LIBLINEAR on the feature maps
  python3-numpy python3-dask python3-distributed  # the feature maps' checks and the Dask pipeline
  iproute2                            # cli.dask_cluster: the cluster's hosts in network namespaces (ip netns)
  clang-format                        # cli.format: the C++ sources follow .clang-format (clang-format 14)
  clang libclang-rt-14-dev            # the sanitize preset: clang, ASan/UBSan and libFuzzer (tests/fuzz/)
  python3-dev                         # Python.h, for the Python package's module ppk._ppk
  python3-pybind11                    # the Python package's bindings (pybind11 2.10, PPK_PYTHON)
  python3-scipy                       # ppk.fit takes scipy.sparse matrices
  python3-sklearn                     # the scikit-learn estimators of the Python package
  python3-pandas                      # scikit-learn's checks of the estimators on DataFrames (python.pytest)
  python3-pytest                      # python.pytest: the Python package's tests
  python3-hypothesis                  # python.pytest's property tests of bad inputs
  python3-pip python3-setuptools python3-wheel python3-venv   # pip install . (python.install: a fresh venv)
  python3-numpydoc                    # python.pytest checks the package's docstrings in numpydoc form
  r-cran-kernlab                      # cli.scoreboard: kernlab's E. coli promoters, read by Rscript (r-base-core)
)
bash "$(dirname "$0")/install-missing.sh" "${packages[@]}"
