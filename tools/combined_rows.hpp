// Combined rows (families/combined.hpp) at the command line: made from rows of the same examples
// (`ppk combine`, Python's ppk.combine), taken apart into their parts (`ppk select --weights`, which
// computes each part's kernel matrix once), and their weights as options spell them.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "ppk/core/data.hpp"

namespace ppk::cli {

// Why `weights` cannot weigh `parts` parts, or "" if they can: one finite number >= 0 per part, summing
// to more than 0 (what the combined family's rows hold).
std::string weights_problem(const std::vector<double>& weights, std::size_t parts);

// The numbers of `text` between `separator`s ("0.75,0.25"), or nothing if one is not a number.
std::optional<std::vector<double>> parse_weights(const std::string& text, char separator);

// The combined row of one example: part i is rows[i] (row `number`, 1-based, of the file names[i]),
// weighted by weights[i] (weights_problem already ""). InputError naming the file and row when a row
// does not decode, is itself a combined row or of a family whose kernel is not exact (fhmm,
// montecarlo), or when its label differs from the first file's (naming both files and labels), and
// naming the example when the combined row is too large for a row.
LabeledRow combine_example(const std::vector<std::string>& names, const std::vector<const LabeledRow*>& rows, long number,
                           const std::vector<double>& weights);

// InputError unless every file holds as many rows as the first: "A: N rows, but B: M rows; ...".
void check_row_counts(const std::vector<std::string>& names, const std::vector<std::size_t>& counts);

// Combined rows taken apart: parts[i][j] is part i of row j (its row, with row j's label), and the
// rows' common weights.
struct CombinedParts {
  std::vector<std::vector<LabeledRow>> parts;
  std::vector<double> weights;
};

// The parts of `rows` (of the file `name`) when they are combined rows, nothing when they are not;
// InputError naming the row when some are and some are not, or when their numbers of parts or their
// weights differ.
std::optional<CombinedParts> combined_parts(const std::vector<LabeledRow>& rows, const std::string& name);

}  // namespace ppk::cli
