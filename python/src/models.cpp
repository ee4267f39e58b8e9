// ppk._ppk.Models: model rows and their labels, read and written as LIBSVM model rows (`ppk fit`'s
// output, svm-train's input) and as JSON lines (`ppk encode` / `ppk decode`), by the library's codecs.
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <utility>

#include <pybind11/stl.h>

#include "bindings.hpp"
#include "ppk/core/json.hpp"
#include "ppk/core/row.hpp"

namespace ppk::python {
namespace {

// The text of `text_or_path`: bytes or str that are the rows themselves, or a path (os.PathLike, or
// a str of one line naming an existing file). `source` becomes the name used in messages.
std::string text_of(const py::object& text_or_path, std::string& source) {
  if (py::isinstance<py::bytes>(text_or_path)) {
    source = "<rows>";
    return text_or_path.cast<std::string>();
  }
  const py::module_ os = py::module_::import("os");
  const bool path_like = py::isinstance(text_or_path, os.attr("PathLike"));
  if (!path_like && !py::isinstance<py::str>(text_or_path))
    throw py::type_error("expected the rows as str or bytes, or a path (str or os.PathLike), got " +
                         py::str(py::type::of(text_or_path)).cast<std::string>());
  std::string text = path_like ? os.attr("fspath")(text_or_path).cast<std::string>() : text_or_path.cast<std::string>();
  if (!path_like && (text.find('\n') != std::string::npos || !os.attr("path").attr("isfile")(text).cast<bool>())) {
    source = "<rows>";
    return text;
  }
  source = text;
  std::ifstream file(text, std::ios::binary);
  if (!file) throw InputError("cannot open '" + text + "'");
  std::ostringstream whole;
  whole << file.rdbuf();
  return whole.str();
}

ModelRows from_rows(const py::object& text_or_path) {
  std::string source;
  std::istringstream in(text_of(text_or_path, source));
  ModelRows models;
  models.rows = read_rows(in, source);
  for (std::size_t i = 0; i < models.rows.size(); ++i)
    decode_labeled_row(models.rows[i], source, static_cast<long>(i + 1));
  return models;
}

ModelRows from_json(const py::object& text_or_path) {
  std::string source;
  std::istringstream in(text_of(text_or_path, source));
  ModelRows models;
  for (const LabeledModel& labeled : read_json_lines(in, source))
    models.rows.push_back(LabeledRow{labeled.label, encode_row(*labeled.model)});
  return models;
}

// What `ppk fit` writes: one line per row, "label index:value ...\n".
py::bytes to_rows(const ModelRows& models) {
  std::string text;
  for (const LabeledRow& row : models.rows) text += format_row_line(row.label, row.row) + '\n';
  return py::bytes(text);
}

// What `ppk decode` writes: one JSON object per line, with the row's label.
std::string json_line(const ModelRows& models, std::size_t i) {
  const LabeledRow& row = models.rows[i];
  return labeled_model_json_line(row.label, *decode_labeled_row(row, "Models", static_cast<long>(i + 1)));
}
std::string to_json(const ModelRows& models) {
  std::string text;
  for (std::size_t i = 0; i < models.rows.size(); ++i) text += json_line(models, i) + '\n';
  return text;
}

// Position `index` of `models` (negative counts from the end), or IndexError.
std::size_t position(const ModelRows& models, long index) {
  const long size = static_cast<long>(models.rows.size());
  if (index < -size || index >= size)
    throw py::index_error("Models index " + std::to_string(index) + " is out of range for " + std::to_string(size) +
                          " models");
  return static_cast<std::size_t>(index < 0 ? index + size : index);
}

ModelRows slice(const ModelRows& models, const py::slice& range) {
  std::size_t start = 0, stop = 0, step = 0, length = 0;
  if (!range.compute(models.rows.size(), &start, &stop, &step, &length)) throw py::error_already_set();
  ModelRows part;
  for (std::size_t i = 0; i < length; ++i, start += step) part.rows.push_back(models.rows[start]);
  return part;
}

ModelRows take(const ModelRows& models, const std::vector<long>& indices) {
  ModelRows part;
  for (long index : indices) part.rows.push_back(models.rows[position(models, index)]);
  return part;
}

ModelRows concatenate(const ModelRows& first, const ModelRows& second) {
  ModelRows both = first;
  both.rows.insert(both.rows.end(), second.rows.begin(), second.rows.end());
  return both;
}

py::array_t<double> labels(const ModelRows& models) {
  py::array_t<double> values(static_cast<py::ssize_t>(models.rows.size()));
  auto out = values.mutable_unchecked<1>();
  for (std::size_t i = 0; i < models.rows.size(); ++i) out(static_cast<py::ssize_t>(i)) = models.rows[i].label;
  return values;
}

}  // namespace

void bind_models(py::module_& module) {
  py::class_<ModelRows>(module, "Models", R"(A sequence of fitted models, each a LIBSVM model row with its label.

``len(models)``; ``models[i]`` is the model as a dict (its JSON object, "label" first);
``models[a:b]``, ``models[[i, j, ...]]`` and ``models + other`` are Models. The rows are the bytes
``ppk fit`` writes and ``svm-train -t ppk`` reads (``from_rows``, ``to_rows``); the JSON lines are
those of ``ppk encode`` and ``ppk decode`` (``from_json``, ``to_json``). Models pickle as their rows.

Attributes
----------
labels : numpy.ndarray
    The labels, one per model (float64).

See Also
--------
ppk.fit : Models fitted to data, one per example.

Examples
--------
>>> import ppk
>>> models = ppk.Models.from_json('{"label": 1, "family": "gaussian", "mean": [0, 1], "var": 2}\n')
>>> len(models), models.labels
(1, array([1.]))
>>> models[0]["family"]
'gaussian'
)")
      .def(py::init<>(), "No models.")
      .def_static("from_rows", &from_rows, py::arg("text_or_path"), R"(Models from LIBSVM model rows.

Parameters
----------
text_or_path : bytes, str or os.PathLike
    The rows (bytes or str holding them), or the path of a file of them.

Returns
-------
Models
    One model per row. Every row is validated: a bad one is a ValueError naming the row.

Examples
--------
>>> import ppk
>>> rows = ppk.Models.from_json('{"label": 1, "family": "gaussian", "mean": [0, 1], "var": 2}').to_rows()
>>> ppk.Models.from_rows(rows)[0]
{'label': 1, 'family': 'gaussian', 'mean': [0.0, 1.0], 'var': 2.0}
)")
      .def_static("from_json", &from_json, py::arg("text_or_path"),
                  R"(Models from JSON lines, as ``ppk encode`` reads them.

Parameters
----------
text_or_path : bytes, str or os.PathLike
    JSON lines ``{"label": 1, "family": ..., fields}`` (bytes or str), or the path of a file of them.

Returns
-------
Models
    One model per line.

Examples
--------
>>> import ppk
>>> len(ppk.Models.from_json('{"label": -1, "family": "bernoulli", "p": [0.5, 0.25]}\n'))
1
)")
      .def("to_rows", &to_rows, R"(The LIBSVM model rows, one line per model: what ``ppk fit`` writes.

Returns
-------
bytes
    The rows, every number in the fewest digits that read back as the same double.

Examples
--------
>>> import ppk
>>> models = ppk.Models.from_json('{"label": 1, "family": "gaussian", "mean": [0, 1], "var": 2}\n')
>>> ppk.Models.from_rows(models.to_rows()).to_json() == models.to_json()
True
)")
      .def("to_json", &to_json, R"(The models as JSON lines: what ``ppk decode`` writes.

Returns
-------
str
    One JSON object per line, "label" first.

Examples
--------
>>> import ppk
>>> ppk.Models.from_json('{"label": 1, "family": "bernoulli", "p": [0.5]}').to_json()
'{"label":1,"family":"bernoulli","p":[0.5]}\n'
)")
      .def("__len__", [](const ModelRows& models) { return models.rows.size(); })
      .def("__getitem__",
           [](const ModelRows& models, long index) {
             return py::module_::import("json").attr("loads")(json_line(models, position(models, index)));
           })
      .def("__getitem__", &slice)
      .def("__getitem__", &take)
      .def("__add__", &concatenate)
      .def_property_readonly("labels", &labels, "The labels, one per model (numpy float64 array).")
      .def("__repr__",
           [](const ModelRows& models) { return "<ppk.Models: " + std::to_string(models.rows.size()) + " models>"; })
      // pickled as its rows, read back (and validated) as from_rows reads them
      .def(py::pickle(&to_rows, [](const py::bytes& rows) { return from_rows(rows); }));
}

}  // namespace ppk::python
