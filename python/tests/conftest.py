"""The Python package's tests: PPK_TOOL is the ppk executable (the oracle the bindings must match),
PPK_SOURCE_DIR the repository (docs/python.md); CTest's python.pytest sets both and PYTHONPATH."""

import os
import subprocess
import warnings

import numpy as np
import pytest
from sklearn.utils.estimator_checks import check_estimator


def libsvm_data_line(label, values, qid=None):
    """A LIBSVM data row written here, independently of the bindings: repr gives the shortest text
    that reads back as the same double; zeros are left out."""
    fields = [repr(float(label))]
    if qid is not None:
        fields.append(f"qid:{qid}")
    fields += [f"{j + 1}:{float(v)!r}" for j, v in enumerate(values) if v != 0]
    return " ".join(fields)


def write_rows(path, X, y):
    """X (2-D array: one line per example, or a list of 2-D arrays: one qid group each) as LIBSVM data."""
    lines = []
    if isinstance(X, list):
        for i, (vectors, label) in enumerate(zip(X, y)):
            lines += [libsvm_data_line(label, v, qid=i + 1) for v in vectors]
    else:
        lines = [libsvm_data_line(label, row) for row, label in zip(X, y)]
    path.write_text("\n".join(lines) + "\n")
    return path


class Tool:
    def __init__(self, path):
        self.path = path

    def __call__(self, *args, check=True):
        result = subprocess.run([self.path, *map(str, args)], capture_output=True)
        if check and result.returncode != 0:
            raise AssertionError(f"ppk {' '.join(map(str, args))}: {result.stderr.decode()}")
        return result


@pytest.fixture(scope="session")
def ppk_tool():
    path = os.environ.get("PPK_TOOL")
    if not path:
        pytest.fail("PPK_TOOL (the ppk executable) is not set: run the tests with ctest -R python.pytest")
    return Tool(path)


@pytest.fixture
def rng():
    return np.random.default_rng(20261127)


def run_checks(estimator):
    """Every check of check_estimator run on its own: {check name: the exception} of those that fail."""
    failures = {}
    for instance, check in check_estimator(estimator, generate_only=True):
        name = getattr(check, "func", check).__name__
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                check(instance)
        except Exception as error:  # noqa: BLE001 (each failure is reported below)
            failures[name] = error
    return failures
