// Fisher-kernel features on the command line (fisher_features.hpp).
#include "fisher_features.hpp"

#include <cfloat>
#include <cmath>
#include <map>
#include <set>

#include "cli.hpp"
#include "parallel.hpp"
#include "ppk/core/row.hpp"
#include "ppk/estimate/fisher.hpp"

namespace ppk::cli {
namespace {

// Every example's u(x), in parallel; an example the pooled model cannot score is an error naming it.
std::vector<Eigen::VectorXd> scores_of(const FisherScorer& scorer, const Dataset* data,
                                       const std::vector<Statistics>& examples, unsigned threads) {
  std::vector<Eigen::VectorXd> scores(examples.size());
  for_each_index(examples.size(), threads, "scoring", [&](std::size_t i) {
    try {
      scores[i] = scorer.score(examples[i]);
    } catch (const EstimationError& e) {
      if (data == nullptr) throw;
      throw data->error_at(data->examples[i], message_of(e));
    }
  });
  return scores;
}

}  // namespace

nlohmann::json fisher_information(const Estimator& estimator, const Model& pooled,
                                  const std::vector<Statistics>& training, unsigned threads) {
  std::optional<FisherScorer> scorer;
  try {
    scorer.emplace(estimator, pooled, AdaptedParameters{});
  } catch (const EstimationError&) {
    return nullptr;  // a model without Fisher scores: --fisher-from says so
  }
  const FisherScaling scaling = FisherScaling::from_training_scores(scores_of(*scorer, nullptr, training, threads));
  const Eigen::VectorXd& diagonal = scaling.information_diagonal();
  return {{"names", scorer->feature_names()},
          {"information", std::vector<double>(diagonal.data(), diagonal.data() + diagonal.size())}};
}

void check_fisher_information(const nlohmann::json& record, const std::string& path) {
  const auto fail = [&](const std::string& what) {
    return InputError(path + ": not a pool file written by ppk fit --pooled --save-pooled: \"fisher\": " + what);
  };
  if (!record.is_object() || !record.contains("names") || !record["names"].is_array() ||
      !record.contains("information") || !record["information"].is_array())
    throw fail("expected {\"names\": [strings], \"information\": [numbers]}");
  if (record["names"].size() != record["information"].size())
    throw fail("\"names\" and \"information\" differ in length");
  std::set<std::string> seen;
  for (const nlohmann::json& name : record["names"])
    if (!name.is_string() || !seen.insert(name.get<std::string>()).second)
      throw fail("\"names\" must be distinct strings");
  for (const nlohmann::json& value : record["information"])
    if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() < 0)
      throw fail("\"information\" must be finite numbers >= 0");
}

std::vector<Row> fisher_feature_rows(const Estimator& estimator, const Model& pooled, const nlohmann::json& information,
                                     const AdaptedParameters& parameters, const Dataset& data,
                                     const std::vector<Statistics>& examples, const std::string& pool_path,
                                     unsigned threads) {
  const FisherScorer scorer(estimator, pooled, parameters);
  // The saved diagonal's entries of the selected features, by name.
  std::map<std::string, double> saved;
  for (std::size_t j = 0; j < information["names"].size(); ++j)
    saved[information["names"][j].get<std::string>()] = information["information"][j].get<double>();
  Eigen::VectorXd diagonal(scorer.size());
  for (long j = 0; j < scorer.size(); ++j) {
    const auto found = saved.find(scorer.feature_names()[static_cast<std::size_t>(j)]);
    if (found == saved.end())
      throw InputError(pool_path + " holds no Fisher information for the feature " +
                       scorer.feature_names()[static_cast<std::size_t>(j)] + " (a pooled model of another shape)");
    diagonal(j) = found->second;
  }
  const FisherScaling scaling(diagonal);
  const std::vector<Eigen::VectorXd> scores = scores_of(scorer, &data, examples, threads);
  std::vector<Row> rows(scores.size());
  for (std::size_t i = 0; i < scores.size(); ++i) {
    const Eigen::VectorXd phi = scaling.features(scores[i]);
    for (Eigen::Index j = 0; j < phi.size(); ++j)
      if (std::fabs(phi(j)) >= DBL_MIN) rows[i].push_back(RowEntry{static_cast<int>(j + 1), phi(j)});
  }
  return rows;
}

}  // namespace ppk::cli
