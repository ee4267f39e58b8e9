// The family-blind part of Fisher scores (fisher.hpp): the scorer over a family's FisherScores, the
// pieces the families' scores share (fisher_scores.hpp) and the Fisher information's scaling.
#include "ppk/estimate/fisher.hpp"

#include <cmath>
#include <memory>
#include <string>
#include <utility>

#include <Eigen/Dense>

#include "estimate/estimate_detail.hpp"
#include "estimate/fisher_scores.hpp"
#include "ppk/core/family.hpp"
#include "ppk/estimate/estimate.hpp"

namespace ppk {

namespace detail {

std::string indexed(const std::string& name, long i) { return name + "[" + std::to_string(i) + "]"; }

void name_entries(const std::string& block, long rows, long cols, bool upper_triangle, std::vector<std::string>& names) {
  for (long i = 0; i < rows; ++i)
    for (long k = upper_triangle ? i : 0; k < cols; ++k) names.push_back(indexed(indexed(block, i), k));
}

Eigen::Index write_covariance_entry_scores(const Eigen::MatrixXd& precision, const Eigen::MatrixXd& scatter, double count,
                                           Eigen::VectorXd& out, Eigen::Index j) {
  const Eigen::MatrixXd gradient = 0.5 * (precision * scatter * precision - count * precision);
  for (Eigen::Index i = 0; i < gradient.rows(); ++i)
    for (Eigen::Index k = i; k < gradient.cols(); ++k) out(j++) = (i == k ? 1.0 : 2.0) * gradient(i, k);
  return j;
}

Eigen::Index write_row_by_row(const Eigen::MatrixXd& m, Eigen::VectorXd& out, Eigen::Index j) {
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index k = 0; k < m.cols(); ++k) out(j++) = m(i, k);
  return j;
}

void check_rows(const Eigen::MatrixXd& x, long dim, const char* example) {
  if (x.rows() < 1) throw EstimationError(std::string("the ") + example + " is empty");
  if (x.cols() != dim)
    throw EstimationError(std::string("the ") + example + "'s vectors have dimension " + std::to_string(x.cols()) +
                          " where the pooled model's have " + std::to_string(dim));
  for (Eigen::Index t = 0; t < x.rows(); ++t)
    for (Eigen::Index d = 0; d < x.cols(); ++d)
      if (!std::isfinite(x(t, d)))
        throw EstimationError("vector " + std::to_string(t + 1) + " of the " + example + " has the value " +
                              short_number(x(t, d)) + " at index " + std::to_string(d + 1) +
                              ": the values must be finite");
}

void check_probability(double log_likelihood, const char* example) {
  if (!std::isfinite(log_likelihood))
    throw EstimationError(std::string("the ") + example +
                          " has probability 0 under the pooled model: its Fisher score is not defined");
}

}  // namespace detail

std::unique_ptr<FisherScores> Estimator::fisher_scores(const Model& pooled, const AdaptedParameters&) const {
  throw EstimationError("the pooled model is " + detail::with_article(pooled.family().name) +
                        " model: Fisher scores need an HMM, a mixture of Gaussians, an LDS or a network");
}

Eigen::VectorXd FisherScores::sequence_score(const std::vector<long>&) const {
  throw EstimationError(pooled_model() + ": score the rows of a matrix, not a sequence of symbols");
}

Eigen::VectorXd FisherScores::rows_score(const Eigen::MatrixXd&) const {
  throw EstimationError(pooled_model() + ": score a sequence of symbols, not vectors");
}

Eigen::VectorXd FisherScores::observations_score(const std::vector<std::vector<long>>&) const {
  throw EstimationError("the pooled model is not a network: score its sequences or vectors");
}

Eigen::VectorXd FisherScores::counts_score(const std::vector<Eigen::VectorXd>&, double) const {
  throw EstimationError("the pooled model is not a network: score its sequences or vectors");
}

Eigen::VectorXd FisherScores::statistics_score(const Statistics& example) const {
  const auto symbols = example.sums.find("symbols");
  if (symbols == example.sums.end()) return rows_score(example.sums.at("x"));
  const Eigen::MatrixXd& column = symbols->second;
  return sequence_score(std::vector<long>(column.data(), column.data() + column.size()));
}

FisherScorer::FisherScorer(const Estimator& estimator, const Model& pooled, const AdaptedParameters& parameters)
    : FisherScorer(estimator.fisher_scores(pooled, parameters)) {}

FisherScaling::FisherScaling(Eigen::VectorXd information_diagonal)
    : information_diagonal_(std::move(information_diagonal)) {
  for (Eigen::Index j = 0; j < information_diagonal_.size(); ++j)
    if (!std::isfinite(information_diagonal_(j)) || information_diagonal_(j) < 0.0)
      throw EstimationError("the Fisher information's diagonal entry " + std::to_string(j + 1) + " is " +
                            detail::short_number(information_diagonal_(j)) + ": it must be finite and >= 0");
}

FisherScaling FisherScaling::from_training_scores(const std::vector<Eigen::VectorXd>& scores) {
  if (scores.empty()) throw EstimationError("no training scores to estimate the Fisher information from");
  Eigen::VectorXd sum_of_squares = Eigen::VectorXd::Zero(scores.front().size());
  for (std::size_t i = 0; i < scores.size(); ++i) {
    if (scores[i].size() != sum_of_squares.size())
      throw EstimationError("training score " + std::to_string(i + 1) + " has " + std::to_string(scores[i].size()) +
                            " features where the first has " + std::to_string(sum_of_squares.size()));
    if (!scores[i].allFinite())
      throw EstimationError("training score " + std::to_string(i + 1) + " has a value that is not finite");
    sum_of_squares += scores[i].cwiseAbs2();
  }
  return FisherScaling(sum_of_squares / static_cast<double>(scores.size()));
}

Eigen::VectorXd FisherScaling::features(const Eigen::VectorXd& score) const {
  if (score.size() != information_diagonal_.size())
    throw EstimationError("the score has " + std::to_string(score.size()) + " features where the Fisher scaling has " +
                          std::to_string(information_diagonal_.size()));
  Eigen::VectorXd phi(score.size());
  for (Eigen::Index j = 0; j < score.size(); ++j)
    phi(j) = information_diagonal_(j) > 0.0 ? score(j) / std::sqrt(information_diagonal_(j)) : 0.0;
  return phi;
}

}  // namespace ppk
