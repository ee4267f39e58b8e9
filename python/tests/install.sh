# python.install: `pip install .` into a fresh virtual environment, as docs/python.md ("Install") says a
# user does on Debian 12 (its python3-venv, pip and setuptools; --system-site-packages for numpy, scipy
# and scikit-learn; offline), reusing the suite's build tree (PPK_BUILD_DIR) so that nothing is built
# again. Then, from outside the checkout (so that `import ppk` cannot find python/ppk): ppk is the
# installed package, with its module ppk._ppk; PPKSVC(family="gaussian") on real data (scikit-learn's
# breast cancer set) predicts as scikit-learn's SVC() with the same RBF kernel (gamma="scale", the
# fixed-variance Gaussian's normalised kernel at rho = 1, JMLR 2004 section 3.1) and at least as
# accurately as a bound; `python -m ppk.dask --help`; the docstrings' examples and numpydoc checks
# (python/tests/test_docstrings.py) on the installed package. The environment is removed after.
#   bash install.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
source_dir=$(cd "$1" && pwd)
build_dir=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

/usr/bin/python3 -m venv --system-site-packages "$work/venv"
python=$work/venv/bin/python
cd "$work"
PPK_BUILD_DIR=$build_dir PIP_DISABLE_PIP_VERSION_CHECK=1 \
  "$python" -m pip install --quiet --no-build-isolation --no-index "$source_dir" ||
  fail "pip install $source_dir failed"

"$python" - "$work/venv" <<'PYTHON' || fail "the installed package does not import or predict as SVC()"
import os
import sys

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC

import ppk
import ppk._ppk
from ppk.sklearn import PPKSVC

venv = os.path.realpath(sys.argv[1])
for module in (ppk, ppk._ppk):
    assert os.path.realpath(module.__file__).startswith(venv + os.sep), f"{module.__name__} from {module.__file__}"

X, y = load_breast_cancer(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.5, stratify=y, random_state=0)
scaler = StandardScaler().fit(X_train)
X_train, X_test = scaler.transform(X_train), scaler.transform(X_test)
svc = PPKSVC(family="gaussian").fit(X_train, y_train)
# N(x, V I), V = D Var(X) / 4: its normalised kernel exp(-|x - x'|^2 / (4 V)) is RBF at gamma = 1 / (D Var(X)).
assert svc.kernel_ == "ppk_norm" and np.isclose(svc.fit_defaults_["var"], X_train.shape[1] * X_train.var() / 4)
oracle = SVC(kernel="rbf", gamma="scale", C=1.0).fit(X_train, y_train)
predicted, expected = svc.predict(X_test), oracle.predict(X_test)
agreement = np.mean(predicted == expected)
accuracy = np.mean(predicted == y_test)
print(f"PPKSVC(family='gaussian'): accuracy {accuracy:.4f}, SVC(): {np.mean(expected == y_test):.4f}, "
      f"the same prediction on {agreement:.4f} of {len(y_test)} test examples")
assert agreement >= 0.99, agreement
# The decision values of the two LIBSVMs on the same kernel, to their stopping tolerance (1e-3).
assert np.max(np.abs(svc.decision_function(X_test) - oracle.decision_function(X_test))) < 0.05
assert accuracy >= 0.95, accuracy
PYTHON

"$python" -m ppk.dask --help > dask_help.txt || fail "python -m ppk.dask --help failed"
grep -q -- "--scheduler-file" dask_help.txt || fail "python -m ppk.dask --help lacks --scheduler-file"
grep -q "^usage: python3 -m ppk.dask" dask_help.txt || fail "python -m ppk.dask --help: $(head -1 dask_help.txt)"

cp "$source_dir/python/tests/test_docstrings.py" "$work/"
"$python" -m pytest -q -p no:cacheprovider "$work/test_docstrings.py" || fail "the docstrings of the installed package"
echo "python.install: passed"
