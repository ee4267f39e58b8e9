// ppk._ppk.KernelMatrix and cross_validated_predictions: the engine of `ppk select`
// (tools/kernel_cross_validation.hpp) for ppk.sklearn.PPKSVCCV. One kernel matrix of the models, held
// once; every fold and every C of a grid solved on it by the module's LIBSVM, the GIL released.
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/stl.h>

#include "bindings.hpp"
#include "gram_matrix.hpp"
#include "kernel_cross_validation.hpp"

namespace ppk::python {
namespace {

// The symmetric kernel matrix of `models` (kernel, rho, T), as ppk.gram(models) computes its entries.
class KernelMatrix {
 public:
  KernelMatrix(const ModelRows& models, const std::string& kernel, double rho, long T, std::optional<long> n_jobs) {
    const KernelKind kind = kernel_kind(kernel);
    const KernelParams params = kernel_params(rho, T);
    const unsigned threads = threads_of(n_jobs);
    py::gil_scoped_release release;
    const cli::PreparedFile prepared = cli::prepare_rows(models.rows, "X", kind, params);
    cli::check_first_row_and_column(kind, prepared, prepared);
    matrix_ = cli::compute_gram(kind, prepared, prepared, true, threads);
  }
  // The kernel matrix of combined rows of `weights` under `kernel` from their parts' matrices of the
  // normalized kernel (each a KernelMatrix of one part's models, kernel "ppk_norm"): their weighted sum
  // (cli::combined_gram), no kernel computed for the weighting.
  static KernelMatrix weighted_sum(const std::vector<const KernelMatrix*>& parts, const std::vector<double>& weights,
                                   const std::string& kernel) {
    const KernelKind kind = kernel_kind(kernel);
    if (parts.empty() || weights.size() != parts.size())
      throw py::value_error("weighted_sum: one weight per part matrix, got " + std::to_string(weights.size()) +
                            " weights for " + std::to_string(parts.size()) + " matrices");
    std::vector<const cli::GramMatrix*> matrices;
    for (const KernelMatrix* part : parts) {
      if (part->size() != parts.front()->size())
        throw py::value_error("weighted_sum: part matrices of " + std::to_string(parts.front()->size()) + " and " +
                              std::to_string(part->size()) + " examples");
      matrices.push_back(&part->matrix_);
    }
    KernelMatrix sum;
    py::gil_scoped_release release;
    sum.matrix_ = cli::combined_gram(parts.front()->matrix_.rows(), matrices, weights, kind);
    return sum;
  }
  const cli::GramMatrix& matrix() const { return matrix_; }
  std::size_t size() const { return static_cast<std::size_t>(matrix_.rows()); }

 private:
  KernelMatrix() = default;
  cli::GramMatrix matrix_;
};

// predictions[c, i] for C = costs[c]: example i predicted by the classifier trained, with `options`
// otherwise, on the training part of the fold that tests it (NaN where no fold tests it). Each fold is
// a classifier of its own, as PPKSVC fitted on it with random_state = seed.
py::array_t<double> cross_validated_predictions(const KernelMatrix& kernel, const std::vector<double>& labels,
                                                const std::vector<std::pair<std::vector<int>, std::vector<int>>>& folds,
                                                const TrainOptions& options, const std::vector<double>& costs,
                                                std::optional<long> n_jobs) {
  const std::size_t n = kernel.size();
  if (labels.size() != n)
    throw py::value_error("labels: " + std::to_string(labels.size()) + " for " + std::to_string(n) + " examples");
  std::vector<cli::Fold> checked;
  for (const auto& [train, test] : folds) {
    for (const std::vector<int>* part : {&train, &test})
      for (int i : *part)
        if (i < 0 || static_cast<std::size_t>(i) >= n)
          throw py::value_error("folds: index " + std::to_string(i) + " outside 0.." + std::to_string(n - 1));
    checked.push_back({train, test});
  }
  const unsigned threads = threads_of(n_jobs);
  const svm_parameter parameters = svm_train_parameters(options, 0);
  std::vector<std::vector<double>> predictions;
  {
    py::gil_scoped_release release;
    predictions =
        cli::cross_validated_predictions(kernel.matrix(), labels, checked, parameters, costs, threads, options.seed);
  }
  py::array_t<double> out({static_cast<py::ssize_t>(costs.size()), static_cast<py::ssize_t>(n)});
  auto values = out.mutable_unchecked<2>();
  for (std::size_t c = 0; c < costs.size(); ++c)
    for (std::size_t i = 0; i < n; ++i)
      values(static_cast<py::ssize_t>(c), static_cast<py::ssize_t>(i)) = predictions[c][i];
  return out;
}

}  // namespace

void bind_cross_validation(py::module_& module) {
  py::class_<KernelMatrix>(module, "KernelMatrix",
                           "The kernel matrix of ppk.Models, held once (its upper triangle), for cross-validation")
      .def(py::init<const ModelRows&, const std::string&, double, long, std::optional<long>>(), py::arg("models"),
           py::arg("kernel"), py::arg("rho"), py::arg("T"), py::arg("n_jobs") = py::none())
      .def_static("weighted_sum", &KernelMatrix::weighted_sum, py::arg("parts"), py::arg("weights"), py::arg("kernel"),
                  "The matrix of combined rows at `weights` from their parts' ppk_norm matrices: their weighted sum")
      .def("__len__", &KernelMatrix::size);
  module.def("cross_validated_predictions", &cross_validated_predictions, py::arg("matrix"), py::arg("labels"),
             py::arg("folds"), py::arg("options"), py::arg("costs"), py::arg("n_jobs") = py::none(),
             "Held-out predictions of LIBSVM's C-SVC on the matrix: one row per C, one column per example.");
}

}  // namespace ppk::python
