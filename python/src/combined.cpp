// ppk._ppk.combine, combined_parts and reweighted: combined rows (families/combined.hpp) made from models
// of the same examples and taken apart, by the command line's own code (tools/combined_rows.hpp), so that
// ppk.combine gives `ppk combine`'s rows.
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <pybind11/stl.h>

#include "bindings.hpp"
#include "combined_rows.hpp"

namespace ppk::python {
namespace {

// The combined rows of `models` (models[i] the i-th part of every example), weighted by `weights` (None:
// 1 each): `ppk combine`'s rows, its messages naming models[i] where it names the i-th file.
ModelRows combine(const std::vector<ModelRows>& models, const std::optional<std::vector<double>>& weights) {
  if (models.size() < 2)
    throw py::value_error("combine: expected the models of two or more kinds of model of the same examples, got " +
                          std::to_string(models.size()));
  const std::vector<double> w = weights.value_or(std::vector<double>(models.size(), 1.0));
  const std::string problem = cli::weights_problem(w, models.size());
  if (!problem.empty()) throw py::value_error("weights: " + problem);
  std::vector<std::string> names;
  std::vector<std::size_t> counts;
  for (std::size_t i = 0; i < models.size(); ++i) {
    names.push_back("models[" + std::to_string(i) + "]");
    counts.push_back(models[i].rows.size());
  }
  cli::check_row_counts(names, counts);
  ModelRows combined;
  std::vector<const LabeledRow*> example(models.size());
  for (std::size_t j = 0; j < counts.front(); ++j) {
    for (std::size_t i = 0; i < models.size(); ++i) example[i] = &models[i].rows[j];
    combined.rows.push_back(cli::combine_example(names, example, static_cast<long>(j + 1), w));
  }
  return combined;
}

// Combined rows taken apart: (the models of each part, the rows' weights); ValueError for other rows.
std::pair<std::vector<ModelRows>, std::vector<double>> combined_parts(const ModelRows& models) {
  const std::optional<cli::CombinedParts> split = cli::combined_parts(models.rows, "Models");
  if (!split)
    throw py::value_error("Models: not combined rows (ppk.combine makes them from models of the same examples)");
  std::vector<ModelRows> parts;
  for (const std::vector<LabeledRow>& rows : split->parts) parts.push_back({rows});
  return {std::move(parts), split->weights};
}

// Combined rows at other weights.
ModelRows reweighted(const ModelRows& models, const std::vector<double>& weights) {
  const auto [parts, old_weights] = combined_parts(models);
  const std::string problem = cli::weights_problem(weights, parts.size());
  if (!problem.empty()) throw py::value_error("weights: " + problem);
  return combine(parts, weights);
}

}  // namespace

void bind_combined(py::module_& module) {
  module.def("combine", &combine, py::arg("models"), py::arg("weights") = py::none(),
             "Combined rows from a list of Models of the same examples, as `ppk combine` makes them.");
  module.def("combined_parts", &combined_parts, py::arg("models"),
             "Combined rows taken apart: (a list of the parts' Models, the rows' weights).");
  module.def("reweighted", &reweighted, py::arg("models"), py::arg("weights"), "Combined rows at other weights.");
}

}  // namespace ppk::python
