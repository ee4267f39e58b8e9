#include "combined_rows.hpp"

#include <cmath>
#include <memory>
#include <utility>

#include "cli.hpp"
#include "ppk/core/family.hpp"
#include "ppk/core/row.hpp"
#include "ppk/families/combined.hpp"

namespace ppk::cli {

std::string weights_problem(const std::vector<double>& weights, std::size_t parts) {
  if (weights.size() != parts)
    return "expected one weight per part (" + std::to_string(parts) + "), got " + std::to_string(weights.size());
  double sum = 0.0;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    if (!(weights[i] >= 0.0 && std::isfinite(weights[i])))
      return "weight " + std::to_string(i + 1) + " is " + format_shortest(weights[i]) + ": expected finite numbers >= 0";
    sum += weights[i];
  }
  if (!(sum > 0.0)) return "every weight is 0: expected weights summing to more than 0";
  return "";
}

std::optional<std::vector<double>> parse_weights(const std::string& text, char separator) {
  std::vector<double> weights;
  for (const std::string& item : split(text, separator)) {
    const std::optional<double> weight = parse_double(item);
    if (!weight) return std::nullopt;
    weights.push_back(*weight + 0.0);  // -0 is 0, as the rows hold it
  }
  return weights;
}

LabeledRow combine_example(const std::vector<std::string>& names, const std::vector<const LabeledRow*>& rows, long number,
                           const std::vector<double>& weights) {
  std::vector<std::unique_ptr<Model>> parts;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows[i]->label != rows[0]->label)
      throw InputError(names[0] + ": row " + std::to_string(number) + " has the label " + format_label(rows[0]->label) +
                       ", but " + names[i] + ": row " + std::to_string(number) + " the label " +
                       format_label(rows[i]->label) +
                       ": the files must hold rows of the same examples, in the same order");
    std::unique_ptr<Model> part = decode_labeled_row(*rows[i], names[i], number);
    const FamilyInfo& family = part->family();
    if (&family == &combined_family() || !family.exact())
      throw row_error(names[i], number,
                      "a " + family.name +
                          " row: the parts of a combined row are models of families with an exact kernel other than "
                          "combined (its Gram matrices are then positive semidefinite)");
    parts.push_back(std::move(part));
  }
  try {
    return {rows[0]->label, encode_row(CombinedModel(weights, std::move(parts)))};
  } catch (const ModelError& e) {  // a row its reader would refuse (row.hpp, kMaxRowDenseValues)
    throw InputError("example " + std::to_string(number) + " (row " + std::to_string(number) +
                     " of each file): " + e.what());
  }
}

void check_row_counts(const std::vector<std::string>& names, const std::vector<std::size_t>& counts) {
  for (std::size_t i = 1; i < counts.size(); ++i)
    if (counts[i] != counts[0])
      throw InputError(names[0] + ": " + std::to_string(counts[0]) + " rows, but " + names[i] + ": " +
                       std::to_string(counts[i]) +
                       " rows: the files must hold rows of the same examples, in the same order");
}

std::optional<CombinedParts> combined_parts(const std::vector<LabeledRow>& rows, const std::string& name) {
  CombinedParts split;
  for (std::size_t j = 0; j < rows.size(); ++j) {
    const long number = static_cast<long>(j + 1);
    const std::unique_ptr<Model> model = decode_labeled_row(rows[j], name, number);
    const auto* combined = dynamic_cast<const CombinedModel*>(model.get());
    if (j == 0 && combined == nullptr) return std::nullopt;
    if (combined == nullptr) throw row_error(name, number, "a " + model->family().name + " row among combined rows");
    if (j == 0) {
      split.weights = combined->weights();
      split.parts.resize(combined->size());
    } else if (combined->size() != split.parts.size() || combined->weights() != split.weights) {
      throw row_error(name, number,
                      "a combined row of the weights " + format_weights(combined->weights()) + ", but row 1 has " +
                          format_weights(split.weights) + ": every row of a file needs the same parts and weights");
    }
    for (std::size_t i = 0; i < combined->size(); ++i)
      split.parts[i].push_back({rows[j].label, encode_row(combined->part(i))});
  }
  if (split.parts.empty()) return std::nullopt;
  return split;
}

}  // namespace ppk::cli
