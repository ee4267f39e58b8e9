"""The module carries its own patched LIBSVM: it needs no libsvm.so, exports none of LIBSVM's
functions, and a process that loaded the distribution's unpatched libsvm.so.3 first (globally, as
python3-libsvm's ctypes interface can) still trains and predicts with the plugin kernel."""

import os
import subprocess
import sys

import pytest

import ppk
from ppk import _ppk

DISTRIBUTION_LIBSVM = "/usr/lib/x86_64-linux-gnu/libsvm.so.3"  # Debian's libsvm3 (python3-libsvm needs it)


def readelf(*options):
    result = subprocess.run(["readelf", "--wide", *options, _ppk.__file__], capture_output=True, text=True, check=True)
    return result.stdout


def test_the_module_needs_no_libsvm_and_exports_none_of_its_functions():
    needed = [line for line in readelf("--dynamic").splitlines() if "(NEEDED)" in line]
    assert needed and not any("libsvm" in line for line in needed), needed
    defined = {line.split()[-1] for line in readelf("--dyn-syms").splitlines()
               if " UND " not in line and len(line.split()) >= 8}
    for name in ("svm_train", "svm_predict_values", "svm_load_model", "svm_register_kernel_type"):
        assert name not in defined


@pytest.mark.skipif(not os.path.exists(DISTRIBUTION_LIBSVM), reason="the distribution's libsvm3 is not installed")
def test_the_distributions_libsvm_loaded_first_changes_nothing():
    script = f"""
import ctypes, numpy as np
ctypes.CDLL({DISTRIBUTION_LIBSVM!r}, mode=ctypes.RTLD_GLOBAL)   # unpatched: no kernel type ppk
from ppk.sklearn import PPKSVC
rng = np.random.default_rng(0)
X = rng.poisson(3, size=(40, 6)) + np.repeat([[0, 0, 0, 0, 0, 5], [5, 0, 0, 0, 0, 0]], 20, axis=0)
y = np.repeat([0, 1], 20)
svc = PPKSVC(rho=0.5, C=10).fit(X, y)
print(svc.svm_.kernel, svc.score(X, y))
"""
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    kernel, accuracy = result.stdout.split()
    assert kernel == "ppk" and float(accuracy) > 0.9
