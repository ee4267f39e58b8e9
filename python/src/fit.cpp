// ppk._ppk.fit: `ppk fit FAMILY` on arrays. The examples are written as the LIBSVM data rows that
// `ppk fit` reads (every number in the fewest digits that read back as the same double, so nothing
// is lost) and fitted by the command line's own code (fit_rows_text): the same options, defaults,
// checks and rows.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/stl.h>

#include "bindings.hpp"
#include "cli.hpp"
#include "ppk/core/row.hpp"

namespace ppk::python {
namespace {

// The examples X as LIBSVM data rows: one line per example (2-D arrays, CSR matrices) or one qid
// group per example (lists of 2-D arrays), and the line on which each example starts (1-based).
struct Examples {
  std::string text;
  std::vector<long> first_lines;
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

void check_finite(double value, const std::string& where) {
  if (!std::isfinite(value))
    throw std::invalid_argument(where + " is " + (std::isnan(value) ? "nan" : "infinite") +
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

// One line "label [qid:N] index:value ..." of the non-zero values of one vector (index = column + 1).
void append_line(std::string& text, double label, long qid, const double* values, long columns,
                 const std::string& where) {
  append_number(text, label);
  if (qid > 0) text += " qid:" + std::to_string(qid);
  for (long c = 0; c < columns; ++c) {
    check_finite(values[c], where + ", column " + std::to_string(c));
    if (values[c] == 0) continue;
    text += ' ' + std::to_string(c + 1) + ':';
    append_number(text, values[c]);
  }
  text += '\n';
}

Examples dense_examples(const Array& X, const std::optional<Array>& y) {
  if (X.ndim() != 2)
    throw std::invalid_argument("X must be 2-D (one example per row), got " + std::to_string(X.ndim()) + "-D");
  const auto rows = static_cast<std::size_t>(X.shape(0));
  const std::vector<double> labels = labels_of(y, rows);
  if (X.shape(1) == 0) throw std::invalid_argument("X has no columns: every example needs at least one feature");
  Examples examples;
  examples.columns = static_cast<long>(X.shape(1));
  for (std::size_t i = 0; i < rows; ++i) {
    examples.first_lines.push_back(static_cast<long>(i + 1));
    append_line(examples.text, labels[i], 0, X.data(static_cast<py::ssize_t>(i), 0), examples.columns, place(i));
  }
  return examples;
}

Examples csr_examples(const py::array_t<long, py::array::c_style | py::array::forcecast>& indptr,
                      const py::array_t<long, py::array::c_style | py::array::forcecast>& indices, const Array& data,
                      long columns, const std::optional<Array>& y) {
  const auto rows = static_cast<std::size_t>(indptr.shape(0) - 1);
  const std::vector<double> labels = labels_of(y, rows);
  Examples examples;
  examples.columns = columns;
  for (std::size_t i = 0; i < rows; ++i) {
    examples.first_lines.push_back(static_cast<long>(i + 1));
    append_number(examples.text, labels[i]);
    for (long k = indptr.at(i); k < indptr.at(i + 1); ++k) {
      check_finite(data.at(k), place(i) + ", column " + std::to_string(indices.at(k)));
      examples.text += ' ' + std::to_string(indices.at(k) + 1) + ':';
      append_number(examples.text, data.at(k));
    }
    examples.text += '\n';
  }
  return examples;
}

Examples grouped_examples(const std::vector<Array>& X, const std::optional<Array>& y) {
  const std::vector<double> labels = labels_of(y, X.size());
  Examples examples;
  long line = 1;
  for (std::size_t i = 0; i < X.size(); ++i) {
    const Array& vectors = X[i];
    if (vectors.ndim() != 2)
      throw std::invalid_argument(place(i) + " must be 2-D (one vector per row), got " + std::to_string(vectors.ndim()) +
                                  "-D");
    if (vectors.shape(0) == 0)
      throw std::invalid_argument(place(i) + " is empty: every example needs at least one vector");
    if (vectors.shape(1) == 0)
      throw std::invalid_argument(place(i) + " has no columns: every vector needs at least one feature");
    const long columns = static_cast<long>(vectors.shape(1));
    if (i > 0 && columns != examples.columns)
      throw std::invalid_argument(place(i) + " has " + std::to_string(columns) + " columns, X[0] has " +
                                  std::to_string(examples.columns) + ": every vector must have the same dimension");
    examples.columns = columns;
    examples.first_lines.push_back(line);
    for (py::ssize_t r = 0; r < vectors.shape(0); ++r, ++line)
      append_line(examples.text, labels[i], static_cast<long>(i + 1), vectors.data(r, 0), columns,
                  place(i, static_cast<long>(r)));
  }
  return examples;
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
  const auto after = std::upper_bound(examples.first_lines.begin(), examples.first_lines.end(), line);
  if (after == examples.first_lines.begin()) return message;
  const auto example = static_cast<std::size_t>(after - examples.first_lines.begin() - 1);
  return place(example) + " (line " + digits + " of its LIBSVM rows):" + message.substr(end + 1);
}

// The command line's option tables (use_option_flags) are one per process: one fit at a time.
std::mutex fit_mutex;

// std::cerr written into `notes` while this object lives (the command line writes its notes there).
class CapturedNotes {
 public:
  explicit CapturedNotes(std::ostringstream& notes) : previous_(std::cerr.rdbuf(notes.rdbuf())) {}
  ~CapturedNotes() { std::cerr.rdbuf(previous_); }
  CapturedNotes(const CapturedNotes&) = delete;
  CapturedNotes& operator=(const CapturedNotes&) = delete;

 private:
  std::streambuf* previous_;
};

// The rows, and the notes `ppk fit` writes on standard error (what it chose on the data), which the
// package passes to Python's logging and warnings.
std::pair<ModelRows, std::string> fit(const std::vector<std::string>& args, const Examples& examples) {
  std::string rows;
  std::ostringstream notes;
  {
    py::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(fit_mutex);
    const CapturedNotes capture(notes);
    try {
      rows = cli::fit_rows_text(args, cli::text_fit_source("X", examples.text));
    } catch (const cli::UsageError& e) {
      throw cli::UsageError(cli::message_of(e));
    } catch (const std::runtime_error& e) {
      throw InputError(with_example_index(cli::message_of(e), examples));
    }
  }
  std::istringstream in(rows);
  ModelRows models;
  models.rows = read_rows(in, "the fitted rows");
  return {std::move(models), notes.str()};
}

}  // namespace

void bind_fit(py::module_& module) {
  py::class_<Examples>(module, "Examples", "Examples X as the LIBSVM data rows `ppk fit` reads.")
      .def_readonly("columns", &Examples::columns)
      .def_property_readonly(
          "text", [](const Examples& examples) { return py::bytes(examples.text); }, "The LIBSVM data rows.");
  module.def("dense_examples", &dense_examples, py::arg("X"), py::arg("y"),
             "A 2-D array's rows as examples, one line each (its zeros left out).");
  module.def("csr_examples", &csr_examples, py::arg("indptr"), py::arg("indices"), py::arg("data"), py::arg("columns"),
             py::arg("y"), "A CSR matrix's rows as examples, one line each (sorted indices).");
  module.def("grouped_examples", &grouped_examples, py::arg("X"), py::arg("y"),
             "A list of 2-D arrays as examples, one qid group each (one line per vector).");
  module.def("fit", &fit, py::arg("args"), py::arg("examples"),
             "ppk fit with the words FAMILY --option=value ... on the examples: their model rows, and its notes.");
}

}  // namespace ppk::python
