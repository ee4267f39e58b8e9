// The module ppk._ppk: what its source files share. The Python package (python/ppk/__init__.py)
// builds the public API on these.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "ppk/core/data.hpp"
#include "ppk/core/kernel.hpp"

namespace ppk::python {

namespace py = pybind11;

// A sequence of models, each one LIBSVM model row and its label: what ppk.Models holds.
struct ModelRows {
  std::vector<LabeledRow> rows;
};

// The kernel arguments of gram and map, checked (std::invalid_argument, a ValueError, naming the
// argument): kernel "ppk" or "ppk_norm"; rho finite > 0 and T in 0..2147483647; n_jobs None or -1 (the
// command line's default, cli::default_threads) or a number of threads in 1..1024.
KernelKind kernel_kind(const std::string& name);
KernelParams kernel_params(double rho, long T);
unsigned threads_of(std::optional<long> n_jobs);

// Registers ppk._ppk.Models (bind_models), ppk._ppk.Examples and fit (bind_fit), gram (bind_gram),
// FeatureMap (bind_map), SvmClassifier (bind_svm).
void bind_models(py::module_& module);
void bind_fit(py::module_& module);
void bind_gram(py::module_& module);
void bind_map(py::module_& module);
void bind_svm(py::module_& module);

}  // namespace ppk::python
