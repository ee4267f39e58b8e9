#include "map_rows.hpp"

#include <algorithm>
#include <utility>

#include "cli.hpp"

namespace ppk::cli {

MapRoute parse_route(const std::string& text) {
  if (text == "exact") return MapRoute::exact;
  if (text == "sparse") return MapRoute::sparse;
  if (text == "nystrom") return MapRoute::nystrom;
  throw UsageError("--map must be exact, sparse or nystrom, got '" + text + "'");
}

NystromOptions nystrom_options(long landmarks, const std::string& landmark_choice, std::uint64_t seed, double eigen_floor,
                               unsigned threads) {
  if (landmarks < 1 || landmarks > 100000)
    throw UsageError("--landmarks must be a whole number in [1, 100000], got " + std::to_string(landmarks));
  NystromOptions options;
  options.landmarks = static_cast<std::size_t>(landmarks);
  options.seed = seed;
  if (landmark_choice == "kmeans++")
    options.choice = LandmarkChoice::kmeans_plus_plus;
  else if (landmark_choice != "uniform")
    throw UsageError("--landmark-choice must be uniform or kmeans++, got '" + landmark_choice + "'");
  if (!(eigen_floor >= 0.0 && eigen_floor < 1.0))
    throw UsageError("--eigen-floor must be a number in [0, 1), got " + format_double(eigen_floor));
  options.eigen_floor = eigen_floor;
  options.threads = threads;
  return options;
}

LandmarkCandidates::LandmarkCandidates(std::string source, const NystromOptions& options)
    : source_(std::move(source)),
      options_(options),
      reservoir_size_(options.landmarks * (options.choice == LandmarkChoice::uniform ? 1 : 16)),
      generator_(options.seed) {}

void LandmarkCandidates::offer(const LabeledRow& row) {
  const long number = ++seen_;
  if (reservoir_.size() < reservoir_size_) {
    reservoir_.push_back(row);
    numbers_.push_back(number);
    return;
  }
  // Algorithm R: row number n replaces a uniformly chosen entry with probability R / n.
  const auto j = static_cast<std::size_t>(generator_.uniform() * static_cast<double>(number));
  if (j < reservoir_size_) {
    reservoir_[j] = row;
    numbers_[j] = number;
  }
}

std::unique_ptr<NystromMap> LandmarkCandidates::fit_map(KernelKind kind, const KernelParams& params) const {
  if (reservoir_.empty()) throw InputError(source_ + ": no rows to choose landmarks from");
  std::vector<std::size_t> order(reservoir_.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return numbers_[a] < numbers_[b]; });
  std::vector<Row> candidates;
  std::unique_ptr<PreparedModel> first;
  for (std::size_t i : order) {
    auto model = prepare_labeled_row(reservoir_[i], source_, numbers_[i], kind, params);
    if (first) {
      try {
        check_compatible(first->model(), model->model());
      } catch (const KernelDomainError& e) {
        throw row_error(source_, numbers_[i], e.what());
      }
    } else {
      first = std::move(model);
    }
    candidates.push_back(reservoir_[i].row);
  }
  return fit_nystrom_map(candidates, kind, params, options_);
}

RouteChoice choose_route(const std::vector<LabeledRow>& rows, std::size_t count, const std::string& source,
                         KernelKind kind, const KernelParams& params) {
  std::vector<std::unique_ptr<PreparedModel>> models;
  std::vector<const PreparedModel*> sample;
  for (std::size_t i = 0; i < std::min({count, rows.size(), kChunkRows}); ++i) {
    models.push_back(prepare_labeled_row(rows[i], source, static_cast<long>(i + 1), kind, params));
    sample.push_back(models.back().get());
  }
  if (sample.empty()) throw InputError(source + ": no rows to map");
  return choose_exact_or_sparse(sample, kind);
}

void map_row(const FeatureMap& map, const LabeledRow& row, const std::string& source, long number, Row& features) {
  const auto model = prepare_labeled_row(row, source, number, map.domain().kind, map.domain().params);
  try {
    map.features(*model, features);
  } catch (const KernelDomainError& e) {
    throw row_error(source, number, e.what());
  }
}

}  // namespace ppk::cli
