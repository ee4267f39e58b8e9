"""pip install . : the package ppk (python/ppk/*.py) and its module ppk._ppk, built by CMake.

The module is the CMake target ppk_python (python/CMakeLists.txt) over the library and its embedded
patched LIBSVM. Environment:

* PPK_BUILD_DIR: a CMake build directory to build ppk_python in; an existing one (the tests' build
  tree) is reused as it is configured, a new one is configured; setuptools' own files go to its
  pip/ folder. Default: build-pip/cmake in this checkout (setuptools' files in build-pip/),
  configured once and kept, so that installing again builds only what changed.
* CMAKE_ARGS: more arguments for configuring a new build directory, split as a shell splits them
  (e.g. "-DLIBSVM_SOURCE=/path/to/libsvm-3.24.tar.gz"; by default the configure step fetches
  LIBSVM 3.24 as Debian's source package, libsvm-patch/libsvm.cmake).
* CMAKE_BUILD_PARALLEL_LEVEL: build jobs (default: every core).
"""
import os
import re
import shlex
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

SOURCE = os.path.dirname(os.path.abspath(__file__))


def project_version():
    """The version in CMakeLists.txt's project() line: the library's and the package's."""
    with open(os.path.join(SOURCE, "CMakeLists.txt")) as file:
        return re.search(r"project\(ppk VERSION ([0-9.]+)", file.read()).group(1)


# setuptools' own files (build/, the egg-info) and the default CMake build directory.
PIP_FILES = os.path.join(os.path.abspath(os.environ["PPK_BUILD_DIR"]), "pip") if os.environ.get("PPK_BUILD_DIR") \
    else os.path.join(SOURCE, "build-pip")
os.makedirs(PIP_FILES, exist_ok=True)  # egg_info writes into it


class CMakeBuild(build_ext):
    """Builds ppk._ppk with CMake and copies it where setuptools packs the extension."""

    def build_extension(self, ext):
        build = os.path.abspath(os.environ.get("PPK_BUILD_DIR") or os.path.join(PIP_FILES, "cmake"))
        if not os.path.exists(os.path.join(build, "CMakeCache.txt")):
            configure = ["cmake", "-S", SOURCE, "-B", build, "-DCMAKE_BUILD_TYPE=Release", "-DPPK_BUILD_TESTS=OFF",
                         "-DPPK_BUILD_BENCH=OFF", "-DPPK_OCTAVE=OFF", "-DPPK_PYTHON=ON",
                         f"-DPython_EXECUTABLE={sys.executable}"]
            subprocess.run(configure + shlex.split(os.environ.get("CMAKE_ARGS", "")), check=True)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
        subprocess.run(["cmake", "--build", build, "--target", "ppk_python", "--parallel", jobs], check=True)
        package = os.path.join(build, "python", "ppk")
        built = [name for name in os.listdir(package) if name.startswith("_ppk.") and name.endswith(".so")]
        if len(built) != 1:
            raise RuntimeError(f"expected one module _ppk*.so in {package}, found {built}")
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(os.path.join(package, built[0]), target)


setup(
    version=project_version(),
    packages=["ppk"],
    package_dir={"": "python"},
    ext_modules=[Extension("ppk._ppk", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    options={"build": {"build_base": os.path.join(PIP_FILES, "setuptools")}, "egg_info": {"egg_base": PIP_FILES}},
)
