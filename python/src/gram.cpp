// ppk._ppk.gram: the kernel matrix between two Models, by `ppk gram`'s code (gram_matrix.hpp), the
// GIL released while it runs.
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include <pybind11/stl.h>

#include "bindings.hpp"
#include "gram_matrix.hpp"
#include "parallel.hpp"

namespace ppk::python {

KernelKind kernel_kind(const std::string& name) {
  if (name == "ppk") return KernelKind::ppk;
  if (name == "ppk_norm") return KernelKind::ppk_norm;
  throw std::invalid_argument("kernel must be 'ppk' or 'ppk_norm', got '" + name + "'");
}

KernelParams kernel_params(double rho, long T) {
  if (!(rho > 0) || !std::isfinite(rho))
    throw std::invalid_argument("rho must be a finite number > 0, got " + std::to_string(rho));
  if (T < 0 || T > std::numeric_limits<int>::max())
    throw std::invalid_argument("T must be a whole number in 0..2147483647, got " + std::to_string(T));
  KernelParams params;
  params.rho = rho;
  params.length = static_cast<int>(T);
  return params;
}

unsigned threads_of(std::optional<long> n_jobs) {
  if (!n_jobs || *n_jobs == -1) return cli::default_threads();
  if (*n_jobs < 1 || *n_jobs > 1024)
    throw std::invalid_argument("n_jobs must be None, -1 or a number of threads in 1..1024, got " +
                                std::to_string(*n_jobs));
  return static_cast<unsigned>(*n_jobs);
}

namespace {

py::array_t<double> gram(const ModelRows& a, const ModelRows* b, const std::string& kernel, double rho, long T,
                         std::optional<long> n_jobs) {
  const KernelKind kind = kernel_kind(kernel);
  const KernelParams params = kernel_params(rho, T);
  const unsigned threads = threads_of(n_jobs);
  auto matrix = std::make_unique<cli::GramMatrix>();
  {
    py::gil_scoped_release release;
    const cli::PreparedFile prepared_a = cli::prepare_rows(a.rows, "A", kind, params);
    const cli::PreparedFile prepared_b =
        b != nullptr ? cli::prepare_rows(b->rows, "B", kind, params) : cli::PreparedFile{};
    const cli::PreparedFile& right = b != nullptr ? prepared_b : prepared_a;
    cli::check_first_row_and_column(kind, prepared_a, right);
    *matrix = cli::compute_gram(kind, prepared_a, right, b == nullptr, threads);
  }
  cli::GramMatrix* values = matrix.release();
  const py::capsule owner(values, [](void* pointer) { delete static_cast<cli::GramMatrix*>(pointer); });
  return py::array_t<double>(
      {values->rows(), values->cols()},
      {static_cast<py::ssize_t>(sizeof(double)) * values->cols(), static_cast<py::ssize_t>(sizeof(double))},
      values->data(), owner);
}

}  // namespace

void bind_gram(py::module_& module) {
  module.def("gram", &gram, py::arg("A"), py::arg("B").none(true), py::arg("kernel"), py::arg("rho"), py::arg("T"),
             py::arg("n_jobs"), "K[i, j] = k(A[i], B[j]) (B None: A against itself), as `ppk gram` computes it.");
}

}  // namespace ppk::python
