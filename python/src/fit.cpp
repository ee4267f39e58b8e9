// ppk._ppk.fit: `ppk fit FAMILY` on arrays. The arrays become the examples `ppk fit` would read from
// their LIBSVM rows (ppk::Dataset, each example numbered by the line it would start on), and are
// fitted by the command line's own code in memory (cli::fit_in_memory): the same options, defaults,
// checks, choices and rows, the options given as keywords, the notes passed to a Python callable as
// they are written, the pools passed as their JSON text. The GIL is released while it fits, and
// fits in several Python threads run at once.
#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "cli.hpp"
#include "fit/fit_call.hpp"
#include "ppk/core/row.hpp"

namespace ppk::python {
namespace {

// The examples X as `ppk fit` reads them from LIBSVM rows: one line per example (2-D arrays, CSR
// matrices) or one qid group per example (lists of 2-D arrays), named "X" in messages.
struct Examples {
  cli::FitSource source;
  long columns = 0;  // the vectors' dimension: X's number of columns
};

using Array = py::array_t<double, py::array::c_style | py::array::forcecast>;

// "X[i]", or "X[i] row r, column c" of a list's array.
std::string place(std::size_t example, long row = -1, long column = -1) {
  std::string text = "X[" + std::to_string(example) + "]";
  if (row >= 0) text += " row " + std::to_string(row);
  if (column >= 0) text += ", column " + std::to_string(column);
  return text;
}

// std::invalid_argument unless `value` is finite; `where()` names it ("X[i], column c").
template <class Where>
void check_finite(double value, const Where& where) {
  if (!std::isfinite(value))
    throw std::invalid_argument(where() + " is " + (std::isnan(value) ? "nan" : "infinite") +
                                ": every value of X must be a finite number");
}

// The labels y (nothing: every label 0), one per example, finite.
std::vector<double> labels_of(const std::optional<Array>& y, std::size_t examples) {
  if (!y) return std::vector<double>(examples, 0.0);
  if (y->ndim() != 1 || static_cast<std::size_t>(y->shape(0)) != examples) {
    std::string shape;
    for (py::ssize_t axis = 0; axis < y->ndim(); ++axis) shape += (axis > 0 ? ", " : "") + std::to_string(y->shape(axis));
    throw std::invalid_argument("y must be a 1-D array of one label per example (" + std::to_string(examples) +
                                "), got shape (" + shape + ")");
  }
  std::vector<double> labels(y->data(), y->data() + examples);
  for (std::size_t i = 0; i < examples; ++i)
    if (!std::isfinite(labels[i])) throw std::invalid_argument("y[" + std::to_string(i) + "] is not a finite number");
  return labels;
}

// The non-zero values of one vector (coordinate = column), checked finite; the vector is row `row`
// of example `example` (-1: the example is one vector).
SparseVector sparse_vector(const double* values, long columns, std::size_t example, long row) {
  SparseVector vector;
  for (long c = 0; c < columns; ++c) {
    check_finite(values[c], [&] { return place(example, row, c); });
    if (values[c] != 0) vector.push_back(Feature{c, values[c]});
  }
  return vector;
}

// The largest LIBSVM index of `vector` into `max_index` (read_data's Dataset::max_index).
void note_largest_index(const SparseVector& vector, long& max_index) {
  if (!vector.empty()) max_index = std::max(max_index, vector.back().coord + 1);
}

Examples examples_of(Dataset data, long columns) {
  data.source = "X";
  return Examples{cli::example_fit_source(std::move(data)), columns};
}

Examples dense_examples(const Array& X, const std::optional<Array>& y) {
  if (X.ndim() != 2)
    throw std::invalid_argument("X must be 2-D (one example per row), got " + std::to_string(X.ndim()) + "-D");
  const auto rows = static_cast<std::size_t>(X.shape(0));
  const std::vector<double> labels = labels_of(y, rows);
  if (X.shape(1) == 0) throw std::invalid_argument("X has no columns: every example needs at least one feature");
  const auto columns = static_cast<long>(X.shape(1));
  Dataset data;
  const py::gil_scoped_release release;  // X is held by this call
  for (std::size_t i = 0; i < rows; ++i) {
    Example example;
    example.label = labels[i];
    example.line = static_cast<long>(i + 1);
    example.vectors.push_back(sparse_vector(X.data(static_cast<py::ssize_t>(i), 0), columns, i, -1));
    note_largest_index(example.vectors.back(), data.max_index);
    data.examples.push_back(std::move(example));
  }
  return examples_of(std::move(data), columns);
}

Examples csr_examples(const py::array_t<long, py::array::c_style | py::array::forcecast>& indptr,
                      const py::array_t<long, py::array::c_style | py::array::forcecast>& indices, const Array& values,
                      long columns, const std::optional<Array>& y) {
  const auto starts = indptr.unchecked<1>();
  const auto columns_of = indices.unchecked<1>();
  const auto entries = values.unchecked<1>();
  if (indptr.shape(0) < 1 || indices.shape(0) < starts(indptr.shape(0) - 1) ||
      values.shape(0) < starts(indptr.shape(0) - 1))
    throw std::invalid_argument("X: a CSR matrix whose indptr, indices and data do not agree");
  const auto rows = static_cast<std::size_t>(indptr.shape(0) - 1);
  const std::vector<double> labels = labels_of(y, rows);
  Dataset data;
  const py::gil_scoped_release release;  // the arrays are held by this call
  for (std::size_t i = 0; i < rows; ++i) {
    Example example;
    example.label = labels[i];
    example.line = static_cast<long>(i + 1);
    SparseVector vector;
    for (long k = starts(i); k < starts(i + 1); ++k) {
      check_finite(entries(k), [&] { return place(i, -1, columns_of(k)); });
      vector.push_back(Feature{columns_of(k), entries(k)});  // explicit zeros kept, as read_data keeps them
    }
    note_largest_index(vector, data.max_index);
    example.vectors.push_back(std::move(vector));
    data.examples.push_back(std::move(example));
  }
  return examples_of(std::move(data), columns);
}

Examples grouped_examples(const std::vector<Array>& X, const std::optional<Array>& y) {
  const std::vector<double> labels = labels_of(y, X.size());
  Dataset data;
  data.grouped = true;
  long columns = 0, line = 1;
  for (std::size_t i = 0; i < X.size(); ++i) {
    const Array& vectors = X[i];
    if (vectors.ndim() != 2)
      throw std::invalid_argument(place(i) + " must be 2-D (one vector per row), got " + std::to_string(vectors.ndim()) +
                                  "-D");
    if (vectors.shape(0) == 0)
      throw std::invalid_argument(place(i) + " is empty: every example needs at least one vector");
    if (vectors.shape(1) == 0)
      throw std::invalid_argument(place(i) + " has no columns: every vector needs at least one feature");
    const auto width = static_cast<long>(vectors.shape(1));
    if (i > 0 && width != columns)
      throw std::invalid_argument(place(i) + " has " + std::to_string(width) + " columns, X[0] has " +
                                  std::to_string(columns) + ": every vector must have the same dimension");
    columns = width;
    Example example;
    example.label = labels[i];
    example.line = line;
    example.has_qid = true;
    example.qid = static_cast<long>(i + 1);
    for (py::ssize_t r = 0; r < vectors.shape(0); ++r, ++line) {
      example.vectors.push_back(sparse_vector(vectors.data(r, 0), width, i, static_cast<long>(r)));
      note_largest_index(example.vectors.back(), data.max_index);
    }
    data.examples.push_back(std::move(example));
  }
  return examples_of(std::move(data), columns);
}

// A library message "X:LINE: what" says which example: "X[i] (line LINE of its LIBSVM rows): what".
std::string with_example_index(const std::string& message, const Examples& examples) {
  const std::string prefix = "X:";
  if (message.rfind(prefix, 0) != 0) return message;
  const std::size_t end = message.find(':', prefix.size());
  if (end == std::string::npos) return message;
  const std::string digits = message.substr(prefix.size(), end - prefix.size());
  if (digits.empty() || !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return message;
  const long line = std::stol(digits);
  const std::vector<Example>& all = examples.source.examples->examples;
  const auto after =
      std::upper_bound(all.begin(), all.end(), line, [](long at, const Example& example) { return at < example.line; });
  if (after == all.begin()) return message;
  const auto example = static_cast<std::size_t>(after - all.begin() - 1);
  return place(example) + " (line " + digits + " of its LIBSVM rows):" + message.substr(end + 1);
}

// `fit` with the GIL released, its errors as the package raises them: UsageError and InputError
// (a ValueError) with the command line's message, an example's named by its index.
template <class Fit>
auto fitted(const Examples& examples, const Fit& fit) {
  py::gil_scoped_release release;
  try {
    return fit();
  } catch (const cli::UsageError& e) {
    throw cli::UsageError(cli::message_of(e));
  } catch (const std::runtime_error& e) {
    throw InputError(with_example_index(cli::message_of(e), examples));
  }
}

ModelRows model_rows(std::vector<LabeledRow> rows) {
  ModelRows models;
  models.rows = std::move(rows);
  return models;
}

// `ppk fit FAMILY` with the options `keywords` ("name", value as the command line's word, or None for
// a switch) on the examples; `pool` (the JSON text a training fit kept, named `pool_name` in
// messages) fits them as that fit decided, and with keep_pool the pool this fit decides is returned.
// Each note is passed to `note` (with the GIL) as it is written.
std::pair<ModelRows, std::optional<py::bytes>> fit(const std::string& family,
                                                   const std::vector<cli::OptionKeyword>& keywords,
                                                   const Examples& examples, const std::optional<std::string>& pool,
                                                   const std::string& pool_name, bool keep_pool,
                                                   const std::function<void(const std::string&)>& note) {
  cli::FitCall call{family, keywords, pool, pool_name, keep_pool, [&note](const std::string& line) {
                      py::gil_scoped_acquire gil;
                      note(line);
                    }};
  cli::FittedRows fitted_rows = fitted(examples, [&] { return cli::fit_in_memory(call, examples.source); });
  std::optional<py::bytes> kept;
  if (fitted_rows.pool) kept = py::bytes(*fitted_rows.pool);
  return {model_rows(std::move(fitted_rows.rows)), std::move(kept)};
}

// `ppk fit mi LIKELIHOOD` with the options `keywords` on the examples; `unlabeled` (None: --unlabeled's
// file, or none) the data its mediator is fitted to, `mediator` (the JSON a training fit kept) the
// mediator to reuse, and with keep_mediator the mediator is returned.
std::pair<ModelRows, std::optional<py::bytes>> fit_mi(const std::string& likelihood,
                                                      const std::vector<cli::OptionKeyword>& keywords,
                                                      const Examples& examples, const std::optional<Examples>& unlabeled,
                                                      const std::optional<std::string>& mediator, bool keep_mediator) {
  cli::MiCall call{likelihood, keywords, std::nullopt, mediator, keep_mediator};
  if (unlabeled) {
    call.unlabeled = unlabeled->source;
    call.unlabeled->name = "unlabeled";  // messages name its data "unlabeled:LINE", X's "X:LINE"
  }
  cli::FittedRows fitted_rows = fitted(examples, [&] { return cli::fit_mi_in_memory(call, examples.source); });
  std::optional<py::bytes> kept;
  if (fitted_rows.pool) kept = py::bytes(*fitted_rows.pool);
  return {model_rows(std::move(fitted_rows.rows)), std::move(kept)};
}

}  // namespace

void bind_fit(py::module_& module) {
  py::class_<Examples>(module, "Examples", "Examples X as `ppk fit` reads them from their LIBSVM rows.")
      .def_readonly("columns", &Examples::columns);
  module.def("dense_examples", &dense_examples, py::arg("X"), py::arg("y"),
             "A 2-D array's rows as examples, one line each (its zeros left out).");
  module.def("csr_examples", &csr_examples, py::arg("indptr"), py::arg("indices"), py::arg("data"), py::arg("columns"),
             py::arg("y"), "A CSR matrix's rows as examples, one line each (sorted indices).");
  module.def("grouped_examples", &grouped_examples, py::arg("X"), py::arg("y"),
             "A list of 2-D arrays as examples, one qid group each (one line per vector).");
  module.def("fit", &fit, py::arg("family"), py::arg("keywords"), py::arg("examples"), py::arg("pool"),
             py::arg("pool_name"), py::arg("keep_pool"), py::arg("note"),
             "ppk fit FAMILY with keyword options on the examples: their model rows, and the pool kept.");
  module.def("fit_mi", &fit_mi, py::arg("likelihood"), py::arg("keywords"), py::arg("examples"), py::arg("unlabeled"),
             py::arg("mediator"), py::arg("keep_mediator"),
             "ppk fit mi LIKELIHOOD with keyword options on the examples: their model rows, and the mediator kept.");
}

}  // namespace ppk::python
