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
#include "svm.h"

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

// svm-train's options of a C-SVC on ppk rows, as PPKSVC sets them (SvmTrainOptions in Python).
struct TrainOptions {
  std::string kernel;              // "ppk" or "ppk_norm"
  double rho = 1;                  // -g
  int T = 0;                       // -d
  double C = 1;                    // -c
  std::vector<int> weight_labels;  // -wLABEL WEIGHT
  std::vector<double> weights;
  bool probability = false;  // -b 1
  double tol = 1e-3;         // -e
  bool shrinking = true;     // -h
  double cache_size = 100;   // -m, MB
  unsigned seed = 1;         // srand(seed) before training: the folds of -b 1's cross-validation
};

// LIBSVM's parameters for `options` and the kernel type number `kernel_type` (its weights point into
// `options`, which must outlive them); ValueError when the weights and their labels differ in number.
svm_parameter svm_train_parameters(const TrainOptions& options, int kernel_type);

// Registers ppk._ppk.Models (bind_models), ppk._ppk.Examples and fit (bind_fit), gram (bind_gram),
// FeatureMap (bind_map), SvmClassifier (bind_svm), KernelMatrix and cross_validated_predictions
// (bind_cross_validation), combine, combined_parts and reweighted (bind_combined).
void bind_models(py::module_& module);
void bind_fit(py::module_& module);
void bind_gram(py::module_& module);
void bind_map(py::module_& module);
void bind_svm(py::module_& module);
void bind_cross_validation(py::module_& module);
void bind_combined(py::module_& module);

}  // namespace ppk::python
