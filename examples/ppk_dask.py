#!/usr/bin/env python3
"""The Dask pipeline of docs/dask.md in a checkout, without the package installed: runs the
checkout's python/ppk/dask.py (``python3 -m ppk.dask`` where the package is installed), whose
module needs only the standard library and dask. ``python3 examples/ppk_dask.py --help``."""
import importlib.util
import os
import sys


def load_pipeline():
    """The module python/ppk/dask.py of this checkout, as ppk_dask_pipeline (in sys.modules, so that
    its tasks can be shipped by value)."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "python", "ppk", "dask.py")
    spec = importlib.util.spec_from_file_location("ppk_dask_pipeline", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


if __name__ == "__main__":
    sys.exit(load_pipeline().main())
