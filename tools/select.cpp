// ppk select: the kernel SVM's settings chosen by cross-validation on the training rows, every kernel
// value computed once (tools/kernel_cross_validation.hpp).
#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <tuple>
#include <vector>

#include "cli.hpp"
#include "combined_rows.hpp"
#include "gram_matrix.hpp"
#include "kernel_cross_validation.hpp"
#include "libsvm_problem.hpp"
#include "parallel.hpp"
#include "ppk/core/data.hpp"
#include "ppk/core/kernel.hpp"
#include "ppk/core/kernel_diagnostic.hpp"
#include "ppk/core/memory.hpp"
#include "ppk/families/combined.hpp"
#include "ppk/families/lds.hpp"
#include "svm.h"

namespace ppk::cli {
namespace {

constexpr const char* kSelectUsage = R"usage(Usage: ppk select [options] TRAINING_ROWS

Chooses the kernel SVM's settings for model rows (what `ppk fit` writes) by k-fold
cross-validation on the training file, as a loop of `svm-train -v K` runs over a
grid would (LIBSVM's grid.py), at the cost of one kernel matrix per (kernel, rho,
T): each matrix is computed once, on every core, held in memory, and every fold
and every C is solved by LIBSVM's own solver on it, folds and C in parallel. The
folds are LIBSVM's own, so every number equals what svm-train -v K prints for
the same options, on the rows or on `ppk gram --format precomputed` + svm-train -t 4.

Grid options (LIBSVM's spelling; each takes a comma-separated list):
  -t KERNELS   ppk, ppk_norm (or 5, 6)                   default ppk,ppk_norm
  -g RHOS      the kernel's rho                           default 0.1,0.25,0.5,0.75,1
  -d LENGTHS   T, for sequence rows (hmm, fhmm, lds, slds, homogeneous markov):
               each kernel compares x_0..x_T; 0 = each row's own T   default: T/4,
               T/2 and T for the shortest row's T (rows of one length: that
               length); hmm, lds and markov rows give every T > 0 of the list
               from one pass of each pair's recursion (slds and fhmm rows: one
               matrix per T)
  --weights W:W,...   combined rows (ppk combine): the parts' weights, each
               weighting its weights joined by ':', e.g. 1:0,0.5:0.5,0:1 for
               two parts; default the rows' own. Each part's normalized kernel
               matrix is computed once per (rho, T) and every weighting is
               their weighted sum: no kernel is computed per weighting
  -c COSTS     the SVM's C                                default 0.1,1,10,100,1000
Cross-validation and training (as svm-train takes them):
  -v K         the number of folds (default 5; -v n: leave-one-out)
  -s TYPE      0 C-SVC (default), 1 nu-SVC, 2 one-class SVM, 3 epsilon-SVR, 4 nu-SVR;
               regression types report the mean squared error (lowest is best)
  -wLABEL W    the weight of class LABEL's C (C-SVC), e.g. -w1 5; may be repeated
  -b 0|1       probability estimates (with 1 the folds run one after another,
               as svm-train draws them)
  -e EPS, -m MB, -n NU, -p EPSILON    svm-train's -e, -m, -n, -p
Output:
  one line per cell on standard output, "-t ppk -g 0.5 -c 1: Cross Validation
  Accuracy = 92.25%" as svm-train -v prints it, then the best cell (the first of
  equal scores, in the order kernel, rho, T, weights, C) after "best: ".
  --table FILE   every cell, tab-separated, a header line of the columns kernel,
                 rho, T, C, accuracy (regression: mean_squared_error and
                 squared_correlation); T is empty for rows without time steps;
                 combined rows have a column weights after T
  --plot FILE    a PNG of the cross-validated score over rho x C, one panel per
                 kernel and T (needs gnuplot, as grid.py's contour does)
  -o MODEL       the best setting trained on every row: a LIBSVM model file
                 that svm-predict and the Python module read (combined rows:
                 trained on the rows at the best weights, which the test rows
                 need too: ppk combine --weights W1,W2,... of the test files)
Memory: one kernel matrix of n rows takes 8 n^2 bytes (doubles, as svm-train -t 4
reads them); a grid whose matrix does not fit in the memory this process may
take is refused before anything is computed.
)usage";

constexpr const char* kDefaultKernels = "ppk,ppk_norm";
constexpr const char* kDefaultRhos = "0.1,0.25,0.5,0.75,1";
constexpr const char* kDefaultCosts = "0.1,1,10,100,1000";

// The items of a comma-separated list option, each parsed by `parse`, else a UsageError naming the
// option and the item.
template <class Value, class Parse>
std::vector<Value> parse_list(const std::string& text, const std::string& option, const std::string& expected,
                              Parse parse) {
  std::vector<Value> values;
  for (const std::string& item : split(text, ',')) {
    const std::optional<Value> value = parse(item);
    if (!value)
      throw UsageError(option + ": expected a comma-separated list of " + expected + ", got '" + item + "' in '" + text +
                       "'");
    if (std::find(values.begin(), values.end(), *value) == values.end()) values.push_back(*value);
  }
  return values;
}

std::optional<KernelKind> parse_kernel(const std::string& text) {
  if (text == "ppk" || text == "5") return KernelKind::ppk;
  if (text == "ppk_norm" || text == "6") return KernelKind::ppk_norm;
  return std::nullopt;
}
const char* kernel_name(KernelKind kind) { return kind == KernelKind::ppk ? "ppk" : "ppk_norm"; }

std::optional<double> parse_positive(const std::string& text) {
  const std::optional<double> value = parse_double(text);
  if (!value || !(*value > 0) || !std::isfinite(*value)) return std::nullopt;
  return value;
}

std::optional<int> parse_length(const std::string& text) {
  const std::optional<long> value = parse_long(text);
  if (!value || *value < 0 || *value > kMaxSequenceLength) return std::nullopt;
  return static_cast<int>(*value);
}

// "%g", as svm-train prints its scores.
std::string format_short(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", x);
  return buffer;
}

// svm-train's -wLABEL WEIGHT pairs, taken out of `args` (Boost cannot spell an option whose name
// holds its value).
struct ClassWeights {
  std::vector<int> labels;
  std::vector<double> weights;
};
ClassWeights take_class_weights(std::vector<std::string>& args) {
  ClassWeights weights;
  static const std::regex weight_option("-w(-?[0-9]+)");
  std::vector<std::string> rest;
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::smatch match;
    if (!std::regex_match(args[i], match, weight_option)) {
      rest.push_back(args[i]);
      continue;
    }
    const std::optional<double> weight = i + 1 < args.size() ? parse_double(args[i + 1]) : std::nullopt;
    if (!weight || !std::isfinite(*weight))
      throw UsageError(args[i] + ": expected the weight of class " + match[1].str() + " after it (e.g. " + args[i] +
                       " 5)");
    weights.labels.push_back(std::stoi(match[1].str()));
    weights.weights.push_back(*weight);
    ++i;
  }
  args = rest;
  return weights;
}

using Weighting = std::optional<std::vector<double>>;  // combined rows' weights, nothing for other rows

// One cell of the grid and its score.
struct Cell {
  KernelKind kind;
  double rho;
  std::optional<int> length;  // T, for sequence rows
  Weighting weights;
  double cost;
  CrossValidationScore score;
  std::array<std::size_t, 5> position;  // the indices of kernel, rho, T, weights and C in their lists
};

std::string cell_options(const Cell& cell) {
  std::string text = std::string("-t ") + kernel_name(cell.kind) + " -g " + format_short(cell.rho);
  if (cell.length) text += " -d " + std::to_string(*cell.length);
  if (cell.weights) text += " --weights " + format_weights(*cell.weights, ':');
  return text + " -c " + format_short(cell.cost);
}

std::string cell_score(const Cell& cell, bool regression) {
  if (regression)
    return "Cross Validation Mean squared error = " + format_short(cell.score.mean_squared_error) +
           ", Squared correlation coefficient = " + format_short(cell.score.squared_correlation);
  return "Cross Validation Accuracy = " + format_short(cell.score.accuracy) + "%";
}

// True if `a` scores better than `b`: a higher accuracy, or a lower mean squared error.
bool better(const Cell& a, const Cell& b, bool regression) {
  return regression ? a.score.mean_squared_error < b.score.mean_squared_error : a.score.accuracy > b.score.accuracy;
}

void write_table(const std::string& path, const std::vector<Cell>& cells, bool regression) {
  const bool weighted = cells.front().weights.has_value();
  std::vector<std::string> lines;
  lines.push_back(std::string("kernel\trho\tT\t") + (weighted ? "weights\t" : "") + "C\t" +
                  (regression ? "mean_squared_error\tsquared_correlation" : "accuracy"));
  for (const Cell& cell : cells) {
    std::string line = std::string(kernel_name(cell.kind)) + "\t" + format_shortest(cell.rho) + "\t" +
                       (cell.length ? std::to_string(*cell.length) : "") + "\t" +
                       (weighted ? format_weights(*cell.weights, ':') + "\t" : "") + format_shortest(cell.cost) + "\t";
    line += regression
                ? format_shortest(cell.score.mean_squared_error) + "\t" + format_shortest(cell.score.squared_correlation)
                : format_shortest(cell.score.accuracy);
    lines.push_back(line);
  }
  write_lines(path, lines);
}

// The T grid's default: T/4, T/2 and T of the shortest row's T (at least 1 where T is).
std::vector<int> default_lengths(long shortest) {
  std::vector<int> lengths;
  for (long length : {shortest / 4, shortest / 2, shortest}) {
    const int t = static_cast<int>(std::max(length, std::min(shortest, 1L)));
    if (std::find(lengths.begin(), lengths.end(), t) == lengths.end()) lengths.push_back(t);
  }
  return lengths;
}

// The T of every row's model, or nothing when the rows have no time steps; rows of both kinds are
// refused.
std::optional<long> shortest_sequence(const std::vector<LabeledRow>& rows, const std::string& name) {
  std::optional<long> shortest;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::unique_ptr<Model> model = decode_labeled_row(rows[i], name, static_cast<long>(i + 1));
    const std::optional<long> steps = model->sequence_steps();
    if (i > 0 && steps.has_value() != shortest.has_value())
      throw row_error(name, static_cast<long>(i + 1),
                      std::string("a ") + model->family().name + " row " +
                          (steps ? "with time steps among rows without" : "without time steps among sequence rows") +
                          ": ppk select grids T (-d) for all rows or for none");
    if (steps) shortest = shortest ? std::min(*shortest, *steps) : *steps;
  }
  return shortest;
}

// --plot's gnuplot, found before anything is computed.
void check_gnuplot(const std::string& path) {
  if (std::system("command -v gnuplot > /dev/null 2>&1") != 0)
    throw InputError("--plot " + path + ": gnuplot is not installed (Debian: apt-get install gnuplot-nox)");
}

// Draws the scores over rho x C with gnuplot, one panel per kernel and T: grid.py's picture.
void plot_scores(const std::string& path, const std::vector<Cell>& cells, bool regression) {
  std::vector<std::tuple<KernelKind, std::optional<int>, Weighting>> panels;
  for (const Cell& cell : cells)
    if (std::find(panels.begin(), panels.end(), std::make_tuple(cell.kind, cell.length, cell.weights)) == panels.end())
      panels.emplace_back(cell.kind, cell.length, cell.weights);
  const std::string data_path = path + ".ppk-select-data";
  std::vector<std::string> data;
  for (const auto& panel : panels) {
    double previous_rho = std::nan("");
    for (const Cell& cell : cells) {
      if (std::make_tuple(cell.kind, cell.length, cell.weights) != panel) continue;
      if (!std::isnan(previous_rho) && cell.rho != previous_rho) data.push_back("");
      previous_rho = cell.rho;
      data.push_back(format_shortest(cell.rho) + " " + format_shortest(std::log10(cell.cost)) + " " +
                     format_shortest(regression ? cell.score.mean_squared_error : cell.score.accuracy));
    }
    data.push_back("");
    data.push_back("");
  }
  write_lines(data_path, data);
  const std::string script_path = path + ".ppk-select-gnuplot";
  std::vector<std::string> script = {
      "set terminal pngcairo noenhanced size " + std::to_string(480 * panels.size()) + ",440",
      "set output '" + path + "'",
      "set multiplot layout 1," + std::to_string(panels.size()),
      "set xlabel 'rho (-g)'",
      "set ylabel 'log10(C)'",
      "set view map",
      "set pm3d map interpolate 0,0",
      std::string("set cblabel '") + (regression ? "CV mean squared error" : "CV accuracy (%)") + "'"};
  for (std::size_t p = 0; p < panels.size(); ++p) {
    std::string title = kernel_name(std::get<0>(panels[p]));
    if (std::get<1>(panels[p])) title += ", T = " + std::to_string(*std::get<1>(panels[p]));
    if (std::get<2>(panels[p])) title += ", weights " + format_weights(*std::get<2>(panels[p]), ':');
    script.push_back("set title '" + title + "'");
    script.push_back("splot '" + data_path + "' index " + std::to_string(p) + " using 1:2:3 with pm3d notitle");
  }
  script.push_back("unset multiplot");
  write_lines(script_path, script);
  const int status = std::system(("gnuplot '" + script_path + "' 2>&1").c_str());
  std::remove(data_path.c_str());
  std::remove(script_path.c_str());
  if (status != 0) throw InputError("--plot " + path + ": gnuplot failed (exit status " + std::to_string(status) + ")");
}

// svm_train on every row at the best cell's settings with the plugin kernel type, saved to `path`
// as svm-train saves it (written to a temporary file next to it, then renamed).
void save_best_model(const std::string& path, const std::vector<LabeledRow>& rows, const std::string& name,
                     const Cell& best, svm_parameter parameters) {
  const svm_kernel_type* type = svm_find_kernel_type(svm_kernel_type_from_string(kernel_name(best.kind)));
  if (type == nullptr)
    throw InputError("-o " + path + ": LIBSVM has no kernel type " + kernel_name(best.kind) +
                     ": its plugin (libsvm-plugins/ppk.so next to libsvm.so.3) was not loaded");
  std::vector<const Row*> row_pointers;
  std::vector<double> labels;
  for (const LabeledRow& row : rows) {
    row_pointers.push_back(&row.row);
    labels.push_back(row.label);
  }
  const LibsvmProblem problem(row_pointers, labels);
  parameters.kernel_type = type->number;
  parameters.gamma = best.rho;
  parameters.degree = best.length.value_or(0);
  parameters.C = best.cost;
  if (const char* error = svm_check_parameter(&problem.get(), &parameters)) throw InputError(name + ": " + error);
  std::srand(1);  // -b 1 draws its folds from rand(), as in svm-train
  svm_model* model = svm_train(&problem.get(), &parameters);
  const std::string temporary = path + ".ppk-select-model";
  const int saved = svm_save_model(temporary.c_str(), model);
  svm_free_and_destroy_model(&model);
  if (saved != 0 || std::rename(temporary.c_str(), path.c_str()) != 0) {
    std::remove(temporary.c_str());
    throw InputError("-o " + path + ": cannot write the model");
  }
}

void silent(const char*) {}

// -v K (at most n: more folds than rows is leave-one-out, as svm-train -v takes it, with a warning)
// or -v n; UsageError for anything else.
int folds_option(const std::string& text, std::size_t n, const std::string& name) {
  if (text == "n") return static_cast<int>(n);
  const std::optional<long> k = parse_long(text);
  if (!k || *k < 2) throw UsageError("-v: expected the number of folds K >= 2, or n, got '" + text + "'");
  if (*k > static_cast<long>(n))
    std::cerr << "ppk select: warning: " << *k << " folds > " << n << " rows of " << name
              << ": leave-one-out cross-validation (-v n), as svm-train -v does\n";
  const long folds = std::min<long>(*k, static_cast<long>(n));
  if (folds < 2) throw InputError(name + ": one row: cross-validation needs at least two");
  return static_cast<int>(folds);
}

// The T grid: -d's list (`text`), refused for rows without time steps; by default T/4, T/2 and T of
// the shortest row's T; one "no T" for rows without time steps.
std::vector<std::optional<int>> length_grid(const std::optional<std::string>& text, const std::vector<LabeledRow>& rows,
                                            const std::string& name) {
  const std::optional<long> shortest = shortest_sequence(rows, name);
  std::vector<std::optional<int>> lengths;
  if (text) {
    if (!shortest)
      throw UsageError("-d: the rows of " + name +
                       " have no time steps (T applies to hmm, fhmm, lds and slds rows); leave -d out");
    for (int t :
         parse_list<int>(*text, "-d", "whole numbers in [0, " + std::to_string(kMaxSequenceLength) + "]", parse_length))
      lengths.emplace_back(t);
  } else if (shortest) {
    for (int t : default_lengths(*shortest)) lengths.emplace_back(t);
  } else {
    lengths.emplace_back(std::nullopt);
  }
  return lengths;
}

// The grid's lists: kernels, rho, T (nothing for rows without time steps), weightings (one nothing for
// rows that are not combined) and C.
struct Grid {
  std::vector<KernelKind> kinds;
  std::vector<double> rhos;
  std::vector<std::optional<int>> lengths;
  std::vector<Weighting> weightings;
  std::vector<double> costs;
};

// Scores the cells of a grid, one kernel matrix at a time, with LIBSVM's folds and the svm-train options;
// progress on standard error after 2 s unless `quiet`.
class GridScorer {
 public:
  GridScorer(const Grid& grid, std::size_t matrices, const std::vector<double>& labels, int folds,
             const svm_parameter& parameters, unsigned threads, bool quiet)
      : grid_(grid),
        total_matrices_(matrices),
        labels_(labels),
        folds_(folds),
        parameters_(parameters),
        threads_(threads),
        quiet_(quiet) {}

  // Every C of the grid cross-validated on `gram`, each a copy of `cell` with its C and score.
  void score(const GramMatrix& gram, Cell cell) {
    const std::vector<std::vector<double>> predictions =
        libsvm_cross_validated_predictions(gram, labels_, folds_, parameters_, grid_.costs, threads_);
    for (std::size_t c = 0; c < grid_.costs.size(); ++c) {
      cell.cost = grid_.costs[c];
      cell.score = cross_validation_score(predictions[c], labels_, parameters_.svm_type);
      cell.position[4] = c;
      cells_.push_back(cell);
    }
    ++matrices_;
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    if (!quiet_ && seconds > 2)
      std::cerr << "ppk select: " << matrices_ << "/" << total_matrices_ << " kernel matrices done, "
                << format_short(seconds) << " s\n";
  }

  // The cells in the grid's order: kernel, rho, T, weights, C.
  std::vector<Cell> cells() {
    std::stable_sort(cells_.begin(), cells_.end(), [](const Cell& a, const Cell& b) { return a.position < b.position; });
    return cells_;
  }

 private:
  const Grid& grid_;
  std::size_t total_matrices_, matrices_ = 0;
  const std::vector<double>& labels_;
  int folds_;
  const svm_parameter& parameters_;
  unsigned threads_;
  bool quiet_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::vector<Cell> cells_;
};

// The T's of `lengths` ascending, when there are several and all are > 0 (a T of 0 is each row's own):
// what one pass of each pair's recursion can give at once. Empty otherwise.
std::vector<int> one_pass_lengths(const std::vector<std::optional<int>>& lengths) {
  std::vector<int> ascending;
  for (const std::optional<int>& length : lengths) {
    if (!length || *length == 0) return {};
    ascending.push_back(*length);
  }
  if (ascending.size() < 2) return {};
  std::sort(ascending.begin(), ascending.end());
  return ascending;
}

// log k(a_i, a_j) at every T of `ascending` on `rows` (of the file `name`) at rho, from one pass of each
// pair's recursion (compute_log_grams_over_lengths), or nothing for rows whose family does not give
// every T from one pass.
std::optional<std::vector<GramMatrix>> log_grams_at_lengths(const std::vector<LabeledRow>& rows, const std::string& name,
                                                            double rho, const std::vector<int>& ascending,
                                                            unsigned threads) {
  KernelParams params;
  params.rho = rho;
  params.length = ascending.back();
  const PreparedFile longest = prepare_rows(rows, name, KernelKind::ppk_norm, params);
  check_first_row_and_column(KernelKind::ppk_norm, longest, longest);
  return compute_log_grams_over_lengths(longest, ascending, threads);
}

// The kernel matrix of `kind` on `rows` (of the file `name`) at rho and T: read off `log_grams`, the log
// kernels at the T's `ascending`, when given, else computed; a degenerate kernel is warned about on
// standard error, naming `what`.
GramMatrix gram_at(const std::vector<LabeledRow>& rows, const std::string& name, KernelKind kind, double rho,
                   std::optional<int> length, const std::vector<GramMatrix>* log_grams, const std::vector<int>& ascending,
                   unsigned threads, const std::string& what) {
  KernelParams params;
  params.rho = rho;
  params.length = length.value_or(0);
  const PreparedFile file = prepare_rows(rows, name, kind, params);
  std::vector<const PreparedModel*> models;
  for (const auto& model : file.models) models.push_back(model.get());
  const std::string warning =
      degenerate_kernel_warning(kernel_spread(sample_log_normalized_kernels(models, models, true)), params);
  if (!warning.empty()) std::cerr << "ppk select: warning: " << what << ": " << warning << "\n";
  if (log_grams != nullptr) {
    const auto at = std::find(ascending.begin(), ascending.end(), *length);
    return gram_from_log_gram(kind, (*log_grams)[static_cast<std::size_t>(at - ascending.begin())], file);
  }
  check_first_row_and_column(kind, file, file);
  return compute_gram(kind, file, file, true, threads);
}

// Every cell of `grid` on `rows` (of the file `name`), rho by rho: for sequence rows over several T > 0 of
// a family that gives every T from one pass, the log kernel matrices at every T from one pass of each
// pair's recursion (when `room`, the n x n matrices that fit in memory, holds them), both kernels read
// off them; otherwise one matrix per (kernel, T).
void cross_validate_rows(const std::vector<LabeledRow>& rows, const std::string& name, const Grid& grid, double room,
                         GridScorer& scorer, unsigned threads) {
  const std::vector<int> ascending = one_pass_lengths(grid.lengths);
  const bool one_pass = !ascending.empty() && static_cast<double>(ascending.size() + 1) <= room;
  for (std::size_t r = 0; r < grid.rhos.size(); ++r) {
    std::optional<std::vector<GramMatrix>> log_grams;
    if (one_pass) log_grams = log_grams_at_lengths(rows, name, grid.rhos[r], ascending, threads);
    for (std::size_t k = 0; k < grid.kinds.size(); ++k)
      for (std::size_t t = 0; t < grid.lengths.size(); ++t)
        scorer.score(gram_at(rows, name, grid.kinds[k], grid.rhos[r], grid.lengths[t], log_grams ? &*log_grams : nullptr,
                             ascending, threads, kernel_name(grid.kinds[k])),
                     {grid.kinds[k], grid.rhos[r], grid.lengths[t], std::nullopt, 0.0, {}, {k, r, t, 0, 0}});
  }
}

// Every cell of `grid` on combined rows taken apart into `combined`'s parts (of the file `name`), rho by
// rho: each part's normalized kernel matrix computed once per (rho, T) -- once per rho for a part
// without time steps, every T from one pass of each pair's recursion where its family gives them (as
// cross_validate_rows does, when `room` holds them) -- and each cell's matrix the weighted sum of the
// parts' at its T (combined_gram): no kernel is computed for a weighting or a kernel type, nor for a
// part of weight 0 in every weighting.
void cross_validate_combined(const CombinedParts& combined, const std::string& name, const Grid& grid, double room,
                             GridScorer& scorer, unsigned threads) {
  const std::size_t parts = combined.parts.size();
  const auto n = static_cast<Eigen::Index>(combined.parts.front().size());
  std::vector<std::string> names;
  std::vector<bool> timed, weighed;
  for (std::size_t i = 0; i < parts; ++i) {
    names.push_back(name + " part " + std::to_string(i + 1));
    timed.push_back(shortest_sequence(combined.parts[i], names[i]).has_value());
    weighed.push_back(std::any_of(grid.weightings.begin(), grid.weightings.end(),
                                  [i](const Weighting& weights) { return (*weights)[i] > 0.0; }));
  }
  const std::vector<int> ascending = one_pass_lengths(grid.lengths);
  const bool one_pass =
      !ascending.empty() && static_cast<double>(parts * ascending.size() + ascending.size() + 1) <= room;
  for (std::size_t r = 0; r < grid.rhos.size(); ++r) {
    const double rho = grid.rhos[r];
    // normalized[i]: part i's matrix, or with one pass a timed part's at every T of the grid, in its order.
    std::vector<std::vector<GramMatrix>> normalized(parts);
    for (std::size_t i = 0; i < parts; ++i) {
      if (!weighed[i]) {
        continue;
      } else if (!timed[i]) {
        normalized[i].push_back(gram_at(combined.parts[i], names[i], KernelKind::ppk_norm, rho, std::nullopt, nullptr,
                                        ascending, threads, names[i]));
      } else if (one_pass) {
        const std::optional<std::vector<GramMatrix>> log_grams =
            log_grams_at_lengths(combined.parts[i], names[i], rho, ascending, threads);
        for (const std::optional<int>& length : grid.lengths)
          normalized[i].push_back(gram_at(combined.parts[i], names[i], KernelKind::ppk_norm, rho, length,
                                          log_grams ? &*log_grams : nullptr, ascending, threads, names[i]));
      }
    }
    for (std::size_t t = 0; t < grid.lengths.size(); ++t) {
      std::vector<const GramMatrix*> at_length;
      for (std::size_t i = 0; i < parts; ++i) {
        if (!weighed[i]) {
          at_length.push_back(nullptr);  // weight 0 in every weighting: combined_gram leaves it out
          continue;
        }
        if (timed[i] && !one_pass)
          normalized[i] = {gram_at(combined.parts[i], names[i], KernelKind::ppk_norm, rho, grid.lengths[t], nullptr,
                                   ascending, threads, names[i])};
        at_length.push_back(&normalized[i][timed[i] && one_pass ? t : 0]);
      }
      for (std::size_t k = 0; k < grid.kinds.size(); ++k)
        for (std::size_t w = 0; w < grid.weightings.size(); ++w)
          scorer.score(combined_gram(n, at_length, *grid.weightings[w], grid.kinds[k]),
                       {grid.kinds[k], rho, grid.lengths[t], grid.weightings[w], 0.0, {}, {k, r, t, w, 0}});
    }
  }
}

// --weights's list: weightings of `parts` parts, each its weights joined by ':', separated by ','.
std::vector<Weighting> weights_grid(const std::string& text, std::size_t parts) {
  std::vector<Weighting> weightings;
  for (const std::string& item : split(text, ',')) {
    const std::optional<std::vector<double>> weights = parse_weights(item, ':');
    const std::string problem = weights ? weights_problem(*weights, parts) : "expected numbers joined by ':'";
    if (!problem.empty())
      throw UsageError("--weights: '" + item + "' in '" + text + "': " + problem + " (a comma-separated list of " +
                       "weightings of the rows' " + std::to_string(parts) + " parts, each its weights joined by ':', " +
                       "e.g. " + (parts == 2 ? std::string("1:0,0.5:0.5,0:1") : std::string("1:1:1")) + ")");
    if (std::find(weightings.begin(), weightings.end(), Weighting(*weights)) == weightings.end())
      weightings.emplace_back(*weights);
  }
  return weightings;
}

// The combined rows of `combined` at `weights`: what -o trains on.
std::vector<LabeledRow> reweighted_rows(const CombinedParts& combined, const std::string& name,
                                        const std::vector<double>& weights) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < combined.parts.size(); ++i) names.push_back(name + " part " + std::to_string(i + 1));
  std::vector<LabeledRow> rows;
  std::vector<const LabeledRow*> example(combined.parts.size());
  for (std::size_t j = 0; j < combined.parts.front().size(); ++j) {
    for (std::size_t i = 0; i < combined.parts.size(); ++i) example[i] = &combined.parts[i][j];
    rows.push_back(combine_example(names, example, static_cast<long>(j + 1), weights));
  }
  return rows;
}

}  // namespace

int run_select(const std::vector<std::string>& arguments) {
  std::string kernels_text, rhos_text, lengths_text, weights_text, costs_text, folds_text, table_path, plot_path,
      model_path, input_path;
  svm_parameter parameters{};
  parameters.svm_type = C_SVC;
  parameters.nu = 0.5;
  parameters.cache_size = 100;
  parameters.eps = 1e-3;
  parameters.p = 0.1;
  parameters.shrinking = 1;
  po::options_description options("Options");
  // clang-format off
  options.add_options()
      ("kernel-type,t", po::value<std::string>(&kernels_text)->default_value(kDefaultKernels)->value_name("LIST"),
       "kernels: ppk, ppk_norm")
      ("rho,g", po::value<std::string>(&rhos_text)->default_value(kDefaultRhos)->value_name("LIST"), "rho values > 0")
      ("length,d", po::value<std::string>(&lengths_text)->value_name("LIST"),
       "T values >= 0 (sequence rows; default T/4, T/2, T of the shortest row)")
      ("weights", po::value<std::string>(&weights_text)->value_name("W:W,..."),
       "weightings of combined rows' parts (default the rows' own)")
      ("cost,c", po::value<std::string>(&costs_text)->default_value(kDefaultCosts)->value_name("LIST"),
       "C values > 0")
      ("folds,v", po::value<std::string>(&folds_text)->default_value("5")->value_name("K|n"),
       "the number of folds K >= 2, or n (leave-one-out)")
      ("svm-type,s", po::value<int>(&parameters.svm_type)->value_name("TYPE"), "svm-train -s (default 0, C-SVC)")
      ("probability,b", po::value<int>(&parameters.probability)->value_name("0|1"), "svm-train -b")
      ("epsilon,e", po::value<double>(&parameters.eps)->value_name("EPS"), "svm-train -e (default 0.001)")
      ("cache,m", po::value<double>(&parameters.cache_size)->value_name("MB"), "svm-train -m (default 100)")
      ("nu,n", po::value<double>(&parameters.nu)->value_name("NU"), "svm-train -n (default 0.5)")
      ("loss-epsilon,p", po::value<double>(&parameters.p)->value_name("P"), "svm-train -p (default 0.1)")
      ("table", po::value<std::string>(&table_path)->value_name("FILE"), "every cell's score, tab-separated")
      ("plot", po::value<std::string>(&plot_path)->value_name("FILE.png"), "a picture of the scores (gnuplot)")
      ("output,o", po::value<std::string>(&model_path)->value_name("MODEL"),
       "the best setting trained on every row, a LIBSVM model file")
      ("quiet,q", "no progress on standard error");
  // clang-format on
  add_threads_option(options, "compute N matrix rows, or train N folds, at a time");
  options.add_options()("help,h", "this text");
  if (wants_help(arguments)) {
    std::cout << kSelectUsage << "\n" << options;
    return 0;
  }
  std::vector<std::string> args = arguments;
  ClassWeights weights = take_class_weights(args);
  po::options_description all = options;
  all.add_options()("input", po::value<std::string>(&input_path), "TRAINING_ROWS");
  po::positional_options_description positional;
  positional.add("input", 1);
  const po::variables_map values = parse_command_line(args, all, positional);
  if (!values.count("input")) throw UsageError("missing TRAINING_ROWS, the file of model rows");
  const unsigned threads = threads_option(values);
  const bool quiet = values.count("quiet") > 0;

  const std::vector<KernelKind> kinds = parse_list<KernelKind>(kernels_text, "-t", "ppk or ppk_norm", parse_kernel);
  const std::vector<double> rhos = parse_list<double>(rhos_text, "-g", "numbers > 0", parse_positive);
  const std::vector<double> costs = parse_list<double>(costs_text, "-c", "numbers > 0", parse_positive);
  if (parameters.svm_type < C_SVC || parameters.svm_type > NU_SVR)
    throw UsageError("-s must be 0 (C-SVC), 1 (nu-SVC), 2 (one-class SVM), 3 (epsilon-SVR) or 4 (nu-SVR), got " +
                     std::to_string(parameters.svm_type));
  if (parameters.probability != 0 && parameters.probability != 1)
    throw UsageError("-b must be 0 or 1, got " + std::to_string(parameters.probability));
  parameters.nr_weight = static_cast<int>(weights.labels.size());
  parameters.weight_label = weights.labels.data();
  parameters.weight = weights.weights.data();
  const bool regression = is_regression(parameters.svm_type);

  InputFile input(input_path);
  const std::vector<LabeledRow> rows = read_rows(input.stream(), input.name());
  std::vector<double> labels;
  for (const LabeledRow& row : rows) labels.push_back(row.label);
  const std::string problem = training_labels_problem(labels, parameters.svm_type, input.name());
  if (!problem.empty()) throw InputError(problem);
  const std::size_t n = rows.size();

  const int folds = folds_option(folds_text, n, input.name());
  if (!plot_path.empty()) check_gnuplot(plot_path);

  const std::vector<std::optional<int>> lengths =
      length_grid(values.count("length") ? std::optional<std::string>(lengths_text) : std::nullopt, rows, input.name());
  // Combined rows (ppk combine): their parts, and the weightings of the grid.
  const std::optional<CombinedParts> combined = combined_parts(rows, input.name());
  std::vector<Weighting> weightings;
  if (values.count("weights")) {
    if (!combined)
      throw UsageError("--weights: the rows of " + input.name() +
                       " are not combined rows (ppk combine makes them from rows of the same examples); leave "
                       "--weights out");
    weightings = weights_grid(weights_text, combined->parts.size());
  } else {
    weightings.emplace_back(combined ? Weighting(combined->weights) : std::nullopt);
  }

  // The matrices (combined rows: each part's and their weighted sum), and each thread's LIBSVM kernel
  // cache (-m), before anything is computed.
  const double matrices = combined ? static_cast<double>(combined->parts.size() + 1) : 1.0;
  const double needed = matrices * gram_bytes(n) + parameters.cache_size * 1e6 * threads;
  if (needed > memory_limit_bytes())
    throw InputError(
        input.name() + ": " +
        (combined ? "the kernel matrices of the " + std::to_string(combined->parts.size()) +
                        " parts and their weighted sum, of n = " + std::to_string(n) + " rows (8 n^2 bytes each)"
                  : "the kernel matrix of n = " + std::to_string(n) + " rows (8 n^2 bytes)") +
        " and " + std::to_string(threads) + " x -m " + format_short(parameters.cache_size) +
        " MB of LIBSVM's cache need " + byte_count(needed) + ", more than the " + byte_count(memory_limit_bytes()) +
        " this process may allocate; for many rows map them to features and train LIBLINEAR "
        "(ppk map, docs/feature-maps.md), or select on a random subsample of the rows");
  // How many n x n matrices fit beside the caches: room for every T's matrices from one pass.
  const double room = (memory_limit_bytes() - parameters.cache_size * 1e6 * threads) / gram_bytes(n);

  svm_set_print_string_function(&silent);
  const Grid grid{kinds, rhos, lengths, weightings, costs};
  GridScorer scorer(grid, kinds.size() * rhos.size() * lengths.size() * weightings.size(), labels, folds, parameters,
                    threads, quiet);
  if (combined)
    cross_validate_combined(*combined, input.name(), grid, room, scorer, threads);
  else
    cross_validate_rows(rows, input.name(), grid, room, scorer, threads);
  const std::vector<Cell> cells = scorer.cells();
  for (const Cell& cell : cells) std::cout << cell_options(cell) << ": " << cell_score(cell, regression) << "\n";
  std::cout.flush();
  const Cell* best = &cells.front();
  for (const Cell& cell : cells)
    if (better(cell, *best, regression)) best = &cell;
  if (!table_path.empty()) write_table(table_path, cells, regression);
  if (!plot_path.empty()) plot_scores(plot_path, cells, regression);
  if (!model_path.empty()) {
    if (combined) {
      // The model's support vectors are combined rows at the best weights: test rows need them too.
      save_best_model(model_path, reweighted_rows(*combined, input.name(), *best->weights), input.name(), *best,
                      parameters);
      if (*best->weights != combined->weights)
        std::cerr << "ppk select: note: " << model_path << " holds combined rows of the weights "
                  << format_weights(*best->weights) << " (those of " << input.name() << " are "
                  << format_weights(combined->weights) << "): combine the test files with ppk combine --weights "
                  << format_weights(*best->weights) << "\n";
    } else {
      save_best_model(model_path, rows, input.name(), *best, parameters);
    }
  }
  std::cout << "best: " << cell_options(*best) << ": " << cell_score(*best, regression) << "\n";
  return 0;
}

}  // namespace ppk::cli
