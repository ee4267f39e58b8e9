// The module ppk._ppk: what its source files share. The Python package (python/ppk/__init__.py)
// builds the public API on these.
#pragma once

#include <string>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "ppk/core/data.hpp"

namespace ppk::python {

namespace py = pybind11;

// A sequence of models, each one LIBSVM model row and its label: what ppk.Models holds.
struct ModelRows {
  std::vector<LabeledRow> rows;
};

// Registers ppk._ppk.Models (bind_models), ppk._ppk.Examples and fit (bind_fit), gram (bind_gram),
// SvmClassifier (bind_svm).
void bind_models(py::module_& module);
void bind_fit(py::module_& module);
void bind_gram(py::module_& module);
void bind_svm(py::module_& module);

}  // namespace ppk::python
